"""A card that left the shoe but went to no hand (drawn between rounds, set aside by the dealer)
still counts: a later ninth copy is refused."""

from __future__ import annotations

import pytest

from croupier.errors import ShoeError
from croupier.shoe import Shoe, ShoePhase


def _ready() -> Shoe:
    shoe = Shoe("s-1")
    shoe.scan("AC")  # burns one
    shoe.scan("2D")
    assert shoe.phase is ShoePhase.READY
    return shoe


def test_a_discarded_card_counts_as_drawn() -> None:
    shoe = _ready()
    shoe.discard("KS")
    assert shoe.counts["KS"] == 1 and shoe.cards_drawn == 3 and shoe.phase is ShoePhase.READY


def test_a_discarded_ninth_copy_is_refused() -> None:
    shoe = _ready()
    for _ in range(8):
        shoe.discard("QH")
    with pytest.raises(ShoeError) as ninth:
        shoe.discard("QH")
    assert ninth.value.reason == "ninth-copy"
    assert shoe.counts["QH"] == 8


@pytest.mark.parametrize("phase", [ShoePhase.SHUFFLED, ShoePhase.CLOSED])
def test_no_card_is_set_aside_before_the_first_card_or_after_the_shoe_closed(phase: ShoePhase) -> None:
    shoe = Shoe("s-1", phase=phase)
    with pytest.raises(ShoeError):
        shoe.discard("5C")
    assert shoe.cards_drawn == 0
