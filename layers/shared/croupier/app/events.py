"""Card-reader and dealer-console events on the table bus, validated at the boundary.

An EventBridge event (``source`` ``croupier.card-reader`` or ``croupier.dealer-console``) whose
``detail-type`` names the event and whose ``detail`` is one of the models below. The bus delivers
them to a FIFO queue (in order) and the dealing function applies them one by one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from ..cards import parse_card
from ..errors import CardError, CroupierError
from ..rules import describe_validation_error

DETAIL_TYPES = ("card-scanned", "scan-failed", "cut-card", "shoe-shuffled", "burn-done")
SOURCES = ("croupier.card-reader", "croupier.dealer-console")
_id = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")


class _Detail(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table_id: StrictStr = Field(min_length=1, max_length=40)


class CardScanned(_Detail):
    reader_id: StrictStr = _id
    scan_id: StrictStr = _id
    card: StrictStr

    @field_validator("card")
    @classmethod
    def _card(cls, value: str) -> str:
        try:
            return parse_card(value)
        except CardError as exc:
            raise ValueError(str(exc)) from exc


class ScanFailed(_Detail):
    reader_id: StrictStr = _id
    scan_id: StrictStr = _id
    reason: StrictStr = Field(default="unreadable", max_length=200)


class CutCard(_Detail):
    reader_id: StrictStr = _id
    scan_id: StrictStr = _id


class ShoeShuffled(_Detail):
    shoe_id: StrictStr | None = Field(default=None, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")


class BurnDone(_Detail):
    reader_id: StrictStr | None = None


_MODELS: dict[str, type[_Detail]] = {"card-scanned": CardScanned, "scan-failed": ScanFailed, "cut-card": CutCard,
                                     "shoe-shuffled": ShoeShuffled, "burn-done": BurnDone}


class TableEvent(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    source: Literal["croupier.card-reader", "croupier.dealer-console"]
    detail_type: Literal["card-scanned", "scan-failed", "cut-card", "shoe-shuffled", "burn-done"] = Field(
        alias="detail-type")
    detail: dict[str, Any]


class BadEvent(CroupierError):
    reason = "bad-event"


def parse_event(raw: dict[str, Any]) -> tuple[str, str, _Detail]:
    """``(source, detail_type, detail)`` of a bus event, or :class:`BadEvent` saying what is wrong."""
    try:
        event = TableEvent.model_validate(raw)
        detail = _MODELS[event.detail_type].model_validate(event.detail)
    except ValidationError as exc:
        raise BadEvent(f"invalid table event: {describe_validation_error(exc)}") from exc
    if event.detail_type in ("card-scanned", "scan-failed", "cut-card") and event.source != "croupier.card-reader":
        raise BadEvent(f"{event.detail_type} must come from the card reader", reason="wrong-source")
    if event.detail_type in ("shoe-shuffled", "burn-done") and event.source != "croupier.dealer-console":
        raise BadEvent(f"{event.detail_type} must come from the dealer console", reason="wrong-source")
    return event.source, event.detail_type, detail
