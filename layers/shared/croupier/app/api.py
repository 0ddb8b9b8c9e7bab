"""The HTTP API: one Router per function, the error mapping, identity and idempotency.

Each function's ``app.py`` builds a resolver with :func:`resolver` and includes its router; the
query function also serves the whole API's OpenAPI document (``/openapi.json``) and Swagger page.
Every refusal is a 4xx with ``{"error": {"reason": ..., "message": ...}}``.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestUnsupportedContentType, RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Header, Path, Query
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyValidationError,
)

from ..errors import BetRefused, CroupierError, IllegalAction, UnexpectedCard
from . import alerts, bets, dealing, decisions, lobby, queries, rounds, store, supervision, tables
from .config import settings
from .errors import AppError
from .identity import Identity, from_event
from .models import ConfigureTable, Control, CreateTable, Decision, Money, NewShoe, PlaceBets

logger = Logger(service="croupier")

_STATUS = {BetRefused: 422, IllegalAction: 409, UnexpectedCard: 409}
JSON_MEDIA_TYPE = "application/json"
_context: dict[str, Any] = {"lambda": None}


def error_response(status: int, reason: str, message: str) -> Response[Any]:
    return Response(status_code=status, content_type="application/json",
                    body=json.dumps({"error": {"reason": reason, "message": message}}))


def status_of(exc: CroupierError) -> int:
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return status
    for cls, code in _STATUS.items():
        if isinstance(exc, cls):
            return code
    return 400


def _json_body(text: str) -> Any:
    """``json.loads`` of a request body. What it cannot read without being malformed JSON (a number
    of more than Python's 4300 digits, nesting deeper than its recursion limit) is an invalid
    request, not a server error (Powertools turns only :class:`json.JSONDecodeError` into one)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        what = (f"a number has more than {sys.get_int_max_str_digits()} digits" if isinstance(exc, ValueError)
                else "the JSON nests too deep")
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": what, "input": {}}]) from exc


class _JsonBodies(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation, reading a request body as JSON only. Powertools parses a form
    too (what curl -d and urllib send by default): a JSON body sent as one was refused with its form
    fields' errors. A body of any media type but JSON is now refused as unsupported (415)."""

    def _get_body(self, app: Any) -> dict[str, Any]:
        content_type = app.current_event.headers.get("content-type", "").strip()
        if content_type and not content_type.startswith(JSON_MEDIA_TYPE):
            error = {"type": "unsupported_content_type", "loc": ("body",), "input": {}, "ctx": {},
                     "msg": f"Unsupported content type: {content_type}"}
            raise RequestUnsupportedContentType("Unsupported content type", errors=[error])
        body: dict[str, Any] = super()._get_body(app)
        return body


def resolver() -> APIGatewayRestResolver:
    app = APIGatewayRestResolver(enable_validation=True, json_body_deserializer=_json_body)
    app._request_validation_middleware = _JsonBodies()

    @app.exception_handler(CroupierError)
    def _domain(exc: CroupierError) -> Response[Any]:
        logger.info("refused", extra={"reason": exc.reason, "refusal": str(exc)})
        return error_response(status_of(exc), exc.reason, str(exc))

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response[Any]:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
            parts.append(f"{where}: {err.get('msg')}")
        return error_response(422, "invalid-request", "; ".join(parts) or "invalid request")

    @app.exception_handler(RequestUnsupportedContentType)
    def _media_type(exc: RequestUnsupportedContentType) -> Response[Any]:
        return error_response(415, "unsupported-media-type",
                              f"the request body must be JSON, sent with Content-Type: {JSON_MEDIA_TYPE}")

    @app.exception_handler(IdempotencyValidationError)
    def _reused(exc: IdempotencyValidationError) -> Response[Any]:
        return error_response(422, "idempotency-key-reused",
                              "this Idempotency-Key was used before with a different request")

    @app.exception_handler(IdempotencyAlreadyInProgressError)
    def _in_progress(exc: IdempotencyAlreadyInProgressError) -> Response[Any]:
        return error_response(409, "in-progress", "a request with this Idempotency-Key is still being processed")

    @app.not_found
    def _missing(exc: Exception) -> Response[Any]:
        return error_response(404, "no-route", "no such route")

    return app


def register_context(context: Any) -> None:
    _context["lambda"] = context


def caller(app: Any) -> Identity:
    return from_event(app.current_event.raw_event)


_persistence_layers = threading.local()


def _persistence(name: str) -> DynamoDBPersistenceLayer:
    """The idempotency store of one kind of request, made once per thread (a Lambda environment
    has one): building it builds a boto3 client, which costs more than the request's own work. It
    is configured on first use with that kind's fixed settings; per thread, because it keeps the
    configuration of the call in progress."""
    layers: dict[tuple[str, str, int], DynamoDBPersistenceLayer] = getattr(_persistence_layers, "by_name", None) or {}
    _persistence_layers.by_name = layers
    key = (name, settings().idempotency_table, store.generation())  # clients are remade after a reset
    layer = layers.get(key)
    if layer is None:
        layer = layers[key] = DynamoDBPersistenceLayer(table_name=key[1])
    return layer


def idempotent(name: str, key: str, body: Any, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run a money-moving call once per (caller, key): a retry answers the first answer."""
    persistence = _persistence(name)
    config = IdempotencyConfig(event_key_jmespath="key", payload_validation_jmespath="body",
                               raise_on_no_idempotency_key=True, expires_after_seconds=24 * 3600)
    config.register_lambda_context(_context["lambda"])
    config.response_hook = alerts.idempotent_replay

    @idempotent_function(data_keyword_argument="request", persistence_store=persistence, config=config,
                         key_prefix=f"croupier.{name}")
    def call(request: dict[str, Any]) -> dict[str, Any]:
        return fn()

    return call(request={"key": key, "body": body})


IdemKey = Annotated[str, Header(alias="Idempotency-Key", min_length=8, max_length=128,
                                description="a fresh unique key per money-moving request; retries reuse it")]

# --- bets ------------------------------------------------------------------------------------
bets_router = Router()


@bets_router.post("/tables/<table_id>/bets", summary="Place several bets at once (all or none)")
def place_bets(table_id: Annotated[str, Path(max_length=40)], body: PlaceBets, key: IdemKey) -> dict[str, Any]:
    who = caller(bets_router).require("player")
    payload = [b.model_dump(exclude_none=True) for b in body.bets]
    return idempotent("bets", f"{who.subject}:{key}", {"table": table_id, "bets": payload},
                      lambda: bets.place_bets(table_id, who.subject, who.account_kind, payload, key))


# --- decisions -------------------------------------------------------------------------------
decisions_router = Router()


@decisions_router.post("/rounds/<round_id>/decisions", summary="A player's decision in a blackjack round")
def decide(round_id: Annotated[str, Path(max_length=96)], body: Decision, key: IdemKey) -> dict[str, Any]:
    who = caller(decisions_router).require("player")
    return idempotent("decisions", f"{who.subject}:{key}", {"round": round_id, **body.model_dump()},
                      lambda: decisions.decide(round_id, who.subject, body.seat, body.action, behind=body.behind,
                                             hand=body.hand, preselect=body.preselect, idempotency_key=key))


# --- tables, seats, shoes and round control --------------------------------------------------
tables_router = Router()


@tables_router.post("/tables", summary="Create a table from a game's default configuration (operator)")
def create_table(body: CreateTable) -> Response[Any]:
    who = caller(tables_router).require("operator")
    item = tables.create_table(body.game, body.rules, body.reader_id, body.table_id, body.name)
    return Response(201, "application/json", json.dumps(queries.table_view(item, who)))


@tables_router.patch("/tables/<table_id>", summary="Configure a table between rounds (operator)")
def configure_table(table_id: Annotated[str, Path(max_length=40)], body: ConfigureTable) -> dict[str, Any]:
    who = caller(tables_router).require("operator")
    return queries.table_view(tables.configure_table(table_id, body.rules, body.reader_id), who)


@tables_router.put("/tables/<table_id>/seats/<seat>", summary="Sit down at a blackjack seat")
def sit(table_id: Annotated[str, Path(max_length=40)], seat: Annotated[int, Path(ge=1, le=7)]) -> dict[str, Any]:
    who = caller(tables_router).require("player")
    return queries.table_view(tables.sit(table_id, seat, who.subject, who.account_kind), who)


@tables_router.delete("/tables/<table_id>/seats/<seat>", summary="Leave a blackjack seat")
def leave(table_id: Annotated[str, Path(max_length=40)], seat: Annotated[int, Path(ge=1, le=7)]) -> dict[str, Any]:
    who = caller(tables_router).require("player")
    return queries.table_view(tables.leave(table_id, seat, who.subject), who)


@tables_router.post("/tables/<table_id>/shoes", summary="A new shoe was shuffled (dealer console)")
def new_shoe(table_id: Annotated[str, Path(max_length=40)], body: NewShoe) -> dict[str, Any]:
    who = caller(tables_router).require("dealer", "supervisor").require_table(table_id)
    return queries.table_view(dealing.shuffle(table_id, body.shoe_id), who)


@tables_router.post("/tables/<table_id>/rounds", summary="Open the next round: its betting countdown starts")
def start_round(table_id: Annotated[str, Path(max_length=40)]) -> Response[Any]:
    caller(tables_router).require("dealer", "supervisor").require_table(table_id)
    item = rounds.start_round(table_id)
    return Response(201, "application/json", json.dumps(queries.round_summary(item)))


@tables_router.post("/rounds/<round_id>/<control>", summary="Pause, resume or void a round (supervisor)")
def control(round_id: Annotated[str, Path(max_length=96)],
            control: Annotated[str, Path(pattern="^(pause|resume|void)$")], body: Control) -> dict[str, Any]:
    caller(tables_router).require("supervisor")
    if control != "resume" and body.card is not None:
        raise AppError("'card' says what became of a card when resuming", reason="invalid-request")
    if control == "pause":
        item = supervision.pause(round_id, body.reason)
    elif control == "resume":
        item = supervision.resume_round(round_id, body.card)
    else:
        item = supervision.void(round_id, body.reason)
    return queries.round_summary(item)


# --- wallets ---------------------------------------------------------------------------------
wallet_router = Router()


@wallet_router.post("/wallets/<player_id>/deposits", summary="Deposit into a player's wallet (operator)")
def deposit(player_id: Annotated[str, Path(max_length=64)], body: Money, key: IdemKey) -> dict[str, Any]:
    caller(wallet_router).require("operator")
    return idempotent("deposit", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                      lambda: queries.move(player_id, body.amount, "deposit", key, body.reference))


@wallet_router.post("/wallets/<player_id>/withdrawals", summary="Withdraw from a player's wallet (operator)")
def withdraw(player_id: Annotated[str, Path(max_length=64)], body: Money, key: IdemKey) -> dict[str, Any]:
    caller(wallet_router).require("operator")
    return idempotent("withdraw", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                      lambda: queries.move(player_id, -body.amount, "withdrawal", key, body.reference))


# --- read-only queries -----------------------------------------------------------------------
query_router = Router()


@query_router.get("/tables", summary="The lobby: every table, its round, limits, free seats and roads (paged)")
def list_tables(limit: Annotated[int, Query(ge=1, le=100)] = 20,
                cursor: Annotated[str | None, Query(max_length=512)] = None) -> dict[str, Any]:
    return lobby.lobby(caller(query_router), limit, cursor)


@query_router.get("/tables/<table_id>", summary="A table: game, rules, seats, shoe, current round, roads")
def get_table(table_id: Annotated[str, Path(max_length=40)]) -> dict[str, Any]:
    return lobby.table_summary(store.load_table(table_id), caller(query_router))


@query_router.get("/tables/<table_id>/rounds", summary="A table's rounds, newest first, with their results (paged)")
def table_rounds(table_id: Annotated[str, Path(max_length=40)],
                 limit: Annotated[int, Query(ge=1, le=100)] = 20,
                 cursor: Annotated[str | None, Query(max_length=512)] = None,
                 shoe: Annotated[str | None, Query(max_length=40)] = None) -> dict[str, Any]:
    caller(query_router)
    return lobby.table_rounds(table_id, limit, cursor, shoe)


@query_router.get("/tables/<table_id>/log", summary="The table's device log: every scan and console event, in order")
def table_log(table_id: Annotated[str, Path(max_length=40)]) -> dict[str, Any]:
    caller(query_router).require("operator", "dealer", "supervisor").require_table(table_id)
    store.load_table(table_id)  # 404 for a table that does not exist
    return {"table_id": table_id, "entries": dealing.device_log(table_id)}


@query_router.get("/rounds/<round_id>", summary="A round as the caller may see it (hidden cards stay hidden)")
def get_round(round_id: Annotated[str, Path(max_length=96)]) -> dict[str, Any]:
    return queries.round_view(round_id, caller(query_router))


@query_router.get("/players/<player_id>/bets", summary="A player's bet record, newest first, paged")
def bet_record(player_id: Annotated[str, Path(max_length=64)],
               limit: Annotated[int, Query(ge=1, le=100)] = 20,
               cursor: Annotated[str | None, Query(max_length=512)] = None) -> dict[str, Any]:
    caller(query_router).require_self(player_id)
    return queries.bet_record(player_id, limit, cursor)


@query_router.get("/wallets/<player_id>", summary="A wallet's balance and latest ledger entries")
def wallet(player_id: Annotated[str, Path(max_length=64)]) -> dict[str, Any]:
    caller(query_router).require_self(player_id)
    return queries.wallet_view(player_id)


ROUTERS = (bets_router, decisions_router, tables_router, wallet_router, query_router)


def full_api() -> APIGatewayRestResolver:
    """Every route, for the OpenAPI document."""
    app = resolver()
    for router in ROUTERS:
        app.include_router(router)
    return app


def openapi_document() -> str:
    return full_api().get_openapi_json_schema(
        title="Croupier", version="0.1.0",
        description="Round settlement for live-dealer card tables. Amounts are integers in minor units. "
                    "Send a bearer token; money-moving requests carry an Idempotency-Key header.")


def http_function(*routers: Router) -> tuple[APIGatewayRestResolver, Callable[[dict[str, Any], Any], dict[str, Any]]]:
    """The resolver and the Powertools-decorated ``lambda_handler`` of one HTTP function."""
    from aws_lambda_powertools import Metrics, Tracer
    from aws_lambda_powertools.logging import correlation_paths

    app = resolver()
    for router in routers:
        app.include_router(router)
    tracer, metrics = Tracer(), Metrics()

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        register_context(context)
        result: dict[str, Any] = app.resolve(event, context)
        return result

    return app, lambda_handler
