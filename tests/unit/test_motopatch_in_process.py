"""Patch 8 of moto (``croupier.local.motopatch``): a request of the process to the local stack's
moto is answered by moto's web application in the calling thread, and its answer is the one moto's
server gives over HTTP, error for error.

GIVEN moto's server on one port, and an endpoint on a port nobody listens on, answered in process
WHEN the same requests go to each (DynamoDB, SQS, Step Functions; answers and refusals)
THEN each answer is the same, but for the names and ids each request made; and with the endpoint
no longer answered in process, its requests fail to connect: they went nowhere else."""

from __future__ import annotations

import contextvars
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError
from moto.server import ThreadedMotoServer

from croupier.local import motopatch
from croupier.local.stack import free_port, release

KEYS = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}
ITEM = {"pk": {"S": "table#1"}, "sk": {"N": "7"}, "name": {"S": "Ana, ß & 東"}, "chips": {"NS": ["5", "25"]},
        "hand": {"L": [{"S": "AS"}, {"S": "TD"}]}, "seat": {"M": {"n": {"N": "3"}, "open": {"BOOL": True}}},
        "none": {"NULL": True}, "blob": {"B": b"\x00\xffcard"}}

TRAVEL = ("RequestId", "HTTPHeaders", "RetryAttempts", "MessageId", "ReceiptHandle", "SequenceNumber", "SentTimestamp",
          "ApproximateFirstReceiveTimestamp", "MessageDeduplicationId", "CreationDateTime", "TableId",
          "LatestStreamArn", "LatestStreamLabel")
"""What differs from one request to the next (ids, times), wherever it went."""


@pytest.fixture(scope="module")
def endpoints() -> Iterator[tuple[str, str]]:
    """moto's server (over HTTP), and an endpoint of a port nobody listens on, answered in process."""
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    in_process = f"http://127.0.0.1:{free_port()}"
    motopatch.answer_in_process(in_process)
    try:
        yield f"http://127.0.0.1:{port}", in_process
    finally:
        motopatch.stop_answering_in_process(in_process)
        server.stop()
        release(port, int(in_process.rsplit(":", 1)[1]))


def _client(service: str, endpoint: str) -> Any:
    return boto3.session.Session().client(
        service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="local",
        aws_secret_access_key="local", config=Config(retries={"max_attempts": 1}, connect_timeout=2))


def _answers(endpoint: str, name: str, requests: Callable[[Any, str], list[Any]], service: str) -> list[Any]:
    """Each request's answer, or its refusal's code, message and details, without what only says
    how it travelled (request ids, HTTP headers), with ``name`` (what the requests made) as ``NAME``
    and the endpoint (in a queue's URL) as ``ENDPOINT``."""
    found = []
    for request in requests(_client(service, endpoint), name):
        try:
            answer = request()
        except ClientError as refused:
            answer = {"refused": {k: v for k, v in refused.response.items() if k != "ResponseMetadata"}}
        found.append(answer)
    text = json.dumps(found, sort_keys=True, default=repr).replace(name, "NAME").replace(endpoint, "ENDPOINT")
    return json.loads(re.sub(f'"({"|".join(TRAVEL)})": ("[^"]*"|[0-9.e+]+|{{[^}}]*}})', r'"\1": "-"', text))


def _dynamodb(client: Any, name: str) -> list[Callable[[], Any]]:
    def condition_fails() -> Any:
        return client.put_item(TableName=name, Item=ITEM, ConditionExpression="attribute_not_exists(pk)")

    def transaction_cancelled() -> Any:
        return client.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": {"pk": {"S": "table#2"}, "sk": {"N": "1"}}}},
            {"ConditionCheck": {"TableName": name, "Key": {"pk": {"S": "table#1"}, "sk": {"N": "7"}},
                                "ConditionExpression": "seat.n = :nine",
                                "ExpressionAttributeValues": {":nine": {"N": "9"}}}}])

    return [
        lambda: client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **KEYS,
                                    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}),
        lambda: client.put_item(TableName=name, Item=ITEM, ReturnValues="ALL_OLD"),
        lambda: client.get_item(TableName=name, Key={"pk": ITEM["pk"], "sk": ITEM["sk"]}, ConsistentRead=True),
        lambda: client.update_item(TableName=name, Key={"pk": ITEM["pk"], "sk": ITEM["sk"]},
                                   UpdateExpression="SET seat.n = seat.n + :one ADD chips :c",
                                   ExpressionAttributeValues={":one": {"N": "1"}, ":c": {"NS": ["100"]}},
                                   ReturnValues="ALL_NEW"),
        lambda: client.query(TableName=name, KeyConditionExpression="pk = :p AND sk > :s", Limit=1,
                             ExpressionAttributeValues={":p": {"S": "table#1"}, ":s": {"N": "0"}}),
        condition_fails, transaction_cancelled,
        lambda: client.get_item(TableName=f"{name}-missing", Key={"pk": {"S": "x"}, "sk": {"N": "1"}}),
    ]


def _sqs(client: Any, name: str) -> list[Callable[[], Any]]:
    url: dict[str, str] = {}

    def create() -> Any:
        answer = client.create_queue(QueueName=f"{name}.fifo", Attributes={"FifoQueue": "true"})
        url["queue"] = answer["QueueUrl"]
        return answer

    return [
        create,
        lambda: client.send_message(QueueUrl=url["queue"], MessageBody="scan 9S ✓", MessageGroupId="table-1",
                                    MessageDeduplicationId="d1",
                                    MessageAttributes={"n": {"DataType": "Number", "StringValue": "3"}}),
        lambda: client.receive_message(QueueUrl=url["queue"], MaxNumberOfMessages=10, WaitTimeSeconds=0,
                                       MessageAttributeNames=["All"]),
        lambda: client.send_message(QueueUrl=url["queue"], MessageBody="no group"),
    ]


def _states(client: Any, name: str) -> list[Callable[[], Any]]:
    return [lambda: client.describe_state_machine(stateMachineArn=f"arn:aws:states:us-east-1:123456789012:"
                                                                  f"stateMachine:{name}")]


@pytest.mark.parametrize("service,requests", [("dynamodb", _dynamodb), ("sqs", _sqs), ("stepfunctions", _states)])
def test_a_request_answered_in_process_gets_the_answer_of_motos_server(
        endpoints: tuple[str, str], service: str, requests: Callable[[Any, str], list[Any]]) -> None:
    over_http, in_process = endpoints
    by_server = _answers(over_http, f"http-{service}", requests, service)
    by_process = _answers(in_process, f"proc-{service}", requests, service)
    assert by_process == by_server
    assert any("refused" in answer for answer in by_server)  # refusals too, with their details


def test_an_endpoint_no_longer_answered_in_process_is_not_answered_at_all() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    motopatch.answer_in_process(endpoint)
    assert "TableNames" in _client("dynamodb", endpoint).list_tables()
    motopatch.stop_answering_in_process(endpoint)
    try:
        with pytest.raises(EndpointConnectionError):
            _client("dynamodb", endpoint).list_tables()
    finally:
        release(int(endpoint.rsplit(":", 1)[1]))


RESULTS = {"GetItem": {"Item": {**ITEM, "text": {"S": "b64?"}, "empty": {"S": ""}, "flag": {"BOOL": False},
                                "raw": {"B": "c3Ry"}, "blobs": {"BS": [b"\x01", b"\x02"]}, "ss": {"SS": ["a", "b"]},
                                "nothing": {"L": []}, "nested": {"M": {"l": {"L": [{"M": {"x": {"NULL": True}}}]}}}}},
           "Query": {"Items": [ITEM, {"pk": {"S": "p"}, "n": {"N": 12}}], "Count": 2, "ScannedCount": 2,
                     "LastEvaluatedKey": {"pk": {"S": "p"}, "sk": {"N": "2"}},
                     "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}},
           "UpdateItem": {"Attributes": {"seat": {"M": {}}, "chips": {"NS": ["1", 2]}}},
           "BatchGetItem": {"Responses": {"t": [ITEM]}, "UnprocessedKeys": {}}}
"""Answers of DynamoDB as moto hands them to its serializer (binary as bytes or text, numbers as
text or not, empty maps and lists), for patch 9 to write."""


@pytest.mark.parametrize("operation", sorted(RESULTS))
def test_an_attribute_value_is_written_as_motos_serializer_writes_it(
        operation: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from moto.core.responses import get_service_model
    from moto.core.serialize import BaseJSONSerializer, XFormedAttributePicker, get_serializer_class

    motopatch.apply()
    model = get_service_model("dynamodb").operation_model(operation)

    def body() -> str:
        serializer = get_serializer_class("dynamodb", "json")(
            operation_model=model, pretty_print=False, value_picker=XFormedAttributePicker())
        return str(serializer.serialize(RESULTS[operation])["body"])

    patched = body()
    monkeypatch.setattr(BaseJSONSerializer, "_serialize_type_structure", motopatch.moto_originals["structure"])
    assert patched == body()
    assert '"B": "' in patched or operation != "GetItem"


def test_moto_answers_in_process_in_a_context_of_its_own_as_in_its_servers_thread(
        endpoints: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """What moto does for a request (its own AWS calls, the workflow it runs) is not done in the
    caller's context: not as the function that asked (the least-privilege check would count it
    against that function's role), nor with its settings or its clock."""
    from moto.dynamodb.models import DynamoDBBackend

    callers: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)
    seen: list[str | None] = []
    listed = DynamoDBBackend.list_tables

    def listing(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(callers.get())
        return listed(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "list_tables", listing)
    token = callers.set("RoundFunction")
    try:
        _client("dynamodb", endpoints[1]).list_tables()
        assert callers.get() == "RoundFunction"
    finally:
        callers.reset(token)
    assert seen == [None]


def test_the_items_under_a_prefix_are_what_a_filtered_scan_counts(endpoints: tuple[str, str]) -> None:
    client = _client("dynamodb", endpoints[1])
    client.create_table(TableName="counted", BillingMode="PAY_PER_REQUEST", **KEYS)
    for pk, sk in (("TABLE#a", 1), ("TABLE#b", 1), ("TABLE#b", 2), ("ROUND#TABLE#c", 1), ("LOG#a", 1)):
        client.put_item(TableName="counted", Item={"pk": {"S": pk}, "sk": {"N": str(sk)}})
    scanned = client.scan(TableName="counted", Select="COUNT", FilterExpression="begins_with(pk, :t)",
                          ExpressionAttributeValues={":t": {"S": "TABLE#"}})["Count"]
    assert motopatch.items_under("counted", "TABLE#", "123456789012", "us-east-1") == scanned == 3


@pytest.mark.parametrize("host", [None, "moto_api", "dynamodb.us-east-1.amazonaws.com", "sqs.eu-west-1.amazonaws.com",
                                  "states.us-east-1.amazonaws.com", "lambda", "events.us-east-1.amazonaws.com"])
def test_a_host_names_service_is_the_one_moto_finds_and_is_found_once(
        host: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch 10: moto's web application finds a host name's service once; each answer is moto's own."""
    from moto import backends
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

    motopatch.apply()
    app = DomainDispatcherApplication(create_backend_app)
    expected = motopatch.moto_originals["backend for host"](app, host)
    listed = []
    folders = backends.list_of_moto_modules

    def listing() -> Any:
        listed.append(1)
        return folders()

    monkeypatch.setattr(backends, "list_of_moto_modules", listing)
    # WHEN the same host name's service is asked for three times
    found = [app.get_backend_for_host(host) for _ in range(3)]
    # THEN it is moto's answer each time, and moto's folder was listed at most once
    assert found == [expected] * 3
    assert len(listed) <= 1


EVENT = {"version": "0", "id": "e1", "detail-type": "card", "source": "croupier.devices", "account": "123456789012",
         "time": "2026-12-06T00:00:00Z", "region": "us-east-1", "resources": ["arn:x"],
         "detail": {"table": "t1", "cards": [{"card": "AS"}, {"card": "TD"}]}}


@pytest.mark.parametrize("path", ["$.detail.table", "$.detail.cards[1].card", "$.detail.cards[*].card", "$.resources",
                                  "$.missing", "$.detail-type"])
def test_a_json_path_moto_parses_once_finds_what_a_path_parsed_anew_finds(path: str) -> None:
    """Patch 11: the paths of moto's EventBridge and Step Functions are parsed once, and find what
    moto's own parse of them finds, time after time (the parsed path is only read)."""
    import jsonpath_ng.ext
    from moto.stepfunctions.parser.asl.component.common.path import result_path
    from moto.stepfunctions.parser.asl.utils import json_path

    motopatch.apply()
    for patched, original in ((jsonpath_ng.ext.parse, motopatch.moto_originals["json path"]),
                              (json_path.parse, motopatch.moto_originals["json path"]),
                              (result_path.parse, motopatch.moto_originals["result path"])):
        fresh = [(str(m.full_path), m.value) for m in original(path).find(EVENT)]
        assert patched(path) is patched(path)  # one parse, kept
        for _ in range(2):
            assert [(str(m.full_path), m.value) for m in patched(path).find(EVENT)] == fresh
    # AND a path that updates a state's data leaves the parsed path as it was
    target = result_path.parse("$.result.cards")
    first = target.update_or_create({"a": 1}, [1])
    assert target.update_or_create({"b": 2}, [2]) == {"b": 2, "result": {"cards": [2]}}
    assert first == {"a": 1, "result": {"cards": [1]}}


def test_a_response_classs_functions_are_listed_once_as_moto_lists_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Patch 13: moto lists a response class's functions (to find a request's action) once per
    class; the list is moto's own."""
    import inspect

    from moto.core import responses
    from moto.dynamodb.responses import DynamoHandler
    from moto.sqs.responses import SQSResponse

    motopatch.apply()
    walks: list[Any] = []
    getmembers = inspect.getmembers

    def walked(target: Any, predicate: Any = None) -> Any:
        walks.append(target)
        return getmembers(target, predicate)

    monkeypatch.setattr(inspect, "getmembers", walked)
    original = motopatch.moto_originals["method names"]
    for kind, action in ((DynamoHandler, "get_item"), (SQSResponse, "receive_message")):
        expected = original(kind)
        assert action in expected
        # WHEN the class's functions are asked for three times
        found = [responses.method_names_from_class(kind) for _ in range(3)]
        # THEN each answer is moto's own list, and the class was walked at most once besides moto's own walk
        assert found == [expected] * 3
        assert walks.count(kind) <= 2
