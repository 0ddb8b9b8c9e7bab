"""Errors of the application layer, each mapped to one HTTP answer (see :mod:`croupier.app.http`)."""

from __future__ import annotations

from ..errors import CroupierError


class AppError(CroupierError):
    status = 400
    reason = "bad-request"


class NotFound(AppError):
    status = 404
    reason = "not-found"


class Forbidden(AppError):
    status = 403
    reason = "forbidden"


class Unauthorized(AppError):
    status = 401
    reason = "unauthorized"


class StateConflict(AppError):
    """The request does not fit the state of the table or round (closed betting, paused ...)."""

    status = 409
    reason = "conflict"


class Funds(AppError):
    status = 409
    reason = "insufficient-funds"


# --- what API Gateway itself answers, before any function runs ----------------------------------
# The same bodies as the application's refusals. ``template.yaml``'s GatewayResponses carry them on
# AWS and the local gateway answers them locally (a unit test keeps the two the same).

CORS_ALLOW_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key")
"""The request headers a browser client on another origin may send."""

GATEWAY_ERRORS: dict[str, tuple[int, str, str]] = {
    "UNAUTHORIZED": (401, "unauthorized",
                     "a valid bearer token is required: none was sent, or it is malformed, expired or not ours"),
    "ACCESS_DENIED": (403, "access-denied", "the authorizer refused this token"),
    "MISSING_AUTHENTICATION_TOKEN": (404, "no-route", "no such route: see /openapi.json"),
    "REQUEST_TOO_LARGE": (413, "request-too-large", "the request is larger than the API takes (10 MB)"),
    "THROTTLED": (429, "throttled", "too many requests: slow down and retry"),
    "DEFAULT_4XX": (400, "bad-request", "the request is malformed"),
    "DEFAULT_5XX": (502, "gateway-error", "the API could not answer this request; retry later"),
}
"""API Gateway response type -> (status, reason, message). DEFAULT_4XX and DEFAULT_5XX keep the
status API Gateway chose and, on AWS, its own message."""


def error_body(reason: str, message: str) -> dict[str, dict[str, str]]:
    """The one error body of the API: every refusal, the application's and the gateway's."""
    return {"error": {"reason": reason, "message": message}}
