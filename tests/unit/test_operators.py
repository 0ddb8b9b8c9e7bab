"""An operator's seamless-wallet settings, as read from its SSM parameter, and how a call reaches its
wallet (the transport in use, a retry's wait)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from croupier.app import clock, config, seamless
from croupier.app.clock import VirtualClock
from croupier.app.config import Settings
from croupier.app.operators import Operator
from croupier.wallet_contract import verify

GOOD = {"id": "acme", "url": "https://wallet.acme.example/croupier", "secret": "s" * 32, "currency": "THB"}


def test_a_wallet_is_called_over_https_except_on_this_machine() -> None:
    assert Operator.model_validate(GOOD).url == GOOD["url"]
    assert Operator.model_validate({**GOOD, "url": "http://127.0.0.1:8123/wallet"})
    with pytest.raises(ValidationError, match="over https"):
        Operator.model_validate({**GOOD, "url": "http://wallet.acme.example/croupier"})


@pytest.mark.parametrize("change", [{"secret": "short"}, {"currency": "thb"}, {"url": "ftp://x"},
                                    {"timeout_ms": 10}, {"id": "Bad Name"}, {"extra": 1}])
def test_an_invalid_wallet_setting_is_refused(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Operator.model_validate({**GOOD, **change})


def test_the_secret_is_not_shown() -> None:
    assert "s" * 32 not in repr(Operator.model_validate(GOOD))


class Recording:
    """A transport that answers what it is told and keeps what it was sent."""

    def __init__(self, answer: tuple[int, bytes] | OSError) -> None:
        self.answer, self.sent = answer, list[tuple[str, bytes, dict[str, str], float]]()

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
        self.sent.append((url, body, headers, timeout_s))
        if isinstance(self.answer, OSError):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(("answer", "result"), [
    ((200, b'{"status": "ok", "balance": 5}'), "ok"),
    ((200, b'{"status": "already-processed"}'), "ok"),
    ((409, b'{"error": "insufficient-funds", "message": "no"}'), "refused"),
    ((503, b'{"message": "down"}'), "unknown"),
    ((200, b"not json"), "unknown"),
    (TimeoutError("timed out"), "unknown"),
    (ConnectionError("reset"), "unknown"),
])
def test_a_wallet_call_goes_signed_through_the_transport_in_use(answer: tuple[int, bytes] | OSError,
                                                                 result: str) -> None:
    operator = Operator.model_validate({**GOOD, "timeout_ms": 800})
    transport = Recording(answer)
    with seamless.using_transport(transport), clock.using(VirtualClock()):
        outcome = seamless.send(operator, "balance", {"player": "ana", "currency": "THB"})
    assert outcome.result == result
    (url, body, headers, timeout_s), = transport.sent
    assert url == "https://wallet.acme.example/croupier/balance" and timeout_s == 0.8
    assert verify(GOOD["secret"], headers, "/croupier/balance", body, int(VirtualClock().time() * 1000)) is None


def test_the_backoff_of_a_call_is_its_own_and_spreads_calls_apart() -> None:
    arn = "arn:aws:states:us-east-1:123456789012:stateMachine:round"
    with config.using(Settings.from_env({"GAME_TABLE": "game", "WALLET_TABLE": "wallets", "IDEMPOTENCY_TABLE": "once",
                                         "ROUND_STATE_MACHINE_ARN": arn, "EVENT_BUS": "bus"})):
        waits = [seamless.backoff_ms(3, f"cr-{n:032x}") for n in range(50)]
        assert waits == [seamless.backoff_ms(3, f"cr-{n:032x}") for n in range(50)]  # the same call, the same wait
        assert all(2000 <= w <= 4000 for w in waits) and len(set(waits)) > 40  # base 1 s doubled twice, jittered
