"""The application's AWS in memory, with no world around it: the template's DynamoDB tables in
:class:`~croupier.sim.dynamo.FakeDynamo`, and the other services the application calls given as
objects. The simulation (:mod:`croupier.sim.world`) runs on it, and so do the tests that drive the
application's modules themselves (a round's steps, a crash after any write) rather than through the
local stack.

- :func:`template_tables`: each ``AWS::DynamoDB::Table`` of ``template.yaml``, as ``create_table``
  takes it (with its logical id);
- :func:`settings_for`: the functions' settings for those tables (what their environment says on AWS);
- :class:`AwsInMemory`: what ``boto3.client`` and ``boto3.resource`` give the application within
  :func:`croupier.app.aws.standing_in`;
- :func:`function_handler` and :class:`Context`: a function's Lambda handler, loaded from
  ``functions/``, and the context Lambda hands it;
- :class:`InMemory`: all of it, for a test: the tables made, the settings in use, the services
  standing in for boto3 in the block's thread (:meth:`InMemory.running`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from botocore.exceptions import ClientError

from ..app import aws, config
from ..app.config import Settings
from ..local import template as tpl
from .dynamo import FakeDynamo

ACCOUNT, REGION = "123456789012", "us-east-1"
POWERTOOLS = {"POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_SERVICE_NAME": "croupier-sim",
              "POWERTOOLS_METRICS_NAMESPACE": "CroupierSim", "POWERTOOLS_LOG_LEVEL": "WARNING"}
"""What the functions' Powertools read as their module is imported (the template's globals on AWS)."""
Handler = Callable[[dict[str, Any], Any], Any]


def template_tables(root: Path, stage: str) -> list[dict[str, Any]]:
    """The template's DynamoDB tables, named as a stack of ``stage`` names them: ``create_table``'s
    arguments, and ``logical``: the table's logical id."""
    template = tpl.load(root / "template.yaml")
    resolver = tpl.Resolver(template, {"Stage": stage}, REGION, ACCOUNT)
    return [{"logical": logical, **tpl.table_args(resolver.resolve(spec["Properties"]))}
            for logical, spec in template["Resources"].items() if spec["Type"] == "AWS::DynamoDB::Table"]


def settings_for(tables: list[dict[str, Any]], stage: str, **variables: str) -> Settings:
    """The functions' settings with ``tables`` (:func:`template_tables`), and ``variables`` (their
    environment variables, by name) for the rest; what the template leaves to its defaults keeps them."""
    names = {spec["logical"]: spec["TableName"] for spec in tables}
    game = next(n for k, n in names.items() if "Game" in k)
    wallet = next(n for k, n in names.items() if "Wallet" in k)
    idempotency = next((n for k, n in names.items() if "Idempotency" in k), f"croupier-{stage}-idempotency")
    return Settings.from_env({
        "GAME_TABLE": game, "WALLET_TABLE": wallet, "IDEMPOTENCY_TABLE": idempotency,
        "ROUND_STATE_MACHINE_ARN": f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:croupier-{stage}-round",
        "EVENT_BUS": f"croupier-{stage}-table-bus", "STAGE": stage, **variables})


class AwsInMemory:
    """What ``boto3`` gives the application within :func:`croupier.app.aws.standing_in`: ``dynamo``
    as DynamoDB's resource (and its client), ``clients`` for the other services. A service it does
    not have is refused, naming it: the application called it on a path nobody meant to run here."""

    def __init__(self, dynamo: FakeDynamo, clients: Mapping[str, Any]) -> None:
        self.dynamo, self.clients = dynamo, {**clients, "dynamodb": dynamo.meta.client}

    def resource(self, service: str, *args: Any, **kwargs: Any) -> Any:
        if service != "dynamodb":
            raise ValueError(f"in memory, there is no {service} resource")
        return self.dynamo

    def client(self, service: str, *args: Any, **kwargs: Any) -> Any:
        if service not in self.clients:
            raise ValueError(f"in memory, there is no {service} client: the application called it on a path "
                             "that does not run here")
        return self.clients[service]


class Unreliable:
    """A service's client whose every call goes through ``call`` (with the operation's name, the
    client's own method and its parameters), which may fail it: a simulation's faults on the way."""

    def __init__(self, client: Any, call: Callable[..., Any]) -> None:
        self.client, self._call = client, call

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)
        if name.startswith("_") or not callable(method):
            return method
        return lambda **params: self._call(name, method, params)


BATCHES = frozenset({("sqs", "send_message_batch"), ("events", "put_events")})
"""The calls whose entries may fail one by one, the call itself answered: SQS's ``SendMessageBatch``
(``Failed``) and EventBridge's ``PutEvents`` (``FailedEntryCount``, an entry's ``ErrorCode``)."""


def partly(operation: str, method: Callable[..., dict[str, Any]], params: Mapping[str, Any],
           failed: set[int]) -> dict[str, Any]:
    """A batch call (:data:`BATCHES`) whose entries at the positions ``failed`` fail, as the service
    answers then: the others are sent, those are not, and the answer says which."""
    entries = list(params["Entries"])
    sent = [e for i, e in enumerate(entries) if i not in failed]
    answer = method(**{**params, "Entries": sent}) if sent else {}
    if operation == "send_message_batch":
        return {"Successful": answer.get("Successful", []),
                "Failed": [{"Id": entries[i]["Id"], "SenderFault": False, "Code": "InternalError",
                            "Message": "the message was not sent (a failure of the service)"} for i in sorted(failed)]}
    done = iter(answer.get("Entries", []))
    return {"FailedEntryCount": len(failed),
            "Entries": [{"ErrorCode": "InternalFailure", "ErrorMessage": "the event was not put (a failure of the "
                         "service)"} if i in failed else next(done) for i in range(len(entries))]}


def client_error(code: str, message: str, operation: str) -> ClientError:
    """The error boto3 raises for a refusal of ``code``."""
    return ClientError({"Error": {"Code": code, "Message": message}}, operation)


class EventBusInMemory:
    """``boto3.client("events")``: what the application publishes, kept."""

    def __init__(self) -> None:
        self.published: list[dict[str, Any]] = []

    def put_events(self, *, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        self.published.extend(Entries)
        return {"FailedEntryCount": 0, "Entries": [{"EventId": f"e-{len(self.published)}"} for _ in Entries]}


MAX_DELAY_SECONDS = 900
"""The longest delay SQS gives a message (15 minutes)."""


class SqsInMemory:
    """``boto3.client("sqs")``: the queues a world keeps, by URL (``send``: put one message on a
    queue, its group and deduplication id given for a FIFO queue, and its delay in seconds). Only
    the batch send is interpreted: the one call the functions a world runs make (the push queue's
    fan-out, the wallet outbox's calls)."""

    def __init__(self, send: Callable[[str, str, str | None, str | None, int], str | None]) -> None:
        self.send = send

    def send_message_batch(self, *, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        if not 1 <= len(Entries) <= 10:
            raise client_error("AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
                               f"a batch holds 1 to 10 messages, not {len(Entries)}", "SendMessageBatch")
        delays = [entry.get("DelaySeconds", 0) for entry in Entries]
        if any(not isinstance(d, int) or not 0 <= d <= MAX_DELAY_SECONDS for d in delays):
            raise client_error("InvalidParameterValue", f"DelaySeconds is 0 to {MAX_DELAY_SECONDS}, not {delays}",
                               "SendMessageBatch")
        done = []
        for entry, delay in zip(Entries, delays, strict=True):
            self.send(QueueUrl, entry["MessageBody"], entry.get("MessageGroupId"),
                      entry.get("MessageDeduplicationId"), delay)
            done.append({"Id": entry["Id"], "MessageId": f"m-{entry['Id']}"})
        return {"Successful": done, "Failed": []}


class SsmInMemory:
    """``boto3.client("ssm")``: parameters by name (the operators' wallets). What is not there is
    refused ``ParameterNotFound``, as SSM refuses it."""

    def __init__(self) -> None:
        self.parameters: dict[str, str] = {}

    def put_parameter(self, *, Name: str, Value: str, Type: str = "String", Overwrite: bool = False,
                      **_: Any) -> dict[str, Any]:
        if Name in self.parameters and not Overwrite:
            raise client_error("ParameterAlreadyExists", f"parameter {Name} exists", "PutParameter")
        self.parameters[Name] = Value
        return {"Version": 1}

    def get_parameter(self, *, Name: str, WithDecryption: bool = False) -> dict[str, Any]:
        if Name not in self.parameters:
            raise client_error("ParameterNotFound", f"no parameter {Name}", "GetParameter")
        return {"Parameter": {"Name": Name, "Value": self.parameters[Name]}}


class ScreensInMemory:
    """``boto3.client("apigatewaymanagementapi")``: the screens' WebSocket connections. A post is
    handed to ``posted`` (the connection, the message's text); a closed connection is gone (410)."""

    def __init__(self, posted: Callable[[str, str], None]) -> None:
        self.posted, self.closed = posted, set[str]()

    def post_to_connection(self, *, ConnectionId: str, Data: bytes | str) -> dict[str, Any]:
        if ConnectionId in self.closed:
            raise client_error("GoneException", f"connection {ConnectionId} is gone", "PostToConnection")
        self.posted(ConnectionId, Data.decode() if isinstance(Data, bytes) else Data)
        return {}

    def delete_connection(self, *, ConnectionId: str) -> dict[str, Any]:
        self.closed.add(ConnectionId)
        return {}


class NoWorkflows:
    """``boto3.client("stepfunctions")`` where no workflow runs (the test drives the round's steps):
    an execution asked for is noted and never runs; a task token is one of no execution, and is
    refused as Step Functions refuses it."""

    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []
        self.woken: list[str] = []
        """The task tokens the application sent success to (each refused)."""

    def start_execution(self, *, stateMachineArn: str, name: str, input: str) -> dict[str, Any]:
        self.started.append({"stateMachineArn": stateMachineArn, "name": name, "input": input})
        return {"executionArn": f"{stateMachineArn.replace(':stateMachine:', ':execution:')}:{name}",
                "startDate": time.time()}

    def send_task_success(self, *, taskToken: str, output: str) -> dict[str, Any]:
        self.woken.append(taskToken)
        raise client_error("TaskDoesNotExist", "Task Token does not exist", "SendTaskSuccess")


class Context:
    """What a handler reads from Lambda's context (Powertools included)."""

    memory_limit_in_mb = 512
    function_version = "$LATEST"

    def __init__(self, function: str) -> None:
        self.function_name = function
        self.invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{function}"
        self.aws_request_id = "sim"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def function_handler(root: Path, name: str, environment: int = 1) -> Handler:
    """The Lambda handler of ``functions/{name}/app.py``, its module loaded once per process (with
    :data:`POWERTOOLS` in the environment as it is imported). ``environment``: which of the
    function's execution environments: each has its handler module loaded apart (its own batch
    processor and logger; the shared layer's modules, and Powertools' metrics, stay one per
    process), as Lambda runs two invocations at once in two environments."""
    module_name = f"croupier_sim_function_{name}" + (f"_{environment}" if environment != 1 else "")
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, root / "functions" / name / "app.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        with _environment(POWERTOOLS):
            spec.loader.exec_module(module)
    assert isinstance(module, ModuleType)
    handler: Handler = module.lambda_handler
    return handler


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class InMemory:
    """The application on AWS in memory, for a test: the template's tables (named for ``stage``),
    the table bus's events kept, no workflow (:class:`NoWorkflows`), and ``clients`` for any other
    service (a test's recorders). :meth:`running` points the application at it, in the calling
    thread (and the threads that run in a copy of its context)."""

    def __init__(self, root: Path, stage: str = "memory", clients: Mapping[str, Any] | None = None,
                 **variables: str) -> None:
        self.root = root
        self.dynamo = FakeDynamo(REGION, time.time)
        self.tables = template_tables(root, stage)
        for spec in self.tables:
            self.dynamo.create_table(**{k: v for k, v in spec.items() if k != "logical"})
        self.settings = settings_for(self.tables, stage, **variables)
        self.bus, self.sfn = EventBusInMemory(), NoWorkflows()
        self.aws = AwsInMemory(self.dynamo, {"events": self.bus, "stepfunctions": self.sfn, **(clients or {})})

    def invoke(self, function: str, event: dict[str, Any]) -> Any:
        """Run one invocation of ``functions/{function}``'s handler here, on this AWS."""
        with self.running():
            return function_handler(self.root, function)(event, Context(function))

    @contextlib.contextmanager
    def running(self) -> Iterator[InMemory]:
        with aws.standing_in(self.aws), config.using(self.settings):
            yield self
