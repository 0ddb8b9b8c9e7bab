"""The live function turns a round's change into events by replaying the round's engine. When the
new image only adds events to the old one, it replays the round once, not once per image; the
events it gives are those of two full replays."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from croupier.app import engine as round_engine
from croupier.app import live
from croupier.app.records import RoundRecord, RoundStatus
from tests.support.records import a_round

CARDS = ["9H", "2C", "KD", "4S", "5D", "7C"]
BETS = [{"bet_id": "b1", "player": "p1", "type": "player", "amount": 1000}]


def playing(cards: int, **fields: Any) -> RoundRecord:
    """Baccarat round r1 in play, with its first ``cards`` cards dealt."""
    return a_round(status=RoundStatus.PLAYING, engine_bets=BETS, rules={}, version=2 + cards,
                   events=[{"card": card, "n": n} for n, card in enumerate(CARDS[:cards], start=1)], **fields)


def counted_applies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    applied = [0]
    real = round_engine.apply_event

    def counting(engine: Any, event: dict[str, Any]) -> None:
        applied[0] += 1
        real(engine, event)

    monkeypatch.setattr(live, "apply_event", counting)
    return applied


def test_a_change_that_adds_a_card_replays_the_round_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a round with three cards dealt, then a fourth
    old, new = playing(3), playing(4)
    applied = counted_applies(monkeypatch)
    # WHEN its change is turned into events
    events = live._round_events(old, new, at=5)
    # THEN the engine took four events in all (three, then the one added), not seven
    assert applied[0] == 4
    # AND the events are those of two full replays
    monkeypatch.setattr(live, "_continues", lambda earlier, later: False)
    applied[0] = 0
    assert live._round_events(old, new, at=5) == events and applied[0] == 7
    assert [e["type"] for e in events] == ["card-dealt", "waiting-for"] and events[0]["card"] == "4S"


@pytest.mark.parametrize("change", [
    {"engine_bets": [{**BETS[0], "amount": 2000}]},  # the engine's bets are others
    {"round_in_shoe": 2},
    {"balances": {"p1": 5}},
    {"rules": {"modes": ["commission"]}},
    {"events": [{"card": "AS", "n": 1}, {"card": "2C", "n": 2}, {"card": "KD", "n": 3}, {"card": "4S", "n": 4}]},
])
def test_an_image_that_does_not_continue_the_old_one_is_replayed_from_the_start(
        monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]) -> None:
    # GIVEN a change whose new image differs from the old in what the engine starts from or in an
    # event the old one had
    old, new = playing(3), replace(playing(4), **change)
    assert not live._continues(old, new)
    applied = counted_applies(monkeypatch)
    # WHEN its change is turned into events, THEN both images are replayed in full
    live._round_events(old, new, at=5)
    assert applied[0] == 3 + 4
