"""Reliability tests: fault injection, races (and fuzzing) against the local stack. The fixtures
only; what they hand out is in :mod:`tests.support`.

- ``stack``: the session's local stack (``tests/conftest.py``).
- ``h``: the integration suite's :class:`~tests.support.harness.Harness` (HTTP clients, funded
  players, fresh names; its screens closed with the test).
- ``direct``: drives rounds in-process through the application's modules with the round workflow
  switched off, so that a test decides exactly when each step runs (and what crashes):
  :mod:`tests.support.direct`; on DynamoDB in memory (``memory``), not on the local stack: what
  these tests prove is the application's logic under crashes and races, and DynamoDB's semantics
  that it rests on (conditions, transactions) are the in-memory store's, held to moto's by
  ``tests/unit/test_sim_dynamo.py``. ``direct_on_stack``: the same on the local stack.
- ``memory`` (``tests/conftest.py``): the application pointed at AWS in memory
  (:class:`croupier.sim.memory.InMemory`) for the test, in its thread; one store for the session,
  as the local stack is one.
- ``faults``: crash injection at the DynamoDB client (:mod:`tests.support.faults`).
- the figures (:mod:`tests.support.figures`): what the suite injected and checked, printed at the
  end of the session (by ``tests/conftest.py``, which joins the workers' counts) and written to
  ``tests/reliability/figures.json``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.local.stack import LocalStack
from croupier.sim.memory import InMemory
from tests.support.direct import Direct, drive_in_process
from tests.support.faults import Faults
from tests.support.harness import Harness


@pytest.fixture
def h(stack: LocalStack) -> Iterator[Harness]:
    harness = Harness(stack)
    yield harness
    harness.close()


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    injector = Faults()
    injector.install(monkeypatch)
    return injector


@pytest.fixture
def direct(faults: Faults, memory: InMemory) -> Iterator[Direct]:
    with drive_in_process():
        yield Direct(faults)


@pytest.fixture
def direct_on_stack(faults: Faults, monkeypatch: pytest.MonkeyPatch, stack: LocalStack) -> Iterator[Direct]:
    """``direct`` on the local stack: for the seamless wallet's tests, whose application reaches an
    operator's wallet over HTTP, its settings in SSM and its outbox queue, as the stack runs them."""
    with drive_in_process(monkeypatch):
        yield Direct(faults)
