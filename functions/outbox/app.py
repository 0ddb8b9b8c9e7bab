"""The wallet outbox: credits, refunds and cancels on their way to operators' seamless wallets.

Two triggers, one job (croupier.app.seamless):
- the outbox queue: one message per call to send (queued after the write that recorded it, or
  again, delayed by its backoff, after an attempt that got no answer);
- a schedule (every minute): the sweeper queues every call overdue in the wallet table, so a call
  whose message was lost, or whose process died before queueing it, is still sent.
A message whose body is not a call id is refused and logged (a retry would not mend it).
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from croupier.app import alerts, seamless, tracing
from croupier.app.seamless import OutboxMessage

logger = Logger()
tracer = tracing.tracer()
metrics = Metrics()
processor = BatchProcessor(event_type=EventType.SQS)


def handle(record: SQSRecord) -> str:
    try:
        message = OutboxMessage.model_validate_json(record.body)
    except ValidationError as exc:
        alerts.count("WalletOutboxInvalid")
        logger.warning("outbox message refused", extra={"refusal": str(exc), "message_id": record.message_id})
        return "refused"
    outcome = seamless.deliver(message.transaction_id, message.attempt)
    logger.info("wallet call", extra={"transaction_id": message.transaction_id, "outcome": outcome})
    return outcome


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> Any:
    if event.get("source") == "aws.events":  # the schedule
        return {"queued": seamless.sweep()}
    return process_partial_response(event=event, record_handler=handle, processor=processor, context=context)
