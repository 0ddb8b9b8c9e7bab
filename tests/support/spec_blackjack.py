"""Blackjack (Deluxe and classic) as ``blackjack.md`` states it, written for the tests from the spec
alone and apart from ``croupier.games.blackjack``: scores, what the dealer draws, what each hand's
result is, which actions a final hand shows were legal, and what each bet pays at a table's rules.
The tests hold the application's settled rounds to it (``round_held_to_the_spec``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 10)}}
RED = {"H", "D"}


def value(card: str) -> int:
    return VALUES[card[0]]


def score(cards: list[str]) -> tuple[int, bool]:
    """The best total not over 21 (an ace as 11 where it does not bust), and whether it is soft."""
    total = sum(value(card) for card in cards)
    if any(card[0] == "A" for card in cards) and total + 10 <= 21:
        return total + 10, True
    return total, False


def blackjack(cards: list[str], split: bool) -> bool:
    """An ace and a 10-value card as a hand's first two cards; a split hand's 21 is never one."""
    return not split and len(cards) == 2 and score(cards)[0] == 21


def result(cards: list[str], split: bool, surrendered: bool, dealer: list[str]) -> str:
    """The spec's *Result of a hand*."""
    total, dealer_total = score(cards)[0], score(dealer)[0]
    dealer_bj, bj = blackjack(dealer, False), blackjack(cards, split)
    if surrendered:
        return "surrender"
    if bj:
        return "push" if dealer_bj else "blackjack"
    if total > 21 or dealer_bj:
        return "lose"
    if dealer_total > 21 or total > dealer_total:
        return "win"
    return "push" if total == dealer_total else "lose"


def dealer_drew_rightly(dealer: list[str], hands: list[dict[str, Any]], rules: Any, insured: bool) -> str | None:
    """What is wrong with the dealer's cards by the spec's *Dealer* (hits 16 or less, stands on 17 or
    more, a soft 17 hit where the table says so; no card more once no hand is left that the dealer's
    total can decide); None if nothing."""

    def hits(cards: list[str]) -> bool:
        total, soft = score(cards)
        return total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17)

    deciding = [h for h in hands if not (h["surrendered"] or score(h["cards"])[0] > 21
                                         or blackjack(h["cards"], h["split"]))]
    if not hands:
        return None if not dealer else f"dealer {dealer}: dealt with no seat dealt"
    if not deciding:
        if rules.hole_card:
            wanted = 2  # Deluxe only reveals its hole card
        else:
            up_decides = dealer[0][0] == "A" or value(dealer[0]) == 10
            waiting = insured or any(blackjack(h["cards"], h["split"]) for h in hands)
            wanted = 2 if up_decides and waiting else 1
        return None if len(dealer) == wanted else f"dealer {dealer}: no hand left to decide, the spec deals {wanted}"
    if len(dealer) < 2:
        return f"dealer {dealer}: fewer than two cards with a hand to decide"
    for drawn in range(2, len(dealer)):
        if not hits(dealer[:drawn]):
            return f"dealer {dealer}: drew on {score(dealer[:drawn])}"
    if score(dealer)[0] <= 21 and hits(dealer):
        return f"dealer {dealer}: stood on {score(dealer)}"
    return None


def seat_played_rightly(seat: list[dict[str, Any]], dealer: list[str], rules: Any) -> str | None:
    """What is wrong with a seat's final hands by the spec's *Decisions* (a split of a pair only,
    once; a double's one card; split aces' one card each; a surrender on two cards only against a
    dealer's up card neither an ace nor a 10-value card); None if nothing."""
    first = seat[0]["cards"]
    if len(seat) == 2:
        pair = [seat[0]["cards"][0], seat[1]["cards"][0]]
        if value(pair[0]) != value(pair[1]):
            return f"split {pair}: not a pair"
        if pair[0][0] == "A" and any(len(h["cards"]) != 2 or h["doubled"] for h in seat):
            return f"split aces {[h['cards'] for h in seat]}: one card each, then stand"
    elif len(seat) != 1:
        return f"{len(seat)} hands"
    for hand in seat:
        if hand["doubled"] and (len(hand["cards"]) != 3 or (len(seat) == 2 and not rules.double_after_split)):
            return f"doubled {hand['cards']}"
        if hand["surrendered"] and (not rules.surrender or len(seat) == 2 or hand["doubled"] or len(first) != 2
                                    or dealer[0][0] == "A" or value(dealer[0]) == 10):
            return f"surrendered {hand['cards']} against {dealer[0]}"
    return None


def pair_pays(first_two: list[str], paytable: Any) -> Fraction | None:
    """The Pair bet's win per unit on a seat's first two cards, None if they are no pair."""
    (rank, suit), (other_rank, other_suit) = (first_two[0][0], first_two[0][1]), (first_two[1][0], first_two[1][1])
    if rank != other_rank:
        return None
    if paytable.same_rank is not None:
        return Fraction(paytable.same_rank)
    if suit == other_suit:
        return Fraction(paytable.perfect)
    return Fraction(paytable.coloured if (suit in RED) == (other_suit in RED) else paytable.mixed)


def hand_net(outcome: str, stake: int, amount: int, first: bool, dealer_bj: bool, rules: Any) -> Fraction:
    """What one hand of a seat or bet-behind bet wins or loses (a loss negative), by the spec's
    payouts; on a table whose dealer blackjack takes the original bet only, a losing hand gives
    back its double and the split hand its whole stake."""
    if outcome == "blackjack":
        return stake * Fraction(rules.blackjack_pays)
    if outcome == "win":
        return stake * Fraction(rules.win_pays)
    if outcome == "push":
        return Fraction(0)
    if outcome == "surrender":
        return -Fraction(stake, 2)
    if dealer_bj and rules.dealer_bj_takes == "original":
        return Fraction(-amount if first else 0)
    return Fraction(-stake)


def dealing_order(seats: dict[int, list[dict[str, Any]]], dealer: list[str], rules: Any) -> list[str]:
    """The order in which the spec deals the final hands' cards: a first card to each seat from the
    lowest, then the dealer's; a second card to each seat, then (Deluxe) the dealer's hole card; then
    each seat from the lowest plays its hands in turn (split hands: each gets its second card when
    its turn comes, or both at once, by the table's ``split_deal``); the dealer's cards last."""
    order = [seat[0]["cards"][0] for _, seat in sorted(seats.items())] + dealer[:1]
    order += [seat[0]["cards"][1] if len(seat) == 1 else seat[1]["cards"][0] for _, seat in sorted(seats.items())]
    order += dealer[1:2] if rules.hole_card else []
    for _, seat in sorted(seats.items()):
        if len(seat) == 1:
            order += seat[0]["cards"][2:]
        elif rules.split_deal == "both-first":
            order += [seat[0]["cards"][1], seat[1]["cards"][1], *seat[0]["cards"][2:], *seat[1]["cards"][2:]]
        else:
            order += [*seat[0]["cards"][1:], *seat[1]["cards"][1:]]
    return order + dealer[2 if rules.hole_card else 1:]
