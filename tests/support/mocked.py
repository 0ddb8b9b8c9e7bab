"""moto's in-process mock (``mock_aws``), safe beside a local stack in the same process.

moto keeps one set of backends per process, and the local stack's threaded moto server serves from
that same set. ``mock_aws`` wipes it when it starts and again when it stops, so a unit test using
it would delete a running stack's tables under the tests that share its process (``make test``
spreads the session over several processes, so any of them may run both). :func:`moto_mock` starts
the mock without wiping anything and, when the block ends, deletes the tables the block made: each
test still starts from no tables of its own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import boto3
from moto import mock_aws

REGION = "us-east-1"


def _tables() -> set[str]:
    client = boto3.client("dynamodb", region_name=REGION)
    return {name for page in client.get_paginator("list_tables").paginate() for name in page["TableNames"]}


@contextmanager
def moto_mock() -> Iterator[None]:
    """``with mock_aws():``, without wiping what others keep in moto's backends (module doc)."""
    mock = mock_aws()
    mock.start(reset=False)
    try:
        before = _tables()
        yield
    finally:
        try:
            client = boto3.client("dynamodb", region_name=REGION)
            for name in _tables() - before:
                client.delete_table(TableName=name)
        finally:
            mock.stop(remove_data=False)
