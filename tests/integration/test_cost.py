"""``croupier cost`` on the local stack: a round's bill is counted from the calls the round made,
the same round again with more viewers costs more only where viewers cost, and an idle stack's
schedules are not a round's."""

from __future__ import annotations

import time

from croupier.local import cost
from croupier.local.meter import Meter
from croupier.local.stack import LocalStack


def test_a_baccarat_round_and_the_same_round_watched_by_more_viewers(stack: LocalStack) -> None:
    # GIVEN a Baccarat table where 3 players place 7 bets; WHEN the same round (same cards) is
    # played with 1 viewer and then with 4
    lines: list[str] = []
    low, high = cost.play(stack, ("baccarat",), (1, 4), out=lines.append, prefix="costit-")
    # THEN both settled, on the same cards, through the same few states of the workflow: the same
    # transitions, but for the three of each wait for a card, which come from when the dealer's
    # cards were recorded against when the workflow looked for them (a loaded machine), not viewers
    assert (low.status, high.status) == ("settled", "settled")
    assert low.bets == 7 and low.cards == high.cards >= 4
    assert low.transitions <= 10 and high.transitions <= 10
    assert low.transitions - 3 * low.card_waits == high.transitions - 3 * high.card_waits
    # the requests are the players' three bet requests, the console's opening, the supervisor's read
    assert low.rest_requests == high.rest_requests == 5
    assert low.invocations_by_function["BetsFunction"] == 3
    assert low.invocations_by_function["SettlementFunction"] >= 1
    # every card scanned is an event on the bus, put on the table events queue
    assert low.events >= low.cards and low.sqs_standard >= low.events
    # each bet is written in a transaction (2 units an item at least), and reads were made
    assert low.write_units >= 2 * low.bets and low.read_units > 0
    # three more viewers get their messages: at least the round's opening, close and settlement each
    assert high.websocket_messages - low.websocket_messages >= 3 * 3
    # the four viewers share one slot: the pushes are one viewer's, give or take how the queue
    # happens to batch its messages, never four times as many
    pushes_low, pushes_high = (bill.invocations_by_function.get("PushFunction", 0) for bill in (low, high))
    assert 0 < pushes_high <= 2 * pushes_low
    assert len(lines) == 2 and all("settled" in line for line in lines)
    # AND the price of 1,000 rounds grows with viewers, the workflow's share does not
    at_1, at_10k = cost.per_thousand(low, high, 1), cost.per_thousand(low, high, 10_000)
    assert sum(at_10k.values()) > sum(at_1.values()) > 0
    assert at_10k["Step Functions"] == at_1["Step Functions"] > 0


def test_an_idle_stack_bills_no_round(stack: LocalStack) -> None:
    # GIVEN the stack with nothing in play (its scheduled functions still tick)
    cost.quiet(stack)
    # WHEN it is metered for a few of the schedules' periods
    with Meter(stack) as meter:
        time.sleep(3.5)
    # THEN nothing was billed to a round
    usage = meter.usage
    assert usage.invocations == 0 and usage.write_units == 0 and usage.read_units == 0
    assert usage.events == 0 and sum(usage.sqs_requests.values()) == 0
