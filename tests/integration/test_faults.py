"""The fault path and the shoe through the local stack: pause, resume, void with refunds, the
burn, the cut card and the last round, duplicate and unexpected card events, and the supervisor's
alerts."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from croupier.app import dealing
from croupier.local.client import ApiError, wait_until
from tests.support.harness import START, TIMERS, Alerts, Harness

pytestmark = pytest.mark.integration


def _start(h: Harness, table: str, bets: dict[str, list[dict[str, Any]]]) -> str:
    """Open a round, place the bets, and wait for the countdown to end (as the dealer does)."""
    round_id: str = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    for player, wanted in bets.items():
        h.players[player].post(f"/tables/{table}/bets", {"bets": wanted}, idempotent=True)
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing", timeout=30)
    return round_id


def _view(h: Harness, round_id: str) -> dict[str, Any]:
    view: dict[str, Any] = h.supervisor.get(f"/rounds/{round_id}")
    return view


def _deal_out(h: Harness, round_id: str, devices: Any, shoe: Any) -> None:
    """The rest of the round's cards, each while the round expects one (a card more would be one
    the round cannot place)."""
    while (view := _view(h, round_id))["status"] == "playing" and view["expected"]["kind"] == "card":
        devices.scan(shoe.draw(devices))
        h.dealt(devices)  # the next look must see this card taken


def test_cards_scanned_while_paused_wait_in_the_log_and_are_taken_after_the_resume(
        h: Harness, alerts: Alerts) -> None:
    table = h.table("pause")
    devices, shoe = h.open_devices(table, "baccarat", 11, cut_at=300)
    shoe.prepare(["2S", "3H", "4D", "3C", "5H", "9C"])
    round_id = _start(h, table, {"ana": [{"type": "player", "amount": 1000}]})
    devices.scan(shoe.draw(devices))
    h.dealt(devices)
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "table inspection"})
    assert _view(h, round_id)["paused"] is True
    assert [a["reason"] for a in alerts.of("round-paused", table)] == ["table inspection"]
    devices.scan(shoe.draw(devices))  # the dealer goes on: the card waits in the table's log
    h.dealt(devices)
    assert _view(h, round_id)["hands"]["banker"]["cards"] == []
    with pytest.raises(ApiError) as wrong_role:
        h.console(table).post(f"/rounds/{round_id}/resume", {})
    assert wrong_role.value.status == 403
    h.supervisor.post(f"/rounds/{round_id}/resume", {})
    assert _view(h, round_id)["hands"]["banker"]["cards"] == ["3H"]  # taken at the resume, nothing rescanned
    _deal_out(h, round_id, devices, shoe)
    final = wait_until(lambda: (v := _view(h, round_id))["status"] == "settled" and v, timeout=30)
    assert final["result"]["player"]["cards"][:2] == ["2S", "4D"]
    assert final["result"]["banker"]["cards"][:2] == ["3H", "3C"]
    h.audit_ok()


def test_void_refunds_every_stake_exactly_once_including_doubles(h: Harness) -> None:
    table = h.table("void")
    devices, shoe = h.open_devices(table, "deluxe-blackjack", 12, cut_at=300, scan_burn=False,
                                 rules={"timers": {**TIMERS, "decision": 60}})
    h.players["ana"].call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["6S", "9H", "5D", "TC"])  # seat 11 against a 9
    round_id = _start(h, table, {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                                 "ben": [{"type": "behind", "seat": 1, "amount": 400},
                                         {"type": "pair", "seat": 1, "amount": 100}]})
    for _ in range(4):
        devices.scan(shoe.draw(devices))
    wait_until(lambda: _view(h, round_id)["expected"]["kind"] == "decision", timeout=30)
    h.players["ana"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "double"}, idempotent=True)
    assert h.balance("ana") == START - 2000
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "misdeal"})
    final = wait_until(lambda: (v := _view(h, round_id))["status"] == "voided" and v, timeout=30)
    assert final["void_reason"] == "misdeal"
    assert h.balance("ana") == START and h.balance("ben") == START
    with pytest.raises(ApiError):
        h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "again"})
    assert h.balance("ana") == START
    h.audit_ok()


def test_decision_timer_runs_out_and_the_hand_is_played_automatically(h: Harness) -> None:
    table = h.table("timer")
    _, shoe = h.open_devices(table, "blackjack", 13, cut_at=300)
    h.players["dev"].call("PUT", f"/tables/{table}/seats/4")
    shoe.prepare(["2S", "9H", "4D", "5C", "KH", "7S"])  # seat 6 hits: 11 (still <= 11) hits again: 21
    final = h.round(h.tables[table], {"dev": [{"type": "seat", "seat": 4, "amount": 1000}]}, plan={4: [None]})
    assert final["result"]["seat-4"]["cards"] == ["2S", "4D", "5C", "KH"]
    assert final["status"] == "settled"


def test_a_duplicate_scan_is_ignored_and_a_card_between_rounds_is_kept_counted_and_told(
        h: Harness, alerts: Alerts) -> None:
    table = h.table("dup")
    devices, shoe = h.open_devices(table, "baccarat", 14, cut_at=300)
    shoe.prepare(["9S", "8H", "KD", "KC"])
    round_id = _start(h, table, {"ana": [{"type": "banker", "amount": 500}]})
    scan = devices.scan("9S")
    devices.scan("9S", scan_id=scan)  # the same scan delivered twice
    h.dealt(devices)
    assert _view(h, round_id)["hands"]["player"]["cards"] == ["9S"]
    for card in ("8H", "KD", "KC"):
        devices.scan(card)
    wait_until(lambda: _view(h, round_id)["status"] == "settled", timeout=30)
    h.audit_ok()
    # a card when the table's round is over: recorded, counted as drawn, given to no hand, told
    before = h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"]
    stray = devices.scan("5S")
    h.dealt(devices)
    assert h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"] == before + 1
    told = alerts.of("card-not-taken", table)
    assert [(t["scan_id"], t["card"]) for t in told] == [(stray, "5S")]
    assert "no round is being dealt" in told[0]["why"]
    log = h.supervisor.get(f"/tables/{table}/log")["entries"]
    assert [(e["scan_id"], e["state"]) for e in log if e.get("scan_id") == stray] == [(stray, "not-taken")]
    assert [e["state"] for e in log if e.get("scan_id") == scan] == ["taken"]  # once, for all its deliveries
    h.audit_ok()


def test_an_event_in_flight_at_one_table_does_not_hold_back_another_tables_events(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each table's events are their own FIFO message group (the rule's group id is the event's
    table): while one table's event is being handled, another table's event is delivered after
    it, not left in the queue behind a group it does not belong to."""
    slow, quick = h.table("slowgroup"), h.table("quickgroup")
    slow_devices, slow_shoe = h.open_devices(slow, "baccarat", 41, cut_at=300)
    quick_devices, quick_shoe = h.open_devices(quick, "baccarat", 42, cut_at=300)
    rounds = {slow: _start(h, slow, {"ana": [{"type": "player", "amount": 100}]}),
              quick: _start(h, quick, {"ben": [{"type": "banker", "amount": 100}]})}
    in_flight, handled = threading.Event(), dealing.record

    def slow_record(kind: str, detail: dict[str, Any], once: str, **when: Any) -> dict[str, Any]:
        if detail["table_id"] == slow:
            in_flight.set()
            time.sleep(1.5)  # still being handled when the other table's card is scanned
        return handled(kind, detail, once, **when)

    monkeypatch.setattr(dealing, "record", slow_record)
    scans = [threading.Thread(target=slow_devices.scan, args=(slow_shoe.draw(slow_devices),))]
    scans[0].start()
    assert in_flight.wait(30)
    scans.append(threading.Thread(target=quick_devices.scan, args=(quick_shoe.draw(quick_devices),)))
    scans[1].start()
    for scan in scans:
        scan.join(30)
    monkeypatch.setattr(dealing, "record", handled)
    for table in (slow, quick):  # nothing else is sent to the queue: each card came through
        wait_until(lambda t=table: _view(h, rounds[t])["hands"]["player"]["cards"] != [], timeout=10)
    for table, devices, shoe in ((slow, slow_devices, slow_shoe), (quick, quick_devices, quick_shoe)):
        _deal_out(h, rounds[table], devices, shoe)
        wait_until(lambda t=table: _view(h, rounds[t])["status"] == "settled", timeout=30)
    h.audit_ok()


def test_a_card_during_a_decision_pauses_the_round_until_the_supervisor_says_what_became_of_it(
        h: Harness, alerts: Alerts) -> None:
    table = h.table("surprise")
    devices, shoe = h.open_devices(table, "blackjack", 15, cut_at=300, rules={"timers": {**TIMERS, "decision": 60}})
    h.players["dev"].call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["TS", "7H", "9D"])
    round_id = _start(h, table, {"dev": [{"type": "seat", "seat": 1, "amount": 1000}]})
    for _ in range(3):
        devices.scan(shoe.draw(devices))
    wait_until(lambda: _view(h, round_id)["expected"]["kind"] == "decision", timeout=30)
    early = devices.scan("2C")  # the dealer drew before the player decided
    h.dealt(devices)
    view = _view(h, round_id)
    assert view["paused"] is True and "card 2C" in view["pause_reason"]
    assert "while seat 1 hand 0 decides" in view["pause_reason"]
    assert view["blocked"]["scan_id"] == early and view["blocked"]["card"] == "2C"
    assert view["hands"]["seats"]["1"]["hands"][0]["cards"] == ["TS", "9D"]  # given to no hand
    assert [a["blocked_by"]["scan_id"] for a in alerts.of("round-paused", table)] == [early]
    with pytest.raises(ApiError) as unsaid:
        h.supervisor.post(f"/rounds/{round_id}/resume", {})
    assert unsaid.value.status == 409 and unsaid.value.reason == "say-what-became-of-the-card"
    # the dealer put it back on the shoe: not counted, it will be drawn and scanned again
    drawn = h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"]
    h.supervisor.post(f"/rounds/{round_id}/resume", {"card": "returned"})
    assert h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"] == drawn
    h.players["dev"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "hit"}, idempotent=True)
    devices.scan("2C")
    h.dealt(devices)
    view = _view(h, round_id)
    assert view["paused"] is False and view["hands"]["seats"]["1"]["hands"][0]["cards"] == ["TS", "9D", "2C"]
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "procedure error"})
    wait_until(lambda: _view(h, round_id)["status"] == "voided", timeout=30)
    assert h.balance("dev") == START
    h.audit_ok()


def test_a_card_kept_for_the_round_is_taken_when_the_round_next_expects_a_card(h: Harness) -> None:
    """The dealer dealt the card for a hit a moment before the player's 'hit' reached the table:
    the supervisor says it belongs to the round; it goes to the hand the round next deals to."""
    table = h.table("kept")
    devices, shoe = h.open_devices(table, "blackjack", 18, cut_at=300, rules={"timers": {**TIMERS, "decision": 60}})
    h.players["dev"].call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["TS", "7H", "4D", "6C"])
    round_id = _start(h, table, {"dev": [{"type": "seat", "seat": 1, "amount": 1000}]})
    for _ in range(3):
        devices.scan(shoe.draw(devices))
    wait_until(lambda: _view(h, round_id)["expected"]["kind"] == "decision", timeout=30)
    devices.scan(shoe.draw(devices))
    h.dealt(devices)
    assert _view(h, round_id)["paused"] is True
    drawn = h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"]
    h.supervisor.post(f"/rounds/{round_id}/resume", {"card": "round"})
    view = _view(h, round_id)
    assert view["paused"] is False and view["expected"]["kind"] == "decision"  # still the player's turn
    assert h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"] == drawn  # not taken yet
    h.players["dev"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "hit"}, idempotent=True)
    view = _view(h, round_id)
    assert view["hands"]["seats"]["1"]["hands"][0]["cards"] == ["TS", "4D", "6C"]
    assert h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"] == drawn + 1
    h.players["dev"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "stand"}, idempotent=True)
    _deal_out(h, round_id, devices, shoe)
    assert wait_until(lambda: _view(h, round_id)["status"] == "settled", timeout=30)
    h.audit_ok()


def test_a_card_long_before_the_countdown_ends_pauses_the_round_and_closes_betting(
        h: Harness, alerts: Alerts) -> None:
    table = h.table("early")
    devices, shoe = h.open_devices(table, "baccarat", 19, cut_at=300,
                                   rules={"timers": {**TIMERS, "countdown": 30}})
    round_id = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{table}/bets", {"bets": [{"type": "player", "amount": 100}]}, idempotent=True)
    first = shoe.draw(devices)
    devices.scan(first)  # 30 s early: the dealer must not deal yet
    h.dealt(devices)
    view = _view(h, round_id)
    assert view["paused"] is True and "before betting closed" in view["pause_reason"]
    assert view["status"] == "playing" and view["hands"]["player"]["cards"] == []
    with pytest.raises(ApiError) as closed:  # no bet once the dealer has started dealing
        h.players["ben"].post(f"/tables/{table}/bets", {"bets": [{"type": "player", "amount": 100}]},
                              idempotent=True)
    assert closed.value.status == 409 and closed.value.reason == "betting-closed"
    assert alerts.of("round-paused", table)
    h.supervisor.post(f"/rounds/{round_id}/resume", {"card": "round"})  # it is the round's first card
    assert _view(h, round_id)["hands"]["player"]["cards"] == [first]
    _deal_out(h, round_id, devices, shoe)
    assert wait_until(lambda: _view(h, round_id)["status"] == "settled", timeout=30)
    h.audit_ok()


def test_burn_cut_card_and_last_round_close_the_shoe(h: Harness) -> None:
    table = h.table("shoe")
    devices, shoe = h.open_devices(table, "baccarat", 16, cut_at=300)
    info = h.operator.get(f"/tables/{table}")["shoe"]
    assert info["phase"] == "ready" and info["burn_remaining"] == 0 and info["cut_card_out"] is False
    shoe.cut_at = shoe.position  # the cut card comes out with the first card of round 1: it is the last
    final = h.round(h.tables[table], {"ana": [{"type": "player", "amount": 100}]})
    info = h.operator.get(f"/tables/{table}")["shoe"]
    assert info["cut_card_out"] is True and info["last_round"] == 1
    assert final["last_round"] is True
    assert h.operator.get(f"/tables/{table}")["shoe"]["phase"] == "closed"
    with pytest.raises(ApiError) as closed:
        h.console(table).post(f"/tables/{table}/rounds")
    assert closed.value.status == 409
    # a new shoe: no round before its burn is complete
    devices.shuffled("next-shoe")
    h.dealt(devices)  # the dealer draws once the console shows the new shoe
    with pytest.raises(ApiError) as burning:
        h.console(table).post(f"/tables/{table}/rounds")
    assert burning.value.status == 409
    devices.scan("3S")  # burns 3
    for card in ("4S", "5S", "6S"):
        devices.scan(card)
    h.dealt(devices)
    assert h.operator.get(f"/tables/{table}")["shoe"]["phase"] == "ready"
    time.sleep(0.1)


def test_a_paused_round_is_voided_automatically_after_the_configured_time(h: Harness) -> None:
    table = h.table("autovoid")
    devices, shoe = h.open_devices(table, "pok-deng", 17, cut_at=300, rules={"timers": {**TIMERS, "pause_void": 2}})
    round_id = _start(h, table, {"fay": [{"type": "player-2", "amount": 1000}]})
    assert h.balance("fay") == START - 2000  # the 2x reservation
    devices.scan(shoe.draw(devices))
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "dealer change"})
    final = wait_until(lambda: (v := _view(h, round_id))["status"] == "voided" and v, timeout=60, interval=0.25)
    assert final["void_reason"] == "paused too long"
    assert h.balance("fay") == START
    h.audit_ok()
