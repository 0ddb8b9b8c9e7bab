"""The shoe: 8 decks, the burn from the first card, the cut card and the last round.

A :class:`Shoe` is a small state machine fed by the dealer console and the card reader::

    shuffled -> (first card shown) -> burning N -> ready -> in round -> ready -> ... -> closed

- After the shuffle the first card scanned is shown; its :data:`~croupier.cards.BURN_VALUE` is the
  number of cards then burned face down. The reader may scan those (each counts as a burned card)
  or the dealer console confirms the burn. No round starts before the burn is complete.
- The cut card marks the last round: if it comes out in a round, that round is the last (it is
  completed with the cards after the cut card); between rounds, the next round is the last.
- After the last round the shoe is closed; nothing starts until the next shuffle.
- Pok Deng burns one more card face down at the start of every round (``per_round_burn=1``).
- Every card drawn from the shoe counts; a ninth copy of a card is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import BURN_VALUE, DECKS, parse_card
from .errors import ShoeError


class ShoePhase(StrEnum):
    SHUFFLED = "shuffled"  # waiting for the first card, which decides the burn
    BURNING = "burning"  # burned cards still to come (or a console confirmation)
    READY = "ready"  # between rounds
    ROUND_BURN = "round-burn"  # a round started and its per-round burn card is awaited
    IN_ROUND = "in-round"
    CLOSED = "closed"


class CardUse(StrEnum):
    BURN_INDICATOR = "burn-indicator"
    BURNED = "burned"
    ROUND = "round"


@dataclass
class Shoe:
    shoe_id: str
    per_round_burn: int = 0
    decks: int = DECKS
    phase: ShoePhase = ShoePhase.SHUFFLED
    round_in_shoe: int = 0
    burn_remaining: int = 0
    burn_indicator: str | None = None
    cut_card_out: bool = False
    last_round: int | None = None
    counts: dict[str, int] = field(default_factory=dict)
    cards_drawn: int = 0
    shuffled_at: int | None = None
    """When the dealer's console sent the shuffle (epoch ms; None: not known): a card scanned
    before it is not this shoe's."""

    # --- events -------------------------------------------------------------------------------
    def scan(self, card: str) -> CardUse:
        """A card left the shoe. Returns what it was used for; a round card must then be given
        to the round's engine. Raises :class:`ShoeError` if the shoe cannot take it."""
        card = parse_card(card)
        if self.phase is ShoePhase.CLOSED:
            raise ShoeError(f"shoe {self.shoe_id} is closed; shuffle a new shoe before dealing", reason="shoe-closed")
        if self.phase is ShoePhase.READY:
            raise ShoeError("no round is being dealt: start a round before scanning cards", reason="no-round")
        self._count(card)
        if self.phase is ShoePhase.SHUFFLED:
            self.burn_indicator = card
            self.burn_remaining = BURN_VALUE[card[0]]
            self.phase = ShoePhase.BURNING
            return CardUse.BURN_INDICATOR
        if self.phase is ShoePhase.BURNING:
            self.burn_remaining -= 1
            if self.burn_remaining == 0:
                self.phase = ShoePhase.READY
            return CardUse.BURNED
        if self.phase is ShoePhase.ROUND_BURN:
            self.burn_remaining -= 1
            if self.burn_remaining == 0:
                self.phase = ShoePhase.IN_ROUND
            return CardUse.BURNED
        return CardUse.ROUND

    def discard(self, card: str) -> None:
        """A card left the shoe but is dealt to no hand (drawn between rounds, or set aside by
        the dealer): it counts, so that a later ninth copy is still refused."""
        card = parse_card(card)
        if self.phase in (ShoePhase.CLOSED, ShoePhase.SHUFFLED):
            raise ShoeError(f"a card cannot be set aside now (shoe is {self.phase})", reason="shoe-" + self.phase)
        self._count(card)

    def confirm_burn(self) -> None:
        """The dealer console confirms the burn (cards burned face down without a scan)."""
        if self.phase not in (ShoePhase.BURNING, ShoePhase.ROUND_BURN):
            raise ShoeError(f"no burn is under way (shoe is {self.phase})", reason="no-burn")
        self.cards_drawn += self.burn_remaining
        self.burn_remaining = 0
        self.phase = ShoePhase.READY if self.phase is ShoePhase.BURNING else ShoePhase.IN_ROUND

    def cut_card(self) -> None:
        """The reader saw the cut card."""
        if self.phase in (ShoePhase.CLOSED, ShoePhase.SHUFFLED):
            raise ShoeError(f"the cut card cannot come out now (shoe is {self.phase})", reason="cut-card")
        if self.cut_card_out:
            raise ShoeError("the cut card already came out in this shoe", reason="cut-card")
        self.cut_card_out = True
        in_round = self.phase in (ShoePhase.IN_ROUND, ShoePhase.ROUND_BURN)
        self.last_round = self.round_in_shoe if in_round else self.round_in_shoe + 1

    def start_round(self) -> int:
        """Open the next round of this shoe; returns its number in the shoe (1, 2, ...)."""
        if self.phase is not ShoePhase.READY:
            raise ShoeError(f"a round cannot start now (shoe is {self.phase})", reason="shoe-not-ready")
        self.round_in_shoe += 1
        if self.per_round_burn:
            self.burn_remaining = self.per_round_burn
            self.phase = ShoePhase.ROUND_BURN
        else:
            self.phase = ShoePhase.IN_ROUND
        return self.round_in_shoe

    def end_round(self) -> None:
        """The round is over (settled or voided). Closes the shoe after its last round."""
        if self.phase not in (ShoePhase.IN_ROUND, ShoePhase.ROUND_BURN):
            raise ShoeError(f"no round is open (shoe is {self.phase})", reason="no-round")
        self.burn_remaining = 0
        last = self.last_round is not None and self.round_in_shoe >= self.last_round
        self.phase = ShoePhase.CLOSED if last else ShoePhase.READY

    # --- queries ------------------------------------------------------------------------------
    @property
    def is_last_round(self) -> bool:
        return self.last_round is not None and self.round_in_shoe >= self.last_round

    @property
    def cards_left(self) -> int:
        return self.decks * 52 - self.cards_drawn

    def to_dict(self) -> dict[str, Any]:
        return {
            "shoe_id": self.shoe_id,
            "per_round_burn": self.per_round_burn,
            "decks": self.decks,
            "phase": str(self.phase),
            "round_in_shoe": self.round_in_shoe,
            "burn_remaining": self.burn_remaining,
            "burn_indicator": self.burn_indicator,
            "cut_card_out": self.cut_card_out,
            "last_round": self.last_round,
            "counts": dict(self.counts),
            "cards_drawn": self.cards_drawn,
            "shuffled_at": self.shuffled_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Shoe:
        values = dict(data)
        values["phase"] = ShoePhase(values["phase"])
        values["counts"] = {k: int(v) for k, v in values["counts"].items()}
        for key in ("per_round_burn", "decks", "round_in_shoe", "burn_remaining", "cards_drawn"):
            values[key] = int(values[key])
        for key in ("last_round", "shuffled_at"):
            if values.get(key) is not None:
                values[key] = int(values[key])
        return cls(**values)

    def _count(self, card: str) -> None:
        seen = self.counts.get(card, 0) + 1
        if seen > self.decks:
            raise ShoeError(
                f"card {card} would be copy {seen} in shoe {self.shoe_id}; the shoe holds only {self.decks}",
                reason="ninth-copy",
            )
        if self.cards_drawn >= self.decks * 52:
            raise ShoeError(f"shoe {self.shoe_id} has no cards left", reason="shoe-empty")
        self.counts[card] = seen
        self.cards_drawn += 1
