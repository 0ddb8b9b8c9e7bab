"""Each table's cards in the order the table dealt them, resting on what AWS guarantees.

EventBridge does not keep the order of separate ``PutEvents`` calls, a rule target's
``MessageGroupId`` is a fixed string, and the table events queue is a standard queue: it delivers
out of order and twice, and the local stack's pollers take its batches side by side as Lambda's
do. The order comes from the card reader, which numbers its events (``seq``); the device log takes
a reader's events in that order (:func:`croupier.app.store.record_device_event`). These tests
deliver the way the world does: interleaved, reordered, twice, late, with another table failing.
"""

from __future__ import annotations

import random
import threading
import uuid
from typing import Any

import pytest

from croupier.app import dealing, keys, store
from croupier.app.events import READER
from croupier.app.records import LogEntry
from croupier.local.client import reader_seq, wait_until
from croupier.local.stack import LocalStack
from tests.support.harness import Harness

pytestmark = pytest.mark.integration


def _scan(table: str, n: int, card: str = "5S") -> tuple[str, LogEntry]:
    key = f"scan-{uuid.uuid4().hex[:12]}"
    return key, LogEntry(table_id=table, n=0, key=key, kind="card-scanned", at=store.now_ms(), card=card,
                         reader_id=f"reader-{table}", seq=n)


def test_a_readers_events_enter_the_log_in_its_order_whatever_order_they_arrive(stack: LocalStack) -> None:
    """GIVEN 30 scans of one reader, WHEN they arrive shuffled, some twice, from four threads at
    once, THEN the log holds each once, in the reader's order, and nothing is left waiting."""
    table = f"order-{uuid.uuid4().hex[:8]}"
    scans = [_scan(table, n, card) for n, card in enumerate(["AS", "2H", "3D", "4C", "5S"] * 6, start=1)]
    deliveries = scans + random.Random(7).sample(scans, 10)  # a third of them twice
    random.Random(8).shuffle(deliveries)
    outcomes: list[int | None] = []
    lock = threading.Lock()

    def deliver(part: list[tuple[str, LogEntry]]) -> None:
        for _, entry in part:
            n = store.record_device_event(entry, (f"reader-{table}", int(entry.seq or 0)))
            with lock:
                outcomes.append(n)

    threads = [threading.Thread(target=deliver, args=(deliveries[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    log = store.log_entries(table)
    assert [e.seq for e in log] == list(range(1, 31))
    assert [e.key for e in log] == [key for key, _ in scans]
    assert [e.n for e in log] == list(range(1, 31))
    assert store.waiting_events(table) == []
    assert outcomes.count(None) == 10  # each second delivery is a duplicate, whenever it came
    assert all(int(store.once_marker(table, key)["n"]) == e.n for (key, _), e in zip(scans, log, strict=True))


def test_a_gap_holds_the_later_events_until_the_missing_one_comes(stack: LocalStack) -> None:
    table = f"gap-{uuid.uuid4().hex[:8]}"
    reader = f"reader-{table}"
    first, second, third = (_scan(table, n) for n in (1, 2, 3))
    assert store.record_device_event(first[1], (reader, 1)) == 1
    assert store.record_device_event(third[1], (reader, 3)) == 0  # waits for #2
    assert store.record_device_event(third[1], (reader, 3)) is None  # again: a duplicate
    assert [e.seq for e in store.log_entries(table)] == [1]
    assert [w["key"] for w in store.waiting_events(table)] == [third[0]]
    assert store.record_device_event(second[1], (reader, 2)) == 2
    assert [e.seq for e in store.log_entries(table)] == [1, 2, 3]
    assert store.waiting_events(table) == [] and int(store.once_marker(table, third[0])["n"]) == 3


def test_events_left_waiting_by_a_caller_that_died_are_moved_by_the_next_one(
        stack: LocalStack, monkeypatch: pytest.MonkeyPatch) -> None:
    """GIVEN #3 waiting for #2, WHEN the caller that places #2 dies before moving #3, THEN the
    reader's next event (#4) moves #3 first and then goes in itself: nothing is left waiting."""
    table = f"died-{uuid.uuid4().hex[:8]}"
    reader = f"reader-{table}"
    scans = {n: _scan(table, n) for n in (1, 2, 3, 4)}
    for n in (1, 3):
        store.record_device_event(scans[n][1], (reader, n))
    take = store._take_waiting
    monkeypatch.setattr(store, "_take_waiting", lambda *a: None)  # dies after placing #2
    assert store.record_device_event(scans[2][1], (reader, 2)) == 2
    assert [w["key"] for w in store.waiting_events(table)] == [scans[3][0]]
    monkeypatch.setattr(store, "_take_waiting", take)
    assert store.record_device_event(scans[4][1], (reader, 4)) == 0  # it came after #2
    assert [e.seq for e in store.log_entries(table)] == [1, 2, 3, 4]
    assert store.waiting_events(table) == []


def test_a_scan_in_its_readers_order_reads_the_log_head_once(stack: LocalStack,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """GIVEN a reader's #1 in the log, WHEN its #2 comes, THEN placing it reads the head once, and
    looking for a #3 waiting after it takes the head just written: one read of where #3 would wait."""
    table = f"reads-{uuid.uuid4().hex[:8]}"
    reader = f"reader-{table}"
    store.record_device_event(_scan(table, 1)[1], (reader, 1))
    read: list[dict[str, str]] = []
    get, mine = store.get, threading.get_ident()

    def reading(on: str, key: dict[str, str], **kwargs: Any) -> Any:
        if threading.get_ident() == mine:  # the stack's own threads go on meanwhile (an earlier test's redelivery)
            read.append(key)
        return get(on, key, **kwargs)

    monkeypatch.setattr(store, "get", reading)
    assert store.record_device_event(_scan(table, 2)[1], (reader, 2)) == 2
    assert read == [keys.log_head_key(table), keys.waiting_key(table, reader, 3)]


def test_a_number_used_before_by_another_scan_is_kept_and_marked(stack: LocalStack) -> None:
    table = f"reuse-{uuid.uuid4().hex[:8]}"
    reader = f"reader-{table}"
    one, again = _scan(table, 1), _scan(table, 1)
    store.record_device_event(one[1], (reader, 1))
    assert store.record_device_event(again[1], (reader, 1)) == 2
    (_, second) = store.log_entries(table)
    assert "comes after its #1" in str(second.out_of_sequence)
    assert store.log_head(table)["seqs"] == {reader: 1}


NATURAL = ["9S", "8H", "KD", "KC"]  # player 9S KD (9), banker 8H KC (8): the player's natural


def test_two_tables_interleaved_reordered_twice_and_one_failing(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """GIVEN two Baccarat tables in play, WHEN table B's events all fail in the dealing function
    (its store refuses them) and table A's cards arrive between them out of order and twice,
    THEN every round of A settles on exactly the cards its dealer dealt, and B's failures hold
    nothing of A back."""
    a, b = h.table("order-a"), h.table("order-b")
    dev_a, _ = h.open_devices(a, "baccarat", 41, cut_at=300)
    dev_b, _ = h.open_devices(b, "baccarat", 42, cut_at=300)
    failed: list[str] = []
    record = dealing.record

    def failing(kind: str, detail: dict[str, Any], once: str, **when: Any) -> dict[str, Any]:
        if detail["table_id"] == b:
            failed.append(once)
            raise RuntimeError(f"table {b}'s store refuses the write")
        return record(kind, detail, once, **when)

    b_log = store.log_count(b)
    b_round = h.console(b).post(f"/tables/{b}/rounds")["round_id"]
    h.players["ben"].post(f"/tables/{b}/bets", {"bets": [{"type": "player", "amount": 300}]}, idempotent=True)
    monkeypatch.setattr(dealing, "record", failing)
    rng = random.Random(43)
    try:
        for number in range(2):
            round_id = h.console(a).post(f"/tables/{a}/rounds")["round_id"]
            h.players["ana"].post(f"/tables/{a}/bets", {"bets": [{"type": "player", "amount": 500}]},
                                  idempotent=True)
            wait_until(lambda r=round_id: h.supervisor.get(f"/rounds/{r}")["status"] == "playing", timeout=30)
            reader = dev_a.reader_id
            scans = [(f"a{number}-{i}-{uuid.uuid4().hex[:8]}", card) for i, card in enumerate(NATURAL)]
            numbered = [(scan_id, card, reader_seq(a, reader, scan_id)) for scan_id, card in scans]
            sends = [*numbered, numbered[0], numbered[2]]  # two of them delivered twice
            rng.shuffle(sends)
            for scan_id, card, seq in sends:
                dev_a.send(READER, "card-scanned", {"reader_id": reader, "scan_id": scan_id, "card": card, "seq": seq})
                dev_b.scan(rng.choice(NATURAL))  # B's reader goes on dealing; every event of it fails
            wait_until(lambda r=round_id: h.supervisor.get(f"/rounds/{r}")["status"] == "settled", timeout=60)
            view = h.supervisor.get(f"/rounds/{round_id}")
            assert view["hands"]["player"]["cards"] == ["9S", "KD"], view["hands"]
            assert view["hands"]["banker"]["cards"] == ["8H", "KC"], view["hands"]
            taken = [e for e in store.log_entries(a) if e.round_id == round_id and e.use == "round"]
            assert [e.scan_id for e in taken] == [scan_id for scan_id, _ in scans]
    finally:
        monkeypatch.setattr(dealing, "record", record)
    assert failed, "table B's events reached the dealing function"
    assert store.log_count(b) == b_log  # none of B's failed events is in its log
    assert h.supervisor.get(f"/rounds/{b_round}")["status"] in ("playing", "closing", "betting")
    h.supervisor.post(f"/rounds/{b_round}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{b_round}")["status"] == "voided", timeout=60)
    h.audit_ok()
