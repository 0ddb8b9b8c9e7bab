"""Live: the game table's stream, turned into domain events, published and pushed; and each
round's opening, whose workflow it makes sure is started (decision 0078).

Each record's images (before and after a write) become events (croupier.app.live); each table's
events are put on the bus (source ``croupier``, detail-type the event's type) and handed to the
push queue: public events one message per slot of the table's watchers, a player's own or the
staff's events one message naming just the watchers they reach (croupier.app.push), whom the
batch's records reach read once for all of them (``push.Reach``). A failure is
reported per record, so that the stream retries from it, in order; the records after it in the
batch are not handled (:class:`HeldBack`): the stream hands them again after it, so that no change
of an item is published or pushed before an earlier one, nor again for another record's failure.
"""

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from croupier.app import alerts, push, rounds, store, tracing
from croupier.app.live import events_of

logger = Logger()
tracer = tracing.tracer()
metrics = Metrics()
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def handle(record: DynamoDBRecord, reach: push.Reach | None = None) -> dict[str, Any]:
    change = record.dynamodb
    if change is None:
        return {"events": 0}
    at = int((change.approximate_creation_date_time or 0) * 1000) or store.now_ms()
    # the images as the stream gives them (DynamoDB's typed form), read in one pass
    images = change.raw_event
    old = store.plain_image(images["OldImage"]) if images.get("OldImage") else None
    new = store.plain_image(images["NewImage"]) if images.get("NewImage") else None
    # a round's opening: its workflow started, if the call that opened it died before starting it
    # (before anything is pushed: a start that fails fails the record, which the stream retries)
    rounds.opened(old, new)
    events = events_of(old, new, at)
    if not events:
        return {"events": 0}
    table_id = events[0]["table_id"]
    # the message's id is the stream record's own (a retried record keeps it): unique per change,
    # the same on every redelivery, and nothing of the events it carries
    sent = push.fan_out(table_id, events, push.message_id(record.event_id or change.sequence_number), reach)
    # then the bus, once the pushes are queued: a record retried because SQS did not take them all
    # sends them again (the FIFO queue drops those it has), but has not told the bus yet
    alerts.publish_all(events)
    logger.debug("events", extra={"table_id": table_id, "types": [e["type"] for e in events], "slots": sent})
    return {"events": len(events), "slots": sent}


class HeldBack(Exception):
    """A record after one that failed in the same batch, not handled: the stream retries from the
    failed one (the lowest sequence number reported), this one included."""


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    reach = push.Reach()  # whom the batch's events reach, read once for all of its records
    failed: list[str] = []  # the batch's first record that failed, once one has

    def in_order(record: DynamoDBRecord) -> dict[str, Any]:
        if failed:
            raise HeldBack(f"held back behind record {failed[0]}, which failed")
        try:
            return handle(record, reach)
        except Exception:
            failed.append(str(record.dynamodb.sequence_number if record.dynamodb else record.event_id))
            raise

    return process_partial_response(event=event, record_handler=in_order, processor=processor, context=context)
