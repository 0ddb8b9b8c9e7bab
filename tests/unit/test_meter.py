"""The meter counts what AWS bills: DynamoDB's item sizes and request units, each index's writes,
a refused write, Lambda's billed milliseconds, queues by kind, and what is not a round's."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from croupier.local import iam
from croupier.local.meter import (
    Index,
    Meter,
    index_write_units,
    item_size,
    read_units,
    value_size,
    write_units,
)
from tests.support.mocked import moto_mock


# --- sizes and units, by DynamoDB's rules ------------------------------------------------------
def test_sizes_follow_dynamodbs_rules() -> None:
    assert value_size({"S": "héllo"}) == 6  # UTF-8 bytes
    assert value_size({"N": "12345"}) == 4  # 5 significant digits: 3 bytes, plus 1
    assert value_size({"N": "1000"}) == 2  # trailing zeros are not significant
    assert value_size({"N": "0"}) == 2
    assert value_size({"BOOL": True}) == 1 and value_size({"NULL": True}) == 1
    assert value_size({"M": {"a": {"S": "xy"}}}) == 3 + 1 + 2 + 1
    assert value_size({"L": [{"S": "ab"}, {"N": "7"}]}) == 3 + (2 + 1) + (2 + 1)
    assert item_size({"pk": {"S": "T#1"}, "n": {"N": "12"}}) == 2 + 3 + 1 + 2
    assert item_size(None) == 0
    with pytest.raises(ValueError, match="not a DynamoDB attribute value"):
        value_size({"X": 1})


def test_units_round_up_per_kilobyte_written_and_four_kilobytes_read() -> None:
    assert write_units(1) == 1 and write_units(1024) == 1 and write_units(1025) == 2
    assert write_units(1025, transactional=True) == 4
    assert read_units(4096, consistent=True) == 1 and read_units(4097, consistent=True) == 2
    assert read_units(100, consistent=False) == 0.5
    assert read_units(0, consistent=True) == 1  # a read that finds nothing is still a read
    assert read_units(5000, consistent=True, transactional=True) == 4


def test_an_index_is_written_only_when_what_it_holds_changes() -> None:
    keys = ("pk", "sk")
    everything = Index("by-player", ("g",), "ALL")
    just_keys = Index("due", ("g",), "KEYS_ONLY")
    old = {"pk": {"S": "a"}, "sk": {"S": "b"}, "g": {"S": "p1"}, "x": {"S": "1"}}
    changed = {**old, "x": {"S": "2" * 2000}}
    moved = {**old, "g": {"S": "p2"}}
    unindexed = {k: v for k, v in old.items() if k != "g"}
    assert index_write_units(everything, keys, old, changed) == 2  # the whole item, now 2 KB
    assert index_write_units(just_keys, keys, old, changed) == 0  # its keys did not change
    assert index_write_units(just_keys, keys, old, moved) == 2  # a delete and a put
    assert index_write_units(everything, keys, None, old) == 1  # enters the index
    assert index_write_units(everything, keys, old, unindexed) == 1  # leaves it
    assert index_write_units(everything, keys, unindexed, unindexed) == 0


# --- the meter on DynamoDB, SQS and Lambda ------------------------------------------------------
@pytest.fixture(autouse=True)
def no_session_recorder(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests act as functions on a fake table: not calls the least-privilege check of a test
    session (which records while the local stack's tests run) should hold against real roles."""
    monkeypatch.setattr(iam.Recorder, "_active", None)


def fake_stack() -> Any:
    """What the meter reads of a local stack: names, schedules, routes, memory, observers."""
    return SimpleNamespace(
        logical_ids={"fn-bets": "BetsFunction", "fn-tick": "TickFunction", "fn-push": "PushFunction"},
        _schedules=["fn-tick"], routes=[SimpleNamespace(function="fn-bets")], observers=[],
        template={"Globals": {"Function": {"MemorySize": 512}},
                  "Resources": {"BetsFunction": {"Type": "AWS::Serverless::Function", "Properties": {}},
                                "PushFunction": {"Type": "AWS::Serverless::Function",
                                                 "Properties": {"MemorySize": 1024}}}})


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Any:
    for name, value in {"AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
                        "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with moto_mock():
        boto3.client("dynamodb").create_table(
            TableName="game", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "g")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{"IndexName": "by-player", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}])
        yield boto3.resource("dynamodb").Table("game")


def test_writes_and_reads_are_billed_by_size_index_and_consistency(aws: Any) -> None:
    # GIVEN a meter running while a function writes and reads through boto3's resource layer
    table = aws
    with Meter(fake_stack()) as meter, iam.acting_as("BetsFunction"):
        # WHEN it puts an item of about 3 KB that its index holds, then reads it both ways
        table.put_item(Item={"pk": "R#1", "sk": "a", "g": "P#ana", "blob": "x" * 3000})
        table.get_item(Key={"pk": "R#1", "sk": "a"}, ConsistentRead=True)
        table.get_item(Key={"pk": "R#1", "sk": "a"})
        # and a transaction rewrites it smaller, out of the index
        client = table.meta.client
        client.transact_write_items(TransactItems=[{"Put": {"TableName": "game",
                                                           "Item": {"pk": "R#1", "sk": "a", "blob": "y"}}}])
    usage = meter.usage
    # THEN the put is 3 units in the table and 3 in the index; the transaction 2 x 3 (the larger of
    # before and after) and 3 for leaving the index (the function's own, and its item's: a local
    # stack's functions may write beside it in this process, a screen's disconnection say)
    assert usage.ddb_write_units["BetsFunction"] == 3 + 3 + 6 + 3
    assert usage.ddb_write_units_by_item["R/a"] == 15  # by its keys' prefixes
    # the strongly consistent read 1 unit, the eventually consistent one half
    assert usage.ddb_read_units["BetsFunction"] == 1.5
    # (its own requests)
    assert usage.ddb_requests_by_caller["BetsFunction"] == Counter({"PutItem": 1, "GetItem": 2,
                                                                     "TransactWriteItems": 1})
    assert usage.ddb_requests >= usage.ddb_requests_by_caller["BetsFunction"]


def test_a_write_refused_by_its_condition_is_billed_and_the_meters_reads_are_nobodys(aws: Any) -> None:
    table = aws
    recorder = iam.Recorder(iam.Naming("us-east-1", "123456789012", {"game": {None: "pk"}})).enable()
    try:
        with Meter(fake_stack()) as meter, iam.acting_as("BetsFunction"):
            table.put_item(Item={"pk": "R#2", "sk": "a"})
            with pytest.raises(table.meta.client.exceptions.ConditionalCheckFailedException):
                table.put_item(Item={"pk": "R#2", "sk": "a"}, ConditionExpression="attribute_not_exists(pk)")
    finally:
        recorder.disable()
    assert meter.usage.ddb_write_units["BetsFunction"] == 2
    # the function's role is asked for its two writes; never for the meter's own reads (made while
    # it acts as the function); a local stack's scheduled functions may run beside it in this process
    asked = [c.action for c in recorder.calls.elements() if c.function == "BetsFunction"]
    assert sorted(asked) == ["dynamodb:PutItem", "dynamodb:PutItem"]


def test_queues_events_and_screens_are_counted_by_kind(aws: Any) -> None:
    sqs = boto3.client("sqs")
    fifo = sqs.create_queue(QueueName="push.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    standard = sqs.create_queue(QueueName="outbox")["QueueUrl"]
    stack = fake_stack()
    with Meter(stack) as meter:
        with iam.acting_as("BetsFunction"):
            sqs.send_message(QueueUrl=fifo, MessageBody="x" * 70_000, MessageGroupId="g", MessageDeduplicationId="1")
            sqs.send_message_batch(QueueUrl=standard, Entries=[{"Id": str(i), "MessageBody": "y"} for i in range(3)])
        sqs.send_message(QueueUrl=standard, MessageBody="a client's send: not a function's")
        with iam.acting_as("PushFunction"):
            meter._count_other("PushFunction", "apigatewaymanagementapi", "PostToConnection",
                               {"ConnectionId": "c", "Data": b"z" * (40 * 1024)})
        meter._count_other("outside", "events", "PutEvents", {"Entries": [{"Detail": "{}"}, {"Detail": "{}"}]})
    usage = meter.usage
    assert usage.sqs_requests["fifo"] == 2  # 70,000 bytes: two 64 KB chunks
    assert usage.sqs_requests["standard"] == 1 + 2  # the batch, and the rule's two deliveries of the events
    assert usage.events == 2
    assert usage.websocket_messages == 2  # 40 KB: two 32 KB units
    assert usage.websocket_posts_by_function == Counter({"PushFunction": 1})


def test_invocations_are_billed_per_millisecond_at_their_memory_and_schedules_are_left_out() -> None:
    stack = fake_stack()
    with Meter(stack) as meter:
        for observe in stack.observers:
            observe("fn-bets", {"body": "{}"}, 0.0304)  # a REST request
            observe("fn-push", {"Records": [{"eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:x:1:push.fifo"}]},
                    0.010)
            observe("fn-tick", {"source": "aws.events"}, 5.0)  # its schedule, not the round
    usage = meter.usage
    assert usage.lambda_invocations == Counter({"BetsFunction": 1, "PushFunction": 1})
    assert usage.lambda_ms == Counter({"BetsFunction": 31, "PushFunction": 10})
    assert usage.lambda_gb_seconds == pytest.approx(0.031 * 0.5 + 0.010 * 1.0)
    assert usage.rest_requests == 1
    assert usage.sqs_requests == Counter({"fifo": 2})  # Lambda's receive and delete of the batch


def test_one_meter_at_a_time() -> None:
    with Meter(fake_stack()), pytest.raises(RuntimeError, match="already running"), Meter(fake_stack()):
        pass
