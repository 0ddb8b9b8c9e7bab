"""Least privilege, checked both ways: every AWS call a function makes on the local stack is
recorded, then held against that function's role as SAM generates it.

- :func:`acting_as` marks the code running for one function (the local stack sets it around each
  invocation, on the function's worker thread; threads the function starts from a
  ``ThreadPoolExecutor`` inherit it, as they would share the function's role on AWS).
- :class:`Recorder` (while enabled) sees every boto3 call of the process once its parameters are
  final (after boto3's own serialisation: typed DynamoDB values, expression strings) and keeps,
  for the calls made for a function, the IAM action(s) it needs, the resource ARN and, for
  DynamoDB, the partition key values touched (what ``dynamodb:LeadingKeys`` is evaluated on).
  One API call may need several actions: a transaction needs the per-item action on each item's
  table, a batch the action on each table.
- :func:`roles` translates ``template.yaml`` with ``aws-sam-translator`` (as ``sam deploy``
  does, policy templates and event-source policies included) and resolves each function's
  ``AWS::IAM::Role`` with the local stack's physical names.
- :func:`check` evaluates each recorded call against the role's statements (explicit ``Deny``
  first; actions and resources with ``*``/``?``; ``dynamodb:LeadingKeys`` conditions, with the
  ``ForAllValues``/``ForAnyValue`` set semantics IAM uses, an empty set included) and lists the
  calls AWS would refuse, and every grant that no recorded call used.

Never kinder than AWS: a call whose resource or keys cannot be told, a condition this module does
not know, or a managed policy it has no statements for, is refused, saying why.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_acting: contextvars.ContextVar[str | None] = contextvars.ContextVar("croupier_iam_function", default=None)

MANAGED = {
    # What the AWS managed policies that SAM attaches to every function role (and for its event
    # sources) allow: the Lambda service's own work (logs, traces, polling the event source).
    "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole": [
        {"Effect": "Allow", "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": "*"}],
    "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess": [
        {"Effect": "Allow", "Action": ["xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules",
                                       "xray:GetSamplingTargets", "xray:GetSamplingStatisticSummaries"],
         "Resource": "*"}],
    "arn:aws:iam::aws:policy/service-role/AWSLambdaSQSQueueExecutionRole": [
        {"Effect": "Allow", "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes",
                                       "logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": "*"}],
    "arn:aws:iam::aws:policy/service-role/AWSLambdaDynamoDBExecutionRole": [
        {"Effect": "Allow", "Action": ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator",
                                       "dynamodb:ListStreams", "logs:CreateLogGroup", "logs:CreateLogStream",
                                       "logs:PutLogEvents"],
         "Resource": "*"}],
}
"""Their statements are used to grant, never reported as unused (they are not the template's)."""


@contextlib.contextmanager
def acting_as(function: str) -> Iterator[None]:
    """The code inside runs for ``function`` (its logical id): its AWS calls are its role's."""
    token = _acting.set(function)
    try:
        yield
    finally:
        _acting.reset(token)


@contextlib.contextmanager
def acting_as_nobody() -> Iterator[None]:
    """The code inside runs for no function (a tool's own calls: never a role's)."""
    token = _acting.set(None)
    try:
        yield
    finally:
        _acting.reset(token)


def acting() -> str | None:
    return _acting.get()


@dataclass(frozen=True)
class Call:
    function: str
    action: str  # "dynamodb:PutItem"
    resource: str  # an ARN
    keys: tuple[str, ...] | None = None
    """DynamoDB: the partition key values (``dynamodb:LeadingKeys``); None for other services."""
    operation: str = ""  # the API operation that needed it ("TransactWriteItems")

    def describe(self) -> str:
        keys = "" if self.keys is None else f" keys={list(self.keys)[:3]}{'...' if len(self.keys) > 3 else ''}"
        via = f" (in {self.operation})" if self.operation and self.operation != self.action.split(":")[1] else ""
        return f"{self.function}: {self.action} on {self.resource}{keys}{via}"


@dataclass
class Naming:
    """What turns a call's parameters into ARNs on the local stack."""

    region: str
    account: str
    key_schema: dict[str, dict[str | None, str]]
    """Table name -> {None: the table's partition key, index name: the index's}."""
    websocket_api: str = ""
    websocket_stage: str = ""
    state_machines: list[str] = field(default_factory=list)


class Recorder:
    """Records the calls made for functions while enabled (one per process: it patches botocore)."""

    _installed = False
    _active: Recorder | None = None

    def __init__(self, naming: Naming) -> None:
        self.naming = naming
        self.calls: Counter[Call] = Counter()
        self.unresolved: list[str] = []
        self._lock = threading.Lock()

    # --- enabling ----------------------------------------------------------------------------
    def enable(self) -> Recorder:
        _install()
        Recorder._active = self
        return self

    def disable(self) -> None:
        if Recorder._active is self:
            Recorder._active = None

    def since(self, mark: Counter[Call]) -> Counter[Call]:
        """The calls recorded after ``mark`` (a copy of :attr:`calls` taken earlier)."""
        with self._lock:
            return self.calls - mark

    def snapshot(self) -> Counter[Call]:
        with self._lock:
            return Counter(self.calls)

    # --- recording ---------------------------------------------------------------------------
    def record(self, function: str, service: str, operation: str, params: dict[str, Any], client: Any) -> None:
        try:
            calls = list(self._calls(function, service, operation, params, client))
        except Exception as exc:  # a call this module cannot read: refused by the check
            calls = [Call(function, f"{_prefix(service)}:{operation}", f"?unreadable ({type(exc).__name__}: {exc})",
                          None, operation)]
        with self._lock:
            self.calls.update(calls)

    def _calls(self, function: str, service: str, operation: str, params: dict[str, Any],
               client: Any) -> Iterator[Call]:
        n = self.naming
        arn = f"arn:aws:{{}}:{n.region}:{n.account}:{{}}"
        if service == "dynamodb":
            yield from self._dynamodb(function, operation, params)
        elif service == "sqs":
            url = str(params.get("QueueUrl") or "")
            name = url.rstrip("/").rsplit("/", 1)[-1] if url else str(params.get("QueueName") or "?")
            action = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
                      "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}.get(operation, operation)
            yield Call(function, f"sqs:{action}", arn.format("sqs", name), None, operation)
        elif service == "ssm":
            names = params.get("Names") or [params.get("Name") or params.get("Path") or "?"]
            for name in names:
                yield Call(function, f"ssm:{operation}", arn.format("ssm", "parameter/" + str(name).lstrip("/")),
                           None, operation)
        elif service == "events":
            if operation == "PutEvents":
                for entry in params.get("Entries", []):
                    bus = str(entry.get("EventBusName") or "default")
                    resource = bus if bus.startswith("arn:") else arn.format("events", f"event-bus/{bus}")
                    yield Call(function, "events:PutEvents", resource, None, operation)
            else:
                yield Call(function, f"events:{operation}", "?events", None, operation)
        elif service == "stepfunctions":
            if operation in ("SendTaskSuccess", "SendTaskFailure", "SendTaskHeartbeat"):
                # a task token names no resource in its request; the local stack has one machine
                for machine in n.state_machines or ["?state machine"]:
                    yield Call(function, f"states:{operation}", machine, None, operation)
            else:
                resource = params.get("stateMachineArn") or params.get("executionArn") or "?"
                yield Call(function, f"states:{operation}", str(resource), None, operation)
        elif service == "apigatewaymanagementapi":
            method = {"PostToConnection": "POST", "DeleteConnection": "DELETE", "GetConnection": "GET"}[operation]
            host = urlsplit(str(client.meta.endpoint_url))
            api, stage = n.websocket_api, n.websocket_stage
            if ".execute-api." in (host.hostname or ""):
                api, stage = str(host.hostname).split(".", 1)[0], host.path.strip("/").split("/")[0]
            yield Call(function, "execute-api:ManageConnections",
                       arn.format("execute-api", f"{api}/{stage}/{method}/@connections/{params['ConnectionId']}"),
                       None, operation)
        elif service == "lambda":
            yield Call(function, f"lambda:{'InvokeFunction' if operation == 'Invoke' else operation}",
                       arn.format("lambda", f"function:{params.get('FunctionName')}"), None, operation)
        else:
            yield Call(function, f"{_prefix(service)}:{operation}", "?unmapped service", None, operation)

    def _dynamodb(self, function: str, operation: str, params: dict[str, Any]) -> Iterator[Call]:
        n = self.naming

        def table_arn(name: str, index: str | None = None) -> str:
            base = name if name.startswith("arn:") else f"arn:aws:dynamodb:{n.region}:{n.account}:table/{name}"
            return f"{base}/index/{index}" if index else base

        def pk_of(table: str, key: dict[str, Any] | None, index: str | None = None) -> tuple[str, ...]:
            attribute = n.key_schema.get(table, {}).get(index)
            if attribute is None or not key or attribute not in key:
                return ("?unknown partition key",)
            return (_plain(key[attribute]),)

        if operation in ("GetItem", "PutItem", "UpdateItem", "DeleteItem"):
            table = str(params["TableName"])
            key = params.get("Item") if operation == "PutItem" else params.get("Key")
            yield Call(function, f"dynamodb:{operation}", table_arn(table), pk_of(table, key), operation)
        elif operation in ("Query", "Scan"):
            table, index = str(params["TableName"]), params.get("IndexName")
            keys: tuple[str, ...] = ()
            if operation == "Query":
                keys = self._query_partition(table, index, params)
            yield Call(function, f"dynamodb:{operation}", table_arn(table, index), keys, operation)
        elif operation == "TransactWriteItems":
            per = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                   "ConditionCheck": "ConditionCheckItem"}
            for item in params.get("TransactItems", []):
                (kind, body), = item.items()
                table = str(body["TableName"])
                key = body.get("Item") if kind == "Put" else body.get("Key")
                yield Call(function, f"dynamodb:{per[kind]}", table_arn(table), pk_of(table, key), operation)
        elif operation == "TransactGetItems":
            for item in params.get("TransactItems", []):
                body = item["Get"]
                table = str(body["TableName"])
                yield Call(function, "dynamodb:GetItem", table_arn(table), pk_of(table, body.get("Key")), operation)
        elif operation == "BatchGetItem":
            for table, request in params.get("RequestItems", {}).items():
                keys = tuple(sorted({k for key in request.get("Keys", []) for k in pk_of(table, key)}))
                yield Call(function, "dynamodb:BatchGetItem", table_arn(table), keys, operation)
        elif operation == "BatchWriteItem":
            for table, requests in params.get("RequestItems", {}).items():
                touched: set[str] = set()
                for request in requests:
                    (kind, body), = request.items()
                    touched.update(pk_of(table, body.get("Item") if kind == "PutRequest" else body.get("Key")))
                yield Call(function, "dynamodb:BatchWriteItem", table_arn(table), tuple(sorted(touched)), operation)
        else:
            table = str(params.get("TableName") or params.get("TableArn") or params.get("ResourceArn") or "?")
            yield Call(function, f"dynamodb:{operation}", table_arn(table), None, operation)

    def _query_partition(self, table: str, index: str | None, params: dict[str, Any]) -> tuple[str, ...]:
        attribute = self.naming.key_schema.get(table, {}).get(index)
        if attribute is None:
            return ("?unknown partition key",)
        if "KeyConditions" in params:
            condition = params["KeyConditions"].get(attribute) or {}
            values = condition.get("AttributeValueList") or []
            return (_plain(values[0]),) if values else ("?unknown partition key",)
        names = params.get("ExpressionAttributeNames") or {}
        values = params.get("ExpressionAttributeValues") or {}
        expression = str(params.get("KeyConditionExpression"))
        for left, right in re.findall(r"(#?[A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)", expression):
            if names.get(left, left) == attribute and right in values:
                return (_plain(values[right]),)
        return ("?unknown partition key",)


def _plain(value: Any) -> str:
    """A DynamoDB key value as a string (``{"S": "ROUND#r1"}`` -> ``ROUND#r1``)."""
    if isinstance(value, dict) and len(value) == 1:
        (_, inner), = value.items()
        return str(inner)
    return str(value)


def _prefix(service: str) -> str:
    return {"stepfunctions": "states", "apigatewaymanagementapi": "execute-api"}.get(service, service)


def _install() -> None:
    """Patch botocore once: each call's final parameters go to the active recorder, for the
    function the calling code runs for; a function's thread pools carry its identity."""
    if Recorder._installed:
        return
    import concurrent.futures

    from botocore.client import BaseClient

    emit = BaseClient._emit_api_params  # type: ignore[attr-defined]

    def emitted(self: Any, api_params: Any, operation_model: Any, context: Any) -> Any:
        params = emit(self, api_params, operation_model, context)
        recorder, function = Recorder._active, _acting.get()
        if recorder is not None and function is not None:
            recorder.record(function, self.meta.service_model.service_name, operation_model.name, params, self)
        return params

    BaseClient._emit_api_params = emitted  # type: ignore[attr-defined]

    submit = concurrent.futures.ThreadPoolExecutor.submit

    def submitted(self: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        function = _acting.get()
        if function is not None:
            fn = functools.partial(_run_as, function, fn)
        return submit(self, fn, *args, **kwargs)

    concurrent.futures.ThreadPoolExecutor.submit = submitted  # type: ignore[method-assign]
    Recorder._installed = True


def _run_as(function: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    with acting_as(function):
        return fn(*args, **kwargs)


# --- the roles, as SAM generates them ----------------------------------------------------------
def translated(root: Path, region: str = "us-east-1") -> dict[str, Any]:
    """``template.yaml`` as ``aws-sam-translator`` turns it into CloudFormation (code locations
    replaced by S3 URIs, as ``sam package`` does before the transform)."""
    import os

    from samtranslator.translator.transform import transform  # type: ignore[import-untyped]
    from samtranslator.yaml_helper import yaml_parse  # type: ignore[import-untyped]

    document = yaml_parse((root / "template.yaml").read_text(encoding="utf-8"))
    for spec in document.get("Resources", {}).values():
        props = spec.get("Properties") or {}
        for key in ("CodeUri", "ContentUri", "DefinitionUri"):
            if isinstance(props.get(key), str):
                props[key] = f"s3://local-package/{props[key]}"

    class NoManagedPolicies:
        def load(self) -> dict[str, str]:
            return {}

    previous = os.environ.get("AWS_DEFAULT_REGION")
    os.environ["AWS_DEFAULT_REGION"] = region
    try:
        out: dict[str, Any] = transform(document, {}, NoManagedPolicies())
    finally:
        if previous is None:
            os.environ.pop("AWS_DEFAULT_REGION", None)
        else:
            os.environ["AWS_DEFAULT_REGION"] = previous
    return out


@dataclass
class Statement:
    effect: str
    actions: list[str]
    resources: list[str]
    condition: dict[str, Any]
    source: str  # "BetsFunctionRolePolicy2" or a managed policy's ARN
    managed: bool


def roles(root: Path, resolver: Any) -> dict[str, list[Statement]]:
    """Each function's (and state machine's) statements by its logical id, resolved with the
    local stack's physical names (``resolver``: :class:`croupier.local.template.Resolver`)."""
    template = translated(root)
    resources = template["Resources"]
    out: dict[str, list[Statement]] = {}
    for logical, spec in resources.items():
        if spec["Type"] not in ("AWS::Lambda::Function", "AWS::StepFunctions::StateMachine"):
            continue
        role_ref = spec["Properties"].get("Role") or spec["Properties"].get("RoleArn")
        role_name = role_ref["Fn::GetAtt"][0] if isinstance(role_ref, dict) and "Fn::GetAtt" in role_ref else None
        if role_name is None or role_name not in resources:
            continue
        props = resources[role_name]["Properties"]
        statements: list[Statement] = []
        for policy in props.get("Policies", []):
            document = resolver.resolve(policy["PolicyDocument"])
            for raw in _listed(document["Statement"]):
                statements.append(_statement(raw, policy["PolicyName"], managed=False))
        for arn in props.get("ManagedPolicyArns", []):
            arn = str(resolver.resolve(arn))
            if arn not in MANAGED:
                raise ValueError(f"{logical}: managed policy {arn} has no statements here: add them to MANAGED")
            statements.extend(_statement(raw, arn, managed=True) for raw in MANAGED[arn])
        out[logical] = statements
    return out


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _statement(raw: dict[str, Any], source: str, *, managed: bool) -> Statement:
    if "NotAction" in raw or "NotResource" in raw:
        raise ValueError(f"{source}: NotAction/NotResource are not evaluated here")
    return Statement(str(raw["Effect"]), [str(a) for a in _listed(raw["Action"])],
                     [str(r) for r in _listed(raw["Resource"])], dict(raw.get("Condition") or {}), source, managed)


# --- evaluation --------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4096)
def _glob(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(f"^{regex}$", re.IGNORECASE if ignore_case else 0)


def _matches(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    return bool(_glob(pattern, ignore_case).match(value))


CONDITION_KEYS = {"dynamodb:LeadingKeys"}


def _condition_holds(condition: dict[str, Any], call: Call) -> tuple[bool, str]:
    """Whether a statement's Condition holds for the call (and, if not known here, why)."""
    for operator, tests in condition.items():
        qualifier, _, base = operator.rpartition(":")
        if base not in ("StringEquals", "StringLike") or qualifier not in ("ForAllValues", "ForAnyValue"):
            return False, f"condition operator {operator} is not evaluated here"
        for key, wanted in tests.items():
            if key not in CONDITION_KEYS:
                return False, f"condition key {key} is not evaluated here"
            values = list(call.keys or ())
            patterns = [str(w) for w in _listed(wanted)]

            def fits(value: str, patterns: list[str] = patterns, base: str = base) -> bool:
                return any((value == p) if base == "StringEquals" else _matches(p, value) for p in patterns)

            if call.keys is None:  # the key is absent from the request
                holds = qualifier == "ForAllValues"
            elif qualifier == "ForAllValues":
                holds = all(fits(v) for v in values)  # an empty set: true (as IAM evaluates it)
            else:
                holds = any(fits(v) for v in values)
            if not holds:
                return False, ""
    return True, ""


def _applies(statement: Statement, call: Call) -> tuple[bool, str]:
    if not any(_matches(a, call.action, ignore_case=True) for a in statement.actions):
        return False, ""
    if not any(_matches(r, call.resource) for r in statement.resources):
        return False, ""
    return _condition_holds(statement.condition, call)


@dataclass
class Verdict:
    refused: list[tuple[Call, str]]
    """Calls AWS would refuse, with why."""
    unused: list[str]
    """The template's grants (statement, action, resource) that no recorded call used."""
    used: dict[str, set[tuple[str, str]]]

    def report(self) -> str:
        lines = [f"least privilege: {len(self.refused)} call(s) not granted, {len(self.unused)} grant(s) unused"]
        lines += [f"  NOT GRANTED {call.describe()}{' — ' + why if why else ''}" for call, why in self.refused]
        lines += [f"  unused {grant}" for grant in self.unused]
        return "\n".join(lines)


def check(calls: Counter[Call] | set[Call], statements: dict[str, list[Statement]],
          functions: list[str] | None = None) -> Verdict:
    """The recorded calls against the roles. ``functions``: whose unused grants to report (all
    the roles' by default)."""
    refused: list[tuple[Call, str]] = []
    used: dict[str, set[tuple[str, str]]] = {}
    hits: set[tuple[str, int, str, str]] = set()
    for call in sorted(set(calls), key=lambda c: (c.function, c.action, c.resource)):
        role = statements.get(call.function)
        if role is None:
            refused.append((call, "no role for this function in the template"))
            continue
        if call.resource.startswith("?"):
            refused.append((call, "its resource could not be told from the request"))
            continue
        why = ""
        denied = False
        allowed = False
        for index, statement in enumerate(role):
            applies, unknown = _applies(statement, call)
            why = why or unknown
            if not applies:
                continue
            if statement.effect == "Deny":
                denied = True
            else:
                allowed = True
                for action in statement.actions:
                    if _matches(action, call.action, ignore_case=True):
                        for resource in statement.resources:
                            if _matches(resource, call.resource):
                                hits.add((call.function, index, action, resource))
        if denied:
            refused.append((call, "explicitly denied"))
        elif not allowed:
            refused.append((call, why))
        else:
            used.setdefault(call.function, set()).add((call.action, call.resource))
    unused = []
    for function, role in sorted(statements.items()):
        if functions is not None and function not in functions:
            continue
        for index, statement in enumerate(role):
            if statement.managed or statement.effect != "Allow":
                continue
            condition = f" if {json.dumps(statement.condition, sort_keys=True)}" if statement.condition else ""
            for action in statement.actions:
                for resource in statement.resources:
                    if (function, index, action, resource) not in hits:
                        unused.append(f"{function}: {action} on {resource}{condition} ({statement.source})")
    return Verdict(refused, unused, used)


def naming_of(template: dict[str, Any], resolver: Any, region: str, account: str, stage: str) -> Naming:
    """The local stack's names for the recorder, from the template and the stack's resolver."""
    schema: dict[str, dict[str | None, str]] = {}
    machines: list[str] = []
    websocket = ""
    for logical, spec in template["Resources"].items():
        if spec["Type"] == "AWS::DynamoDB::Table":
            props = resolver.resolve(spec["Properties"])
            hash_of: dict[str | None, str] = {
                None: next(k["AttributeName"] for k in props["KeySchema"] if k["KeyType"] == "HASH")}
            for gsi in props.get("GlobalSecondaryIndexes") or []:
                hash_of[gsi["IndexName"]] = next(k["AttributeName"] for k in gsi["KeySchema"] if k["KeyType"] == "HASH")
            schema[str(props["TableName"])] = hash_of
        elif spec["Type"] == "AWS::Serverless::StateMachine":
            machines.append(str(resolver.refs.get(logical)))
        elif spec["Type"] == "AWS::ApiGatewayV2::Api" and spec["Properties"].get("ProtocolType") == "WEBSOCKET":
            websocket = str(resolver.refs.get(logical, ""))
    return Naming(region, account, schema, websocket, stage, machines)


def key_shape(key: str) -> str:
    """A partition key with its ids left out: ``ROUND#r-1#SHARD#000`` -> ``ROUND#*#SHARD#*``."""
    parts = key.split("#")
    return "#".join(part if re.fullmatch(r"[A-Z_]+", part) else "*" for part in parts) if len(parts) > 1 else key


def summary(calls: Counter[Call] | set[Call]) -> list[str]:
    """The recorded calls, one line per function, action and resource, with the shapes of the
    partition keys touched and how many calls."""
    grouped: dict[tuple[str, str, str], tuple[set[str], int]] = {}
    counts = calls if isinstance(calls, Counter) else Counter(calls)
    for call, n in counts.items():
        shapes, total = grouped.get((call.function, call.action, call.resource), (set(), 0))
        shapes.update(key_shape(k) for k in call.keys or ())
        grouped[(call.function, call.action, call.resource)] = (shapes, total + n)
    return [f"{function}: {action} on {resource}{' keys ' + ','.join(sorted(shapes)) if shapes else ''} x{total}"
            for (function, action, resource), (shapes, total) in sorted(grouped.items())]
