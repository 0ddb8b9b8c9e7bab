"""A round's life outside its cards and bets: opening it, changing it safely, waking its workflow,
pausing it.

A round item is an event log (cards with their device-log position, actions, window closes,
pre-selections) replayed on a fresh engine whenever the round is read (:mod:`croupier.app.engine`):
the engine stays the only place that knows the rules. Every write of a round is conditioned on its
``version``; a write that loses a race is redone from a fresh read (:func:`retry`).

The round's workflow waits in callback tasks: it leaves its task token on the round
(``wait_token``). Whoever changes the round takes the token off in the same write and wakes the
workflow once the write is stored, so the workflow asks "what next?" again; but a card taken while
the round still waits for another card leaves the workflow asleep in its card wait, which has
nothing to do yet (:func:`croupier.app.dealing._dealing_on`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from .. import betting
from ..errors import ShoeError
from ..rules import Rules, Timers, as_overrides
from ..shoe import Shoe
from . import seamless, store, wallets, workflow
from .config import settings
from .engine import rules_of
from .errors import StateConflict
from .keys import kind_of
from .records import ACTIVE, TAKING_BETS, RoundRecord, RoundStatus, TableRecord
from .visibility import pause_words

T = TypeVar("T")
BLACKJACK = ("deluxe-blackjack", "blackjack")


def retry(fn: Callable[[], T], attempts: int = 20) -> T:
    """Run a read-modify-conditional-write until it wins (or a domain error ends it): one that
    lost a race (``store.Conflict``) is redone from a fresh read after a random backoff."""
    return store.until_it_wins(fn, lost=store.Conflict, attempts=attempts,
                               busy=lambda: StateConflict("the table is busy; try again", reason="busy"))


def table_rules(item: TableRecord | RoundRecord) -> Rules:
    """The rules of a table or a round (the game's defaults with the overrides it carries)."""
    return rules_of(item)


def timers(item: TableRecord | RoundRecord) -> Timers:
    return table_rules(item).timers


def start_round(table_id: str) -> RoundRecord:
    """Open the next round of the table: its betting countdown and its workflow execution."""

    def attempt() -> RoundRecord:
        table = store.load_table(table_id)
        if not table.idle:
            if table.round_status in ACTIVE:
                ensure_workflow(store.load_round(str(table.round_id)))
            raise StateConflict(f"round {table.round_id} is still in play", reason="round-in-play")
        if table.shoe is None:
            raise StateConflict("no shoe: shuffle a new shoe first", reason="no-shoe")
        shoe = Shoe.from_dict(table.shoe)
        try:
            number = shoe.start_round()
        except ShoeError as exc:
            raise StateConflict(str(exc), reason=exc.reason) from exc
        rules = table_rules(table)
        round_id = f"{table_id}-{shoe.shoe_id}-{number:03d}-{uuid.uuid4().hex[:6]}"
        seats = table.seats
        if table.game in BLACKJACK:
            seated = betting.seats_from_dict(seats)
            wallet = wallets.of(table)  # the round's (it copies the table's, below)
            balances = {state.player: wallet.funds(state.player) for state in seated.values()}
            seats = betting.seats_to_dict(betting.seats_at_round_start(rules, seated, balances))  # type: ignore[arg-type]
        now = store.now_ms()
        round_item = RoundRecord(
            round_id=round_id, table_id=table_id, game=table.game, status=RoundStatus.BETTING,
            round_in_shoe=number, shoe_id=shoe.shoe_id, shards=settings().bet_shards, created_at=now,
            closes_at=now + rules.timers.countdown * 1000, wallet=seamless.wallet_of(table),
            # the rules in full, not the table's overrides: the round replays as it was played, even
            # once the game's defaults change; stored apart, once, as every round is written often
            rules_id=store.keep_rules(as_overrides(rules)),
            last_round=shoe.is_last_round, seats=seats)
        table.shoe, table.round_id, table.round_status = shoe.to_dict(), round_id, RoundStatus.BETTING
        table.seats, table.closes_at = seats, round_item.closes_at
        store.write_versioned([(table, table.version), (round_item, None)])
        return round_item

    round_item = retry(attempt)
    # the live function, handed the round's opening by the stream, may have started it first
    ensure_workflow(round_item)
    return round_item


def _start_workflow(round_item: RoundRecord) -> None:
    """Start the round's workflow, its input made of the round's own fields alone (its countdown is
    its end less its opening, as the opening set them): whoever starts it, from whichever copy of
    the round, gives the same input, which Step Functions answers with the execution running."""
    countdown = (round_item.closes_at - round_item.created_at) // 1000
    workflow.start_round(round_item.round_id, round_item.table_id, countdown)


def ensure_workflow(round_item: RoundRecord) -> None:
    """Start the workflow of a round in play, unless it has one: the opening starts it, and so do a
    press of "open round" again (decision 0074) and the stream's record of the opening (decision
    0078), for the call that opened the round may have died after its write and before its start
    (a round without a workflow is never settled, and a paused one never voided by its timer); the
    round may have moved on meanwhile (a late card of the round before pauses it, and so closes its
    betting).
    Step Functions answers a start with the same name and input as a running execution with that
    execution; one that differs, or has ended, is refused, and then there is nothing to start."""
    try:
        _start_workflow(round_item)
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ExecutionAlreadyExists":
            raise


def opened(old: dict[str, Any] | None, new: dict[str, Any] | None) -> bool:
    """A change of the game table as its stream gives it (the images before and after, in Python
    form): if it is a round's first write (its opening), make sure the round's workflow is
    started (decision 0078). The call that opened the round starts it right after its write and
    may have died between the two; the stream hands every change over until it is handled. Returns
    whether the change opened a round."""
    if old is not None or new is None or kind_of(new) != "round":
        return False
    ensure_workflow(RoundRecord.from_item(new))
    return True


# --- waking the workflow ---------------------------------------------------------------------


def take_token(rnd: RoundRecord) -> str | None:
    """Take the waiting workflow's token off the round, to wake it once the round is written. The
    token stays on the round as ``woken_token``: a request whose first attempt died after its
    write, before the wake, wakes the workflow with it when it is retried (:func:`wake_again`).
    With no wait registered, the token to wake is that last one: if the request that took it died
    before the wake, this request makes the wake good; if it was used, it is ignored."""
    token = rnd.wait_token
    rnd.wait_token = None
    if token:
        rnd.woken_token = token
    return token or rnd.woken_token


def wake_again(rnd: RoundRecord) -> None:
    """A request applied before is retried (a device event delivered again; a decision, resume or
    void sent again): unless the workflow has registered a new wait since, wake it (again) with
    the token the first attempt took, so that the round does not stall until its timer. A token
    used already is ignored; a workflow woken for nothing asks "what next?" and waits again."""
    if rnd.status in (RoundStatus.PLAYING, RoundStatus.VOIDING) and not rnd.wait_token:
        workflow.resume(rnd.woken_token)


def mutate(round_id: str, change: Callable[[RoundRecord], T], *, wake: bool = True) -> T:
    """Apply ``change`` to the round item and write it on its version; then wake the workflow."""
    holder: dict[str, Any] = {}

    def attempt() -> T:
        rnd = store.load_round(round_id)
        out = change(rnd)  # before the token is taken: a refusal may wake the workflow (wake_again)
        holder["token"] = take_token(rnd)
        store.save(rnd)
        return out

    out = retry(attempt)
    if wake:
        workflow.resume(holder.get("token"))
    return out


# --- pausing ---------------------------------------------------------------------------------


def pause_fields(rnd: RoundRecord, reason: str, blocked: dict[str, Any] | None = None, *,
                 code: str) -> bool:
    """Mark a round paused (True), unless it is paused already or past pausing (False).
    ``blocked``: the device-log entry the round could not place, which the supervisor's resume
    must say what became of. ``reason`` is the staff's (it may name a card, its scan and log
    entry); ``code`` is the stable code whose words the players read (see
    :data:`croupier.app.visibility.PAUSE_WORDS`)."""
    if rnd.paused or rnd.status not in (*TAKING_BETS, RoundStatus.PLAYING):
        return False
    at = store.now_ms()
    rnd.paused, rnd.pause_reason, rnd.pause_code, rnd.paused_at, rnd.blocked = True, reason, code, at, blocked
    rnd.history.append({"at": at, "pause": reason})
    return True


def require_playing(rnd: RoundRecord) -> None:
    if rnd.status != RoundStatus.PLAYING:
        raise StateConflict(f"round {rnd.round_id} is {rnd.status}", reason="round-not-playing")
    if rnd.paused:
        raise StateConflict(f"round {rnd.round_id} is paused: {pause_words(rnd.pause_code)}",
                            reason="round-paused")  # whoever asked: no card, scan or log detail
