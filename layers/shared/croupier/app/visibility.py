"""Who may see what: the one place that decides what each role sees of a card, a device-log
entry, a seat, a round's staff fields, a pause reason and a pushed event.

Every HTTP view (:mod:`croupier.app.queries`, the device log of :mod:`croupier.app.dealing`), every
snapshot (:mod:`croupier.app.screens`) and every push (:mod:`croupier.app.push`, the events of
:mod:`croupier.app.live`) asks here.

- **Staff of a table**: its own dealer console (the token's ``custom:table``), supervisors and
  operators. A dealer console of another table is, for that table, an outsider: it sees what a
  player who does not sit there sees.
- **A face-down card is ``"??"`` to every role until its round reveals it**, whatever state its
  device-log entry is in. The rule fails closed: a card is shown only when something says it is
  face up or revealed.

  * a card the round took face up: shown; taken face down: shown once the round has revealed its
    face-down cards (Pok Deng once betting has closed, the Deluxe hole card once the dealer plays,
    every round once it is being settled or voided);
  * a burned card: never shown (**Decision:** burned face down, it is never turned up);
  * an entry still ``pending``: never shown (it may yet become a face-down card);
  * a card the round could not place (it paused the round, or the supervisor kept it, or the
    shoe refused it, or no round could take it): hidden while its round would deal it face down
    (Pok Deng while bets are open; any game whose next card is face down), shown otherwise.
- **A pause** is told to players as a stable code and plain words; the staff read the reason
  itself (the card, its scan id and its log entry; a face-down card as ``"??"``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..games import engine_class
from ..games.base import CardFor, RoundEngine
from .identity import Identity
from .records import REVEALED, TAKING_BETS, LogEntry, LogState, RoundRecord, Watcher

HIDDEN = "??"
STAFF_ROLES = ("operator", "dealer", "supervisor")
EVERY_TABLE_ROLES = ("operator", "supervisor")
FINANCE = ("operator", "supervisor")
"""Who sees a round's house result."""


# --- who is staff of a table -----------------------------------------------------------------


def staff_of(who: Identity, table_id: str | None) -> bool:
    """Supervisors and operators for every table; a dealer console only for the table it serves."""
    if who.role in EVERY_TABLE_ROLES:
        return True
    return who.role == "dealer" and table_id is not None and who.table == table_id


def watcher_identity(watcher: Watcher) -> Identity:
    """The identity a table's watcher carries (its connection's)."""
    return Identity(watcher.subject, watcher.role, watcher.account_kind, watcher.table)


# --- cards -----------------------------------------------------------------------------------


def cards_hidden(rnd: RoundRecord, engine: RoundEngine) -> bool:
    """Are the round's face-down cards still hidden? Pok Deng's until betting has closed; the
    Deluxe hole card until the dealer's view shows it; none once the round is being settled."""
    if rnd.status in REVEALED:
        return False
    if engine_class(rnd.game).deals_during_betting:
        return rnd.status in TAKING_BETS
    return f'"{HIDDEN}"' in json.dumps(engine.view())


def unplaced_hidden(rnd: RoundRecord | None, engine: RoundEngine | None) -> bool:
    """Is a card that its round could not place (yet) to be hidden? While the round would deal
    it face down: every card of a game that deals during betting while bets are open, and any
    card when the round's next card is a face-down one. Unsure (no engine): hidden."""
    if rnd is None:
        return False  # no round at the table: nothing is dealt face down
    if rnd.status in REVEALED:
        return False
    if engine_class(rnd.game).deals_during_betting and rnd.status in TAKING_BETS:
        return True
    if engine is None:
        return True
    expected = engine.expected
    return isinstance(expected, CardFor) and not expected.face_up


RoundLookup = Callable[[str | None], tuple[RoundRecord | None, RoundEngine | None]]
"""A round id (or None) -> the round and its engine (None, None when there is none)."""


def log_card(entry: LogEntry, lookup: RoundLookup, current_round: str | None) -> str:
    """The card of a device-log entry as every role sees it (see the module's rules).
    ``current_round``: the table's round now, for entries that name none."""
    card = str(entry.card)
    state, use = entry.state, entry.use
    if use == "burned":
        return HIDDEN
    if state == LogState.TAKEN and use == "round":
        if entry.face_up is True:
            return card
        if entry.face_up is False and entry.round_id:
            rnd, engine = lookup(entry.round_id)
            if rnd is not None and engine is not None and not cards_hidden(rnd, engine):
                return card
        return HIDDEN
    if state == LogState.TAKEN:
        return card if use == "burn-indicator" else HIDDEN  # the burn's first card is shown by the rules
    if state == LogState.PENDING and not entry.blocked:
        return HIDDEN  # not placed yet: it may become a face-down card
    round_id = entry.round_id or current_round
    rnd, engine = lookup(round_id)
    if round_id and rnd is None:
        return HIDDEN  # its round cannot be read: unsure, so hidden
    return HIDDEN if unplaced_hidden(rnd, engine) else card


def round_lookup() -> RoundLookup:
    """A :data:`RoundLookup` reading the store, each round (and its engine) once."""
    from . import store
    from .engine import rebuild

    known: dict[str, tuple[RoundRecord | None, RoundEngine | None]] = {}

    def lookup(round_id: str | None) -> tuple[RoundRecord | None, RoundEngine | None]:
        if not round_id:
            return None, None
        if round_id not in known:
            rnd = store.find_round(round_id)
            known[round_id] = (rnd, rebuild(rnd) if rnd is not None else None)
        return known[round_id]

    return lookup


def log_entry(entry: LogEntry, lookup: RoundLookup, current_round: str | None) -> dict[str, Any]:
    """A device-log entry as the staff reads it (only the staff read the log): its
    :meth:`~croupier.app.records.LogEntry.view`, its card as :func:`log_card` says."""
    shown = entry.view()
    if "card" in shown:
        shown["card"] = log_card(entry, lookup, current_round)
    return shown


def blocked_view(rnd: RoundRecord, engine: RoundEngine | None) -> dict[str, Any] | None:
    """The card that paused the round (staff only), its card ``"??"`` while it would be face down."""
    blocked = rnd.blocked
    if not blocked:
        return None
    out = dict(blocked)
    if out.get("card") is not None and unplaced_hidden(rnd, engine):
        out["card"] = HIDDEN
    return out


# --- pauses ----------------------------------------------------------------------------------

PAUSE_WORDS = {
    "card-before-betting-closed": "a card was dealt before betting closed",
    "card-out-of-turn": "a card was dealt out of turn",
    "card-refused": "a card could not be accepted",
    "no-card-in-time": "the next card did not arrive in time",
    "internal-error": "a technical problem",
    "supervisor": "the supervisor paused the round",
}
"""A pause's stable code -> what players are told (plain English, no card, scan or log detail)."""
PAUSE_DEFAULT = "the round is paused"


def pause_words(code: str | None) -> str:
    return PAUSE_WORDS.get(code or "", PAUSE_DEFAULT)


def pause_reason(rnd: RoundRecord, who: Identity) -> str | None:
    """Why the round is paused, as ``who`` may read it: the stored reason for its table's staff,
    the code's plain words for everyone else."""
    if not rnd.paused or staff_of(who, rnd.table_id):
        return rnd.pause_reason
    return pause_words(rnd.pause_code)


# --- pushed events ---------------------------------------------------------------------------


def may_receive(event: dict[str, Any], who: Identity) -> bool:
    """Whether ``who`` may receive the event: ``public`` to everyone watching, ``staff`` to the
    table's staff, ``player`` events to that player only."""
    audience = event.get("audience", "public")
    if audience == "public":
        return True
    if audience == "staff":
        return staff_of(who, event.get("table_id"))
    return who.role == "player" and who.subject == event.get("player")


def event_for(event: dict[str, Any], who: Identity) -> dict[str, Any]:
    """The event as ``who`` receives it: without its staff-only fields unless staff of its table;
    a pause's reason in the players' words."""
    staff = staff_of(who, event.get("table_id"))
    hidden = event.get("staff_fields") or []
    out = {k: v for k, v in event.items() if k != "staff_fields" and (staff or k not in hidden)}
    if not staff and event.get("type") == "round-paused":
        out["reason"] = pause_words(event.get("code"))
    return out
