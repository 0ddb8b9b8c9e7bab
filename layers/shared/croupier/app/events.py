"""Card-reader and dealer-console events on the table bus, validated at the boundary.

An EventBridge event (Powertools' ``EventBridgeModel``: the bus's envelope) whose ``source`` names
the device and its table — ``croupier.card-reader.{table}`` or ``croupier.dealer-console.{table}``
— whose ``detail-type`` names the event and whose ``detail`` is one of the models below. The
source is what AWS checks: a device's IAM principal is tagged with its table, and the managed
policies in ``template.yaml`` let it put events only with its own table's source and its own kind
of events. An event whose detail names another table than its source is refused.

The order of a table's cards rests on the card reader, not on the transport: EventBridge does not
keep the order of separate ``PutEvents`` calls, and the queue behind it is a standard queue, which
may deliver out of order and twice. Each reader event carries ``seq``, the reader's own number of
it (1, 2, 3 …), and the device log takes a reader's events in that order
(:func:`croupier.app.store.record_device_event`).
"""

from __future__ import annotations

from typing import Any, Literal

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, field_validator

from ..cards import parse_card
from ..errors import CardError, CroupierError
from ..rules import describe_validation_error
from .clock import epoch_ms

DETAIL_TYPES = ("card-scanned", "scan-failed", "cut-card", "shoe-shuffled", "burn-done")
READER, CONSOLE = "croupier.card-reader", "croupier.dealer-console"
"""A device's source is one of these, a dot and its table's id."""
KINDS = {READER: ("card-scanned", "scan-failed", "cut-card"), CONSOLE: ("shoe-shuffled", "burn-done")}
_id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
MAX_SEQ = 10**12 - 1
"""A card reader's events are numbered up to this (twelve digits: centuries of scans at three a
second)."""


class _Detail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table_id: StrictStr = Field(min_length=1, max_length=40)


class _ReaderDetail(_Detail):
    reader_id: StrictStr = _id
    scan_id: StrictStr = _id
    seq: StrictInt = Field(ge=1, le=MAX_SEQ, description="the reader's own number of this event: 1, 2, 3 …, "
                                                         "consecutive for as long as it is registered")


class CardScanned(_ReaderDetail):
    card: StrictStr

    @field_validator("card")
    @classmethod
    def _card(cls, value: str) -> str:
        try:
            return parse_card(value)
        except CardError as exc:
            raise ValueError(str(exc)) from exc


class ScanFailed(_ReaderDetail):
    reason: StrictStr = Field(default="unreadable", max_length=200)


class CutCard(_ReaderDetail):
    pass


class ShoeShuffled(_Detail):
    shoe_id: StrictStr | None = Field(default=None, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")


class BurnDone(_Detail):
    pass


_MODELS: dict[str, type[_Detail]] = {"card-scanned": CardScanned, "scan-failed": ScanFailed, "cut-card": CutCard,
                                     "shoe-shuffled": ShoeShuffled, "burn-done": BurnDone}


class TableEvent(EventBridgeModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    detail_type: Literal["card-scanned", "scan-failed", "cut-card", "shoe-shuffled", "burn-done"] = Field(
        alias="detail-type")
    detail: dict[str, Any]


class BadEvent(CroupierError):
    reason = "bad-event"


def source_of(device: str, table_id: str) -> str:
    """The bus source of a table's device (``device``: :data:`READER` or :data:`CONSOLE`)."""
    return f"{device}.{table_id}"


def sent_at_ms(raw: dict[str, Any]) -> int | None:
    """When the device sent a bus event: its ``time`` (EventBridge's: the second the event was put
    on the bus, unless the device gave its own), in epoch milliseconds; None without a readable one.
    It says when a card was scanned, where the time it reached us says only when it was delivered
    (a queue may deliver it late, or again)."""
    text = raw.get("time")
    return epoch_ms(text) if isinstance(text, str) else None


def parse_event(raw: dict[str, Any]) -> tuple[str, str, _Detail]:
    """``(event id, detail_type, detail)`` of a bus event, or :class:`BadEvent` saying what is wrong."""
    try:
        event = TableEvent.model_validate(raw)
        detail = _MODELS[event.detail_type].model_validate(event.detail)
    except ValidationError as exc:
        raise BadEvent(f"invalid table event: {describe_validation_error(exc)}") from exc
    device = next((d for d in KINDS if event.source.startswith(d + ".")), None)
    if device is None:
        raise BadEvent(f"source {event.source!r} is not a table's card reader or dealer console", reason="wrong-source")
    if event.detail_type not in KINDS[device]:
        other = "card reader" if device == CONSOLE else "dealer console"
        raise BadEvent(f"{event.detail_type} must come from the {other}", reason="wrong-source")
    if event.source != source_of(device, detail.table_id):
        raise BadEvent(f"source {event.source!r} cannot speak for table {detail.table_id!r}", reason="wrong-table")
    return event.id, event.detail_type, detail
