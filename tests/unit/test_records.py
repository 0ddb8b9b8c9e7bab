"""The stored records' vocabulary (``croupier.app.records``) is the one the API publishes: each
response model that shows a round's or a bet's status lists exactly the enum's values, and the
status groups the application decides by are made of them. A table's, a round's, a bet's, a
device-log entry's and a wallet's typed records write the items written before they had types (a
table and a round without the nulls they kept), read them back as they were
written (boto3's numbers included), and keep what they do not know without showing it (the ledger
says nothing it does not know); a screen's connection and a table's watcher likewise, a connection
made before slots were filled in order included."""

from __future__ import annotations

import json
import typing
from dataclasses import replace
from decimal import Decimal

import pytest

from croupier.app import player_rounds, push, responses, store
from croupier.app.records import (
    ACTIVE,
    FINISHED,
    PASSED,
    REVEALED,
    TAKING_BETS,
    BetRecord,
    BetStatus,
    Connection,
    LedgerEntry,
    LogEntry,
    LogState,
    Marker,
    RoundRecord,
    RoundStatus,
    TableRecord,
    WalletBalance,
    Watcher,
)
from croupier.games.base import Bet


def literal_values(model: type, field: str) -> set[str]:
    """The values a field's ``Literal`` allows (of ``Literal[...] | None`` too)."""
    annotation = model.model_fields[field].annotation  # type: ignore[attr-defined]
    parts = [annotation] if typing.get_origin(annotation) is typing.Literal else typing.get_args(annotation)
    return {value for part in parts if typing.get_origin(part) is typing.Literal for value in typing.get_args(part)}


def test_every_published_round_status_is_a_round_status_and_every_bet_status_a_bet_status() -> None:
    rounds = {str(s) for s in RoundStatus}
    assert literal_values(responses.RoundLine, "status") == rounds
    assert literal_values(responses.RoundSummary, "status") == rounds
    assert literal_values(player_rounds.PlayerRound, "status") == rounds
    bets = {str(s) for s in BetStatus}
    for model in (responses.OwnBet, responses.RecordBet, responses.RecordedBet):
        assert literal_values(model, "status") == bets, model


def test_a_status_is_stored_and_sent_as_its_plain_string() -> None:
    assert json.dumps({"status": RoundStatus.VOIDING}) == '{"status": "voiding"}'
    assert RoundStatus("settled") is RoundStatus.SETTLED and RoundStatus.SETTLED == "settled"


def test_the_groups_of_statuses() -> None:
    # every round is active until it is finished, and its cards are face up from settling or voiding on
    assert set(RoundStatus) == ACTIVE | FINISHED and not ACTIVE & FINISHED
    assert TAKING_BETS < ACTIVE and FINISHED < REVEALED and not REVEALED & TAKING_BETS
    assert {RoundStatus.SETTLING, RoundStatus.VOIDING} == REVEALED - FINISHED


def boto3_read(item: dict[str, object]) -> object:
    """An item's values as boto3 reads them back: every number a ``Decimal``."""
    if isinstance(item, dict):
        return {k: boto3_read(v) for k, v in item.items()}
    if isinstance(item, list):
        return [boto3_read(v) for v in item]
    return Decimal(item) if isinstance(item, int) and not isinstance(item, bool) else item


PLACED = 1_700_000_000_000
SEAT_BET = BetRecord(round_id="r-1", shard=3, bet=Bet("b-1", "ana", "seat", 1_000, seat=2), table_id="bj-1",
                     game="blackjack", status=BetStatus.OPEN, taken=1_000, placed_at=PLACED,
                     expires_at=PLACED // 1000 + 400 * 86400)


def test_a_bet_is_the_item_written_before_it_had_a_type() -> None:
    # GIVEN a blackjack seat bet of ours, open, and a baccarat bet taken by an operator's wallet
    # THEN each writes the item bets were written as, the player's index keys included
    assert SEAT_BET.item() == {
        "pk": "ROUND#r-1#SHARD#003", "sk": "BET#b-1", "bet_id": "b-1", "player": "ana", "type": "seat",
        "amount": 1_000, "seat": 2, "round_id": "r-1", "table_id": "bj-1", "game": "blackjack", "shard": 3,
        "status": "open", "taken": 1_000, "placed_at": PLACED, "gsi1pk": "PLAYER#ana",
        "expires_at": PLACED // 1000 + 400 * 86400, "gsi1sk": f"{PLACED:013d}#b-1"}
    theirs = BetRecord(round_id="r-1", shard=0, bet=Bet("b-2", "ben", "banker", 500, mode="no-commission"),
                       table_id="bac-1", game="baccarat", status=BetStatus.OPEN, taken=500, placed_at=PLACED,
                       expires_at=1, operator="op-1", currency="EUR", debits=("cr-1",))
    item = theirs.item()
    assert (item["mode"], item["operator"], item["currency"], item["debits"]) == ("no-commission", "op-1", "EUR",
                                                                                  ["cr-1"])
    assert "seat" not in item and "result" not in item and "finished_at" not in item
    # WHEN they are read back as boto3 gives them, settled
    settled = {**SEAT_BET.item(), "status": "settled", "finished_at": PLACED + 9_000,
               "result": {"id": "b-1", "outcome": "win", "staked": 1_000, "paid": 2_000, "net": 1_000}}
    read = BetRecord.from_item(boto3_read(settled))  # type: ignore[arg-type]
    # THEN they are the same bets, with their numbers as integers
    assert BetRecord.from_item(boto3_read(item)) == theirs  # type: ignore[arg-type]
    assert (read.status, read.paid, read.finished_at, read.bet) == (BetStatus.SETTLED, 2_000, PLACED + 9_000,
                                                                    SEAT_BET.bet)
    assert isinstance(read.taken, int) and isinstance(read.paid, int) and read.item() == settled
    assert not read.is_open and SEAT_BET.is_open and SEAT_BET.paid is None


def test_a_bet_shows_its_player_what_it_showed_before_it_had_a_type() -> None:
    assert SEAT_BET.view() == {"bet_id": "b-1", "type": "seat", "seat": 2, "amount": 1_000, "taken": 1_000,
                               "status": "open"}
    refunded = BetRecord.from_item({**SEAT_BET.item(), "status": "refunded", "finished_at": PLACED,
                                    "result": {"outcome": "refund", "net": 0, "paid": 1_000}})
    assert refunded.view()["result"] == {"outcome": "refund", "net": 0, "paid": 1_000}


def test_reading_a_bet_checks_its_types_and_keeps_what_it_does_not_know() -> None:
    # a wrong payout is read as it is, for the audit to report; a missing or mistyped attribute
    # is refused; an attribute no bet has (a later version's) is kept, and written back
    with pytest.raises(ValueError):
        BetRecord.from_item({**SEAT_BET.item(), "status": "lost"})
    with pytest.raises(KeyError):
        BetRecord.from_item({k: v for k, v in SEAT_BET.item().items() if k != "taken"})
    overpaid = BetRecord.from_item({**SEAT_BET.item(), "status": "settled", "result": {"paid": 10**9}})
    assert overpaid.paid == 10**9
    later = BetRecord.from_item({**SEAT_BET.item(), "colour": "red"})
    assert later.extra == {"colour": "red"} and later.item() == {**SEAT_BET.item(), "colour": "red"}
    assert "colour" not in later.view()


CREATED = {"pk": "TABLE#bj-1", "sk": "META", "table_id": "bj-1", "game": "blackjack", "rules": {"seats": 5},
           "reader_id": "reader-1", "name": "Blackjack 1", "seats": {}, "rounds_played": 0, "log_taken": 0,
           "version": 0, "created_at": PLACED, "wallet": {"mode": "internal"}, "gsi1pk": "TABLES",
           "gsi1sk": "bj-1"}
"""A blackjack table as it was created, as written before tables had a type (without its three
nulls: ``shoe``, ``round_id`` and ``round_status``)."""


def test_a_table_is_the_item_written_before_it_had_a_type_without_its_nulls() -> None:
    # GIVEN a table as it was created, read as boto3 gives it (with the nulls it was written with then)
    nulls = {"shoe": None, "round_id": None, "round_status": None}
    read = TableRecord.from_item(boto3_read({**CREATED, **nulls}))  # type: ignore[arg-type]
    # THEN it is the table, idle, with its numbers as integers, and it writes the same item without the nulls
    assert (read.game, read.rules, read.version, read.shoe, read.round_id) == ("blackjack", {"seats": 5}, 0,
                                                                                None, None)
    assert read.idle and isinstance(read.created_at, int) and read.extra == {} and read.item() == CREATED
    # WHEN a round opens at it, and then is settled
    read.round_id, read.round_status, read.closes_at = "r-1", RoundStatus.BETTING, PLACED + 15_000
    read.seats = {"1": {"player": "ana", "account_kind": "real"}}
    assert not read.idle
    read.round_status, read.rounds_played = RoundStatus.SETTLED, 1
    # THEN it is idle again, and reads back as it was written
    assert read.idle and read.item()["round_status"] == "settled"
    assert TableRecord.from_item(boto3_read(read.item())) == read  # type: ignore[arg-type]


OPENED = {"pk": "ROUND#r-1", "sk": "META", "round_id": "r-1", "table_id": "bac-1", "game": "baccarat",
          "wallet": {"mode": "internal"}, "rules_id": "0f3a", "round_in_shoe": 4, "shoe_id": "s-1",
          "last_round": False, "status": "betting", "paused": False, "events": [], "engine_bets": [],
          "balances": {}, "refunds": [], "shards": 16, "created_at": PLACED, "closes_at": PLACED + 15_000,
          "seats": {}, "history": [], "gsi1pk": "ROUNDS#bac-1", "gsi1sk": f"{PLACED:013d}#r-1", "version": 0}
"""A Baccarat round as it opened, as written before rounds had a type (without its two nulls:
``expect_key`` and ``expect_since``)."""


def test_a_round_is_the_item_written_before_it_had_a_type_without_its_nulls() -> None:
    # GIVEN a round as it opened, read as boto3 gives it (with the nulls it was written with then)
    read = RoundRecord.from_item(boto3_read({**OPENED, "expect_key": None, "expect_since": None}))  # type: ignore[arg-type]
    # THEN it is the round, with its numbers as integers, and it writes the same item without the nulls
    assert (read.status, read.round_in_shoe, read.closes_at, read.version) == (RoundStatus.BETTING, 4,
                                                                              PLACED + 15_000, 0)
    assert isinstance(read.created_at, int) and read.expect_key is None and read.extra == {}
    assert read.item() == OPENED
    # WHEN it is dealt, paused and resumed, settled: what it takes on is written, what it lets go is not
    read.events.append({"card": "9S", "n": 7})
    read.status, read.paused, read.pause_reason, read.blocked = RoundStatus.PLAYING, True, "no card", {"n": 8}
    assert read.item()["blocked"] == {"n": 8} and read.item()["events"] == [{"card": "9S", "n": 7}]
    read.paused, read.pause_reason, read.blocked = False, None, None
    read.status, read.settlement, read.bet_count, read.house_result = RoundStatus.SETTLED, {"hands": {}}, 2, -150
    item = read.item()
    assert "pause_reason" not in item and "blocked" not in item and "wait_token" not in item
    assert (item["status"], item["bet_count"], item["house_result"]) == ("settled", 2, -150)
    assert RoundRecord.from_item(boto3_read(item)) == read  # type: ignore[arg-type]


@pytest.mark.parametrize(("record", "item", "status", "needed", "wrong"), [
    (TableRecord, CREATED, "round_status", "reader_id", {"seats": ["ana"], "log_taken": "9"}),
    (RoundRecord, OPENED, "status", "shards", {"events": "9S", "paused": "no", "blocked": [8]}),
], ids=["table", "round"])
def test_reading_a_table_or_a_round_checks_its_types_and_keeps_what_it_does_not_know(
        record: type[TableRecord | RoundRecord], item: dict[str, object], status: str, needed: str,
        wrong: dict[str, object]) -> None:
    # a status no one knows, a missing attribute, a value of the wrong type: refused
    with pytest.raises(ValueError):
        record.from_item({**item, status: "lost"})
    with pytest.raises(TypeError, match=needed):
        record.from_item({k: v for k, v in item.items() if k != needed})
    for name, value in wrong.items():
        with pytest.raises((TypeError, ValueError)):
            record.from_item({**item, name: value})
    # an attribute no table or round has (a later version's) is kept, and written back
    later = record.from_item({**item, "colour": "red"})
    assert later.extra == {"colour": "red"} and later.item() == {**item, "colour": "red"}


SCAN = LogEntry(table_id="bac-1", n=0, key="scan-1", kind="card-scanned", at=PLACED, card="KC", scan_id="scan-1",
                reader_id="reader-1", sent_at=PLACED - 40, seq=12)


def test_a_device_log_entry_is_the_item_written_before_it_had_a_type() -> None:
    # GIVEN a scan recorded at place 7 of table bac-1's log, then taken into a round face down
    placed = replace(SCAN, n=7)
    # THEN it is written as entries were: the device's word, its place and its once-only key
    assert placed.item() == {"pk": "LOG#bac-1", "sk": "E#00000007", "n": 7, "key": "scan-1", "kind": "card-scanned",
                             "at": PLACED, "state": "pending", "card": "KC", "scan_id": "scan-1",
                             "reader_id": "reader-1", "sent_at": PLACED - 40, "seq": 12}
    taken = {**placed.item(), "state": "taken", "use": "round", "round_id": "r-1", "hand": "dealer", "face_up": False,
             "shoe_id": "s-1", "taken_at": PLACED + 5}
    # WHEN it is read back as boto3 gives it
    read = LogEntry.from_item(boto3_read(taken))  # type: ignore[arg-type]
    # THEN it is that entry, its numbers integers, and the staff's view is it without its keys
    assert (read.state, read.use, read.face_up, read.n, read.taken_at) == (LogState.TAKEN, "round", False, 7,
                                                                          PLACED + 5)
    assert isinstance(read.n, int) and read.item() == taken and not read.waits and placed.waits
    assert read.view() == {k: v for k, v in taken.items() if k not in ("pk", "sk", "key")}
    assert {LogState.PENDING, LogState.HELD} == set(LogState) - PASSED


def test_reading_a_device_log_entry_checks_its_types_and_keeps_what_it_does_not_know() -> None:
    item = replace(SCAN, n=3).item()
    with pytest.raises(ValueError):
        LogEntry.from_item({**item, "state": "lost"})
    with pytest.raises(TypeError):
        LogEntry.from_item({**item, "card": 42})
    with pytest.raises(TypeError):
        LogEntry.from_item({**item, "face_up": "no"})
    with pytest.raises(TypeError):
        LogEntry.from_item({**item, "n": Decimal("3.5")})
    later = LogEntry.from_item({**item, "colour": "red"})
    assert later.extra == {"colour": "red"} and later.item() == {**item, "colour": "red"}
    assert "colour" not in later.view()


def test_what_became_of_an_entry_is_written_only_in_the_outcomes_words() -> None:
    with pytest.raises(ValueError, match="outcome has no colour"):
        store.log_entry_update("bac-1", 3, {"state": LogState.TAKEN, "colour": "red"})


def test_a_wallets_records_are_the_items_written_before_they_had_types() -> None:
    entry = LedgerEntry("ana", 7, "bet:b-1:stake:k", -500, 2_000, 1_500, "stake", 1_700_000_000_000,
                        {"round_id": "r-1", "bet_id": "b-1", "table_id": "bac-1"})
    marker = Marker("ana", "bet:b-1:stake:k", 7, -500, 1_500, 1_700_000_000_000)
    wallet = WalletBalance("ana", 1_500, 7, 1_700_000_000_000)
    assert entry.item() == {"pk": "WALLET#ana", "sk": "LEDGER#000000000007", "op": "bet:b-1:stake:k", "amount": -500,
                            "balance_before": 2_000, "balance_after": 1_500, "kind": "stake",
                            "at": 1_700_000_000_000, "round_id": "r-1", "bet_id": "b-1", "table_id": "bac-1"}
    assert marker.item() == {"pk": "WALLET#ana", "sk": "OP#bet:b-1:stake:k", "seq": 7, "amount": -500,
                             "balance_after": 1_500, "at": 1_700_000_000_000}
    assert wallet.item() == {"pk": "WALLET#ana", "sk": "BALANCE", "balance": 1_500, "version": 7, "player": "ana",
                             "updated_at": 1_700_000_000_000}
    # read back as boto3 gives them: numbers as Decimal
    as_read = [{k: Decimal(v) if isinstance(v, int) else v for k, v in record.item().items()}
               for record in (entry, marker, wallet)]
    assert (LedgerEntry.from_item(as_read[0]), Marker.from_item(as_read[1]),
            WalletBalance.from_item(as_read[2])) == (entry, marker, wallet)
    assert isinstance(LedgerEntry.from_item(as_read[0]).amount, int)
    assert entry.view() == {"amount": -500, "balance_before": 2_000, "balance_after": 1_500, "kind": "stake",
                            "at": 1_700_000_000_000, "round_id": "r-1", "bet_id": "b-1", "table_id": "bac-1"}


def test_a_ledger_entry_says_nothing_the_ledger_does_not_say() -> None:
    with pytest.raises(ValueError, match="says nothing of colour"):
        LedgerEntry("ana", 1, "deposit:k", 100, 0, 100, "deposit", 0, {"reference": "x", "colour": "red"})


def test_reading_a_ledger_entry_checks_its_types_never_its_sums() -> None:
    # an entry that does not add up is read as it is: the audit and the simulator report it
    stored = LedgerEntry("ana", 2, "deposit:k", 100, 0, 150, "deposit", 0).item()
    assert LedgerEntry.from_item(stored).balance_after == 150
    with pytest.raises(ValueError):
        LedgerEntry.from_item({**stored, "amount": "a hundred"})


def test_a_connection_is_the_item_written_before_it_had_a_type() -> None:
    connection = Connection("c-1", "ana", "player", "real", None, 1_800_007_200, 1_800_003_600, slots=8,
                            connected_at=1_800_000_000_000)
    item = connection.item()
    assert item == {"pk": "CONN#c-1", "sk": "META", "connection_id": "c-1", "subject": "ana", "role": "player",
                    "account_kind": "real", "table": None, "tables": [], "slots": 8, "slot_at": {},
                    "connected_at": 1_800_000_000_000, "expires_at": 1_800_007_200, "token_expires_at": 1_800_003_600}
    watching = {**item, "tables": ["bac-1", "*"], "slot_at": {"bac-1": Decimal(2), "*": Decimal(0)},
                "msg_second": Decimal(1_800_000_001), "msg_count": Decimal(3)}  # as boto3 reads it, counted
    read = Connection.from_item(watching)
    assert read.tables == ("bac-1", "*") and read.slot_at == {"bac-1": 2, "*": 0}
    assert push.slot_at(read, "bac-1") == 2 and Connection.from_item(item) == connection


def test_a_connection_made_before_slots_were_filled_in_order_keeps_its_hashs_slot() -> None:
    # no slot_at, no token expiry of its own: its id's hash chooses among its slots, and its
    # token lives as long as it does; without its number of slots, the deployment's is taken
    old = {"pk": "CONN#c-2", "sk": "META", "connection_id": "c-2", "subject": "sup", "role": "supervisor",
           "tables": ["bac-1"], "slots": Decimal(5), "expires_at": Decimal(1_800_007_200)}
    read = Connection.from_item(old)
    assert (read.slot_at, read.slots, read.token_expires_at, read.account_kind) == (None, 5, 1_800_007_200, "real")
    assert push.slot_at(read, "bac-1") == push.slot_of("c-2", 5)
    assert "slot_at" not in read.item() and Connection.from_item({**old, "slots": None}).slots is None


def test_a_watcher_is_what_watch_items_held_before_it_had_a_type() -> None:
    # GIVEN a player's screen watching a table
    watcher = Watcher("c-1", "ana", "player", "real", None, 1_800_007_200, 1_800_003_600)
    # THEN its watch item holds what it held before, the table it is staff of included (none)
    assert watcher.attributes() == {"connection_id": "c-1", "subject": "ana", "role": "player",
                                    "account_kind": "real", "table": None, "expires_at": 1_800_007_200,
                                    "token_expires_at": 1_800_003_600}
    item = {"pk": "WATCH#bac-1", "sk": "002#c-1", **watcher.attributes()}
    assert Watcher.from_item(boto3_read(item)) == watcher  # type: ignore[arg-type]
    assert watcher.token_until == 1_800_003_600
    # and a push message's watcher that says less: our own account, its token as long as its connection
    named = Watcher.from_item({"connection_id": "c-2", "subject": "sup", "role": "supervisor", "account_kind": None,
                               "expires_at": 1_800_007_200})
    assert (named.account_kind, named.table, named.token_until) == ("real", None, 1_800_007_200)
    assert Watcher("c-3", "x", "player").token_until is None

