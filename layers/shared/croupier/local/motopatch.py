"""Patches that make moto fit for a running application (local stack only).

1. moto's DynamoDB is not thread-safe (a transaction copies a table while another request writes
   it); DynamoDB itself is. Its requests are serialized.
2. Before a transaction moto deep-copies every table the transaction touches, once per item, to
   roll back on failure: a 10-item transaction on a 1,000-item table copies 10,000 items. The
   snapshot here copies only the items the transaction writes (the rest is shared, untouched),
   which is just as correct a rollback and keeps a round's cost flat as the tables grow; and it
   copies each table once per transaction, where moto copies it once per item.
3. EventBridge delivers a target the whole event; moto's default input template leaves out its
   ``account``, which the event's model (Powertools' ``EventBridgeModel``) requires.
4. A DynamoDB stream delivers its records to its Lambda function asynchronously, in order, in
   batches, once the write is stored: moto calls the function inside the write itself (with the
   serialized DynamoDB held, so the function's own requests would wait for ever), and keeps the
   records of a transaction that failed. Here each stream has a delivery thread; a failed
   transaction's records are dropped; a batch whose function reports failed records is delivered
   again from the first of them; records outside the function's key prefixes (its filter
   criteria) are not delivered.
5. moto answers every query by sorting every item of the table, then keeping those of the asked
   partition: a query's cost grows with the whole table (62 ms a query at 10,000 items: the test
   session's growing store made its later rounds slower and slower, until timers expired). A query of
   the table reads its partition alone; a query of an index reads every item once, unsorted (it
   sorts what it keeps itself), as moto's own code then does.
6. moto's Step Functions makes a new boto3 client for every Lambda task it runs (a few
   milliseconds of CPU each, for every step of every round); one client per region serves them
   all (boto3's clients are thread-safe).
7. moto runs a Lambda function's code in a Docker container, and there is no Docker engine here:
   every invocation moto makes (a workflow's task, ``Invoke``, an event source) runs the function's
   own handler in this process instead, through the local stack's invoke (one execution
   environment per function, as :meth:`LocalStack.invoke` says); a handler's exception is answered
   as Lambda answers a function error (``errorType``, ``errorMessage``).
"""

from __future__ import annotations

import copy
import json
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from ..sim.streams import passes

_state = threading.local()
_applied: dict[str, bool] = {}
_LOCK = threading.RLock()
"""Serializes moto's DynamoDB (see 1); the stream deliveries take their records under it."""
stream_filters: dict[str, list[Any] | None] = {}
"""Function ARN -> its filter criteria's patterns (moto's ``EventPattern``; None: every record)."""
_deliveries: dict[int, _Delivery] = {}
_pending: set[int] = set()
_stopped = threading.Event()


def stop_deliveries() -> None:
    """The stack is stopping: the streams deliver nothing more (their functions' endpoints go)."""
    _stopped.set()
    for delivery in list(_deliveries.values()):
        delivery.wake.set()
counters: Counter[str] = Counter()
"""DynamoDB requests served, by operation, and the items they read or wrote (for the benchmark)."""


def run_functions_in_process(invoke: Callable[[str, Any], Any]) -> None:
    """7: every invocation moto makes runs ``invoke(function_name, event)`` (the local stack's)."""
    from moto.awslambda.models import LambdaFunction

    def invoked(function: Any, event: Any = None) -> tuple[str, bool, str]:
        payload = json.loads(event) if isinstance(event, str | bytes) else (event or {})
        try:
            result = invoke(function.function_name, payload)
        except Exception as exc:
            return json.dumps({"errorType": type(exc).__name__, "errorMessage": str(exc)}), True, ""
        return json.dumps(result), False, ""

    LambdaFunction._invoke_lambda = invoked  # type: ignore[method-assign,assignment]


def apply() -> None:
    _stopped.clear()
    if _applied.get("done"):
        return
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table
    from moto.dynamodb.responses import DynamoHandler

    call_action = DynamoHandler.call_action

    def serialized(self: Any) -> Any:
        with _LOCK:
            try:
                result = call_action(self)
            finally:
                for key in list(_pending):  # the stream records of the stored writes go now
                    _deliveries[key].wake.set()
                _pending.clear()
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
        shards = {name: self.tables[name].stream_shard for name in touched
                  if name in self.tables and getattr(self.tables[name], "stream_shard", None) is not None}
        recorded = {name: len(shard.items) for name, shard in shards.items()}
        try:
            return transact(self, transact_items)
        except Exception:
            for name, shard in shards.items():  # a failed transaction wrote nothing: no stream records
                del shard.items[recorded[name]:]
            raise
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

    from moto.events.utils import EventTemplateParser

    if '"account"' not in EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE:
        EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE = EventTemplateParser.DEFAULT_EVENT_INPUT_TEMPLATE.replace(
            '"version": "0",', '"version": "0", "account": "<account>",')

    from moto.dynamodb.models.table import StreamShard

    add_record = StreamShard.add

    def add_later(self: Any, old: Any, new: Any) -> None:
        mappings = self.table.lambda_event_source_mappings
        self.table.lambda_event_source_mappings = {}  # recorded now, delivered after the write
        try:
            add_record(self, old, new)
        finally:
            self.table.lambda_event_source_mappings = mappings
        if mappings:
            key = id(self)
            if key not in _deliveries:
                _deliveries[key] = _Delivery(self)
            _pending.add(key)

    query = Table.query
    every_item = Table.all_items

    def partition_query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index = kwargs.get("index_name") or (args[6] if len(args) > 6 else None)
        _state.query = (self, None if index else hash_key)
        try:
            return query(self, hash_key, *args, **kwargs)
        finally:
            _state.query = None

    def items_of_query(self: Any) -> list[Any]:
        asked = getattr(_state, "query", None)
        if asked is None or asked[0] is not self:  # a scan, a backup ...: every item, in key order
            return every_item(self)
        if not self.range_key_attr:  # a partition is one item
            found = self.items.values() if asked[1] is None else [self.items.get(asked[1])]
            return [item for item in found if item is not None]
        partitions = self.items.values() if asked[1] is None else [self.items.get(asked[1], {})]
        return [item for partition in partitions for item in partition.values()]

    from moto.settings import moto_server_port
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    make_client = getattr(lambda_eval_utils, "boto_client_for")  # noqa: B009 (not exported)
    clients: dict[tuple[str, str, str], Any] = {}
    making = threading.Lock()

    def shared_client(region: str, service: str, state_credentials: Any = None) -> Any:
        if state_credentials is not None:  # a task with credentials of its own: its own client
            return make_client(region, service, state_credentials)
        key = (region, service, str(moto_server_port()))  # a later stack of the process: its own port
        with making:
            if key not in clients:
                clients[key] = make_client(region, service)
            return clients[key]

    setattr(lambda_eval_utils, "boto_client_for", shared_client)  # noqa: B010 (not exported)
    Table.query = partition_query  # type: ignore[method-assign]
    Table.all_items = items_of_query  # type: ignore[method-assign]
    StreamShard.add = add_later  # type: ignore[method-assign]
    DynamoHandler.call_action = serialized  # type: ignore[method-assign]
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    Table.__deepcopy__ = table_deepcopy  # type: ignore[attr-defined]
    _applied["done"] = True


class _Delivery:
    """The delivery thread of one table's stream: batches of records, in order, to each function
    mapped to the stream, as Lambda's stream poller does."""

    def __init__(self, shard: Any) -> None:
        self.shard, self.wake = shard, threading.Event()
        threading.Thread(target=self._run, name=f"stream-{shard.table.name}", daemon=True).start()

    def _run(self) -> None:
        while True:
            self.wake.wait()
            self.wake.clear()
            if _stopped.is_set():
                continue
            with _LOCK:
                records = list(self.shard.items)
                self.shard.items.clear()
            if not records:
                continue
            try:
                self._deliver(records)
            except Exception:  # the poller goes on, as Lambda's does; the stack's console says why
                traceback.print_exc()

    def _deliver(self, records: list[Any]) -> None:
        from moto.awslambda.utils import get_backend

        for arn, esm in list(self.shard.table.lambda_event_source_mappings.items()):
            patterns = stream_filters.get(arn)
            wanted = [r for r in records if patterns is None or passes(patterns, r.record)]
            backend = get_backend(self.shard.account_id, arn.split(":")[3])
            for _ in range(5):  # a batch with failed records goes again from the first of them
                if not wanted or _stopped.is_set():
                    break
                answer = backend.send_dynamodb_items(arn, wanted, esm.event_source_arn)
                failed = _first_failure(answer)
                if failed is None:
                    break
                wanted = [r for r in wanted if int(r.record["dynamodb"]["SequenceNumber"]) >= failed]
                time.sleep(0.2)


def _first_failure(answer: Any) -> int | None:
    """The first record a stream batch's function reported failed (0: the function failed)."""
    try:
        body = json.loads(answer) if isinstance(answer, str | bytes) else answer
        if isinstance(body, dict) and body.get("errorType"):
            return 0
        failures = (body or {}).get("batchItemFailures") or []
    except (ValueError, AttributeError):
        return None
    numbers = [int(f["itemIdentifier"]) for f in failures if str(f.get("itemIdentifier", "")).isdigit()]
    return min(numbers) if numbers else None


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
