"""Pok Deng as ``pok-deng.md`` states it, written for the tests from the spec alone and apart from
``croupier.games.pok_deng``: a two-card hand's points, patterns and special combination (the spec's
five as its prose defines them; a table's own as its rules write them out), the order of hands, and
what each bet pays at a table's rates."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}
COURT = set("JQK")


def points(cards: list[str]) -> int:
    return sum(POINTS[card[0]] for card in cards) % 10


def _spec_five(name: str, cards: list[str]) -> bool | None:
    """Whether the two cards are the spec's combination ``name`` (its table, in words); None for a
    name that is not one of the five."""
    (r1, s1), (r2, s2) = (cards[0][0], cards[0][1]), (cards[1][0], cards[1][1])
    ranks = {r1, r2}
    if name == "lion-flush":
        return ranks == {"A", "K"} and s1 == s2
    if name == "special-pair":
        return r1 == r2 and r1 in "A56T"
    if name == "court-cards":
        return r1 in COURT and r2 in COURT
    if name == "ten-and-court":
        return (r1 == "T" and r2 in COURT) or (r2 == "T" and r1 in COURT)
    if name == "flush-worth-0":
        return s1 == s2 and not ranks & {"T", *COURT} and points(cards) == 0
    return None


def _written_out(combination: Any, cards: list[str]) -> bool:
    """A table's own combination, as its rules write it: one card's rank among the first ranks and
    the other's among the second (either card either way), and the same rank, the same suit and the
    points where given."""
    (r1, s1), (r2, s2) = (cards[0][0], cards[0][1]), (cards[1][0], cards[1][1])
    first, second = combination.ranks
    return (((r1 in first and r2 in second) or (r2 in first and r1 in second))
            and (combination.same_rank is None or (r1 == r2) == combination.same_rank)
            and (combination.same_suit is None or (s1 == s2) == combination.same_suit)
            and (combination.points is None or points(cards) == combination.points))


def combination(cards: list[str], rules: Any) -> tuple[int, str] | None:
    """The highest of the table's special combinations the hand is (its place in the table's list,
    0 the highest, and its name), or None."""
    for place, combo in enumerate(rules.special_combinations):
        spec = _spec_five(combo.name, cards)
        if spec if spec is not None else _written_out(combo, cards):
            return place, combo.name
    return None


def special(cards: list[str], rules: Any) -> bool:
    """A special pattern: a flush, a pair or a special combination."""
    return cards[0][1] == cards[1][1] or cards[0][0] == cards[1][0] or combination(cards, rules) is not None


def rank(cards: list[str], rules: Any) -> tuple[int, int]:
    """A hand's place in the order 9, 8, the combinations (highest first), 7 ... 0: greater is higher;
    equal is a push."""
    found = combination(cards, rules)
    if found is not None:
        return 1, -found[0]
    value = points(cards)
    return (2, value) if value >= 8 else (0, value)


def player_net(hand: list[str], banker: list[str], stake: int, rules: Any) -> Fraction:
    """What a Player N bet of ``stake`` on ``hand`` wins (a loss negative), by the payout table and
    its exceptions, in order."""
    pay = rules.payouts
    mine, theirs = rank(hand, rules), rank(banker, rules)
    if mine == theirs:
        return Fraction(0)
    if mine < theirs:
        return -stake * Fraction(pay.lose_special if special(banker, rules) else pay.lose)
    flush_or_pair = hand[0][1] == hand[1][1] or hand[0][0] == hand[1][0]
    if points(hand) >= 8 and flush_or_pair:
        return stake * Fraction(pay.win_special)  # exception 1: always
    if theirs in ((0, 0), (0, 6)):
        return stake * Fraction(pay.win)  # exception 2: a Banker ranking as 0 or 6 points
    return stake * Fraction(pay.win_special if special(hand, rules) else pay.win)


def pair_net(hand: list[str], stake: int, rules: Any) -> Fraction:
    return stake * Fraction(rules.payouts.pair) if hand[0][0] == hand[1][0] else Fraction(-stake)


def deal(scanned: list[str]) -> dict[str, list[str]]:
    """The hands as the spec deals the twelve cards in the order they came out of the shoe: a first
    card to Player 1 to 5, then the Banker; a second card in the same order."""
    names = [f"hand-{n}" for n in range(1, 6)] + ["banker"]
    return {name: [scanned[i], scanned[i + 6]] if len(scanned) > i + 6 else scanned[i:i + 1]
            for i, name in enumerate(names)}
