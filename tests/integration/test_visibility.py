"""Nobody sees what they should not, played as an attacker on the local stack: every role (two
players, the table's dealer console, another table's console, a supervisor, an operator) polls
every view it may read while cards are scanned face down (a Pok Deng countdown, a paused Deluxe
round); a pause reaches players in words; a console of another table is an outsider; message
ids say nothing and never repeat (a fast sit-leave-sit, a pause-resume-pause); and a screen's
connection is counted once, capped, and outlived by no token."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any

import pytest
from websockets.sync.client import connect

from croupier.app import dealing, push, store
from croupier.app.identity import issue_local_token
from croupier.app.visibility import PAUSE_WORDS
from croupier.local.client import ApiError, Client, wait_until
from tests.support.harness import TIMERS, Harness

pytestmark = pytest.mark.integration


def _everyone(h: Harness, table_id: str) -> dict[str, Client]:
    return {"ana": h.players["ana"], "ben": h.players["ben"], "console": h.console(table_id),
            "other-console": h.console(f"{table_id}-other"), "supervisor": h.supervisor, "operator": h.operator}


def _poll(clients: dict[str, Client], table_id: str, round_id: str) -> dict[str, dict[str, Any]]:
    """Every view each role may read now: the round, the table, and the device log (the staff)."""
    out: dict[str, dict[str, Any]] = {}
    for name, client in clients.items():
        views: dict[str, Any] = {"round": client.get(f"/rounds/{round_id}"), "table": client.get(f"/tables/{table_id}")}
        try:
            views["log"] = client.get(f"/tables/{table_id}/log")["entries"]
        except ApiError as refused:
            assert refused.status == 403 and name in ("ana", "ben", "other-console"), (name, refused)
        out[name] = views
    return out


def _leaks(polled: dict[str, dict[str, Any]], cards: set[str], scans: set[str]) -> list[str]:
    """Each card of ``cards`` named anywhere in the round's or table's view, and each entry of our
    ``scans`` in the log whose card is not "??"."""
    found = []
    for name, views in polled.items():
        for what in ("round", "table"):
            text = json.dumps(views[what])
            found += [f"{name} {what} {card}" for card in cards if f'"{card}"' in text]
        for entry in views.get("log", []):
            if entry.get("scan_id") in scans and entry.get("card") != "??":
                found.append(f"{name} log #{entry['n']} {entry['state']} {entry['card']}")
    return found


def test_no_role_reads_a_pok_deng_card_by_any_route_while_bets_are_open(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    table = h.open_table(h.table("pd-att"), "pok-deng", 81, cut_at=300,
                         rules={"timers": {**TIMERS, "countdown": 25}})
    clients = _everyone(h, table.table_id)
    staff_screen = h.watch(h.supervisor.token, [table.table_id])
    real_drain = dealing.drain

    def slow_drain(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)  # each scan waits in the log a while before it is taken: pollers see it pending
        return real_drain(*args, **kwargs)

    monkeypatch.setattr(dealing, "drain", slow_drain)
    round_id = table.console.post(f"/tables/{table.table_id}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "player-1", "amount": 500}]},
                          idempotent=True)
    dealt = [table.shoe.draw(table.devices) for _ in range(13)]  # the burn, then twelve face down
    scans: list[str] = []
    scanner = threading.Thread(target=lambda: scans.extend(table.devices.scan(card) for card in dealt))
    states: set[str] = set()
    read_enough = threading.Event()  # a scan seen pending, or every scan taken
    reader = Client(h.stack.api_url, h.stack.jwt_secret, h.supervisor.subject, "supervisor")

    def read_the_log() -> None:
        """The supervisor's device log alone, read as often as it answers until it shows a scan
        pending or every scan taken (the full polls below are slow: a pending entry could come and
        go between two of them)."""
        while not read_enough.is_set():
            entries = [e for e in reader.get(f"/tables/{table.table_id}/log")["entries"] if e.get("scan_id") in scans]
            states.update(e["state"] for e in entries)
            if "pending" in states or (len(entries) == len(dealt) and all(e["state"] != "pending" for e in entries)):
                read_enough.set()

    log_reader = threading.Thread(target=read_the_log, daemon=True)
    scanner.start()
    log_reader.start()
    leaks: list[str] = []
    while scanner.is_alive():  # every role polls every view it may read, as fast as it can
        polled = _poll(clients, table.table_id, round_id)
        if polled["supervisor"]["round"]["status"] != "betting":
            break
        leaks += _leaks(polled, set(dealt), set(scans))
        states |= {e["state"] for e in polled["supervisor"].get("log", []) if e.get("scan_id") in scans}
    scanner.join(30)
    read_enough.wait(30)
    read_enough.set()
    log_reader.join(30)
    polled = _poll(clients, table.table_id, round_id)
    assert polled["supervisor"]["round"]["status"] == "betting", "the countdown ended before the check"
    leaks += _leaks(polled, set(dealt), set(scans))
    states |= {e["state"] for e in polled["supervisor"]["log"] if e.get("scan_id") in scans}
    assert not leaks, leaks
    assert "pending" in states, states  # the pollers did read entries not taken yet
    monkeypatch.setattr(dealing, "drain", real_drain)
    # the pushed device log says nothing either, until betting has closed
    closed = staff_screen.next(lambda e: e.get("round_id") == round_id and e["type"] == "betting-closed", timeout=60)
    before = staff_screen.events[:staff_screen.events.index(closed)]
    entries = [e["entry"] for e in before if e["type"] == "device-event" and e["entry"].get("scan_id") in scans]
    assert entries and all(e["card"] == "??" for e in entries), entries
    wait_until(lambda: store.load_round(round_id).status == "settled", timeout=60)
    h.audit_ok()


def test_no_role_reads_the_deluxe_hole_card_scanned_during_a_pause(h: Harness) -> None:
    table = h.open_table(h.table("dlx-att"), "deluxe-blackjack", 82, cut_at=300, scan_burn=False,
                         rules={"timers": {**TIMERS, "decision": 60}})
    tid = table.table_id
    h.players["ana"].call("PUT", f"/tables/{tid}/seats/1")
    clients = _everyone(h, tid)
    player_screen = h.watch(h.players["ben"].token, [tid])
    table.shoe.prepare(["TS", "7H", "9D", "KC"])
    round_id = table.console.post(f"/tables/{tid}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{tid}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]},
                          idempotent=True)
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing", timeout=30)
    for _ in range(3):
        table.devices.scan(table.shoe.draw(table.devices))
    wait_until(lambda: (h.supervisor.get(f"/rounds/{round_id}")["expected"] or {}).get("face_up") is False,
               timeout=30)
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "camera 2 check"})
    hole = table.devices.scan(table.shoe.draw(table.devices))  # scanned while paused: it waits, pending
    h.dealt(table.devices)  # recorded (its way is asynchronous)
    polled = _poll(clients, tid, round_id)
    entry = next(e for e in polled["supervisor"]["log"] if e.get("scan_id") == hole)
    assert entry["state"] == "pending" and entry["card"] == "??", entry
    assert not _leaks(polled, {"KC"}, {hole})
    # why it is paused: the staff read the supervisor's words; a player (and another table's
    # console) the code's plain words
    for name, views in polled.items():
        wanted = "camera 2 check" if name in ("console", "supervisor", "operator") else PAUSE_WORDS["supervisor"]
        assert views["round"]["pause_reason"] == wanted and views["round"]["pause_code"] == "supervisor", name
    paused = player_screen.next(lambda e: e.get("round_id") == round_id and e["type"] == "round-paused")
    assert paused["reason"] == PAUSE_WORDS["supervisor"] and paused["code"] == "supervisor"
    h.supervisor.post(f"/rounds/{round_id}/resume", {})
    wait_until(lambda: (h.supervisor.get(f"/rounds/{round_id}")["expected"] or {}).get("kind") == "decision",
               timeout=30)
    polled = _poll(clients, tid, round_id)
    assert not _leaks(polled, {"KC"}, {hole})  # taken face down: still hidden from everyone
    h.players["ana"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "stand"}, idempotent=True)
    final = wait_until(lambda: (v := h.supervisor.get(f"/rounds/{round_id}"))["status"] == "settled" and v,
                       timeout=30)
    assert "KC" in json.dumps(final["result"])
    log = h.supervisor.get(f"/tables/{tid}/log")["entries"]
    assert next(e for e in log if e.get("scan_id") == hole)["card"] == "KC"  # revealed: shown to the staff
    h.audit_ok()


def test_a_card_that_pauses_a_round_is_named_to_the_staff_and_told_in_words_to_players(h: Harness) -> None:
    table = h.open_table(h.table("early-att"), "baccarat", 83, cut_at=300,
                         rules={"timers": {**TIMERS, "countdown": 30}})
    tid = table.table_id
    player_screen = h.watch(h.players["ana"].token, [tid])
    staff_screen = h.watch(h.supervisor.token, ["*"])
    round_id = table.console.post(f"/tables/{tid}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{tid}/bets", {"bets": [{"type": "player", "amount": 100}]}, idempotent=True)
    first = table.shoe.draw(table.devices)
    scan = table.devices.scan(first)  # 30 s early
    h.dealt(table.devices)  # the card's way is asynchronous
    staff = h.supervisor.get(f"/rounds/{round_id}")
    assert staff["paused"] and f"card {first} (scan {scan}" in staff["pause_reason"]
    assert staff["blocked"]["card"] == first and staff["blocked"]["scan_id"] == scan
    mine = h.players["ana"].get(f"/rounds/{round_id}")
    words = PAUSE_WORDS["card-before-betting-closed"]
    assert mine["pause_reason"] == words and mine["pause_code"] == "card-before-betting-closed"
    assert scan not in json.dumps(mine) and "blocked" not in mine
    told = player_screen.next(lambda e: e.get("round_id") == round_id and e["type"] == "round-paused")
    assert told["reason"] == words and "blocked_by" not in told and scan not in json.dumps(told)
    with pytest.raises(ApiError) as refused:  # an error speaks in the same words
        h.players["ana"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "hit"}, idempotent=True)
    assert scan not in json.dumps(refused.value.body)
    seen = staff_screen.next(lambda e: e.get("round_id") == round_id and e["type"] == "round-paused")
    assert seen["blocked_by"]["card"] == first and scan in seen["reason"]
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "voided", timeout=30)
    h.audit_ok()


def test_another_tables_console_reads_a_table_as_an_outsider(h: Harness) -> None:
    table = h.open_table(h.table("bj-out"), "blackjack", 84, cut_at=300, rules={"timers": {**TIMERS, "decision": 30}})
    tid = table.table_id
    h.players["ana"].call("PUT", f"/tables/{tid}/seats/2")
    table.shoe.prepare(["TS", "7H", "9D"])
    round_id = table.console.post(f"/tables/{tid}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{tid}/bets", {"bets": [{"type": "seat", "seat": 2, "amount": 1000}]},
                          idempotent=True)
    h.players["ben"].post(f"/tables/{tid}/bets", {"bets": [{"type": "behind", "seat": 2, "amount": 500}]},
                          idempotent=True)
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing", timeout=30)
    for _ in range(3):
        table.devices.scan(table.shoe.draw(table.devices))
    wait_until(lambda: (h.supervisor.get(f"/rounds/{round_id}")["expected"] or {}).get("kind") == "decision",
               timeout=30)
    other = h.console(f"{tid}-elsewhere")
    outsider = h.players["fay"]
    for path in (f"/tables/{tid}", f"/rounds/{round_id}"):
        theirs, plain = other.get(path), outsider.get(path)
        text = json.dumps(theirs)
        for secret in (h.players["ana"].subject, h.players["ben"].subject, "reader_id", "actions", "account_kind"):
            assert secret not in text, (path, secret)
        assert theirs == plain, path  # what a player who does not sit there sees, no more
    assert h.console(tid).get(f"/tables/{tid}")["seats"]["2"]["player"] == h.players["ana"].subject
    with pytest.raises(ApiError) as refused:
        other.get(f"/tables/{tid}/log")
    assert refused.value.status == 403
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "voided", timeout=30)


def test_message_ids_never_repeat_so_a_fast_sit_leave_sit_and_pause_resume_pause_all_arrive(h: Harness) -> None:
    table = h.open_table(h.table("ids"), "deluxe-blackjack", 85, cut_at=300, scan_burn=False,
                         rules={"timers": {**TIMERS, "decision": 60}})
    tid = table.table_id
    watcher = h.watch(h.players["fay"].token, [tid])
    ana = h.players["ana"]
    for method in ("PUT", "DELETE", "PUT"):  # within a second or so: the same visible content twice
        ana.call(method, f"/tables/{tid}/seats/1")
    wait_until(lambda: len([e for e in watcher.events if e["type"] == "seats-changed"]) == 3, timeout=30)
    changes = [e for e in watcher.events if e["type"] == "seats-changed"]
    assert [c["seats"] for c in changes] == [[1], [], [1]] and watcher.duplicates == 0
    assert "players" not in json.dumps(changes)  # who sits is staff only
    ids = [m["id"] for m in watcher.messages if "id" in m]
    assert len(ids) == len(set(ids))
    # pause, resume and pause again, fast: three events, the round paused at the end
    table.shoe.prepare(["TS", "7H", "9D", "KC"])
    round_id = table.console.post(f"/tables/{tid}/rounds")["round_id"]
    ana.post(f"/tables/{tid}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]}, idempotent=True)
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing", timeout=30)
    for _ in range(4):
        table.devices.scan(table.shoe.draw(table.devices))
    wait_until(lambda: (h.supervisor.get(f"/rounds/{round_id}")["expected"] or {}).get("kind") == "decision",
               timeout=30)
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "one"})
    h.supervisor.post(f"/rounds/{round_id}/resume", {})
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "two"})

    def told() -> list[str]:
        return [e["type"] for e in watcher.events if e.get("round_id") == round_id
                and e["type"] in ("round-paused", "round-resumed")]

    wait_until(lambda: len(told()) == 3, timeout=30)
    assert told() == ["round-paused", "round-resumed", "round-paused"] and watcher.duplicates == 0
    ids = [m["id"] for m in watcher.messages if "id" in m]
    assert len(ids) == len(set(ids))
    h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "voided", timeout=30)


# --- the screens' bookkeeping -------------------------------------------------------------------


class Raw:
    """A WebSocket connection the test speaks on itself, frame by frame."""

    def __init__(self, h: Harness, token: str) -> None:
        self._exit = contextlib.ExitStack()
        self.connection = self._exit.enter_context(connect(f"{h.stack.screens.url}/?token={token}"))

    def send(self, message: Any) -> None:
        self.connection.send(message if isinstance(message, str) else json.dumps(message))

    def answer(self, match: Any = lambda m: True, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message: dict[str, Any] = json.loads(self.connection.recv(timeout=max(0.1, deadline - time.monotonic())))
            if match(message):
                return message

    def close(self) -> None:
        self._exit.close()


def _slot(table_id: str, connection_id: str) -> int:
    """The slot the connection joined at the table (kept on its connection item)."""
    connection = store.connection_of(connection_id)
    assert connection is not None
    return push.slot_at(connection, table_id)


def _slot_count(table_id: str, slot: int) -> int:
    """The count of one slot of the table (other connections may share the slot)."""
    counts = store.get(store.game_table(), {"pk": f"WATCH#{table_id}", "sk": "SLOTS"}) or {}
    return int(counts.get(f"slot{slot:03d}", 0))


def _watching(table_id: str, slot: int, connection_id: str) -> tuple[int, bool]:
    """How many watch one slot of the table, by its items, and whether the connection is one."""
    items = list(push.watchers(table_id, slot))
    return len(items), any(item.connection_id == connection_id for item in items)


def _watches(table_id: str, connection_id: str) -> bool:
    """Does the connection watch the table, in whichever slot?"""
    return any(item.get("connection_id") == connection_id and item["sk"][:3].isdigit()
               for item in store.query_all(store.game_table(), KeyConditionExpression="pk = :p",
                                           ExpressionAttributeValues={":p": f"WATCH#{table_id}"}))


def test_a_subscription_counts_once_and_a_screen_is_capped_and_validated(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    tables = [h.open_table(h.table(f"cap{n}"), "baccarat", 86 + n, cut_at=300).table_id for n in range(3)]
    screen = Raw(h, h.players["fay"].token)
    try:
        screen.send({"action": "subscribe", "tables": [tables[0]] * 50})
        connection_id = screen.answer(lambda m: m.get("type") == "subscribed")["connection_id"]
        slot = _slot(tables[0], connection_id)
        watching, mine = _watching(tables[0], slot, connection_id)
        assert mine and _slot_count(tables[0], slot) == watching  # counted once
        time.sleep(1.1)
        screen.send({"action": "unsubscribe", "tables": [tables[0]]})
        screen.answer(lambda m: m.get("type") == "unsubscribed")
        assert _watching(tables[0], slot, connection_id) == (watching - 1, False)
        assert _slot_count(tables[0], slot) == watching - 1
        # at most MAX_TABLES tables per connection: a request beyond it changes nothing
        monkeypatch.setattr(push, "MAX_TABLES", 2)
        time.sleep(1.1)
        screen.send({"action": "subscribe", "tables": tables})
        refused = screen.answer(lambda m: m.get("type") == "error")
        assert refused["reason"] == "too-many-tables", refused
        assert not any(_watches(t, connection_id) for t in tables)
        # table ids are validated like every other input; a frame nested too deep is refused too
        time.sleep(1.1)
        for bad in ({"action": "subscribe", "tables": ["x" * 3000]}, {"action": "subscribe", "tables": ["a b"]},
                    '{"action": "subscribe", "tables": ' + "[" * 50_000 + "]" * 50_000 + "}"):
            screen.send(bad)
            assert screen.answer(lambda m: m.get("type") == "error")["reason"] == "invalid-message"
            time.sleep(0.25)
        # at most a few messages a second: the rest are refused, the connection stays
        time.sleep(1.1)
        burst = 3 * push.MESSAGES_PER_SECOND + 1  # within three seconds, one of them has more than its share
        for _ in range(burst):
            screen.send({"action": "unsubscribe", "tables": [tables[1]]})
        answers = [screen.answer(lambda m: m.get("type") in ("unsubscribed", "error")) for _ in range(burst)]
        assert {a.get("reason") for a in answers if a["type"] == "error"} == {"too-many-messages"}, answers
        time.sleep(1.1)
        screen.send({"action": "subscribe", "tables": [tables[1]]})
        assert screen.answer(lambda m: m.get("type") in ("subscribed", "error"))["type"] == "subscribed"
    finally:
        screen.close()


def test_a_connection_does_not_outlive_its_token_unless_it_sends_a_fresh_one(h: Harness) -> None:
    table = h.open_table(h.table("ttl"), "blackjack", 90, cut_at=300)
    tid = table.table_id
    fay, secret = h.players["fay"], h.stack.jwt_secret
    short = issue_local_token(secret, fay.subject, "player", ttl=3)
    expiring, renewed = Raw(h, short), Raw(h, short)
    try:
        ids = {}
        for screen in (expiring, renewed):
            screen.send({"action": "subscribe", "tables": [tid]})
            ids[screen] = screen.answer(lambda m: m.get("type") == "subscribed")["connection_id"]
        # another subject's token is not this connection's
        renewed.send({"action": "authenticate", "token": h.players["ana"].token})
        assert renewed.answer(lambda m: m.get("type") == "error")["reason"] == "not-this-connection"
        time.sleep(1.1)
        renewed.send({"action": "authenticate", "token": issue_local_token(secret, fay.subject, "player", ttl=600)})
        assert renewed.answer(lambda m: m.get("type") in ("authenticated", "error"))["type"] == "authenticated"
        time.sleep(3.5)  # the short token has expired
        h.players["ana"].call("PUT", f"/tables/{tid}/seats/1")  # an event of the table
        assert renewed.answer(lambda m: m.get("events"))["events"][0]["type"] == "seats-changed"
        told = expiring.answer(lambda m: m.get("type") == "error" or m.get("events"))
        assert told.get("reason") == "expired-token", told  # told, and sent nothing more
        assert wait_until(lambda: store.get(store.game_table(), {"pk": f"CONN#{ids[expiring]}", "sk": "META"})
                          is None, timeout=10)
        assert _watches(tid, ids[renewed]) and not _watches(tid, ids[expiring])
        expiring.send({"action": "subscribe", "tables": [tid]})  # whatever it asks now is refused
        assert expiring.answer(lambda m: m.get("type") == "error")["reason"] in ("no-connection", "expired-token")
    finally:
        expiring.close()
        renewed.close()
