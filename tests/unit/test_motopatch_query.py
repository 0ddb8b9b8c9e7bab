"""The local stack's moto answers a query from the asked partition alone (motopatch 5): the same
items, in the same order, page by page, as DynamoDB's query; an index's query still finds its
items across every partition."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from croupier.local import motopatch
from tests.support.mocked import moto_mock


@pytest.fixture
def table() -> Iterator[Any]:
    motopatch.apply()
    with moto_mock():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        made = resource.create_table(
            TableName="t", BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "g", "gs")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            GlobalSecondaryIndexes=[{"IndexName": "by-g", "Projection": {"ProjectionType": "ALL"},
                                     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                   {"AttributeName": "gs", "KeyType": "RANGE"}]}])
        with made.batch_writer() as batch:
            for p in range(20):
                for s in range(15):
                    item = {"pk": f"P{p:02d}", "sk": f"S{(s * 7) % 15:02d}"}
                    if s % 4 == 0:
                        item.update(g=f"G{s % 3}", gs=f"{p:02d}-{s:02d}")
                    batch.put_item(Item=item)
        yield made


def _sks(items: list[dict[str, Any]]) -> list[str]:
    return [i["sk"] for i in items]


def test_a_partition_in_key_order_both_ways(table: Any) -> None:
    every = [f"S{s:02d}" for s in range(15)]
    forward = table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P07"})["Items"]
    assert _sks(forward) == every and {i["pk"] for i in forward} == {"P07"}
    back = table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P07"},
                       ScanIndexForward=False)["Items"]
    assert _sks(back) == every[::-1]


def test_a_range_condition_and_pages(table: Any) -> None:
    found = table.query(KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b",
                        ExpressionAttributeValues={":p": "P03", ":a": "S04", ":b": "S09"})["Items"]
    assert _sks(found) == ["S04", "S05", "S06", "S07", "S08", "S09"]
    pages, start = [], None
    while True:
        kwargs: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        page = table.query(KeyConditionExpression="pk = :p AND begins_with(sk, :s)", Limit=4,
                           ExpressionAttributeValues={":p": "P03", ":s": "S1"}, **kwargs)
        pages.append(_sks(page["Items"]))
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    assert [sk for page in pages for sk in page] == ["S10", "S11", "S12", "S13", "S14"]
    assert pages[0] == ["S10", "S11", "S12", "S13"]


def test_a_partition_that_is_not_there(table: Any) -> None:
    answer = table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "nobody"})
    assert answer["Items"] == [] and answer["Count"] == 0


def test_an_index_finds_its_items_in_every_partition_in_its_key_order(table: Any) -> None:
    found = table.query(IndexName="by-g", KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": "G0"})
    wanted = sorted(f"{p:02d}-{s:02d}" for p in range(20) for s in range(15) if s % 4 == 0 and s % 3 == 0)
    assert [i["gs"] for i in found["Items"]] == wanted


def test_a_scan_still_reads_every_item(table: Any) -> None:
    assert table.scan(Select="COUNT")["Count"] == 300
