"""An operator's seamless-wallet settings, as read from its SSM parameter."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from croupier.app.operators import Operator

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
