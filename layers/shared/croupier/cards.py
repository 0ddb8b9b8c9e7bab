"""Cards on the wire: rank then suit, two characters (``TD`` is the ten of diamonds)."""

from __future__ import annotations

from collections.abc import Iterable

from .errors import CardError

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DECKS = 8
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_VALID = frozenset(ALL_CARDS)

# Point values per game family.
BLACKJACK_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in RANKS}
"""Blackjack value with the ace as 1 (a hand counts one ace as 11 when that does not bust)."""
BACCARAT_VALUE = {r: (1 if r == "A" else 0 if r in "TJQK" else int(r)) for r in RANKS}
"""Baccarat and Pok Deng points: ace 1, 2-9 face value, 10/J/Q/K 0."""
BURN_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in RANKS}
"""How many cards a new shoe's first card burns: ace 1, 2-9 face value, 10/J/Q/K 10."""

RED_SUITS = frozenset("HD")


def parse_card(code: object) -> str:
    """Validate one card code; return it unchanged. Anything else raises :class:`CardError`."""
    if not isinstance(code, str):
        raise CardError(f"a card is a two-character string like 'TD', not {type(code).__name__}")
    if code not in _VALID:
        if len(code) != 2:
            raise CardError(f"card {code!r} must be two characters: rank ({RANKS}) then suit ({SUITS})")
        if code[0] not in RANKS:
            raise CardError(f"card {code!r} has an unknown rank {code[0]!r}; ranks are {' '.join(RANKS)}")
        raise CardError(f"card {code!r} has an unknown suit {code[1]!r}; suits are {' '.join(SUITS)}")
    return code


def parse_cards(codes: Iterable[object]) -> list[str]:
    return [parse_card(c) for c in codes]


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    return card[1]


def colour(card: str) -> str:
    return "red" if card[1] in RED_SUITS else "black"


def check_copies(cards: Iterable[str], decks: int = DECKS) -> None:
    """Raise if any card appears more often than the shoe holds it."""
    seen: dict[str, int] = {}
    for card in cards:
        seen[card] = seen.get(card, 0) + 1
        if seen[card] > decks:
            raise CardError(
                f"card {card} appears {seen[card]} times; an {decks}-deck shoe holds it only {decks} times",
                reason="ninth-copy",
            )
