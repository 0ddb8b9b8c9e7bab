"""One local stack (moto server, resources from template.yaml, the real ASL and handlers) per test
session; every test uses its own tables and players, so tests do not see each other's money. The
harness and the console are in :mod:`tests.support.harness`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.local.stack import LocalStack
from tests.support.harness import Alerts, Harness


@pytest.fixture
def h(stack: LocalStack) -> Iterator[Harness]:
    harness = Harness(stack)
    yield harness
    harness.close()


@pytest.fixture
def alerts(stack: LocalStack) -> Iterator[Alerts]:
    console = Alerts(stack)
    yield console
    console.close()
