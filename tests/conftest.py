"""The one local stack of a test session, shared by the integration and reliability suites (two
stacks cannot share a process: they would fight over its environment, boto3's default session and
moto's Lambda patch). Started only when a test asks for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.app import store, workflow
from croupier.local.stack import LocalStack, project_root


@pytest.fixture(scope="session")
def stack() -> Iterator[LocalStack]:
    with LocalStack(project_root()) as started:
        store.reset_clients()  # a client made before the stack set the endpoint points elsewhere
        workflow.reset_clients()
        yield started
