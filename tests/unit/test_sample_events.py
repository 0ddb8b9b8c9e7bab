"""The sample events in events/ are the shapes the functions really receive: each API event names a
route of template.yaml and carries authorizer claims; each SQS record carries a valid table event;
each workflow event parses with its task model."""

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
from croupier.app.tasks import RoundTask, SettlementTask
from croupier.local import template as tpl

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


@pytest.mark.parametrize("path", EVENTS, ids=lambda p: p.name)
def test_sample_event_is_well_formed(path: Path) -> None:
    event = json.loads(path.read_text())
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
    elif "Records" in event:
        for record in event["Records"]:
            body = json.loads(record["body"])
            event_id, detail_type, detail = parse_event(body)
            assert event_id and detail_type and detail.table_id
            assert body["source"].endswith("." + detail.table_id)
            assert record["attributes"]["MessageGroupId"] == detail.table_id  # one ordered group per table
    elif kind == "round":
        assert RoundTask.model_validate(event).round_id
    else:
        assert kind == "settlement"
        assert SettlementTask.model_validate(event).round_id
