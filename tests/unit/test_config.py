"""The functions' settings come from the environment (names as in template.yaml), validated."""

from __future__ import annotations

import pytest

from croupier.app.config import ConfigError, Settings

ENV = {"GAME_TABLE": "dev-croupier-game", "WALLET_TABLE": "dev-croupier-wallets",
       "IDEMPOTENCY_TABLE": "dev-croupier-idempotency",
       "ROUND_STATE_MACHINE_ARN": "arn:aws:states:us-east-1:123456789012:stateMachine:dev-croupier-round"}


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("STAGE", "BET_SHARDS", "SETTLEMENT_WORKERS", "EVENT_BUS", "LOCAL_JWT_SECRET", "JWT_SECRET",
                 "WEBSOCKET_ENDPOINT", "PUSH_QUEUE_URL", "PUSH_SLOTS", "PUSH_WORKERS", "COGNITO_ISSUER",
                 "COGNITO_CLIENT_ID", *ENV):
        monkeypatch.delenv(name, raising=False)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    return monkeypatch


def test_every_field_comes_from_its_variable(env: pytest.MonkeyPatch) -> None:
    env.setenv("STAGE", "prod")
    env.setenv("BET_SHARDS", "32")
    env.setenv("SETTLEMENT_WORKERS", "4")
    env.setenv("EVENT_BUS", "prod-croupier-table-events")
    env.setenv("LOCAL_JWT_SECRET", "s3cret")
    env.setenv("WEBSOCKET_ENDPOINT", "https://abc.execute-api.us-east-1.amazonaws.com/prod")
    env.setenv("PUSH_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/prod-croupier-push.fifo")
    env.setenv("PUSH_SLOTS", "16")
    env.setenv("PUSH_WORKERS", "32")
    env.setenv("PUSH_SLOT_WATCHERS", "150")
    env.setenv("COGNITO_ISSUER", "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_pool")
    env.setenv("COGNITO_CLIENT_ID", "")  # empty: none
    env.setenv("OPERATOR_WALLETS", "/croupier/prod/operators")
    env.setenv("WALLET_CALLS_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/prod-croupier-wallet-calls")
    env.setenv("WALLET_TIMEOUT_MS", "2500")
    env.setenv("WALLET_RETRY_BASE_MS", "500")
    env.setenv("WALLET_RETRY_CAP_MS", "30000")
    env.setenv("WALLET_DEBIT_GRACE_MS", "90000")
    env.setenv("WALLET_SWEEP_SLACK_MS", "20000")
    env.setenv("SCREENS_CAN_CLOSE", "true")
    settings = Settings.from_env()
    assert settings.model_dump() == {
        "stage": "prod", "game_table": ENV["GAME_TABLE"], "wallet_table": ENV["WALLET_TABLE"],
        "idempotency_table": ENV["IDEMPOTENCY_TABLE"], "round_state_machine_arn": ENV["ROUND_STATE_MACHINE_ARN"],
        "bet_shards": 32, "settlement_workers": 4, "event_bus": "prod-croupier-table-events",
        "websocket_endpoint": "https://abc.execute-api.us-east-1.amazonaws.com/prod",
        "push_queue_url": "https://sqs.us-east-1.amazonaws.com/123456789012/prod-croupier-push.fifo",
        "push_slots": 16, "push_slot_watchers": 150, "push_workers": 32, "cognito_issuer": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_pool",
        "cognito_client_id": None, "jwt_secret": "s3cret", "operator_wallets": "/croupier/prod/operators",
        "wallet_calls_queue_url": "https://sqs.us-east-1.amazonaws.com/123456789012/prod-croupier-wallet-calls",
        "wallet_timeout_ms": 2500, "wallet_retry_base_ms": 500, "wallet_retry_cap_ms": 30000,
        "wallet_debit_grace_ms": 90000, "wallet_sweep_slack_ms": 20000, "screens_can_close": True}


def test_defaults(env: pytest.MonkeyPatch) -> None:
    settings = Settings.from_env()
    assert (settings.stage, settings.bet_shards, settings.settlement_workers, settings.event_bus,
            settings.jwt_secret) == ("dev", 16, 8, "", None)


def test_an_empty_secret_is_no_secret_and_jwt_secret_is_not_its_name(env: pytest.MonkeyPatch) -> None:
    env.setenv("LOCAL_JWT_SECRET", "")
    env.setenv("JWT_SECRET", "not-this-one")
    assert Settings.from_env().jwt_secret is None


def test_a_missing_table_is_named(env: pytest.MonkeyPatch) -> None:
    env.delenv("WALLET_TABLE")
    with pytest.raises(ConfigError, match="WALLET_TABLE: Field required"):
        Settings.from_env()


@pytest.mark.parametrize(("name", "value", "message"), [
    ("BET_SHARDS", "0", "BET_SHARDS: Input should be greater than or equal to 1"),
    ("BET_SHARDS", "many", "BET_SHARDS: Input should be a valid integer"),
    ("SETTLEMENT_WORKERS", "33", "SETTLEMENT_WORKERS: Input should be less than or equal to 32"),
    ("GAME_TABLE", "", "GAME_TABLE: String should have at least 3 characters"),
])
def test_an_invalid_value_is_refused_with_its_variable(env: pytest.MonkeyPatch, name: str, value: str,
                                                        message: str) -> None:
    env.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        Settings.from_env()


def test_settings_are_frozen(env: pytest.MonkeyPatch) -> None:
    settings = Settings.from_env()
    with pytest.raises(ValueError, match="frozen"):
        settings.bet_shards = 2  # type: ignore[misc]


def test_a_variable_s_case_does_not_matter_and_an_environment_may_be_given() -> None:
    given = {name.lower(): value for name, value in ENV.items()} | {"Bet_Shards": "4", "UNRELATED": "x"}
    settings = Settings.from_env(given)
    assert (settings.game_table, settings.bet_shards) == (ENV["GAME_TABLE"], 4)
    assert Settings.variables()["LOCAL_JWT_SECRET"] == "LOCAL_JWT_SECRET"
    assert Settings.variables()["GAME_TABLE"] == "game_table"
