"""Push to every screen: WebSocket connections, what they watch, and the fan-out of table events.

A screen connects to the WebSocket API with its token in the query string (``?token=``: browsers
cannot set headers on a WebSocket), then subscribes to tables (``{"action": "subscribe",
"tables": ["bac-1"]}``; a supervisor or operator may watch ``"*"``, every table). On subscribing
it is sent a snapshot of each table (the table, its round and its roads, as its role may see
them), then every event of the table as it happens (:mod:`croupier.app.live`), in order: a
message is ``{"id": ..., "events": [...]}``. Delivery is at least once (a push function that dies
after posting is run again): a message delivered again has the same ``id``, and a screen drops a
message whose ``id`` it has seen. The id names the delivery, not its content: it is made once,
where the message is produced (from the stream record's own id, which a retry of the record
keeps), so two different changes never share one, and it is computed from nothing the recipient
may not see (:func:`message_id`).

The fan-out is built for thousands of screens per table. A table's watchers fill slots in order:
a slot takes ``PUSH_SLOT_WATCHERS`` of them before the next is opened, up to ``PUSH_SLOTS`` slots
(then each new watcher joins the least filled), and each connection keeps the slot it joined for
each table it watches. For each change's public events the live function sends
one message per slot that has watchers to a FIFO queue (message group ``table:slot``: a slot's
messages stay in order), and push functions post each slot's connections in parallel, each on its
own threads. A change whose events are for the staff only (the device log) or for one player only
(that player's bets) is not sent to the slots: each watch is also kept under its audience (a
player's under its subject, a staff member's under staff), the live function reads just the
watchers that audience has and sends them one message naming them, and the push posts to those
without reading any slot; nobody of that audience watching, nothing is sent. Nothing of this is on
the game's path: a slow or gone screen never delays a round. A connection that is gone (410) is
removed with its subscriptions.

What a connection receives is what its role may see (:mod:`croupier.app.visibility`): ``public``
events to everyone, ``staff`` events (the device log) to dealer consoles of that table,
supervisors and operators, a player's own bets only to that player.

A connection is counted once per table however often it subscribes (the watch, its slot's count
and the connection's list change in one transaction, only if it did not watch the table yet), it
watches at most :data:`MAX_TABLES` tables, and it lives no longer than its token: past the token's
expiry nothing more is pushed to it and it is closed, unless it sent a fresh token before
(:func:`reauthenticate`).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from . import aws, clock, keys, store, visibility
from .aws import boto3
from .config import settings
from .errors import Forbidden, StateConflict, Unauthorized
from .identity import Identity
from .records import Connection, Watcher

SLOTS_DEFAULT = 8
CONNECTION_HOURS = 2
"""API Gateway closes a WebSocket connection after two hours: its items expire then."""
EVERY_TABLE = "*"
MAX_TABLES = 50
"""Tables one connection may watch (``"*"`` counts as one): the lobby's page watches up to 50."""
_clients = aws.Clients()
_pool: dict[int, ThreadPoolExecutor] = {}
"""The posting threads, by their number: made once per Lambda environment."""


def _management() -> Any:
    return _clients.made("management", lambda: boto3.client(
        "apigatewaymanagementapi", endpoint_url=settings().websocket_endpoint,
        config=Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 1})))


def _sqs() -> Any:
    return _clients.made("sqs", lambda: boto3.client("sqs"))


def reset_clients() -> None:
    _clients.clear()


def slot_of(connection_id: str, slots: int) -> int:
    """The slot of a connection made before slots were filled in order (by its id's hash)."""
    return int(hashlib.sha256(connection_id.encode()).hexdigest()[:8], 16) % slots


def slot_at(connection: Connection, table: str) -> int:
    """The slot of the connection's watch of ``table``: the one it joined (kept on the
    connection), or its hash's for a connection made before slots were filled in order."""
    joined = (connection.slot_at or {}).get(table)
    if joined is not None:
        return joined
    return slot_of(connection.connection_id, connection.slots or settings().push_slots)


def _slot_to_join(table: str, slots: int) -> tuple[int, int | None]:
    """The slot a new watcher of ``table`` joins: the first with fewer than
    ``PUSH_SLOT_WATCHERS`` watchers; when every slot has as many, the least filled. With the count
    the slot must still be below when the watcher joins it (None: the least filled, no limit)."""
    counts = store.get(store.game_table(), keys.slots_key(table)) or {}
    filled = [int(counts.get(_slot_name(s)) or 0) for s in range(slots)]
    room = settings().push_slot_watchers
    for slot, count in enumerate(filled):
        if count < room:
            return slot, room
    return min(range(slots), key=filled.__getitem__), None


def _slot_name(slot: int) -> str:
    """The attribute of a table's ``SLOTS`` item counting the watchers of one slot."""
    return f"slot{slot:03d}"


def _audience_keys(table: str, who: Identity, connection_id: str) -> list[dict[str, str]]:
    """The keys by which a watch of ``table`` is found for the events that are not public: a
    player's under its subject, a staff member's (of that table, or of every table) under staff.
    A watcher who is neither receives public events only, and has none."""
    found = []
    if who.role == "player":
        found.append({"pk": keys.watch_pk(table), "sk": f"{keys.player_watch(who.subject)}{connection_id}"})
    if visibility.staff_of(who, None if table == EVERY_TABLE else table):
        found.append({"pk": keys.watch_pk(table), "sk": f"{keys.STAFF}{connection_id}"})
    return found


# --- the WebSocket routes --------------------------------------------------------------------


def connect(connection_id: str, who: Identity, token_expires_at: int | None = None) -> None:
    """Keep a connection that presented a valid token: who it is, and until when (the token's
    ``exp``, seconds since the epoch; at most the connection's two hours)."""
    expires = clock.now_s() + CONNECTION_HOURS * 3600
    store.put_connection(Connection(connection_id, who.subject, who.role, who.account_kind, who.table, expires,
                                    min(expires, int(token_expires_at or expires)), slots=settings().push_slots,
                                    connected_at=store.now_ms()))


def token_expired(until: int | None, now: float | None = None) -> bool:
    """Has a token that expires at ``until`` (seconds since the epoch; None: never said) expired?"""
    return until is not None and until <= int(now if now is not None else clock.now_s())


def reauthenticate(connection_id: str, who: Identity, token_expires_at: int) -> int:
    """A fresh token for a connection: the same subject, role and table (anything else is a
    new connection's business), a later expiry for the connection and every watch of it.
    Returns the new expiry."""
    connection = _connection(connection_id)
    known = identity_of(connection)
    if (known.subject, known.role, known.table) != (who.subject, who.role, who.table):
        raise Forbidden("this token is not the connection's (another subject, role or table): connect again",
                        reason="not-this-connection")
    until = min(connection.expires_at, int(token_expires_at))
    for table in connection.tables:
        watch = keys.watch_key(table, slot_at(connection, table), connection_id)
        for key in (watch, *_audience_keys(table, known, connection_id)):
            store.extend_token(key, until, if_there=True)  # a watch gone meanwhile stays gone
    store.extend_token(keys.connection_key(connection_id), until)
    return until


def close(connection_id: str, message: dict[str, Any] | None = None) -> None:
    """Close a connection (its token expired): tell it why, forget it and its watches, and ask
    API Gateway to close it when the role may (``SCREENS_CAN_CLOSE``)."""
    if message is not None:
        with contextlib.suppress(ClientError):
            send(connection_id, message)
    unsubscribe(connection_id)  # forgotten: nothing more is pushed to it, and its messages are refused
    if settings().screens_can_close:
        with contextlib.suppress(ClientError):  # gone already: forgotten all the same
            _management().delete_connection(ConnectionId=connection_id)


def _connection(connection_id: str) -> Connection:
    connection = store.connection_of(connection_id)
    if connection is None:
        raise StateConflict("this connection is not known (connect again)", reason="no-connection")
    return connection


def identity_of(connection: Connection) -> Identity:
    return Identity(connection.subject, connection.role, connection.account_kind, connection.table)


def live_connection(connection_id: str) -> Connection:
    """The connection, if its token has not expired (else it is closed, and 401)."""
    connection = _connection(connection_id)
    if token_expired(connection.token_expires_at):
        close(connection_id, {"type": "error", "reason": "expired-token",
                              "message": "the token has expired: connect again with a fresh one"})
        raise Unauthorized("the token has expired: connect again with a fresh one", reason="expired-token")
    return connection


MESSAGES_PER_SECOND = 5
"""Messages one connection may send per second (a page sends one subscribe per connection)."""


def admit(connection_id: str) -> None:
    """Count one message of the connection in its current second; over
    :data:`MESSAGES_PER_SECOND`, refused (``too-many-messages``) before anything is done."""
    if not store.count_message(connection_id, clock.now_s(), MESSAGES_PER_SECOND):
        _connection(connection_id)  # not known: say so
        raise StateConflict(f"at most {MESSAGES_PER_SECOND} messages a second per connection: this one was not "
                            "read; send it again in a moment", reason="too-many-messages") from None


def subscribe(connection_id: str, tables: Sequence[str]) -> list[str]:
    """Watch ``tables`` (``"*"``: every table, staff only), each once however often it is asked
    for, at most :data:`MAX_TABLES` in all. Returns the tables now watched."""
    tables = list(dict.fromkeys(tables))
    connection = live_connection(connection_id)
    who = identity_of(connection)
    new = [t for t in tables if t not in connection.tables]
    if len(connection.tables) + len(new) > MAX_TABLES:
        raise StateConflict(f"a connection watches at most {MAX_TABLES} tables; this one watches "
                            f"{len(connection.tables)}: unsubscribe some first", reason="too-many-tables")
    for table in tables:
        if table == EVERY_TABLE:
            if who.role not in ("supervisor", "operator"):
                raise Forbidden("only a supervisor or an operator watches every table", reason="wrong-role")
        else:
            store.load_table(table)  # 404 for a table that does not exist
    for table in new:
        _watch(connection, who, table)
    after = store.connection_of(connection_id)
    return list(after.tables) if after else []


def _watch(connection: Connection, who: Identity, table: str) -> None:
    """Add one table to a connection's watches. The watch, its audience's items, its slot's count
    and the connection's list (and the slot it joined) go together, and only if the connection did
    not watch the table yet, watches fewer than MAX_TABLES, and the slot still has room: a request
    repeated, or two at once, count it once; a slot filled meanwhile is chosen again."""
    connection_id = connection.connection_id
    slots = connection.slots or settings().push_slots
    in_order = connection.slot_at is not None  # else a connection made before slots were filled in order
    watcher = Watcher(connection_id, who.subject, who.role, who.account_kind, who.table, connection.expires_at,
                      connection.token_expires_at)
    for attempt in range(slots + 1):
        slot, below = _slot_to_join(table, slots) if in_order else (slot_of(connection_id, slots), None)
        if attempt == slots:  # the slots filled as fast as they were chosen: the least filled, no limit
            below = None
        try:
            store.write(store.watch_ops(table, slot, below, watcher, _audience_keys(table, who, connection_id),
                                        most_tables=MAX_TABLES, slot_name=_slot_name(slot), in_order=in_order))
            return
        except store.Conflict:
            now = store.connection_of(connection_id)
            if now is None:
                raise StateConflict("this connection is not known (connect again)", reason="no-connection") from None
            if table in now.tables:
                return  # it watches the table already: another request of it was first
            if len(now.tables) >= MAX_TABLES:
                raise StateConflict(f"a connection watches at most {MAX_TABLES} tables: unsubscribe some first",
                                    reason="too-many-tables") from None
            # else the slot filled meanwhile: choose again


def unsubscribe(connection_id: str, tables: Iterable[str] | None = None) -> None:
    """Stop watching ``tables`` (all of them when None: the connection is gone)."""
    connection = store.connection_of(connection_id)
    if connection is None:
        return
    leaving = list(connection.tables if tables is None else tables)
    for table in leaving:
        if table not in connection.tables:
            continue
        slot = slot_at(connection, table)
        # the watch and its slot's count go together: two pushes finding the same screen gone
        # both unsubscribe it; one of them removes the watch, and the count is down by then
        try:
            store.write(store.unwatch_ops(table, slot, connection_id,
                                          _audience_keys(table, identity_of(connection), connection_id),
                                          _slot_name(slot)))
        except store.Conflict:
            continue
    if tables is None:
        store.forget_connection(connection_id)
    else:
        kept = [t for t in connection.tables if t not in leaving]
        joined = {t: s for t, s in (connection.slot_at or {}).items() if t in kept}
        store.set_watched(connection_id, kept, joined if connection.slot_at is not None else None)


def send(connection_id: str, message: dict[str, Any]) -> bool:
    """Post one message; False (and the connection forgotten) if the screen is gone."""
    try:
        _management().post_to_connection(ConnectionId=connection_id, Data=json.dumps(message).encode())
    except ClientError as exc:
        code = exc.response["Error"]["Code"]
        if code in ("GoneException", "410") or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 410:
            unsubscribe(connection_id)
            return False
        raise
    return True


# --- the fan-out -----------------------------------------------------------------------------


def sees(event: dict[str, Any], watcher: Watcher) -> bool:
    """Whether a watcher (a connection's role, subject and table) may receive the event."""
    return visibility.may_receive(event, visibility.watcher_identity(watcher))


def shown(event: dict[str, Any], watcher: Watcher) -> dict[str, Any]:
    """The event as the watcher receives it (:func:`croupier.app.visibility.event_for`)."""
    return visibility.event_for(event, visibility.watcher_identity(watcher))


def message_id(source: str | None) -> str:
    """A message's id, made once where it is produced: from ``source``, the stream record's own
    id (a retried record keeps it, so a redelivery keeps its id), hashed so that it says nothing
    but itself; without one, a fresh random id. Never a digest of the events: the id must not
    let a recipient test guesses about what was withheld from it."""
    if not source:
        return uuid.uuid4().hex[:20]
    return hashlib.sha256(f"croupier-push\n{source}".encode()).hexdigest()[:20]


TARGETED_PER_MESSAGE = 100
"""Watchers named in one targeted message (each a few hundred bytes: far below SQS's 256 KB)."""


def audience_of(events: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Who a change's events are for, when none of them is public: ``("staff", "")`` or
    ``("player", subject)``. None when any is public (or they are for different audiences): then
    they go to every slot of watchers, each watcher receiving what it may see."""
    targets = {("staff", "") if e.get("audience") == "staff" else ("player", str(e.get("player") or ""))
               for e in events if e.get("audience", "public") != "public"}
    if len(targets) != 1 or any(e.get("audience", "public") == "public" for e in events):
        return None
    return targets.pop()


def audience_watchers(watched: str, audience: tuple[str, str]) -> list[Watcher]:
    """The watchers of ``watched`` (a table, or every table) whom events for ``audience`` reach."""
    kind, subject = audience
    if kind == "player" and watched == EVERY_TABLE:
        return []  # only staff watch every table
    prefix = keys.STAFF if kind == "staff" else keys.player_watch(subject)
    # read as the slot counts are read: a watch just made counts
    return list(store.watches(watched, prefix, consistent=True))


def slots_watched(watched: str) -> list[int]:
    """The slots of ``watched`` (a table, or every table) that have watchers."""
    counts = store.get(store.game_table(), keys.slots_key(watched)) or {}
    return [int(name[4:]) for name, count in sorted(counts.items()) if name.startswith("slot") and int(count) > 0]


class Reach:
    """Whom a batch of changes reaches: each table's slots with watchers and each audience's
    watchers, read when first needed and then kept for the rest of the batch (one invocation of
    the live function).

    Reading once per batch reaches every screen that reading per change would: every change of
    the batch was committed before the batch was handed over, so before the first read. A screen
    whose watch is made after that read missed none of the batch's events, because its snapshot,
    read after its watch was made, already shows every change of the batch."""

    def __init__(self) -> None:
        self._slots: dict[str, list[int]] = {}
        self._audiences: dict[tuple[str, str, str], list[Watcher]] = {}

    def slots(self, watched: str) -> list[int]:
        if watched not in self._slots:
            self._slots[watched] = slots_watched(watched)
        return self._slots[watched]

    def watchers(self, watched: str, audience: tuple[str, str]) -> list[Watcher]:
        key = (watched, *audience)
        if key not in self._audiences:
            self._audiences[key] = audience_watchers(watched, audience)
        return self._audiences[key]


def fan_out(table_id: str, events: list[dict[str, Any]], message: str | None = None,
            reach: Reach | None = None) -> int:
    """Hand a table's events to the push queue, for this table's watchers and for the screens
    watching every table, each message with the id ``message`` (see :func:`message_id`; a fresh
    one if None). Public events: one message per slot with watchers (message group
    ``watched:slot``). Events for the staff or for one player only: one message naming the
    watchers they reach (group ``watched:staff`` or ``watched:player:<subject>``), none when
    nobody of that audience watches. Whom they reach is read through ``reach`` (the batch's
    :class:`Reach`; a fresh one if None). Returns the messages sent."""
    if not events or not settings().push_queue_url:
        return 0
    body = {"table_id": table_id, "id": message or message_id(None), "events": events}
    entries: list[tuple[str, dict[str, Any]]] = []
    audience = audience_of(events)
    reach = reach or Reach()
    for watched in (table_id, EVERY_TABLE):
        if audience is not None:
            reached = reach.watchers(watched, audience)
            group = f"{watched}:{audience[0]}" + (f":{audience[1]}" if audience[1] else "")
            entries.extend((group, {"watched": watched,
                                    "to": [w.attributes() for w in reached[i:i + TARGETED_PER_MESSAGE]]})
                           for i in range(0, len(reached), TARGETED_PER_MESSAGE))
            continue
        entries.extend((f"{watched}:{slot}", {"watched": watched, "slot": slot}) for slot in reach.slots(watched))
    for start in range(0, len(entries), 10):
        batch = entries[start:start + 10]
        answer = _sqs().send_message_batch(QueueUrl=settings().push_queue_url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps({**body, **entry}, default=str), "MessageGroupId": group}
            for i, (group, entry) in enumerate(batch)])
        if answer.get("Failed"):
            raise NotQueued(answer["Failed"], len(batch))
    return len(entries)


class NotQueued(Exception):
    """SQS answered a batch of push messages with some of them not sent (``Failed``). The change's
    record fails, and the stream hands it again: its messages are sent again, each with the same
    body, and the queue drops those it has already (content-based deduplication, five minutes)."""

    def __init__(self, failed: list[dict[str, Any]], sent: int) -> None:
        codes = sorted({str(f.get("Code")) for f in failed})
        super().__init__(f"{len(failed)} of {sent} push messages not queued ({', '.join(codes)})")


def watchers(table: str, slot: int) -> Iterable[Watcher]:
    return store.watches(table, keys.watch_slot(slot))


def deliver(table_id: str, watched: str, slot: int | None, events: list[dict[str, Any]], message_id: str,
            to: Sequence[Watcher] | None = None) -> dict[str, int]:
    """Post a table's events to the watchers ``to`` (a targeted message names them), or else to
    one slot's watchers (read from the store); each receives only what it may see, in parallel,
    as the message ``message_id`` (the same id each time these events are delivered again)."""
    now = clock.current().time()

    def one(watcher: Watcher) -> str:
        if token_expired(watcher.token_until, now):  # its token ran out: nothing more for it, and it is closed
            close(watcher.connection_id, {"type": "error", "reason": "expired-token",
                                          "message": "the token has expired: connect again with a fresh one"})
            return "expired"
        mine = [shown(e, watcher) for e in events if sees(e, watcher)]
        if not mine:
            return "none"
        try:
            return "sent" if send(watcher.connection_id, {"id": message_id, "events": mine}) else "gone"
        except (ClientError, BotoCoreError):  # refused, or not reached in time (a slow screen's endpoint)
            return "failed"  # a screen that cannot take it now: it resyncs from the round's seq

    if to is not None:
        reached: Iterable[Watcher] = to
    elif slot is not None:
        reached = watchers(watched, slot)
    else:
        raise ValueError("a delivery names its slot or its watchers")
    workers = settings().push_workers
    if workers <= 1:  # one at a time, in this thread (a simulation's, whose order is its seed's)
        outcomes = [one(w) for w in reached]
    else:  # each in a copy of this context: a simulation's AWS and settings reach the pool's threads
        pool = _pool.get(workers) or _pool.setdefault(workers, ThreadPoolExecutor(workers, thread_name_prefix="push"))
        outcomes = [f.result() for f in [pool.submit(contextvars.copy_context().run, one, w) for w in reached]]
    return {k: outcomes.count(k) for k in ("sent", "gone", "failed", "none", "expired")}
