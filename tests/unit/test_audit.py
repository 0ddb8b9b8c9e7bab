"""The audit of a store in use looks again before it reports a problem (``run_audit``'s looks); a
wallet's item the application never writes is reported, not a crash of the audit."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.app import audit, keys, store
from croupier.app.audit import AuditReport
from croupier.sim.memory import InMemory


def _looks(monkeypatch: pytest.MonkeyPatch, found: list[list[str]]) -> list[int]:
    """Each look reports the next problems of ``found``; returns the looks taken."""
    taken: list[int] = []

    def look(*_: Any) -> AuditReport:
        taken.append(len(taken) + 1)
        return AuditReport(problems=list(found[len(taken) - 1]))

    monkeypatch.setattr(audit, "_look", look)
    return taken


def test_a_clean_store_is_looked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _looks(monkeypatch, [[]])
    report = audit.run_audit(pause=0)
    assert report.ok and report.looks == 1 and taken == [1]
    assert report.summary().endswith("audit: OK") and "looks" not in report.summary()


def test_a_change_in_flight_is_gone_at_the_second_look(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _looks(monkeypatch, [["bet b-1: refunded with 0 credits (must be exactly one)"], []])
    report = audit.run_audit(pause=0)
    assert report.ok and report.looks == 2 and taken == [1, 2]
    assert "2 looks: the first 1 found changes in flight" in report.summary()


def test_a_problem_every_look_finds_is_reported_from_the_last_look(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _looks(monkeypatch, [["first"], ["second"], ["third"], ["never read"]])
    report = audit.run_audit(pause=0)
    assert not report.ok and report.looks == 3 and taken == [1, 2, 3]
    assert report.problems == ["third"]
    assert "found in each of 3 looks:" in report.summary() and report.summary().endswith("audit: FAILED (1)")


def test_one_look_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _looks(monkeypatch, [["stays"], []])
    report = audit.run_audit(looks=1, pause=0)
    assert not report.ok and taken == [1]


@pytest.mark.parametrize("value", ["0", "11", "-1", "two", "1.5"])
def test_the_cli_refuses_looks_that_are_not_one_to_ten(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from croupier.cli import build_parser

    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["audit", "--looks", value])
    assert stopped.value.code == 2
    assert f"argument --looks: '{value}': looks are a whole number from 1 to 10" in capsys.readouterr().err


def test_the_cli_takes_looks() -> None:
    from croupier.cli import build_parser

    assert build_parser().parse_args(["audit", "--looks", "1"]).looks == 1
    assert build_parser().parse_args(["audit"]).looks == 3


def test_a_wallet_item_that_cannot_be_read_is_reported_and_the_rest_audited(own_memory: InMemory) -> None:
    # GIVEN a wallet with its ledger, and a ledger entry written by no one the application knows
    store.move_money("ana", [("deposit:one", 1_000, {})], kind="deposit")
    store.wallet_table().put_item(Item={**keys.ledger_key("ben", 1), "op": "deposit:x", "amount": 5})
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN that entry is named, and Ana's wallet, deposit and balance are counted as ever
    assert [p for p in report.problems if "cannot be read" in p] == [
        "ledger-entry WALLET#ben/LEDGER#000000000001 cannot be read: KeyError('balance_before')"]
    assert (report.wallets, report.ledger_entries, report.deposits, report.balances) == (1, 1, 1_000, 1_000)


def test_a_bet_item_that_cannot_be_read_or_says_what_no_bet_says_is_reported(own_memory: InMemory) -> None:
    # GIVEN a wallet with its deposit, a bet item without what a bet has, and a bet item of a
    # refunded bet that has an attribute no bet has
    store.move_money("ana", [("deposit:one", 1_000, {})], kind="deposit")
    store.game_table().put_item(Item={**keys.bet_key("r-1", 0, "b-1"), "bet_id": "b-1"})
    refunded = {**keys.bet_key("r-2", 0, "b-2"), "bet_id": "b-2", "player": "ben", "type": "player",
                "amount": 0, "round_id": "r-2", "table_id": "bac-1", "game": "baccarat", "shard": 0,
                "status": "refunded", "taken": 0, "placed_at": 1, "expires_at": 2,
                "result": {"outcome": "refund", "net": 0, "paid": 0}, "colour": "red"}
    store.game_table().put_item(Item=refunded)
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN both are named, and the money is audited as ever
    assert [p for p in report.problems if p.startswith("bet ")] == [
        "bet ROUND#r-1#SHARD#000/BET#b-1 cannot be read: KeyError('round_id')",
        "bet b-2: attributes no bet has: colour",
        "bet b-2: refunded with 0 credits (must be exactly one)"]
    assert (report.bets, report.deposits, report.balances) == (1, 1_000, 1_000)


def test_a_device_log_entry_that_cannot_be_read_is_reported_and_the_rest_audited(own_memory: InMemory) -> None:
    # GIVEN a table's device log whose entry #1 has a card that is not text
    store.game_table().put_item(Item={**keys.log_entry_key("bac-1", 1), "n": 1, "key": "scan-1",
                                      "kind": "card-scanned", "at": 5, "state": "pending", "card": 42})
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN that entry is named
    assert report.problems == ["log-entry LOG#bac-1/E#00000001 cannot be read: TypeError('42 is not text')"]


def test_a_device_log_entry_that_says_what_no_entry_says_is_named(own_memory: InMemory) -> None:
    # GIVEN a table's device log whose entry #1 holds an attribute no entry has
    store.game_table().put_item(Item={**keys.log_entry_key("bac-1", 1), "n": 1, "key": "scan-1",
                                      "kind": "scan-failed", "at": 5, "state": "noted", "colour": "red"})
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN that entry is named
    assert report.problems == ["table bac-1: log entry #1: attributes no log entry has: colour"]


def test_a_round_item_that_cannot_be_read_or_says_what_no_round_says_is_named(own_memory: InMemory) -> None:
    # GIVEN a round whose status no round has, and one opened with an attribute no round has
    opened = {"round_id": "r-2", "table_id": "bac-1", "game": "baccarat", "status": "betting", "round_in_shoe": 1,
              "shoe_id": "s-1", "shards": 16, "created_at": 1, "closes_at": 2, "version": 0}
    store.game_table().put_item(Item={**keys.round_key("r-1"), **opened, "round_id": "r-1", "status": "lost"})
    store.game_table().put_item(Item={**keys.round_key("r-2"), **opened, "colour": "red"})
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN both are named, and the round that can be read is counted
    assert report.problems == [
        "round ROUND#r-1/META cannot be read: ValueError(\"'lost' is not a valid RoundStatus\")",
        "round r-2: attributes no round has: colour"]
    assert report.rounds == 1


def test_a_table_item_that_says_what_no_table_says_is_named(own_memory: InMemory) -> None:
    # GIVEN a table created with an attribute no table has
    store.game_table().put_item(Item={**keys.table_key("bac-1"), "table_id": "bac-1", "game": "baccarat",
                                      "reader_id": "reader-1", "name": "Baccarat 1", "created_at": 1,
                                      "version": 0, "colour": "green"})
    # WHEN the store is audited
    report = audit.run_audit(looks=1, pause=0)
    # THEN it is named
    assert report.problems == ["table bac-1: attributes no table has: colour"]
