"""One local stack (moto server, resources from template.yaml, the real ASL and handlers) per test
session; every test uses its own tables and players, so tests do not see each other's money."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from croupier.app.audit import run_audit
from croupier.local.client import Client
from croupier.local.demo import Demo
from croupier.local.stack import LocalStack

TIMERS = {"countdown": 5, "decision": 1, "follow": 1, "insurance": 1, "pause_void": 30}
_counter = itertools.count(1)
START = 100_000


class Harness(Demo):
    """The demo's clients and round driver, quiet, with test timers and fresh names."""

    def __init__(self, stack: LocalStack) -> None:
        self.n = next(_counter)
        self.lines: list[str] = []
        super().__init__(stack, seed=100 + self.n, out=self.lines.append, timers=dict(TIMERS), prefix=f"t{self.n}-")
        self.fund()

    def table(self, base: str) -> str:
        return f"{base}-{self.n}"

    def client(self, subject: str, role: str, account_kind: str = "real") -> Client:
        return Client(self.stack.api_url, self.stack.jwt_secret, subject, role, account_kind)

    def balance(self, name: str) -> int:
        player = self.players[name]
        return int(player.get(f"/wallets/{player.subject}")["balance"])

    def audit_ok(self) -> None:
        report = run_audit()
        assert report.ok, report.summary()


@pytest.fixture
def h(stack: LocalStack) -> Harness:
    return Harness(stack)


def nets(harness: Harness, player: str, round_id: str) -> dict[str, Any]:
    bets = harness.players[player].get(f"/rounds/{round_id}")["bets"]
    return {f"{b['type']}{b.get('seat', '')}": b["result"]["net"] for b in bets}
