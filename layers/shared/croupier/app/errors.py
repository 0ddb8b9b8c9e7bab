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
