"""The WebSocket API's routes: a screen connects with its token, subscribes to tables, and gets a
snapshot of each, then its events (see :mod:`croupier.app.push`).

``$connect`` checks the token (``?token=`` in the URL: a browser cannot set headers on a
WebSocket): on AWS a Cognito ID token of the user pool, checked against its keys; locally a token
signed with the local key, as the REST API's gateway checks it. A refused connection is a 401 and
stores nothing. Messages are JSON: ``{"action": "subscribe" | "unsubscribe", "tables": [...]}``;
anything else is answered with ``{"type": "error", "reason", "message"}`` on the connection.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import CroupierError
from ..rules import describe_validation_error
from . import push, store
from .config import settings
from .errors import Unauthorized
from .identity import Identity, from_claims, verify_local_token
from .lobby import table_summary
from .queries import round_view


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["subscribe", "unsubscribe"]
    tables: list[str] = Field(min_length=1, max_length=50)


@lru_cache(maxsize=1)
def _cognito_keys() -> Any:
    import jwt

    return jwt.PyJWKClient(f"{settings().cognito_issuer}/.well-known/jwks.json")


def identify(token: str | None) -> Identity:
    """Who is connecting, from the token in the URL (401 if it is missing or not valid)."""
    if not token:
        raise Unauthorized("a token is required: connect with ?token=<your token>", reason="no-token")
    config = settings()
    if config.jwt_secret:
        return from_claims(verify_local_token(config.jwt_secret, token))
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
    return from_claims(claims)


def route(event: dict[str, Any]) -> dict[str, Any]:
    """One WebSocket event (API Gateway's proxy event of a WebSocket route)."""
    context = event.get("requestContext") or {}
    connection_id = str(context.get("connectionId") or "")
    kind = context.get("eventType")
    if kind == "CONNECT":
        try:
            who = identify((event.get("queryStringParameters") or {}).get("token"))
        except CroupierError as exc:
            return {"statusCode": 401, "body": json.dumps({"error": {"reason": exc.reason, "message": str(exc)}})}
        push.connect(connection_id, who)
        return {"statusCode": 200}
    if kind == "DISCONNECT":
        push.unsubscribe(connection_id)
        return {"statusCode": 200}
    try:
        message = Message.model_validate_json(event.get("body") or "")
        if message.action == "subscribe":
            watched = push.subscribe(connection_id, message.tables)
            push.send(connection_id, {"type": "subscribed", "tables": watched, "connection_id": connection_id})
            connection = store.get(store.game_table(), {"pk": f"CONN#{connection_id}", "sk": "META"})
            if connection is None:  # it disconnected meanwhile (a browser leaving the page): nobody to answer
                return {"statusCode": 200}
            who = push.identity_of(connection)
            for table_id in message.tables:
                if table_id != push.EVERY_TABLE:
                    push.send(connection_id, snapshot(table_id, who))
        else:
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
    if table.get("round_id"):
        out["round"] = round_view(table["round_id"], who)
    return out
