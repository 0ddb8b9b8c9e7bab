"""Environment of every function, parsed once by a pydantic model (names as in ``template.yaml``)."""

from __future__ import annotations

import os
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True)

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
    """Slots a table's watchers are spread over: one push message (and function) per slot."""
    push_workers: int = Field(default=16, ge=1, le=128)
    """Connections a push function posts to at once."""
    cognito_issuer: str | None = None
    """On AWS: the user pool that signs the tokens a WebSocket connection presents."""
    cognito_client_id: str | None = None
    jwt_secret: str | None = None
    """Local stack only: the key that signs local tokens (on AWS, Cognito checks tokens)."""

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(
            stage=env.get("STAGE", "dev"),
            game_table=env.get("GAME_TABLE", ""),
            wallet_table=env.get("WALLET_TABLE", ""),
            idempotency_table=env.get("IDEMPOTENCY_TABLE", ""),
            round_state_machine_arn=env.get("ROUND_STATE_MACHINE_ARN", ""),
            bet_shards=int(env.get("BET_SHARDS", "16")),
            settlement_workers=int(env.get("SETTLEMENT_WORKERS", "8")),
            event_bus=env.get("EVENT_BUS", ""),
            websocket_endpoint=env.get("WEBSOCKET_ENDPOINT") or None,
            push_queue_url=env.get("PUSH_QUEUE_URL") or None,
            push_slots=int(env.get("PUSH_SLOTS", "8")),
            push_workers=int(env.get("PUSH_WORKERS", "16")),
            cognito_issuer=env.get("COGNITO_ISSUER") or None,
            cognito_client_id=env.get("COGNITO_CLIENT_ID") or None,
            jwt_secret=env.get("LOCAL_JWT_SECRET") or None,
        )


@lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()
