"""Players' decisions in a blackjack round: seated actions, insurance, follow answers, pre-selections.

A decision is an event of the round's log, checked by the engine (an illegal one is refused with
the engine's reason). An extra stake (double, split, insurance, follow) is debited in the same
transaction as the round's new state (by the round's wallet, :mod:`croupier.app.wallets`: an
operator's takes it just before). A retried request (same ``Idempotency-Key``) is answered
again, never applied twice.
"""

from __future__ import annotations

from typing import Any

from ..games.base import Action, CardFor
from . import store, wallets, workflow
from .dealing import drain
from .engine import apply_event, expectation_key, rebuild
from .errors import AppError, StateConflict
from .records import RoundRecord, bet_from_item
from .rounds import require_playing, retry, take_token, timers, wake_again

SEATED = ("hit", "stand", "double", "split", "surrender", "insurance")
BEHIND = ("insurance", "follow-double", "follow-split")
COSTLY = ("double", "split")
"""Seated actions with an extra stake: chosen at the turn, never pre-selected."""


def _card_comes_first(rnd: RoundRecord, engine: Any) -> bool:
    """After a hit or a double the hand's card comes next, and the workflow, waiting for this
    decision, has nothing to do until the card is dealt: it is left waiting, its wait now the
    card's (``expect_key``, ``expect_since``), and the dealing path wakes it once the card is
    taken and the round needs something else (the hand deciding again, the next hand). So a
    round's transitions grow with its decisions, not its cards. Only while the workflow's decision
    timer runs out no later than the card's would: a timer that fires after the decision was
    made is stale, and the workflow then waits for what is left of the card's time."""
    expected = engine.expected
    if (not rnd.wait_token or rnd.paused or not isinstance(expected, CardFor)
            or not str(rnd.expect_key or "").startswith("decision:")):
        return False
    round_timers, now = timers(rnd), store.now_ms()
    decision_ends = (rnd.expect_since or now) + 1000 * round_timers.decision
    if decision_ends > now + 1000 * round_timers.pause_void:
        return False
    rnd.expect_key, rnd.expect_since = expectation_key(expected), now
    return True


def decide(round_id: str, player: str, seat: int, action: str, *, behind: bool = False, hand: int | None = None,
           preselect: bool = False, idempotency_key: str | None = None) -> dict[str, Any]:
    """A player's decision. Seated actions on the player's own seat; insurance and follow answers
    on the player's bet behind a seat (``behind``). Extra stakes (double, split, insurance,
    follow) are debited in the same transaction as the round's new state."""

    # The keys of applied decisions are kept on the round, written with the decision itself: a
    # request retried after its first attempt died past its write is answered again, never applied
    # a second time (to the hand deciding by then: a second double, a second hit).
    done_key = f"{player}:{idempotency_key}" if idempotency_key else None

    def attempt() -> dict[str, Any]:
        rnd = store.load_round(round_id)
        holder["table_id"] = rnd.table_id
        done = (rnd.decision_keys or {}).get(done_key) if done_key else None
        if done is not None:
            wake_again(rnd)
            return {"round_id": round_id, **done, "replayed": True}
        require_playing(rnd)
        bets = [bet_from_item(b) for b in rnd.engine_bets]
        own_seat = any(b.type == "seat" and b.seat == seat and b.player == player for b in bets)
        own_behind = next((b for b in bets if b.type == "behind" and b.seat == seat and b.player == player), None)
        if behind:
            if own_behind is None:
                raise AppError(f"you have no bet behind seat {seat} in this round", reason="not-your-bet")
            if action not in BEHIND:
                raise AppError(f"a bet-behind answer is one of {', '.join(BEHIND)}", reason="bad-action")
            act = Action(seat, action, player, hand)
            bet_ref = own_behind
        else:
            if not own_seat:
                raise AppError(f"seat {seat} is not yours in this round", reason="not-your-seat")
            if action not in SEATED:
                raise AppError(f"a seated action is one of {', '.join(SEATED)}", reason="bad-action")
            act = Action(seat, action, None, hand)
            bet_ref = next(b for b in bets if b.type == "seat" and b.seat == seat)
        if preselect and action in COSTLY:
            # applied at the turn's start by whatever event starts it (a card, a window's close),
            # where no wallet is debited: the extra stake would be played but never taken
            raise StateConflict(f"{action} cannot be pre-selected: its extra stake is taken when you choose it at "
                                f"your turn", reason="not-preselectable")
        engine = rebuild(rnd)
        if preselect:
            event: dict[str, Any] = {"preselect": {"seat": seat, "action": action}}
        else:
            event = {"action": act.to_dict()}
        before = engine.balance_of(player)  # type: ignore[attr-defined]
        apply_event(engine, event)  # IllegalAction -> 409 with the engine's reason
        after = engine.balance_of(player)  # type: ignore[attr-defined]
        cost = (before - after) if before is not None and after is not None else 0
        rnd.events.append(event)
        if done_key:
            rnd.decision_keys = {**(rnd.decision_keys or {}), done_key: {"applied": event, "cost": cost}}
        holder["token"] = None if _card_comes_first(rnd, engine) else take_token(rnd)
        version = rnd.version
        round_put = store.versioned_put(rnd, version)
        try:
            if cost > 0:  # the round's wallet takes the extra stake, written with the decision
                shard = store.shard_of(bet_ref.id, rnd.shards)
                stake = wallets.Stake(f"bet:{bet_ref.id}:{action}:{len(rnd.events)}", cost, bet_ref.id,
                                      "follow" if action.startswith("follow-") else action,
                                      {"round_id": round_id, "bet_id": bet_ref.id, "action": action})
                wallets.of(rnd).take(player, rnd.table_id, round_id, [stake], kind=action, what=action,
                                     changes=lambda debited: [round_put, store.add_taken(
                                         round_id, shard, bet_ref.id, cost, debited.get(bet_ref.id, ()))])
            else:
                store.write([round_put])
        except BaseException:
            rnd.version = version  # the next attempt reads the round again
            raise
        return {"round_id": round_id, "applied": event, "cost": cost}

    holder: dict[str, Any] = {}
    answer = retry(attempt)
    drain(holder["table_id"])  # a card the supervisor kept for the round may be this hand's
    workflow.resume(holder.get("token"))
    return answer


