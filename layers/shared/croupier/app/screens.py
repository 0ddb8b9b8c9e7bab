"""The WebSocket API's routes: a screen connects with its token, subscribes to tables, and gets a
snapshot of each, then its events (see :mod:`croupier.app.push`).

``$connect`` checks the token (``?token=`` in the URL: a browser cannot set headers on a
WebSocket): on AWS a Cognito ID token of the user pool, checked against its keys; locally a token
signed with the local key, as the REST API's gateway checks it. A refused connection is a 401 and
stores nothing. Messages are JSON: ``{"action": "subscribe" | "unsubscribe", "tables": [...]}``
(table ids as everywhere else, or ``"*"``), or ``{"action": "authenticate", "token": ...}``, a
fresh token of the same subject, role and table before the connection's own expires (answered
``{"type": "authenticated", "expires_at": ...}``); a connection whose token has expired is closed.
A connection sends at most :data:`croupier.app.push.MESSAGES_PER_SECOND` messages a second and
watches at most :data:`croupier.app.push.MAX_TABLES` tables. Anything else is answered with
``{"type": "error", "reason", "message"}`` on the connection, and changes nothing.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ..errors import CroupierError
from ..rules import describe_validation_error
from . import push, store
from .config import settings
from .errors import Unauthorized
from .identity import Identity, from_claims, verify_local_token
from .lobby import table_summary
from .queries import round_view

TableRef = Annotated[str, StringConstraints(min_length=1, max_length=40, pattern=r"^(\*|[A-Za-z0-9_-]+)$")]
"""A table id as the API takes it (1 to 40 of ``A-Z a-z 0-9 _ -``), or ``"*"``: every table."""


class Message(BaseModel):
    """Subscribe to tables, or stop watching them."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["subscribe", "unsubscribe"]
    tables: list[TableRef] = Field(min_length=1, max_length=push.MAX_TABLES)


class Authenticate(BaseModel):
    """A fresh token for the connection (the same subject, role and table)."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["authenticate"]
    token: str = Field(min_length=1, max_length=8192)


_MESSAGE: TypeAdapter[Message | Authenticate] = TypeAdapter(
    Annotated[Message | Authenticate, Field(discriminator="action")])


@lru_cache(maxsize=1)
def _cognito_keys() -> Any:
    import jwt

    return jwt.PyJWKClient(f"{settings().cognito_issuer}/.well-known/jwks.json")


def identify(token: str | None) -> Identity:
    """Who is connecting, from the token in the URL (401 if it is missing or not valid)."""
    return identify_token(token)[0]


def identify_token(token: str | None) -> tuple[Identity, int]:
    """Who the token names and when it expires (its ``exp``), or 401."""
    claims = _claims(token)
    try:
        expires = int(claims["exp"])
    except (KeyError, TypeError, ValueError):
        raise Unauthorized("the token names no expiry", reason="bad-token") from None
    return from_claims(claims), expires


def _claims(token: str | None) -> dict[str, Any]:
    if not token:
        raise Unauthorized("a token is required: connect with ?token=<your token>", reason="no-token")
    config = settings()
    if config.jwt_secret:
        return verify_local_token(config.jwt_secret, token)
    if not config.cognito_issuer:
        raise Unauthorized("tokens cannot be checked: no user pool is configured", reason="bad-token")
    import jwt

    try:
        key = _cognito_keys().get_signing_key_from_jwt(token).key
        claims = jwt.decode(token, key, algorithms=["RS256"], audience=config.cognito_client_id,
                            issuer=config.cognito_issuer)
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"the token is not valid: {exc}", reason="bad-token") from exc
    if claims.get("token_use") != "id":
        raise Unauthorized("connect with an ID token of the user pool", reason="bad-token")
    return claims


def route(event: dict[str, Any]) -> dict[str, Any]:
    """One WebSocket event (API Gateway's proxy event of a WebSocket route)."""
    context = event.get("requestContext") or {}
    connection_id = str(context.get("connectionId") or "")
    kind = context.get("eventType")
    if kind == "CONNECT":
        try:
            who, expires = identify_token((event.get("queryStringParameters") or {}).get("token"))
        except CroupierError as exc:
            return {"statusCode": 401, "body": json.dumps({"error": {"reason": exc.reason, "message": str(exc)}})}
        push.connect(connection_id, who, expires)
        return {"statusCode": 200}
    if kind == "DISCONNECT":
        push.unsubscribe(connection_id)
        return {"statusCode": 200}
    try:
        push.admit(connection_id)  # at most a few messages a second per connection
        message = _MESSAGE.validate_json(event.get("body") or "")
        if isinstance(message, Authenticate):
            who, expires = identify_token(message.token)
            until = push.reauthenticate(connection_id, who, expires)
            push.send(connection_id, {"type": "authenticated", "expires_at": until})
        elif message.action == "subscribe":
            watched = push.subscribe(connection_id, message.tables)
            push.send(connection_id, {"type": "subscribed", "tables": watched, "connection_id": connection_id})
            connection = store.connection_of(connection_id)
            if connection is None:  # it disconnected meanwhile (a browser leaving the page): nobody to answer
                return {"statusCode": 200}
            who = push.identity_of(connection)
            for table_id in dict.fromkeys(message.tables):
                if table_id != push.EVERY_TABLE:
                    push.send(connection_id, snapshot(table_id, who))
        else:
            push.live_connection(connection_id)
            push.unsubscribe(connection_id, message.tables)
            push.send(connection_id, {"type": "unsubscribed", "tables": message.tables})
    except ValidationError as exc:
        push.send(connection_id, {"type": "error", "reason": "invalid-message",
                                  "message": describe_validation_error(exc)})
    except CroupierError as exc:
        push.send(connection_id, {"type": "error", "reason": exc.reason, "message": str(exc)})
    return {"statusCode": 200}


def snapshot(table_id: str, who: Identity) -> dict[str, Any]:
    """A table as the caller may see it now: the table (with its roads) and its round."""
    table = store.load_table(table_id)
    out: dict[str, Any] = {"type": "snapshot", "table_id": table_id, "table": table_summary(table, who)}
    if table.round_id:
        out["round"] = round_view(table.round_id, who)
    return out
