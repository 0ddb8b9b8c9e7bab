"""The simulation's SQS queues (``croupier.sim.queues``) keep SQS's documented delivery semantics on
a virtual clock: a FIFO group in order and one in flight at a time, deduplication for 5 minutes, a
standard queue in any order and at least once, visibility timeouts and the dead-letter queue."""

from __future__ import annotations

import random
from typing import Any

import pytest
from botocore.exceptions import ClientError

from croupier.app.clock import VirtualClock
from croupier.sim.memory import SqsInMemory
from croupier.sim.queues import Queue


def queue(name: str = "q", seed: int = 1, **kwargs: Any) -> Queue:
    return Queue(name, VirtualClock(), random.Random(seed), **kwargs)


def test_a_fifo_group_is_delivered_in_order_one_in_flight_at_a_time() -> None:
    # GIVEN a FIFO queue with two groups of three messages each
    q = queue(fifo=True, visibility_timeout=10)
    for n in range(3):
        q.send(f"a{n}", group="a", deduplication_id=f"a{n}")
        q.send(f"b{n}", group="b", deduplication_id=f"b{n}")
    # WHEN one receive takes group a's messages
    first = q.receive(2)
    assert [m.body for m in first] == ["a0", "a1"]
    # THEN group a gives nothing more until they are deleted; group b goes on meanwhile
    assert [m.body for m in q.receive(10)] == ["b0", "b1", "b2"]
    assert q.receive(10) == []
    for m in first:
        q.delete(m)
    assert [m.body for m in q.receive(10)] == ["a2"]


def test_a_fifo_message_not_deleted_comes_back_after_its_visibility_timeout_before_the_rest_of_its_group() -> None:
    q = queue(fifo=True, visibility_timeout=10)
    q.send("x0", group="g", deduplication_id="0")
    q.send("x1", group="g", deduplication_id="1")
    assert [m.body for m in q.receive(1)] == ["x0"]
    q.clock.advance(9.9)
    assert q.receive(10) == []
    q.clock.advance(0.1)
    again = q.receive(1)
    assert [m.body for m in again] == ["x0"] and again[0].receives == 2


def test_a_fifo_queue_drops_a_deduplication_id_seen_in_the_last_five_minutes() -> None:
    q = queue(fifo=True)
    assert q.send("one", group="g", deduplication_id="d") is not None
    q.clock.advance(299)
    assert q.send("again", group="g", deduplication_id="d") is None
    q.clock.advance(1)
    assert q.send("later", group="g", deduplication_id="d") is not None
    assert [m.body for m in q.messages] == ["one", "later"]
    with pytest.raises(ValueError, match="group and a deduplication id"):
        q.send("no group")


def test_a_standard_queue_delivers_in_any_order_and_at_least_once_by_its_seed() -> None:
    def run(seed: int) -> list[str]:
        q = queue(seed=seed, duplicates=0.5, visibility_timeout=5)
        for n in range(20):
            q.send(f"m{n:02d}")
        delivered: list[str] = []
        for _ in range(200):
            for m in q.receive(3):
                delivered.append(m.body)
                q.delete(m)
            q.clock.advance(1)
        assert not q.messages
        return delivered

    first = run(7)
    # every message delivered, not in the order sent, some twice; the same seed gives the same run
    assert set(first) == {f"m{n:02d}" for n in range(20)}
    assert first[:20] != sorted(first[:20]) and len(first) > 20
    assert run(7) == first and run(8) != first


def test_a_message_received_too_often_moves_to_the_dead_letter_queue() -> None:
    dead = queue("dlq")
    q = Queue("q", dead.clock, random.Random(1), visibility_timeout=1, max_receives=3, dead_letter=dead)
    q.send("poison")
    for _ in range(3):
        assert [m.body for m in q.receive()] == ["poison"]
        q.clock.advance(1)
    assert q.receive() == [] and len(q) == 0
    assert [m.body for m in dead.receive()] == ["poison"]


def test_a_delayed_message_is_not_received_before_its_delay() -> None:
    clock = VirtualClock()
    queue = Queue("q", clock, random.Random(1))
    queue.send("later", delay=30)
    queue.send("now")
    received = queue.receive()
    assert [m.body for m in received] == ["now"]
    queue.delete(received[0])
    clock.advance(29.9)
    assert queue.receive() == []
    clock.advance(0.1)
    assert [m.body for m in queue.receive()] == ["later"]


def test_the_in_memory_sqs_refuses_a_delay_sqs_refuses() -> None:
    sent: list[tuple[Any, ...]] = []
    sqs = SqsInMemory(lambda *message: sent.append(message))
    with pytest.raises(ClientError) as refused:
        sqs.send_message_batch(QueueUrl="q", Entries=[{"Id": "1", "MessageBody": "x", "DelaySeconds": 901}])
    assert refused.value.response["Error"]["Code"] == "InvalidParameterValue" and sent == []
    sqs.send_message_batch(QueueUrl="q", Entries=[{"Id": "1", "MessageBody": "x", "DelaySeconds": 900}])
    assert sent == [("q", "x", None, None, 900)]
