"""Environment of every function, read once and validated by pydantic (names as in ``template.yaml``).

Each field is read from the environment variable of its name in capitals (``GAME_TABLE``,
``BET_SHARDS``...; the case of a name does not matter); ``jwt_secret`` from ``LOCAL_JWT_SECRET``.
A missing or invalid one is refused with a :class:`ConfigError` naming the variable. Read when a
function first needs a setting (:func:`settings`), never at import.

The variables are read by :meth:`Settings.from_env` itself, not by pydantic-settings: every field
is a plain string, number or flag, which pydantic validates from the variable's text as
pydantic-settings did, and pydantic-settings' own imports (its cloud secret providers among them)
were a large part of every cold start (``docs/deploying.md``, *The card path's cold start*).
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .contexts import holding


class ConfigError(RuntimeError):
    """The function is deployed wrong (a server error, never a refusal of the caller's request)."""


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    stage: str = "dev"
    game_table: str = Field(min_length=3)
    wallet_table: str = Field(min_length=3)
    idempotency_table: str = Field(min_length=3)
    round_state_machine_arn: str = Field(min_length=10)
    bet_shards: int = Field(default=16, ge=1, le=256)
    settlement_workers: int = Field(default=8, ge=1, le=32)
    """Wallets a settlement or refund task credits in parallel (threads of one invocation)."""
    event_bus: str = ""
    """The table bus: device events arrive on it, and the application's own events (a paused
    round, a card no round could take) are published on it."""
    websocket_endpoint: str | None = None
    """The WebSocket API's management endpoint (``https://{api}.execute-api.{region}.amazonaws.com/{stage}``)."""
    push_queue_url: str | None = None
    """The FIFO queue of the fan-out (one message per table and slot of its watchers)."""
    push_slots: int = Field(default=8, ge=1, le=256)
    """Slots a table's watchers are spread over at most: one push message (and function) per slot
    that has watchers."""
    push_slot_watchers: int = Field(default=200, ge=1, le=100_000)
    """Watchers a slot takes before the next slot is opened (once every slot has as many, each new
    watcher joins the least filled): a table of a few watchers is one slot, one push per event."""
    push_workers: int = Field(default=16, ge=1, le=128)
    """Connections a push function posts to at once."""
    screens_can_close: bool = False
    """The function's role may close WebSocket connections (``execute-api:ManageConnections`` on
    ``DELETE/@connections/*``): a connection whose token expired is then closed, not only
    forgotten (nothing is pushed to it and every message of it is refused either way)."""
    operator_wallets: str = "/croupier/dev/operators"
    """The SSM path of the operators' seamless wallets: ``{path}/{operator}`` is a SecureString
    holding the wallet's URL, signing secret and currency (:mod:`croupier.app.operators`)."""
    wallet_calls_queue_url: str | None = None
    """The queue of the wallet-call outbox: credits, refunds and cancels waiting to reach an
    operator's wallet (:mod:`croupier.app.seamless`)."""
    wallet_timeout_ms: int = Field(default=3000, ge=50, le=20_000)
    """How long a call to an operator's wallet may take before its answer counts as lost."""
    wallet_retry_base_ms: int = Field(default=1000, ge=10, le=600_000)
    wallet_retry_cap_ms: int = Field(default=30_000, ge=10, le=900_000)
    """Backoff of an undelivered credit or cancel: base, doubled per attempt, capped."""
    wallet_debit_grace_ms: int = Field(default=60_000, ge=100, le=900_000)
    """A debit not committed this long after it was sent died with its request: it is cancelled."""
    wallet_sweep_slack_ms: int = Field(default=30_000, ge=0, le=900_000)
    """The sweeper re-queues a call only this long past its due time (its own delayed message
    comes first)."""
    cognito_issuer: str | None = None
    """On AWS: the user pool that signs the tokens a WebSocket connection presents."""
    cognito_client_id: str | None = None
    jwt_secret: str | None = Field(default=None, validation_alias="LOCAL_JWT_SECRET")
    """Local stack only: the key that signs local tokens (on AWS, Cognito checks tokens)."""

    @field_validator("jwt_secret", "websocket_endpoint", "push_queue_url", "wallet_calls_queue_url", "cognito_issuer",
                     "cognito_client_id", mode="before")
    @classmethod
    def _unset_if_empty(cls, value: object) -> object:
        return value or None

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Each field's environment variable (``GAME_TABLE``...), by the key pydantic validates it under."""
        return {(field.validation_alias if isinstance(field.validation_alias, str) else name.upper()):
                (field.validation_alias if isinstance(field.validation_alias, str) else name)
                for name, field in cls.model_fields.items()}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings from ``environ`` (the process's environment by default)."""
        keys = {variable.lower(): key for variable, key in cls.variables().items()}
        values = {keys[name.lower()]: value for name, value in (os.environ if environ is None else environ).items()
                  if name.lower() in keys}
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(f"{_variable(e['loc'])}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"the function's environment is incomplete or invalid: {problems}") from None


def _variable(loc: tuple[int | str, ...]) -> str:
    name = str(loc[0]) if loc else "?"
    return "LOCAL_JWT_SECRET" if name in ("jwt_secret", "LOCAL_JWT_SECRET") else name.upper()


_in_use: contextvars.ContextVar[Settings | None] = contextvars.ContextVar("croupier_settings", default=None)


@lru_cache(maxsize=1)
def _from_environment() -> Settings:
    return Settings.from_env()


def settings() -> Settings:
    """The settings in use: the environment's, read once, unless this thread (its context) was
    given others with :func:`using` (a simulation beside the local stack, whose functions read the
    process's environment)."""
    chosen = _in_use.get()
    return chosen if chosen is not None else _from_environment()


def forget_settings() -> None:
    """Read the environment again at the next :func:`settings` (tests change it)."""
    _from_environment.cache_clear()


def using(chosen: Settings) -> AbstractContextManager[Settings | None]:
    """Within this block, in this thread, :func:`settings` is ``chosen``."""
    return holding(_in_use, chosen)
