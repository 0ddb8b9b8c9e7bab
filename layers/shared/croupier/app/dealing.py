"""Dealing: the table's devices' events, recorded in the table's device log and taken in order.

The table is the truth: a dealer scans about three cards a second from the moment the countdown
shows zero (Pok Deng: during the countdown), whatever step the software is in. So dealing is two
steps, each safe to repeat:

1. :func:`record` — every event of the table's card reader and dealer console (a scan, a failed
   scan, the cut card, a shuffle, a confirmed burn) is recorded the moment it arrives, in one
   transaction with its once-only marker (the scan id, or the bus event's id): before, and
   whatever, any round can do with it. A card reader numbers its events (``seq``), and they enter
   the table's **device log** in the reader's order, however the bus and the queue deliver them:
   one that comes before an earlier one waits, recorded, for it. Nothing a device sends is
   dropped: what cannot be used is kept and said.
2. :func:`drain` — the log is taken in order, from the table's cursor (``log_taken``), as far as
   the table can take it now: burn cards go to the shoe, round cards to the hand the round's
   engine expects next. An entry the round is not ready for yet (betting closing, a paused round,
   a card the supervisor kept for the round while a decision is due) waits, and so does every
   entry after it. Anything can drain, any time: the dealing function after it records, the
   workflow's steps, a decision, a supervisor's resume, the end of a round. Each drain writes the
   shoe, the cursor, the round and what became of each entry in one transaction on the table's
   and the round's versions: an entry is taken once, whoever drains.

A card the round cannot place (a card while a decision is due or a window is open, after the
round's last card, before betting ended where the game deals after it) pauses the round, stays in
the log, and the supervisor is alerted; it is never given to another hand. The supervisor's resume
says what became of it (:func:`resolve`). A card when no round can be paused (between rounds,
after a round began settling) is counted as drawn and told about.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ..errors import CroupierError, ShoeError
from ..games import engine_class
from ..games.base import CardFor, DecisionFor, FollowWindow, InsuranceWindow
from ..shoe import CardUse, Shoe, ShoePhase
from . import alerts, store, visibility, workflow
from .bets import close_betting
from .engine import expectation_key, rebuild
from .errors import AppError, StateConflict
from .records import ACTIVE, LogEntry, LogState, RoundRecord, RoundStatus, TableRecord
from .rounds import pause_fields, retry, take_token, timers, wake_again

READER_EVENTS = ("card-scanned", "scan-failed", "cut-card")
CONSOLE_EVENTS = ("shoe-shuffled", "burn-done")
CLOCK_AHEAD_MS = 2000
"""How much later than its recording a device event's time may be (the bus gives whole seconds,
and the clocks are AWS's) before it says the device gave the bus a time of its own, from a clock
ahead of AWS's (decision 0076)."""
RESOLUTIONS = ("round", "discarded", "returned")
"""What became of a card that paused its round, as the supervisor says when resuming: it belongs
to the round (taken when the round next expects a card), the dealer set it aside (it counts as
drawn, like a burned card) or put it back in the shoe (it will be scanned again)."""


# --- 1. recording ----------------------------------------------------------------------------


def record(kind: str, detail: dict[str, Any], once: str, *, sent_at: int | None = None) -> dict[str, Any]:
    """Record one device event of a table in its log (exactly once per ``once`` key), then take
    what the table can take. ``sent_at``: when the device sent it (the bus event's time, epoch
    ms), if known. Returns what happened, without card codes (they reach logs)."""
    table_id = detail["table_id"]
    table = store.load_table(table_id)
    reader = detail.get("reader_id")
    if kind in READER_EVENTS and table.reader_id != reader:
        raise AppError(f"reader {reader!r} is not registered for table {table_id}", reason="unknown-reader")
    seq = (str(reader), int(detail["seq"])) if kind in READER_EVENTS else None
    at = store.now_ms()
    entry = LogEntry(table_id=table_id, n=0, key=once, kind=kind, at=at, card=detail.get("card"),
                     scan_id=detail.get("scan_id"), reader_id=detail.get("reader_id"), shoe_id=detail.get("shoe_id"),
                     sent_at=sent_at, seq=None if seq is None else seq[1],
                     # the reader's word; ``reason`` is a refusal's
                     scan_failure=detail.get("reason") if kind == "scan-failed" else None,
                     clock_ahead=_clock_ahead(sent_at, at))
    n = store.record_device_event(entry, seq)
    if n == 0:
        # an earlier event of its reader has not come yet: it waits, recorded, and goes into the
        # log with it (a card that never comes leaves the round waiting for its card, whose timer
        # pauses it)
        return {"recorded": "waiting", **drain(table_id, table)}  # it may have moved ones waiting before
    if n is None:
        # delivered again: the first delivery recorded it, and may have died before it drained
        # or woke the round's workflow
        outcome = drain(table_id)
        if table.round_id:
            wake_again(store.load_round(table.round_id))
        return {"recorded": "duplicate", **outcome}
    return {"recorded": n, **drain(table_id, table)}


def _clock_ahead(sent_at: int | None, at: int) -> str | None:
    """Why an event sent at ``sent_at`` (its bus time) and recorded at ``at`` is refused, if its time
    is later than its recording: a device that sets the bus event's time itself, from a clock ahead
    of AWS's, makes its events look sent later than they were, a late card of an earlier round or
    shoe this one's, a shuffle later than the cards after it (decisions 0073, 0075, 0076). None for
    any other event."""
    if sent_at is None or sent_at <= at + CLOCK_AHEAD_MS:
        return None
    return (f"its time is {(sent_at - at) / 1000:.1f} s after it reached the table: the device's clock is "
            "ahead, and its time cannot say when it was sent")


def shuffle(table_id: str, shoe_id: str | None) -> TableRecord:
    """The dealer console's shuffle through the API: refused at once while a round is in play,
    else recorded in the device log like the console's bus event, and taken."""
    table = store.load_table(table_id)
    if table.round_status in ACTIVE:
        raise StateConflict("a round is in play: shuffle between rounds", reason="round-in-play")
    detail = {"table_id": table_id, "shoe_id": shoe_id or f"s-{uuid.uuid4().hex[:10]}"}
    n = record("shoe-shuffled", detail, f"api:{uuid.uuid4().hex}")["recorded"]
    entry = store.log_entry(table_id, int(n))
    if entry is None or entry.state != LogState.TAKEN:  # a round opened meanwhile: the entry says so
        why = entry.reason if entry is not None and entry.reason else "it waits behind the table log"
        raise StateConflict(f"the shuffle was not taken: {why}", reason="round-in-play")
    return store.load_table(table_id)


# --- 2. draining -----------------------------------------------------------------------------


@dataclass
class _Pass:
    """One pass over the log: what it takes, writes and tells, decided before anything is written."""

    table: TableRecord
    rnd: RoundRecord | None
    shoe: Shoe | None
    cursor: int
    updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    told: list[tuple[str, LogEntry | None, str]] = field(default_factory=list)  # (what, entry, why)
    round_changed: bool = False
    taken: int = 0
    then_close: bool = False
    paused: str | None = None
    exhausted: bool = False
    engine: Any = None

    def round_engine(self) -> Any:
        if self.engine is None and self.rnd is not None:
            self.engine = rebuild(self.rnd)
        return self.engine

    def done(self, entry: LogEntry, state: LogState, **fields: Any) -> None:
        """The entry is used (or refused): the cursor moves past it."""
        self.cursor = entry.n
        self.updates.append((self.cursor, {"state": state, **fields, "taken_at": store.now_ms()}))
        self.taken += 1

    def tell(self, what: str, entry: LogEntry | None, why: str) -> None:
        self.told.append((what, entry, why))

    def named(self, entry: LogEntry) -> str:
        """A card as a pause reason names it (only the staff read reasons): with its scan id and
        log entry, the card ``"??"`` while the round would deal it face down."""
        hidden = visibility.unplaced_hidden(self.rnd, self.round_engine())
        card = visibility.HIDDEN if hidden else entry.card
        return f"card {card} (scan {entry.scan_id}, log #{entry.n})"

    def pause(self, entry: LogEntry | None, reason: str, *, block: bool, code: str) -> None:
        """Pause the round for a supervisor. ``block``: the entry stays in the log, waiting for the
        supervisor to say what became of it. ``code``: the pause's stable reason code (what the
        players are told, in words: :data:`croupier.app.visibility.PAUSE_WORDS`)."""
        assert self.rnd is not None
        blocked = None
        if block and entry is not None:
            blocked = {"n": entry.n, "scan_id": entry.scan_id, "card": entry.card, "reason": reason}
            self.updates.append((entry.n, {"blocked": reason}))
        betting = self.rnd.status == RoundStatus.BETTING
        if pause_fields(self.rnd, reason, blocked, code=code):
            self.round_changed = True
            self.paused = reason
            self.tell("paused", entry, reason)
            if betting:  # no bet once the dealer has started dealing: the pause closes betting too
                self.rnd.status = RoundStatus.CLOSING
                self.then_close = True


def drain(table_id: str, table: TableRecord | None = None) -> dict[str, Any]:
    """Take the table's device log as far as the table can take it now. Safe to call any time, from
    anywhere, as often as wanted. ``table``: the table item as just read, if the caller has it (a
    stale one only costs a retry: every pass writes the table on its version). Returns what it
    did (counts and a pause, no card codes)."""
    taken, paused = 0, None
    known = [table]
    for _ in range(50):
        step = retry(lambda: _one_pass(table_id, known.pop() if known else None))
        if step is None:
            break
        taken += step.taken
        _tell(table_id, step)
        if step.paused and step.rnd is not None:
            paused = step.rnd.round_id
        if step.then_close and step.rnd is not None:
            close_betting(step.rnd.round_id)
            continue
        if step.taken == 0 or step.exhausted or (step.rnd is not None and step.rnd.paused):
            break
    out: dict[str, Any] = {"taken": taken}
    if paused:
        out["paused"] = paused
    return out


def _tell(table_id: str, step: _Pass) -> None:
    """Once the pass is stored: the alerts it raised."""
    for what, entry, why in step.told:
        if what == "paused" and step.rnd is not None:
            alerts.round_paused(step.rnd, why, step.rnd.blocked)
        elif what == "not-taken" and entry is not None:
            alerts.card_not_taken(table_id, entry, why, step.rnd.round_id if step.rnd else None)
        elif what == "refused" and entry is not None:
            alerts.device_event_refused(table_id, entry, why)


def _one_pass(table_id: str, table: TableRecord | None = None) -> _Pass | None:
    """Read the table, its round and the log after the cursor; decide each entry in order; write
    it all in one transaction, then wake the round's workflow if the round needs it
    (:func:`_dealing_on`). None when nothing waits in the log."""
    table = table if table is not None else store.load_table(table_id)
    cursor = table.log_taken
    pending = store.log_after(table_id, cursor)
    if not pending:
        return None
    rnd = store.load_round(table.round_id) if table.round_id else None
    if rnd is not None and rnd.status not in ACTIVE:
        rnd = None
    step = _Pass(table, rnd, Shoe.from_dict(table.shoe) if table.shoe else None, cursor)
    for entry in pending:
        if not _decide(step, entry) or step.paused or step.then_close:
            break
    # every entry read was used and the log held no more: no need to look again
    step.exhausted = len(pending) < store.LOG_BATCH and step.cursor == pending[-1].n
    if not (step.updates or step.round_changed):
        return step if step.then_close else None
    token = None
    # the table is written in every pass, on its version, even when only the round changes: what
    # the pass decided rests on the cursor it read, which another pass may have moved meanwhile
    table.log_taken = step.cursor
    if step.shoe is not None:
        table.shoe = step.shoe.to_dict()
    items: list[tuple[store.Versioned, int | None]] = [(table, table.version)]
    if step.rnd is not None and step.round_changed:
        if not _dealing_on(step):
            token = take_token(step.rnd)
        items.append((step.rnd, step.rnd.version))
    store.write_versioned(items, [store.log_entry_update(table_id, n, fields) for n, fields in step.updates])
    workflow.resume(token)
    return step


def _dealing_on(step: _Pass) -> bool:
    """Whether the round took its cards and still waits for a card while its workflow waits for
    cards (a card wait is registered): then the workflow is not woken, it has nothing to do. The
    wait's timer belongs to the card the round waits for now (``expect_key``, from this card on):
    when it runs out, a card taken since makes it stale (:func:`croupier.app.steps.card_overdue`),
    and the workflow waits again for what is left of the time from the last card. The workflow is
    woken when the round needs something else: a decision, a window, a pause, settlement."""
    rnd = step.rnd
    if (rnd is None or rnd.status != RoundStatus.PLAYING or rnd.paused or not rnd.wait_token
            or not str(rnd.expect_key or "").startswith("card:")):
        return False
    expected = step.round_engine().expected
    if not isinstance(expected, CardFor):
        return False
    rnd.expect_key, rnd.expect_since = expectation_key(expected), store.now_ms()
    return True


def _decide(step: _Pass, entry: LogEntry) -> bool:
    """Decide what becomes of one entry; False when it (and so every later entry) must wait."""
    rnd = step.rnd
    if rnd is not None and (rnd.status == RoundStatus.CLOSING or rnd.paused):
        return False  # the close (or the supervisor) comes first; then the log is taken again
    kind = entry.kind
    # a number the reader used before, for another scan; a time from a clock ahead of AWS's
    unusable = entry.out_of_sequence or entry.clock_ahead
    if unusable:
        if kind == "card-scanned":
            return _refused(step, entry, unusable)
        step.done(entry, LogState.REFUSED, reason=unusable)
        step.tell("refused", entry, unusable)
        return True
    if kind == "card-scanned":
        return _card(step, entry)
    if kind == "scan-failed":
        step.done(entry, LogState.NOTED)  # the dealer rescans until the card is read
        return True
    shoe = step.shoe
    try:
        if kind == "shoe-shuffled":
            if rnd is not None:
                raise ShoeError(f"round {rnd.round_id} is in play: shuffle between rounds", reason="round-in-play")
            per_round_burn = 1 if step.table.game == "pok-deng" else 0
            step.shoe = Shoe(entry.shoe_id or f"s-{uuid.uuid4().hex[:10]}", per_round_burn=per_round_burn,
                             shuffled_at=entry.sent_at)
            step.done(entry, LogState.TAKEN, use="shuffle", shoe_id=step.shoe.shoe_id)
        elif shoe is None:
            raise ShoeError("no shoe at this table: shuffle first", reason="no-shoe")
        elif kind == "burn-done":
            shoe.confirm_burn()
            step.done(entry, LogState.TAKEN, use="burn-done", shoe_id=shoe.shoe_id)
        elif kind == "cut-card":
            shoe.cut_card()
            step.done(entry, LogState.TAKEN, use="cut-card", shoe_id=shoe.shoe_id)
            if rnd is not None:
                rnd.last_round = shoe.is_last_round
                step.round_changed = True
        else:  # pragma: no cover - the event models admit only the kinds above
            raise ShoeError(f"unknown device event {kind!r}", reason="unknown-event")
    except ShoeError as exc:
        step.done(entry, LogState.REFUSED, reason=str(exc))
        step.tell("refused", entry, str(exc))
    return True


def _card(step: _Pass, entry: LogEntry) -> bool:
    card, shoe, rnd = str(entry.card), step.shoe, step.rnd
    if shoe is None:
        return _not_taken(step, entry, "no shoe at this table: shuffle first", count=False)
    if _sent_before_shuffle(entry, shoe):
        return _not_taken(step, entry, f"{step.named(entry)} was scanned before shoe {shoe.shoe_id} was shuffled",
                          count=False)
    phase = shoe.phase
    if phase is ShoePhase.ROUND_BURN and rnd is not None and _sent_before(entry, rnd.created_at):
        # not this round's burn card: one of an earlier round, late
        step.pause(entry, f"{step.named(entry)} was scanned before round {rnd.round_id} opened", block=True,
                   code="card-out-of-turn")
        return False
    if phase in (ShoePhase.SHUFFLED, ShoePhase.BURNING, ShoePhase.ROUND_BURN):
        try:
            use = shoe.scan(card)  # the burn indicator or a burned card: the shoe's alone
        except ShoeError as exc:
            return _refused(step, entry, str(exc))
        if phase is ShoePhase.ROUND_BURN and rnd is not None:  # burned face down at the round's start
            step.done(entry, LogState.TAKEN, use=str(use), shoe_id=shoe.shoe_id, round_id=rnd.round_id,
                      face_up=False)
        else:
            step.done(entry, LogState.TAKEN, use=str(use), shoe_id=shoe.shoe_id)
        return True
    if phase is ShoePhase.CLOSED:
        return _not_taken(step, entry, f"shoe {shoe.shoe_id} is closed: shuffle a new shoe", count=False)
    if rnd is None or phase is ShoePhase.READY:
        return _not_taken(step, entry, "no round is being dealt at this table")
    if rnd.status in (RoundStatus.SETTLING, RoundStatus.VOIDING):
        return _not_taken(step, entry, f"round {rnd.round_id} is {rnd.status}: its cards are all in")
    if _sent_before(entry, rnd.created_at):
        # delivered late (or again) after the round it was dealt to ended and this one opened: it
        # cannot be this round's card; the supervisor says what it was
        step.pause(entry, f"{step.named(entry)} was scanned before round {rnd.round_id} opened",
                   block=True, code="card-out-of-turn")
        return False
    engine = step.round_engine()
    if rnd.status == RoundStatus.BETTING:
        closes_at = rnd.closes_at
        deals_early = bool(engine_class(rnd.game).deals_during_betting)
        if entry.at >= closes_at or (not deals_early and entry.at >= closes_at - timers(rnd).early_card * 1000):
            step.then_close = True  # the dealer is dealing: betting is over, whoever notices first
            return False
        if not deals_early:
            early = (closes_at - entry.at) / 1000
            step.pause(entry, f"{step.named(entry)} came {early:.1f} s before betting closed", block=True,
                       code="card-before-betting-closed")
            return False
    expected = engine.expected
    if not isinstance(expected, CardFor):
        if entry.state == LogState.HELD:
            return False  # kept for the round by the supervisor: it waits for the round's next card
        step.pause(entry, f"{step.named(entry)} came {_while(expected)}", block=True, code="card-out-of-turn")
        return False
    try:
        use = shoe.scan(card)
        engine.deal(card)
    except (ShoeError, CroupierError) as exc:
        return _refused(step, entry, str(exc))
    assert use is CardUse.ROUND
    rnd.events.append({"card": card, "n": entry.n})
    step.round_changed = True
    step.done(entry, LogState.TAKEN, use="round", round_id=rnd.round_id, hand=expected.hand,
              face_up=expected.face_up, shoe_id=shoe.shoe_id)
    return True


def _sent_before_shuffle(entry: LogEntry, shoe: Shoe) -> bool:
    """Whether ``entry`` was sent before ``shoe`` was shuffled: a card of an earlier shoe,
    delivered late (or again), which this shoe's count (and its burn) must not take."""
    return shoe.shuffled_at is not None and _sent_before(entry, shoe.shuffled_at)


def _sent_before(entry: LogEntry, moment_ms: int) -> bool:
    """Whether the device surely sent ``entry`` before ``moment_ms`` (a round's opening, a shoe's
    shuffle), and the supervisor has not said it is the round's (``held``): the bus gives the
    second it was sent, so a whole second before is sure (the clocks are the same service's)."""
    return entry.sent_at is not None and entry.sent_at + 1000 <= moment_ms and entry.state != LogState.HELD


def _while(expected: Any) -> str:
    if isinstance(expected, DecisionFor):
        return f"while seat {expected.seat} hand {expected.hand} decides"
    if isinstance(expected, InsuranceWindow):
        return "while the insurance window is open"
    if isinstance(expected, FollowWindow):
        return f"while the follow window for seat {expected.seat}'s {expected.what} is open"
    return "after the round's last card"


def _refused(step: _Pass, entry: LogEntry, why: str) -> bool:
    """The shoe refuses the card (a ninth copy, an empty shoe): it is kept as refused, and the
    round being dealt is paused (the dealer or the reader made a mistake the table must see)."""
    step.done(entry, LogState.REFUSED, reason=why)
    if step.rnd is not None and step.rnd.status in (RoundStatus.BETTING, RoundStatus.PLAYING):
        step.pause(entry, f"{step.named(entry)} refused: {why}", block=False, code="card-refused")
        return False
    step.tell("not-taken", entry, why)
    return True


def _not_taken(step: _Pass, entry: LogEntry, why: str, *, count: bool = True) -> bool:
    """A card no round can take: it counts as drawn from the shoe (``count``) and is told about."""
    if count and step.shoe is not None:
        try:
            step.shoe.discard(str(entry.card))
        except ShoeError as exc:
            why = f"{why}; {exc}"
    step.done(entry, LogState.NOT_TAKEN, reason=why)
    step.tell("not-taken", entry, why)
    return True


# --- a supervisor's word on a card that paused its round ---------------------------------------


def resolve(table: TableRecord, blocked: dict[str, Any], resolution: str) -> dict[str, Any]:
    """What became of the card that paused the round (see :data:`RESOLUTIONS`): changes the table's
    shoe and cursor as it says and returns the log entry's update, for the resume's transaction."""
    if resolution not in RESOLUTIONS:
        raise AppError(f"say what became of the card: one of {', '.join(RESOLUTIONS)}", reason="bad-resolution")
    n = int(blocked["n"])
    if table.log_taken != n - 1:
        raise StateConflict(f"log entry #{n} is not the next one of table {table.table_id}", reason="busy")
    at = store.now_ms()
    if resolution == "round":
        return store.log_entry_update(table.table_id, n, {"state": LogState.HELD, "resolved_at": at})
    if resolution == "discarded":
        if table.shoe is None:  # pragma: no cover - a round was paused: the table has its shoe
            raise StateConflict("no shoe at this table: shuffle first", reason="no-shoe")
        shoe = Shoe.from_dict(table.shoe)
        try:
            shoe.discard(str(blocked["card"]))
        except ShoeError as exc:
            raise StateConflict(str(exc), reason=exc.reason) from exc
        table.shoe = shoe.to_dict()
    table.log_taken = n
    return store.log_entry_update(table.table_id, n, {"state": LogState(resolution), "resolved_at": at,
                                                         "taken_at": at})


# --- reads -----------------------------------------------------------------------------------

def device_log(table_id: str, current_round: str | None = None) -> list[dict[str, Any]]:
    """The table's device log as the staff sees it: each card as :mod:`croupier.app.visibility`
    says (a face-down card, a burned one, one not placed yet that may be face down: ``"??"``).
    ``current_round``: the table's round now (for the entries that name none)."""
    lookup = visibility.round_lookup()
    return [visibility.log_entry(entry, lookup, current_round) for entry in store.log_entries(table_id)]
