"""The simulated world with a table on an operator's seamless wallet (``croupier.sim.operator``):
the stakes debited at the operator while the player waits, the credits and cancels sent by the real
outbox function from its queue and its sweeper, the operator's wallet failing as the seed draws;
and bugs planted in the wallet path, each reported as a violation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from croupier.app import keys, seamless, wallets
from croupier.sim.chaos import Job, Outcome, report, spareable
from croupier.sim.operator import WALLET_FAULTS
from croupier.sim.world import DEFAULT_RATES, Plan, World
from tests.support.patching import in_this_thread

WALLET_STORM = {"wallet-no-answer": 0.1, "wallet-lost-answer": 0.1, "wallet-error": 0.1, "wallet-duplicate": 0.1,
                "wallet-outage": 0.05}
"""Each fault of the operator's wallet at five or more times its usual chance. An outage silences
the wallet for minutes, so a world of 40 rounds holds only a few whatever its chance; at one call in
20 the first comes within the first hundred calls for all but about one seed in 170 (0.95 to the
100th). At one in 50 (one seed in 7), the seed below played no outage once the worlds' draws changed."""


def world(seed: str, rates: dict[str, float] | None = None, rounds: int = 30, game: str = "baccarat") -> World:
    """Two tables of three players, the second on the operator's wallet (without the screens: their
    checks are the other worlds', and the wallet's path is the same without them, at half the cost)."""
    played = World(seed, Plan(dict(DEFAULT_RATES, **(rates or {}))), rounds=rounds, tables=2, players=3, game=game,
                   seamless=1, screens=False)
    played.run()
    return played


def calls_left(played: World) -> list[dict[str, Any]]:
    return [item for item in played.dynamo.items(played._settings().wallet_table)
            if str(item["pk"]).startswith("CALL#") and item["status"] in ("pending", "sending")]


def test_a_table_on_a_failing_operator_wallet_keeps_every_invariant() -> None:
    # GIVEN the operator's wallet failing in every way, about one call in three, with outages
    # WHEN two tables play 40 rounds, one of them on that wallet
    played = world("wallet-storm", WALLET_STORM, rounds=40)
    # THEN every invariant held: each bet's debits and its one credit agree with the operator's
    # record, each player's balance there is what they opened with, less stakes, plus credits
    assert played.violations == [], [v.detail for v in played.violations]
    assert sum(played.rounds_finished.values()) >= 40
    for kind in WALLET_FAULTS:
        assert played.faults.injected[kind] > 0, kind
    checked = played.invariants.checked
    assert checked["wallet-calls"] >= 100 and checked["outbox"] == 1
    assert played.invocations["outbox"] > 0
    # the outbox sent every credit and cancel until the operator acknowledged it
    assert calls_left(played) == []
    held = played.operator.wallet.transactions()
    assert {t["kind"] for t in held.values()} == {"debit", "credit", "cancel"}
    assert played.operator.wallet.stats()["already-processed"] > 0  # a duplicate or a retry absorbed
    # AND each call was sent a few times, not once per message of it: a call queued again (woken,
    # swept) once had two messages, each of which queued itself again when it failed (this world's
    # 150 calls were sent 13,825 times, the outbox invoked 11,098 times)
    calls = [item for item in played.dynamo.items(played._settings().wallet_table)
             if str(item["pk"]).startswith("CALL#")]
    assert sum(int(item["attempts"]) for item in calls) <= 8 * len(calls)


def test_the_same_seed_plays_the_same_seamless_world() -> None:
    first, second = world("same-wallet", WALLET_STORM, rounds=12), world("same-wallet", WALLET_STORM, rounds=12)
    assert first.trace == second.trace and first.steps_run == second.steps_run
    assert first.operator.wallet.entries() == second.operator.wallet.entries()
    assert first.wallet_faults.drawn == second.wallet_faults.drawn


def test_a_wallet_fault_is_spared_by_its_label_and_the_same_draws_come_before_it() -> None:
    # GIVEN a storm world, and the same world with every fault of the wallet's kinds it drew spared
    first = world("spare-wallet", WALLET_STORM, rounds=8)
    drawn = first.wallet_faults.labelled()
    spared = frozenset(label for label, kind, _ in drawn if kind in WALLET_FAULTS)
    assert len(spared) >= 5 and all(label.startswith("w") for label in spared)
    second = World("spare-wallet", Plan(dict(DEFAULT_RATES, **WALLET_STORM), spared_apart=spared), rounds=8,
                   tables=2, players=3, seamless=1, screens=False)
    second.run()
    # THEN the same faults are drawn up to the first one spared, and none spared is applied: the
    # wallet's faults that happened are exactly those drawn and not spared (a run that did not
    # spare them would count every one)
    assert second.wallet_faults.labelled()[0] == drawn[0]
    happened = sum(second.faults.injected[kind] for kind in WALLET_FAULTS)
    assert happened == sum(1 for label, kind, _ in second.wallet_faults.labelled()
                           if kind in WALLET_FAULTS and label not in spared)
    assert sum(first.faults.injected[kind] for kind in WALLET_FAULTS) == len(spared)
    assert second.violations == [], [v.detail for v in second.violations]


def test_the_shortest_run_spares_faults_of_every_generator_and_its_report_names_them() -> None:
    # GIVEN a run that drew faults of its rounds, of the wallet and of the reader
    outcome = Outcome("5/1", "baccarat", drawn=[(1, "retry", "bets"), (2, "void", "t1")],
                      drawn_apart=[("w1", "wallet-error", "debit#2"), ("w2", "wallet-outage", "credit#9"),
                                   ("w3", "die-after-call", "outbox#4"), ("r1", "failed-scan", "t2")])
    # THEN the shrinking tries them last drawn first, each generator in turn
    assert spareable(outcome) == ["2", "w3", "r1", "1", "w2", "w1"]
    job = Job("5/1", 9, 2, 3, ()).sparing("2").sparing("w2").sparing("w10")
    assert job.spared == {2} and job.spared_apart == {"w2", "w10"}
    assert job.plan().spared_apart == {"w2", "w10"} and job.spares() == ["2", "w2", "w10"]
    # AND the report's reproduction spares them, names the world's players (3, not the default 4) and
    # names the faults left
    printed = report(9, 5, {}, [outcome], [(job, outcome)], 9, 2, 1)
    assert "croupier chaos --world 5/1 --game baccarat --rounds 9 --tables 2 --players 3 --seamless 0 " \
           "--spare 2,w2,w10" in printed
    assert "(4 faults left: #1 retry at bets; #w1 wallet-error at debit#2; #w3 die-after-call at outbox#4; " \
           "#r1 failed-scan at t2)" in printed


def test_a_world_without_seamless_tables_draws_no_wallet_fault() -> None:
    played = World("internal-only", Plan(dict(DEFAULT_RATES, **WALLET_STORM)), rounds=6, tables=2, players=2)
    played.run()
    assert played.violations == [] and played.wallet_faults.drawn == []
    assert played.operator.wallet.transactions() == {} and played.invocations["outbox"] == 0


@pytest.mark.parametrize("game", ["deluxe-blackjack", "pok-deng"])
def test_the_other_wallet_movements_keep_every_invariant(game: str) -> None:
    # GIVEN doubles, splits, insurance and follows (blackjack) or a reservation (Pok Deng) debited
    # at the operator while it fails
    played = world(f"wallet-{game}", WALLET_STORM, rounds=20, game=game)
    assert played.violations == [], [v.detail for v in played.violations]
    assert played.invariants.checked["wallet-calls"] > 0


# --- planted bugs: each must be reported ---------------------------------------------------


def test_planted_unanswered_credit_taken_for_acknowledged_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a client that takes no answer to a credit or a cancel for the operator's acknowledgement
    send = seamless.send

    def optimistic(operator: Any, call: str, body: dict[str, Any]) -> seamless.Outcome:
        outcome = send(operator, call, body)
        if call in ("credit", "cancel") and outcome.result == "unknown":
            return seamless.Outcome("ok", 200, "ok", "acknowledged", outcome.ms, {"status": "ok"})
        return outcome

    in_this_thread(monkeypatch).setattr(seamless, "send", optimistic)
    # WHEN a world plays on a wallet that often does not answer
    played = world("planted-wallet-1", {"wallet-no-answer": 0.2})
    # THEN a credit Croupier says the operator acknowledged, that the operator never applied, is reported
    assert any(v.invariant == "money" and "should hold it applied, but it is unknown" in v.detail
               for v in played.violations), [v.detail for v in played.violations]


def test_planted_debit_never_cancelled_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN debits that are never cancelled once their answer was lost (the bet was refused)
    in_this_thread(monkeypatch).setattr(seamless, "void", lambda transactions: None)
    played = world("planted-wallet-2", {"wallet-lost-answer": 0.2}, rounds=12)
    # THEN the stake the operator took for a bet that was never placed is reported
    assert any(v.invariant == "liveness" and "were never answered" in v.detail for v in played.violations), \
        [v.detail for v in played.violations]


def test_planted_lost_bet_closed_without_its_credit_of_zero_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN settlement that sends no credit for a lost bet (a credit of 0 "moves no money")
    credit = wallets.Seamless.credit

    def skipping_zero(self: wallets.Seamless, player: str, batch: Sequence[wallets.Finishing],
                      closes: Sequence[dict[str, Any]]) -> None:
        paying = [finishing for finishing in batch if finishing[2] > 0]
        if paying:
            credit(self, player, paying, closes)
        else:
            wallets.store.write(list(closes))

    in_this_thread(monkeypatch).setattr(wallets.Seamless, "credit", skipping_zero)
    played = world("planted-wallet-3", rounds=8)
    # THEN the operator, who holds the stake, is never told the bet was lost: reported
    assert any(v.invariant == "money" and "with credit calls [] (must be settle only)" in v.detail
               for v in played.violations), [v.detail for v in played.violations]


def test_found_a_raised_bet_keeps_the_debits_of_each_request() -> None:
    # found by ``croupier chaos --rounds 300 --seed 2`` (world 2/1, shrunk to 14 rounds with 13
    # faults spared): a player's seat bet was refused (their seat had been freed), they sat down
    # and bet again, and their double-click of the first request then raised the bet; the raised
    # bet kept only the second debit's id, so the first debit was accepted at the operator and held
    # by no bet. The raised bet now keeps the debits of both
    played = World("2/1", Plan(dict(DEFAULT_RATES, **{"failed-scan": 0.0}),
                               frozenset({33, 34, 43, 50, 52, 55, 59, 61, 62, 63, 64, 65, 66})),
                   rounds=14, tables=4, players=4, game="blackjack", seamless=1, screens=False)
    played.run()
    assert [v.detail for v in played.violations] == []
    # the world still raises a bet on the operator's wallet: one bet holds the debits of two requests
    raised = [item for item in played.dynamo.items(played._settings().game_table)
              if keys.kind_of(item) == "bet" and item.get("operator") and len(item.get("debits") or []) == 2]
    assert raised, "no bet was raised: the world no longer plays the defect's scenario"
