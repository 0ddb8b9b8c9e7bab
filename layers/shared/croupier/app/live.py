"""Domain events: every change of a table or a round, as the screens around the table see it.

The events are derived from what was stored, not announced by the code that stores it: the game
table's DynamoDB stream gives each item's image before and after every write, in order per item,
and :func:`events_of` turns the two images into events. So every committed change has its events
(a write that lost its race has none), and no writer can forget to publish.

Their schema is :mod:`croupier.domain_events`. A hidden card is never in an event until it is
revealed: the Deluxe hole card until the dealer plays, Pok Deng's cards until betting has closed
(``"??"`` before, then ``cards-revealed``).

Events of one item come in order (a round's events carry ``seq``, the round's event count, so a
client that missed some can resync with ``GET /rounds/{id}``); events of different items (a bet,
the table, the round) may interleave.
"""

from __future__ import annotations

from typing import Any

from ..domain_events import validated
from ..games import new_round
from ..games.base import CardFor, DecisionFor, FollowWindow, InsuranceWindow, RoundEngine, Settle
from . import keys, store, visibility
from .engine import apply_event, expectation_key, rules_of
from .lobby import shoe_roads
from .records import BetRecord, LogEntry, RoundRecord, RoundStatus, TableRecord, bet_from_item, bets_until
from .rounds import timers

VOID = (RoundStatus.VOIDING, RoundStatus.VOIDED)


# --- from the stored images to events --------------------------------------------------------


def events_of(old: dict[str, Any] | None, new: dict[str, Any] | None, at: int) -> list[dict[str, Any]]:
    """The events of one item's change (``old`` and ``new`` images, ``None`` for none)."""
    kind = keys.kind_of(new or old or {})
    made = {"round": _round_change, "table": _table_events, "bet": _bet_events,
            "log-entry": _log_events}.get(kind or "")
    out = made(old, new, at) if made is not None and new is not None else []
    return [validated(e) for e in out]


def _hidden(rnd: RoundRecord, engine: RoundEngine) -> bool:
    """Are the round's face-down cards still hidden? (:func:`croupier.app.visibility.cards_hidden`)"""
    return visibility.cards_hidden(rnd, engine)


def _fresh(rnd: RoundRecord) -> RoundEngine:
    return new_round(rnd.game, [bet_from_item(b) for b in rnd.engine_bets], rules=rules_of(rnd),
                     round_in_shoe=rnd.round_in_shoe, balances=rnd.balances or None, validate=False)


def _round_change(old: dict[str, Any] | None, new: dict[str, Any], at: int) -> list[dict[str, Any]]:
    return _round_events(None if old is None else RoundRecord.from_item(old), RoundRecord.from_item(new), at)


def _round_events(old: RoundRecord | None, new: RoundRecord, at: int) -> list[dict[str, Any]]:
    base = {"table_id": new.table_id, "round_id": new.round_id, "at": at}
    if old is None:
        return [{"type": "round-opened", **base, "seq": 0, "game": new.game, "round_in_shoe": new.round_in_shoe,
                 "closes_at": new.closes_at, "bets_until": bets_until(new.closes_at, new.game),
                 "last_round": new.last_round}]
    out: list[dict[str, Any]] = []
    old_events, new_events = old.events, new.events
    seq = len(new_events)
    if old.status == RoundStatus.BETTING and new.status != RoundStatus.BETTING:
        out.append({"type": "betting-closed", **base, "seq": len(old_events)})
    before = _replayed(old)
    hidden_before = _hidden(old, before[0])
    engine, face_down = _replayed(new, on_new=lambda event, expected, n: out.extend(
        _engine_event(event, expected, {**base, "seq": n})) if n > len(old_events) else None,
        continuing=(old, before))
    hidden_now = _hidden(new, engine)
    dealt_now = set()
    for entry in out:
        if entry["type"] == "card-dealt" and not entry["face_up"]:
            dealt_now.add(entry["n"])
            if hidden_now:
                entry["card"] = "??"
    if hidden_before and not hidden_now:
        shown = [card for card in face_down if card["n"] not in dealt_now]
        if shown:
            out.append({"type": "cards-revealed", **base, "seq": seq, "cards": shown})
    if not old.last_round and new.last_round:
        out.append({"type": "last-round", **base, "seq": seq})
    if not old.paused and new.paused:
        blocked = visibility.blocked_view(new, engine)  # its card "??" while it would be face down
        out.append({"type": "round-paused", **base, "seq": seq, "reason": str(new.pause_reason),
                    "code": str(new.pause_code or "paused"), "blocked_by": blocked,
                    "staff_fields": ["blocked_by"]})  # players get the code's words as the reason
    elif old.paused and not new.paused and new.status == RoundStatus.PLAYING:
        out.append({"type": "round-resumed", **base, "seq": seq})
    if new.status == RoundStatus.PLAYING and not new.paused:
        waiting = _waiting(new, engine)
        timed = waiting is not None and waiting.get("deadline") is not None
        if waiting is not None and (seq != len(old_events) or old.paused or old.status != RoundStatus.PLAYING
                                    or (timed and new.expect_key != old.expect_key)):
            out.append({"type": "waiting-for", **base, "seq": seq, **waiting})  # a timer's start gives its deadline
    if old.status != new.status:
        if new.status == RoundStatus.SETTLING and new.settlement:
            out.append({"type": "round-result", **base, "seq": seq, "result": new.settlement.get("hands") or {}})
        elif new.status == RoundStatus.SETTLED:
            out.append({"type": "round-settled", **base, "seq": seq, "bets": new.bet_count or 0})
            drawn = shoe_roads(new.game, new.table_id, new.shoe_id)
            if drawn is not None:
                out.append({"type": "roads-updated", **base, "seq": seq, "shoe_id": new.shoe_id, "roads": drawn})
        if new.status in VOID and old.status not in VOID:
            out.append({"type": "round-voided", **base, "seq": seq, "reason": str(new.void_reason or "voided")})
        if new.status == RoundStatus.VOIDED:
            out.append({"type": "round-refunded", **base, "seq": seq, "bets": new.bet_count or 0})
    return out


Replayed = tuple[RoundEngine, list[dict[str, Any]]]
"""A round's engine after its events, and its face-down cards (n, hand, card)."""


def _replayed(rnd: RoundRecord, on_new: Any = None, *, continuing: tuple[RoundRecord, Replayed] | None = None
              ) -> Replayed:
    """The round's engine after its events, and its face-down cards. ``on_new`` is called with
    each event, what the engine expected before it, and its count (1, 2 ...). ``continuing``: an
    earlier image of the round and what its replay gave, taken over (and changed) when this image
    only adds events to it: then only the added events are applied (a round of n events is
    replayed once per change, not twice)."""
    if continuing is not None and _continues(continuing[0], rnd):
        earlier, (engine, face_down) = continuing
        start = len(earlier.events)
    else:
        engine, face_down, start = _fresh(rnd), [], 0
    for count, event in enumerate(rnd.events[start:], start=start + 1):
        expected = engine.expected
        if "card" in event and isinstance(expected, CardFor) and not expected.face_up:
            face_down.append({"n": int(event["n"]), "hand": expected.hand, "card": event["card"]})
        if on_new is not None:
            on_new(event, expected, count)
        apply_event(engine, event)
    return engine, face_down


def _continues(earlier: RoundRecord, later: RoundRecord) -> bool:
    """Does ``later``'s engine start as ``earlier``'s did, its events those of ``earlier`` and more?"""
    return (later.game == earlier.game and later.rules_id == earlier.rules_id and later.rules == earlier.rules
            and later.engine_bets == earlier.engine_bets and later.round_in_shoe == earlier.round_in_shoe
            and later.balances == earlier.balances and len(later.events) >= len(earlier.events)
            and later.events[:len(earlier.events)] == earlier.events)


def _engine_event(event: dict[str, Any], expected: Any, base: dict[str, Any]) -> list[dict[str, Any]]:
    if "card" in event:
        hand = expected.hand if isinstance(expected, CardFor) else "?"
        face_up = bool(expected.face_up) if isinstance(expected, CardFor) else True
        return [{"type": "card-dealt", **base, "n": int(event.get("n", 0)), "hand": hand, "card": event["card"],
                 "face_up": face_up}]
    if "action" in event:
        action = event["action"]
        out = {"type": "decision-made", **base, "seat": int(action["seat"]), "action": str(action["action"]),
               "behind": action.get("player") is not None}
        if action.get("hand") is not None:
            out["hand"] = int(action["hand"])
        if action.get("player") is not None:
            out.update(player=str(action["player"]), staff_fields=["player"])
        return [out]
    if "close" in event:
        return [{"type": "window-closed", **base}]
    if "preselect" in event:  # the dealer's console shows it; the table sees it when it is applied
        return [{"type": "preselected", **base, "seat": int(event["preselect"]["seat"]),
                 "action": event["preselect"].get("action")}]
    return []


def _waiting(rnd: RoundRecord, engine: RoundEngine) -> dict[str, Any] | None:
    expected = engine.expected
    deadline = None
    if rnd.expect_key == expectation_key(expected) and rnd.expect_since:
        round_timers = timers(rnd)
        seconds = (round_timers.decision if isinstance(expected, DecisionFor) else round_timers.insurance
                   if isinstance(expected, InsuranceWindow) else round_timers.follow
                   if isinstance(expected, FollowWindow) else None)
        if seconds is not None:
            deadline = rnd.expect_since + seconds * 1000
    if isinstance(expected, CardFor):
        return {"kind": "card", "hand": expected.hand, "face_up": expected.face_up}
    if isinstance(expected, DecisionFor):
        return {"kind": "decision", "seat": expected.seat, "seat_hand": expected.hand, "legal": sorted(expected.legal),
                "deadline": deadline}
    if isinstance(expected, InsuranceWindow):
        return {"kind": "insurance", "deadline": deadline}
    if isinstance(expected, FollowWindow):
        return {"kind": "follow", "seat": expected.seat, "seat_hand": expected.hand, "what": expected.what,
                "deadline": deadline}
    if isinstance(expected, Settle):
        return {"kind": "settle"}
    return None


def _table_events(old: dict[str, Any] | None, new: dict[str, Any], at: int) -> list[dict[str, Any]]:
    table, was = TableRecord.from_item(new), None if old is None else TableRecord.from_item(old)
    base = {"table_id": table.table_id, "at": at}
    out: list[dict[str, Any]] = []
    before, after = (was.shoe if was is not None else None) or {}, table.shoe or {}
    new_shoe = bool(after) and after.get("shoe_id") != before.get("shoe_id")
    if new_shoe:
        out.append({"type": "shoe-shuffled", **base, "shoe_id": after["shoe_id"]})
    if after and (new_shoe or after.get("phase") != before.get("phase")):
        if after["phase"] == "ready" and (new_shoe or before.get("phase") in ("shuffled", "burning")):
            out.append({"type": "shoe-ready", **base, "shoe_id": after["shoe_id"]})
        elif after["phase"] == "closed":
            out.append({"type": "shoe-closed", **base, "shoe_id": after["shoe_id"]})
    players = {seat: str(state.get("player")) for seat, state in table.seats.items()}
    if players != {seat: str(state.get("player")) for seat, state in (was.seats if was is not None else {}).items()}:
        out.append({"type": "seats-changed", **base, "seats": sorted(int(seat) for seat in players),
                    "players": players, "staff_fields": ["players"]})  # who sits where: staff only
    return out


def _bet_events(old: dict[str, Any] | None, new: dict[str, Any], at: int) -> list[dict[str, Any]]:
    bet = BetRecord.from_item(new)
    before = None if old is None else BetRecord.from_item(old)
    base = {"table_id": bet.table_id, "round_id": bet.round_id, "at": at, "player": bet.player}
    if before is None or before.bet.amount != bet.bet.amount:
        return [{"type": "bet-placed", **base, "bet": bet.view()}]
    if before.is_open and not bet.is_open:
        return [{"type": "bet-settled", **base, "bet": bet.view()}]
    return []


def _log_events(old: dict[str, Any] | None, new: dict[str, Any], at: int) -> list[dict[str, Any]]:
    if old is not None and old.get("state") == new.get("state") and old.get("blocked") == new.get("blocked"):
        return []
    entry = LogEntry.from_item(new)
    table_id = entry.table_id
    rounds = visibility.round_lookup()

    def lookup(round_id: str | None) -> Any:
        if round_id is None:  # an entry that names no round: the table's round now, if any
            found = store.find_table(table_id)
            round_id = found.round_id if found is not None else None
        return rounds(round_id)

    shown = visibility.log_entry(entry, lookup, None)  # a face-down card "??": GET .../log shows it once revealed
    return [{"type": "device-event", "table_id": table_id, "at": at, "entry": shown}]
