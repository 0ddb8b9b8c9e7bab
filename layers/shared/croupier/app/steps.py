"""The round workflow's own steps: close betting, "what next?", waits, timers, faults.

The workflow holds no game rule: :func:`advance` asks the round's engine what it waits for and
answers a *step* — its kind (``card``, ``decision``, ``window``, ``paused``, ``settle``, ``void``,
``done``), a key naming the expectation, the round's event count ``seq`` (which occurrence of it),
the timeout of its wait and the round's version. Timers (a decision running out, a window
closing, a card overdue, a pause lasting too long) act only if the round still waits for the very
occurrence they were started for.

Cards do not wait for the workflow: they are taken from the table's device log by whoever comes
first (:mod:`croupier.app.dealing`), and the workflow is woken only when the round needs
something else than the next card. The workflow only times the waits and settles; a timer's task
answers the next step itself (no second "what next?").
"""

from __future__ import annotations

from typing import Any

from ..games.base import CardFor, DecisionFor, FollowWindow, InsuranceWindow, Settle
from . import alerts, bets, store, workflow
from .dealing import drain
from .engine import apply_event, expectation_key, rebuild
from .errors import StateConflict
from .records import FINISHED, TAKING_BETS, RoundRecord, RoundStatus
from .rounds import mutate, pause_fields, retry, timers
from .settlement import shard_groups


def _step(rnd: RoundRecord, kind: str, key: str, timeout: int) -> dict[str, Any]:
    """What the workflow waits for: ``key`` names the expectation, ``seq`` (the round's event
    count) this occurrence of it: a hand decides again after a hit, under the same key."""
    step = {"kind": kind, "key": key, "seq": len(rnd.events), "timeout": max(1, int(timeout)),
            "version": rnd.version}
    if kind in ("settle", "void"):
        step["shards"] = shard_groups(rnd)  # the Map's items: one settlement task per group
    return step


def _stale(rnd: RoundRecord, seq: int | None) -> bool:
    """A timer of an earlier occurrence of the expectation (something happened to the round since)."""
    return seq is not None and len(rnd.events) != seq


def register_countdown(round_id: str, token: str) -> dict[str, Any]:
    """The countdown's callback: keep its token on the round, so that whoever closes betting first
    (a card may) ends the countdown early; if betting is closed already, end it now."""
    if store.register_countdown(round_id, token):
        return {"registered": True}
    workflow.resume(token)
    return {"registered": False}


def close_betting(round_id: str) -> dict[str, Any]:
    """The countdown's Wait is over: close betting (unless a card closed it first), take the cards
    that came meanwhile, and say what comes next."""
    rnd = bets.close_betting(round_id)
    drain(rnd.table_id)
    return advance(round_id)


def advance(round_id: str) -> dict[str, Any]:
    """The workflow's one question: what does this round wait for now?"""
    drain(store.load_round(round_id).table_id)  # cards waiting in the log first: they do not wait for us

    def attempt() -> dict[str, Any]:
        rnd = store.load_round(round_id)
        round_timers = timers(rnd)
        status = rnd.status
        if status in FINISHED:
            return _step(rnd, "done", status, 1)
        if status == RoundStatus.VOIDING:
            return _step(rnd, "void", "void", 1)
        if status == RoundStatus.SETTLING:
            return _step(rnd, "settle", "settle", 1)
        if status in TAKING_BETS:
            raise StateConflict(f"round {round_id} is still {status}", reason="not-dealing")
        if rnd.paused:
            waited = (store.now_ms() - (rnd.paused_at or store.now_ms())) // 1000
            return _step(rnd, "paused", f"paused:{rnd.paused_at}", round_timers.pause_void - waited)
        engine = rebuild(rnd)
        expected = engine.expected
        changed = False
        while isinstance(expected, InsuranceWindow | FollowWindow) and not expected.bets:
            engine.close_window()  # nobody can answer: the window closes at once
            rnd.events.append({"close": True})
            changed = True
            expected = engine.expected
        key = expectation_key(expected)
        if isinstance(expected, Settle):
            rnd.status = RoundStatus.SETTLING
            rnd.settlement = engine.settle().to_dict(full=True)
            store.save(rnd)
            return _step(rnd, "settle", "settle", 1)
        if rnd.expect_key != key:
            rnd.expect_key, rnd.expect_since = key, store.now_ms()
            changed = True
        if changed:
            rnd = store.save(rnd)
        since = rnd.expect_since if rnd.expect_since is not None else store.now_ms()
        elapsed = (store.now_ms() - since) // 1000
        if isinstance(expected, CardFor):
            return _step(rnd, "card", key, round_timers.pause_void - elapsed)
        if isinstance(expected, DecisionFor):
            return _step(rnd, "decision", key, round_timers.decision - elapsed)
        seconds = round_timers.insurance if isinstance(expected, InsuranceWindow) else round_timers.follow
        return _step(rnd, "window", key, seconds - elapsed)

    return retry(attempt)


def register_wait(round_id: str, version: int, token: str) -> dict[str, Any]:
    """Keep the workflow's task token on the round; if the round moved on since the workflow
    asked, resume it at once (nothing waits in vain), unless it only took cards and waits for the
    next one (:func:`_wait_on_cards`)."""
    if store.register_wait(round_id, version, token, store.now_ms()) or _wait_on_cards(round_id, token):
        return {"registered": True}
    workflow.resume(token)
    return {"registered": False}


def _wait_on_cards(round_id: str, token: str) -> bool:
    """The workflow asked "what next?", was told "a card" (or "a decision"), and the dealer's cards
    (or the player's hit) came before its wait was kept: the dealer does not wait for the workflow
    (cards come three a second from the countdown's end), nor does a player. If the round now
    waits for a card, the wait is kept on the round as it is now, as if it had been kept before:
    the workflow sleeps on, where resuming it would ask "what next?" only to be told "a card" (three
    transitions for nothing). The wait's timer is then the earlier card's or decision's, and stale
    when it runs out (:func:`card_overdue`, :func:`decision_timeout`), as for cards taken while a
    wait is kept; a decision's only while it runs out no later than a card's would
    (``croupier.app.decisions._card_comes_first`` keeps a decision's wait on the same terms). True
    when the wait is kept (or was, by this token: a request run again)."""

    def attempt() -> bool:
        rnd = store.load_round(round_id)
        if rnd.wait_token == token:
            return True
        if rnd.status != RoundStatus.PLAYING or rnd.paused or rnd.wait_token:
            return False
        round_timers, now = timers(rnd), store.now_ms()
        asked = str(rnd.expect_key or "").split(":")[0]
        timer = {"card": round_timers.pause_void, "decision": round_timers.decision}.get(asked)
        if timer is None or (rnd.expect_since or now) + 1000 * timer > now + 1000 * round_timers.pause_void:
            return False  # its timer would time the card later than a card's own
        expected = rebuild(rnd).expected
        if not isinstance(expected, CardFor):
            return False
        key = expectation_key(expected)
        if rnd.expect_key != key:
            rnd.expect_key, rnd.expect_since = key, now
        rnd.wait_token, rnd.wait_registered_at = token, now
        rnd.woken_token = rnd.countdown_token = None
        store.save(rnd)
        return True

    return retry(attempt)


def decision_timeout(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    """The per-hand decision timer ran out: the hand is played automatically."""

    def change(rnd: RoundRecord) -> bool:
        if rnd.status != RoundStatus.PLAYING or rnd.paused or _stale(rnd, seq):
            return False
        engine = rebuild(rnd)
        expected = engine.expected
        if not isinstance(expected, DecisionFor) or expectation_key(expected) != key:
            return False
        event = {"action": {"seat": expected.seat, "action": "timeout"}}
        apply_event(engine, event)
        rnd.events.append(event)
        return True

    mutate(round_id, change, wake=False)
    return advance(round_id)


def close_window(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    def change(rnd: RoundRecord) -> bool:
        if rnd.status != RoundStatus.PLAYING or rnd.paused or _stale(rnd, seq):
            return False
        engine = rebuild(rnd)
        if expectation_key(engine.expected) != key:
            return False
        engine.close_window()
        rnd.events.append({"close": True})
        return True

    mutate(round_id, change, wake=False)
    return advance(round_id)


def card_overdue(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    """The card timer ran out: pause the round, but only if its engine still waits for that very
    card. Cards taken since (the dealing path does not wake the workflow for a card the round
    takes while it still waits for another: it moves ``expect_key`` and ``expect_since`` to the
    next card) make the timer stale, and so does a dealing function that took the card and died
    before waking the workflow: the round goes on, waiting for what is left of the time."""

    def change(rnd: RoundRecord) -> RoundRecord | None:
        if (rnd.status == RoundStatus.PLAYING and rnd.expect_key == key and not rnd.paused
                and not _stale(rnd, seq) and expectation_key(rebuild(rnd).expected) == key
                and pause_fields(rnd, "no card arrived in time", code="no-card-in-time")):
            return rnd
        return None

    paused = mutate(round_id, change, wake=False)
    if paused is not None:
        alerts.round_paused(paused, str(paused.pause_reason))
    return advance(round_id)


def auto_void(round_id: str, key: str) -> dict[str, Any]:
    def change(rnd: RoundRecord) -> None:
        if rnd.paused and f"paused:{rnd.paused_at}" == key and rnd.status == RoundStatus.PLAYING:
            rnd.status, rnd.void_reason, rnd.paused = RoundStatus.VOIDING, "paused too long", False

    mutate(round_id, change, wake=False)
    return advance(round_id)


def _said(error: Any) -> str:
    """An error as a person reads it: a Catch's ``{"Error": ..., "Cause": ...}`` as ``Error: Cause``."""
    if isinstance(error, dict) and "Error" in error:
        return f"{error['Error']}: {error.get('Cause') or ''}".rstrip(": ")
    return str(error)


def fault(round_id: str, error: Any) -> dict[str, Any]:
    """An internal error: a round being dealt is paused (a supervisor resumes or voids it); a close
    of betting that cannot complete voids the round (every stake refunded); a settlement is left
    to its retries: never half settled."""
    cause = _said(error)[:500] if error else "internal error"

    def change(rnd: RoundRecord) -> RoundRecord | None:
        if rnd.status in TAKING_BETS:
            rnd.status, rnd.void_reason, rnd.paused = RoundStatus.VOIDING, f"internal error: {cause}", False
            return None
        return rnd if pause_fields(rnd, f"internal error: {cause}", code="internal-error") else None

    paused = mutate(round_id, change, wake=False)
    if paused is not None:
        alerts.round_paused(paused, str(paused.pause_reason))
    return advance(round_id)
