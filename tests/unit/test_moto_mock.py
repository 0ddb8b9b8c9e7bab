"""The unit tests' moto mock beside a moto server in the same process (a local stack's): the
server's tables outlive the mock, and the mock's own tables do not outlive it."""

from __future__ import annotations

import boto3
import pytest
from moto.server import ThreadedMotoServer

from tests.support.mocked import REGION, moto_mock

KEY = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}


def test_a_mocked_test_leaves_a_servers_tables_and_takes_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN a moto server in this process, as a local stack runs it, holding a table and an item
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        served = boto3.client("dynamodb", region_name=REGION, endpoint_url=f"http://{host}:{port}")
        served.create_table(TableName="stack-table", **KEY)
        served.put_item(TableName="stack-table", Item={"pk": {"S": "kept"}})
        # WHEN a unit test makes a table of its own under the mock, and its block ends
        with moto_mock():
            boto3.client("dynamodb", region_name=REGION).create_table(TableName="unit-table", **KEY)
        # THEN the server still holds its table and item, and the unit test's table is gone
        assert served.get_item(TableName="stack-table", Key={"pk": {"S": "kept"}})["Item"] == {"pk": {"S": "kept"}}
        assert "unit-table" not in served.list_tables()["TableNames"]
    finally:
        server.stop()
