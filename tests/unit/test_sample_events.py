"""The sample events in events/ are the shapes the functions really receive: each API event names a
route of template.yaml and carries authorizer claims; each SQS record carries a valid table event;
each workflow event parses with its task model. What must name something that exists only at run
time is a placeholder `croupier invoke` fills: the round (``{{round_id}}``, from ``--round``) and
a money-moving request's Idempotency-Key (``{{idempotency_key}}``, fresh at each invocation)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from boto3.dynamodb.types import TypeDeserializer

from croupier.app import store
from croupier.app.events import parse_event
from croupier.app.identity import from_event
from croupier.app.live import events_of, validated
from croupier.app.screens import Message
from croupier.app.seamless import OutboxMessage
from croupier.app.tasks import RoundTask, SettlementTask
from croupier.local import template as tpl
from croupier.local.invoke import InvokeError, fill, placeholders

ROOT = Path(__file__).resolve().parents[2]
EVENTS = sorted((ROOT / "events").glob("*.json"))
TEMPLATE = tpl.load(ROOT / "template.yaml")


WEBSOCKET_ROUTES = {(spec["Properties"]["RouteKey"], {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(
    spec["Properties"]["RouteKey"], "MESSAGE")) for spec in TEMPLATE["Resources"].values()
    if spec["Type"] == "AWS::ApiGatewayV2::Route"}


def _routes() -> dict[tuple[str, str], str]:
    out = {}
    for logical, spec in TEMPLATE["Resources"].items():
        for event in spec.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "Api":
                out[(event["Properties"]["Method"].upper(), event["Properties"]["Path"])] = logical
    return out


def test_every_function_has_a_sample_event() -> None:
    prefixes = {p.name.split("-")[0] for p in EVENTS}
    functions = {name.removesuffix("Function").lower() for name, spec in TEMPLATE["Resources"].items()
                 if spec["Type"] == "AWS::Serverless::Function"}
    assert functions <= prefixes, f"no sample event for {sorted(functions - prefixes)}"


SAMPLE = {"round_id": "dlx-1-s-1-001-abc123"}


@pytest.mark.parametrize("path", EVENTS, ids=lambda p: p.name)
def test_sample_event_is_well_formed(path: Path) -> None:
    event = json.loads(fill(path.read_text(), SAMPLE))
    kind = path.name.split("-")[0]
    if "httpMethod" in event:
        route = (event["httpMethod"], event["resource"])
        assert route in _routes(), f"{route} is not a route of template.yaml"
        pattern = "^" + re.sub(r"\{[a-z_]+\}", "[^/]+", event["resource"]) + "$"
        assert re.match(pattern, event["path"])
        assert from_event(event).subject
    elif kind == "connections":
        context = event["requestContext"]
        assert (context["routeKey"], context["eventType"]) in WEBSOCKET_ROUTES
        if context["eventType"] == "CONNECT":
            assert event["queryStringParameters"]["token"]
        if context["eventType"] == "MESSAGE":
            assert Message.model_validate_json(event["body"]).action == context["routeKey"]
    elif kind == "live":
        for record in event["Records"]:
            change = record["dynamodb"]
            old = store.plain(TypeDeserializer().deserialize({"M": change["OldImage"]}))
            new = store.plain(TypeDeserializer().deserialize({"M": change["NewImage"]}))
            assert events_of(old, new, 0), "a sample stream record that makes no event"
    elif kind == "push":
        for record in event["Records"]:
            delivery = json.loads(record["body"])
            assert record["attributes"]["MessageGroupId"] == f"{delivery['watched']}:{delivery['slot']}"
            assert [validated(e) for e in delivery["events"]] == delivery["events"]
    elif kind == "outbox":
        if "Records" in event:  # the outbox queue: a call to send
            assert all(OutboxMessage.model_validate_json(r["body"]).transaction_id for r in event["Records"])
        else:  # the sweeper's schedule
            assert (event["source"], event["detail-type"]) == ("aws.events", "Scheduled Event")
    elif "Records" in event:
        for record in event["Records"]:
            body = json.loads(record["body"])
            event_id, detail_type, detail = parse_event(body)
            assert event_id and detail_type and detail.table_id
            assert body["source"].endswith("." + detail.table_id)
            assert "MessageGroupId" not in record["attributes"]  # a standard queue: the reader's seq orders
            assert record["eventSourceARN"].endswith(":dev-croupier-table-events")
    elif kind == "round":
        assert RoundTask.model_validate(event).round_id
    else:
        assert kind == "settlement"
        assert SettlementTask.model_validate(event).round_id


@pytest.mark.parametrize("path", EVENTS, ids=lambda p: p.name)
def test_run_time_names_are_placeholders(path: Path) -> None:
    text = path.read_text()
    assert placeholders(text) <= {"round_id", "idempotency_key", "now"}
    event = json.loads(text)
    for record in event.get("Records", []) if isinstance(event.get("Records"), list) else []:
        body = json.loads(record["body"]) if str(record.get("body", "")).startswith("{") else {}
        if "detail-type" in body:  # a device's bus event is sent when it is invoked: a card sent days
            assert body["time"] == "{{now}}"  # before its round opened is not that round's card
    round_scoped = "round_id" in event or "{round_id}" in str(event.get("resource"))
    assert ("round_id" in placeholders(text)) == round_scoped  # never a literal round id: it could not exist
    if "Idempotency-Key" in (event.get("headers") or {}):
        assert event["headers"]["Idempotency-Key"] == "{{idempotency_key}}"  # a new request at each invocation
        assert event["multiValueHeaders"]["Idempotency-Key"] == ["{{idempotency_key}}"]


def test_placeholders_are_filled_and_a_missing_round_is_asked_for() -> None:
    text = (ROOT / "events" / "query-round.json").read_text()
    event = json.loads(fill(text, {"round_id": "bac-1-s-9-002-ffffff"}))
    assert event["pathParameters"]["round_id"] == "bac-1-s-9-002-ffffff"
    assert event["path"] == "/rounds/bac-1-s-9-002-ffffff" and event["resource"] == "/rounds/{round_id}"
    with pytest.raises(InvokeError, match=r"the event needs \{\{round_id\}\}: give --round ID"):
        fill(text, {})
    first, second = (json.loads(fill((ROOT / "events" / "wallet-deposit.json").read_text(), {}))
                     for _ in range(2))
    assert first["headers"]["Idempotency-Key"] != second["headers"]["Idempotency-Key"]


def test_the_samples_play_one_table() -> None:
    """Set up in order, the samples are one table's story: dlx-1 created with reader-1, alice
    funded and seated at seat 1, its dealer console opening a round, alice betting on seat 1."""
    def body(name: str) -> dict[str, object]:
        return dict(json.loads(json.loads(fill((ROOT / "events" / name).read_text(), SAMPLE))["body"]))

    created = body("tables-create.json")
    assert (created["table_id"], created["reader_id"]) == ("dlx-1", "reader-1")
    start = json.loads((ROOT / "events" / "tables-start-round.json").read_text())
    assert from_event(start).table == "dlx-1"
    assert body("bets-place.json") == {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]}
    sit = json.loads((ROOT / "events" / "tables-sit.json").read_text())
    assert sit["pathParameters"] == {"table_id": "dlx-1", "seat": "1"}
    for record in json.loads((ROOT / "events" / "dealing-card-scanned.json").read_text())["Records"]:
        assert json.loads(record["body"])["detail"]["reader_id"] == "reader-1"
