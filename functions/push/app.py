"""Push: post a table's events to one slot of its watchers (croupier.app.push), from the FIFO push
queue (one message group per table and slot: a slot's messages stay in order)."""

import json
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field

from croupier.app import alerts, push, tracing

logger = Logger()
tracer = tracing.tracer()
metrics = Metrics()
processor = SqsFifoPartialProcessor(skip_group_on_error=True)


class Delivery(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table_id: str = Field(min_length=1)
    id: str = Field(min_length=1, max_length=64)
    watched: str = Field(min_length=1)
    slot: int = Field(ge=0)
    events: list[dict[str, Any]]


def handle(record: SQSRecord) -> dict[str, Any]:
    delivery = Delivery.model_validate(json.loads(record.body))
    outcome = push.deliver(delivery.table_id, delivery.watched, delivery.slot, delivery.events, delivery.id)
    if outcome["gone"]:
        alerts.count("ScreensGone", outcome["gone"])
    return outcome


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=handle, processor=processor, context=context)
