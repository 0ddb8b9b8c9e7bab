"""The HTTP API: one Router per function, the error mapping, identity and idempotency.

Each function's ``app.py`` builds a resolver with :func:`resolver` and includes its router; the
query function also serves the whole API's OpenAPI document (``/openapi.json``, every route of
every function) and its Swagger page (``/swagger``). Every answer is built through its model
(:mod:`croupier.app.responses`); every refusal is a 4xx with ``{"error": {"reason": ...,
"message": ...}}``, the one error model, which API Gateway's own answers share.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
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
from . import help as help_figures
from . import player_rounds as player_search
from .config import settings
from .errors import CORS_ALLOW_HEADERS, AppError, error_body
from .help import TableHelp
from .identity import Identity, from_event
from .models import ConfigureTable, Control, CreateTable, Decision, Money, NewShoe, PlaceBets
from .player_rounds import PlayerRounds
from .responses import (
    BetRecord,
    BetsPlaced,
    DecisionApplied,
    ErrorBody,
    Lobby,
    MoneyMoved,
    RoundRecord,
    RoundSummary,
    RoundView,
    TableLog,
    TableRounds,
    TableSummary,
    TableView,
    TableWalletView,
    WalletView,
    out,
)

logger = Logger(service="croupier")

_STATUS = {BetRefused: 422, IllegalAction: 409, UnexpectedCard: 409}
JSON_MEDIA_TYPE = "application/json"
_context: dict[str, Any] = {"lambda": None}


def error_response(status: int, reason: str, message: str) -> Response[Any]:
    return Response(status_code=status, content_type="application/json", body=json.dumps(error_body(reason, message)))


def status_of(exc: CroupierError) -> int:
    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return status
    for cls, code in _STATUS.items():
        if isinstance(exc, cls):
            return code
    return 400


def _number(literal: str) -> int | float:
    """A JSON number with a fraction or an exponent: the integer it denotes when it is a whole
    number (``55641.0``, ``1e3``: JSON Schema's integers, as the OpenAPI document says), read
    exactly from its digits (``100.0000000000000001`` is no integer); else a float, which every
    integer field refuses."""
    try:
        exact = Decimal(literal)
    except InvalidOperation:  # pragma: no cover - the JSON parser only hands over numbers
        return float(literal)
    if exact.is_finite() and exact.adjusted() < 19 and exact == exact.to_integral_value():
        return int(exact)
    return float(literal)


def _json_body(text: str) -> Any:
    """``json.loads`` of a request body (whole numbers written with a fraction or an exponent are
    integers: :func:`_number`). What it cannot read without being malformed JSON (a number of
    more than Python's 4300 digits, nesting deeper than its recursion limit) is an invalid request,
    not a server error (Powertools turns only :class:`json.JSONDecodeError` into one)."""
    try:
        return json.loads(text, parse_float=_number)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        what = (f"a number has more than {sys.get_int_max_str_digits()} digits" if isinstance(exc, ValueError)
                else "the JSON nests too deep")
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": what, "input": {}}]) from exc


def _routes_declared(app: APIGatewayRestResolver) -> dict[tuple[str, str], tuple[frozenset[str], bool]]:
    """Per (method, OpenAPI path) of the resolver's own document: the query parameters the route
    declares and whether it takes a body. Built once per resolver from Powertools' public
    ``get_openapi_json_schema``; the two documents are not in it and take any query."""
    found = _declared.get(id(app))
    if found is None:
        schema = json.loads(app.get_openapi_json_schema())
        found = {(method.upper(), path): (frozenset(p["name"] for p in op.get("parameters", []) if p["in"] == "query"),
                                          "requestBody" in op)
                 for path, ops in (schema.get("paths") or {}).items() for method, op in ops.items()}
        _declared[id(app)] = found
    return found


_declared: dict[int, dict[tuple[str, str], tuple[frozenset[str], bool]]] = {}


def _refusal_of_form(app: APIGatewayRestResolver) -> Response[Any] | None:
    """What the API refuses of a request's form before its fields: a query parameter the route does
    not declare (a misspelt ``limit`` or ``cursor`` would otherwise be ignored without a word), then
    a body of any media type but JSON (Powertools parses a form too, what curl -d and urllib send by
    default: a JSON body sent as one would be refused with its form fields' errors). Asked both
    before the route runs (:func:`_form_checked`) and when Powertools' validation refused the
    request, so that the answer does not depend on which came first."""
    request = app.request
    declared = _routes_declared(app).get((request.method, request.route))
    if declared is None:  # the documents: any query (a browser's or a proxy's cache-buster)
        return None
    query, takes_body = declared
    unknown = sorted(set(app.current_event.resolved_query_string_parameters or {}) - query)
    if unknown:
        takes = ", ".join(sorted(query)) or "none"
        return _invalid_response([{"loc": ("query", name), "msg": f"not a parameter of this route (it takes: {takes})"}
                                  for name in unknown])
    content_type = (app.current_event.headers or {}).get("content-type", "").strip()
    if takes_body and content_type and not content_type.startswith(JSON_MEDIA_TYPE):
        return _unsupported_response()
    return None


def _invalid_response(errors: Any) -> Response[Any]:
    parts = []
    for err in errors:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg')}")
    return error_response(422, "invalid-request", "; ".join(parts) or "invalid request")


def _unsupported_response() -> Response[Any]:
    return error_response(415, "unsupported-media-type",
                          f"the request body must be JSON, sent with Content-Type: {JSON_MEDIA_TYPE}")


def cors() -> CORSConfig:
    """The origin browser clients may call from (the template's ``CorsAllowedOrigin``)."""
    return CORSConfig(allow_origin=os.environ.get("CORS_ALLOWED_ORIGIN") or "*",
                      allow_headers=list(CORS_ALLOW_HEADERS), max_age=600)


def resolver() -> APIGatewayRestResolver:
    """A resolver with Powertools' request validation, the request's form checked
    (:func:`_refusal_of_form`) and every refusal mapped to the one error model."""
    app = APIGatewayRestResolver(enable_validation=True, json_body_deserializer=_json_body, cors=cors())

    def _form_checked(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response[Any]:
        refused = _refusal_of_form(app)
        if refused is not None:
            return refused
        response: Response[Any] = next_middleware(app)
        return response

    app.use(middlewares=[_form_checked])

    @app.exception_handler(CroupierError)
    def _domain(exc: CroupierError) -> Response[Any]:
        logger.info("refused", extra={"reason": exc.reason, "refusal": str(exc)})
        return error_response(status_of(exc), exc.reason, str(exc))

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response[Any]:
        return _refusal_of_form(app) or _invalid_response(exc.errors())

    @app.exception_handler(RequestUnsupportedContentType)
    def _media_type(exc: RequestUnsupportedContentType) -> Response[Any]:
        return _refusal_of_form(app) or _unsupported_response()

    @app.exception_handler(IdempotencyValidationError)
    def _reused(exc: IdempotencyValidationError) -> Response[Any]:
        return error_response(422, "idempotency-key-reused",
                              "this Idempotency-Key was used before with a different request")

    @app.exception_handler(IdempotencyAlreadyInProgressError)
    def _in_progress(exc: IdempotencyAlreadyInProgressError) -> Response[Any]:
        return error_response(409, "in-progress", "a request with this Idempotency-Key is still being processed")

    @app.not_found
    def _missing(exc: Exception) -> Response[Any]:
        return error_response(404, "no-route", "no such route: see /openapi.json")

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
    """Run a money-moving call once per (caller, key): a retry answers the first answer, marked
    ``replayed`` (the answer stored is the first one's, which was not)."""
    persistence = _persistence(name)
    config = IdempotencyConfig(event_key_jmespath="key", payload_validation_jmespath="body",
                               raise_on_no_idempotency_key=True, expires_after_seconds=24 * 3600)
    config.register_lambda_context(_context["lambda"])
    config.response_hook = alerts.idempotent_replay

    @idempotent_function(data_keyword_argument="request", persistence_store=persistence, config=config,
                         key_prefix=f"croupier.{name}")
    def call(request: dict[str, Any]) -> dict[str, Any]:
        ran.append(True)
        return fn()

    ran: list[bool] = []
    answer = call(request={"key": key, "body": body})
    return answer if ran else {**answer, "replayed": True}


IdemKey = Annotated[str, Header(alias="Idempotency-Key", min_length=8, max_length=128,
                                description="a fresh unique key per money-moving request; retries reuse it")]
TableId = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$", description="a table's id")]
RoundId = Annotated[str, Path(min_length=1, max_length=96, pattern=r"^[A-Za-z0-9_-]+$", description="a round's id")]
PlayerId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:@-]+$",
                               description="a player's id (their token's subject)")]
SeatNumber = Annotated[int, Path(ge=1, le=7, description="a blackjack seat, 1 to 7")]

# --- what each route answers, for the OpenAPI document ------------------------------------------

ERROR_MEANING = {
    400: "Refused: the request does not fit the table's rules (bad rules, a bad cursor ...)",
    401: "No bearer token, or one that is malformed, expired or not ours (API Gateway's authorizer)",
    403: "The token's role may not do this, or not for this player or table",
    404: "No such table, round or route",
    409: "The table's or round's state refuses it now (betting closed, not your turn, funds ...)",
    413: "The request is larger than the API takes (API Gateway)",
    415: "The body is not JSON (send Content-Type: application/json)",
    422: "The request is malformed: its body, path, query or headers do not fit this document",
    429: "Too many requests (API Gateway's throttling)",
    502: "The API could not answer (API Gateway: the function failed); retry later",
    503: "A seamless table's operator wallet did not answer: nothing was done; retry",
}
READ_ERRORS = (401, 403, 404, 422, 429, 502)
WRITE_ERRORS = (400, 401, 403, 404, 409, 413, 415, 422, 429, 502)
"""A route with a body; one without has no 413 or 415."""
BODYLESS_WRITE_ERRORS = (400, 401, 403, 404, 409, 422, 429, 502)
WALLET_ERRORS = (*WRITE_ERRORS, 503)
"""A route that may call an operator's seamless wallet."""


def doc(operation_id: str, tag: str, model: type[Any], errors: tuple[int, ...], status: int = 200,
        description: str = "OK") -> dict[str, Any]:
    """The decorator arguments that document a route: its operation id, tag, its answer's model
    and every status it can answer, each refusal in the one error model."""
    responses: dict[int, Any] = {status: {"description": description,
                                          "content": {JSON_MEDIA_TYPE: {"model": model}}}}
    for code in errors:
        responses[code] = {"description": ERROR_MEANING[code], "content": {JSON_MEDIA_TYPE: {"model": ErrorBody}}}
    return {"operation_id": operation_id, "tags": [tag], "responses": responses}


def _placed(answer: dict[str, Any]) -> dict[str, Any]:
    """A bet request's answer without the bet summary's own bookkeeping (its request key, shard)."""
    fields = ("bet_id", "player", "type", "seat", "mode", "amount", "taken", "placed_at")
    return {**answer, "bets": [{k: bet[k] for k in fields if bet.get(k) is not None} for bet in answer["bets"]]}


def _json(status: int, body: dict[str, Any]) -> Response[Any]:
    return Response(status, JSON_MEDIA_TYPE, json.dumps(body))


# --- bets ------------------------------------------------------------------------------------
bets_router = Router()


@bets_router.post("/tables/<table_id>/bets", summary="Place several bets at once (all or none)",
                  description="A player's bets in the table's open round. A retry with the same Idempotency-Key "
                              "moves nothing and answers the same bets, with replayed true.",
                  **doc("placeBets", "bets", BetsPlaced, WALLET_ERRORS))
def place_bets(table_id: TableId, body: PlaceBets, key: IdemKey) -> dict[str, Any]:
    who = caller(bets_router).require("player")
    payload = [b.model_dump(exclude_none=True) for b in body.bets]
    answer = idempotent("bets", f"{who.subject}:{key}", {"table": table_id, "bets": payload},
                        lambda: bets.place_bets(table_id, who.subject, who.account_kind, payload, key))
    return out(BetsPlaced, _placed(answer))


# --- decisions -------------------------------------------------------------------------------
decisions_router = Router()


@decisions_router.post("/rounds/<round_id>/decisions", summary="A player's decision in a blackjack round",
                       description="A seated action, insurance, a follow answer behind a seat (behind: true) or a "
                                   "pre-selection (preselect: true). A retry with the same Idempotency-Key is "
                                   "answered again (replayed true), never applied twice.",
                       **doc("decide", "decisions", DecisionApplied, WALLET_ERRORS))
def decide(round_id: RoundId, body: Decision, key: IdemKey) -> dict[str, Any]:
    who = caller(decisions_router).require("player")
    answer = idempotent("decisions", f"{who.subject}:{key}", {"round": round_id, **body.model_dump()},
                        lambda: {"replayed": False, **decisions.decide(
                            round_id, who.subject, body.seat, body.action, behind=body.behind, hand=body.hand,
                            preselect=body.preselect, idempotency_key=key)})
    return out(DecisionApplied, answer)


# --- tables, seats, shoes and round control --------------------------------------------------
tables_router = Router()


@tables_router.post("/tables", summary="Create a table from a game's default configuration (operator)",
                    **doc("createTable", "tables", TableView, WRITE_ERRORS, status=201, description="Created"))
def create_table(body: CreateTable) -> Response[Any]:
    who = caller(tables_router).require("operator")
    item = tables.create_table(body.game, body.rules, body.reader_id, body.table_id, body.name,
                               body.wallet.model_dump() if body.wallet else None)
    return _json(201, out(TableView, queries.table_view(item, who)))


@tables_router.patch("/tables/<table_id>", summary="Configure a table between rounds (operator)",
                     **doc("configureTable", "tables", TableView, WRITE_ERRORS))
def configure_table(table_id: TableId, body: ConfigureTable) -> dict[str, Any]:
    who = caller(tables_router).require("operator")
    wallet = body.wallet.model_dump() if body.wallet else None
    return out(TableView, queries.table_view(tables.configure_table(table_id, body.rules, body.reader_id, wallet),
                                             who))


@tables_router.put("/tables/<table_id>/seats/<seat>", summary="Sit down at a blackjack seat",
                   **doc("takeSeat", "tables", TableView, BODYLESS_WRITE_ERRORS))
def sit(table_id: TableId, seat: SeatNumber) -> dict[str, Any]:
    who = caller(tables_router).require("player")
    return out(TableView, queries.table_view(tables.sit(table_id, seat, who.subject, who.account_kind), who))


@tables_router.delete("/tables/<table_id>/seats/<seat>", summary="Leave a blackjack seat",
                      **doc("leaveSeat", "tables", TableView, BODYLESS_WRITE_ERRORS))
def leave(table_id: TableId, seat: SeatNumber) -> dict[str, Any]:
    who = caller(tables_router).require("player")
    return out(TableView, queries.table_view(tables.leave(table_id, seat, who.subject), who))


@tables_router.post("/tables/<table_id>/shoes", summary="A new shoe was shuffled (dealer console)",
                    **doc("newShoe", "tables", TableView, WRITE_ERRORS))
def new_shoe(table_id: TableId, body: NewShoe) -> dict[str, Any]:
    who = caller(tables_router).require("dealer", "supervisor").require_table(table_id)
    return out(TableView, queries.table_view(dealing.shuffle(table_id, body.shoe_id), who))


@tables_router.post("/tables/<table_id>/rounds", summary="Open the next round: its betting countdown starts",
                    **doc("startRound", "rounds", RoundSummary, BODYLESS_WRITE_ERRORS, status=201,
                          description="Created"))
def start_round(table_id: TableId) -> Response[Any]:
    who = caller(tables_router).require("dealer", "supervisor").require_table(table_id)
    item = rounds.start_round(table_id)
    return _json(201, out(RoundSummary, queries.round_summary(item, who)))


@tables_router.post("/rounds/<round_id>/<control>", summary="Pause, resume or void a round (supervisor)",
                    description="Resuming a round a card paused says what became of that card (card).",
                    **doc("controlRound", "rounds", RoundSummary, WRITE_ERRORS))
def control(round_id: RoundId, control: Annotated[Literal["pause", "resume", "void"], Path()],
            body: Control) -> dict[str, Any]:
    who = caller(tables_router).require("supervisor")
    if control != "resume" and body.card is not None:
        raise AppError("'card' says what became of a card when resuming", reason="invalid-request")
    if control == "pause":
        item = supervision.pause(round_id, body.reason)
    elif control == "resume":
        item = supervision.resume_round(round_id, body.card)
    else:
        item = supervision.void(round_id, body.reason)
    return out(RoundSummary, queries.round_summary(item, who))


# --- wallets ---------------------------------------------------------------------------------
wallet_router = Router()


@wallet_router.post("/wallets/<player_id>/deposits", summary="Deposit into a player's wallet (operator)",
                    **doc("deposit", "wallets", MoneyMoved, WRITE_ERRORS))
def deposit(player_id: PlayerId, body: Money, key: IdemKey) -> dict[str, Any]:
    caller(wallet_router).require("operator")
    return out(MoneyMoved, idempotent("deposit", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                                      lambda: queries.move(player_id, body.amount, "deposit", key, body.reference)))


@wallet_router.post("/wallets/<player_id>/withdrawals", summary="Withdraw from a player's wallet (operator)",
                    **doc("withdraw", "wallets", MoneyMoved, WRITE_ERRORS))
def withdraw(player_id: PlayerId, body: Money, key: IdemKey) -> dict[str, Any]:
    caller(wallet_router).require("operator")
    return out(MoneyMoved, idempotent("withdraw", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                                      lambda: queries.move(player_id, -body.amount, "withdrawal", key,
                                                           body.reference)))


# --- read-only queries -----------------------------------------------------------------------
query_router = Router()


@query_router.get("/tables", summary="The lobby: every table, its round, limits, free seats and roads (paged)",
                  **doc("listTables", "tables", Lobby, (400, *READ_ERRORS)))
def list_tables(limit: Annotated[int, Query(ge=1, le=100, description="tables per page")] = 20,
                cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                ) -> dict[str, Any]:
    return out(Lobby, lobby.lobby(caller(query_router), limit, cursor))


@query_router.get("/tables/<table_id>", summary="A table: game, rules, seats, shoe, current round, limits, roads",
                  **doc("getTable", "tables", TableSummary, READ_ERRORS))
def get_table(table_id: TableId) -> dict[str, Any]:
    return out(TableSummary, lobby.table_summary(store.load_table(table_id), caller(query_router)))


@query_router.get("/tables/<table_id>/rounds", summary="A table's rounds, newest first, with their results (paged)",
                  **doc("getTableRounds", "tables", TableRounds, (400, *READ_ERRORS)))
def table_rounds(table_id: TableId,
                 limit: Annotated[int, Query(ge=1, le=100, description="rounds per page")] = 20,
                 cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                 shoe: Annotated[str | None, Query(max_length=40, description="only this shoe's rounds")] = None,
                 ) -> dict[str, Any]:
    caller(query_router)
    return out(TableRounds, lobby.table_rounds(table_id, limit, cursor, shoe))


@query_router.get("/tables/<table_id>/log", summary="The table's device log: every scan and console event, in order",
                  **doc("getTableLog", "tables", TableLog, READ_ERRORS))
def table_log(table_id: TableId) -> dict[str, Any]:
    caller(query_router).require("operator", "dealer", "supervisor").require_table(table_id)
    table = store.load_table(table_id)  # 404 for a table that does not exist
    return out(TableLog, {"table_id": table_id, "entries": dealing.device_log(table_id, table.get("round_id"))})


@query_router.get("/rounds/<round_id>", summary="A round as the caller may see it (hidden cards stay hidden)",
                  **doc("getRound", "rounds", RoundView, READ_ERRORS))
def get_round(round_id: RoundId) -> dict[str, Any]:
    return out(RoundView, queries.round_view(round_id, caller(query_router)))


@query_router.get("/rounds/<round_id>/transcript",
                  summary="A settled round's record for a dispute: its transcript (for croupier replay), bets, ledger "
                          "(supervisor, operator)",
                  **doc("getRoundTranscript", "rounds", RoundRecord, (409, *READ_ERRORS)))
def round_transcript(round_id: RoundId) -> dict[str, Any]:
    caller(query_router).require("supervisor", "operator")
    return out(RoundRecord, queries.round_record(round_id))


@query_router.get("/players/<player_id>/bets", summary="A player's bet record, newest first, paged",
                  **doc("getBetRecord", "bets", BetRecord, (400, *READ_ERRORS)))
def bet_record(player_id: PlayerId,
               limit: Annotated[int, Query(ge=1, le=100, description="bets per page")] = 20,
               cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
               ) -> dict[str, Any]:
    caller(query_router).require_self(player_id)
    return out(BetRecord, queries.bet_record(player_id, limit, cursor))


@query_router.get("/wallets/<player_id>", summary="A wallet's balance and latest ledger entries",
                  **doc("getWallet", "wallets", WalletView, READ_ERRORS))
def wallet(player_id: PlayerId) -> dict[str, Any]:
    caller(query_router).require_self(player_id)
    return out(WalletView, queries.wallet_view(player_id))


@query_router.get("/tables/<table_id>/wallets/<player_id>",
                  summary="A player's balance in the table's wallet: Croupier's own, or the operator's (seamless)",
                  **doc("getTableWallet", "wallets", TableWalletView, (409, *READ_ERRORS, 503)))
def table_wallet(table_id: TableId, player_id: PlayerId) -> dict[str, Any]:
    caller(query_router).require_self(player_id)
    return out(TableWalletView, queries.table_wallet(store.load_table(table_id), player_id))


@query_router.get("/tables/<table_id>/help",
                  summary="A table's help figures from its rules: each bet's exact RTP, Baccarat's drawing rules",
                  **doc("getTableHelp", "tables", TableHelp, READ_ERRORS))
def table_help(table_id: TableId) -> dict[str, Any]:
    caller(query_router)
    return out(TableHelp, help_figures.table_help(store.load_table(table_id)))


@query_router.get("/players/<player_id>/rounds",
                  summary="The rounds a player bet in, newest first, with their bets (supervisor, operator)",
                  **doc("getPlayerRounds", "rounds", PlayerRounds, (400, *READ_ERRORS)))
def player_rounds(player_id: PlayerId,
                  limit: Annotated[int, Query(ge=1, le=100, description="bets per page")] = 50,
                  cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                  table: Annotated[str | None, Query(max_length=40, pattern=r"^[A-Za-z0-9_-]+$",
                                                     description="only this table's rounds")] = None,
                  since: Annotated[int | None, Query(ge=0, lt=10**13, description="bets placed from, ms")] = None,
                  until: Annotated[int | None, Query(ge=0, lt=10**13, description="bets placed until, ms")] = None,
                  ) -> dict[str, Any]:
    caller(query_router).require("supervisor", "operator")
    return out(PlayerRounds, player_search.player_rounds(player_id, limit, cursor, table, since, until))


ROUTERS = (bets_router, decisions_router, tables_router, wallet_router, query_router)

# --- the API's documents -----------------------------------------------------------------------

TITLE, VERSION = "Croupier", "0.1.0"
DOCUMENTS = {"/openapi.json": ("getOpenApi", "the OpenAPI document of every route", JSON_MEDIA_TYPE),
             "/swagger": ("getSwagger", "the Swagger page of the OpenAPI document", "text/html")}
SECURITY_SCHEME = "bearer"
TAGS = [{"name": "bets", "description": "a player's bets and bet record"},
        {"name": "decisions", "description": "a player's decisions in a blackjack round"},
        {"name": "tables", "description": "tables, seats, shoes and the device log"},
        {"name": "rounds", "description": "opening rounds, reading them, pausing, resuming and voiding them"},
        {"name": "wallets", "description": "balances, ledgers, deposits and withdrawals"},
        {"name": "documents", "description": "this document and its Swagger page"}]


def full_api() -> APIGatewayRestResolver:
    """Every route, for the OpenAPI document. Including a router makes it read the request of the
    resolver that included it last (its public ``api_resolver``): each router is handed back to
    the function's resolver it served, or a warm query function's routes would read no request
    after serving the document once."""
    app = resolver()
    serving = {id(router): router.api_resolver for router in ROUTERS}
    for router in ROUTERS:
        app.include_router(router)
    for router in ROUTERS:
        if serving[id(router)] is not None:
            router.api_resolver = serving[id(router)]
    return app


_document_cache: dict[str, dict[str, Any]] = {}


def openapi_document(server: str = "/") -> dict[str, Any]:
    """The whole API's OpenAPI document (every function's routes), served from ``server``: the
    bearer JWT scheme on every route but the two documents, each answer's model and every status
    it can answer, the one error model (Powertools' own validation error, which this API never
    sends, is left out)."""
    if "base" not in _document_cache:
        _document_cache["base"] = _build_document()
    document = json.loads(json.dumps(_document_cache["base"]))
    document["servers"] = [{"url": server, "description": "this API"}]
    return document


def _build_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(full_api().get_openapi_json_schema(
        title=TITLE, version=VERSION,
        description="Round settlement for live-dealer card tables. Amounts are integers in minor units. "
                    "Send a bearer token (Authorize); money-moving requests carry an Idempotency-Key header. "
                    'Every refusal is a 4xx with {"error": {"reason", "message"}}.'))
    document["components"]["securitySchemes"] = {SECURITY_SCHEME: {
        "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
        "description": "a Cognito ID token on AWS (its groups are the roles); locally a token of the local stack"}}
    document["security"] = [{SECURITY_SCHEME: []}]
    document["tags"] = TAGS
    for path, (operation_id, summary, media_type) in DOCUMENTS.items():
        document["paths"][path] = {"get": {
            "operationId": operation_id, "summary": summary, "tags": ["documents"], "security": [],
            "responses": {"200": {"description": "OK", "content": {media_type: {"schema": {"type": "object"}
                                                                               if media_type == JSON_MEDIA_TYPE
                                                                               else {"type": "string"}}}},
                          **{str(code): {"description": ERROR_MEANING[code],
                                         "content": {JSON_MEDIA_TYPE: {"schema": {
                                             "$ref": "#/components/schemas/ErrorBody"}}}} for code in (429, 502)}}}}
    schemas = document["components"]["schemas"]
    text = json.dumps(document["paths"])
    for unused in ("HTTPValidationError", "ValidationError", "ResponseValidationError"):
        if f"#/components/schemas/{unused}" not in text:
            schemas.pop(unused, None)
    return document


SWAGGER_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Croupier API</title>
  <style>{css}</style>
</head>
<body>
  <div id="swagger-ui">Loading...</div>
  <script>{js}</script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: new URL("openapi.json", window.location.href).href,
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      tryItOutEnabled: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
      layout: "BaseLayout"
    }});
  </script>
</body>
</html>
"""


def swagger_page() -> str:
    """The Swagger page: it loads the whole document (``openapi.json`` beside it, under the stage
    on AWS); its Authorize button takes a bearer JWT. Swagger UI's script and style are the ones
    Powertools ships (no CDN: the page works where the API is reachable)."""
    if "page" not in _page_cache:
        from pathlib import Path as FilePath

        import aws_lambda_powertools.event_handler.openapi.swagger_ui as assets

        folder = FilePath(assets.__file__).parent
        js = (folder / "swagger-ui-bundle.min.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
        css = (folder / "swagger-ui.min.css").read_text(encoding="utf-8")
        _page_cache["page"] = SWAGGER_PAGE.format(js=js, css=css)
    return _page_cache["page"]


_page_cache: dict[str, str] = {}


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
