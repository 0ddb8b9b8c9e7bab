"""Patches that make moto fit for a running application (local stack only).

1. moto's DynamoDB is not thread-safe (a transaction copies a table while another request writes
   it); DynamoDB itself is. Its requests are serialized.
2. Before a transaction moto deep-copies every table the transaction touches, once per item, to
   roll back on failure: a 10-item transaction on a 1,000-item table copies 10,000 items. The
   snapshot here copies only the items the transaction writes (the rest is shared, untouched),
   which is just as correct a rollback and keeps a round's cost flat as the tables grow; and it
   copies each table once per transaction, where moto copies it once per item.
3. EventBridge resolves a target's ``SqsParameters.MessageGroupId`` given as a dynamic path
   (``$.detail.table_id``) in each event; moto uses it as a literal group name, which would put
   every table's events in one FIFO group.
4. EventBridge delivers a target the whole event; moto's default input template leaves out its
   ``account``, which the event's model (Powertools' ``EventBridgeModel``) requires.
"""

from __future__ import annotations

import copy
import threading
from collections import Counter, defaultdict
from typing import Any

_state = threading.local()
_applied: dict[str, bool] = {}
counters: Counter[str] = Counter()
"""DynamoDB requests served, by operation, and the items they read or wrote (for the benchmark)."""


def apply() -> None:
    if _applied.get("done"):
        return
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    call_action = DynamoHandler.call_action

    def serialized(self: Any) -> Any:
        with lock:
            result = call_action(self)
            _count(self)
            return result

    transact = DynamoDBBackend.transact_write_items

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        touched: dict[str, dict[Any, set[Any]]] = defaultdict(lambda: defaultdict(set))
        for entry in transact_items:
            op = next(iter(entry.values()))
            table = self.tables.get(op.get("TableName"))
            if table is None:
                continue
            source = op.get("Key") or op.get("Item") or {}
            if table.hash_key_attr in source:
                sort = source.get(table.range_key_attr) if table.range_key_attr else None
                touched[table.name][DynamoType(source[table.hash_key_attr])].add(
                    DynamoType(sort) if sort is not None else None)
        _state.touched, _state.copies = touched, {}
        try:
            return transact(self, transact_items)
        finally:
            _state.touched = _state.copies = None

    def table_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
        touched = getattr(_state, "touched", None)
        if touched is None:  # any other copy (backups ...): a real deep copy
            new = type(self).__new__(type(self))  # type: ignore[call-overload]
            memo[id(self)] = new
            for key, value in self.__dict__.items():
                new.__dict__[key] = copy.deepcopy(value, memo)
            return new
        if id(self) in _state.copies:  # moto snapshots a table once per item: once is enough
            return _state.copies[id(self)]
        written = touched.get(self.name, {})
        new = copy.copy(self)
        items: Any = copy.copy(self.items)  # the partitions this transaction does not write are shared
        for hash_value, sorts in written.items():
            partition = self.items.get(hash_value)
            if partition is None:
                continue
            if not self.has_range_key:
                items[hash_value] = copy.deepcopy(partition)
                continue
            items[hash_value] = dict(partition)
            for sort in sorts:
                if sort in partition:
                    items[hash_value][sort] = copy.deepcopy(partition[sort])
        new.items = items
        _state.copies[id(self)] = new
        return new

    from moto.events.models import Rule
    from moto.events.utils import EventTemplateParser

    if '"account"' not in EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE:
        EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE = EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE.replace(
            '"version": "0",', '"version": "0", "account": "<account>",')

    send_to_queue = Rule._send_to_sqs_queue

    def send_to_group(self: Any, resource_id: str, event: dict[str, Any], group_id: str | None = None) -> None:
        return send_to_queue(self, resource_id, event, event_path(event, group_id))

    Rule._send_to_sqs_queue = send_to_group  # type: ignore[method-assign]
    DynamoHandler.call_action = serialized  # type: ignore[method-assign]
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    Table.__deepcopy__ = table_deepcopy  # type: ignore[attr-defined]
    _applied["done"] = True


def event_path(event: dict[str, Any], value: str | None) -> str | None:
    """A target parameter as EventBridge reads it: ``$.a.b`` is the event's value at that path
    (kept as written when the event has none there); any other value is itself."""
    if not value or not value.startswith("$."):
        return value
    found: Any = event
    for part in value[2:].split("."):
        found = found.get(part) if isinstance(found, dict) else None
    return str(found) if isinstance(found, str | int) and found != "" else value


def _count(handler: Any) -> None:
    """Count read and write request units the way on-demand DynamoDB bills them (items of up to
    1 KB written, 4 KB read; transactions cost double), approximately: one unit per item."""
    action = getattr(handler, "_get_action", lambda: "")() or ""
    body = getattr(handler, "body", {}) or {}
    counters[f"op:{action}"] += 1
    if action == "TransactWriteItems":
        counters["write_units"] += 2 * len(body.get("TransactItems", []))
    elif action in ("PutItem", "UpdateItem", "DeleteItem"):
        counters["write_units"] += 1
    elif action == "BatchWriteItem":
        counters["write_units"] += sum(len(v) for v in body.get("RequestItems", {}).values())
    elif action in ("GetItem", "Query", "Scan", "TransactGetItems", "BatchGetItem"):
        counters["read_requests"] += 1
