"""The pit supervisor's hand on a round: pause, resume, void.

A round paused because of a card it could not place stays paused until the supervisor says what
became of that card (:data:`croupier.app.dealing.RESOLUTIONS`): it belongs to the round (the round
takes it when it next expects a card), the dealer set it aside (it counts as drawn), or put it
back in the shoe (it will be scanned again). A void refunds every stake; a card that waited for
the voided round is then told about as one no round took.
"""

from __future__ import annotations

from typing import Any

from . import alerts, store, workflow
from .dealing import drain, resolve
from .errors import AppError, StateConflict
from .records import RoundRecord, RoundStatus
from .rounds import mutate, pause_fields, retry, take_token, wake_again


def pause(round_id: str, reason: str) -> RoundRecord:
    def change(rnd: RoundRecord) -> RoundRecord:
        if rnd.status == RoundStatus.SETTLING:
            raise StateConflict("the round is being settled", reason="settling")
        if rnd.status != RoundStatus.PLAYING:
            raise StateConflict(f"round {round_id} is {rnd.status}: only a round in play pauses",
                                reason="not-pausable")
        if not pause_fields(rnd, reason, code="supervisor"):
            raise StateConflict(f"round {round_id} is paused already: {rnd.pause_reason}",
                                reason="paused-already")
        return rnd

    rnd = mutate(round_id, change)
    alerts.round_paused(rnd, reason)
    return rnd


def resume_round(round_id: str, card: str | None = None) -> RoundRecord:
    """Resume a paused round. ``card``: what became of the card that paused it, if one did."""
    holder: dict[str, Any] = {}

    def attempt() -> RoundRecord:
        rnd = store.load_round(round_id)
        if not rnd.paused:
            wake_again(rnd)  # a resume retried: its first attempt may have died before the wake
            raise StateConflict(f"round {round_id} is not paused", reason="not-paused")
        blocked = rnd.blocked
        ops = []
        items: list[tuple[store.Versioned, int | None]] = []
        if blocked:
            if card is None:
                raise StateConflict(
                    f"card {blocked.get('card')} (log #{blocked['n']}) paused the round: say what became of it "
                    f"('card': round, discarded or returned)", reason="say-what-became-of-the-card")
            table = store.load_table(rnd.table_id)
            ops.append(resolve(table, blocked, card))
            items.append((table, table.version))
        elif card is not None:
            raise AppError("no card paused this round: resume without 'card'", reason="no-blocking-card")
        rnd.paused, rnd.pause_reason, rnd.pause_code, rnd.paused_at = False, None, None, None
        rnd.expect_key = rnd.blocked = None
        rnd.history.append({"at": store.now_ms(), "resume": True,
                            **({"card": card, "log": blocked["n"]} if blocked else {})})
        holder["token"] = take_token(rnd)
        items.append((rnd, rnd.version))
        store.write_versioned(items, ops)
        return rnd

    rnd = retry(attempt)
    drain(rnd.table_id)
    workflow.resume(holder.get("token"))
    return rnd


def void(round_id: str, reason: str) -> RoundRecord:
    def change(rnd: RoundRecord) -> RoundRecord:
        if rnd.status not in (RoundStatus.PLAYING, RoundStatus.CLOSING):
            wake_again(rnd)  # a void retried: its first attempt may have died before the wake
            raise StateConflict(f"round {round_id} is {rnd.status}: it cannot be voided now", reason="not-voidable")
        rnd.status, rnd.void_reason, rnd.paused, rnd.blocked = RoundStatus.VOIDING, reason, False, None
        rnd.history.append({"at": store.now_ms(), "void": reason})
        return rnd

    rnd = mutate(round_id, change)
    drain(rnd.table_id)
    return rnd
