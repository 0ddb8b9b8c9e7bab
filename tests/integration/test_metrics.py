"""Business metrics (Powertools Metrics, namespace Croupier) are counted where they happen: bets
placed, an idempotent replay answered from the first answer, a round settled or voided."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from croupier.app import alerts
from croupier.local.client import wait_until
from tests.support.harness import START, Harness

pytestmark = pytest.mark.integration


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every ``alerts.count`` call of the handlers (they run in this process), still counted."""
    seen: list[tuple[str, int]] = []
    real = alerts.count

    def count(metric: str, value: int = 1) -> None:
        seen.append((metric, value))
        real(metric, value)

    monkeypatch.setattr(alerts, "count", count)
    return seen


def _since(seen: list[tuple[str, int]], mark: int, metric: str) -> list[int]:
    return [value for name, value in seen[mark:] if name == metric]


def test_bets_replays_and_settled_rounds_are_counted(h: Harness, counted: list[tuple[str, int]]) -> None:
    table = h.open_table(h.table("metrics"), "baccarat", 91, cut_at=300)
    table.shoe.prepare(["9S", "8H", "KD", "KC"])
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    round_id = started["round_id"]
    bets = {"bets": [{"type": "player", "amount": 500}, {"type": "tie", "amount": 100}]}
    key = uuid.uuid4().hex
    mark = len(counted)
    first = h.players["ana"].post(f"/tables/{table.table_id}/bets", bets, key=key)
    assert _since(counted, mark, "BetsPlaced") == [2]
    assert _since(counted, mark, "IdempotentReplays") == []
    mark = len(counted)
    again = h.players["ana"].post(f"/tables/{table.table_id}/bets", bets, key=key)  # the client's retry
    assert again == {**first, "replayed": True}  # the first answer, said to be a replay
    assert _since(counted, mark, "IdempotentReplays") == [1]
    assert _since(counted, mark, "BetsPlaced") == []  # answered, not placed again
    mark = len(counted)
    table.dealer.deal(started)
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "settled", timeout=60)
    # counted once the round is written, by the invocation that wrote it: a moment after it shows
    wait_until(lambda: 1 in _since(counted, mark, "RoundsSettled"), timeout=10)
    assert h.balance("ana") == START + 500 - 100


def test_a_voided_round_is_counted(h: Harness, counted: list[tuple[str, int]]) -> None:
    table = h.open_table(h.table("metrics-void"), "baccarat", 92, cut_at=300)
    started: dict[str, Any] = table.console.post(f"/tables/{table.table_id}/rounds")
    round_id = started["round_id"]
    h.players["ben"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "banker", "amount": 300}]},
                          idempotent=True)
    time.sleep(max(0.0, started["closes_at"] / 1000 - time.time()) + 0.2)
    table.devices.scan(table.shoe.draw(table.devices))  # the first card: the round is being dealt
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing", timeout=30)
    mark = len(counted)
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "misdeal"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "voided", timeout=60)
    wait_until(lambda: 1 in _since(counted, mark, "RoundsVoided"), timeout=10)  # counted after the write
    assert h.balance("ben") == START
