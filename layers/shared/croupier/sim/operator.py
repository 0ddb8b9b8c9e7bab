"""An operator's seamless wallet in a simulated world (:class:`OperatorAtWorld`).

The wallet is the reference operator wallet's own ledger and rules
(:class:`croupier.local.operator_wallet.OperatorWallet`: signatures checked, each transaction id
applied once, a cancel's tombstone refusing its late debit), on the world's virtual clock, reached
through the application's wallet transport (:func:`croupier.app.seamless.using_transport`) instead
of HTTP. The application's client builds, signs and reads every call exactly as it does on AWS; only
the network between the two is the world's, and it fails as the plan draws (:data:`WALLET_FAULTS`):

- ``wallet-no-answer``: the request never reaches the wallet and the client's wait runs out;
- ``wallet-lost-answer``: the wallet applies the call, and its answer is lost on the way back;
- ``wallet-error``: the wallet answers 503 without applying anything;
- ``wallet-duplicate``: the network delivers the request twice (the copy's answer comes back);
- ``wallet-outage``: the wallet is down from this call for a while (:data:`OUTAGE_SECONDS`),
  every call unanswered until it is back.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..app import operators
from ..app.clock import VirtualClock
from ..local.operator_wallet import OperatorWallet

if TYPE_CHECKING:
    from .world import Faults

OPERATOR = "sim-operator"
CURRENCY = "THB"
URL = "https://wallet.sim.example/wallet"
SECRET = "sim-operator-signing-secret"
WALLET_FAULTS = ("wallet-no-answer", "wallet-lost-answer", "wallet-error", "wallet-duplicate", "wallet-outage")
"""Faults of a call to the operator's wallet (see the module's description)."""
OUTAGE_SECONDS = (20.0, 240.0)
"""How long an outage lasts, drawn between these: longer than a player's request waits, shorter
than the outbox keeps retrying."""


class OperatorAtWorld:
    """The operator's wallet and the network to it, as the application's wallet transport."""

    def __init__(self, clock: VirtualClock, faults: Faults, rng: random.Random, note: Callable[[str], None]) -> None:
        self.clock, self.faults, self.rng, self.note = clock, faults, rng, note
        self.wallet = OperatorWallet(OPERATOR, SECRET, CURRENCY, clock=lambda: int(clock.time() * 1000))
        self.opening: dict[str, int] = {}
        self.down_until = -1.0
        self.calls = 0

    @staticmethod
    def configuration() -> operators.Operator:
        """The operator's wallet as its SSM parameter describes it."""
        return operators.Operator(id=OPERATOR, url=URL, secret=SECRET, currency=CURRENCY)

    def open_account(self, player: str, balance: int) -> None:
        self.wallet.open_account(player, balance)
        self.opening[player] = balance

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
        path = urlsplit(url).path
        call = path.rsplit("/", 1)[-1]
        self.calls += 1
        where, now = f"{call}#{self.calls}", self.clock.monotonic()
        if now < self.down_until:
            raise TimeoutError(f"the operator's wallet is down (an outage until {self.down_until:.0f} s)")
        if self.faults.roll("wallet-outage", where) is not None:
            self.faults.happened("wallet-outage")
            self.down_until = now + self.rng.uniform(*OUTAGE_SECONDS)
            self.note(f"  the operator's wallet goes down until {self.down_until:.2f} s")
            raise TimeoutError("the operator's wallet is down")
        if self.faults.roll("wallet-error", where) is not None:
            self.faults.happened("wallet-error")
            return 503, b'{"message": "the wallet failed"}'
        if self.faults.roll("wallet-no-answer", where) is not None:
            self.faults.happened("wallet-no-answer")
            raise TimeoutError(f"no answer within {timeout_s} s")
        status, answer = self.wallet.answer(call, headers, path, body)
        if self.faults.roll("wallet-duplicate", where) is not None:
            self.faults.happened("wallet-duplicate")  # delivered twice: the copy's answer comes back
            status, answer = self.wallet.answer(call, headers, path, body)
        if self.faults.roll("wallet-lost-answer", where) is not None:
            self.faults.happened("wallet-lost-answer")
            said = answer.get("status") or answer.get("error")
            self.note(f"  the operator's answer to {call} is lost ({status} {said})")
            raise TimeoutError(f"no answer within {timeout_s} s")
        return status, json.dumps(answer).encode()
