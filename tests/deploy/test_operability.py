"""What an AWS engineer checks in the template before its first deploy, each as AWS documents it:
nothing asynchronous fails in silence, no timeout makes a duplicate, the audit trail has no hole,
the card path cannot be starved, and nothing holding money or accounts goes with a stack."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from croupier.local import template as tpl

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = tpl.load(ROOT / "template.yaml")
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
GLOBAL_TIMEOUT = int(TEMPLATE["Globals"]["Function"]["Timeout"])
FUNCTIONS = {k: v["Properties"] for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Function"}
QUEUES = {k: v["Properties"] for k, v in RESOURCES.items() if v["Type"] == "AWS::SQS::Queue"}


def _logical(ref: Any) -> str:
    """The logical id behind ``!GetAtt X.Arn`` / ``!Ref X``."""
    if isinstance(ref, dict):
        value = ref.get("Fn::GetAtt") or ref.get("Ref")
        return value[0] if isinstance(value, list) else str(value).split(".")[0]
    raise AssertionError(f"not a reference: {ref!r}")


def _timeout(props: dict[str, Any]) -> int:
    return int(props.get("Timeout", GLOBAL_TIMEOUT))


def _events(kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(name, event["Properties"]) for name, props in FUNCTIONS.items()
            for event in (props.get("Events") or {}).values() if event["Type"] == kind]


def test_each_http_function_answers_within_api_gateways_29_seconds() -> None:
    http = [name for name, props in FUNCTIONS.items()
            if any(e["Type"] == "Api" for e in (props.get("Events") or {}).values())]
    assert http
    assert {name: _timeout(FUNCTIONS[name]) for name in http if _timeout(FUNCTIONS[name]) >= 29} == {}


@pytest.mark.parametrize("function,queue", [(f, _logical(p["Queue"])) for f, p in _events("SQS")])
def test_a_queues_visibility_is_six_times_its_consumers_timeout(function: str, queue: str) -> None:
    """AWS: set the source queue's visibility timeout to at least six times the function's timeout,
    or a message is delivered again while its first delivery still runs."""
    assert int(QUEUES[queue]["VisibilityTimeout"]) >= 6 * _timeout(FUNCTIONS[function])


@pytest.mark.parametrize("queue", [q for q, p in QUEUES.items() if "RedrivePolicy" in p])
def test_every_queue_with_a_consumer_has_a_dead_letter_queue_under_an_alarm(queue: str) -> None:
    dead = _logical(QUEUES[queue]["RedrivePolicy"]["deadLetterTargetArn"])
    assert dead in QUEUES
    alarms = json.dumps([v for v in RESOURCES.values() if v["Type"] == "AWS::CloudWatch::Alarm"])
    assert f'"{dead}"' in alarms, f"no alarm watches {dead}"


def test_the_alarms_watch_every_dead_letter_queue_and_destination() -> None:
    alarms = json.dumps([v for v in RESOURCES.values() if v["Type"] == "AWS::CloudWatch::Alarm"])
    consumed = {_logical(p["Queue"]) for _, p in _events("SQS")}
    for queue in set(QUEUES) - consumed:  # a queue nobody consumes keeps what failed
        assert f'"{queue}"' in alarms, f"no alarm watches {queue}"


def test_no_rule_target_takes_a_json_path_where_aws_takes_a_literal() -> None:
    """EventBridge rule targets' SqsParameters.MessageGroupId is a fixed string (only Pipes take
    dynamic paths); every target keeps what it cannot deliver."""
    rules = [v["Properties"] for v in RESOURCES.values() if v["Type"] == "AWS::Events::Rule"]
    assert rules
    for rule in rules:
        for target in rule["Targets"]:
            assert "$." not in json.dumps(target.get("SqsParameters", {})), target
            assert "Arn" in target.get("DeadLetterConfig", {}), f"target {target['Id']} has no dead-letter queue"


def test_the_schedule_and_the_stream_keep_what_they_could_not_deliver() -> None:
    for function, schedule in _events("Schedule"):
        assert "DeadLetterConfig" in schedule and "RetryPolicy" in schedule, function
        assert FUNCTIONS[function]["EventInvokeConfig"]["DestinationConfig"]["OnFailure"]["Destination"]
    for function, stream in _events("DynamoDB"):
        assert stream["DestinationConfig"]["OnFailure"]["Destination"], function
        assert int(stream["MaximumRetryAttempts"]) >= 1 and stream.get("BisectBatchOnFunctionError") is True


def test_the_card_path_has_its_own_concurrency() -> None:
    for name in ("DealingFunction", "RoundFunction", "SettlementFunction"):
        reserved = FUNCTIONS[name]["ReservedConcurrentExecutions"]
        assert reserved == {"Fn::If": ["ReserveCardPath", {"Ref": "CardPathConcurrency"}, {"Ref": "AWS::NoValue"}]}
    assert int(TEMPLATE["Parameters"]["CardPathConcurrency"]["Default"]) > 0


def test_the_outbox_never_calls_an_operator_from_every_poller_at_once() -> None:
    mapping, = [p for f, p in _events("SQS") if f == "OutboxFunction"]
    assert 2 <= int(mapping["ScalingConfig"]["MaximumConcurrency"]) <= 10


def test_the_workflow_logs_errors_without_data_and_ends_within_its_bound() -> None:
    machine = RESOURCES["RoundStateMachine"]["Properties"]
    assert machine["Logging"]["Level"] == "ERROR" and machine["Logging"]["IncludeExecutionData"] is False
    definition = json.loads((ROOT / machine["DefinitionUri"]).read_text())
    longest_pause = 86_400  # Timers.pause_void's upper bound
    assert int(definition["TimeoutSeconds"]) >= longest_pause + 6 * 3600


def test_both_api_stages_log_access_without_tokens_or_bodies() -> None:
    rest = RESOURCES["CroupierApi"]["Properties"]["AccessLogSetting"]["Format"]
    ws = RESOURCES["WebSocketStage"]["Properties"]["AccessLogSettings"]["Format"]
    for fmt in (rest, ws):
        json.loads(re.sub(r"\$context\.[A-Za-z.]+", "x", fmt))  # one JSON object a line
        for secret in ("querystring", "requestOverride", "header", "body", "authorizer.token"):
            assert secret.lower() not in fmt.lower(), secret


def test_connect_is_throttled_below_the_other_routes() -> None:
    stage = RESOURCES["WebSocketStage"]["Properties"]
    connect = stage["RouteSettings"]["$connect"]
    assert int(connect["ThrottlingRateLimit"]) < int(stage["DefaultRouteSettings"]["ThrottlingRateLimit"])


def test_tables_and_accounts_outlive_the_stack() -> None:
    for name, spec in RESOURCES.items():
        if spec["Type"] == "AWS::DynamoDB::Table":
            assert spec["Properties"].get("DeletionProtectionEnabled") is True, name
            assert spec.get("DeletionPolicy") == "Retain", name
    pool = RESOURCES["UserPool"]
    assert pool.get("DeletionPolicy") == "Retain" and pool["Properties"].get("DeletionProtection") == "ACTIVE"


COUNTED = re.compile(r"\bcount\(([^)\n]*)")
METRIC = re.compile(r"""["']([A-Z][A-Za-z]+)["']""")
TOLD_NOT_ALARMED = {
    "BetsPlaced": "business volume",
    "RoundsSettled": "business volume",
    "RoundsVoided": "business volume (a void's cause raised its own alarm, or was a supervisor's)",
    "IdempotentReplays": "a client's retry, answered as the first time",
    "ScreensGone": "a screen that disconnected, its connection removed",
    "WalletCalls": "an operator wallet's traffic",
    "WalletCallsRetried": "a call retried on its backoff; an outage has WalletCallsUnanswered",
}
"""The metrics the code counts that report normal work, each with why no alarm watches it."""


def _alarmed_metrics() -> set[str]:
    named: set[str] = set()
    for resource in RESOURCES.values():
        if resource["Type"] != "AWS::CloudWatch::Alarm":
            continue
        props = resource["Properties"]
        named |= {props["MetricName"]} if "MetricName" in props else set()
        named |= {m["MetricStat"]["Metric"]["MetricName"] for m in props.get("Metrics", []) if "MetricStat" in m}
    return named


def test_every_failure_the_code_counts_is_under_an_alarm() -> None:
    """A metric counted for something that went wrong reaches an operator only through an alarm:
    each one the code counts is watched by one, or is listed above as normal work."""
    sources = [*(ROOT / "layers/shared/croupier").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]
    counted = {name for path in sources for call in COUNTED.findall(path.read_text(encoding="utf-8"))
               for name in METRIC.findall(call)}
    assert {"AlertsNotPublished", "RoundsPaused", "RoundsVoided"} <= counted  # the patterns find the calls
    assert set(TOLD_NOT_ALARMED) <= counted, "a metric listed as normal work that the code no longer counts"
    unwatched = counted - _alarmed_metrics() - set(TOLD_NOT_ALARMED)
    assert unwatched == set(), f"counted, but no alarm watches: {sorted(unwatched)}"
