"""Each patch of moto (``croupier.local.motopatch``) reproduces what AWS documents, and nothing more
(docs/local-stack.md lists them with the documentation): what the patched moto answers here is
what DynamoDB, DynamoDB Streams and EventBridge answer on AWS."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from croupier.local import motopatch
from croupier.sim.streams import passes
from tests.support.mocked import moto_mock

REGION = "us-east-1"


@pytest.fixture
def aws() -> Iterator[None]:
    motopatch.apply()
    with moto_mock():
        client = boto3.client("dynamodb", region_name=REGION)
        for name in ("a", "b"):
            client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        yield


def _put(table: str, pk: str, **extra: Any) -> dict[str, Any]:
    item = {"pk": {"S": pk}, **{k: {"N": str(v)} for k, v in extra.items()}}
    return {"Put": {"TableName": table, "Item": item}}


def _items(table: str) -> dict[str, dict[str, Any]]:
    found = boto3.client("dynamodb", region_name=REGION).scan(TableName=table)["Items"]
    return {i["pk"]["S"]: i for i in found}


def test_2_a_transaction_is_all_or_nothing_with_its_cancellation_reasons(aws: None) -> None:
    """DynamoDB: TransactWriteItems is all-or-nothing; a condition that fails cancels it with
    TransactionCanceledException, one reason per item, and writes nothing, in any table."""
    client = boto3.client("dynamodb", region_name=REGION)
    client.transact_write_items(TransactItems=[_put("a", "x", v=1), _put("b", "y", v=1)])
    with pytest.raises(ClientError) as cancelled:
        client.transact_write_items(TransactItems=[
            _put("a", "x", v=2), _put("b", "z", v=2),
            {"Put": {**_put("b", "y", v=2)["Put"], "ConditionExpression": "v = :one",
                     "ExpressionAttributeValues": {":one": {"N": "0"}}}}])
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    reasons = [r["Code"] for r in cancelled.value.response["CancellationReasons"]]
    assert reasons == ["None", "None", "ConditionalCheckFailed"]
    assert _items("a")["x"]["v"] == {"N": "1"}
    assert set(_items("b")) == {"y"} and _items("b")["y"]["v"] == {"N": "1"}


def test_1_concurrent_conditional_writes_are_serialized_as_dynamodb_serializes_them(aws: None) -> None:
    """DynamoDB: a conditional write sees every write that succeeded before it. Twenty threads
    each move a counter from the value they read: exactly one wins each value."""
    client = boto3.client("dynamodb", region_name=REGION)
    client.put_item(TableName="a", Item={"pk": {"S": "c"}, "v": {"N": "0"}})
    wins: list[int] = []
    lock = threading.Lock()

    def bump() -> None:
        mine = boto3.session.Session().client("dynamodb", region_name=REGION)
        for _ in range(30):
            seen = int(mine.get_item(TableName="a", Key={"pk": {"S": "c"}}, ConsistentRead=True)["Item"]["v"]["N"])
            try:
                mine.transact_write_items(TransactItems=[{"Update": {
                    "TableName": "a", "Key": {"pk": {"S": "c"}}, "UpdateExpression": "SET v = :next",
                    "ConditionExpression": "v = :seen",
                    "ExpressionAttributeValues": {":next": {"N": str(seen + 1)}, ":seen": {"N": str(seen)}}}}])
            except ClientError:
                continue
            with lock:
                wins.append(seen + 1)

    threads = [threading.Thread(target=bump) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    final = int(_items("a")["c"]["v"]["N"])
    assert sorted(wins) == list(range(1, final + 1))  # every value won once, none twice


def _stream_records(table: str) -> list[dict[str, Any]]:
    arn = boto3.client("dynamodb", region_name=REGION).describe_table(TableName=table)["Table"]["LatestStreamArn"]
    streams = boto3.client("dynamodbstreams", region_name=REGION)
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    return list(streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"])


def test_4_a_cancelled_transaction_leaves_no_stream_record(aws: None) -> None:
    """DynamoDB Streams records the changes that were made: a cancelled transaction made none."""
    client = boto3.client("dynamodb", region_name=REGION)
    client.transact_write_items(TransactItems=[_put("a", "x", v=1)])
    before = len(_stream_records("a"))
    with pytest.raises(ClientError):
        client.transact_write_items(TransactItems=[
            _put("a", "w", v=1),
            {"Put": {**_put("a", "x", v=9)["Put"], "ConditionExpression": "attribute_not_exists(pk)"}}])
    assert len(_stream_records("a")) == before
    client.transact_write_items(TransactItems=[_put("a", "w", v=1)])
    records = _stream_records("a")
    assert len(records) == before + 1 and records[-1]["dynamodb"]["Keys"] == {"pk": {"S": "w"}}


def test_3_an_event_reaches_an_sqs_target_whole_with_its_account(aws: None) -> None:
    """EventBridge delivers a rule's target the whole event (version, id, detail-type, source,
    account, time, region, resources, detail) when the target has no input transformation; a
    target's MessageGroupId is used as written (the local stack resolves no path in it)."""
    events, sqs = boto3.client("events", region_name=REGION), boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.create_event_bus(Name="bus")
    events.put_rule(Name="r", EventBusName="bus", EventPattern=json.dumps({"source": [{"prefix": "croupier."}]}))
    events.put_targets(Rule="r", EventBusName="bus", Targets=[{"Id": "q", "Arn": arn}])
    events.put_events(Entries=[{"Source": "croupier.card-reader.t1", "DetailType": "card-scanned",
                                "EventBusName": "bus", "Detail": json.dumps({"table_id": "t1"})}])
    (message,) = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1).get("Messages", [])
    body = json.loads(message["Body"])
    assert {"version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"} <= set(body)
    assert body["account"] and body["detail"] == {"table_id": "t1"}


def _live_filters() -> list[Any] | None:
    """The live function's stream filter criteria, as the template gives them to Lambda."""
    from croupier.local import template as tpl
    from croupier.local.stack import _stream_filters, project_root

    template = tpl.load(project_root() / "template.yaml")
    events = template["Resources"]["LiveFunction"]["Properties"]["Events"]
    return _stream_filters(events["GameChanges"]["Properties"])


def _record(pk: str, sk: str) -> dict[str, Any]:
    """A stream record as moto keeps it (its creation time a datetime, not yet JSON)."""
    import datetime

    return {"eventName": "MODIFY", "dynamodb": {
        "ApproximateCreationDateTime": datetime.datetime(2026, 12, 4, tzinfo=datetime.UTC), "SizeBytes": 1,
        "Keys": {"pk": {"S": pk}, "sk": {"S": sk}}, "NewImage": {"pk": {"S": pk}, "sk": {"S": sk}}}}


def test_stream_filter_criteria_pass_the_records_lambda_would_pass_and_no_other() -> None:
    # GIVEN the live function's filter criteria, read from the template
    patterns = _live_filters()
    assert patterns
    # WHEN records of each kind of item are matched as Lambda matches them (EventBridge patterns)
    passed = {(pk, sk): passes(patterns, _record(pk, sk)) for pk, sk in (
        ("ROUND#r1", "META"), ("ROUND#r1#SHARD#003", "BET#b1"), ("TABLE#t1", "META"), ("LOG#t1", "E#00000007"),
        ("LOG#t1", "HEAD"), ("ROUND#r1#PLAYER#p1", "BETS"), ("ROUND#RULES#abc", "RULES"), ("WATCH#t1", "001#c1"),
        ("CONN#c1", "META"), ("SHOE#t1#s1", "RESULTS"))}
    # THEN the items whose changes are events pass; the log's head, bet summaries, rules and screens do not
    assert [key for key, ok in passed.items() if ok] == [
        ("ROUND#r1", "META"), ("ROUND#r1#SHARD#003", "BET#b1"), ("TABLE#t1", "META"), ("LOG#t1", "E#00000007")]


def test_12_a_long_poll_of_a_fifo_queue_whose_group_is_in_flight_waits_without_spinning(aws: None) -> None:
    """SQS: a FIFO queue gives no message of a group while a batch of that group is in flight, and
    a long poll (``WaitTimeSeconds``) returns as soon as a message can be received (*Amazon SQS
    Developer Guide: FIFO queue delivery logic; Amazon SQS short and long polling*)."""
    from moto.sqs.models import Queue

    sqs = boto3.client("sqs", region_name=REGION)
    url = sqs.create_queue(QueueName="pushes.fifo", Attributes={
        "FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
    for body in ("a1", "a2"):
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId="a")
    in_flight = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1)["Messages"]
    assert [m["Body"] for m in in_flight] == ["a1"]
    looks = [0]
    wait = Queue.wait_for_messages

    def counted(self: Any, timeout: int) -> None:
        looks[0] += 1
        wait(self, timeout)

    Queue.wait_for_messages = counted  # type: ignore[method-assign]
    try:
        # WHEN the queue is long-polled while group a's first message is in flight
        held = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        quiet_looks = looks[0]
        # AND long-polled again while another group's message is sent during the poll
        later = threading.Timer(0.2, lambda: sqs.send_message(QueueUrl=url, MessageBody="b1", MessageGroupId="b"))
        later.start()
        other = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=5)
        later.join()
    finally:
        Queue.wait_for_messages = wait  # type: ignore[method-assign]
    # THEN the first poll gave nothing, having looked about once every HELD_BACK_WAIT (moto alone
    # looked tens of thousands of times in that second)
    assert held.get("Messages", []) == []
    assert quiet_looks <= 2 / motopatch.HELD_BACK_WAIT, quiet_looks
    # AND the second gave the other group's message, not group a's next one
    assert [m["Body"] for m in other.get("Messages", [])] == ["b1"]
    # AND once the batch in flight is deleted, group a's next message is given
    sqs.delete_message(QueueUrl=url, ReceiptHandle=in_flight[0]["ReceiptHandle"])
    after = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
    assert [m["Body"] for m in after["Messages"]] == ["a2"]
