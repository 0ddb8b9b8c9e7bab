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
8. Every request this process makes to the local stack's moto (the functions', the stack's own, the
   tools' and the tests') is handed to moto's web application in the calling thread, as the HTTP
   request botocore would send (method, path, query, headers and body, signed as they are): moto
   parses and answers it as its server does (in a context of its own, as in a thread of the
   server's), without a socket, a server thread and HTTP's framing on either side, which cost
   about a quarter of the CPU of a round on the stack. A process of its own (``make local``'s
   tools run against a stack in another process) reaches moto's server over HTTP, as before.
   ``tests/unit/test_motopatch_in_process.py`` holds both ways to the same answers.
9. moto writes each DynamoDB answer by walking botocore's model of it, and each attribute value
   (``{"S": ...}``, ``{"M": {...}}``) member by member, ten members for every value of every item:
   about a third of the CPU of a round on the stack once 8 is in. An attribute value is written
   here directly, as the JSON that walk makes of it (the same bytes: the same test holds them equal).
10. moto's web application finds the service of every request by its host name, under one lock that
   every request takes: it lists moto's package folder (``os.listdir`` and ~150 ``os.path.isdir``)
   and tries its services' URL patterns one by one, each time. The answer depends on the host name
   alone (the folder and the patterns do not change while the process runs): it is found once per
   host name. Measured on the stack, that lookup was an eighth of the busy time of the fault tests.
11. moto's EventBridge parses its eight input paths (JSONPath, with a parser it builds for each) for
   every event it delivers to a target, and its Step Functions each path of a state as it runs it:
   0.35 ms a path, five per cent of the CPU of the fault tests. A path is parsed once here; the
   parsed path is only read afterwards (``find``), so one serves every thread.
12. moto's SQS long poll (``WaitTimeSeconds``) waits for a visible message; when every visible one
   is held back (a FIFO queue's message group with a batch in flight, or one waiting out a failed
   batch's visibility timeout), that wait returns at once and moto's loop looks again, and again,
   until the poll's time is up: one core busy for the whole poll. Screens in a process of their own
   (``make bench``'s screens section) long-poll the push queue all the time, so each batch in flight,
   and each group held for minutes by a failed push, kept a core of the game's process busy. Here a
   poll that finds only held-back messages looks again after :data:`HELD_BACK_WAIT` (or as soon as a
   message is sent), and the same messages are received.
13. moto finds the method of every request's action by listing its response class's functions
   (``inspect.getmembers``, a walk of the class and its bases), for every request: a tenth of the
   CPU of a ``GetItem`` on the stack. A class's functions do not change while the process runs:
   they are listed once per class.
"""

from __future__ import annotations

import base64
import contextvars
import copy
import functools
import io
import json
import sys
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

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
moto_originals: dict[str, Any] = {}
"""moto's own methods that a patch replaced, by name: what the tests hold the patch's answers to."""
_in_process: dict[str, Any] = {}
"""Endpoint (``http://host:port``) -> moto's web application answering it in this process (see 8)."""


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


def answer_in_process(*endpoints: str) -> None:
    """8: this process's requests to ``endpoints`` (moto's server, by each name it is reached by)
    answered by moto's web application in the calling thread."""
    import botocore.handlers
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    if not _applied.get("in-process"):
        botocore.handlers.BUILTIN_HANDLERS.append(("before-send", _send_in_process))
        import boto3

        from . import sdk

        for session in (boto3.DEFAULT_SESSION, *sdk.sessions()):  # made before: the handler too
            if session is not None:
                session.events.register("before-send", _send_in_process)
        _applied["in-process"] = True
    app = DomainDispatcherApplication(create_backend_app)
    _in_process.update(dict.fromkeys(endpoints, app))


def stop_answering_in_process(*endpoints: str) -> None:
    """Requests to ``endpoints`` go over HTTP again (the stack stopped: nobody answers them)."""
    for endpoint in endpoints:
        _in_process.pop(endpoint, None)


def _send_in_process(request: Any, **kwargs: Any) -> Any:
    """botocore's ``before-send``: the response of moto's web application when ``request`` is for
    an endpoint of :data:`_in_process`, else None (botocore sends it over HTTP)."""
    if not _in_process:
        return None
    split = urlsplit(request.url)
    app = _in_process.get(f"{split.scheme}://{split.netloc}")
    if app is None:
        return None
    from botocore.awsrequest import AWSResponse
    from botocore.compat import HTTPHeaders
    from moto.core.botocore_stubber import MockRawResponse
    from werkzeug.test import run_wsgi_app

    environ = wsgi_environ(request.method, split, request.headers.items(), _body(request.body))
    # in a context of its own, as in the server's thread: what moto does for the request (its own
    # calls, the threads it starts) is not done as the caller (its function, its settings, its clock)
    chunks, status, headers = contextvars.Context().run(run_wsgi_app, app, environ, buffered=True)
    answered = HTTPHeaders()
    for name, value in headers.items():
        answered[name] = value
    return AWSResponse(request.url, int(status.split(" ", 1)[0]), answered, MockRawResponse(b"".join(chunks)))


def wsgi_environ(method: str, split: Any, headers: Any, body: bytes) -> dict[str, Any]:
    """The WSGI environment werkzeug's server makes of this request (PEP 3333)."""
    host, _, port = split.netloc.partition(":")
    target = f"{split.path}?{split.query}" if split.query else split.path
    environ: dict[str, Any] = {
        "wsgi.version": (1, 0), "wsgi.url_scheme": split.scheme, "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
        "SERVER_SOFTWARE": "in-process", "REQUEST_METHOD": method, "SCRIPT_NAME": "",
        "PATH_INFO": unquote(split.path).encode("utf-8").decode("latin-1"), "QUERY_STRING": split.query,
        "REQUEST_URI": target, "RAW_URI": target, "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": 0,
        "SERVER_NAME": host, "SERVER_PORT": port or "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "CONTENT_LENGTH": str(len(body)), "HTTP_HOST": split.netloc,
    }
    for name, value in headers:
        key = name.upper().replace("-", "_")
        text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = text
        elif key not in ("CONTENT_LENGTH", "HOST"):
            environ[f"HTTP_{key}"] = text
    return environ


def _body(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if hasattr(body, "read"):
        return bytes(body.read())
    return bytes(body)


def items_under(table_name: str, prefix: str, account: str, region: str) -> int:
    """How many items of moto's table have a partition key that starts with ``prefix``: what a
    scan filtered on ``begins_with(pk, prefix)`` counts, without the scan (which reads and filters
    every item of the table, holding moto's DynamoDB the while): for a test's check of the store."""
    from moto.dynamodb.models import dynamodb_backends

    with _LOCK:
        table = dynamodb_backends[account][region].get_table(table_name)
        return sum(len(held) if table.has_range_key else 1 for key, held in table.items.items()
                   if isinstance(key.value, str) and key.value.startswith(prefix))


def _serialize_attribute_values() -> None:
    """9: an attribute value of a DynamoDB answer written as moto's JSON serializer writes it."""
    from moto.core.serialize import BaseJSONSerializer

    structure = moto_originals.setdefault("structure", BaseJSONSerializer._serialize_type_structure)

    def serialize(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if key and shape.name == "AttributeValue" and isinstance(value, dict) \
                and self.operation_model.service_model.service_name == "dynamodb":
            self._default_serialize(serialized, attribute_value(value), shape, key)
        else:
            structure(self, serialized, value, shape, key)

    BaseJSONSerializer._serialize_type_structure = serialize  # type: ignore[method-assign]


def _find_each_service_once() -> None:
    """10: moto's web application finds a host name's service once (its answer kept per host name)."""
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication

    find = moto_originals.setdefault("backend for host", DomainDispatcherApplication.get_backend_for_host)

    def backend_for_host(self: Any, host: str | None) -> Any:
        found: dict[str | None, Any] = self.__dict__.setdefault("_backend_of_host", {})
        if host not in found:  # every caller holds the application's lock (moto's own)
            found[host] = find(self, host)
        return found[host]

    DomainDispatcherApplication.get_backend_for_host = backend_for_host  # type: ignore[method-assign]


def _parse_each_path_once() -> None:
    """11: a JSONPath that moto's EventBridge or Step Functions parses is parsed once."""
    import jsonpath_ng.ext
    from moto.stepfunctions.parser.asl.component.common.path import result_path
    from moto.stepfunctions.parser.asl.utils import json_path

    extended = functools.lru_cache(maxsize=4096)(
        moto_originals.setdefault("json path", getattr(jsonpath_ng.ext, "parse")))  # noqa: B009 (not exported)
    setattr(jsonpath_ng.ext, "parse", extended)  # noqa: B010 (moto's EventBridge imports it for each event)
    setattr(json_path, "parse", extended)  # noqa: B010 (not exported: its Step Functions imported it)
    plain = moto_originals.setdefault("result path", getattr(result_path, "parse"))  # noqa: B009 (jsonpath_ng's own)
    setattr(result_path, "parse", functools.lru_cache(maxsize=4096)(plain))  # noqa: B010 (not exported)


def _list_each_class_once() -> None:
    """13: moto lists a response class's functions once (the list kept per class)."""
    from moto.core import responses, utils

    listed = functools.cache(moto_originals.setdefault("method names", utils.method_names_from_class))
    setattr(responses, "method_names_from_class", listed)  # noqa: B010 (moto's responses imported it)


def attribute_value(value: dict[str, Any]) -> dict[str, Any]:
    """One DynamoDB attribute value as moto's serializer writes it: its member, strings as strings,
    binary in base64, maps and lists value by value (None members left out, as moto leaves them)."""
    written: dict[str, Any] = {}
    for kind, inner in value.items():
        if inner is None or kind not in _WRITE:
            continue
        written[kind] = _WRITE[kind](inner)
    return written


def _string(value: Any) -> Any:
    return str(value) if value not in (None, {}, []) else value


def _blob(value: Any) -> str:
    return base64.b64encode(value.encode("utf-8") if isinstance(value, str) else value).strip().decode("utf-8")


_WRITE: dict[str, Callable[[Any], Any]] = {
    "S": _string, "N": _string, "B": _blob, "BOOL": lambda v: v, "NULL": lambda v: v,
    "SS": lambda vs: [_string(v) for v in vs], "NS": lambda vs: [_string(v) for v in vs],
    "BS": lambda vs: [_blob(v) for v in vs],
    "M": lambda m: {k: attribute_value(v) for k, v in m.items()}, "L": lambda vs: [attribute_value(v) for v in vs],
}
"""How each member of an attribute value is written (the members of botocore's ``AttributeValue``)."""


HELD_BACK_WAIT = 0.02
"""Seconds between two looks of an SQS long poll that finds only held-back messages (patch 12)."""


def _wait_for_receivable_messages() -> None:
    """12: an SQS long poll that finds only held-back messages waits before it looks again."""
    from moto.sqs.models import Queue

    def wait_for_messages(self: Any, timeout: int) -> None:
        with self._messages_lock:
            if self.messages:  # visible, and moto's loop received none: held back (a FIFO group in flight)
                self._messages_lock.wait(HELD_BACK_WAIT)  # a message sent meanwhile wakes it (add_message)
            else:
                self._messages_lock.wait_for(lambda: self.messages, timeout=timeout)

    Queue.wait_for_messages = wait_for_messages  # type: ignore[method-assign]


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
    _serialize_attribute_values()
    _find_each_service_once()
    _parse_each_path_once()
    _list_each_class_once()
    _wait_for_receivable_messages()
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
