"""The HTTP layer's one place for each concern: the resolver (request validation and the form
checks), the error mapping, the caller's identity, idempotency, the path and header parameters
and the route documentation every router shares.

The routers are in :mod:`croupier.app.routes`, a module per function (bets, decisions, tables,
wallets, queries); each function's ``app.py`` calls :func:`http_function` with its router. The
whole API's OpenAPI document and Swagger page are :mod:`croupier.app.openapi`'s. Every answer is
built through its model (:mod:`croupier.app.responses`); every refusal is a 4xx with
``{"error": {"reason": ..., "message": ...}}``, the one error model, which API Gateway's own
answers share.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Annotated, Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestUnsupportedContentType, RequestValidationError
from aws_lambda_powertools.event_handler.openapi.params import Header, Path

from ..errors import BetRefused, CroupierError, IllegalAction, UnexpectedCard
from . import alerts, store
from .config import settings
from .errors import CORS_ALLOW_HEADERS, AppError, error_body
from .identity import Identity, from_event
from .responses import (
    ErrorBody,
)

if TYPE_CHECKING:  # Powertools' idempotency imports boto3: it is imported by the first idempotent call
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

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

    @app.not_found
    def _missing(exc: Exception) -> Response[Any]:
        return error_response(404, "no-route", "no such route: see /openapi.json")

    return app


def register_context(context: Any) -> None:
    _context["lambda"] = context


def caller(app: Any) -> Identity:
    return from_event(app.current_event.raw_event)


class KeyReused(AppError):
    """An ``Idempotency-Key`` used before with a different request (Powertools' ``IdempotencyValidationError``)."""

    status = 422
    reason = "idempotency-key-reused"


class InProgress(AppError):
    """A request with this ``Idempotency-Key`` is still running (``IdempotencyAlreadyInProgressError``)."""

    status = 409
    reason = "in-progress"


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
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        layer = layers[key] = DynamoDBPersistenceLayer(table_name=key[1])
    return layer


def idempotent(name: str, key: str, body: Any, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run a money-moving call once per (caller, key): a retry answers the first answer, marked
    ``replayed`` (the answer stored is the first one's, which was not). A key reused with another
    request is refused (:class:`KeyReused`), and so is one whose first request is still running
    (:class:`InProgress`).

    Powertools' idempotency is imported here, by the first idempotent call, not with the function:
    it imports boto3, and the call needs it only then (``docs/deploying.md``, *The card path's cold
    start*)."""
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

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
    try:
        answer = call(request={"key": key, "body": body})
    except IdempotencyValidationError:
        raise KeyReused("this Idempotency-Key was used before with a different request") from None
    except IdempotencyAlreadyInProgressError:
        raise InProgress("a request with this Idempotency-Key is still being processed") from None
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


def placed_answer(answer: dict[str, Any]) -> dict[str, Any]:
    """A bet request's answer without the bet summary's own bookkeeping (its request key, shard)."""
    fields = ("bet_id", "player", "type", "seat", "mode", "amount", "taken", "placed_at")
    return {**answer, "bets": [{k: bet[k] for k in fields if bet.get(k) is not None} for bet in answer["bets"]]}


def json_response(status: int, body: dict[str, Any]) -> Response[Any]:
    return Response(status, JSON_MEDIA_TYPE, json.dumps(body))


def http_function(*routers: Router) -> tuple[APIGatewayRestResolver, Callable[[dict[str, Any], Any], dict[str, Any]]]:
    """The resolver and the Powertools-decorated ``lambda_handler`` of one HTTP function."""
    from aws_lambda_powertools import Metrics
    from aws_lambda_powertools.logging import correlation_paths

    from . import aws, tracing

    aws.prepare("aws_lambda_powertools.utilities.idempotency")  # else imported by the first idempotent call
    app = resolver()
    for router in routers:
        app.include_router(router)
    tracer, metrics = tracing.tracer(), Metrics()  # no X-Ray SDK where tracing is off

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        register_context(context)
        result: dict[str, Any] = app.resolve(event, context)
        return result

    return app, lambda_handler
