"""Money checks against the store: every bet of a round debited once and credited exactly once with
the payout the engine computes from the round's record (:func:`check_exactly_once`), and the
whole-store audit (:func:`audit_ok`). What was lost or duplicated, and every audit that passed,
is counted in the figures (:mod:`tests.support.figures`)."""

from __future__ import annotations

from typing import Any

from croupier.app import store
from croupier.app.audit import run_audit
from croupier.app.engine import rebuild

from .figures import FIGURES


def audit_ok() -> None:
    """The whole store audits clean (counted in ``FIGURES["audits"]``)."""
    report = run_audit()
    assert report.ok, report.summary()
    FIGURES["audits"] += 1


def ledger(player: str) -> list[dict[str, Any]]:
    """Every entry of the player's wallet ledger, read consistently."""
    return list(store.query_all(store.wallet_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :l)",
                                ExpressionAttributeValues={":p": f"WALLET#{player}", ":l": "LEDGER#"},
                                ConsistentRead=True))


def expected_payouts(round_id: str) -> dict[str, int]:
    """What each bet of a round must be credited, computed from the round's record by the engine
    (not by the settlement code): a voided round refunds every stake; a settled one pays the
    engine's result, and a bet the engine did not play (refunded at the close) gets its stake."""
    rnd = store.load_round(round_id)
    items = store.round_bets(round_id, rnd.shards)
    if rnd.status in ("voiding", "voided"):
        return {b.bet_id: b.taken for b in items}
    if rnd.settlement and rnd.engine_bets:
        results = {r["id"]: int(r["paid"]) for r in rnd.settlement["bets"]}
    else:
        engine = rebuild(rnd, [b.bet for b in items if b.bet_id not in (rnd.refunds or [])])
        results = {r.id: int(r.paid) for r in engine.settle().bets}
    return {b.bet_id: results.get(b.bet_id, b.taken) for b in items}


def check_exactly_once(round_id: str, start: dict[str, int], expected: dict[str, int] | None = None,
                       *, balances: bool = True) -> None:
    """Every bet of the round finished, debited exactly what it took, credited exactly once with
    exactly its payout; every player's wallet (``balances``: if this round is all they played
    since ``start``) is where those movements put it. Adds what was lost or duplicated to
    FIGURES before asserting."""
    expected = expected if expected is not None else expected_payouts(round_id)
    rnd = store.load_round(round_id)
    items = store.round_bets(round_id, rnd.shards)
    problems: list[str] = []
    lost = duplicated = 0
    by_player: dict[str, int] = dict.fromkeys(start, 0)
    entries = {player: ledger(player) for player in {*start, *(b.player for b in items)}}
    for bet in items:
        player, bet_id, taken = bet.player, bet.bet_id, bet.taken
        mine = [e for e in entries[player] if e.get("bet_id") == bet_id]
        credits = [int(e["amount"]) for e in mine if e["kind"] in ("settle", "refund")]
        debits = -sum(int(e["amount"]) for e in mine if e["kind"] not in ("settle", "refund"))
        want = expected[bet_id]
        if bet.status == "open" or len(credits) != 1 or sum(credits) != want:
            problems.append(f"bet {bet_id}: {bet.status}, credits {credits}, expected one credit of {want}")
        if debits != taken:
            problems.append(f"bet {bet_id}: debited {debits}, took {taken}")
            duplicated += max(0, debits - taken)
            lost += max(0, taken - debits)
        lost += max(0, want - sum(credits))
        duplicated += max(0, sum(credits) - want)
        by_player[player] = by_player.get(player, 0) + want - taken
        FIGURES["bets_checked"] += 1
    for player, net in by_player.items() if balances else ():
        balance = store.balance_of(player)
        if balance != start[player] + net:
            problems.append(f"{player}: balance {balance}, expected {start[player] + net}")
    FIGURES["money_lost"] += lost
    FIGURES["money_duplicated"] += duplicated
    assert not problems, "\n".join(problems)
