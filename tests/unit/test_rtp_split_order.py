"""The order of the split hands' second cards (``split_deal``) does not change the return, shown
exactly: every way a small shoe can be dealt after a split is played through the engine in both
orders, with exact fractions.

Why it holds: the undealt cards come in a uniformly random order. Under ``each-in-turn`` hand 1
takes its second card and hits from the front, then hand 2 takes the next card; under
``both-first`` that card of hand 2's comes right after hand 1's second card. A policy that plays
hand 1 without looking at hand 2's second card (hand 2 may look at all of hand 1: it is played
after it in both orders) stops hand 1 after the same cards either way, so moving that one card
is a bijection between the two orders' deals that gives every hand and the dealer the same
cards: the same outcomes with the same probabilities. A player who does look at hand 2's second
card before playing hand 1 can do better under ``both-first``; the last test shows one case.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

import pytest

from croupier import strategy
from croupier.games.base import Action, Bet, CardFor, DecisionFor, Settle
from croupier.games.blackjack import BlackjackRound
from croupier.rtp import blackjack as bj
from croupier.rules import BlackjackRules, load_rules

ORDERS = ("each-in-turn", "both-first")
Policy = Callable[[BlackjackRound, DecisionFor], str]
Hands = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def rules(game: str, **overrides: object) -> BlackjackRules:
    loaded = load_rules(game, dict(overrides))
    assert isinstance(loaded, BlackjackRules)
    return loaded


def split_round(order: str, first: str, up: str, second: str) -> BlackjackRound:
    """A classic round of one seat dealt ``first``, ``second`` against ``up``, split at once."""
    eng = BlackjackRound(rules("blackjack", split_deal=order), [Bet("s", "p", "seat", 1000, 1)])
    for card in (first, up, second):
        eng.deal(card)
    eng.act(Action(1, "split"))
    return eng


def _hands(eng: BlackjackRound) -> tuple[list[list[str]], str]:
    view = eng.view()
    return [h["cards"] for h in view["seats"]["1"]["hands"]], view["dealer"]["cards"][0]


def basic_strategy(eng: BlackjackRound, decision: DecisionFor) -> str:
    """The shipped basic strategy: the deciding hand's own cards and the up card, nothing else."""
    hands, up = _hands(eng)
    return strategy.basic_action(eng.rules, hands[decision.hand], up, decision.legal, split_hand=True)


def hand_2_watches_hand_1(eng: BlackjackRound, decision: DecisionFor) -> str:
    """Basic strategy on hand 1; hand 2 plays on what hand 1 came to (it sees all of it in
    either order): it stands on 12 or more once hand 1 is bust, hits to 17 otherwise."""
    if decision.hand == 0:
        return basic_strategy(eng, decision)
    hand_1, hand_2 = eng.view()["seats"]["1"]["hands"]
    return "stand" if hand_2["score"] >= (12 if hand_1["bust"] else 17) else "hit"


def _clone(eng: BlackjackRound) -> BlackjackRound:
    return copy.deepcopy(eng, {id(eng.rules): eng.rules})


def outcomes(eng: BlackjackRound, shoe: Counter[str], policy: Policy | None,
             into: dict[Hands, Fraction] | None = None, weight: Fraction = Fraction(1)) -> Fraction:
    """The exact expected net of the seat bet over every order of the cards left in ``shoe``,
    played by ``policy`` (None: the best action at every decision, seeing every card dealt so
    far). With ``into``, the probability of every final (hand 1, hand 2, dealer) is added to it."""
    while True:
        expected = eng.expected
        if isinstance(expected, Settle):
            settlement = eng.settle()
            if into is not None:
                hands = settlement.hands
                key = (tuple(hands["seat-1"]["cards"]), tuple(hands["seat-1/1"]["cards"]),
                       tuple(hands["dealer"]["cards"]))
                into[key] = into.get(key, Fraction(0)) + weight
            return Fraction(settlement.bets[0].exact_net)
        if isinstance(expected, DecisionFor):
            if policy is not None:
                eng.act(Action(1, policy(eng, expected)))
                continue
            best: Fraction | None = None
            for name in sorted(expected.legal - {"timeout"}):
                child = _clone(eng)
                child.act(Action(1, name))
                value = outcomes(child, shoe, None)
                best = value if best is None or value > best else best
            assert best is not None
            return best
        assert isinstance(expected, CardFor), expected
        left = sum(shoe.values())
        assert left, "the small shoe ran out: choose one that lasts the round"
        total = Fraction(0)
        for card, count in shoe.items():
            if not count:
                continue
            child = _clone(eng)
            child.deal(card)
            rest = shoe.copy()
            rest[card] -= 1
            total += count * outcomes(child, rest, policy, into, weight * Fraction(count, left))
        return total / left


SHOE = Counter({"TC": 5, "2C": 1, "3D": 1, "7H": 1, "AS": 1})
"""The nine cards left after the split: enough for any round of these policies."""


@pytest.mark.parametrize("policy", [basic_strategy, hand_2_watches_hand_1])
@pytest.mark.parametrize(("first", "up", "second"), [("8S", "6H", "8D"), ("8S", "TH", "8D"), ("2S", "6H", "2D"),
                                                     ("AS", "6H", "AD")])
def test_a_policy_blind_to_hand_2s_card_returns_exactly_the_same_in_both_orders(
        first: str, up: str, second: str, policy: Policy) -> None:
    results = {}
    for order in ORDERS:
        finals: dict[Hands, Fraction] = {}
        value = outcomes(split_round(order, first, up, second), SHOE, policy, finals)
        assert sum(finals.values()) == 1
        results[order] = (value, finals)
    (value_a, finals_a), (value_b, finals_b) = results["each-in-turn"], results["both-first"]
    assert value_a == value_b  # exact fractions: the expected net of the seat bet
    assert finals_a == finals_b  # and every final hand, hand by hand, with the same probability


def test_the_orders_do_deal_the_same_cards_differently() -> None:
    """Not a vacuous equality: one sequence of cards, two different pairs of hands."""
    dealt = {}
    for order in ORDERS:
        eng = split_round(order, "8S", "6H", "8D")
        cards, actions = ["2C", "TC", "3D", "TC", "5S"], ["hit", "stand", "stand"]
        while not isinstance(eng.expected, Settle):
            if isinstance(eng.expected, CardFor):
                eng.deal(cards.pop(0))
            else:
                eng.act(Action(1, actions.pop(0)))
        assert not cards and not actions
        dealt[order] = _hands(eng)[0]
    assert dealt["each-in-turn"] == [["8S", "2C", "TC"], ["8D", "3D"]]
    assert dealt["both-first"] == [["8S", "2C", "3D"], ["8D", "TC"]]


def test_the_rtp_report_is_the_same_for_either_order() -> None:
    """The analysis plays each split hand from its own cards, so ``split_deal`` is not part of
    what it depends on; both orders get the same figures, and the variants table shows the
    Deluxe order at the classic table beside its defaults."""
    classic = {order: bj.analyse(rules("blackjack", split_deal=order)) for order in ORDERS}
    assert classic["each-in-turn"].seat == classic["both-first"].seat
    assert classic["each-in-turn"].seat_optimal == classic["both-first"].seat_optimal
    assert bj.rules_key(rules("deluxe-blackjack", split_deal="both-first")) == bj.rules_key(rules("deluxe-blackjack"))
    rows = {(row.game, tuple(sorted(row.overrides.items()))): row for row in bj.analyse_variants()}
    defaults, in_turn = rows[("blackjack", ())], rows[("blackjack", (("split_deal", "each-in-turn"),))]
    assert in_turn.rtp.seat == defaults.rtp.seat
    assert "does not change these figures" in bj.format_report()


def test_a_player_who_looks_at_hand_2s_card_can_do_better_when_both_come_first() -> None:
    """Best play at every decision, seeing every card dealt so far: 2-2 against a 6 from a tiny
    shoe. Under ``both-first`` hand 1 is played knowing hand 2's second card; that can only help,
    and here it does (per 1000 staked: -163.69 each in turn, -148.81 both first)."""
    shoe = Counter({"TC": 5, "2C": 1, "5S": 1, "AS": 1})
    best = {order: outcomes(split_round(order, "2S", "6H", "2D"), shoe, None) for order in ORDERS}
    assert best["both-first"] > best["each-in-turn"]
    assert (best["each-in-turn"], best["both-first"]) == (Fraction(-6875, 42), Fraction(-3125, 21))
