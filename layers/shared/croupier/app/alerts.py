"""What the application tells the people around the table: events on the table bus and metrics.

A paused round, or a card that no round could take, must reach a supervisor at once, never only a
field to poll: each is published as an event on the table bus (source ``croupier``; a supervisor's
console, or an operator's own system, subscribes with a rule) and counted as a CloudWatch metric
(Powertools Metrics, namespace ``Croupier``) with an alarm in ``template.yaml``.

Publishing comes after the change is stored and never undoes it: a bus that cannot be reached is
logged and counted (``AlertsNotPublished``), and the metric still reaches the alarm.
"""

from __future__ import annotations

import json
import time
from typing import Any

import boto3
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from botocore.exceptions import BotoCoreError, ClientError

from .config import settings

SOURCE = "croupier"
SCHEMA_VERSION = 1
logger = Logger(service="croupier")
_clients: dict[str, Any] = {}


def _events() -> Any:
    client = _clients.get("events")
    if client is None:
        client = _clients["events"] = boto3.client("events")
    return client


def reset_clients() -> None:
    _clients.clear()


def count(metric: str, value: int = 1) -> None:
    """Add to a business metric of this invocation (flushed by the handler's ``log_metrics``)."""
    Metrics().add_metric(name=metric, unit=MetricUnit.Count, value=value)


def idempotent_replay(response: Any, idempotent_data: Any) -> Any:
    """Powertools idempotency's response hook: a request answered with its first answer (a client's
    retry with the same ``Idempotency-Key``) is counted, and answered unchanged."""
    count("IdempotentReplays")
    return response


def publish(detail_type: str, detail: dict[str, Any]) -> bool:
    """Put one event of the application on the table bus. Never raises: False if it failed."""
    bus = settings().event_bus
    body = {"schema_version": SCHEMA_VERSION, "at": int(time.time() * 1000), **detail}
    if not bus:
        return False
    try:
        response = _events().put_events(Entries=[{"Source": SOURCE, "DetailType": detail_type, "EventBusName": bus,
                                                  "Detail": json.dumps(body)}])
        failed = bool(response.get("FailedEntryCount"))
    except (BotoCoreError, ClientError) as exc:
        logger.error("alert not published", extra={"detail_type": detail_type, "error": str(exc)})
        failed = True
    if failed:
        count("AlertsNotPublished")
    return not failed


def round_paused(rnd: dict[str, Any], reason: str, blocked: dict[str, Any] | None = None) -> None:
    """A round was paused: every supervisor console hears of it now."""
    count("RoundsPaused")
    detail = {"table_id": rnd["table_id"], "round_id": rnd["round_id"], "game": rnd["game"], "reason": reason}
    if blocked:
        detail["blocked_by"] = blocked
    publish("round-paused", detail)


def card_not_taken(table_id: str, entry: dict[str, Any], why: str, round_id: str | None = None) -> None:
    """A scanned card no round could take (between rounds, after a round's end, refused by the
    shoe): it is kept in the table's device log, and a supervisor is told."""
    count("CardsNotTaken")
    detail = {"table_id": table_id, "position": int(entry["n"]), "scan_id": entry.get("scan_id"),
              "card": entry.get("card"), "why": why}
    if round_id:
        detail["round_id"] = round_id
    publish("card-not-taken", detail)


def device_event_refused(table_id: str, entry: dict[str, Any], why: str) -> None:
    """A device event of the table that its state could not take (a shuffle mid-round, a burn
    confirmed when no burn is under way, a second cut card): recorded, refused, and told."""
    count("DeviceEventsRefused")
    publish("device-event-refused", {"table_id": table_id, "position": int(entry["n"]), "kind": entry["kind"],
                                     "why": why})
