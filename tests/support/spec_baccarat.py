"""Baccarat as ``baccarat.md`` states it, written for the tests from the spec alone and apart from
``croupier.games.baccarat``: the dealing order and the tableau that says which hand draws a third
card (:func:`deal`), and what each bet pays on the final hands at a table's rates (:func:`won`).
The tests hold the application's settled rounds to it; being a second reading of the spec, it
agrees with the engine only where both read it the same."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}
"""A card's points by its rank (a card is its rank then its suit: ``"QD"``)."""

BANKER_STANDS_ON = {3: {8}, 4: {0, 1, 8, 9}, 5: {0, 1, 2, 3, 8, 9}, 6: {0, 1, 2, 3, 4, 5, 8, 9}}
"""The tableau's right-hand column: the Banker's two-card score -> the Player's third card's points
on which the Banker stands (0, 1 and 2 draw on any; 7 never draws)."""


def score(cards: list[str]) -> int:
    return sum(POINTS[card[0]] for card in cards) % 10


def won(bet: dict[str, Any], player: list[str], banker: list[str], rules: Any) -> Fraction | None:
    """What ``bet`` (its ``type`` and, for a Banker bet, its ``mode``) wins per unit of its stake on
    these final hands at ``rules`` (a table's payouts and side bets): ``Fraction(0)`` for a push,
    None for a loss."""
    pay, p, b = rules.payouts, score(player), score(banker)
    winner = "player" if p > b else "banker" if b > p else "tie"
    kind = bet["type"]
    if kind in ("player", "banker"):
        if winner == "tie":
            return Fraction(0)  # ties push Player and Banker bets
        if winner != kind:
            return None
        if kind == "player":
            return Fraction(pay.player)
        if bet.get("mode") == "no-commission":
            return Fraction(pay.banker_no_commission_six if b == 6 else pay.banker_no_commission)
        return Fraction(pay.banker)
    if kind == "tie":
        return Fraction(pay.tie) if winner == "tie" else None
    if kind in ("player-pair", "banker-pair"):
        hand = player if kind == "player-pair" else banker
        return Fraction(pay.player_pair if kind == "player-pair" else pay.banker_pair) \
            if hand[0][0] == hand[1][0] else None
    side = rules.side_bets[kind]
    if kind == "lucky-6":
        if winner != "banker" or b != 6:
            return None
        return Fraction(side.pays_three_cards if len(banker) == 3 and side.pays_three_cards is not None else side.pays)
    used = len(player) + len(banker)
    return Fraction(side.pays) if (used >= 5 if kind == "big" else used == 4) else None


def deal(scanned: list[str]) -> tuple[list[str], list[str]]:
    """The Player's and the Banker's hands as the spec deals the cards in the order they came out
    of the shoe: Player, Banker, Player, Banker, then the third cards the tableau draws."""
    player, banker = scanned[0:4:2], scanned[1:4:2]
    rest = iter(scanned[4:])
    p2, b2 = score(player), score(banker)
    if p2 >= 8 or b2 >= 8:
        return player, banker
    third = None
    if p2 <= 5:
        player.append(next(rest, "?"))
        third = POINTS.get(player[2][0])
    if (b2 <= 5 if third is None else b2 <= 2 or (b2 <= 6 and third not in BANKER_STANDS_ON[b2])):
        banker.append(next(rest, "?"))
    return player, banker
