"""Push to every screen: WebSocket connections, what they watch, and the fan-out of table events.

A screen connects to the WebSocket API with its token in the query string (``?token=``: browsers
cannot set headers on a WebSocket), then subscribes to tables (``{"action": "subscribe",
"tables": ["bac-1"]}``; a supervisor or operator may watch ``"*"``, every table). On subscribing
it is sent a snapshot of each table (the table, its round and its roads, as its role may see
them), then every event of the table as it happens (:mod:`croupier.app.live`), in order: a
message is ``{"id": ..., "events": [...]}``. Delivery is at least once (a push function that dies
after posting is run again): a message delivered again has the same ``id``, and a screen drops a
message whose ``id`` it has seen.

The fan-out is built for thousands of screens per table. A table's watchers are spread over
``PUSH_SLOTS`` slots (by connection id). For each batch of a table's events the live function
sends one message per slot that has watchers to a FIFO queue (message group ``table:slot``: a
slot's messages stay in order), and push functions post each slot's connections in parallel,
each on its own threads. Nothing of this is on the game's path: a slow or gone screen never delays
a round. A connection that is gone (410) is removed with its subscriptions.

What a connection receives is what its role may see: ``public`` events to everyone, ``staff``
events (the device log) to dealer consoles of that table, supervisors and operators, a player's
own bets only to that player.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from . import store
from .config import settings
from .errors import Forbidden, StateConflict
from .identity import Identity

SLOTS_DEFAULT = 8
CONNECTION_HOURS = 2
"""API Gateway closes a WebSocket connection after two hours: its items expire then."""
EVERY_TABLE = "*"
_clients: dict[str, Any] = {}
_pool: list[ThreadPoolExecutor] = []


def _management() -> Any:
    client = _clients.get("management")
    if client is None:
        client = _clients["management"] = boto3.client(
            "apigatewaymanagementapi", endpoint_url=settings().websocket_endpoint,
            config=Config(connect_timeout=1, read_timeout=2, retries={"max_attempts": 1}))
    return client


def _sqs() -> Any:
    client = _clients.get("sqs")
    if client is None:
        client = _clients["sqs"] = boto3.client("sqs")
    return client


def reset_clients() -> None:
    _clients.clear()


def slot_of(connection_id: str, slots: int) -> int:
    return int(hashlib.sha256(connection_id.encode()).hexdigest()[:8], 16) % slots


def _watch_key(table: str, slot: int, connection_id: str) -> dict[str, str]:
    return {"pk": f"WATCH#{table}", "sk": f"{slot:03d}#{connection_id}"}


def _slots_key(table: str) -> dict[str, str]:
    return {"pk": f"WATCH#{table}", "sk": "SLOTS"}


def _slot_name(slot: int) -> str:
    """The attribute of a table's ``SLOTS`` item counting the watchers of one slot."""
    return f"slot{slot:03d}"


def _connection_key(connection_id: str) -> dict[str, str]:
    return {"pk": f"CONN#{connection_id}", "sk": "META"}


# --- the WebSocket routes --------------------------------------------------------------------


def connect(connection_id: str, who: Identity) -> None:
    expires = int(time.time()) + CONNECTION_HOURS * 3600
    store.game_table().put_item(Item={
        **_connection_key(connection_id), "connection_id": connection_id, "subject": who.subject, "role": who.role,
        "account_kind": who.account_kind, "table": who.table, "tables": [], "slots": settings().push_slots,
        "connected_at": store.now_ms(), "expires_at": expires})


def _connection(connection_id: str) -> dict[str, Any]:
    item = store.get(store.game_table(), _connection_key(connection_id))
    if item is None:
        raise StateConflict("this connection is not known (connect again)", reason="no-connection")
    return item


def identity_of(connection: dict[str, Any]) -> Identity:
    return Identity(connection["subject"], connection["role"], connection.get("account_kind") or "real",
                    connection.get("table"))


def subscribe(connection_id: str, tables: Sequence[str]) -> list[str]:
    """Watch ``tables`` (``"*"``: every table, staff only). Returns the tables now watched."""
    connection = _connection(connection_id)
    who = identity_of(connection)
    for table in tables:
        if table == EVERY_TABLE:
            if who.role not in ("supervisor", "operator"):
                raise Forbidden("only a supervisor or an operator watches every table", reason="wrong-role")
        else:
            store.load_table(table)  # 404 for a table that does not exist
    slots = int(connection.get("slots") or settings().push_slots)
    slot = slot_of(connection_id, slots)
    watched = list(dict.fromkeys([*connection.get("tables", []), *tables]))
    for table in tables:
        if table in connection.get("tables", []):
            continue
        store.game_table().put_item(Item={**_watch_key(table, slot, connection_id), "connection_id": connection_id,
                                          "subject": who.subject, "role": who.role, "table": who.table,
                                          "expires_at": int(connection["expires_at"])})
        store.game_table().update_item(Key=_slots_key(table), UpdateExpression="ADD #s :one",
                                       ExpressionAttributeNames={"#s": _slot_name(slot)},
                                       ExpressionAttributeValues={":one": 1})
    store.game_table().update_item(Key=_connection_key(connection_id), UpdateExpression="SET tables = :t",
                                   ExpressionAttributeValues={":t": watched})
    return watched


def unsubscribe(connection_id: str, tables: Iterable[str] | None = None) -> None:
    """Stop watching ``tables`` (all of them when None: the connection is gone)."""
    connection = store.get(store.game_table(), _connection_key(connection_id))
    if connection is None:
        return
    slots = int(connection.get("slots") or settings().push_slots)
    slot = slot_of(connection_id, slots)
    leaving = list(connection.get("tables", []) if tables is None else tables)
    for table in leaving:
        if table not in connection.get("tables", []):
            continue
        # the watch and its slot's count go together: two pushes finding the same screen gone
        # both unsubscribe it; one of them removes the watch, and the count is down by then
        name = settings().game_table
        try:
            store.write([
                {"Delete": {"TableName": name, "Key": _watch_key(table, slot, connection_id),
                            "ConditionExpression": "attribute_exists(pk)"}},
                {"Update": {"TableName": name, "Key": _slots_key(table), "UpdateExpression": "ADD #s :minus",
                            "ExpressionAttributeNames": {"#s": _slot_name(slot)},
                            "ExpressionAttributeValues": {":minus": -1}}}])
        except store.Conflict:
            continue
    if tables is None:
        store.game_table().delete_item(Key=_connection_key(connection_id))
    else:
        store.game_table().update_item(
            Key=_connection_key(connection_id), UpdateExpression="SET tables = :t",
            ExpressionAttributeValues={":t": [t for t in connection.get("tables", []) if t not in leaving]})


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


def sees(event: dict[str, Any], watcher: dict[str, Any]) -> bool:
    """Whether a watcher (a connection's role and subject) may receive the event."""
    audience = event.get("audience", "public")
    if audience == "public":
        return True
    if audience == "staff":
        return _staff_of(watcher, event["table_id"])
    return watcher.get("role") == "player" and watcher.get("subject") == event.get("player")


def _staff_of(watcher: dict[str, Any], table_id: str) -> bool:
    role = watcher.get("role")
    return role in ("supervisor", "operator") or (role == "dealer" and watcher.get("table") == table_id)


def shown(event: dict[str, Any], watcher: dict[str, Any]) -> dict[str, Any]:
    """The event as the watcher receives it: without its staff-only fields, unless staff."""
    hidden = event.get("staff_fields") or []
    staff = _staff_of(watcher, event["table_id"])
    return {k: v for k, v in event.items() if k != "staff_fields" and (staff or k not in hidden)}


def fan_out(table_id: str, events: list[dict[str, Any]]) -> int:
    """Hand a table's events to the push queue: one message per slot with watchers, for this
    table and for the screens watching every table. Returns the messages sent."""
    if not events or not settings().push_queue_url:
        return 0
    entries = []
    for watched in (table_id, EVERY_TABLE):
        counts = store.get(store.game_table(), _slots_key(watched)) or {}
        for name, count in sorted(counts.items()):
            if name.startswith("slot") and int(count) > 0:
                entries.append({"watched": watched, "slot": int(name[4:])})
    text = json.dumps(events, sort_keys=True, default=str)
    body = {"table_id": table_id, "id": hashlib.sha256(f"{table_id}\n{text}".encode()).hexdigest()[:20],
            "events": events}
    for start in range(0, len(entries), 10):
        batch = entries[start:start + 10]
        _sqs().send_message_batch(QueueUrl=settings().push_queue_url, Entries=[
            {"Id": str(i), "MessageBody": json.dumps({**body, **entry}, default=str),
             "MessageGroupId": f"{entry['watched']}:{entry['slot']}"} for i, entry in enumerate(batch)])
    return len(entries)


def watchers(table: str, slot: int) -> Iterable[dict[str, Any]]:
    return store.query_all(store.game_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                           ExpressionAttributeValues={":p": f"WATCH#{table}", ":s": f"{slot:03d}#"})


def deliver(table_id: str, watched: str, slot: int, events: list[dict[str, Any]], message_id: str) -> dict[str, int]:
    """Post a table's events to one slot's watchers (each only what it may see), in parallel, as
    the message ``message_id`` (the same id each time these events are delivered again)."""
    if not _pool:
        _pool.append(ThreadPoolExecutor(settings().push_workers, thread_name_prefix="push"))

    def one(watcher: dict[str, Any]) -> str:
        mine = [shown(e, watcher) for e in events if sees(e, watcher)]
        if not mine:
            return "none"
        try:
            return "sent" if send(watcher["connection_id"], {"id": message_id, "events": mine}) else "gone"
        except ClientError:
            return "failed"  # a screen that cannot take it now: it resyncs from the round's seq

    outcomes = list(_pool[0].map(one, watchers(watched, slot)))
    return {k: outcomes.count(k) for k in ("sent", "gone", "failed", "none")}
