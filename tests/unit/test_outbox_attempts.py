"""The outbox sends a call once per attempt, however many messages of it are queued.

A call's message is queued when it is made, again after each attempt that got no answer (delayed by
its backoff), when a call of the same operator gets through after failing (the wallet is back: the
calls waiting out their backoff are woken) and when the sweeper finds it overdue. Each message says
which attempt it was queued for; one that comes after that attempt was made is dropped. Before,
every message sent the call: a woken call had two messages in the queue, each of which, failing,
queued itself again, so a flapping operator's calls multiplied with each wake. Found by the
simulated world (a seamless world sent its 150 calls 13,825 times)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from croupier.app import clock, operators, seamless, store
from croupier.app.clock import VirtualClock
from croupier.local.stack import project_root
from croupier.sim.memory import InMemory, SqsInMemory, SsmInMemory

QUEUE = "https://sqs.us-east-1.amazonaws.com/123456789012/memory-wallet-calls"
OPERATOR = operators.Operator(id="acme", url="https://wallet.acme.example/croupier", secret="s" * 32,
                              currency="THB")


class Unanswered:
    """An operator's wallet that is down (every call times out) until it is back. Keeps what it was
    sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.back = False

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
        self.sent.append(json.loads(body)["transaction_id"])
        if not self.back:
            raise TimeoutError("no answer")
        return 200, b'{"status": "ok", "balance": 5}'


@pytest.fixture
def outbox() -> Iterator[tuple[list[dict[str, Any]], Unanswered]]:
    """A store of the test's own, its outbox queue's messages (body and delay), and a wallet down."""
    queued: list[dict[str, Any]] = []

    def send(url: str, body: str, group: str | None, dedup: str | None, delay: int) -> str:
        assert url == QUEUE
        queued.append({**json.loads(body), "delay": delay})
        return str(len(queued))

    wallet = Unanswered()
    memory = InMemory(project_root(), clients={"sqs": SqsInMemory(send), "ssm": SsmInMemory()},
                      WALLET_CALLS_QUEUE_URL=QUEUE)
    with memory.running(), clock.using(VirtualClock()), seamless.using_transport(wallet):
        operators.put(OPERATOR)
        yield queued, wallet


def _pending_credit(bet: str) -> str:
    """A bet's credit recorded in the outbox, not sent yet: its transaction id."""
    txid = seamless.transaction_id(f"bet:{bet}:settle")
    body = {"transaction_id": txid, "player": "ana", "amount": 500, "currency": "THB", "table_id": "t1",
            "round_id": "r1", "bet_id": bet, "reason": "payout", "debits": []}
    store.write([store.call_put(store.call_item(txid, "credit", OPERATOR.id, body, "pending", store.now_ms()))])
    return txid


def test_a_message_queued_for_an_attempt_already_made_sends_nothing(
        outbox: tuple[list[dict[str, Any]], Unanswered]) -> None:
    queued, wallet = outbox
    # GIVEN a credit just made, its message queued for its first attempt
    txid = _pending_credit("b1")
    # WHEN that message comes, and the wallet does not answer
    assert seamless.deliver(txid, 0) == "retry"
    # THEN it was sent once, and queued again, for its second attempt, after its backoff
    assert wallet.sent == [txid] and len(queued) == 1
    assert queued[0]["transaction_id"] == txid and queued[0]["attempt"] == 1 and queued[0]["delay"] >= 1
    # WHEN a second message of its first attempt comes (the call woken, or swept, meanwhile)
    # THEN it is dropped: nothing sent, nothing queued
    assert seamless.deliver(txid, 0) == "superseded"
    assert wallet.sent == [txid] and len(queued) == 1
    # WHEN the message of its second attempt comes: sent again, queued for the third
    assert seamless.deliver(txid, 1) == "retry"
    assert wallet.sent == [txid, txid] and [m["attempt"] for m in queued] == [1, 2]
    assert store.load_call(txid)["attempts"] == 2


def test_a_message_that_names_no_attempt_is_sent_as_before(outbox: tuple[list[dict[str, Any]], Unanswered]) -> None:
    queued, wallet = outbox
    # GIVEN a credit with a message queued before messages named their attempt
    txid = _pending_credit("b2")
    # WHEN it comes twice: THEN each sends the call (nothing tells them apart)
    assert seamless.deliver(txid) == "retry" and seamless.deliver(txid) == "retry"
    assert wallet.sent == [txid, txid] and [m["attempt"] for m in queued] == [1, 2]


def test_the_sweeper_queues_an_overdue_call_for_the_attempts_it_has_made(
        outbox: tuple[list[dict[str, Any]], Unanswered]) -> None:
    queued, wallet = outbox
    # GIVEN a credit that failed once, and whose next message was lost
    txid = _pending_credit("b3")
    assert seamless.deliver(txid, 0) == "retry"
    queued.clear()
    # WHEN the sweeper runs after its backoff and slack
    clock.current().sleep(600)
    assert seamless.sweep() == 1
    # THEN it is queued for its second attempt, which sends it
    assert [(m["transaction_id"], m["attempt"]) for m in queued] == [(txid, 1)]
    assert seamless.deliver(txid, 1) == "retry" and wallet.sent == [txid, txid]


def test_a_wallet_back_wakes_each_waiting_call_once(outbox: tuple[list[dict[str, Any]], Unanswered]) -> None:
    queued, wallet = outbox
    # GIVEN three credits that each failed once, waiting out their backoff
    first, second, third = (_pending_credit(f"b{n}") for n in (4, 5, 6))
    for txid in (first, second, third):
        assert seamless.deliver(txid, 0) == "retry"
    queued.clear()
    # WHEN the wallet is back and the first one's next message gets through
    wallet.back = True
    assert seamless.deliver(first, 1) == "acknowledged"
    # THEN the other two are woken: queued at once, for their second attempt
    woken = [(m["transaction_id"], m["attempt"], m["delay"]) for m in queued]
    assert sorted(woken) == sorted([(second, 1, 0), (third, 1, 0)])
    # WHEN the second one gets through too, before the third's message came
    assert seamless.deliver(second, 1) == "acknowledged"
    # THEN the third is not queued again: it was woken already, and its message is on its way
    assert len(queued) == 2
    assert seamless.deliver(third, 1) == "acknowledged"
    # AND the third's own delayed message, when it comes, sends nothing
    assert seamless.deliver(third, 1) == "acknowledged" and wallet.sent.count(third) == 2
