"""Simulated rounds held to the spec by oracles written in the tests from the spec alone
(``tests/support/spec_baccarat.py``, ``spec_blackjack.py``, ``spec_pok_deng.py``; applied to a world
by ``tests/support/spec_check.py``), apart from the engines: how each settled round was dealt, each
hand's result and what each settled bet paid, at its table's own rules. The simulator's invariants
check that every bet is paid what its round's engine says and that replaying the round gives the
same; these check that what the engine says is the spec's. For each oracle, a bug planted in its
engine is reported."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from croupier.sim.world import DEFAULT_RATES, Plan, World
from tests.support.patching import in_this_thread
from tests.support.spec_check import baccarat_held_to_the_spec, blackjack_held_to_the_spec, pok_deng_held_to_the_spec

Check = Callable[[World], tuple[list[str], Counter[str]]]
"""One of ``tests/support/spec_check``'s checks of a played world."""


def spec_world(seed: str, game: str) -> World:
    """60 rounds of ``game`` on 3 tables of 4 players, each table on house rules, every fault of the
    default mix; without screens (what is checked here is what the rounds paid, at half the cost)."""
    played = World(seed, Plan(dict(DEFAULT_RATES)), rounds=60, tables=3, players=4, game=game, house_rules=True,
                   screens=False)
    played.run()
    return played


def held_to_the_spec(worlds: Iterable[tuple[str, str]], check: Check) -> Counter[str]:
    """Each world (its game and seed) played and held to the spec by ``check``: nothing wrong, no
    violation; what was checked, added up over the worlds."""
    checked: Counter[str] = Counter()
    for game, seed in worlds:
        played = spec_world(seed, game)
        wrong, seen = check(played)
        assert wrong == [], wrong
        assert played.violations == []
        checked += seen
    return checked


# --- Baccarat --------------------------------------------------------------------------------------


SPEC_BACCARAT_WORLDS = ("spec-baccarat/9", "spec-baccarat/21")
"""Two Baccarat worlds on house rules, 60 rounds each, whose bets between them win and lose every way
the spec pays (the first with a no-commission Banker bet won on 6)."""
EVERY_BACCARAT_WAY = {f"{kind} {outcome}" for kind in ("player", "banker") for outcome in ("win", "lose", "push")} | {
    f"{kind} {outcome}" for kind in ("tie", "player-pair", "banker-pair", "big", "small") for outcome in ("win", "lose")
} | {"lucky-6 lose", "lucky-6 won on 2 cards", "lucky-6 won on 3 cards", "no-commission banker won on 6"}


def test_every_baccarat_bet_is_paid_what_the_spec_says_at_its_tables_rates() -> None:
    # GIVEN Baccarat tables on house rules (payouts, modes and side bets of their own)
    # WHEN they play 60 rounds; THEN every settled round was dealt in the spec's order and by its
    # tableau, and every settled bet was paid what the spec's payout tables say at its round's rules
    checked = held_to_the_spec((("baccarat", seed) for seed in SPEC_BACCARAT_WORLDS), baccarat_held_to_the_spec)
    # every bet type won and lost (Player and Banker pushed on a tie), a Lucky 6 won with two Banker
    # cards and with three, a no-commission Banker bet won on 6; 119 rounds and their 467 bets
    assert EVERY_BACCARAT_WAY - set(checked) == set(), sorted(checked.items())
    # and every bet taken was one a table takes: within its limits, offered, each player's Player and
    # Banker totals within the table's limit on their difference where it has one
    assert checked["bets taken"] >= checked["bets"] and checked["players' Player and Banker totals"] >= 10, checked
    assert checked["rounds"] >= 110 and checked["bets"] >= 450, checked


def test_a_no_commission_banker_win_on_six_paid_in_full_is_reported_by_the_spec(monkeypatch: pytest.MonkeyPatch,
                                                                               ) -> None:
    from croupier.games import baccarat

    ratio = baccarat._ratio

    def in_full(plan: Any, bet: Any, winner: str, b_points: int, *rest: Any) -> Any:
        if bet.type == "banker" and bet.mode == "no-commission" and winner == "banker" and b_points == 6:
            return plan.no_commission  # 1:1, where the spec pays half the stake
        return ratio(plan, bet, winner, b_points, *rest)

    # GIVEN an engine that pays a no-commission Banker bet's win on 6 in full
    in_this_thread(monkeypatch).setattr(baccarat, "_ratio", in_full)
    monkeypatch.setattr(baccarat, "_PLANS", {})  # no coup settled before the plant
    # WHEN Baccarat tables on house rules play
    played = spec_world(SPEC_BACCARAT_WORLDS[0], "baccarat")
    # THEN the bets it overpaid are reported against the spec, and only they
    wrong, _ = baccarat_held_to_the_spec(played)
    assert wrong and all("banker no-commission" in line for line in wrong), wrong


def test_bets_taken_beyond_their_tables_limits_are_reported_by_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier import betting

    # GIVEN a betting phase that takes any amount, whatever its table's limits
    in_this_thread(monkeypatch).setattr(betting, "_check_limit", lambda limits, line: None)
    # WHEN Baccarat tables on house rules (some with narrow limits) play
    played = spec_world(SPEC_BACCARAT_WORLDS[0], "baccarat")
    # THEN each bet taken beyond its table's limits is reported
    wrong, _ = baccarat_held_to_the_spec(played)
    assert wrong and all("outside its table's limits" in line for line in wrong), wrong


# --- Blackjack ----------------------------------------------------------------------------------


SPEC_BLACKJACK_WORLDS = (("blackjack", "spec-blackjack/12"), ("deluxe-blackjack", "spec-deluxe-blackjack/7"))
"""A classic and a Deluxe world on house rules, 60 rounds each, whose rounds between them play every
rule the oracle knows: splits, doubles, surrenders, insurance won and lost, a dealer's blackjack
(taking the original bet only at a classic table of the first), a soft 17 hit, bets behind
following a split and a double, and the Pair bet's every grade."""
EVERY_BLACKJACK_WAY = {
    "seat split", "hand doubled", "hand surrender", "hand blackjack", "hand win", "hand lose", "hand push",
    "dealer blackjack", "dealer hit soft 17", "insurance win", "insurance lose", "behind on 2 hands",
    "behind followed a double", "lost to a blackjack taking the original only", "pair lose",
    "pair win 11", "pair win 6", "pair win 12", "pair win 25"}


def test_every_blackjack_bet_is_paid_what_the_spec_says_at_its_tables_rates() -> None:
    # GIVEN classic and Deluxe tables on house rules (soft 17, surrender, 6:5, Perfect Pairs, a dealer's
    # blackjack taking the original bet only, double after a split, the split hands' order...)
    # WHEN they play 60 rounds; THEN in every settled round the cards went to the hands in the spec's
    # order, the dealer drew as the spec says, every seat's hands show only legal actions and have the
    # spec's results, and every settled bet was paid what the spec says at its round's rules (an
    # insurance, a follow only where its player asked for it)
    checked = held_to_the_spec(SPEC_BLACKJACK_WORLDS, blackjack_held_to_the_spec)
    # every rule above came up; 120 rounds and their 643 bets
    assert EVERY_BLACKJACK_WAY - {way for way, n in checked.items() if n} == set(), sorted(checked.items())
    assert checked["rounds"] >= 110 and checked["bets"] >= 500, checked


def test_a_dealer_blackjack_taking_doubles_at_a_table_that_takes_the_original_only_is_reported_by_the_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.games import blackjack

    pays = blackjack._pays

    def taking_all(rules: Any) -> Any:
        return pays(rules)._replace(original_only=False)

    # GIVEN an engine whose dealer blackjack takes every double and split, whatever the table says
    in_this_thread(monkeypatch).setattr(blackjack, "_pays", taking_all)
    # WHEN classic tables on house rules play, some taking the original bet only
    played = spec_world(SPEC_BLACKJACK_WORLDS[0][1], "blackjack")
    # THEN every bet it underpaid is reported against the spec: each one doubled or split and lost to
    # the dealer's blackjack there
    wrong, checked = blackjack_held_to_the_spec(played)
    assert wrong and len(wrong) == checked["lost to a blackjack taking the original only"], wrong


def test_split_hands_dealt_each_in_turn_at_a_table_that_deals_both_first_is_reported_by_the_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.games import blackjack

    begin = blackjack.BlackjackRound.__init__

    def each_in_turn(self: Any, *args: Any, **kwargs: Any) -> None:
        begin(self, *args, **kwargs)
        self._both_first = False  # whatever the table's split_deal says

    # GIVEN an engine that deals split hands' second cards each in turn at every table (the simulated
    # dealer deals what the console asks for: the cards land in the hands the engine expects)
    in_this_thread(monkeypatch).setattr(blackjack.BlackjackRound, "__init__", each_in_turn)
    # WHEN classic tables on house rules play (a classic table deals both split hands' second cards
    # first, unless its rules say each in turn)
    played = spec_world("spec-blackjack/7", "blackjack")
    # THEN the rounds whose split hands were dealt out of the spec's order are reported (two), where
    # the table's dealer would have given those cards to other hands
    wrong, _ = blackjack_held_to_the_spec(played)
    assert len(wrong) == 2 and all("which the spec deals in the order" in line for line in wrong), wrong


# --- Pok Deng --------------------------------------------------------------------------------------


SPEC_POK_DENG_WORLDS = ("spec-pok-deng/5", "spec-pok-deng/9")
"""Two Pok Deng worlds on house rules, 60 rounds each, whose bets between them win and lose at every
rate their tables pay, on the spec's combinations and on an operator's own, and meet both
exceptions of the payout table (the second world: an 8 with a pattern against a Banker's 0 or 6)."""
EVERY_POK_DENG_WAY = {f"player {outcome} {rate}" for outcome in ("win", "lose") for rate in (1, 2, 3)} | {
    "player push", "pair lose", "pair win 10", "pair win 11", "win on a combination", "lose on a combination",
    "win on an own combination", "lose on an own combination", "won with a pattern against 0 or 6",
    "won 8 or 9 with a pattern against 0 or 6"}


def test_every_pok_deng_bet_is_paid_what_the_spec_says_at_its_tables_rates() -> None:
    # GIVEN Pok Deng tables on house rules (special rates, Pair rates, reservations, combinations of
    # their own, in orders of their own)
    # WHEN they play 60 rounds; THEN every settled round's cards went to the hands in the spec's order,
    # and every settled bet was paid what the spec's payout table and its exceptions say, from its
    # hands' cards alone, at its round's rates and combinations
    checked = held_to_the_spec((("pok-deng", seed) for seed in SPEC_POK_DENG_WORLDS), pok_deng_held_to_the_spec)
    # every rate won and lost, both exceptions met; 117 rounds and their 700 bets
    assert EVERY_POK_DENG_WAY - set(checked) == set(), sorted(checked.items())
    assert checked["rounds"] >= 110 and checked["bets"] >= 650, checked


def test_an_eight_with_a_pattern_paid_one_to_one_against_a_banker_of_six_is_reported_by_the_spec(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.games import pokdeng

    terms = pokdeng._player_terms

    def swapped(plan: Any, player: Any, banker: Any) -> Any:  # exception 2 before exception 1
        if player.always_special and banker.zero_or_six:
            player = player._replace(always_special=False)
        return terms(plan, player, banker)

    # GIVEN an engine that takes the payout table's exceptions in the wrong order
    in_this_thread(monkeypatch).setattr(pokdeng, "_player_terms", swapped)
    # WHEN Pok Deng tables on house rules play
    played = spec_world(SPEC_POK_DENG_WORLDS[1], "pok-deng")
    # THEN every bet it underpaid is reported against the spec: each an 8 or a 9 with a pattern that
    # beat a Banker of 0 or 6 points
    wrong, checked = pok_deng_held_to_the_spec(played)
    assert wrong and len(wrong) == checked["won 8 or 9 with a pattern against 0 or 6"], wrong
