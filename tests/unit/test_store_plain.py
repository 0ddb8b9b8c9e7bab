"""The live function reads a stream record's images in one pass (``store.plain_image``). It must give
what Powertools' stream record gives (``record.dynamodb.new_image``, numbers as ``Decimal``) once
``store.plain`` has made its numbers integers, as the function read them before."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from boto3.dynamodb.types import TypeSerializer
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier.app import store

ROOT = Path(__file__).resolve().parents[2]
SERIALIZER = TypeSerializer()

# what the application stores: strings, flags, nulls, integers within DynamoDB's 38 digits,
# maps and lists of them
scalars = st.one_of(st.text(max_size=8), st.booleans(), st.none(),
                    st.integers(min_value=-(10 ** 38) + 1, max_value=10 ** 38 - 1))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                      max_leaves=20)
images = st.dictionaries(st.text(min_size=1, max_size=6), values, min_size=1, max_size=6)


def through_powertools(image: dict[str, Any]) -> Any:
    record = DynamoDBRecord({"eventID": "1", "eventName": "MODIFY",
                             "dynamodb": {"NewImage": image, "SequenceNumber": "1"}})
    assert record.dynamodb is not None
    return store.plain(record.dynamodb.new_image)


def typed(item: dict[str, Any]) -> dict[str, Any]:
    return {name: SERIALIZER.serialize(value) for name, value in item.items()}


@settings(max_examples=300, deadline=None)
@given(images)
def test_an_image_reads_as_the_stream_records_deserializer_and_plain_read_it(item: dict[str, Any]) -> None:
    # GIVEN an item of what the application stores, in DynamoDB's typed form
    image = typed(item)
    # WHEN it is read in one pass
    read = store.plain_image(image)
    # THEN it is what Powertools' stream record and plain give, and the item as written
    assert read == through_powertools(image) == item
    assert all(type(a) is type(b) for a, b in zip(_leaves(read), _leaves(item), strict=True))


def test_numbers_as_dynamodb_may_write_them_read_as_plain_reads_them() -> None:
    # GIVEN numbers with an exponent or a fraction (none of ours has one), and the kinds no item of
    # ours holds (a set, a binary)
    image = {"a": {"N": "1E+2"}, "b": {"N": "-12.75"}, "c": {"N": "0"}, "d": {"NS": ["1", "2"]},
             "e": {"SS": ["x"]}, "f": {"B": b"\x01"}, "g": {"L": [{"N": "3"}, {"NULL": True}]}}
    # WHEN the image is read in one pass, THEN it is what the two steps give
    read = store.plain_image(image)
    assert read == through_powertools(image)
    assert read["a"] == 100 and read["b"] == -12 and read["d"] == {Decimal(1), Decimal(2)}


def test_the_sample_stream_records_read_as_before() -> None:
    # GIVEN the stream events the live function is invoked with in the samples
    for path in sorted((ROOT / "events").glob("live-*.json")):
        for record in json.loads(path.read_text())["Records"]:
            for name in ("OldImage", "NewImage"):
                image = record["dynamodb"].get(name)
                if image:
                    # THEN each image reads as Powertools' record and plain read it
                    assert store.plain_image(image) == through_powertools(image), (path.name, name)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, list):
        return [leaf for inner in value for leaf in _leaves(inner)]
    return [value]
