"""The in-memory DynamoDB (``croupier.sim.dynamo``) held to a contract: every scenario runs against
moto (boto3's resource under ``mock_aws``) and against the stand-in, with the same assertions on
what a caller observes (the items returned, the error codes and messages, the cancellation reasons,
the pages, the stream's records), so that the stand-in cannot drift from what the application's
other tests run on. Where moto departs from DynamoDB's documentation the stand-in follows the
documentation: those assertions run on the stand-in alone, and say what moto does instead."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal, Inexact, Rounded
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from boto3.dynamodb.types import Binary
from botocore.exceptions import ClientError, ParamValidationError

from croupier.sim.dynamo import MAX_ITEM_BYTES, WRITES, FakeDynamo, Unsupported, in_flight
from tests.support.mocked import moto_mock

REGION = "us-east-1"
KEY_SCHEMA = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
INDEX_KEYS = [{"AttributeName": "gsi1pk", "KeyType": "HASH"}, {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]


@pytest.fixture(params=["moto", "fake"])
def dynamo(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``boto3.resource("dynamodb")`` under moto, or the stand-in."""
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    if request.param == "fake":
        yield FakeDynamo(REGION)
        return
    with moto_mock():
        yield boto3.resource("dynamodb", region_name=REGION)


def fake(dynamo: Any) -> bool:
    return isinstance(dynamo, FakeDynamo)


def game_table(dynamo: Any) -> Any:
    """A table shaped like the application's game table: ``pk``/``sk``, a stream of both images, the
    index ``by-player`` (``gsi1pk``/``gsi1sk``, every attribute) and ``slim`` on the same keys
    (the keys and ``amount``)."""
    return dynamo.create_table(
        TableName="game", BillingMode="PAY_PER_REQUEST", KeySchema=KEY_SCHEMA,
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "gsi1pk", "gsi1sk")],
        GlobalSecondaryIndexes=[
            {"IndexName": "by-player", "KeySchema": INDEX_KEYS, "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "slim", "KeySchema": INDEX_KEYS,
             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["amount"]}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})


def numbers_table(dynamo: Any) -> Any:
    """A table whose sort key is a number."""
    return dynamo.create_table(
        TableName="numbers", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "n", "AttributeType": "N"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}])


def refusal(call: Callable[[], Any]) -> dict[str, Any]:
    """The error response of a call that DynamoDB refuses."""
    with pytest.raises(ClientError) as caught:
        call()
    return dict(caught.value.response)


def error(call: Callable[[], Any]) -> tuple[str, str]:
    response = refusal(call)
    return response["Error"]["Code"], response["Error"]["Message"]


def stream(dynamo: Any, table: str) -> list[dict[str, Any]]:
    """The table's stream records so far: the stand-in's, or read from moto's stream as a consumer
    reads a shard from its start."""
    if fake(dynamo):
        return list(dynamo.records(table))
    streams = boto3.client("dynamodbstreams", region_name=REGION)
    arn = dynamo.meta.client.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    return list(streams.get_records(ShardIterator=iterator, Limit=1000)["Records"])


def changes(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a stream's records say: the event, the key, the images before and after."""
    return [(r["eventName"], r["dynamodb"]["Keys"], r["dynamodb"].get("OldImage"), r["dynamodb"].get("NewImage"))
            for r in records]


def pages(call: Callable[..., dict[str, Any]], **params: Any) -> list[dict[str, Any]]:
    """Every page of a query or a scan, each starting after the last one's ``LastEvaluatedKey``."""
    out = []
    while True:
        page = call(**params)
        out.append(page)
        if "LastEvaluatedKey" not in page:
            return out
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def sks(items: list[dict[str, Any]]) -> list[str]:
    return [item["sk"] for item in items]


# --- conditional writes ------------------------------------------------------------------------------


def test_a_put_on_condition_of_absence_creates_once_then_fails_its_condition(dynamo: Any) -> None:
    # GIVEN the game table, without the round's item
    table = game_table(dynamo)
    item = {"pk": "ROUND#r1", "sk": "META", "status": "betting", "version": 0}
    # WHEN the item is put twice on condition that it does not exist
    table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)")
    failed = refusal(lambda: table.put_item(Item={**item, "version": 9},
                                            ConditionExpression="attribute_not_exists(pk)"))
    # THEN the second put fails its condition, and the first item stays as it was
    assert failed["Error"] == {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert table.get_item(Key={"pk": "ROUND#r1", "sk": "META"}, ConsistentRead=True)["Item"] == item


def test_a_put_on_the_version_it_read_wins_once(dynamo: Any) -> None:
    # GIVEN a round at version 3
    table = game_table(dynamo)
    key = {"pk": "ROUND#r1", "sk": "META"}
    table.put_item(Item={**key, "version": 3, "status": "betting"})
    # WHEN two writers that both read version 3 put version 4
    table.put_item(Item={**key, "version": 4, "status": "dealing"}, ConditionExpression="version = :v",
                   ExpressionAttributeValues={":v": 3})
    code, _ = error(lambda: table.put_item(Item={**key, "version": 4, "status": "voided"},
                                           ConditionExpression="version = :v", ExpressionAttributeValues={":v": 3}))
    # THEN the first wins and the second fails its condition
    assert code == "ConditionalCheckFailedException"
    assert table.get_item(Key=key)["Item"]["status"] == "dealing"


def test_a_delete_and_an_update_on_condition(dynamo: Any) -> None:
    # GIVEN a watch item, and no connection item
    table = game_table(dynamo)
    table.put_item(Item={"pk": "WATCH#t1", "sk": "000#c1", "role": "player"})
    # WHEN the watch is deleted on condition that it exists, twice, and a missing connection is updated
    # on condition that it exists
    table.delete_item(Key={"pk": "WATCH#t1", "sk": "000#c1"}, ConditionExpression="attribute_exists(pk)")
    again = error(lambda: table.delete_item(Key={"pk": "WATCH#t1", "sk": "000#c1"},
                                            ConditionExpression="attribute_exists(pk)"))
    missing = error(lambda: table.update_item(Key={"pk": "CONN#c1", "sk": "CONN"},
                                              UpdateExpression="SET token_expires_at = :u",
                                              ConditionExpression="attribute_exists(pk)",
                                              ExpressionAttributeValues={":u": 5}))
    # THEN the first delete removed it, the second and the update failed their conditions, nothing was made
    assert again[0] == missing[0] == "ConditionalCheckFailedException"
    assert "Item" not in table.get_item(Key={"pk": "WATCH#t1", "sk": "000#c1"})
    assert "Item" not in table.get_item(Key={"pk": "CONN#c1", "sk": "CONN"})


# --- update expressions ------------------------------------------------------------------------------


def test_set_with_arithmetic_list_append_and_remove_with_each_kind_of_return_values(dynamo: Any) -> None:
    # GIVEN a wallet call with one attempt recorded, due for the outbox
    table = game_table(dynamo)
    key = {"pk": "CALL#t1", "sk": "CALL"}
    table.put_item(Item={**key, "status": "pending", "attempts": 1, "history": [{"n": 1}], "due_pk": "DUE",
                         "next_at": 100})
    # WHEN an attempt is recorded as the outbox records one, one is taken back, and the count is set to zero
    # twice, first asking for the item as it was, then for nothing
    after = table.update_item(
        Key=key, UpdateExpression="SET attempts = attempts + :one, #l = :last, history = list_append(history, :h), "
                                  "#s = :to REMOVE due_pk, next_at",
        ConditionExpression="#s = :from", ExpressionAttributeNames={"#s": "status", "#l": "last"},
        ExpressionAttributeValues={":one": 1, ":last": {"code": 500}, ":h": [{"n": 2}], ":from": "pending",
                                   ":to": "failed"},
        ReturnValues="ALL_NEW")["Attributes"]
    updated = table.update_item(Key=key, UpdateExpression="SET attempts = attempts - :one",
                                ExpressionAttributeValues={":one": 1}, ReturnValues="UPDATED_NEW")["Attributes"]
    before = table.update_item(Key=key, UpdateExpression="SET attempts = :zero", ExpressionAttributeValues={":zero": 0},
                               ReturnValues="ALL_OLD")["Attributes"]
    plain = table.update_item(Key=key, UpdateExpression="SET attempts = :zero", ExpressionAttributeValues={":zero": 0})
    # THEN each answer is the item (or its updated part) as DynamoDB gives it
    assert after == {**key, "status": "failed", "attempts": 2, "last": {"code": 500}, "history": [{"n": 1}, {"n": 2}]}
    assert updated == {"attempts": 1}
    assert before == {**after, "attempts": 1}
    assert "Attributes" not in plain
    assert isinstance(after["attempts"], Decimal)


def test_add_counts_from_zero_on_a_missing_item_and_attribute(dynamo: Any) -> None:
    # GIVEN no slot counts for a table
    table = game_table(dynamo)
    key = {"pk": "SLOTS#t1", "sk": "SLOTS"}

    def join(room: int) -> None:
        table.update_item(Key=key, UpdateExpression="ADD #s :one", ExpressionAttributeNames={"#s": "slot000"},
                          ConditionExpression="attribute_not_exists(#s) OR #s < :room",
                          ExpressionAttributeValues={":one": 1, ":room": room})

    # WHEN watchers join slot 0 while it has room for two, a third tries, and one leaves
    join(2)
    join(2)
    full = error(lambda: join(2))
    table.update_item(Key=key, UpdateExpression="ADD #s :minus", ExpressionAttributeNames={"#s": "slot000"},
                      ExpressionAttributeValues={":minus": -1})
    # THEN the item was made by the first ADD, the third was refused, and the count is 1
    assert full[0] == "ConditionalCheckFailedException"
    assert table.get_item(Key=key)["Item"] == {**key, "slot000": 1}


def test_list_append_on_if_not_exists_appends_a_shoes_result_once(dynamo: Any) -> None:
    # GIVEN no results item for a shoe
    table = game_table(dynamo)
    key = {"pk": "RESULTS#t1#s1", "sk": "RESULTS"}

    def append(round_id: str, winner: str) -> None:
        table.update_item(
            Key=key, UpdateExpression="SET results = list_append(if_not_exists(results, :none), :one), "
                                      "round_ids = list_append(if_not_exists(round_ids, :none), :id), game = :game",
            ConditionExpression="attribute_not_exists(round_ids) OR NOT contains(round_ids, :rid)",
            ExpressionAttributeValues={":none": [], ":one": [{"winner": winner}], ":id": [round_id],
                                       ":rid": round_id, ":game": "baccarat"})

    # WHEN two rounds' results are appended, the first twice
    append("r1", "banker")
    repeated = error(lambda: append("r1", "banker"))
    append("r2", "player")
    # THEN each round's result is there once, in order
    assert repeated[0] == "ConditionalCheckFailedException"
    assert table.get_item(Key=key)["Item"] == {**key, "results": [{"winner": "banker"}, {"winner": "player"}],
                                               "round_ids": ["r1", "r2"], "game": "baccarat"}


def test_a_nested_map_key_is_set_and_removed_on_conditions_of_contains_and_size(dynamo: Any) -> None:
    # GIVEN a connection that watches one table
    table = game_table(dynamo)
    key = {"pk": "CONN#c1", "sk": "CONN"}
    table.put_item(Item={**key, "tables": ["t0"], "slot_at": {"t0": 3}})

    def watch(name: str, slot: int) -> None:
        table.update_item(
            Key=key, UpdateExpression="SET tables = list_append(tables, :t), slot_at.#t = :slot",
            ConditionExpression="attribute_exists(pk) AND NOT contains(tables, :name) AND size(tables) < :max",
            ExpressionAttributeNames={"#t": name},
            ExpressionAttributeValues={":t": [name], ":name": name, ":max": 2, ":slot": slot})

    # WHEN it watches a second table, that one again, and a third over the limit of two
    watch("t1", 1)
    again = error(lambda: watch("t1", 1))
    over = error(lambda: watch("t2", 0))
    table.update_item(Key=key, UpdateExpression="REMOVE slot_at.#t, tables[0]", ExpressionAttributeNames={"#t": "t0"})
    # THEN the map gained the table's key, the repeat and the third failed, and the removal took both parts
    assert again[0] == over[0] == "ConditionalCheckFailedException"
    assert table.get_item(Key=key)["Item"] == {**key, "tables": ["t1"], "slot_at": {"t1": 1}}


def test_add_and_delete_on_sets(dynamo: Any) -> None:
    # GIVEN an item without tags
    table = game_table(dynamo)
    key = {"pk": "P", "sk": "S"}

    def update(expression: str, value: set[Any]) -> dict[str, Any]:
        table.update_item(Key=key, UpdateExpression=expression, ExpressionAttributeValues={":v": value})
        return dict(table.get_item(Key=key)["Item"])

    # WHEN tags are added, added again, and deleted until none is left; and a number set is added to
    first = update("ADD tags :v", {"red", "blue"})
    union = update("ADD tags :v", {"blue", "green"})
    fewer = update("DELETE tags :v", {"red", "green"})
    gone = update("DELETE tags :v", {"blue"})
    numbers = update("ADD seats :v", {1, 2})
    # THEN the sets are unions and differences, and an emptied set is no attribute at all
    assert first["tags"] == {"red", "blue"}
    assert union["tags"] == {"red", "blue", "green"}
    assert fewer["tags"] == {"blue"}
    assert "tags" not in gone
    assert numbers["seats"] == {Decimal(1), Decimal(2)}


def test_updates_dynamodb_refuses(dynamo: Any) -> None:
    # GIVEN an item with a number and a map
    table = game_table(dynamo)
    key = {"pk": "P", "sk": "S"}
    table.put_item(Item={**key, "n": 1, "m": {"a": 1}})

    def update(expression: str, **values: Any) -> tuple[str, str]:
        extra = {"ExpressionAttributeValues": {f":{k}": v for k, v in values.items()}} if values else {}
        return error(lambda: table.update_item(Key=key, UpdateExpression=expression, **extra))

    # WHEN updates read a missing attribute, change a key, overlap, set under a missing map, append to a number
    missing = update("SET tally = absent + :one", one=1)
    key_change = update("SET pk = :x", x="Q")
    overlap = update("SET m = :x REMOVE m", x=1)
    nested_overlap = update("SET m = :x, m.a = :y", x={}, y=2)
    no_parent = update("SET nowhere.deeper = :x", x=1)
    not_a_list = update("SET n = list_append(n, :l)", l=[1])
    # THEN each is refused with DynamoDB's message, and the item is unchanged
    assert missing == ("ValidationException",
                       "The provided expression refers to an attribute that does not exist in the item")
    assert key_change == ("ValidationException", "One or more parameter values were invalid: Cannot update attribute "
                                                 "pk. This attribute is part of the key")
    assert overlap[0] == nested_overlap[0] == "ValidationException"
    assert "Two document paths overlap with each other" in overlap[1]
    assert nested_overlap[1].endswith("path one: [m], path two: [m, a]")
    assert no_parent == ("ValidationException",
                         "The document path provided in the update expression is invalid for update")
    assert not_a_list == ("ValidationException", "Invalid UpdateExpression: Incorrect operand type for operator or "
                                                 "function; operator or function: list_append, operand type: N")
    assert table.get_item(Key=key)["Item"] == {**key, "n": 1, "m": {"a": 1}}


# --- conditions ------------------------------------------------------------------------------------

CONDITION_ITEM = {
    "pk": "P", "sk": "S", "status": "betting", "n": 7, "big": Decimal("12345678901234567890"), "name": "Ünïcode",
    "flag": True, "nothing": None, "tags": {"red", "blue"}, "nums": {1, 2}, "letters": ["a", "b", 3],
    "doc": {"inside": {"deep": 5}, "k": "v"}, "bin": b"\x01\x02"}
CONDITION_VALUES: dict[str, Any] = {
    ":one": 1, ":two": 2, ":three": 3, ":five": 5, ":six": 6, ":seven": 7, ":eight": 8, ":ten": 10,
    ":betting": "betting", ":closed": "closed", ":b": "b", ":z": "z", ":U": "Ü", ":ni": "nï", ":red": "red",
    ":true": True, ":null": None, ":N": "N", ":SS": "SS", ":NULL": "NULL", ":M": "M",
    ":bigger": Decimal("12345678901234567891"), ":smaller": Decimal("12345678901234567889")}
CONDITIONS = [
    ("n = :seven", True), ("n <> :seven", False), ("n < :ten", True), ("n <= :seven", True), ("n > :seven", False),
    ("n >= :eight", False), ("n BETWEEN :six AND :eight", True), ("n BETWEEN :one AND :six", False),
    ("n IN (:one, :seven)", True), ("n IN (:one, :two)", False),
    ("#s = :betting AND n > :six", True), ("#s = :closed OR n = :seven", True), ("NOT #s = :closed", True),
    ("#s = :closed AND n = :six OR n = :seven", True), ("#s = :closed AND (n = :six OR n = :seven)", False),
    ("NOT (n = :seven AND #s = :betting)", False),
    ("attribute_exists(doc.inside.deep)", True), ("attribute_exists(doc.inside.gone)", False),
    ("attribute_not_exists(absent)", True), ("attribute_not_exists(#s)", False),
    ("attribute_type(n, :N)", True), ("attribute_type(tags, :SS)", True), ("attribute_type(nothing, :NULL)", True),
    ("attribute_type(doc, :N)", False), ("attribute_type(doc, :M)", True),
    ("begins_with(#nm, :U)", True), ("begins_with(#nm, :z)", False),
    ("contains(tags, :red)", True), ("contains(tags, :b)", False), ("contains(letters, :three)", True),
    ("contains(letters, :z)", False), ("contains(#nm, :ni)", True), ("contains(nums, :one)", True),
    ("size(letters) = :three", True), ("size(doc) = :two", True), ("size(tags) = :two", True),
    ("size(bin) = :two", True),
    ("letters[1] = :b", True), ("letters[5] = :b", False), ("doc.inside.deep = :five", True), ("doc.k = :z", False),
    ("absent <> :seven", True), ("absent = :seven", False), ("flag = :true", True), ("nothing = :null", True),
    ("#nm < :z", False), ("#s < :z", True), ("big > :smaller", True), ("big < :bigger", True),
    ("big = :seven", False),
]


def test_conditions_evaluate_as_dynamodb_evaluates_them(dynamo: Any) -> None:
    # GIVEN an item with a value of every type
    table = game_table(dynamo)
    table.put_item(Item=CONDITION_ITEM)
    # WHEN an update is made on each condition
    outcomes = {}
    for expression, _ in CONDITIONS:
        names = {k: v for k, v in {"#s": "status", "#nm": "name"}.items() if k in expression}
        values = {k: v for k, v in CONDITION_VALUES.items() if re.search(re.escape(k) + r"\b", expression)}
        try:
            table.update_item(Key={"pk": "P", "sk": "S"}, UpdateExpression="SET probe = :probe",
                              ConditionExpression=expression, ExpressionAttributeValues={":probe": 1, **values},
                              **({"ExpressionAttributeNames": names} if names else {}))
            outcomes[expression] = True
        except ClientError as exc:
            assert exc.response["Error"]["Code"] == "ConditionalCheckFailedException", (expression, exc)
            outcomes[expression] = False
    # THEN each held or failed as DynamoDB's comparisons, functions and precedence say
    assert outcomes == dict(CONDITIONS)


def test_a_reserved_word_and_an_unused_name_are_refused(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    item = {"pk": "P", "sk": "S", "status": "x"}
    # WHEN a condition names a reserved word, and a request defines a name no expression uses
    reserved = error(lambda: table.put_item(Item=item, ConditionExpression="status = :s",
                                            ExpressionAttributeValues={":s": "x"}))
    unused = error(lambda: table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)",
                                          ExpressionAttributeNames={"#s": "status"}))
    # THEN both are refused, and nothing was written
    assert reserved == ("ValidationException",
                        "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status")
    assert unused[0] == "ValidationException"
    assert "unused in expressions: keys: {#s}" in unused[1]
    assert "Item" not in table.get_item(Key={"pk": "P", "sk": "S"})


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_placeholders_and_conditions_as_dynamodb_documents_them(dynamo: Any) -> None:
    """On the stand-in only: moto accepts an unused value in a put's condition, raises a KeyError for an
    undefined one, a TypeError for an ordering comparison of a string with a number, a ValueError for
    NOT NOT and for the size of a missing attribute, finds no binary beginning with another, and ignores
    a SET under a number; DynamoDB refuses the first two and the last, and evaluates the others."""
    # GIVEN an item with a number, a map and a binary
    table = game_table(dynamo)
    key = {"pk": "P", "sk": "S"}
    table.put_item(Item={**key, "n": 1, "m": {"a": 1}, "bin": b"\x01\x02"})

    def holds(condition: str, **values: Any) -> bool:
        try:
            table.update_item(Key=key, UpdateExpression="SET probe = :probe", ConditionExpression=condition,
                              ExpressionAttributeValues={":probe": 1, **{f":{k}": v for k, v in values.items()}})
        except ClientError as exc:
            assert exc.response["Error"]["Code"] == "ConditionalCheckFailedException", exc
            return False
        return True

    # WHEN a request defines a value no expression uses, uses one it does not define; conditions compare a
    # number with a string, negate twice, size a missing attribute and read a binary's beginning; an update sets
    # a key under a number
    unused = error(lambda: table.put_item(Item=key, ConditionExpression="attribute_exists(pk)",
                                          ExpressionAttributeValues={":x": 1}))
    undefined = error(lambda: table.put_item(Item=key, ConditionExpression="n = :x"))
    found = [holds("n < :x", x="a"), holds("NOT NOT n = :x", x=1), holds("size(absent) = :x", x=0),
             holds("begins_with(bin, :x)", x=b"\x01")]
    under_a_number = error(lambda: table.update_item(Key=key, UpdateExpression="SET m.a.b = :x",
                                                     ExpressionAttributeValues={":x": 1}))
    # THEN the requests are refused, the conditions evaluated, the update refused
    assert unused == ("ValidationException", "Value provided in ExpressionAttributeValues unused in expressions: "
                                             "keys: {:x}")
    assert undefined == ("ValidationException", "Invalid ConditionExpression: An expression attribute value used in "
                                                "expression is not defined; attribute value: :x")
    assert found == [False, True, False, True]
    assert under_a_number == ("ValidationException",
                              "The document path provided in the update expression is invalid for update")
    assert table.get_item(Key=key)["Item"] == {**key, "n": 1, "m": {"a": 1}, "bin": Binary(b"\x01\x02"), "probe": 1}


def test_condition_objects_are_made_expressions_as_boto3_makes_them(dynamo: Any) -> None:
    # GIVEN a device log of five entries
    table = game_table(dynamo)
    for n in range(1, 6):
        table.put_item(Item={"pk": "LOG#t1", "sk": f"E#{n:08d}", "n": n})
    # WHEN it is queried and filtered with boto3's condition objects
    found = table.query(KeyConditionExpression=Key("pk").eq("LOG#t1") & Key("sk").begins_with("E#"),
                        FilterExpression=Attr("n").gt(2) & Attr("n").lt(5))
    # THEN the objects say what their expressions say
    assert [item["n"] for item in found["Items"]] == [3, 4]
    assert found["ScannedCount"] == 5


# --- transactions ------------------------------------------------------------------------------------


def test_a_transaction_writes_all_of_its_items(dynamo: Any) -> None:
    # GIVEN a round taking bets, an open bet and a watch
    table = game_table(dynamo)
    table.put_item(Item={"pk": "ROUND#r1", "sk": "META", "status": "betting"})
    table.put_item(Item={"pk": "ROUND#r1#SHARD#000", "sk": "BET#b1", "status": "open", "taken": 100})
    table.put_item(Item={"pk": "WATCH#t1", "sk": "000#c1"})
    before = len(stream(dynamo, "game"))
    # WHEN a transaction checks the round, puts a bet, adds to the open one and deletes the watch
    table.meta.client.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": "game", "Key": {"pk": "ROUND#r1", "sk": "META"},
                            "ConditionExpression": "#s = :betting AND (attribute_not_exists(paused) OR paused = :no)",
                            "ExpressionAttributeNames": {"#s": "status"},
                            "ExpressionAttributeValues": {":betting": "betting", ":no": False}}},
        {"Put": {"TableName": "game", "Item": {"pk": "ROUND#r1#SHARD#001", "sk": "BET#b2", "amount": 50},
                 "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Update": {"TableName": "game", "Key": {"pk": "ROUND#r1#SHARD#000", "sk": "BET#b1"},
                    "UpdateExpression": "ADD taken :c SET debits = list_append(if_not_exists(debits, :none), :d)",
                    "ConditionExpression": "#s = :open", "ExpressionAttributeNames": {"#s": "status"},
                    "ExpressionAttributeValues": {":c": 25, ":open": "open", ":none": [], ":d": ["tx1"]}}},
        {"Delete": {"TableName": "game", "Key": {"pk": "WATCH#t1", "sk": "000#c1"}}}])
    # THEN every write is there, and the stream has one record per write (none for the check), in order
    assert table.get_item(Key={"pk": "ROUND#r1#SHARD#001", "sk": "BET#b2"})["Item"]["amount"] == 50
    assert table.get_item(Key={"pk": "ROUND#r1#SHARD#000", "sk": "BET#b1"})["Item"] == {
        "pk": "ROUND#r1#SHARD#000", "sk": "BET#b1", "status": "open", "taken": 125, "debits": ["tx1"]}
    assert "Item" not in table.get_item(Key={"pk": "WATCH#t1", "sk": "000#c1"})
    assert [r["eventName"] for r in stream(dynamo, "game")[before:]] == ["INSERT", "MODIFY", "REMOVE"]


def test_a_failed_condition_cancels_the_whole_transaction_with_a_reason_per_item(dynamo: Any) -> None:
    # GIVEN a wallet at version 2 and an operation marker already written
    table = game_table(dynamo)
    table.put_item(Item={"pk": "WALLET#p1", "sk": "BALANCE", "balance": 500, "version": 2})
    table.put_item(Item={"pk": "WALLET#p1", "sk": "OP#op1", "seq": 2})
    before = stream(dynamo, "game")
    # WHEN a movement writes a new ledger entry, the existing marker, the wallet on a stale version and a bet
    cancelled = refusal(lambda: table.meta.client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "game", "Item": {"pk": "WALLET#p1", "sk": "LEDGER#000000000003", "amount": -100},
                 "ConditionExpression": "attribute_not_exists(sk)"}},
        {"Put": {"TableName": "game", "Item": {"pk": "WALLET#p1", "sk": "OP#op1", "seq": 3},
                 "ConditionExpression": "attribute_not_exists(sk)"}},
        {"Put": {"TableName": "game", "Item": {"pk": "WALLET#p1", "sk": "BALANCE", "balance": 400, "version": 3},
                 "ConditionExpression": "version = :v", "ExpressionAttributeValues": {":v": 1}}},
        {"Update": {"TableName": "game", "Key": {"pk": "ROUND#r1#SHARD#000", "sk": "BET#b1"},
                    "UpdateExpression": "SET amount = :a", "ExpressionAttributeValues": {":a": 100}}}]))
    # THEN it is cancelled with the failed items named in order, and nothing of it was written or streamed
    assert cancelled["Error"] == {
        "Code": "TransactionCanceledException",
        "Message": "Transaction cancelled, please refer cancellation reasons for specific reasons "
                   "[None, ConditionalCheckFailed, ConditionalCheckFailed, None]"}
    assert cancelled["CancellationReasons"] == [
        {"Code": "None"}, {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}, {"Code": "None"}]
    assert "Item" not in table.get_item(Key={"pk": "WALLET#p1", "sk": "LEDGER#000000000003"})
    assert "Item" not in table.get_item(Key={"pk": "ROUND#r1#SHARD#000", "sk": "BET#b1"})
    assert table.get_item(Key={"pk": "WALLET#p1", "sk": "BALANCE"})["Item"]["balance"] == 500
    assert changes(stream(dynamo, "game")) == changes(before)


def test_a_transaction_with_two_operations_on_one_item_is_refused(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN a transaction puts an item and checks the same one
    refused = error(lambda: table.meta.client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "game", "Item": {"pk": "P", "sk": "S"}}},
        {"ConditionCheck": {"TableName": "game", "Key": {"pk": "P", "sk": "S"},
                            "ConditionExpression": "attribute_not_exists(pk)"}}]))
    # THEN it is refused, and nothing was written
    assert refused == ("ValidationException", "Transaction request cannot include multiple operations on one item")
    assert "Item" not in table.get_item(Key={"pk": "P", "sk": "S"})


def test_a_transaction_holds_at_most_100_items(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)

    def put(count: int) -> None:
        table.meta.client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "game", "Item": {"pk": f"P{count}", "sk": f"S{i:03d}"}}} for i in range(count)])

    # WHEN transactions of 100 and of 101 items are written
    put(100)
    refused = error(lambda: put(101))
    # THEN the first is written and the second refused
    assert refused[0] == "ValidationException"
    assert "length less than or equal to 100" in refused[1]
    assert table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P100"})["Count"] == 100
    assert table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P101"})["Count"] == 0


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_an_update_that_cannot_apply_in_a_transaction_cancels_it_with_a_validation_reason(dynamo: Any) -> None:
    """On the stand-in only: moto refuses the whole request with a ValidationException; DynamoDB cancels
    the transaction with the item's reason ValidationError."""
    # GIVEN an item without a count
    table = game_table(dynamo)
    table.put_item(Item={"pk": "P", "sk": "S"})
    # WHEN a transaction puts an item and adds one to the missing count with SET
    cancelled = refusal(lambda: table.meta.client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "game", "Item": {"pk": "Q", "sk": "S"}}},
        {"Update": {"TableName": "game", "Key": {"pk": "P", "sk": "S"}, "UpdateExpression": "SET c = c + :one",
                    "ExpressionAttributeValues": {":one": 1}}}]))
    # THEN it is cancelled with the update's reason, and the put was not written
    assert cancelled["Error"]["Code"] == "TransactionCanceledException"
    assert cancelled["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "ValidationError",
         "Message": "The provided expression refers to an attribute that does not exist in the item"}]
    assert "Item" not in table.get_item(Key={"pk": "Q", "sk": "S"})


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_a_write_meeting_a_transaction_in_flight_is_refused_as_dynamodb_refuses_it(dynamo: Any) -> None:
    """On the stand-in only (a simulation's fault: no write of one process meets another in flight,
    and moto never refuses one so)."""
    # GIVEN a table whose every write meets a transaction in flight, on the second item of a transaction
    table = game_table(dynamo)
    client = table.meta.client

    def in_the_way(operation: str, when: str, request: Any) -> None:
        if when == "before" and operation in WRITES:
            raise in_flight(operation, request, item=1)

    client.around = in_the_way
    # WHEN a put, an update and a delete are made, and a transaction of two puts
    single = [refusal(lambda: table.put_item(Item={"pk": "P", "sk": "S"})),
              refusal(lambda: table.update_item(Key={"pk": "P", "sk": "S"}, UpdateExpression="SET a = :a",
                                                ExpressionAttributeValues={":a": 1})),
              refusal(lambda: table.delete_item(Key={"pk": "P", "sk": "S"}))]
    cancelled = refusal(lambda: client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "game", "Item": {"pk": "Q", "sk": "S"}}},
        {"Put": {"TableName": "game", "Item": {"pk": "R", "sk": "S"}}}]))
    # THEN each single write is refused with TransactionConflictException, the transaction is
    # cancelled with the reason TransactionConflict on its second item, and nothing was written
    assert {(r["Error"]["Code"], r["Error"]["Message"]) for r in single} == {(
        "TransactionConflictException", "Operation was rejected because there is an ongoing transaction for the item.")}
    assert cancelled["Error"]["Code"] == "TransactionCanceledException"
    assert cancelled["CancellationReasons"] == [
        {"Code": "None"}, {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}]
    assert "[None, TransactionConflict]" in cancelled["Error"]["Message"]
    client.around = None
    assert table.scan()["Items"] == []


# --- queries -------------------------------------------------------------------------------------------


def test_a_query_by_begins_with_between_and_backwards(dynamo: Any) -> None:
    # GIVEN a device log of twelve entries and its head, in one partition
    table = game_table(dynamo)
    table.put_item(Item={"pk": "LOG#t1", "sk": "HEAD", "count": 12})
    for n in range(12, 0, -1):
        table.put_item(Item={"pk": "LOG#t1", "sk": f"E#{n:08d}", "n": n})
    table.put_item(Item={"pk": "LOG#t2", "sk": "E#00000001"})
    entries = [f"E#{n:08d}" for n in range(1, 13)]
    # WHEN it is queried by prefix, by a range, and backwards two at a time
    prefixed = table.query(KeyConditionExpression="pk = :p AND begins_with(sk, :e)",
                           ExpressionAttributeValues={":p": "LOG#t1", ":e": "E#"}, ConsistentRead=True)
    ranged = table.query(KeyConditionExpression="pk = :p AND sk BETWEEN :from AND :to",
                         ExpressionAttributeValues={":p": "LOG#t1", ":from": "E#00000003", ":to": "E#00000005"})
    newest = table.query(KeyConditionExpression="pk = :p AND begins_with(sk, :e)", ScanIndexForward=False, Limit=2,
                         ExpressionAttributeValues={":p": "LOG#t1", ":e": "E#"})
    everything = table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "LOG#t1"})
    # THEN each gives its entries in sort key order (backwards: reversed), the last one read as the next start
    assert sks(prefixed["Items"]) == entries
    assert sks(ranged["Items"]) == entries[2:5]
    assert sks(newest["Items"]) == entries[:-3:-1]
    assert newest["LastEvaluatedKey"] == {"pk": "LOG#t1", "sk": entries[-2]}
    assert sks(everything["Items"]) == [*entries, "HEAD"]
    assert (everything["Count"], everything["ScannedCount"]) == (13, 13)


def test_comparisons_on_the_sort_key(dynamo: Any) -> None:
    # GIVEN five entries
    table = game_table(dynamo)
    for n in range(1, 6):
        table.put_item(Item={"pk": "P", "sk": f"E{n}"})

    def query(condition: str) -> list[str]:
        return sks(table.query(KeyConditionExpression=f"pk = :p AND {condition}",
                               ExpressionAttributeValues={":p": "P", ":v": "E3"})["Items"])

    # WHEN they are queried with each comparison
    found = {op: query(f"sk {op} :v") for op in ("=", "<", "<=", ">", ">=")}
    # THEN each gives the entries it holds for
    assert found == {"=": ["E3"], "<": ["E1", "E2"], "<=": ["E1", "E2", "E3"], ">": ["E4", "E5"],
                     ">=": ["E3", "E4", "E5"]}


def test_limit_counts_the_items_read_before_the_filter(dynamo: Any) -> None:
    # GIVEN ten bets in a shard, every other one a player's
    table = game_table(dynamo)
    for n in range(10):
        table.put_item(Item={"pk": "ROUND#r1#SHARD#000", "sk": f"BET#{n:02d}", "player": "p1" if n % 2 else "p2"})
    # WHEN the shard is read four items at a time, filtered to the player
    read = pages(table.query, KeyConditionExpression="pk = :p", FilterExpression="player = :who",
                 ExpressionAttributeValues={":p": "ROUND#r1#SHARD#000", ":who": "p1"}, Limit=4)
    # THEN each page read four items (the last, what was left) and kept the player's among them
    assert [(page["Count"], page["ScannedCount"]) for page in read] == [(2, 4), (2, 4), (1, 2)]
    assert [sks(page["Items"]) for page in read] == [["BET#01", "BET#03"], ["BET#05", "BET#07"], ["BET#09"]]
    assert [page.get("LastEvaluatedKey") for page in read] == [
        {"pk": "ROUND#r1#SHARD#000", "sk": "BET#03"}, {"pk": "ROUND#r1#SHARD#000", "sk": "BET#07"}, None]


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_a_page_that_reached_its_limit_has_a_last_evaluated_key(dynamo: Any) -> None:
    """On the stand-in only: moto gives a LastEvaluatedKey only when another item follows; DynamoDB
    documents that a query stops at Limit and returns one."""
    # GIVEN four entries
    table = game_table(dynamo)
    for n in range(4):
        table.put_item(Item={"pk": "P", "sk": f"E{n}"})
    # WHEN they are read four at a time
    read = pages(table.query, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=4)
    # THEN the first page stops at its limit with a key, and the next is empty without one
    assert [page["Count"] for page in read] == [4, 0]
    assert read[0]["LastEvaluatedKey"] == {"pk": "P", "sk": "E3"}
    assert "LastEvaluatedKey" not in read[1]


def test_numbers_sort_by_value_and_strings_by_their_utf8_bytes(dynamo: Any) -> None:
    # GIVEN numbers and strings as sort keys
    numbers = numbers_table(dynamo)
    for n in (Decimal(10), Decimal(-1), Decimal("2.5"), Decimal(100), Decimal(9)):
        numbers.put_item(Item={"pk": "P", "n": n})
    strings = game_table(dynamo)
    for sk in ("é", "z", "B", "a", "\U0001f600", "aa"):
        strings.put_item(Item={"pk": "P", "sk": sk})
    # WHEN each partition is queried both ways
    up = numbers.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"})["Items"]
    down = numbers.query(KeyConditionExpression="pk = :p AND n > :zero", ScanIndexForward=False,
                         ExpressionAttributeValues={":p": "P", ":zero": 0})["Items"]
    text = strings.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"})["Items"]
    # THEN numbers come in numeric order, strings in the order of their bytes
    assert [item["n"] for item in up] == [-1, Decimal("2.5"), 9, 10, 100]
    assert [item["n"] for item in down] == [100, 10, 9, Decimal("2.5")]
    assert sks(text) == ["B", "a", "aa", "z", "é", "\U0001f600"]


def test_key_conditions_dynamodb_refuses(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN a query names only the sort key, and one names a key that is not the table's
    no_partition = error(lambda: table.query(KeyConditionExpression="sk = :s", ExpressionAttributeValues={":s": "x"}))
    other = error(lambda: table.query(KeyConditionExpression="pk = :p AND amount = :a",
                                      ExpressionAttributeValues={":p": "x", ":a": 1}))
    # THEN both are refused for the key they miss
    assert no_partition == ("ValidationException", "Query condition missed key schema element: pk")
    assert other == ("ValidationException", "Query condition missed key schema element: sk")


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_key_conditions_refused_as_dynamodb_documents(dynamo: Any) -> None:
    """On the stand-in only: moto raises an AssertionError for OR, answers BETWEEN with its bounds reversed
    as empty, takes two conditions on the sort key and a filter on it; DynamoDB refuses each."""
    # GIVEN the game table
    table = game_table(dynamo)
    values = {":p": "x", ":a": "b", ":b": "a"}
    # WHEN queries use OR, BETWEEN with its bounds the wrong way round, two conditions on the sort key, and a
    # filter on it
    refused = [error(lambda c=condition: table.query(KeyConditionExpression=c, ExpressionAttributeValues=values))
               for condition in ("pk = :p OR sk = :a", "pk = :p AND sk BETWEEN :a AND :b",
                                 "pk = :p AND sk > :b AND sk < :a")]
    filtered = error(lambda: table.query(KeyConditionExpression="pk = :p", FilterExpression="sk = :a",
                                         ExpressionAttributeValues={":p": "x", ":a": "b"}))
    # THEN each is refused
    assert refused[0] == ("ValidationException", "Invalid operator used in KeyConditionExpression: OR")
    assert refused[1][1].startswith("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound")
    assert refused[2] == ("ValidationException", "KeyConditionExpressions must only contain one condition per key")
    assert filtered == ("ValidationException",
                        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk")


# --- indexes ----------------------------------------------------------------------------------------


def bets(table: Any) -> list[dict[str, Any]]:
    """Five bets of player p1 at increasing times, one of p2, and two items without an index key."""
    made = []
    for n, (player, at) in enumerate([("p1", 30), ("p1", 10), ("p2", 20), ("p1", 50), ("p1", 40), ("p1", 20)]):
        item = {"pk": f"ROUND#r{n}#SHARD#000", "sk": f"BET#b{n}", "gsi1pk": f"PLAYER#{player}",
                "gsi1sk": f"{at:013d}#b{n}", "amount": 100 + n, "table_id": "t1" if n % 2 else "t2"}
        table.put_item(Item=item)
        made.append(item)
    table.put_item(Item={"pk": "ROUND#r0", "sk": "META", "gsi1pk": "PLAYER#p1"})
    table.put_item(Item={"pk": "ROUND#r9", "sk": "META", "amount": 1})
    return made


def test_an_index_holds_the_items_with_its_key_in_its_order(dynamo: Any) -> None:
    # GIVEN bets of two players, an item with only half of the index's key and one with none of it
    table = game_table(dynamo)
    made = bets(table)
    mine = sorted((item for item in made if item["gsi1pk"] == "PLAYER#p1"), key=lambda item: item["gsi1sk"])
    # WHEN the player's bets are read through the index, oldest and newest first
    oldest = table.query(IndexName="by-player", KeyConditionExpression="gsi1pk = :p",
                         ExpressionAttributeValues={":p": "PLAYER#p1"})["Items"]
    newest = table.query(IndexName="by-player", KeyConditionExpression="gsi1pk = :p AND gsi1sk BETWEEN :a AND :b",
                         ExpressionAttributeValues={":p": "PLAYER#p1", ":a": f"{20:013d}#", ":b": f"{40:013d}#~"},
                         ScanIndexForward=False)["Items"]
    # THEN only the player's bets are there, whole, in the order of the index's sort key
    assert oldest == mine
    assert newest == [item for item in mine[::-1] if f"{20:013d}#" <= item["gsi1sk"] <= f"{40:013d}#~"]


def test_an_index_pages_with_the_tables_key_and_its_own(dynamo: Any) -> None:
    # GIVEN the bets
    table = game_table(dynamo)
    made = bets(table)
    mine = sorted((item for item in made if item["gsi1pk"] == "PLAYER#p1"), key=lambda item: item["gsi1sk"])
    # WHEN the player's bets are read newest first, two at a time, filtered to one table
    read = pages(table.query, IndexName="by-player", KeyConditionExpression="gsi1pk = :p", Limit=2,
                 ScanIndexForward=False, FilterExpression="table_id = :t",
                 ExpressionAttributeValues={":p": "PLAYER#p1", ":t": "t1"})
    # THEN every page's key is the last read item's table key and index key, and the pages hold all of them
    newest = mine[::-1]
    assert [page.get("LastEvaluatedKey") for page in read] == [
        {k: newest[i][k] for k in ("pk", "sk", "gsi1pk", "gsi1sk")} for i in (1, 3)] + [None]
    assert [item for page in read for item in page["Items"]] == [item for item in newest if item["table_id"] == "t1"]


def test_an_include_projection_gives_the_keys_and_the_included_attributes(dynamo: Any) -> None:
    # GIVEN the bets
    table = game_table(dynamo)
    made = bets(table)
    # WHEN p2's bets are read through the slim index
    found = table.query(IndexName="slim", KeyConditionExpression="gsi1pk = :p",
                        ExpressionAttributeValues={":p": "PLAYER#p2"})["Items"]
    # THEN each has the table's key, the index's key and the amount, nothing more
    assert found == [{k: item[k] for k in ("pk", "sk", "gsi1pk", "gsi1sk", "amount")}
                     for item in made if item["gsi1pk"] == "PLAYER#p2"]


def test_a_consistent_read_of_an_index_is_refused(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN its index is queried with a consistent read
    refused = error(lambda: table.query(IndexName="by-player", KeyConditionExpression="gsi1pk = :p",
                                        ExpressionAttributeValues={":p": "x"}, ConsistentRead=True))
    # THEN it is refused
    assert refused == ("ValidationException", "Consistent reads are not supported on global secondary indexes")


# --- scans, pages, values, sizes ------------------------------------------------------------------------


def test_a_scan_with_a_filter_reads_every_item_page_by_page(dynamo: Any) -> None:
    # GIVEN 25 items over five partitions
    table = game_table(dynamo)
    for n in range(25):
        table.put_item(Item={"pk": f"P{n % 5}", "sk": f"S{n:02d}", "n": n})
    # WHEN the table is scanned seven items at a time for the even ones
    read = pages(table.scan, FilterExpression="n IN (:a, :b, :c) OR n >= :d",
                 ExpressionAttributeValues={":a": 0, ":b": 2, ":c": 4, ":d": 20}, Limit=7, ConsistentRead=True)
    # THEN the pages read every item once and kept those that match
    assert [page["ScannedCount"] for page in read] == [7, 7, 7, 4]
    assert sorted(item["n"] for page in read for item in page["Items"]) == [0, 2, 4, 20, 21, 22, 23, 24]


def test_the_clients_paginators_read_every_page(dynamo: Any) -> None:
    # GIVEN seven entries
    table = game_table(dynamo)
    for n in range(7):
        table.put_item(Item={"pk": "P", "sk": f"E{n}"})
    # WHEN they are read by the client's query and scan paginators, three at a time
    query = list(table.meta.client.get_paginator("query").paginate(
        TableName=table.name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=3))
    scan = list(table.meta.client.get_paginator("scan").paginate(TableName=table.name, Limit=3))
    # THEN the pages hold all of them, three, three and one
    assert [sks(page["Items"]) for page in query] == [["E0", "E1", "E2"], ["E3", "E4", "E5"], ["E6"]]
    assert sorted(item["sk"] for page in scan for item in page["Items"]) == [f"E{n}" for n in range(7)]


def test_values_come_back_as_the_resource_gives_them(dynamo: Any) -> None:
    # GIVEN an item with a value of every type
    table = game_table(dynamo)
    item = {"pk": "P", "sk": "S", "int": 7, "decimal": Decimal("-0.001"), "wide": Decimal("1" * 38),
            "huge": Decimal("9E+125"), "bool": False, "none": None, "text": "", "strings": {"a", "b"},
            "numbers": {Decimal("1.5"), 2}, "bytes": b"\x00\xff", "byte_set": {b"a", b"b"},
            "nested": {"list": [1, "x", [True, None]], "map": {}, "empty": []}}
    # WHEN it is written and read back
    table.put_item(Item=item)
    back = table.get_item(Key={"pk": "P", "sk": "S"})["Item"]
    # THEN it is the same, numbers as Decimal, binaries as Binary; a float or 39 digits never leave
    assert back == {**item, "bytes": Binary(b"\x00\xff"), "byte_set": {Binary(b"a"), Binary(b"b")}}
    assert isinstance(back["int"], Decimal) and isinstance(back["nested"]["list"][0], Decimal)
    assert back["numbers"] == {Decimal("1.5"), Decimal(2)}
    with pytest.raises(TypeError, match="Float types are not supported"):
        table.put_item(Item={"pk": "P", "sk": "F", "f": 1.5})
    with pytest.raises((Inexact, Rounded)):
        table.put_item(Item={"pk": "P", "sk": "D", "d": Decimal("1" * 39)})


def test_parameters_are_checked_as_the_client_checks_them(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN requests carry a parameter DynamoDB does not have, a limit of zero, or no key
    # THEN the client refuses them before sending anything
    with pytest.raises(ParamValidationError, match="Unknown parameter"):
        table.get_item(Key={"pk": "P", "sk": "S"}, Consistent=True)
    with pytest.raises(ParamValidationError, match="Limit"):
        table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=0)
    with pytest.raises(ParamValidationError, match="Key"):
        table.get_item()
    # AND values are checked too: a map's names are strings, also inside a transaction
    with pytest.raises(ParamValidationError, match=r"Invalid type for parameter Item\.m\.M"):
        table.put_item(Item={"pk": "P", "sk": "M", "m": {1: "one"}})
    with pytest.raises(ParamValidationError, match=r"TransactItems\[0\].Put.Item.m.M"):
        table.meta.client.transact_write_items(TransactItems=[
            {"Put": {"TableName": "game", "Item": {"pk": "P", "sk": "M", "m": {"a": {2: "two"}}}}}])


def test_a_request_like_one_already_accepted_is_still_checked_for_its_own_types(dynamo: Any) -> None:
    # GIVEN the game table, and requests the client accepted
    table = game_table(dynamo)
    table.get_item(Key={"pk": "P", "sk": "S"}, ConsistentRead=True)
    table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=5)
    # WHEN the same requests come with a member of another type, or out of its range
    # THEN the client refuses each of them, as it refuses them the first time
    with pytest.raises(ParamValidationError, match="ConsistentRead"):
        table.get_item(Key={"pk": "P", "sk": "S"}, ConsistentRead=1)
    with pytest.raises(ParamValidationError, match="Limit"):
        table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit="5")
    with pytest.raises(ParamValidationError, match="Limit"):
        table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=0)
    # AND the accepted ones are still accepted
    assert table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "P"}, Limit=5)["Count"] == 0


def test_a_key_must_be_the_tables_key_and_the_table_must_exist(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN items are read with half a key and with an attribute more, and from a table that does not exist
    half = error(lambda: table.get_item(Key={"pk": "P"}))
    more = error(lambda: table.get_item(Key={"pk": "P", "sk": "S", "x": "y"}))
    nowhere = error(lambda: dynamo.Table("nowhere").get_item(Key={"pk": "P", "sk": "S"}))
    missing_key = error(lambda: table.put_item(Item={"sk": "S"}))
    # THEN each is refused
    assert half[0] == "ValidationException"
    assert more == ("ValidationException", "The provided key element does not match the schema")
    assert nowhere == ("ResourceNotFoundException", "Requested resource not found")
    assert missing_key == ("ValidationException", "One or more parameter values were invalid: Missing the key pk in "
                                                  "the item")


def test_an_item_of_more_than_400_kb_is_refused(dynamo: Any) -> None:
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN an item of 300 KB is put, then one of 500 KB, then the first is grown past 400 KB
    table.put_item(Item={"pk": "P", "sk": "S", "text": "x" * 300_000})
    put = error(lambda: table.put_item(Item={"pk": "P", "sk": "T", "text": "x" * 500_000}))
    grown = error(lambda: table.update_item(Key={"pk": "P", "sk": "S"}, UpdateExpression="SET more = :m",
                                            ExpressionAttributeValues={":m": "y" * 150_000}))
    # THEN the first is kept, the others refused
    assert put == ("ValidationException", "Item size has exceeded the maximum allowed size")
    assert grown == ("ValidationException", "Item size to update has exceeded the maximum allowed size")
    assert len(table.get_item(Key={"pk": "P", "sk": "S"})["Item"]["text"]) == 300_000
    assert "Item" not in table.get_item(Key={"pk": "P", "sk": "T"})


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_an_items_size_follows_dynamodbs_rules(dynamo: Any) -> None:
    """On the stand-in only: moto sizes numbers by their text, counts no overhead for lists and maps, and
    allows 405,000 bytes; DynamoDB documents its rules and 400 KB."""
    # GIVEN the game table; "pk" and "P", "sk" and "S", "text": 10 bytes besides the text's
    table = game_table(dynamo)
    # WHEN items of exactly 400 KB and of one byte more are put; then a list of one-letter strings (the
    # names 7 bytes, the list 3, each element 2) that fills 400 KB, and one with an element more
    table.put_item(Item={"pk": "P", "sk": "S", "text": "x" * (MAX_ITEM_BYTES - 10)})
    over = error(lambda: table.put_item(Item={"pk": "P", "sk": "T", "text": "x" * (MAX_ITEM_BYTES - 9)}))
    elements = (MAX_ITEM_BYTES - 7 - 3) // 2
    table.put_item(Item={"pk": "P", "sk": "L", "l": ["a"] * elements})
    too_many = error(lambda: table.put_item(Item={"pk": "P", "sk": "M", "l": ["a"] * (elements + 1)}))
    # THEN the limit is 400 KB to the byte, with the lists' overhead counted
    assert over[0] == too_many[0] == "ValidationException"
    assert len(table.get_item(Key={"pk": "P", "sk": "L"})["Item"]["l"]) == elements


# --- streams ---------------------------------------------------------------------------------------------


def test_the_stream_has_a_record_per_committed_change_in_order(dynamo: Any) -> None:
    # GIVEN the game table and its stream
    table = game_table(dynamo)
    key = {"pk": "ROUND#r1", "sk": "META"}
    typed_key = {"pk": {"S": "ROUND#r1"}, "sk": {"S": "META"}}
    # WHEN a round is put, updated, fails a condition, is part of a cancelled transaction, and is deleted
    table.put_item(Item={**key, "status": "betting", "version": 0})
    table.update_item(Key=key, UpdateExpression="SET #s = :s, version = version + :one",
                      ExpressionAttributeNames={"#s": "status"}, ExpressionAttributeValues={":s": "dealing", ":one": 1})
    error(lambda: table.put_item(Item={**key, "status": "x"}, ConditionExpression="attribute_not_exists(pk)"))
    error(lambda: table.meta.client.transact_write_items(TransactItems=[
        {"Put": {"TableName": "game", "Item": {"pk": "OTHER", "sk": "X"}}},
        {"Update": {"TableName": "game", "Key": key, "UpdateExpression": "SET version = :v",
                    "ConditionExpression": "version = :old", "ExpressionAttributeValues": {":v": 5, ":old": 0}}}]))
    table.delete_item(Key=key)
    records = stream(dynamo, "game")
    # THEN the put, the update and the delete have a record each, in order, with their images; the
    # failed condition and the cancelled transaction have none
    old = {**typed_key, "status": {"S": "betting"}, "version": {"N": "0"}}
    new = {**typed_key, "status": {"S": "dealing"}, "version": {"N": "1"}}
    assert changes(records) == [("INSERT", typed_key, None, old), ("MODIFY", typed_key, old, new),
                                ("REMOVE", typed_key, new, None)]
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert numbers == sorted(set(numbers))
    assert {r["dynamodb"]["StreamViewType"] for r in records} == {"NEW_AND_OLD_IMAGES"}
    assert {r["eventSource"] for r in records} == {"aws:dynamodb"}


def test_updates_deep_in_an_item_leave_its_earlier_images_as_they_were(dynamo: Any) -> None:
    # GIVEN an item with a map and a list nested in it
    table = game_table(dynamo)
    key = {"pk": "P", "sk": "deep"}
    typed_key = {"pk": {"S": "P"}, "sk": {"S": "deep"}}
    table.put_item(Item={**key, "m": {"a": {"b": 1}, "c": "x"}, "l": [1, {"d": 2}]})
    # WHEN values deep in it are set, then one is removed and another added
    table.update_item(Key=key, UpdateExpression="SET m.a.b = :two, l[1].d = :three",
                      ExpressionAttributeValues={":two": 2, ":three": 3})
    table.update_item(Key=key, UpdateExpression="REMOVE m.c SET m.e = :e", ExpressionAttributeValues={":e": "y"})
    # THEN the item is the last update's
    assert table.get_item(Key=key)["Item"] == {**key, "m": {"a": {"b": 2}, "e": "y"}, "l": [1, {"d": 3}]}
    # AND each record's images are the item as it was then: no update changed an earlier one
    first = {**typed_key, "m": {"M": {"a": {"M": {"b": {"N": "1"}}}, "c": {"S": "x"}}},
             "l": {"L": [{"N": "1"}, {"M": {"d": {"N": "2"}}}]}}
    second = {**typed_key, "m": {"M": {"a": {"M": {"b": {"N": "2"}}}, "c": {"S": "x"}}},
              "l": {"L": [{"N": "1"}, {"M": {"d": {"N": "3"}}}]}}
    third = {**second, "m": {"M": {"a": {"M": {"b": {"N": "2"}}}, "e": {"S": "y"}}}}
    assert changes(stream(dynamo, "game")) == [("INSERT", typed_key, None, first), ("MODIFY", typed_key, first, second),
                                               ("MODIFY", typed_key, second, third)]


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_an_item_grown_past_400_kb_deep_inside_is_refused(dynamo: Any) -> None:
    """On the stand-in only: moto accepts an update that takes an item past 400 KB inside a map;
    DynamoDB's limit is the whole item's, however it grew."""
    # GIVEN an item of about 300 KB, most of it in a map, its size known from its put
    table = game_table(dynamo)
    key = {"pk": "P", "sk": "deep"}
    big, more = "x" * 300_000, "y" * 150_000
    table.put_item(Item={**key, "m": {"a": {"b": 1}, "big": big}})
    table.update_item(Key=key, UpdateExpression="SET m.a.b = :two", ExpressionAttributeValues={":two": 2})
    # WHEN 150 KB more are set inside the map, then the large value is removed and they are set again
    grown = error(lambda: table.update_item(Key=key, UpdateExpression="SET m.more = :more",
                                            ExpressionAttributeValues={":more": more}))
    table.update_item(Key=key, UpdateExpression="REMOVE m.big")
    table.update_item(Key=key, UpdateExpression="SET m.more = :more", ExpressionAttributeValues={":more": more})
    # THEN the item past the limit was refused, and the one under it taken
    assert grown == ("ValidationException", "Item size to update has exceeded the maximum allowed size")
    assert table.get_item(Key=key)["Item"] == {**key, "m": {"a": {"b": 2}, "more": more}}


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_a_write_that_changes_nothing_has_no_record(dynamo: Any) -> None:
    """On the stand-in only: moto records a MODIFY for a put of the same item and two INSERTs for an update
    that creates an item; DynamoDB Streams documents no record for a write that changes nothing, and a
    change is one record."""
    # GIVEN an item
    table = game_table(dynamo)
    item = {"pk": "P", "sk": "S", "n": 1, "tags": {"a", "b"}}
    table.put_item(Item=item)
    # WHEN the same item is put again, updated to its own values, a missing item deleted, one created by an update
    table.put_item(Item={**item, "tags": {"b", "a"}})
    table.update_item(Key={"pk": "P", "sk": "S"}, UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": 1})
    table.delete_item(Key={"pk": "P", "sk": "missing"})
    table.update_item(Key={"pk": "P", "sk": "new"}, UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": 2})
    # THEN only the first put and the creating update have records
    assert [(r["eventName"], r["dynamodb"]["Keys"]["sk"]["S"]) for r in stream(dynamo, "game")] == [
        ("INSERT", "S"), ("INSERT", "new")]


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_the_stand_ins_stream_is_taken_and_dated_by_its_clock(dynamo: Any) -> None:
    """On the stand-in only: the stand-in's own way of handing over its records."""
    # GIVEN a stand-in dated by a clock at 1,700,000,000.9 s, with a keys-only stream
    clocked = FakeDynamo(REGION, clock=lambda: 1_700_000_000.9)
    table = clocked.create_table(TableName="keys", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                                 StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    # WHEN two items are written and the records taken, then one more
    table.put_item(Item={"pk": "a", "x": 1})
    table.put_item(Item={"pk": "b"})
    first = clocked.take_records("keys")
    table.delete_item(Key={"pk": "a"})
    second = clocked.take_records("keys")
    # THEN each take has the records since the last, keys only, dated to the second, in sequence
    assert [(r["eventName"], r["dynamodb"]["Keys"]) for r in first] == [("INSERT", {"pk": {"S": "a"}}),
                                                                        ("INSERT", {"pk": {"S": "b"}})]
    assert [(r["eventName"], set(r["dynamodb"])) for r in second] == [
        ("REMOVE", {"Keys", "SequenceNumber", "SizeBytes", "StreamViewType", "ApproximateCreationDateTime"})]
    assert {r["dynamodb"]["ApproximateCreationDateTime"] for r in first + second} == {1_700_000_000}
    assert [int(r["dynamodb"]["SequenceNumber"]) for r in first + second] == [
        int(first[0]["dynamodb"]["SequenceNumber"]) + n for n in range(3)]
    assert clocked.records("keys") == []


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_what_the_stand_in_does_not_interpret_is_refused_by_name(dynamo: Any) -> None:
    """On the stand-in only: the stand-in's own refusals."""
    # GIVEN the game table
    table = game_table(dynamo)
    # WHEN requests use a projection, a parallel scan, a batch writer, and a client operation not interpreted
    # THEN each raises Unsupported naming it
    with pytest.raises(Unsupported, match="ProjectionExpression"):
        table.get_item(Key={"pk": "P", "sk": "S"}, ProjectionExpression="pk")
    with pytest.raises(Unsupported, match="Segment"):
        table.scan(Segment=0, TotalSegments=2)
    with pytest.raises(Unsupported, match="batch_writer"):
        table.batch_writer()
    with pytest.raises(Unsupported, match="batch_get_item"):
        dynamo.meta.client.batch_get_item(RequestItems={})


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_a_lagging_index_takes_each_change_when_told_an_items_changes_in_order(dynamo: Any) -> None:
    """On the stand-in only: DynamoDB's indexes are eventually consistent, and moto's never lag."""
    # GIVEN a stand-in on a clock whose indexes take a change 5 s after the table, the by-player
    # index of a table, and then 1 s after
    now = [1_700_000_000.0]
    clocked = FakeDynamo(REGION, clock=lambda: now[0])
    table = game_table(clocked)
    delays = iter([5.0, 5.0, 1.0, 1.0, 0.0, 0.0, 2.0, 2.0])
    clocked.lag_indexes(lambda table_name, index: next(delays) if table_name == "game" else 0.0)

    def seen(index: str = "by-player") -> list[tuple[str, Any]]:
        page = table.query(IndexName=index, KeyConditionExpression="gsi1pk = :p", ExpressionAttributeValues={":p": "P"})
        return [(item["sk"], item.get("amount")) for item in page["Items"]]

    # WHEN an item is put (5 s for each index), then changed (1 s), then changed again (at once)
    table.put_item(Item={"pk": "b", "sk": "1", "gsi1pk": "P", "gsi1sk": "x", "amount": 1})
    assert table.get_item(Key={"pk": "b", "sk": "1"})["Item"]["amount"] == 1  # the table has it
    for amount in (2, 3):
        table.update_item(Key={"pk": "b", "sk": "1"}, UpdateExpression="SET amount = :a",
                          ExpressionAttributeValues={":a": amount})
    # THEN the indexes show nothing until the put is due, then every change due, in the table's order:
    # the later changes wait for the put, however soon they were due themselves
    assert seen() == [] and seen("slim") == []
    now[0] += 4.9
    assert seen() == []
    now[0] += 0.1
    assert seen() == [("1", 3)] and seen("slim") == [("1", 3)]
    # and a delete (2 s) leaves the item in the indexes, as it was, until it is due
    table.delete_item(Key={"pk": "b", "sk": "1"})
    now[0] += 1.9
    assert seen() == [("1", 3)] and table.get_item(Key={"pk": "b", "sk": "1"}).get("Item") is None
    now[0] += 0.1
    assert seen() == [] and seen("slim") == []


@pytest.mark.parametrize("dynamo", ["fake"], indirect=True)
def test_an_eventually_consistent_read_may_see_the_table_as_it_was(dynamo: Any) -> None:
    """On the stand-in only: DynamoDB's eventually consistent reads may miss the latest writes, and
    moto's never do."""
    # GIVEN a stand-in on a clock whose eventually consistent reads see the table as it was 1 s ago
    now = [1_700_000_000.0]
    clocked = FakeDynamo(REGION, clock=lambda: now[0])
    table = game_table(clocked)
    clocked.stale_reads_within(lambda name: 1.0, 1.0)
    key = {"pk": "b", "sk": "1"}

    def read(consistent: bool) -> Any:
        return table.get_item(Key=key, ConsistentRead=consistent).get("Item", {}).get("amount")

    def listed(consistent: bool) -> list[tuple[str, Any]]:
        pages = [table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "b"},
                             ConsistentRead=consistent),
                 table.scan(ConsistentRead=consistent)]
        found = [[(item["sk"], item.get("amount")) for item in page["Items"]] for page in pages]
        assert found[0] == found[1]  # the query and the scan see the same past
        return found[0]

    # WHEN an item is put, then changed half a second later
    table.put_item(Item={**key, "amount": 1})
    now[0] += 0.5
    table.update_item(Key=key, UpdateExpression="SET amount = :a", ExpressionAttributeValues={":a": 2})
    # THEN a strongly consistent read sees every write; an eventually consistent one, the table a
    # second ago: nothing yet, then the first version, then the second
    now[0] += 0.1
    assert read(True) == 2 and listed(True) == [("1", 2)]
    assert read(False) is None and listed(False) == []
    now[0] += 0.5
    assert read(False) == 1 and listed(False) == [("1", 1)]
    now[0] += 0.5
    assert read(False) == 2 and listed(False) == [("1", 2)]
    # and a deleted item is still seen for a second, beside one put after it but not yet
    table.delete_item(Key=key)
    table.put_item(Item={"pk": "b", "sk": "2", "amount": 3})
    now[0] += 0.9
    assert listed(True) == [("2", 3)] and listed(False) == [("1", 2)] and read(False) == 2
    now[0] += 0.2
    assert listed(False) == [("2", 3)] and read(False) is None
    assert clocked.stale_reads()["game"] == 15  # five gets, five queries and five scans
    # and, told no more, every read sees the table as it is
    clocked.stale_reads_within(None)
    now[0] -= 0.5
    assert listed(False) == [("2", 3)]
