"""The live function takes its stream batch in order: once a record fails, the ones after it are held
back for the stream's retry, which starts at the failed one; and it tells the bus of a change once
its pushes are queued (``functions/live/app.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.sim.memory import Context, function_handler

ROOT = Path(__file__).resolve().parents[2]


def change(sequence: str) -> dict[str, Any]:
    """A stream record of a change of one round item."""
    keys = {"pk": {"S": "ROUND#r1"}, "sk": {"S": "META"}}
    return {"eventID": f"e{sequence}", "eventName": "MODIFY", "eventSource": "aws:dynamodb",
            "dynamodb": {"Keys": keys, "NewImage": keys, "OldImage": keys, "SequenceNumber": sequence,
                         "StreamViewType": "NEW_AND_OLD_IMAGES"}}


def test_the_changes_after_one_that_failed_are_held_back_for_the_streams_retry(monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    # GIVEN the live function in an environment of its own, whose second change of a round fails
    # (its push messages not queued)
    handler = function_handler(ROOT, "live", environment=9)
    module = sys.modules["croupier_sim_function_live_9"]
    handled: list[str] = []

    def handle(record: Any, reach: Any = None) -> dict[str, Any]:
        handled.append(record.dynamodb.sequence_number)
        if record.dynamodb.sequence_number == "200":
            raise RuntimeError("2 of 2 push messages not queued")
        return {"events": 1}

    monkeypatch.setattr(module, "handle", handle)
    # WHEN a batch of four changes comes
    answer = handler({"Records": [change(n) for n in ("100", "200", "300", "400")]}, Context("live"))
    # THEN the two after the failed one are not handled (their events neither published nor pushed
    # before the failed one's), and all three are reported: the stream hands them again, in order
    assert handled == ["100", "200"]
    assert answer == {"batchItemFailures": [{"itemIdentifier": n} for n in ("200", "300", "400")]}
    # AND a batch whose first change fails is retried whole
    handled.clear()
    with pytest.raises(Exception, match="All records failed"):
        handler({"Records": [change(n) for n in ("200", "300")]}, Context("live"))
    assert handled == ["200"]


def test_a_change_whose_pushes_were_not_all_queued_is_told_to_the_bus_once_they_are(monkeypatch: pytest.MonkeyPatch
                                                                                    ) -> None:
    from croupier.app import alerts, push

    # GIVEN the live function, and SQS that takes a change's push messages only at the second try
    handler = function_handler(ROOT, "live", environment=9)
    module = sys.modules["croupier_sim_function_live_9"]
    event = {"type": "round-resumed", "table_id": "bac-1", "round_id": "r1", "seq": 3}
    monkeypatch.setattr(module, "events_of", lambda old, new, at: [dict(event)])
    queued: list[str] = []

    def fan_out(table_id: str, events: list[dict[str, Any]], message: str | None = None, reach: Any = None) -> int:
        queued.append(str(message))
        if len(queued) == 1:
            raise push.NotQueued([{"Code": "InternalError"}], 1)
        return 1

    published: list[list[dict[str, Any]]] = []
    monkeypatch.setattr(push, "fan_out", fan_out)
    monkeypatch.setattr(alerts, "publish_all", lambda events: published.append(events) or len(events))
    # WHEN the stream hands the change (its batch's one record fails: the stream retries the batch),
    # then again
    with pytest.raises(Exception, match="All records failed"):
        handler({"Records": [change("100")]}, Context("live"))
    assert handler({"Records": [change("100")]}, Context("live")) == {"batchItemFailures": []}
    # THEN its pushes were queued twice, with the same message id, and the bus was told once
    assert len(queued) == 2 and queued[0] == queued[1]
    assert published == [[event]]
