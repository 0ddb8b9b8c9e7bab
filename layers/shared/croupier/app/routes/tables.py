"""The tables function's routes: tables, seats, shoes, opening rounds and a supervisor's round control."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Path

from .. import dealing, queries, rounds, supervision, tables
from ..api import BODYLESS_WRITE_ERRORS, WRITE_ERRORS, RoundId, SeatNumber, TableId, caller, doc, json_response
from ..errors import AppError
from ..models import ConfigureTable, Control, CreateTable, NewShoe
from ..responses import RoundSummary, TableView, out

router = Router()


@router.post("/tables", summary="Create a table from a game's default configuration (operator)",
             **doc("createTable", "tables", TableView, WRITE_ERRORS, status=201, description="Created"))
def create_table(body: CreateTable) -> Response[Any]:
    who = caller(router).require("operator")
    item = tables.create_table(body.game, body.rules, body.reader_id, body.table_id, body.name,
                               body.wallet.model_dump() if body.wallet else None)
    return json_response(201, out(TableView, queries.table_view(item, who)))


@router.patch("/tables/<table_id>", summary="Configure a table between rounds (operator)",
              **doc("configureTable", "tables", TableView, WRITE_ERRORS))
def configure_table(table_id: TableId, body: ConfigureTable) -> dict[str, Any]:
    who = caller(router).require("operator")
    wallet = body.wallet.model_dump() if body.wallet else None
    return out(TableView, queries.table_view(tables.configure_table(table_id, body.rules, body.reader_id, wallet),
                                             who))


@router.put("/tables/<table_id>/seats/<seat>", summary="Sit down at a blackjack seat",
            **doc("takeSeat", "tables", TableView, BODYLESS_WRITE_ERRORS))
def sit(table_id: TableId, seat: SeatNumber) -> dict[str, Any]:
    who = caller(router).require("player")
    return out(TableView, queries.table_view(tables.sit(table_id, seat, who.subject, who.account_kind), who))


@router.delete("/tables/<table_id>/seats/<seat>", summary="Leave a blackjack seat",
               **doc("leaveSeat", "tables", TableView, BODYLESS_WRITE_ERRORS))
def leave(table_id: TableId, seat: SeatNumber) -> dict[str, Any]:
    who = caller(router).require("player")
    return out(TableView, queries.table_view(tables.leave(table_id, seat, who.subject), who))


@router.post("/tables/<table_id>/shoes", summary="A new shoe was shuffled (dealer console)",
             **doc("newShoe", "tables", TableView, WRITE_ERRORS))
def new_shoe(table_id: TableId, body: NewShoe) -> dict[str, Any]:
    who = caller(router).require("dealer", "supervisor").require_table(table_id)
    return out(TableView, queries.table_view(dealing.shuffle(table_id, body.shoe_id), who))


@router.post("/tables/<table_id>/rounds", summary="Open the next round: its betting countdown starts",
             **doc("startRound", "rounds", RoundSummary, BODYLESS_WRITE_ERRORS, status=201,
                   description="Created"))
def start_round(table_id: TableId) -> Response[Any]:
    who = caller(router).require("dealer", "supervisor").require_table(table_id)
    item = rounds.start_round(table_id)
    return json_response(201, out(RoundSummary, queries.round_summary(item, who)))


@router.post("/rounds/<round_id>/<control>", summary="Pause, resume or void a round (supervisor)",
             description="Resuming a round a card paused says what became of that card (card).",
             **doc("controlRound", "rounds", RoundSummary, WRITE_ERRORS))
def control(round_id: RoundId, control: Annotated[Literal["pause", "resume", "void"], Path()],
            body: Control) -> dict[str, Any]:
    who = caller(router).require("supervisor")
    if control != "resume" and body.card is not None:
        raise AppError("'card' says what became of a card when resuming", reason="invalid-request")
    if control == "pause":
        item = supervision.pause(round_id, body.reason)
    elif control == "resume":
        item = supervision.resume_round(round_id, body.card)
    else:
        item = supervision.void(round_id, body.reason)
    return out(RoundSummary, queries.round_summary(item, who))
