"""What the simulated world takes each screen to have been shown of a round (``croupier.sim.screens``):
as a page takes the messages posted to it."""

from __future__ import annotations

import json
from typing import Any

from croupier.sim.screens import ScreensShown

ROUND = "bac-1-shoe-1-001-abc"


def message(message_id: str, *events: dict[str, Any]) -> dict[str, Any]:
    return {"id": message_id, "events": [{"table_id": "bac-1", "round_id": ROUND, **e} for e in events]}


def dealt(n: int, card: str, seq: int) -> dict[str, Any]:
    return {"type": "card-dealt", "n": n, "card": card, "seq": seq, "hand": "player", "face_up": card != "??"}


def test_a_message_posted_again_is_taken_once_and_a_reveal_turns_the_cards_over() -> None:
    shown = ScreensShown()
    # GIVEN two cards dealt face down, the first message posted twice, then their reveal
    shown.posted("c1", message("m1", dealt(11, "??", 1)))
    shown.posted("c1", message("m1", {"type": "round-settled", "seq": 9}))  # the same id: dropped
    shown.posted("c1", message("m2", dealt(12, "??", 2)))
    shown.posted("c1", message("m3", {"type": "cards-revealed", "seq": 2,
                                      "cards": [{"n": 11, "card": "9S"}, {"n": 12, "card": "KD"}]}))
    # THEN the screen shows both cards face up, and no end
    seen = shown.rounds[("c1", ROUND)]
    assert seen.cards == {11: "9S", 12: "KD"} and seen.ends == set() and seen.behind is None


def test_a_face_down_dealing_that_comes_after_its_reveal_leaves_the_card_face_up_and_is_out_of_order() -> None:
    # as world 1/3 of ``croupier chaos --rounds 1000 --seed 1`` played (Pok Deng) before the live
    # function held back a batch's changes after a failed one: the change that closed betting and
    # dealt three more cards face down was pushed after the next change's reveal. A page skips it as
    # older than what it shows, and its cards stay face up (the check first took them as never shown)
    shown = ScreensShown()
    shown.posted("c1", message("m1", dealt(11, "??", 1)))
    shown.posted("c1", message("m3", {"type": "cards-revealed", "seq": 3,
                                      "cards": [{"n": 11, "card": "9S"}, {"n": 12, "card": "KD"},
                                                {"n": 13, "card": "4C"}]}))
    shown.posted("c1", message("m2", {"type": "betting-closed", "seq": 1}, dealt(12, "??", 2), dealt(13, "??", 3)))
    shown.posted("c1", message("m4", dealt(14, "5H", 4), {"type": "round-settled", "seq": 4}))
    seen = shown.rounds[("c1", ROUND)]
    assert seen.cards == {11: "9S", 12: "KD", 13: "4C", 14: "5H"} and seen.ends == {"round-settled"}
    assert seen.behind == "betting-closed of seq 1 after seq 3"


def test_a_post_that_never_reached_its_screen_leaves_the_round_unchecked_there() -> None:
    shown = ScreensShown()
    shown.posted("c1", message("m1", dealt(11, "9S", 1)))
    shown.missed("c2", json.dumps(message("m1", dealt(11, "9S", 1))))
    assert not shown.rounds[("c1", ROUND)].missed and shown.rounds[("c2", ROUND)].missed
