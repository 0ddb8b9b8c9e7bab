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
- :class:`InMemory`: all of it, for a test: the tables made, the settings in use, the services
  standing in for boto3 in the block's thread (:meth:`InMemory.running`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from ..app import aws, config
from ..app.config import Settings
from ..local import template as tpl
from .dynamo import FakeDynamo

ACCOUNT, REGION = "123456789012", "us-east-1"


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


class NoWorkflows:
    """``boto3.client("stepfunctions")`` where no workflow runs (the test drives the round's steps):
    an execution asked for is noted and never runs; a task token is one of no execution, and is
    refused as Step Functions refuses it."""

    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []

    def start_execution(self, *, stateMachineArn: str, name: str, input: str) -> dict[str, Any]:
        self.started.append({"stateMachineArn": stateMachineArn, "name": name, "input": input})
        return {"executionArn": f"{stateMachineArn.replace(':stateMachine:', ':execution:')}:{name}",
                "startDate": time.time()}

    def send_task_success(self, *, taskToken: str, output: str) -> dict[str, Any]:
        raise client_error("TaskDoesNotExist", "Task Token does not exist", "SendTaskSuccess")


class InMemory:
    """The application on AWS in memory, for a test: the template's tables (named for ``stage``),
    the table bus's events kept, no workflow (:class:`NoWorkflows`). :meth:`running` points the
    application at it, in the calling thread (and the threads that run in a copy of its context)."""

    def __init__(self, root: Path, stage: str = "memory", **variables: str) -> None:
        self.dynamo = FakeDynamo(REGION, time.time)
        self.tables = template_tables(root, stage)
        for spec in self.tables:
            self.dynamo.create_table(**{k: v for k, v in spec.items() if k != "logical"})
        self.settings = settings_for(self.tables, stage, **variables)
        self.bus, self.sfn = EventBusInMemory(), NoWorkflows()
        self.aws = AwsInMemory(self.dynamo, {"events": self.bus, "stepfunctions": self.sfn})

    @contextlib.contextmanager
    def running(self) -> Iterator[InMemory]:
        with aws.standing_in(self.aws), config.using(self.settings):
            yield self
