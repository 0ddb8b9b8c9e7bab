"""What a stretch of play on the local stack makes AWS bill, measured from the calls it made.

A :class:`Meter` sees every AWS call of this process (after boto3 has serialised it) and every
Lambda invocation of the local stack, and counts them in the units AWS bills them by:

- **DynamoDB** request units from the items' sizes, by DynamoDB's sizing rules (:func:`item_size`):
  a write is 1 unit per KB (rounded up) of the larger of the item before and after, a read 1 unit
  per 4 KB of what it returns (half for an eventually consistent read), both doubled inside a
  transaction; a write also writes each global secondary index that holds the item, at the size of
  what the index projects. A write refused by its condition is billed as a write. The stream's
  records are free to the Lambda functions that read them.
- **Lambda**: each invocation, and its duration rounded up to the millisecond at its function's
  memory (the template's). Durations are this machine's, with moto answering in-process: an
  approximation of AWS's, which the report says.
- **SQS**: a request per 64 KB of each send by a function; a message the event bus puts on a
  queue; for each batch Lambda takes from a queue, its receive and its delete. The pollers' empty
  receives go on whether rounds are played or not, and are not a round's.
- **EventBridge**: each entry put on a bus, per 64 KB; **API Gateway**: each REST request (an
  invocation of a function behind a route) and each WebSocket message posted to a connection, per
  32 KB.

Step Functions' state transitions are read from the executions' histories
(:mod:`croupier.local.usage`). Functions run on a schedule are not a round's: their calls and
invocations are left out.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from . import iam

_unmetered: contextvars.ContextVar[bool] = contextvars.ContextVar("croupier_meter_off", default=False)

WRITE_UNIT = 1024
READ_UNIT = 4096
SQS_CHUNK = 64 * 1024
EVENT_CHUNK = 64 * 1024
WEBSOCKET_CHUNK = 32 * 1024


# --- DynamoDB's sizes ---------------------------------------------------------------------------
def value_size(value: dict[str, Any]) -> int:
    """The size of one typed attribute value (``{"S": "..."}``, ``{"N": "12"}`` ...) as DynamoDB
    counts it: strings and binaries by their bytes; a number by its significant digits (about one
    byte per two, plus one); booleans and nulls one byte; a map or list 3 bytes plus one per
    element plus its elements (a map's names included)."""
    (kind, data), = value.items()
    if kind == "S":
        return len(str(data).encode("utf-8"))
    if kind == "N":
        return _number_size(str(data))
    if kind == "B":
        return len(data) if isinstance(data, bytes | bytearray) else len(str(data))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(str(s).encode("utf-8")) for s in data)
    if kind == "NS":
        return sum(_number_size(str(n)) for n in data)
    if kind == "BS":
        return sum(len(b) for b in data)
    if kind == "M":
        return 3 + sum(len(k.encode("utf-8")) + value_size(v) + 1 for k, v in data.items())
    if kind == "L":
        return 3 + sum(value_size(v) + 1 for v in data)
    raise ValueError(f"not a DynamoDB attribute value: {kind}")


def _number_size(text: str) -> int:
    digits = Decimal(text).normalize().as_tuple().digits
    significant = len(digits) if any(digits) else 1
    return math.ceil(significant / 2) + 1


def item_size(item: dict[str, Any] | None) -> int:
    """An item's size: its attributes' names (UTF-8 bytes) and values. 0 for no item."""
    if not item:
        return 0
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


def write_units(size: int, *, transactional: bool = False) -> int:
    """Write request units of one item's write: 1 per KB begun (1 at least), double in a transaction."""
    units = max(1, math.ceil(size / WRITE_UNIT))
    return 2 * units if transactional else units


def read_units(size: int, *, consistent: bool, transactional: bool = False) -> float:
    """Read request units of a read returning ``size`` bytes: 1 per 4 KB begun (1 at least) for a
    strongly consistent read, half that for an eventually consistent one, double in a transaction."""
    units = float(max(1, math.ceil(size / READ_UNIT)))
    if transactional:
        return 2 * units
    return units if consistent else units / 2


@dataclass(frozen=True)
class Index:
    """A global secondary index: its key attributes and what it projects."""

    name: str
    keys: tuple[str, ...]
    projection: str  # ALL, KEYS_ONLY, INCLUDE
    included: tuple[str, ...] = ()

    def projected(self, item: dict[str, Any] | None, table_keys: tuple[str, ...]) -> dict[str, Any] | None:
        """What the index holds of ``item``: nothing if the item lacks one of the index's keys."""
        if not item or any(k not in item for k in self.keys):
            return None
        if self.projection == "ALL":
            return item
        wanted = {*self.keys, *table_keys, *(self.included if self.projection == "INCLUDE" else ())}
        return {k: v for k, v in item.items() if k in wanted}


def index_write_units(index: Index, table_keys: tuple[str, ...], before: dict[str, Any] | None,
                      after: dict[str, Any] | None) -> int:
    """What one write of an item costs in one index: nothing if what the index holds of it did not
    change; a put (the new entry's size), a delete (the old one's), or both when its keys changed."""
    old, new = index.projected(before, table_keys), index.projected(after, table_keys)
    if old == new:
        return 0
    if old is None:
        return write_units(item_size(new))
    if new is None:
        return write_units(item_size(old))
    if any(old[k] != new[k] for k in index.keys):
        return write_units(item_size(old)) + write_units(item_size(new))
    return write_units(max(item_size(old), item_size(new)))


# --- the bill ------------------------------------------------------------------------------------
@dataclass
class Usage:
    """What AWS bills, counted: every figure a total over what was metered."""

    lambda_invocations: Counter[str] = field(default_factory=Counter)
    """Per function (its logical id)."""
    lambda_gb_seconds: float = 0.0
    lambda_ms: Counter[str] = field(default_factory=Counter)
    """Billed milliseconds per function."""
    transitions: int = 0
    ddb_write_units: Counter[str] = field(default_factory=Counter)
    """Per caller (a function's logical id, or ``outside``)."""
    ddb_write_units_by_item: Counter[str] = field(default_factory=Counter)
    """Per kind of item written: its keys' prefixes (``ROUND/META``, ``ROUND/BET``, ``WALLET/...``)."""
    ddb_read_units: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    ddb_requests: Counter[str] = field(default_factory=Counter)
    """Per ``service:Operation``... of DynamoDB: ``PutItem``, ``TransactWriteItems`` ..."""
    ddb_requests_by_caller: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    """The same, per caller."""
    sqs_requests: Counter[str] = field(default_factory=Counter)
    """``standard`` and ``fifo`` (priced apart)."""
    events: int = 0
    events_by_caller: Counter[str] = field(default_factory=Counter)
    rest_requests: int = 0
    websocket_messages: int = 0
    websocket_posts_by_function: Counter[str] = field(default_factory=Counter)

    @property
    def invocations(self) -> int:
        return sum(self.lambda_invocations.values())

    @property
    def write_units(self) -> int:
        return int(sum(self.ddb_write_units.values()))

    @property
    def read_units(self) -> float:
        return float(sum(self.ddb_read_units.values()))


@dataclass(frozen=True)
class _Invocation:
    function: str
    milliseconds: int
    sqs_records: int
    route: bool


class Meter:
    """Counts what the local stack's functions and its devices make AWS bill while it is started:
    ``with Meter(stack) as meter: ...; meter.usage``. One at a time in a process."""

    _active: Meter | None = None
    _installed = False

    def __init__(self, stack: Any) -> None:
        self.stack = stack
        self.usage = Usage()
        self._lock = threading.Lock()
        self._tables: dict[str, tuple[tuple[str, ...], tuple[Index, ...]]] = {}
        self._scheduled = {stack.logical_ids.get(name, name) for name in stack._schedules}
        self._routes = {route.function for route in stack.routes}
        globals_ = stack.template.get("Globals", {}).get("Function", {})
        self._memory = {
            logical: int(spec.get("Properties", {}).get("MemorySize", globals_.get("MemorySize", 128)))
            for logical, spec in stack.template.get("Resources", {}).items()
            if spec.get("Type") == "AWS::Serverless::Function"}

    def __enter__(self) -> Meter:
        _install()
        if _observe not in self.stack.observers:
            self.stack.observers.append(_observe)
        if Meter._active is not None:
            raise RuntimeError("a meter is already running in this process")
        Meter._active = self
        return self

    def __exit__(self, *exc: object) -> None:
        Meter._active = None

    # --- Lambda --------------------------------------------------------------------------------
    def invoked(self, physical: str, event: Any, seconds: float) -> None:
        logical = self.stack.logical_ids.get(physical, physical)
        if logical in self._scheduled:
            return
        records = event.get("Records", []) if isinstance(event, dict) else []
        queues = {str(r.get("eventSourceARN", "")) for r in records
                  if isinstance(r, dict) and r.get("eventSource") == "aws:sqs"}
        began = time.perf_counter() - seconds  # the meter's own reads on this worker, during the invocation
        spent = sum(took for ended, took in getattr(_call, "overhead", ()) if ended >= began)
        _call.overhead = []
        billed = max(1, math.ceil((seconds - spent) * 1000))
        with self._lock:
            u = self.usage
            u.lambda_invocations[logical] += 1
            u.lambda_ms[logical] += billed
            u.lambda_gb_seconds += billed / 1000 * self._memory.get(logical, 128) / 1024
            if physical in self._routes:
                u.rest_requests += 1
            for queue in queues:  # the batch's receive and its delete, by Lambda's poller
                u.sqs_requests[_kind(queue)] += 2

    # --- the calls -----------------------------------------------------------------------------
    def before(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """At a DynamoDB call's final (typed) parameters, before it is sent: the items it writes,
        as they are now."""
        writes = self._writes_of(operation, params)
        return {"operation": operation, "params": params, "writes": writes,
                "before": [self._item(table, key) for table, key, _ in writes]}

    def after(self, client: Any, service: str, operation: str, params: dict[str, Any], sent: dict[str, Any] | None,
              response: dict[str, Any] | None) -> None:
        """After a call (``response`` None: it failed): counts what it is billed."""
        caller = iam.acting() or "outside"
        if caller in self._scheduled:
            return
        if service != "dynamodb":
            if response is not None:
                self._count_other(caller, service, operation, params)
            return
        if sent is None:  # refused before it was sent (its parameters): nothing billed
            return
        writes, before = sent["writes"], sent["before"]
        after = before if response is None else [self._item(table, key) for table, key, _ in writes]
        self._count_writes(caller, operation, writes, before, after)  # a write refused by its condition is billed
        if response is not None:
            self._count_reads(caller, operation, sent["params"], response)
        with self._lock:
            self.usage.ddb_requests[operation] += 1
            self.usage.ddb_requests_by_caller[caller][operation] += 1

    def _count_other(self, caller: str, service: str, operation: str, params: dict[str, Any]) -> None:
        with self._lock:
            u = self.usage
            if service == "events" and operation == "PutEvents":
                for entry in params.get("Entries", []):
                    chunks = max(1, math.ceil(len(json.dumps(entry).encode()) / EVENT_CHUNK))
                    u.events += chunks
                    u.events_by_caller[caller] += chunks
                    u.sqs_requests["standard"] += chunks  # the rule puts it on the table events queue
            elif service == "sqs" and caller != "outside" and operation == "SendMessage":
                size = len(str(params.get("MessageBody", "")).encode())
                u.sqs_requests[_kind(params["QueueUrl"])] += max(1, math.ceil(size / SQS_CHUNK))
            elif service == "sqs" and caller != "outside" and operation == "SendMessageBatch":
                size = sum(len(str(e.get("MessageBody", "")).encode()) for e in params.get("Entries", []))
                u.sqs_requests[_kind(params["QueueUrl"])] += max(1, math.ceil(size / SQS_CHUNK))
            elif service == "apigatewaymanagementapi" and operation == "PostToConnection":
                data = params.get("Data", b"")
                size = len(data if isinstance(data, bytes | bytearray) else str(data).encode())
                u.websocket_messages += max(1, math.ceil(size / WEBSOCKET_CHUNK))
                u.websocket_posts_by_function[caller] += 1

    # --- DynamoDB ------------------------------------------------------------------------------
    def _schema(self, table: str) -> tuple[tuple[str, ...], tuple[Index, ...]]:
        if table not in self._tables:
            with _outside():
                import boto3

                described = boto3.client("dynamodb").describe_table(TableName=table)["Table"]
            keys = tuple(k["AttributeName"] for k in described["KeySchema"])
            indexes = tuple(
                Index(i["IndexName"], tuple(k["AttributeName"] for k in i["KeySchema"]),
                      i["Projection"]["ProjectionType"], tuple(i["Projection"].get("NonKeyAttributes", ())))
                for i in described.get("GlobalSecondaryIndexes", []))
            self._tables[table] = (keys, indexes)
        return self._tables[table]

    def _writes_of(self, operation: str, params: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
        """(table, key, transactional) of each item the call writes (or checks in a transaction)."""
        if operation == "PutItem":
            keys, _ = self._schema(params["TableName"])
            return [(params["TableName"], {k: params["Item"][k] for k in keys}, False)]
        if operation in ("UpdateItem", "DeleteItem"):
            return [(params["TableName"], params["Key"], False)]
        if operation == "BatchWriteItem":
            out = []
            for table, requests in params.get("RequestItems", {}).items():
                keys, _ = self._schema(table)
                for request in requests:
                    if "PutRequest" in request:
                        out.append((table, {k: request["PutRequest"]["Item"][k] for k in keys}, False))
                    else:
                        out.append((table, request["DeleteRequest"]["Key"], False))
            return out
        if operation == "TransactWriteItems":
            out = []
            for entry in params.get("TransactItems", []):
                (kind, body), = entry.items()
                if kind == "Put":
                    keys, _ = self._schema(body["TableName"])
                    out.append((body["TableName"], {k: body["Item"][k] for k in keys}, True))
                else:
                    out.append((body["TableName"], body["Key"], True))
            return out
        return []

    def _item(self, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
        with _outside():
            import boto3

            found: dict[str, Any] | None = boto3.client("dynamodb").get_item(
                TableName=table, Key=key, ConsistentRead=True).get("Item")
            return found

    def _count_writes(self, caller: str, operation: str, writes: list[tuple[str, dict[str, Any], bool]],
                      before: list[dict[str, Any] | None], after: list[dict[str, Any] | None]) -> None:
        units, by_item = 0, Counter[str]()
        for (table, key, transactional), old, new in zip(writes, before, after, strict=True):
            keys, indexes = self._schema(table)
            item = write_units(max(item_size(old), item_size(new)), transactional=transactional)
            item += sum(index_write_units(index, keys, old, new) for index in indexes)
            units += item
            by_item[_kind_of_item(key)] += item
        if units:
            with self._lock:
                self.usage.ddb_write_units[caller] += units
                self.usage.ddb_write_units_by_item.update(by_item)

    def _count_reads(self, caller: str, operation: str, params: dict[str, Any], response: dict[str, Any]) -> None:
        """From what the read returned: typed values from a client, Python ones through boto3's
        resource layer (which turns them back into typed ones to size them)."""
        consistent = bool(params.get("ConsistentRead"))

        def size_of(item: dict[str, Any] | None) -> int:
            return item_size(_typed(item) if item and not _is_typed(item) else item)

        units = 0.0
        if operation == "GetItem":
            units = read_units(size_of(response.get("Item")), consistent=consistent)
        elif operation in ("Query", "Scan"):
            units = read_units(sum(size_of(i) for i in response.get("Items", [])), consistent=consistent)
        elif operation == "BatchGetItem":
            for table, items in response.get("Responses", {}).items():
                strong = bool(params["RequestItems"].get(table, {}).get("ConsistentRead"))
                units += sum(read_units(size_of(i), consistent=strong) for i in items)
        elif operation == "TransactGetItems":
            units = sum(read_units(size_of(r.get("Item")), consistent=True, transactional=True)
                        for r in response.get("Responses", []))
        if units:
            with self._lock:
                self.usage.ddb_read_units[caller] += units


def _kind_of_item(key: dict[str, Any]) -> str:
    """What kind of item a key names: the prefixes of its key values (``ROUND#r1``, ``BET#3#b7``
    -> ``ROUND/BET``)."""
    parts = [str(next(iter(v.values()), "")) if isinstance(v, dict) else str(v) for v in key.values()]
    return "/".join(part.split("#", 1)[0] for part in parts) or "?"


def _kind(queue: str) -> str:
    """A queue's price: ``fifo`` or ``standard`` (by its name, URL or ARN)."""
    return "fifo" if queue.endswith(".fifo") else "standard"


@contextlib.contextmanager
def _outside() -> Iterator[None]:
    """The meter's own reads: not metered, and made for no function (not a role's calls)."""
    off = _unmetered.set(True)
    started = time.perf_counter()
    try:
        with iam.acting_as_nobody():
            yield
    finally:
        _unmetered.reset(off)
        ended = time.perf_counter()
        kept = [entry for entry in getattr(_call, "overhead", ()) if entry[0] > ended - 900]  # Lambda's longest run
        _call.overhead = [*kept, (ended, ended - started)]


TYPES = frozenset({"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"})


def _is_typed(item: dict[str, Any]) -> bool:
    """Are the item's values DynamoDB's typed values (``{"S": "..."}``)? An item read through the
    resource layer has Python values: its keys are plain strings, never a one-type mapping."""
    return all(isinstance(v, dict) and len(v) == 1 and next(iter(v)) in TYPES for v in item.values())


def _typed(item: dict[str, Any]) -> dict[str, Any]:
    from boto3.dynamodb.types import TypeSerializer

    serializer = TypeSerializer()
    return {name: serializer.serialize(value) for name, value in item.items()}



_call = threading.local()
"""The DynamoDB call being made on this thread: what :meth:`Meter.before` saw of it."""


def _install() -> None:
    """Patch botocore once: each call, and its final parameters before it is sent, go to the
    running meter."""
    if Meter._installed:
        return
    from botocore.client import BaseClient

    iam._install()  # a function's thread pools carry its identity (the push posts from one)
    make, emit = BaseClient._make_api_call, BaseClient._emit_api_params  # type: ignore[attr-defined]

    def emitted(self: Any, api_params: Any, operation_model: Any, context: Any) -> Any:
        params = emit(self, api_params, operation_model, context)
        meter = Meter._active
        if meter is not None and not _unmetered.get() and self.meta.service_model.service_name == "dynamodb":
            _call.sent = meter.before(operation_model.name, params)
        return params

    def metered(self: Any, operation: str, params: dict[str, Any]) -> Any:
        meter = Meter._active
        if meter is None or _unmetered.get():
            return make(self, operation, params)
        outer, _call.sent = getattr(_call, "sent", None), None
        try:
            response = make(self, operation, params)
        except Exception:
            meter.after(self, self.meta.service_model.service_name, operation, params, _call.sent, None)
            raise
        finally:
            sent, _call.sent = _call.sent, outer
        meter.after(self, self.meta.service_model.service_name, operation, params, sent, response)
        return response

    BaseClient._make_api_call = metered  # type: ignore[attr-defined]
    BaseClient._emit_api_params = emitted  # type: ignore[attr-defined]
    Meter._installed = True


def _observe(function: str, event: Any, seconds: float) -> None:
    """The local stack's report of one invocation: to the running meter."""
    meter = Meter._active
    if meter is not None:
        meter.invoked(function, event, seconds)
