"""The domain events' schema: every change of a table or a round, as the bus and the screens
around the table receive it (derived in :mod:`croupier.app.live`).

Every event is a dict with ``v`` (the schema version), ``type``, ``table_id``, ``round_id`` (when
about a round), ``at`` (ms) and ``audience``: ``public`` (anyone watching the table), ``staff``
(dealer console, supervisor, operator) or ``player`` (only the player named in ``player``). A
round's events carry ``seq``, the round's event count after the event: a client that missed some
resyncs with ``GET /rounds/{id}`` (its ``seq``). Pure: pydantic only (``croupier events-schema``
prints :func:`json_schema`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

SCHEMA_VERSION = 1
Audience = Literal["public", "staff", "player"]


# --- the schema ------------------------------------------------------------------------------


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    v: Literal[1] = 1
    table_id: str
    at: int = Field(description="when the change was stored: ms since the epoch, to the second (the stream "
                                "record's time)")
    audience: Audience = "public"
    staff_fields: list[str] | None = Field(
        default=None, description="fields only the staff receive: a player's screen gets the event without them")


class _RoundEvent(_Event):
    round_id: str
    seq: int = Field(ge=0, description="the round's event count after this event: a gap means events were missed")


class RoundOpened(_RoundEvent):
    type: Literal["round-opened"] = "round-opened"
    game: str
    round_in_shoe: int
    closes_at: int
    bets_until: int | None = None
    """When betting closes: half a second before the countdown's end (``closes_at``), when the dealer
    starts dealing, but at Pok Deng, whose dealer deals while it runs (absent from events recorded
    before it was sent)."""
    last_round: bool


class BettingClosed(_RoundEvent):
    type: Literal["betting-closed"] = "betting-closed"


class CardDealt(_RoundEvent):
    type: Literal["card-dealt"] = "card-dealt"
    n: int = Field(description="the card's position in the table's device log")
    hand: str
    card: str = Field(description='the card, or "??" while it is face down')
    face_up: bool


class CardsRevealed(_RoundEvent):
    type: Literal["cards-revealed"] = "cards-revealed"
    cards: list[dict[str, Any]] = Field(description="each face-down card now shown: n, hand, card (in hand order)")


class DecisionMade(_RoundEvent):
    type: Literal["decision-made"] = "decision-made"
    seat: int
    action: str
    hand: int | None = None
    behind: bool = Field(default=False, description="a bet-behind player's answer")
    player: str | None = Field(default=None, description="staff only: the bet-behind player who answered")


class Preselected(_RoundEvent):
    type: Literal["preselected"] = "preselected"
    audience: Audience = "staff"
    seat: int
    action: str | None = Field(description="the action stored for the seat's turn (None: cleared)")


class WindowClosed(_RoundEvent):
    type: Literal["window-closed"] = "window-closed"


class WaitingFor(_RoundEvent):
    type: Literal["waiting-for"] = "waiting-for"
    kind: Literal["card", "decision", "insurance", "follow", "settle"]
    hand: str | None = Field(default=None, description="card: the hand the next card goes to")
    face_up: bool | None = None
    seat: int | None = None
    seat_hand: int | None = Field(default=None, description="decision or follow: which hand of the seat (0, 1)")
    legal: list[str] | None = None
    what: str | None = Field(default=None, description="follow: double or split")
    deadline: int | None = Field(default=None, description="decision or window: when its timer runs out (ms)")


class RoundPaused(_RoundEvent):
    type: Literal["round-paused"] = "round-paused"
    reason: str = Field(description="the table's staff: why, with the card (\"??\" while face down), its scan id "
                                    "and log entry; everyone else: the code's plain words")
    code: str = Field(default="paused", description="the pause's stable reason code (card-before-betting-closed, "
                                                    "card-out-of-turn, card-refused, no-card-in-time, internal-error, "
                                                    "supervisor)")
    blocked_by: dict[str, Any] | None = Field(
        default=None, description="staff only: the card that paused the round (n, scan_id, card, reason): the "
                                  "supervisor says what became of it when resuming")


class RoundResumed(_RoundEvent):
    type: Literal["round-resumed"] = "round-resumed"


class LastRound(_RoundEvent):
    type: Literal["last-round"] = "last-round"


class RoundResult(_RoundEvent):
    type: Literal["round-result"] = "round-result"
    result: dict[str, Any] = Field(description="the final hands, as GET /rounds/{id} shows them")


class RoundSettled(_RoundEvent):
    type: Literal["round-settled"] = "round-settled"
    bets: int


class RoadsUpdated(_RoundEvent):
    type: Literal["roads-updated"] = "roads-updated"
    shoe_id: str
    roads: dict[str, Any] = Field(description="the shoe's roads after the round, as GET /tables/{id} shows them")


class RoundVoided(_RoundEvent):
    type: Literal["round-voided"] = "round-voided"
    reason: str


class RoundRefunded(_RoundEvent):
    type: Literal["round-refunded"] = "round-refunded"
    bets: int = Field(description="every stake of the voided round is back in its wallet")


class ShoeShuffled(_Event):
    type: Literal["shoe-shuffled"] = "shoe-shuffled"
    shoe_id: str


class ShoeReady(_Event):
    type: Literal["shoe-ready"] = "shoe-ready"
    shoe_id: str


class ShoeClosed(_Event):
    type: Literal["shoe-closed"] = "shoe-closed"
    shoe_id: str


class SeatsChanged(_Event):
    type: Literal["seats-changed"] = "seats-changed"
    seats: list[int] = Field(description="the seats taken")
    players: dict[str, str] | None = Field(default=None, description="staff only: seat -> the player sitting there")


class _BetEvent(_Event):
    audience: Audience = "player"
    player: str
    round_id: str
    bet: dict[str, Any] = Field(description="the player's bet: id, type, seat, mode, amount, status, result")


class BetPlaced(_BetEvent):
    type: Literal["bet-placed"] = "bet-placed"


class BetSettled(_BetEvent):
    type: Literal["bet-settled"] = "bet-settled"


class DeviceEvent(_Event):
    type: Literal["device-event"] = "device-event"
    audience: Audience = "staff"
    entry: dict[str, Any] = Field(description="a device-log entry as GET /tables/{id}/log shows it")


DomainEvent = Annotated[
    RoundOpened | BettingClosed | CardDealt | CardsRevealed | DecisionMade | Preselected | WindowClosed | WaitingFor
    | RoundPaused | RoundResumed | LastRound | RoundResult | RoundSettled | RoadsUpdated | RoundVoided | RoundRefunded
    | ShoeShuffled | ShoeReady | ShoeClosed | SeatsChanged | BetPlaced | BetSettled | DeviceEvent,
    Field(discriminator="type")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(DomainEvent)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every domain event (``croupier events-schema`` prints it)."""
    schema: dict[str, Any] = _ADAPTER.json_schema()
    schema["title"] = f"Croupier domain events, schema version {SCHEMA_VERSION}"
    return schema


def validated(event: dict[str, Any]) -> dict[str, Any]:
    """An event checked against its model (the derivation below only builds valid events)."""
    out: dict[str, Any] = _ADAPTER.validate_python(event).model_dump(exclude_none=True)
    return out
