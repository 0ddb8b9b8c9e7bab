"""Seamless wallets on the local stack: tables whose stakes and payouts move in the operator's own
wallet (the reference operator wallet, a real HTTP server with its own ledger)."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.app import reconcile, store
from croupier.app.audit import run_audit
from croupier.local.client import ApiError, wait_until
from croupier.local.stack import LOCAL_OPERATOR, LocalStack
from tests.support.harness import Harness

SEAMLESS = {"mode": "seamless", "operator": LOCAL_OPERATOR}
AT_OPERATOR = 50_000


def outbox_empty() -> bool:
    return not store.due_calls(store.now_ms() + 10**9)


def nets(h: Harness, round_id: str, names: list[str]) -> dict[str, int]:
    return {n: sum(int((b.get("result") or {}).get("net", 0)) for b in h.players[n].get(f"/rounds/{round_id}")["bets"])
            for n in names}


def open_accounts(h: Harness, stack: LocalStack, names: list[str]) -> None:
    for name in names:
        stack.operator_wallet.open_account(h.players[name].subject, AT_OPERATOR)


def check_ledgers_agree(h: Harness, stack: LocalStack, round_id: str, played: dict[str, int]) -> None:
    """After the outbox drained: every player's balance at the operator moved by exactly their
    nets, Croupier's own wallets did not move, and the round's calls agree with the operator's
    record (the whole store's audit, once, is the last test here)."""
    assert wait_until(outbox_empty, timeout=30), store.due_calls(store.now_ms() + 10**9)
    for name, net in played.items():
        assert stack.operator_wallet.balance(h.players[name].subject) == AT_OPERATOR + net, name
        assert h.balance(name) == 100_000, f"{name}'s Croupier wallet moved for a seamless table"
    reconciled = reconcile.check_rounds([round_id], reconcile.ask_operator)
    assert not reconciled.problems, reconciled.problems
    bets = store.round_bets(round_id, store.load_round(round_id).shards)
    assert reconciled.asked == reconciled.calls > 0 and reconciled.bets == len(bets)


def test_a_baccarat_round_in_seamless_mode_moves_money_only_in_the_operators_wallet(h: Harness,
                                                                                  stack: LocalStack) -> None:
    names = ["ana", "ben"]
    open_accounts(h, stack, names)
    table = h.open_table(h.table("bsw"), "baccarat", 31, cut_at=300, wallet=SEAMLESS)
    view = h.operator.get(f"/tables/{table.table_id}")
    assert view["wallet"] == SEAMLESS
    final = h.round(table, {"ana": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
                            "ben": [{"type": "player", "amount": 700}]})
    assert final["status"] == "settled"
    played = nets(h, final["round_id"], names)
    check_ledgers_agree(h, stack, final["round_id"], played)
    calls = store.round_calls(final["round_id"])
    assert sorted(c["call"] for c in calls) == ["credit"] * 3 + ["debit"] * 3  # one of each per bet
    assert all(c["status"] in ("accepted", "acknowledged") for c in calls)


def test_blackjack_doubles_splits_insurance_and_follows_are_debited_at_the_operator(h: Harness,
                                                                                  stack: LocalStack) -> None:
    names = ["ana", "ben", "chloe"]
    open_accounts(h, stack, names)
    table_id = h.table("dsw")
    slower = {"timers": {**h.timers, "insurance": 3, "follow": 3, "decision": 3}}
    table = h.open_table(table_id, "deluxe-blackjack", 41, cut_at=300, scan_burn=False, rules=slower,
                         wallet=SEAMLESS)
    h.players["ana"].call("PUT", f"/tables/{table_id}/seats/1")
    h.players["ben"].call("PUT", f"/tables/{table_id}/seats/2")
    table.shoe.prepare(["8S", "6H", "AS", "8D", "5C", "9C", "3H", "TS", "9S", "7D"])
    final = h.round(table, {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                            "ben": [{"type": "seat", "seat": 2, "amount": 1000}],
                            "chloe": [{"type": "behind", "seat": 1, "amount": 500}]},
                    plan={1: ["split", "double", "stand"], 2: ["stand"]}, insure=("ana", "chloe"), follow=("chloe",))
    assert final["status"] == "settled"
    reasons = sorted(c["request"]["reason"] for c in store.round_calls(final["round_id"]) if c["call"] == "debit")
    assert {"stake", "split", "double", "insurance", "follow"} <= set(reasons), reasons
    check_ledgers_agree(h, stack, final["round_id"], nets(h, final["round_id"], names))


def test_pok_deng_reserves_at_the_operator_and_gives_back_what_was_not_lost(h: Harness, stack: LocalStack) -> None:
    names = ["dev", "eli"]
    open_accounts(h, stack, names)
    table = h.open_table(h.table("psw"), "pok-deng", 51, cut_at=300, wallet=SEAMLESS)
    final = h.round(table, {"dev": [{"type": "player-1", "amount": 1000}],
                            "eli": [{"type": "player-4", "amount": 300}]}, per_round_burn=1)
    assert final["status"] == "settled"
    debits = [c for c in store.round_calls(final["round_id"]) if c["call"] == "debit"]
    assert all(c["request"]["reason"] == "reservation" for c in debits)
    assert sorted(int(c["amount"]) for c in debits) == [600, 2000]  # a Player bet reserves twice its stake
    check_ledgers_agree(h, stack, final["round_id"], nets(h, final["round_id"], names))


def test_a_table_is_switched_to_seamless_by_configuration_between_rounds_only(h: Harness, stack: LocalStack) -> None:
    table = h.open_table(h.table("sw"), "baccarat", 61, cut_at=300)
    tid = table.table_id
    assert h.operator.get(f"/tables/{tid}")["wallet"] == {"mode": "internal"}
    with pytest.raises(ApiError) as refused:
        h.operator.call("PATCH", f"/tables/{tid}", {"wallet": {"mode": "seamless", "operator": "no-such-operator"}})
    assert refused.value.status == 400 and refused.value.reason == "unknown-operator"
    assert "no-such-operator" in str(refused.value)
    with pytest.raises(ApiError) as bad:
        h.operator.call("PATCH", f"/tables/{tid}", {"wallet": {"mode": "seamles"}})
    assert bad.value.status == 422
    with pytest.raises(ApiError) as nameless:
        h.operator.call("PATCH", f"/tables/{tid}", {"wallet": {"mode": "seamless"}})
    assert nameless.value.reason == "bad-wallet"
    with pytest.raises(ApiError) as internal_with_operator:
        h.operator.call("PATCH", f"/tables/{tid}", {"wallet": {"mode": "internal", "operator": LOCAL_OPERATOR}})
    assert internal_with_operator.value.reason == "bad-wallet"
    assert h.operator.get(f"/tables/{tid}")["wallet"] == {"mode": "internal"}  # nothing changed
    with pytest.raises(ApiError) as by_player:
        h.players["ana"].call("PATCH", f"/tables/{tid}", {"wallet": SEAMLESS})
    assert by_player.value.status == 403
    assert h.operator.call("PATCH", f"/tables/{tid}", {"wallet": SEAMLESS})["wallet"] == SEAMLESS
    started: dict[str, Any] = table.console.post(f"/tables/{tid}/rounds")
    with pytest.raises(ApiError) as in_play:
        h.operator.call("PATCH", f"/tables/{tid}", {"wallet": {"mode": "internal"}})
    assert in_play.value.status == 409
    assert store.load_round(started["round_id"]).wallet == SEAMLESS


def test_a_player_reads_their_balance_in_the_tables_wallet(h: Harness, stack: LocalStack) -> None:
    from croupier.local.operator_wallet import Fault

    open_accounts(h, stack, ["ana"])
    ana, ben = h.players["ana"], h.players["ben"]
    seamless_table = h.open_table(h.table("bal"), "baccarat", 71, cut_at=300, wallet=SEAMLESS).table_id
    internal_table = h.open_table(h.table("bali"), "baccarat", 72, cut_at=300).table_id
    there = ana.get(f"/tables/{seamless_table}/wallets/{ana.subject}")
    assert there == {"table_id": seamless_table, "player": ana.subject, "mode": "seamless",
                     "operator": LOCAL_OPERATOR, "balance": AT_OPERATOR, "currency": "THB"}
    here = ana.get(f"/tables/{internal_table}/wallets/{ana.subject}")
    assert (here["mode"], here["balance"]) == ("internal", h.balance("ana"))
    with pytest.raises(ApiError) as not_yours:
        ben.get(f"/tables/{seamless_table}/wallets/{ana.subject}")
    assert not_yours.value.status == 403
    assert h.operator.get(f"/tables/{seamless_table}/wallets/{ana.subject}")["balance"] == AT_OPERATOR
    stack.operator_wallet.inject(Fault("down", call="balance", times=1))
    try:
        with pytest.raises(ApiError) as down:
            ana.get(f"/tables/{seamless_table}/wallets/{ana.subject}")
    finally:
        stack.operator_wallet.clear_faults()
    assert down.value.status == 503 and down.value.reason == "wallet-unavailable"
    with pytest.raises(ApiError) as unknown:  # a player the operator does not know
        ben.get(f"/tables/{seamless_table}/wallets/{ben.subject}")
    assert (unknown.value.status, unknown.value.reason) == (409, "wallet-refused")
    assert "unknown-player" in str(unknown.value)


def test_the_store_audits_clean_with_every_seamless_call_reconciled(h: Harness, stack: LocalStack) -> None:
    """The whole store, after the tests above (and a round of its own: it has calls to reconcile
    when it runs alone)."""
    open_accounts(h, stack, ["chloe"])
    table = h.open_table(h.table("asw"), "baccarat", 71, cut_at=300, wallet=SEAMLESS)
    assert h.round(table, {"chloe": [{"type": "player", "amount": 500}]})["status"] == "settled"
    assert wait_until(outbox_empty, timeout=30)
    report = run_audit(reconcile.ask_operator)
    assert report.ok, report.summary()
    assert report.seamless is not None and report.seamless.asked > 0
