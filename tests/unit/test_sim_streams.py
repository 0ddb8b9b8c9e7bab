"""A table's stream delivered to a function as Lambda delivers it (``croupier.sim.streams``), from
the in-memory DynamoDB's records: each item's records in commit order, other items' in an order
the seed draws, filter criteria, partial batch failures, bisection and the failure destination."""

from __future__ import annotations

import random
from typing import Any

from croupier.sim.dynamo import FakeDynamo
from croupier.sim.streams import StreamMapping

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]


def written(changes: list[tuple[str, str, int]]) -> list[dict[str, Any]]:
    """The stream records of these puts (pk, sk, value), in the order made."""
    dynamo = FakeDynamo("us-east-1")
    table = dynamo.create_table(
        TableName="game", BillingMode="PAY_PER_REQUEST", KeySchema=KEYS,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    for pk, sk, value in changes:
        table.put_item(Item={"pk": pk, "sk": sk, "v": value})
    return dynamo.take_records("game")


def values(batches: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(r["dynamodb"]["Keys"]["pk"]["S"], int(r["dynamodb"]["NewImage"]["v"]["N"]))
            for event in batches for r in event["Records"]]


def test_each_items_records_arrive_in_order_and_the_seed_draws_the_rest() -> None:
    # GIVEN four items, each written five times in turn
    records = written([(f"ROUND#{i}", "META", n) for n in range(5) for i in range(4)])

    def deliver(seed: int) -> list[tuple[str, int]]:
        seen: list[dict[str, Any]] = []
        mapping = StreamMapping(lambda event: seen.append(event), random.Random(seed), batch_size=2)
        mapping.add(records)
        mapping.drain()
        return values(seen)

    # WHEN they are delivered
    first = deliver(1)
    # THEN every record once; each item's in the order written; the interleaving is the seed's
    assert sorted(first) == sorted((f"ROUND#{i}", n) for n in range(5) for i in range(4))
    for i in range(4):
        assert [v for pk, v in first if pk == f"ROUND#{i}"] == list(range(5))
    assert deliver(1) == first
    assert any(deliver(seed) != first for seed in range(2, 8))


def test_the_filter_criteria_drop_what_no_pattern_matches() -> None:
    records = written([("ROUND#1", "META", 1), ("LOG#t", "HEAD", 2), ("LOG#t", "E#00000001", 3)])
    seen: list[dict[str, Any]] = []
    pattern = '{"dynamodb": {"Keys": {"sk": {"S": ["META", {"prefix": "E#"}]}}}}'
    mapping = StreamMapping(lambda event: seen.append(event), random.Random(1), filters=[pattern])
    mapping.add(records)
    mapping.drain()
    assert sorted(values(seen)) == [("LOG#t", 3), ("ROUND#1", 1)]


def test_a_pattern_beyond_the_keys_is_matched_on_the_whole_record() -> None:
    # the keys alone are looked at only when every pattern looks at nothing else
    records = written([("ROUND#1", "META", 1), ("ROUND#2", "META", 2)])
    seen: list[dict[str, Any]] = []
    on_keys = '{"dynamodb": {"Keys": {"sk": {"S": ["META"]}}}}'
    on_image = '{"dynamodb": {"NewImage": {"v": {"N": ["2"]}}, "Keys": {"sk": {"S": ["META"]}}}}'
    mapping = StreamMapping(lambda event: seen.append(event), random.Random(1), filters=[on_keys, on_image])
    mapping.add(records)
    mapping.drain()
    assert sorted(values(seen)) == [("ROUND#1", 1), ("ROUND#2", 2)]
    seen.clear()
    mapping = StreamMapping(lambda event: seen.append(event), random.Random(1), filters=[on_image])
    mapping.add(records)
    mapping.drain()
    assert values(seen) == [("ROUND#2", 2)]


def test_a_reported_failure_delivers_the_batch_again_from_that_record() -> None:
    # GIVEN one item written four times, and a function that fails the third record once
    records = written([("ROUND#1", "META", n) for n in range(4)])
    third = records[2]["dynamodb"]["SequenceNumber"]
    failed: list[str] = []

    def function(event: dict[str, Any]) -> dict[str, Any]:
        ids = [r["dynamodb"]["SequenceNumber"] for r in event["Records"]]
        if third in ids and not failed:
            failed.append(third)
            return {"batchItemFailures": [{"itemIdentifier": third}]}
        return {"batchItemFailures": []}

    mapping = StreamMapping(function, random.Random(1), batch_size=10)
    mapping.add(records)
    mapping.drain()
    # THEN the first two were delivered once, the rest twice, from the failed one on
    sequence = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert mapping.delivered == [sequence, sequence[2:]]


def test_a_batch_that_keeps_failing_is_halved_then_sent_to_the_failure_destination() -> None:
    # GIVEN a function that fails on one poisoned record, batches of 4, two retries, bisection
    records = written([("ROUND#1", "META", n) for n in range(6)])
    poisoned = records[0]["dynamodb"]["SequenceNumber"]
    lost: list[dict[str, Any]] = []

    def function(event: dict[str, Any]) -> None:
        if any(r["dynamodb"]["SequenceNumber"] == poisoned for r in event["Records"]):
            raise RuntimeError("poisoned")

    mapping = StreamMapping(function, random.Random(1), batch_size=4, max_retries=2, on_failure=lost.append)
    mapping.add(records)
    mapping.drain()
    # THEN the batch was tried at 4, 2 and 1 records; the poisoned record alone went to the
    # destination; every other record was delivered, in order
    assert [len(b) for b in mapping.delivered] == [4, 2, 1, 4, 1]
    assert lost == [{"StartSequenceNumber": poisoned, "EndSequenceNumber": poisoned, "BatchSize": 1}]
    assert [s for b in mapping.delivered[3:] for s in b] == [r["dynamodb"]["SequenceNumber"] for r in records[1:]]
    assert mapping.pending() == 0
