"""Every key of the two DynamoDB tables, and what an item is by its key: the one place that knows
how keys are spelled (``tests/unit/test_keys.py`` holds every other module of the application and
the simulator to it).

The game table (``pk``, ``sk``; the ``by-player`` index on ``gsi1pk``, ``gsi1sk``):

- ``TABLE#{table}`` / ``META``: a table; ``LOG#{table}`` / ``E#{n:08d}``: its device log, with
  ``ONCE#{table}#{key}`` (an event recorded once) and ``WAITING#{table}`` / ``{reader}#{seq:012d}``
  (a reader's event waiting for an earlier one);
- ``ROUND#{round}`` / ``META``: a round; ``ROUND#{round}#SHARD#{nnn}`` / ``BET#{bet}``: its bets;
  ``ROUND#{round}#PLAYER#{player}`` / ``BETS``: one player's bets of it; ``ROUND#RULES#{digest}`` /
  ``RULES``: the rules rounds were played by; ``BETREQUEST#{player}#{key}`` / ``BETS``: a bet
  request taken;
- ``SHOE#{table}#{shoe}`` / ``RESULTS``: a shoe's results (the roads);
- ``WATCH#{table}`` / ``{slot:03d}#{connection}``, ``P#{player}#{connection}``, ``S#{connection}``,
  ``SLOTS``: a table's screens; ``CONN#{connection}`` / ``META``: one screen's connection;
- index: ``PLAYER#{player}`` (a player's bets), ``ROUNDS#{table}`` (a table's rounds), ``TABLES``;
- ``LOG#{table}`` / ``HEAD``: the device log's count and each reader's last number.

The wallet table: ``WALLET#{player}`` / ``BALANCE``, ``LEDGER#{seq:012d}`` (its entries),
``OP#{op}`` (a movement's once-only marker); ``CALL#{transaction}`` / ``CALL``: a call to an
operator's wallet (in the ``due`` index under ``DUE`` until it is sent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

META = "META"

# --- the game table --------------------------------------------------------------------------


def table_key(table_id: str) -> dict[str, str]:
    return {"pk": f"TABLE#{table_id}", "sk": META}


def round_pk(round_id: str) -> str:
    return f"ROUND#{round_id}"


def round_key(round_id: str) -> dict[str, str]:
    return {"pk": round_pk(round_id), "sk": META}


def shard_pk(round_id: str, shard: int) -> str:
    return f"ROUND#{round_id}#SHARD#{shard:03d}"


BET = "BET#"
"""The sort key prefix of a bet (``BET#{bet}``), in its round's shard."""


def bet_key(round_id: str, shard: int, bet_id: str) -> dict[str, str]:
    return {"pk": shard_pk(round_id, shard), "sk": f"{BET}{bet_id}"}


def player_round_key(round_id: str, player: str) -> dict[str, str]:
    return {"pk": f"ROUND#{round_id}#PLAYER#{player}", "sk": "BETS"}


def bet_request_key(player: str, key: str) -> dict[str, str]:
    return {"pk": f"BETREQUEST#{player}#{key}", "sk": "BETS"}


def rules_key(rules_id: str) -> dict[str, str]:
    return {"pk": f"ROUND#RULES#{rules_id}", "sk": "RULES"}


def log_pk(table_id: str) -> str:
    return f"LOG#{table_id}"


def log_head_key(table_id: str) -> dict[str, str]:
    """A device log's head: how many entries it holds, and each reader's last number."""
    return {"pk": log_pk(table_id), "sk": "HEAD"}


LOG_ENTRY = "E#"
"""The sort key prefix of a device log's entries (``E#{n:08d}``)."""


def log_entry_sk(n: int) -> str:
    return f"{LOG_ENTRY}{n:08d}"


def log_entry_key(table_id: str, n: int) -> dict[str, str]:
    return {"pk": log_pk(table_id), "sk": log_entry_sk(n)}


def once_key(table_id: str, key: str) -> dict[str, str]:
    return {"pk": f"ONCE#{table_id}#{key}", "sk": "ONCE"}


def waiting_pk(table_id: str) -> str:
    return f"WAITING#{table_id}"


def waiting_key(table_id: str, reader: str, seq: int) -> dict[str, str]:
    """Where a card reader's event waits for the earlier ones of its reader (outside the log's
    partition: the live function, which reads the log's stream, never sees it)."""
    return {"pk": waiting_pk(table_id), "sk": f"{reader}#{seq:012d}"}


def results_key(table_id: str, shoe_id: str) -> dict[str, str]:
    return {"pk": f"SHOE#{table_id}#{shoe_id}", "sk": "RESULTS"}


def watch_pk(table: str) -> str:
    return f"WATCH#{table}"


def watch_key(table: str, slot: int, connection_id: str) -> dict[str, str]:
    return {"pk": watch_pk(table), "sk": f"{watch_slot(slot)}{connection_id}"}


def watch_slot(slot: int) -> str:
    """The sort key prefix of one slot's watches of a table (``{slot:03d}#{connection}``)."""
    return f"{slot:03d}#"


def slots_key(table: str) -> dict[str, str]:
    return {"pk": watch_pk(table), "sk": "SLOTS"}


STAFF = "S#"
"""The sort key prefix of a table's staff watchers (``S#{connection}``): who its staff events go to."""


def player_watch(subject: str) -> str:
    """The sort key prefix of one player's watches of a table (``P#{subject}#{connection}``)."""
    return f"P#{subject}#"


def connection_key(connection_id: str) -> dict[str, str]:
    return {"pk": f"CONN#{connection_id}", "sk": META}


# --- the by-player index ---------------------------------------------------------------------


def player_index(player: str) -> str:
    """A player's bets in the ``by-player`` index (``gsi1pk``)."""
    return f"PLAYER#{player}"


TABLES = "TABLES"
"""Every table in the ``by-player`` index (``gsi1pk``): the lobby."""


def rounds_index(table_id: str) -> str:
    """A table's rounds in the ``by-player`` index (``gsi1pk``)."""
    return f"ROUNDS#{table_id}"


# --- the wallet table ------------------------------------------------------------------------


def wallet_pk(player: str) -> str:
    return f"WALLET#{player}"


def wallet_key(player: str) -> dict[str, str]:
    return {"pk": wallet_pk(player), "sk": "BALANCE"}


LEDGER = "LEDGER#"
"""The sort key prefix of a wallet's ledger entries (``LEDGER#{seq:012d}``)."""
MARKER = "OP#"
"""The sort key prefix of a movement's once-only marker (``OP#{op}``)."""


def ledger_key(player: str, seq: int) -> dict[str, str]:
    return {"pk": wallet_pk(player), "sk": f"{LEDGER}{seq:012d}"}


def marker_key(player: str, op: str) -> dict[str, str]:
    return {"pk": wallet_pk(player), "sk": f"{MARKER}{op}"}


def call_key(transaction: str) -> dict[str, str]:
    return {"pk": f"CALL#{transaction}", "sk": "CALL"}


DUE = "DUE"
"""The ``due`` index's one partition (``due_pk``): the calls the outbox has still to send, by time."""


# --- what an item is, by its key --------------------------------------------------------------


def kind_of(key: Mapping[str, Any]) -> str | None:
    """What the item of ``key`` is: ``table``, ``round``, ``bet``, ``log-entry``, ``call``,
    ``ledger-entry``, ``marker``, ``wallet``; None for another item."""
    pk, sk = str(key.get("pk", "")), str(key.get("sk", ""))
    if sk == META:
        return "table" if pk.startswith("TABLE#") else "round" if pk.startswith("ROUND#") else None
    if sk.startswith(BET) and "#SHARD#" in pk:
        return "bet"
    if pk.startswith("LOG#") and sk.startswith(LOG_ENTRY):
        return "log-entry"
    if pk.startswith("CALL#"):
        return "call"
    if pk.startswith("WALLET#"):
        return "ledger-entry" if sk.startswith(LEDGER) else "marker" if sk.startswith(MARKER) else "wallet"
    return None


def round_of(pk: str) -> str:
    """The round of a round's item or of one of its bets' shards (``ROUND#{round}[#SHARD#{nnn}]``)."""
    return pk.removeprefix("ROUND#").rsplit("#SHARD#", 1)[0]


def bet_of(sk: str) -> str:
    """The bet of a bet's sort key (``BET#{bet}``)."""
    return sk.removeprefix(BET)


def player_of(pk: str) -> str:
    """The player of a wallet's item (``WALLET#{player}``)."""
    return pk.removeprefix("WALLET#")


def table_of_log(pk: str) -> str:
    """The table of a device log's entry (``LOG#{table}``)."""
    return pk.removeprefix("LOG#")


def op_of(sk: str) -> str:
    """The movement of a once-only marker (``OP#{op}``)."""
    return sk.removeprefix(MARKER)


def seq_of(sk: str) -> int:
    """The number of a ledger entry (``LEDGER#{seq:012d}``)."""
    return int(sk.removeprefix(LEDGER))
