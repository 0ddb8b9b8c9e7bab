"""Push: post a table's events to one slot of its watchers, or to the staff's or one player's
watchers a message names (croupier.app.push), from the FIFO push queue (one message group per
table and slot, or per table and audience: each group's messages stay in order)."""

import json
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, model_validator

from croupier.app import alerts, push, records, tracing

logger = Logger()
tracer = tracing.tracer()
metrics = Metrics()
processor = SqsFifoPartialProcessor(skip_group_on_error=True)


class Watcher(BaseModel):
    """A watcher a targeted message names: its connection and who it is."""

    model_config = ConfigDict(extra="forbid")
    connection_id: str = Field(min_length=1)
    subject: str
    role: str
    account_kind: str | None = None
    table: str | None = None
    expires_at: int | None = None
    token_expires_at: int | None = None


class Delivery(BaseModel):
    """One message of the push queue: a table's events for one slot of its watchers, or for the
    watchers it names (the staff's or one player's)."""

    model_config = ConfigDict(extra="forbid")
    table_id: str = Field(min_length=1)
    id: str = Field(min_length=1, max_length=64)
    watched: str = Field(min_length=1)
    slot: int | None = Field(default=None, ge=0)
    to: list[Watcher] | None = None
    events: list[dict[str, Any]]

    @model_validator(mode="after")
    def _slot_or_watchers(self) -> "Delivery":
        if (self.slot is None) == (self.to is None):
            raise ValueError("a delivery names either its slot or its watchers (to), not both")
        return self


def handle(record: SQSRecord) -> dict[str, Any]:
    delivery = Delivery.model_validate(json.loads(record.body))
    to = None if delivery.to is None else [records.Watcher.from_item(w.model_dump()) for w in delivery.to]
    outcome = push.deliver(delivery.table_id, delivery.watched, delivery.slot, delivery.events, delivery.id, to)
    if outcome["gone"]:
        alerts.count("ScreensGone", outcome["gone"])
    return outcome


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=handle, processor=processor, context=context)
