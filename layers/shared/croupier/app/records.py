"""The stored records' vocabulary: the statuses a round, a bet and a device-log entry go through;
a table, a round, a bet, a device-log entry, a wallet's records (its balance, its ledger entries,
its once-only markers), a screen's connection and a table's watcher as typed values.

Values are the strings stored in DynamoDB and shown by the API (a :class:`~enum.StrEnum` member is
its string), so items written before these names existed read the same.

A round: ``betting`` → ``closing`` (the bets being frozen) → ``playing`` → ``settling`` →
``settled``; or, from betting, closing or playing, ``voiding`` → ``voided`` (every bet refunded).

The typed records (keys from :mod:`croupier.app.keys`) are read with ``from_item`` and written
with ``item()`` (a watcher: ``attributes()``, beside its keys): the item is the same, attribute
for attribute, as the one written before these types existed (a table's and a round's, but for
the attributes they have no value for: they are left out, where a table or a round written as a
dictionary kept some as nulls). Reading checks types, never sums: a ledger entry that does not
add up, a bet whose payout is wrong, are read as they are, for the audit to report.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ..games import engine_class
from ..games.base import Bet
from .keys import (
    TABLES,
    bet_key,
    connection_key,
    ledger_key,
    log_entry_key,
    marker_key,
    op_of,
    player_index,
    player_of,
    round_key,
    rounds_index,
    seq_of,
    table_key,
    table_of_log,
    wallet_key,
)


class RoundStatus(StrEnum):
    BETTING = "betting"
    CLOSING = "closing"
    PLAYING = "playing"
    SETTLING = "settling"
    SETTLED = "settled"
    VOIDING = "voiding"
    VOIDED = "voided"


TAKING_BETS = frozenset({RoundStatus.BETTING, RoundStatus.CLOSING})
"""The bets are not frozen yet: a round in these is before its close."""
ACTIVE = frozenset({RoundStatus.BETTING, RoundStatus.CLOSING, RoundStatus.PLAYING, RoundStatus.SETTLING,
                    RoundStatus.VOIDING})
"""Statuses of a round that holds its table: the next round cannot open, the shoe cannot change."""
FINISHED = frozenset({RoundStatus.SETTLED, RoundStatus.VOIDED})
"""A round in these is over: nothing of it changes again."""

LAST_BET_MS = 500
"""Where the dealer deals once betting is over, betting closes this long before the countdown's
end, by the server's clock (decision 0077, ``docs/decisions``): a bet is stored only if its last
look at the clock, right before its transaction, found more than this left. Whatever holds a bet
up between that look and its commit (its one request's way to DynamoDB, sent without the SDK's
retries: ``store.AT_ONCE``) then has this long before the dealer, who deals from the countdown's
end, sees which seats to deal: DynamoDB's conditions have no clock, so nothing else can keep a bet
stored after that out of the round."""


def last_bet_ms(game: str) -> int:
    """How long before the countdown's end betting closes in a round of ``game``: :data:`LAST_BET_MS`
    where the dealer deals once betting is over; none where the dealer deals while it runs (Pok
    Deng: the spec takes bets until the countdown ends, no bet decides where a card goes, and the
    cards stay face down until betting closes)."""
    return 0 if engine_class(game).deals_during_betting else LAST_BET_MS


def bets_until(closes_at: int, game: str) -> int:
    """When betting closes in a round of ``game`` whose countdown ends at ``closes_at``."""
    return closes_at - last_bet_ms(game)


REVEALED = frozenset({RoundStatus.SETTLING, RoundStatus.SETTLED, RoundStatus.VOIDING, RoundStatus.VOIDED})
"""Round statuses in which every card of the round is face up."""


class BetStatus(StrEnum):
    OPEN = "open"
    SETTLED = "settled"
    REFUNDED = "refunded"


def unknown_attributes(item: Mapping[str, Any], known: Collection[str]) -> dict[str, Any]:
    """The attributes of ``item`` its record does not know (a later version's, or no one's): a
    typed record keeps them as read and writes them back, and the audit names them."""
    return {name: value for name, value in item.items() if name not in known}


def read_fields(item: Mapping[str, Any], readers: Mapping[str, Any]) -> dict[str, Any]:
    """The fields ``item`` has a value for, each read by its reader (which refuses a value of the
    wrong type): a record's keyword arguments."""
    return {name: read(item[name]) for name, read in readers.items() if item.get(name) is not None}


def written_fields(record: Any, names: Collection[str]) -> dict[str, Any]:
    """The fields of ``record`` among ``names`` that have a value: an attribute with none is not
    written."""
    values = {name: getattr(record, name) for name in names}
    return {name: value for name, value in values.items() if value is not None}


class WholeRecord:
    """A record changed in place and written whole on its ``version`` (a table, a round): read
    with :meth:`from_item` (each of its :attr:`FIELDS` by its reader; what it does not know kept
    in ``extra``), written with :meth:`item` (its key, the fields that have a value, its index
    keys, ``extra``)."""

    FIELDS: ClassVar[dict[str, Any]]
    """Each attribute of its item but its keys, and how its stored value is read."""
    version: int
    extra: dict[str, Any]

    if TYPE_CHECKING:
        def __init__(self, **fields: Any) -> None: ...  # each record's own, made by dataclass

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Self:
        """The record from its item (numbers as integers, as the store reads them); a value of the
        wrong type is refused."""
        known = {"pk", "sk", "gsi1pk", "gsi1sk", *cls.FIELDS}
        return cls(**read_fields(item, cls.FIELDS), extra=unknown_attributes(item, known))

    def key(self) -> dict[str, str]:
        raise NotImplementedError

    def index_keys(self) -> dict[str, str]:
        raise NotImplementedError

    def item(self) -> dict[str, Any]:
        return {**self.key(), **written_fields(self, self.FIELDS), **self.index_keys(), **self.extra}


# --- a table --------------------------------------------------------------------------------------


@dataclass
class TableRecord(WholeRecord):
    """``TABLE#{table}`` / ``META``: a table, written whole on its ``version`` (each write adds
    one). What it is: its game, the rules it overrides of the game's (``rules``), its card reader,
    its name, its wallet (``{"mode": "internal"}`` or an operator's seamless wallet; None: ours)
    and when it was created. What it holds now: the seats, the shoe (as the rules core's
    :class:`~croupier.shoe.Shoe` writes it; None before the first shuffle), the round in play and
    its status (the round's, as the table last wrote it) and when its betting closes, the rounds
    played, and how far its device log is taken (``log_taken``).

    Its item also holds the index keys that list the tables for the lobby (``TABLES``, then the
    table). An attribute with no value (None) is not written; an attribute no table has is kept
    as read in ``extra`` and written back with it. Like a round, a table is changed in place and
    written on the version it was read with."""

    table_id: str
    game: str
    reader_id: str
    name: str
    created_at: int
    version: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    wallet: dict[str, Any] | None = None
    seats: dict[str, Any] = field(default_factory=dict)
    shoe: dict[str, Any] | None = None
    round_id: str | None = None
    round_status: RoundStatus | None = None
    closes_at: int | None = None
    rounds_played: int = 0
    log_taken: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> dict[str, str]:
        return table_key(self.table_id)

    def index_keys(self) -> dict[str, str]:
        return {"gsi1pk": TABLES, "gsi1sk": self.table_id}

    @property
    def idle(self) -> bool:
        """No round holds the table: the next one may open, the shoe may change."""
        return self.round_id is None or self.round_status not in ACTIVE


# --- a round --------------------------------------------------------------------------------------


@dataclass
class RoundRecord(WholeRecord):
    """``ROUND#{round}`` / ``META``: one round of a table, written whole on its ``version`` (each
    write adds one: a writer that read an earlier version loses, and reads again).

    What it is: its table, game and wallet (``{"mode": "internal"}``, or the operator's seamless
    wallet, copied from the table when it opened), the id of the rules it is played under (the
    rules themselves are stored apart, once; a round written before that carries ``rules``), its
    place in the shoe and whether it is the shoe's last, its bet shards, when it opened and when
    its betting closes. What happened: its status, the events its engine replays (``events``: the
    cards, the decisions, the windows closed), the bets the engine plays and the players' balances
    when betting closed (``engine_bets``, ``balances``), the refunds of the close, the seats, what
    it waits for and since when (``expect_key``, ``expect_since``), the decisions applied (by their
    once-only keys), its pauses, resumes and void (``history``, and the pause now: its reason,
    code, time and the log entry it ``blocked``), the workflow's task tokens (one at a time), and
    at its end its settlement, the house's result, its bet count and when it finished.

    Its item also holds the index keys that list a table's rounds (``ROUNDS#{table}``, then when
    it opened). An attribute with no value (None) is not written; an attribute no round has is
    kept as read in ``extra`` and written back with it. Unlike a bet or a log entry, a round (as a
    table) is changed in place: the application reads it, changes it and writes it on the version
    it read."""

    round_id: str
    table_id: str
    game: str
    status: RoundStatus
    round_in_shoe: int
    shoe_id: str
    shards: int
    created_at: int
    closes_at: int
    version: int = 0
    wallet: dict[str, Any] | None = None
    rules_id: str | None = None
    rules: dict[str, Any] | None = None
    last_round: bool = False
    paused: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    engine_bets: list[dict[str, Any]] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)
    refunds: list[str] = field(default_factory=list)
    seats: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    expect_key: str | None = None
    expect_since: int | None = None
    decision_keys: dict[str, Any] | None = None
    closed_at: int | None = None
    bet_shards: dict[str, int] | None = None
    wait_token: str | None = None
    wait_registered_at: int | None = None
    woken_token: str | None = None
    countdown_token: str | None = None
    pause_reason: str | None = None
    pause_code: str | None = None
    paused_at: int | None = None
    blocked: dict[str, Any] | None = None
    void_reason: str | None = None
    settlement: dict[str, Any] | None = None
    finished_at: int | None = None
    house_result: int | None = None
    bet_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> dict[str, str]:
        return round_key(self.round_id)

    def index_keys(self) -> dict[str, str]:
        return {"gsi1pk": rounds_index(self.table_id), "gsi1sk": f"{self.created_at:013d}#{self.round_id}"}


def _map(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{value!r} is not a map")
    return dict(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list")
    return list(value)


# --- a bet ----------------------------------------------------------------------------------------


def bet_from_item(item: Mapping[str, Any]) -> Bet:
    """The rules core's bet, from a stored bet's fields (a bet item, a round's ``engine_bets``, a
    player's summary of their bets in a round)."""
    return Bet(str(item["bet_id"]), str(item["player"]), str(item["type"]), int(item["amount"]),
               int(item["seat"]) if item.get("seat") is not None else None, item.get("mode"))


def bet_to_item(bet: Bet) -> dict[str, Any]:
    """A bet's fields as stored (``bet_id``; a seat and a mode only when it has them)."""
    out = bet.to_dict()
    out["bet_id"] = out.pop("id")
    return out


BET_VIEW = ("bet_id", "type", "seat", "mode", "amount", "taken", "status", "result")
"""What a bet shows its player and the screens (``bet-placed``, ``bet-settled``, a round's bets)."""


@dataclass(frozen=True)
class BetRecord:
    """``ROUND#{round}#SHARD#{shard:03d}`` / ``BET#{bet}``: one bet of a round. What was bet (the rules
    core's :class:`~croupier.games.base.Bet`), at which table and game, in which of the round's
    shards; the money it took (``taken``: its stake and every extra stake since: a double, a split,
    insurance, a follow), its status and, once closed, its result and when. A bet taken by an
    operator's wallet names the operator, the currency and the operator's transactions that
    debited it (``debits``); one taken by ours has none of the three.

    Its item also holds the ``by-player`` index's keys (the player, then when the bet was placed)
    and its time to live (``expires_at``). An attribute no bet has (one a later version writes, or
    no one should) is kept as read in ``extra``, written back with the bet, and named by the
    audit: reading a bet never stops a round's settlement."""

    round_id: str
    shard: int
    bet: Bet
    table_id: str
    game: str
    status: BetStatus
    taken: int
    placed_at: int
    expires_at: int
    operator: str | None = None
    currency: str | None = None
    debits: tuple[str, ...] = ()
    result: Mapping[str, Any] | None = None
    finished_at: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def bet_id(self) -> str:
        return self.bet.id

    @property
    def player(self) -> str:
        return self.bet.player

    @property
    def is_open(self) -> bool:
        return self.status == BetStatus.OPEN

    @property
    def paid(self) -> int | None:
        """What its settlement or refund credited (None while it is open, or when its result does
        not say)."""
        return None if self.result is None or "paid" not in self.result else int(self.result["paid"])

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> BetRecord:
        result = item.get("result")
        return cls(round_id=str(item["round_id"]), shard=int(item["shard"]), bet=bet_from_item(item),
                   table_id=str(item["table_id"]), game=str(item["game"]), status=BetStatus(item["status"]),
                   taken=int(item["taken"]), placed_at=int(item["placed_at"]), expires_at=int(item["expires_at"]),
                   operator=item.get("operator"), currency=item.get("currency"),
                   debits=tuple(str(d) for d in item.get("debits") or ()),
                   result=None if result is None else dict(result),
                   finished_at=None if item.get("finished_at") is None else int(item["finished_at"]),
                   extra=unknown_attributes(item, _BET_ATTRIBUTES))

    def key(self) -> dict[str, str]:
        return bet_key(self.round_id, self.shard, self.bet_id)

    def item(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.key(), **bet_to_item(self.bet), "round_id": self.round_id,
                               "table_id": self.table_id, "game": self.game, "shard": self.shard,
                               "status": self.status, "taken": self.taken, "placed_at": self.placed_at,
                               "gsi1pk": player_index(self.player), "expires_at": self.expires_at,
                               "gsi1sk": f"{self.placed_at:013d}#{self.bet_id}"}
        if self.operator is not None:
            out.update(operator=self.operator, currency=self.currency, debits=list(self.debits))
        if self.result is not None:
            out["result"] = dict(self.result)
        if self.finished_at is not None:
            out["finished_at"] = self.finished_at
        return {**out, **self.extra}

    def view(self) -> dict[str, Any]:
        """The bet as its player and the screens see it (:data:`BET_VIEW`)."""
        known = {**bet_to_item(self.bet), "taken": self.taken, "status": self.status, "result": self.result}
        return {name: known[name] for name in BET_VIEW if known.get(name) is not None}


_BET_ATTRIBUTES = frozenset({"pk", "sk", "bet_id", "player", "type", "amount", "seat", "mode", "round_id", "table_id",
                             "game", "shard", "status", "taken", "placed_at", "gsi1pk", "gsi1sk", "expires_at",
                             "operator", "currency", "debits", "result", "finished_at"})
"""Every attribute a bet's item may have."""


# --- the device log -----------------------------------------------------------------------------


class LogState(StrEnum):
    """What became of a device-log entry: ``pending`` until the table takes it; ``held`` when the
    supervisor kept a card that paused its round for the round (it waits for the round's next
    card); then ``taken`` (into a round, the shoe's burn, a shuffle ...), ``noted`` (a failed
    scan), ``refused``, ``not-taken`` (a card no round could take), or the supervisor's
    ``discarded`` or ``returned``."""

    PENDING = "pending"
    HELD = "held"
    TAKEN = "taken"
    NOTED = "noted"
    REFUSED = "refused"
    NOT_TAKEN = "not-taken"
    DISCARDED = "discarded"
    RETURNED = "returned"


PASSED = frozenset({LogState.TAKEN, LogState.NOTED, LogState.REFUSED, LogState.NOT_TAKEN, LogState.DISCARDED,
                    LogState.RETURNED})
"""States of an entry the table's cursor has passed: pending and held ones wait for the table."""

OUTCOME = ("state", "use", "round_id", "hand", "face_up", "shoe_id", "reason", "blocked", "taken_at", "resolved_at")
"""What the dealing and the supervisor write of what became of an entry, once it is in the log
(``croupier.app.store.log_entry_update`` refuses any other field)."""


@dataclass(frozen=True)
class LogEntry:
    """``LOG#{table}`` / ``E#{n}``: one event of a table's devices at its place ``n`` in the
    table's device log (0: not placed yet, it waits for an earlier event of its reader), recorded
    once under ``key`` (the scan id, or the bus event's id).

    What the device said: its ``kind`` (``card-scanned``, ``scan-failed``, ``cut-card``,
    ``shoe-shuffled``, ``burn-done``), when it was recorded (``at``) and sent (``sent_at``), the
    card, scan, reader and shoe, the reader's number for it (``seq``; ``out_of_sequence`` says
    why a number it used before is refused), a failed scan's reason (``scan_failure``),
    ``clock_ahead`` when its time was later than its recording (the device's clock is ahead: its
    time cannot say when it was sent, and it is refused). What
    became of it (:data:`OUTCOME`): its state, its use (``round``, ``burned``, ``shuffle`` ...),
    the round and hand it went to and whether face up, a refusal's ``reason``, the pause it caused
    (``blocked``), when it was taken and when the supervisor resolved it.

    An attribute no entry has is kept as read in ``extra`` and written back with it."""

    table_id: str
    n: int
    key: str
    kind: str
    at: int
    state: LogState = LogState.PENDING
    card: str | None = None
    scan_id: str | None = None
    reader_id: str | None = None
    shoe_id: str | None = None
    sent_at: int | None = None
    scan_failure: str | None = None
    seq: int | None = None
    out_of_sequence: str | None = None
    clock_ahead: str | None = None
    use: str | None = None
    round_id: str | None = None
    hand: str | None = None
    face_up: bool | None = None
    reason: str | None = None
    blocked: str | None = None
    taken_at: int | None = None
    resolved_at: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def waits(self) -> bool:
        """Whether the table has still to take it (pending or held)."""
        return self.state not in PASSED

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> LogEntry:
        return cls.recorded(table_of_log(str(item["pk"])), {k: v for k, v in item.items() if k not in ("pk", "sk")})

    @classmethod
    def recorded(cls, table_id: str, attributes: Mapping[str, Any]) -> LogEntry:
        """An entry from its attributes (an item's without its keys, or a waiting event's)."""
        return cls(table_id=table_id, **read_fields(attributes, _LOG_FIELDS),
                   extra=unknown_attributes(attributes, _LOG_FIELDS))

    def attributes(self) -> dict[str, Any]:
        """Its attributes without its keys, those it has (the device's first, then the outcome's)."""
        return {**written_fields(self, _LOG_FIELDS), **self.extra}

    def item(self) -> dict[str, Any]:
        return {**log_entry_key(self.table_id, self.n), **self.attributes()}

    def view(self) -> dict[str, Any]:
        """The entry as the staff read it, its card as stored (:mod:`croupier.app.visibility` says
        what of it each role sees): without its key, and without what no entry has."""
        return {name: value for name, value in self.attributes().items() if name != "key" and name not in self.extra}


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


def _whole(value: Any) -> int:
    if isinstance(value, bool) or int(value) != value:
        raise TypeError(f"{value!r} is not a whole number")
    return int(value)


_ROUND_FIELDS: dict[str, Any] = {
    "round_id": _text, "table_id": _text, "game": _text, "status": RoundStatus, "round_in_shoe": _whole,
    "shoe_id": _text, "shards": _whole, "created_at": _whole, "closes_at": _whole, "version": _whole,
    "wallet": _map, "rules_id": _text, "rules": _map, "last_round": _flag, "paused": _flag, "events": _list,
    "engine_bets": _list, "balances": _map, "refunds": _list, "seats": _map, "history": _list,
    "expect_key": _text, "expect_since": _whole, "decision_keys": _map, "closed_at": _whole, "bet_shards": _map,
    "wait_token": _text, "wait_registered_at": _whole, "woken_token": _text, "countdown_token": _text,
    "pause_reason": _text, "pause_code": _text, "paused_at": _whole, "blocked": _map, "void_reason": _text,
    "settlement": _map, "finished_at": _whole, "house_result": _whole, "bet_count": _whole}
"""Each attribute of a round's item but its keys, and how its stored value is read."""
_TABLE_FIELDS: dict[str, Any] = {
    "table_id": _text, "game": _text, "reader_id": _text, "name": _text, "created_at": _whole, "version": _whole,
    "rules": _map, "wallet": _map, "seats": _map, "shoe": _map, "round_id": _text, "round_status": RoundStatus,
    "closes_at": _whole, "rounds_played": _whole, "log_taken": _whole}
"""Each attribute of a table's item but its keys, and how its stored value is read."""
TableRecord.FIELDS, RoundRecord.FIELDS = _TABLE_FIELDS, _ROUND_FIELDS


_LOG_FIELDS: dict[str, Any] = {
    "n": _whole, "key": _text, "kind": _text, "at": _whole, "state": LogState, "card": _text, "scan_id": _text,
    "reader_id": _text, "shoe_id": _text, "sent_at": _whole, "scan_failure": _text, "seq": _whole,
    "out_of_sequence": _text, "clock_ahead": _text, "use": _text, "round_id": _text, "hand": _text, "face_up": _flag,
    "reason": _text, "blocked": _text, "taken_at": _whole, "resolved_at": _whole}
"""Each field of an entry, and how its stored value is read (a value of another type is refused)."""


# --- a wallet's records --------------------------------------------------------------------------

LEDGER_DETAILS = ("round_id", "bet_id", "table_id", "action", "reference")
"""What a ledger entry may say of its movement besides its money (a bet's, a deposit's reference)."""


@dataclass(frozen=True)
class WalletBalance:
    """``WALLET#{player}`` / ``BALANCE``: the balance, and its version (the number of its last
    ledger entry: every movement writes the balance conditioned on the version it read)."""

    player: str
    balance: int
    version: int
    updated_at: int

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> WalletBalance:
        return cls(player=player_of(str(item["pk"])), balance=int(item["balance"]), version=int(item["version"]),
                   updated_at=int(item.get("updated_at", 0)))

    def item(self) -> dict[str, Any]:
        return {**wallet_key(self.player), "balance": self.balance, "version": self.version, "player": self.player,
                "updated_at": self.updated_at}


@dataclass(frozen=True)
class LedgerEntry:
    """``WALLET#{player}`` / ``LEDGER#{seq}``: one movement of the wallet's money (a negative
    ``amount`` is a debit), the balance before and after it, what it was (``kind``: a bet, a
    payout, a refund, a deposit ...) and its ``details`` (:data:`LEDGER_DETAILS`)."""

    player: str
    seq: int
    op: str
    amount: int
    balance_before: int
    balance_after: int
    kind: str
    at: int
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.details) - set(LEDGER_DETAILS))
        if unknown:
            raise ValueError(f"a ledger entry says nothing of {', '.join(unknown)} (only {', '.join(LEDGER_DETAILS)})")

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> LedgerEntry:
        return cls(player=player_of(str(item["pk"])), seq=seq_of(str(item["sk"])), op=str(item["op"]),
                   amount=int(item["amount"]), balance_before=int(item["balance_before"]),
                   balance_after=int(item["balance_after"]), kind=str(item["kind"]), at=int(item["at"]),
                   details={k: v for k, v in item.items() if k in LEDGER_DETAILS})

    def item(self) -> dict[str, Any]:
        return {**ledger_key(self.player, self.seq), "op": self.op, **self.view()}

    def view(self) -> dict[str, Any]:
        """The entry as the API shows it (``GET /players/{id}/wallet``'s ledger)."""
        return {"amount": self.amount, "balance_before": self.balance_before, "balance_after": self.balance_after,
                "kind": self.kind, "at": self.at, **self.details}


@dataclass(frozen=True)
class Marker:
    """``WALLET#{player}`` / ``OP#{op}``: the movement ``op`` happened, once, as ledger entry
    ``seq`` (its amount and the balance after it)."""

    player: str
    op: str
    seq: int
    amount: int
    balance_after: int
    at: int

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Marker:
        return cls(player=player_of(str(item["pk"])), op=op_of(str(item["sk"])), seq=int(item["seq"]),
                   amount=int(item["amount"]), balance_after=int(item["balance_after"]), at=int(item["at"]))

    def item(self) -> dict[str, Any]:
        return {**marker_key(self.player, self.op), "seq": self.seq, "amount": self.amount,
                "balance_after": self.balance_after, "at": self.at}


# --- a screen's connection ------------------------------------------------------------------------


@dataclass(frozen=True)
class Connection:
    """``CONN#{connection}`` / ``META``: a screen's WebSocket connection. Who it is (its token's
    subject, role, account kind and table), until when it lives (``expires_at``: API Gateway's two
    hours, the item's TTL) and until when its token does, the tables it watches and the slot it
    joined in each. A connection made before slots were filled in order has no ``slot_at``
    (None): its id's hash chooses its slot among ``slots`` (None: the deployment's number). Its
    message count (``msg_second``, ``msg_count``) is the store's alone
    (:func:`croupier.app.store.count_message`)."""

    connection_id: str
    subject: str
    role: str
    account_kind: str
    table: str | None
    expires_at: int
    token_expires_at: int
    tables: tuple[str, ...] = ()
    slots: int | None = None
    slot_at: Mapping[str, int] | None = field(default_factory=dict)
    connected_at: int | None = None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Connection:
        expires = int(item["expires_at"])
        joined = item.get("slot_at")
        return cls(connection_id=str(item["connection_id"]), subject=str(item["subject"]), role=str(item["role"]),
                   account_kind=str(item.get("account_kind") or "real"), table=item.get("table"),
                   expires_at=expires, token_expires_at=int(item.get("token_expires_at") or expires),
                   tables=tuple(str(t) for t in item.get("tables") or ()),
                   slots=int(item["slots"]) if item.get("slots") else None,
                   slot_at=None if joined is None else {str(t): int(n) for t, n in joined.items()},
                   connected_at=int(item["connected_at"]) if item.get("connected_at") is not None else None)

    def item(self) -> dict[str, Any]:
        out: dict[str, Any] = {**connection_key(self.connection_id), "connection_id": self.connection_id,
                               "subject": self.subject, "role": self.role, "account_kind": self.account_kind,
                               "table": self.table, "tables": list(self.tables)}
        if self.slots is not None:
            out["slots"] = self.slots
        if self.slot_at is not None:
            out["slot_at"] = dict(self.slot_at)
        if self.connected_at is not None:
            out["connected_at"] = self.connected_at
        return {**out, "expires_at": self.expires_at, "token_expires_at": self.token_expires_at}


@dataclass(frozen=True)
class Watcher:
    """A screen watching a table, as its watch items keep it (``WATCH#{table}`` / ``{slot:03d}#
    {connection}``, and its audience's: ``P#{player}#{connection}``, ``S#{connection}``) and as a
    targeted push message names it: its connection, who it is (its token's subject, role, account
    kind and table), until when the connection lives and until when its token does (None: as long
    as the connection)."""

    connection_id: str
    subject: str
    role: str
    account_kind: str = "real"
    table: str | None = None
    expires_at: int | None = None
    token_expires_at: int | None = None

    @classmethod
    def from_item(cls, item: Mapping[str, Any]) -> Watcher:
        """A watcher from a watch item, or from what a push message says of it (other attributes,
        the item's keys among them, are not the watcher's)."""
        expires, token = item.get("expires_at"), item.get("token_expires_at")
        return cls(connection_id=str(item["connection_id"]), subject=str(item["subject"]), role=str(item["role"]),
                   account_kind=str(item.get("account_kind") or "real"), table=item.get("table") or None,
                   expires_at=None if expires is None else int(expires),
                   token_expires_at=None if token is None else int(token))

    def attributes(self) -> dict[str, Any]:
        """What a watch item holds besides its keys (and a push message says of the watcher)."""
        return {"connection_id": self.connection_id, "subject": self.subject, "role": self.role,
                "account_kind": self.account_kind, "table": self.table, "expires_at": self.expires_at,
                "token_expires_at": self.token_expires_at}

    @property
    def token_until(self) -> int | None:
        """When its token expires, seconds since the epoch (None: never said)."""
        return self.token_expires_at if self.token_expires_at is not None else self.expires_at
