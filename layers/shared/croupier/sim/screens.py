"""What each screen was shown of each round, kept as a page keeps it (:class:`ScreensShown`), and
what it must have been shown by the end of a run (:meth:`ScreensShown.check`).

A page drops a message whose ``id`` it has seen (a push delivered again), shows a card dealt face
down as ``"??"`` until ``cards-revealed`` names it, resyncs from the round's ``seq`` when it finds
a gap, and skips an event older than what it shows (a card it shows face up stays so).

A screen that watched a round from its opening (it subscribed to the table
:data:`SUBSCRIBED_BEFORE_MS` before the round opened), is still connected at the end of the run,
and had no post of the round refused or lost on the way (``missed``: its push then counts it
``failed``, and the page resyncs), was shown:

- the round's events in order: none with a ``seq`` below one it was shown before (the live
  function holds back the changes after one that failed in its stream batch, and the push queue's
  message groups keep each slot's order);
- the round's end: ``round-settled`` for a settled round, ``round-refunded`` for a voided one;
- every card the round took, each at its log position, and no other; each card it was shown face up
  is the round's card there; a settled round's cards were all turned face up for it.

Nothing is checked when the live function gave up on a change (the operators' alarm), and a round
one of whose push messages was dead-lettered is not checked (the same)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..app import keys, store
from ..app.config import settings
from ..app.records import RoundStatus
from ..app.visibility import HIDDEN

if TYPE_CHECKING:
    from .invariants import Invariants

ENDS = {RoundStatus.SETTLED: "round-settled", RoundStatus.VOIDED: "round-refunded"}
SUBSCRIBED_BEFORE_MS = 10_000
"""How long before a round opened a screen must have subscribed to its table to be checked for it:
the push function reads a slot's watchers eventually consistently (up to a second behind), so a
screen that subscribed a moment before may miss the first pushes (its page resyncs)."""


@dataclass
class RoundShown:
    """One round as one screen was shown it."""

    cards: dict[int, str] = field(default_factory=dict)
    """By log position: the card as shown (``"??"`` while face down)."""
    ends: set[str] = field(default_factory=set)
    missed: bool = False
    seq: int = -1
    """The highest ``seq`` of the round's events it was shown."""
    behind: str | None = None
    """The first event it was shown after a later one of the round, if any (its type and seq)."""


class ScreensShown:
    """What every screen of a world was posted, as its page took it."""

    def __init__(self) -> None:
        self.ids: dict[str, set[str]] = {}
        """Per connection: the ids of the messages it was posted."""
        self.rounds: dict[tuple[str, str], RoundShown] = {}
        """Per connection and round: what it was shown of the round."""

    def posted(self, connection_id: str, message: Any) -> None:
        """A message posted to a screen (as parsed), taken as its page takes it."""
        if not isinstance(message, dict):
            return
        seen = self.ids.setdefault(connection_id, set())
        if message.get("id") in seen:
            return  # delivered again: the page drops it
        seen.add(str(message.get("id")))
        for event in message.get("events", []):
            round_id, kind = event.get("round_id"), event.get("type")
            if round_id is None:
                continue
            shown = self.rounds.setdefault((connection_id, str(round_id)), RoundShown())
            if "seq" in event:  # a round's event (a bet's has none)
                seq = int(event["seq"])
                if seq < shown.seq and shown.behind is None:
                    shown.behind = f"{kind} of seq {seq} after seq {shown.seq}"
                shown.seq = max(shown.seq, seq)
            if kind == "card-dealt":
                n, card = int(event["n"]), str(event["card"])
                if card != HIDDEN or n not in shown.cards:  # a card face down, pushed after its reveal: covered
                    shown.cards[n] = card
            elif kind == "cards-revealed":
                shown.cards.update((int(card["n"]), str(card["card"])) for card in event["cards"])
            elif kind in ENDS.values():
                shown.ends.add(str(kind))

    def missed(self, connection_id: str, data: str | bytes) -> None:
        """A post to a screen that never reached it: the rounds it was about are not checked there."""
        message = json.loads(data)
        for event in message.get("events", []) if isinstance(message, dict) else []:
            if event.get("round_id") is not None:
                self.rounds.setdefault((connection_id, str(event["round_id"])), RoundShown()).missed = True

    def check(self, invariants: Invariants) -> None:
        """At the end of the run: each screen that watched a round whole was shown it whole."""
        world = invariants.world
        if world.live_failures:
            return
        dead = world.push_queue.dead_letter.messages if world.push_queue.dead_letter is not None else []
        lost = {str(event.get("round_id")) for message in dead for event in json.loads(message.body).get("events", [])}
        rounds = [store.plain(item) for item in world.dynamo.items(settings().game_table)
                  if keys.kind_of(item) == "round"]
        for rnd in sorted(rounds, key=lambda r: str(r["round_id"])):
            status, round_id = rnd.get("status"), str(rnd["round_id"])
            end = ENDS.get(status)
            if end is None or round_id in lost:
                continue  # never finished (the liveness check says so), or its screens were not all pushed to
            dealt = {int(e["n"]): str(e["card"]) for e in rnd.get("events") or [] if "card" in e}
            opened = int(rnd["created_at"])
            for connection_id, who in world.watching.get(str(rnd["table_id"]), []):
                shown = self.rounds.get((connection_id, round_id), RoundShown())
                subscribed = world.subscribed_at.get(connection_id)
                if (shown.missed or connection_id in world.screens.closed or subscribed is None
                        or subscribed + SUBSCRIBED_BEFORE_MS > opened):
                    continue
                self._whole(invariants, f"{who.role} {who.subject}'s screen", round_id, status, end, dealt, shown)

    @staticmethod
    def _whole(invariants: Invariants, screen: str, round_id: str, status: str, end: str, dealt: dict[int, str],
               shown: RoundShown) -> None:
        invariants.checked["screens"] += 1
        if shown.behind:
            invariants.violation("screens", f"{screen} was shown round {round_id}'s events out of order: "
                                            f"{shown.behind}", round_id)
        if end not in shown.ends:
            invariants.violation("screens", f"{screen} was never shown that round {round_id} is {status}", round_id)
        missing, extra = dealt.keys() - shown.cards.keys(), shown.cards.keys() - dealt.keys()
        wrong = [n for n in dealt.keys() & shown.cards.keys() if shown.cards[n] not in (HIDDEN, dealt[n])]
        down = [n for n, card in shown.cards.items() if card == HIDDEN]
        if missing or extra or wrong or (status == RoundStatus.SETTLED and down):
            invariants.violation("screens", f"{screen} shows round {round_id} ({status}) with cards "
                                            f"{_cards(shown.cards)} where it took {_cards(dealt)}", round_id)


def _cards(cards: dict[int, str]) -> str:
    return " ".join(f"#{n} {card}" for n, card in sorted(cards.items())) or "none"
