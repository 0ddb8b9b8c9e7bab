"""Reliability tests: fault injection, races (and fuzzing) against the local stack. The fixtures
only; what they hand out is in :mod:`tests.support`.

- ``stack``: the session's local stack (``tests/conftest.py``).
- ``h``: the integration suite's :class:`~tests.support.harness.Harness` (HTTP clients, funded
  players, fresh names; its screens closed with the test).
- ``direct``: drives rounds in-process through the application's modules with the round workflow
  switched off, so that a test decides exactly when each step runs (and what crashes):
  :mod:`tests.support.direct`.
- ``faults``: crash injection at the DynamoDB client (:mod:`tests.support.faults`).
- the figures (:mod:`tests.support.figures`): what the suite injected and checked, printed at the
  end of the session (by ``tests/conftest.py``, which joins the workers' counts) and written to
  ``tests/reliability/figures.json``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.local.stack import LocalStack
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
def direct(faults: Faults, monkeypatch: pytest.MonkeyPatch, stack: LocalStack) -> Direct:
    drive_in_process(monkeypatch)
    return Direct(faults)
