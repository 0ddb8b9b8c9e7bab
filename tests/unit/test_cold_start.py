"""What the card path's functions import when they start, and what they leave to their first call
(docs/deploying.md, "The card path's cold start"; how long it takes is make bench's ``coldstart``).

Each handler is imported in a fresh process, as Lambda starts it (``LAMBDA_TASK_ROOT`` set,
tracing off as ``CardPathTracing`` leaves it): no X-Ray SDK, no boto3, no pydantic-settings, and
each function without what only some of its calls use. Where nobody waits for the start-up
(provisioned concurrency, SnapStart), what was left to the first call is imported at start-up.
Then the pieces: the tracer without the X-Ray SDK, the stand-in for boto3, the queue's batch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.app import aws, batch, tracing

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("boto3", "botocore.session", "aws_xray_sdk.core", "pydantic_settings", "asyncio", "croupier.roads",
           "aws_lambda_powertools.utilities.idempotency", "aws_lambda_powertools.utilities.batch",
           "croupier.app.decisions", "croupier.app.dealing", "urllib.request")
LAMBDA = {"AWS_LAMBDA_FUNCTION_NAME": "dev-croupier-test", "LAMBDA_TASK_ROOT": "/var/task", "AWS_REGION": "us-east-1",
          "AWS_DEFAULT_REGION": "us-east-1", "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
          "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_SERVICE_NAME": "croupier",
          "GAME_TABLE": "dev-croupier-game", "WALLET_TABLE": "dev-croupier-wallets",
          "IDEMPOTENCY_TABLE": "dev-croupier-idempotency",
          "ROUND_STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:dev-croupier-round"}
PROBE = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
importlib.import_module("app").lambda_handler
print(json.dumps({m: m in sys.modules for m in sys.argv[2:]}))
"""


def started(function: str, **env: str) -> dict[str, bool]:
    """Which of :data:`WATCHED` the function's handler module imported, in a process of its own."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "POWERTOOLS_", "LAMBDA_"))}
    done = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "functions" / function), *WATCHED],
                          env={**environ, **LAMBDA, **env}, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("function", ["dealing", "round", "decisions"])
def test_a_card_path_function_starts_without_the_sdk_the_tracer_or_pydantic_settings(function: str) -> None:
    loaded = started(function)
    assert not loaded["boto3"] and not loaded["botocore.session"], "boto3 is imported by the first call"
    assert not loaded["aws_xray_sdk.core"], "tracing is off: no X-Ray SDK"
    assert not loaded["pydantic_settings"] and not loaded["croupier.roads"]
    assert not loaded["urllib.request"], "the operators' wallets' HTTP client is a seamless call's"


def test_the_dealing_function_starts_without_asyncio_and_the_decisions_function_without_its_service() -> None:
    dealing = started("dealing")
    assert not dealing["asyncio"] and not dealing["aws_lambda_powertools.utilities.batch"]
    decisions = started("decisions")
    assert not decisions["croupier.app.decisions"] and not decisions["croupier.app.dealing"]
    assert not decisions["aws_lambda_powertools.utilities.idempotency"]


@pytest.mark.parametrize("kind", ["provisioned-concurrency", "snap-start"])
def test_where_nobody_waits_for_the_start_up_the_first_call_s_imports_are_made_at_once(kind: str) -> None:
    decisions = started("decisions", AWS_LAMBDA_INITIALIZATION_TYPE=kind)
    assert decisions["boto3"] and decisions["croupier.app.decisions"]
    assert decisions["aws_lambda_powertools.utilities.idempotency"]
    assert started("dealing", AWS_LAMBDA_INITIALIZATION_TYPE=kind)["boto3"]


def test_traced_the_function_loads_the_x_ray_sdk() -> None:
    loaded = started("dealing", POWERTOOLS_TRACE_DISABLED="false")
    assert loaded["aws_xray_sdk.core"]


# --- the tracer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("environ", "traced"), [
    ({"LAMBDA_TASK_ROOT": "/var/task"}, True),
    ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "false"}, True),
    ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
    ({"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "1"}, False),
    ({}, False),  # not in Lambda
    ({"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true"}, False),
])
def test_tracing_is_on_where_powertools_would_trace(environ: dict[str, str], traced: bool) -> None:
    assert tracing.enabled(environ) is traced


UNTRACED = """
import sys
from croupier.app import tracing
tracer = tracing.tracer()

@tracer.capture_lambda_handler
def handler(event, context):
    return {"answer": event["question"] * 2}

assert handler({"question": 21}, None) == {"answer": 42}
from aws_lambda_powertools import Tracer
later = Tracer()  # what croupier.app.tasks.task_function makes: it takes the same provider

@later.capture_method
def method():
    return "done"

assert method() == "done"
assert isinstance(later.provider, tracing.Untraced)
print("aws_xray_sdk.core" in sys.modules)
"""


def test_untraced_handlers_run_as_before_and_never_import_the_x_ray_sdk() -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("POWERTOOLS_")}
    done = subprocess.run([sys.executable, "-c", UNTRACED], env={**environ, **LAMBDA}, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "False"


# --- the stand-in for boto3 ---------------------------------------------------------------------


def test_the_lazy_module_imports_on_first_use_and_answers_as_the_module() -> None:
    probe = ("import sys\nfrom croupier.app.aws import LazyModule\nm = LazyModule('colorsys')\n"
             "before = 'colorsys' in sys.modules\nimport colorsys\nprint(before, m.rgb_to_hsv is colorsys.rgb_to_hsv, "
             "m.__name__)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True", "colorsys"]


def test_an_initialisation_is_prepared_only_under_provisioned_concurrency_or_snapstart() -> None:
    assert aws.prepared_initialisation({"AWS_LAMBDA_INITIALIZATION_TYPE": "provisioned-concurrency"})
    assert aws.prepared_initialisation({"AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start"})
    assert not aws.prepared_initialisation({"AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand"})
    assert not aws.prepared_initialisation({})


# --- the queue's batch --------------------------------------------------------------------------


def _records(*ids: str) -> dict[str, Any]:
    return {"Records": [{"messageId": i, "body": json.dumps({"n": i})} for i in ids]}


def test_each_record_is_handled_in_order_and_a_failed_one_is_reported_alone() -> None:
    seen: list[str] = []

    def handle(record: batch.Record) -> None:
        seen.append(record["messageId"])
        if record["messageId"] == "b":
            raise RuntimeError("the store did not answer")

    answer = batch.sqs_partial_response(_records("a", "b", "c"), handle)
    assert answer == {"batchItemFailures": [{"itemIdentifier": "b"}]}
    assert seen == ["a", "b", "c"]
    assert batch.sqs_partial_response(_records("a", "c"), handle) == {"batchItemFailures": []}
    assert batch.sqs_partial_response({"Records": []}, handle) == {"batchItemFailures": []}


def test_a_batch_whose_every_record_failed_fails_the_invocation() -> None:
    def handle(record: batch.Record) -> None:
        raise RuntimeError(f"no {record['messageId']}")

    with pytest.raises(ExceptionGroup) as raised:
        batch.sqs_partial_response(_records("a", "b"), handle)
    assert [str(e) for e in raised.value.exceptions] == ["no a", "no b"]


def test_an_event_without_records_is_not_a_batch() -> None:
    with pytest.raises(ValueError, match="not an SQS batch"):
        batch.sqs_partial_response({"detail": {}}, lambda record: None)
