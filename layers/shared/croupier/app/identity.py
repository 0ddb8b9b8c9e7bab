"""Who is calling: the caller's id and role, from the token the authorizer checked.

On AWS the Cognito user pool authorizer checks the JWT and passes its claims in
``requestContext.authorizer.claims``; locally the embedded server checks the same kind of token
(signed with a local key, :func:`verify_local_token`) and passes its claims the same way. Roles
are the user pool groups: ``player``, ``operator``, ``dealer`` (the dealer console) and
``supervisor``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import clock
from .errors import Forbidden, Unauthorized

ROLES = ("player", "operator", "dealer", "supervisor")
ACCOUNT_KINDS = ("real", "trial", "fun")


@dataclass(frozen=True)
class Identity:
    subject: str
    role: str
    account_kind: str = "real"
    table: str | None = None
    """A dealer console serves one table (its token's ``custom:table`` claim)."""

    def require(self, *roles: str) -> Identity:
        if self.role not in roles:
            raise Forbidden(f"this needs the role {' or '.join(roles)}; you are {self.role}", reason="wrong-role")
        return self

    def require_table(self, table_id: str) -> Identity:
        """A dealer console acts only for the table it serves (supervisors for any)."""
        if self.role == "dealer" and self.table != table_id:
            serves = f"serves table {self.table}" if self.table else "names no table"
            raise Forbidden(f"this dealer console {serves}, not {table_id}", reason="not-your-table")
        return self

    def require_self(self, player: str) -> Identity:
        """A player acts and reads only for themselves (operators and supervisors read anyone)."""
        if self.role == "player" and self.subject != player:
            raise Forbidden("players act and read only for themselves", reason="not-yourself")
        if self.role not in ("player", "operator", "supervisor"):
            raise Forbidden(f"role {self.role} cannot do this for a player", reason="wrong-role")
        return self


def from_claims(claims: dict[str, Any] | None) -> Identity:
    if not claims or not claims.get("sub"):
        raise Unauthorized("a valid bearer token is required", reason="no-token")
    groups = claims.get("cognito:groups") or claims.get("role") or ""
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.replace(",", " ").split() if g.strip()]
    role = next((g for g in ("operator", "supervisor", "dealer", "player") if g in groups), None)
    if role is None:
        raise Forbidden("the token carries no known role", reason="no-role")
    kind = claims.get("custom:account_kind") or claims.get("account_kind") or "real"
    if kind not in ACCOUNT_KINDS:
        kind = "fun"
    table = claims.get("custom:table")
    return Identity(str(claims["sub"]), role, kind, str(table) if table else None)


def from_event(event: dict[str, Any]) -> Identity:
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    return from_claims(authorizer.get("claims"))


# --- local tokens (HS256, PyJWT), the same claims as the Cognito ones ---------------------------

LOCAL_ALGORITHM = "HS256"
LOCAL_ISSUER = "croupier-local"


def issue_local_token(secret: str, subject: str, role: str, account_kind: str = "real", ttl: int = 86400,
                      table: str | None = None) -> str:
    """A token the local API accepts: signed with the local key (HS256), with the Cognito claims
    the handlers read (``sub``, ``cognito:groups``, ``custom:account_kind``, ``custom:table``)."""
    import jwt  # the local stack's dependency: on AWS Cognito issues and checks the tokens

    claims: dict[str, Any] = {"sub": subject, "cognito:groups": [role], "custom:account_kind": account_kind,
                              "exp": clock.now_s() + ttl, "iss": LOCAL_ISSUER}
    if table:
        claims["custom:table"] = table
    return jwt.encode(claims, secret, algorithm=LOCAL_ALGORITHM, headers={"typ": "JWT"})


def verify_local_token(secret: str, token: str) -> dict[str, Any]:
    """The claims of a token signed with the local key, or :class:`Unauthorized`: only HS256 (no
    ``none``, no other algorithm), a valid signature, a numeric ``exp`` in the future, a subject."""
    import jwt

    try:  # the expiry is checked on the application's clock (the library's is the machine's)
        claims: dict[str, Any] = jwt.decode(token, secret, algorithms=[LOCAL_ALGORITHM],
                                            options={"require": ["exp", "sub"], "verify_exp": False})
    except jwt.InvalidTokenError as exc:
        raise Unauthorized(f"the token is not valid: {exc}", reason="bad-token") from exc
    expires = claims["exp"]
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        raise Unauthorized("the token is not valid: Expiration Time claim (exp) must be a number", reason="bad-token")
    if expires <= clock.current().time():
        raise Unauthorized("the token has expired", reason="expired-token")
    return claims
