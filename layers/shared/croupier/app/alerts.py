"""What the application tells the people around the table: events on the table bus and metrics.

Every change of a round or table reaches the bus as a domain event (:mod:`croupier.app.live`,
from the game table's stream: :func:`publish_all`), a paused round among them. A card that no
round could take and a device event the table refused are also published as alerts of their own
(``card-not-taken``, ``device-event-refused``) by the code that decides them. Each is counted as
a CloudWatch metric (Powertools Metrics, namespace ``Croupier``) with an alarm in
``template.yaml``, so an operator is told even if nobody watches the bus.

Publishing comes after the change is stored and never undoes it: a bus that cannot be reached is
logged and counted (``AlertsNotPublished``), and the metric still reaches the alarm.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from botocore.exceptions import BotoCoreError, ClientError

from . import aws, clock
from .aws import boto3
from .config import settings
from .records import LogEntry, RoundRecord

SOURCE = "croupier"
SCHEMA_VERSION = 1
logger = Logger(service="croupier")
_clients = aws.Clients()


def _events() -> Any:
    return _clients.made("events", lambda: boto3.client("events"))


def reset_clients() -> None:
    _clients.clear()


def count(metric: str, value: int = 1) -> None:
    """Add to a business metric of this invocation (flushed by the handler's ``log_metrics``)."""
    Metrics().add_metric(name=metric, unit=MetricUnit.Count, value=value)


listeners: list[Callable[[str, dict[str, Any]], None]] = []
"""Who else hears of a refusal in this process, with the metric its alarm counts and what was
refused and why: nobody on AWS (the alarm reads the metric, the log has the line); the local
stack, which has no alarms, prints it on its console (:mod:`croupier.local.stack`)."""


def _tell(metric: str, detail: dict[str, Any]) -> None:
    for listener in list(listeners):
        with contextlib.suppress(Exception):  # a listener never fails what it hears of
            listener(metric, detail)


def device_event_invalid(why: str, message_id: str, body: str) -> None:
    """A table event the bus took but the dealing function cannot read (a card ``10H``, a field
    missing, a source of another table): counted for the alarm (the dealing function logs it); it
    changes nothing, the device log included, and is never retried (it would fail again)."""
    count("DeviceEventsInvalid")
    source = detail_type = None
    try:
        event = json.loads(body)
        source, detail_type = event.get("source"), event.get("detail-type")
    except (ValueError, AttributeError):
        pass
    _tell("DeviceEventsInvalid", {"why": why, "message_id": message_id, "source": source,
                                  "detail_type": detail_type})


def idempotent_replay(response: Any, idempotent_data: Any) -> Any:
    """Powertools idempotency's response hook: a request answered with its first answer (a client's
    retry with the same ``Idempotency-Key``) is counted, and answered unchanged."""
    count("IdempotentReplays")
    return response


def publish(detail_type: str, detail: dict[str, Any]) -> bool:
    """Put one event of the application on the table bus. Never raises: False if it failed."""
    body = {"schema_version": SCHEMA_VERSION, "at": clock.now_ms(), **detail}
    return _put([(detail_type, body)]) == 1


def publish_all(events: list[dict[str, Any]]) -> int:
    """Put domain events on the table bus (detail-type: the event's type), ten to a call."""
    done = 0
    for start in range(0, len(events), 10):
        done += _put([(e["type"], e) for e in events[start:start + 10]])
    return done


def _put(entries: list[tuple[str, dict[str, Any]]]) -> int:
    bus = settings().event_bus
    if not bus or not entries:
        return 0
    try:
        response = _events().put_events(Entries=[{"Source": SOURCE, "DetailType": kind, "EventBusName": bus,
                                                  "Detail": json.dumps(body, default=str)} for kind, body in entries])
        failed = int(response.get("FailedEntryCount") or 0)
    except (BotoCoreError, ClientError) as exc:
        logger.error("events not published", extra={"types": [k for k, _ in entries], "error": str(exc)})
        failed = len(entries)
    if failed:
        count("AlertsNotPublished", failed)
    return len(entries) - failed


def round_paused(rnd: RoundRecord, reason: str, blocked: dict[str, Any] | None = None) -> None:
    """A round was paused: counted for the alarm (its event comes from the stored change, with
    every other change of the round: see :mod:`croupier.app.live`)."""
    count("RoundsPaused")


def card_not_taken(table_id: str, entry: LogEntry, why: str, round_id: str | None = None) -> None:
    """A scanned card no round could take (between rounds, after a round's end, refused by the
    shoe): it is kept in the table's device log, and a supervisor is told."""
    count("CardsNotTaken")
    detail = {"table_id": table_id, "position": entry.n, "scan_id": entry.scan_id, "card": entry.card, "why": why}
    if round_id:
        detail["round_id"] = round_id
    publish("card-not-taken", detail)
    _tell("CardsNotTaken", detail)


def device_event_refused(table_id: str, entry: LogEntry, why: str) -> None:
    """A device event of the table that its state could not take (a shuffle mid-round, a burn
    confirmed when no burn is under way, a second cut card): recorded, refused, and told."""
    count("DeviceEventsRefused")
    detail = {"table_id": table_id, "position": entry.n, "kind": entry.kind, "why": why}
    publish("device-event-refused", detail)
    _tell("DeviceEventsRefused", detail)
