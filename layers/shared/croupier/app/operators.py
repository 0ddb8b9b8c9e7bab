"""Operators' seamless wallets: where each one is and how Croupier signs its calls.

Each operator whose tables play in ``seamless`` mode has one SSM SecureString parameter,
``{OPERATOR_WALLETS}/{operator}``, holding JSON: the wallet's base URL, the HMAC secret both sides
sign with, the currency its amounts are in and, optionally, its own call timeout. The secret never
sits in an environment variable or a table item, and rotating it is one ``put-parameter``. A
function reads a parameter at most once a minute (:data:`MAX_AGE_S`).
"""

from __future__ import annotations

import json
import threading
from typing import Annotated
from urllib.parse import urlsplit

from botocore.exceptions import ClientError
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from . import aws, clock
from .aws import boto3
from .config import settings
from .errors import AppError

MAX_AGE_S = 60.0
OperatorId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{1,39}$")]


class Operator(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # seamless tables only: built on first use

    id: OperatorId
    url: Annotated[str, StringConstraints(pattern=r"^https?://[^\s]+$", max_length=500)]
    secret: str = Field(min_length=16, max_length=256, repr=False)
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
    timeout_ms: int | None = Field(default=None, ge=50, le=20_000)

    @field_validator("url")
    @classmethod
    def _https(cls, url: str) -> str:
        # the body carries players and amounts: only a wallet on this machine is called in the clear
        host = urlsplit(url).hostname or ""
        if url.startswith("http://") and host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("an operator's wallet is called over https (plain http only on this machine)")
        return url

    @property
    def timeout_s(self) -> float:
        return (self.timeout_ms or settings().wallet_timeout_ms) / 1000


class UnknownOperator(AppError):
    status = 400
    reason = "unknown-operator"


_cache: dict[tuple[int, str], tuple[float, Operator]] = {}
"""Each operator's wallet as read, by the SDK it was read through (:func:`croupier.app.aws.sdk_in_use`)
and the operator, with when (a simulation's wallet is never another's)."""
_lock = threading.Lock()
_clients = aws.Clients()


def reset_clients() -> None:
    _clients.clear()
    _cache.clear()


def parameter_name(operator: str) -> str:
    return f"{settings().operator_wallets.rstrip('/')}/{operator}"


def load(operator: str) -> Operator:
    """The operator's wallet, from its SSM parameter (cached a minute). An operator without one,
    or with one that is not a valid wallet, is refused with what is missing."""
    now, key = clock.monotonic(), (aws.sdk_in_use(), operator)
    with _lock:
        cached = _cache.get(key)
    if cached and now - cached[0] < MAX_AGE_S:
        return cached[1]
    ssm = _clients.made("ssm", lambda: boto3.client("ssm"))
    try:
        value = ssm.get_parameter(Name=parameter_name(operator), WithDecryption=True)["Parameter"]["Value"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ParameterNotFound":
            raise UnknownOperator(f"no seamless wallet is configured for operator {operator!r} "
                                  f"(SSM parameter {parameter_name(operator)})") from None
        raise
    try:
        found = Operator.model_validate({**json.loads(value), "id": operator})
    except (ValueError, ValidationError) as exc:
        raise UnknownOperator(f"operator {operator!r}'s wallet parameter is not valid: {exc}") from None
    with _lock:
        _cache[key] = (now, found)
    return found


def put(operator: Operator) -> None:
    """Store an operator's wallet (the local stack and tests; on AWS an operator's engineer runs
    ``aws ssm put-parameter --type SecureString``)."""
    ssm = _clients.made("ssm", lambda: boto3.client("ssm"))
    body = operator.model_dump(exclude={"id"}, exclude_none=True)
    ssm.put_parameter(Name=parameter_name(operator.id), Value=json.dumps(body), Type="SecureString", Overwrite=True)
    with _lock:
        for key in [k for k in _cache if k[1] == operator.id]:
            del _cache[key]
