"""A queue's batch, each message on its own: Lambda's partial batch response for a standard SQS queue.

The event source mapping asks for ``ReportBatchItemFailures``: the function answers
``{"batchItemFailures": [{"itemIdentifier": <messageId>}, ...]}`` and the queue redelivers those
messages alone; the others are deleted. Each message is handled in the batch's order; one that
raises is reported (and logged) and the next one is handled all the same. When every message of
the batch failed, the invocation fails (an :class:`ExceptionGroup` of their errors), as
Powertools' batch processor does by default: the whole batch comes back, and the failure is the
function's error in its metrics.

This is what the dealing function needs of Powertools' ``BatchProcessor`` and
``process_partial_response`` for a standard queue, without their import: Powertools' batch
utility imports asyncio and the record classes of every stream and queue at start-up, which the
card path paid at every cold start (``docs/deploying.md``, *The card path's cold start*).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools import Logger

logger = Logger(service="croupier")

Record = Mapping[str, Any]
"""One SQS record of the event (``messageId``, ``body``, ``attributes``...), as Lambda sends it."""


def sqs_partial_response(event: Mapping[str, Any], handle: Callable[[Record], object]) -> dict[str, Any]:
    """``handle`` each record of an SQS event; the failed ones, for the queue to redeliver."""
    records = event.get("Records")
    if not isinstance(records, list):
        raise ValueError("not an SQS batch: the event has no list of Records")
    failed: list[dict[str, str]] = []
    errors: list[Exception] = []
    for record in records:
        try:
            handle(record)
        except Exception as exc:  # this record fails alone: the queue redelivers it
            logger.exception("record not processed: the queue redelivers it",
                             extra={"message_id": record.get("messageId")})
            failed.append({"itemIdentifier": str(record.get("messageId"))})
            errors.append(exc)
    if records and len(failed) == len(records):
        raise ExceptionGroup(f"every record of the batch failed ({len(records)})", errors)
    return {"batchItemFailures": failed}
