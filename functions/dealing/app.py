"""Dealing: card-reader and dealer-console events from the table bus, via a standard queue.

Each event is recorded in its table's device log, then the table takes what it can
(croupier.app.dealing). The queue keeps no order and may deliver an event twice: a reader's events
enter the log in the reader's own numbering (``seq``), and each is recorded once (its scan id). A
malformed event, or one a device sent for another table, is refused and logged (it would never
succeed on a retry); a failure of the store is reported back so that the queue redelivers that
event alone (croupier.app.batch: Lambda's partial batch response): no other event, of its table
or another, waits for it.
"""

import json
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from croupier.app import alerts, dealing, tracing
from croupier.app.batch import Record, sqs_partial_response
from croupier.app.events import parse_event, sent_at_ms
from croupier.errors import CroupierError

logger = Logger()
tracer = tracing.tracer()  # no X-Ray SDK where tracing is off (CardPathTracing)
metrics = Metrics()


def handle(record: Record) -> dict[str, Any]:
    body, message_id = record["body"], record["messageId"]
    try:
        raw = json.loads(body)
        event_id, detail_type, detail = parse_event(raw)
        fields = detail.model_dump()
        outcome = dealing.record(detail_type, fields, fields.get("scan_id") or f"event:{event_id}",
                                 sent_at=sent_at_ms(raw))
    except (CroupierError, ValueError) as exc:
        logger.warning("table event refused", extra={"refusal": str(exc), "message_id": message_id})
        alerts.device_event_invalid(str(exc), message_id, body)
        return {"recorded": "refused", "why": str(exc)}
    # what happened, never a card: a face-down card (the Deluxe hole card, Pok Deng's cards during
    # betting) must not reach a log line
    logger.info("table event", extra={"detail_type": detail_type, **outcome})
    return outcome


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return sqs_partial_response(event, handle)  # a failed event is redelivered alone
