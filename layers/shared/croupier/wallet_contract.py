"""The seamless-wallet contract: what Croupier sends an operator's wallet, and what it expects back.

An operator who keeps its players' money in its own platform sets a table to the ``seamless``
wallet mode; every stake, payout and refund of that table is then a call to the operator's HTTP
wallet (``docs/seamless-wallet.openapi.yaml`` is the same contract for the operator's engineers).
Plain Python and pydantic, no AWS: the application's client, the local reference wallet and the
tests share it.

Five calls, each a ``POST`` of a JSON body to ``{base url}/{call}``:

``balance``  the player's balance (read only)
``debit``    take a stake (a bet, a double, a split, insurance, a follow, a Pok Deng reservation)
``credit``   pay a bet's result (a win, a push, a loss of 0) or refund a bet
``cancel``   roll back a debit whose outcome Croupier does not know (it may never have arrived)
``status``   what the operator holds for a transaction id (reconciliation)

Every money call carries a ``transaction_id`` unique to that movement, the same on every retry:
the operator applies it once and answers a repeat with ``already-processed``. A cancel of a debit
the operator never saw succeeds and must make that debit id refuse (``debit-cancelled``) if it
arrives later.

Each request is signed: ``X-Croupier-Signature: v1=hex(HMAC-SHA256(secret, "{timestamp}.{path}.{body}"))``
with ``X-Croupier-Timestamp`` (Unix milliseconds) and ``X-Croupier-Operator``. The operator
refuses a signature that does not match (``bad-signature``) and a timestamp more than
:data:`SIGNATURE_WINDOW_MS` from its clock (``stale-request``): a captured request cannot be
replayed later.

Answers: ``200`` with ``{"status": "ok" | "already-processed", "balance": ...}`` is success; a
``4xx`` with ``{"error": code, "message": ...}`` is a refusal (codes in :data:`REFUSALS`); a
``5xx``, a timeout or a lost answer tells Croupier nothing (it cancels a debit, retries a credit).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

SIGNATURE_WINDOW_MS = 300_000
"""How far a request's timestamp may be from the operator's clock (5 minutes)."""
HEADER_SIGNATURE = "X-Croupier-Signature"
HEADER_TIMESTAMP = "X-Croupier-Timestamp"
HEADER_OPERATOR = "X-Croupier-Operator"

CALLS = ("balance", "debit", "credit", "cancel", "status")
DEBIT_REASONS = ("stake", "reservation", "double", "split", "insurance", "follow")
CREDIT_REASONS = ("payout", "push", "loss", "refund")
REFUSALS = {
    "insufficient-funds": "the player's balance does not cover the debit (402)",
    "unknown-player": "the operator has no such player (404)",
    "transaction-conflict": "this transaction id was used before with other contents (409)",
    "debit-cancelled": "the debit's transaction id was cancelled before it arrived (409)",
    "bad-signature": "the signature does not match the body, or names another operator (401)",
    "stale-request": "the timestamp is outside the signature window (401)",
    "invalid-request": "the body is not a valid request (400)",
    "player-blocked": "the operator does not let this player play (403)",
    "unknown-call": "no such call at this address: the wallet's URL is configured wrong (404)",
}
REFUSAL_STATUS = {"insufficient-funds": 402, "unknown-player": 404, "transaction-conflict": 409,
                  "debit-cancelled": 409, "bad-signature": 401, "stale-request": 401, "invalid-request": 400,
                  "player-blocked": 403, "unknown-call": 404}
"""Each refusal's HTTP status (a unit test keeps it equal to the statuses in :data:`REFUSALS`)."""

Id = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:@#-]+$")]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]


class _Body(BaseModel):
    # built when first used, not at import: only a seamless table's calls use them, and every function
    # imports this module (docs/deploying.md, "The card path's cold start")
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class BalanceRequest(_Body):
    player: Id
    currency: Currency


class _Movement(_Body):
    transaction_id: Id
    player: Id
    amount: int = Field(ge=0, le=10**12, strict=True)
    currency: Currency
    table_id: Id
    round_id: Id
    bet_id: Id


class DebitRequest(_Movement):
    amount: int = Field(gt=0, le=10**12, strict=True)
    reason: Literal["stake", "reservation", "double", "split", "insurance", "follow"]


class CreditRequest(_Movement):
    reason: Literal["payout", "push", "loss", "refund"]
    debits: list[Id] = Field(default_factory=list, max_length=64)
    """The debits of the bet this credit closes (its stake and any double, split, insurance...)."""


class CancelRequest(_Movement):
    amount: int = Field(gt=0, le=10**12, strict=True)
    cancels: Id
    """The debit's transaction id; ``amount`` is that debit's amount."""


class StatusRequest(_Body):
    transaction_id: Id


MODELS: dict[str, type[_Body]] = {"balance": BalanceRequest, "debit": DebitRequest, "credit": CreditRequest,
                                  "cancel": CancelRequest, "status": StatusRequest}


class Success(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)
    status: Literal["ok", "already-processed"]
    balance: int | None = None
    transaction_id: str | None = None


class TransactionStatus(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)
    transaction_id: str
    state: Literal["applied", "cancelled", "unknown"]
    """``applied``: the movement was made; ``cancelled``: a debit rolled back, or refused for ever
    by a cancel that came first; ``unknown``: the operator never saw it."""
    kind: Literal["debit", "credit", "cancel"] | None = None
    amount: int | None = None
    player: str | None = None


def transaction_id(operation: str) -> str:
    """The transaction id of one of Croupier's money movements: derived from the movement itself
    (its bet and step), so every retry of it, from any process, sends the same id."""
    return "cr-" + hashlib.sha256(operation.encode()).hexdigest()[:32]


def canonical(body: dict[str, Any]) -> bytes:
    """The bytes sent and signed: compact JSON with sorted keys."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def signature(secret: str, timestamp_ms: int, path: str, body: bytes) -> str:
    message = f"{timestamp_ms}.{path}.".encode() + body
    return "v1=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def verify(secret: str, headers: dict[str, str], path: str, body: bytes, now_ms: int) -> str | None:
    """Why a request's signature is refused (a refusal code), or None if it is good and fresh."""
    lower = {k.lower(): v for k, v in headers.items()}
    stamp = lower.get(HEADER_TIMESTAMP.lower(), "")
    given = lower.get(HEADER_SIGNATURE.lower(), "")
    if not (stamp.isascii() and stamp.isdigit()) or not given:  # "²" is a digit to str.isdigit
        return "bad-signature"
    if not hmac.compare_digest(given, signature(secret, int(stamp), path, body)):
        return "bad-signature"
    if abs(now_ms - int(stamp)) > SIGNATURE_WINDOW_MS:
        return "stale-request"
    return None


def signed_headers(operator: str, secret: str, path: str, body: bytes, now_ms: int) -> dict[str, str]:
    return {"Content-Type": "application/json", HEADER_OPERATOR: operator, HEADER_TIMESTAMP: str(now_ms),
            HEADER_SIGNATURE: signature(secret, now_ms, path, body)}
