"""The betting phase as the table lives it: betting ends at the countdown's end by the server's
clock whatever the workflow does; a card after the end closes betting itself; Pok Deng's cards
dealt face down during the countdown reach nobody before the close; seats taken or left during
the countdown count for the round."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any

import pytest

from croupier.app import steps, store
from croupier.local.client import ApiError, wait_until
from tests.support.harness import START, TIMERS, Harness

pytestmark = pytest.mark.integration

CARD = re.compile(r'"([AKQJT2-9][SHDC])"')


def _hold_the_close(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The workflow's close step is late: it waits until the returned event is set."""
    release, original = threading.Event(), steps.close_betting

    def late(round_id: str) -> dict[str, Any]:
        release.wait(60)
        return original(round_id)

    monkeypatch.setattr(steps, "close_betting", late)
    return release


def test_a_bet_after_the_countdowns_end_is_refused_while_the_workflow_is_late(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    table = h.open_table(h.table("lateclose"), "baccarat", 71, cut_at=300, rules={"timers": {**TIMERS, "countdown": 2}})
    release = _hold_the_close(monkeypatch)
    try:
        started = table.console.post(f"/tables/{table.table_id}/rounds")
        round_id = started["round_id"]
        h.players["ana"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "player", "amount": 100}]},
                              idempotent=True)
        time.sleep(max(0.0, started["closes_at"] / 1000 - time.time()) + 0.3)
        assert store.load_round(round_id).status == "betting"  # the workflow has not closed it
        before = h.balance("ben")
        with pytest.raises(ApiError) as late:
            h.players["ben"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "player", "amount": 100}]},
                                  idempotent=True)
        assert late.value.status == 409 and late.value.reason == "betting-closed", late.value
        assert "countdown has ended" in str(late.value)
        assert h.balance("ben") == before
        # the dealer's first card closes betting itself; the workflow's close finds it done
        table.devices.scan(table.shoe.draw(table.devices))
        h.dealt(table.devices)  # the card's way to the dealing function is asynchronous
        rnd = store.load_round(round_id)
        assert rnd.status == "playing" and [e["card"] for e in rnd.events] == table.shoe.cards[
            table.shoe.position - 1:table.shoe.position]
    finally:
        release.set()
    while (view := h.supervisor.get(f"/rounds/{round_id}"))["status"] == "playing" and not view["paused"]:
        if view["expected"]["kind"] == "card":
            table.devices.scan(table.shoe.draw(table.devices))
            h.dealt(table.devices)  # the next look must see this card taken
        time.sleep(0.05)
    final = wait_until(lambda: (v := h.supervisor.get(f"/rounds/{round_id}"))["status"] == "settled" and v,
                       timeout=30)
    assert [b["type"] for b in h.players["ana"].get(f"/rounds/{round_id}")["bets"]] == ["player"]
    assert h.players["ben"].get(f"/rounds/{round_id}")["bets"] == []
    assert final["closes_at"] == started["closes_at"]
    h.audit_ok()


class _Logs(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record) + json.dumps(getattr(record, "__dict__", {}), default=str))


def test_no_card_of_a_pok_deng_round_reaches_anyone_before_betting_closes(h: Harness) -> None:
    table = h.open_table(h.table("pdhidden"), "pok-deng", 72, cut_at=300,
                         rules={"timers": {**TIMERS, "countdown": 12}})
    logs = _Logs()
    croupier = logging.getLogger("croupier")
    level = croupier.level
    croupier.addHandler(logs)
    croupier.setLevel(logging.DEBUG)
    try:
        started = table.console.post(f"/tables/{table.table_id}/rounds")
        round_id = started["round_id"]
        h.players["dev"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "player-1", "amount": 500}]},
                              idempotent=True)
        dealt = [table.shoe.draw(table.devices) for _ in range(13)]  # the burn card, then twelve face down
        for card in dealt:
            table.devices.scan(card)
        h.dealt(table.devices)  # the last card's way is asynchronous; the reader's order puts it last
        assert store.load_round(round_id).status == "betting"
        assert len([e for e in store.load_round(round_id).events if "card" in e]) == 12  # taken, hidden
        seen: list[str] = []
        for client in (h.players["dev"], h.players["ben"], h.operator, h.supervisor, table.console):
            for path in (f"/rounds/{round_id}", f"/tables/{table.table_id}"):
                seen += CARD.findall(json.dumps(client.get(path)))
            if client.role != "player":
                log = client.get(f"/tables/{table.table_id}/log")["entries"]
                ours = [e for e in log if e.get("round_id") == round_id]
                assert len(ours) == 13 and all(e["card"] == "??" for e in ours), ours
        seen += CARD.findall(json.dumps(h.players["dev"].get(f"/players/{h.players['dev'].subject}/bets")))
        with pytest.raises(ApiError) as refused:  # an error says nothing of them either
            h.players["dev"].post(f"/tables/{table.table_id}/bets",
                                  {"bets": [{"type": "player-2", "amount": 10**9}]}, idempotent=True)
        seen += CARD.findall(json.dumps(refused.value.body))
        assert not set(seen) & set(dealt), set(seen) & set(dealt)
        assert not [line for line in logs.lines if set(CARD.findall(line)) & set(dealt)]
    finally:
        croupier.removeHandler(logs)
        croupier.setLevel(level)
    final = wait_until(lambda: (v := h.supervisor.get(f"/rounds/{round_id}"))["status"] == "settled" and v,
                       timeout=60)
    hands = final["result"]
    order = [name for name in hands if isinstance(hands[name], dict) and "cards" in hands[name]]
    assert order == ["hand-1", "hand-2", "hand-3", "hand-4", "hand-5", "banker"]  # revealed 1 to 5, the Banker last
    assert [c for name in order for c in hands[name]["cards"]] == [dealt[1 + i + 6 * k] for i in range(6)
                                                                  for k in range(2)]
    h.audit_ok()


def test_a_seat_taken_or_left_during_the_countdown_counts_for_the_round(h: Harness) -> None:
    table = h.open_table(h.table("seats"), "deluxe-blackjack", 73, cut_at=300, scan_burn=False,
                         rules={"timers": {**TIMERS, "countdown": 8, "decision": 2}})
    t = table.table_id
    ana, ben, chloe = h.players["ana"], h.players["ben"], h.players["chloe"]
    table.shoe.prepare(["TS", "9H", "6D", "7C", "8H", "5D"])  # seats 2 and 4 decide against a 6
    chloe.call("PUT", f"/tables/{t}/seats/4")
    started = table.console.post(f"/tables/{t}/rounds")
    round_id = started["round_id"]
    ana.call("PUT", f"/tables/{t}/seats/2")  # sits down during the countdown: she can bet on it now
    ana.post(f"/tables/{t}/bets", {"bets": [{"type": "seat", "seat": 2, "amount": 1000}]}, idempotent=True)
    ben.call("PUT", f"/tables/{t}/seats/5")
    ben.call("DELETE", f"/tables/{t}/seats/5")  # and leaves again before betting: not dealt
    chloe.post(f"/tables/{t}/bets", {"bets": [{"type": "seat", "seat": 4, "amount": 1000}]}, idempotent=True)
    with pytest.raises(ApiError) as staying:  # her bet stands on the seat: it will be dealt
        chloe.call("DELETE", f"/tables/{t}/seats/4")
    assert staying.value.status == 409 and staying.value.reason == "seat-bet-placed"
    with pytest.raises(ApiError) as gone:  # ben left: his seat takes no bet
        ben.post(f"/tables/{t}/bets", {"bets": [{"type": "seat", "seat": 5, "amount": 1000}]}, idempotent=True)
    assert gone.value.status in (409, 422)
    assert set(table.console.get(f"/tables/{t}")["seats"]) == {"2", "4"}
    time.sleep(max(0.0, started["closes_at"] / 1000 - time.time()) + 0.2)
    for _ in range(2 * 2 + 2):  # the initial deal: seats 2 and 4, the dealer's up card and hole card
        table.devices.scan(table.shoe.draw(table.devices))
    view = wait_until(lambda: (v := h.supervisor.get(f"/rounds/{round_id}")).get("hands") and v, timeout=30)
    assert set(view["hands"]["seats"]) == {"2", "4"}
    assert view["hands"]["seats"]["2"]["player"] == ana.subject
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "voided", timeout=30)
    assert h.balance("ana") == START and h.balance("chloe") == START
    h.audit_ok()
