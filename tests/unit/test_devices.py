"""A device speaks only for its own table: what AWS enforces (the template's policies and rule) and
what the dealing function checks (the event's source against its detail)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from croupier.app.events import CONSOLE, KINDS, READER, BadEvent, parse_event, source_of
from croupier.local import template as tpl

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = tpl.load(ROOT / "template.yaml")["Resources"]


def _event(source: str, detail_type: str, detail: dict[str, Any]) -> dict[str, Any]:
    return {"version": "0", "id": "e-1", "detail-type": detail_type, "source": source, "account": "123456789012",
            "time": "2026-12-01T00:00:00Z", "region": "us-east-1", "resources": [], "detail": detail}


CARD = {"table_id": "bac-1", "reader_id": "r-1", "scan_id": "s-1", "seq": 1, "card": "TD"}


@pytest.mark.parametrize("policy,device", [("CardReaderPolicy", READER), ("DealerConsolePolicy", CONSOLE)])
def test_a_device_policy_allows_only_its_own_tables_source_and_its_own_kinds(policy: str, device: str) -> None:
    statements = RESOURCES[policy]["Properties"]["PolicyDocument"]["Statement"]
    assert len(statements) == 1
    (statement,) = statements
    assert statement["Effect"] == "Allow" and statement["Action"] == "events:PutEvents"
    assert statement["Resource"] == {"Fn::GetAtt": ["TableEventBus", "Arn"]}
    condition = statement["Condition"]
    assert condition["StringEquals"]["events:source"] == f"{device}.${{aws:PrincipalTag/croupier-table}}"
    assert sorted(condition["StringEquals"]["events:detail-type"]) == sorted(KINDS[device])
    assert condition["Null"] == {"aws:PrincipalTag/croupier-table": "false"}  # an untagged principal gets nothing


def test_the_bus_rule_takes_only_the_devices_sources_into_a_standard_queue() -> None:
    """No order is asked of the transport (a reader numbers its events): a standard queue, no
    message group (a rule target's MessageGroupId is a fixed string on AWS), and what the bus
    cannot deliver kept in a queue of its own."""
    rule = RESOURCES["TableEventsRule"]["Properties"]
    assert rule["EventPattern"] == {"source": [{"prefix": f"{READER}."}, {"prefix": f"{CONSOLE}."}]}
    (target,) = rule["Targets"]
    assert "SqsParameters" not in target and target["Arn"] == {"Fn::GetAtt": ["TableEventsQueue", "Arn"]}
    assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": ["TableEventsUndeliveredQueue", "Arn"]}}
    assert "FifoQueue" not in RESOURCES["TableEventsQueue"]["Properties"]


def test_a_reader_event_carries_the_readers_number() -> None:
    without = {k: v for k, v in CARD.items() if k != "seq"}
    with pytest.raises(BadEvent, match="seq"):
        parse_event(_event(source_of(READER, "bac-1"), "card-scanned", without))
    for bad in (0, -1, "3", 1.5, 10**12):
        with pytest.raises(BadEvent, match="seq"):
            parse_event(_event(source_of(READER, "bac-1"), "card-scanned", {**CARD, "seq": bad}))
    assert parse_event(_event(source_of(READER, "bac-1"), "card-scanned", {**CARD, "seq": 7}))[2].seq == 7  # type: ignore[attr-defined]


def test_pauses_and_cards_no_round_took_raise_alarms_an_operator_can_route() -> None:
    for alarm, metrics in (("RoundsPausedAlarm", {"RoundsPaused"}),
                           ("CardsNotTakenAlarm", {"CardsNotTaken", "DeviceEventsRefused", "DeviceEventsInvalid"})):
        props = RESOURCES[alarm]["Properties"]
        named = {props.get("MetricName")} | {m["MetricStat"]["Metric"]["MetricName"] for m in props.get("Metrics", [])
                                              if "MetricStat" in m}
        assert metrics <= named
        assert props["AlarmActions"] == [{"Ref": "AlertsTopic"}]
    # the functions that raise alerts on the bus (the settlement function only counts metrics: the
    # least-privilege check found it never puts an event, and its grant went)
    for function in ("DealingFunction", "RoundFunction", "DecisionsFunction", "TablesFunction"):
        policies = RESOURCES[function]["Properties"]["Policies"]
        assert {"EventBridgePutEventsPolicy": {"EventBusName": {"Ref": "TableEventBus"}}} in policies, function


def test_an_event_names_its_table_in_its_source() -> None:
    event_id, kind, detail = parse_event(_event(source_of(READER, "bac-1"), "card-scanned", CARD))
    assert (event_id, kind, detail.table_id) == ("e-1", "card-scanned", "bac-1")
    _, kind, detail = parse_event(_event(source_of(CONSOLE, "bac-1"), "shoe-shuffled", {"table_id": "bac-1"}))
    assert kind == "shoe-shuffled"


@pytest.mark.parametrize("source,detail_type,reason", [
    (f"{READER}.other-table", "card-scanned", "wrong-table"),
    (f"{READER}.bac-1.x", "card-scanned", "wrong-table"),
    (READER, "card-scanned", "wrong-source"),
    ("croupier.somebody.bac-1", "card-scanned", "wrong-source"),
    (f"{CONSOLE}.bac-1", "card-scanned", "wrong-source"),
    (f"{READER}.bac-1", "shoe-shuffled", "wrong-source"),
])
def test_an_event_for_another_table_or_from_the_other_device_is_refused(source: str, detail_type: str,
                                                                        reason: str) -> None:
    detail = CARD if detail_type == "card-scanned" else {"table_id": "bac-1"}
    with pytest.raises(BadEvent) as refused:
        parse_event(_event(source, detail_type, detail))
    assert refused.value.reason == reason, refused.value
