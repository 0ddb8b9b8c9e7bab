"""The one local stack of a test session, shared by the integration and reliability suites (two
stacks cannot share a process: they would fight over its environment, boto3's default session and
moto's Lambda patch). Started only when a test asks for it. Where the session runs in several
processes (``make test`` spreads it over pytest-xdist's workers), each worker has its own stack.

Every AWS call its functions make is recorded (croupier.local.iam); when the session ends, each
call is checked against the function's role as SAM generates it from template.yaml: a call the
role does not grant (AccessDenied on AWS) fails the run; the grants no call used are reported.
Workers hand their verdicts to the controlling process, which joins them: a call refused anywhere
is refused; a grant is unused when no worker used it. The reliability figures are summed the same
way."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from croupier.app import store, workflow
from croupier.local import iam
from croupier.local.stack import LocalStack, project_root
from croupier.sim.memory import InMemory
from croupier.sim.world import SELDOM_COLLECTIONS
from tests.support import figures, privilege, spread
from tests.support.pyparse import one_tree_at_a_time

one_tree_at_a_time()  # before any test or stack runs (tests/support/pyparse.py says why)
# A process with a local stack holds moto's every item as Python objects: with CPython's default
# thresholds its collector traversed them about once a minute (150 ms each), 6% of the CPU of
# test_rounds and test_screens; collecting less often made it 2%. Memory is not short here.
gc.set_threshold(*SELDOM_COLLECTIONS)

_session: dict[str, object] = {}


@pytest.fixture(scope="session")
def stack() -> Iterator[LocalStack]:
    with LocalStack(project_root()) as started:
        store.reset_clients()  # a client made before the stack set the endpoint points elsewhere
        workflow.reset_clients()
        _session["stack"] = started
        started.record_calls()
        yield started


@pytest.fixture(scope="session")
def _in_memory() -> InMemory:
    return InMemory(project_root())


@pytest.fixture
def memory(_in_memory: InMemory) -> Iterator[InMemory]:
    """The application pointed at AWS in memory (:class:`croupier.sim.memory.InMemory`) for the
    test, in its thread; one store for the session, as the local stack is one."""
    with _in_memory.running() as running:
        yield running


@pytest.fixture
def own_memory() -> Iterator[InMemory]:
    """``memory``, on a store of the test's own: for a test whose writes no audit of the session's
    store could account for (money moved for bets that are not there)."""
    with InMemory(project_root()).running() as running:
        yield running


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadfile`` (``make test``): one process per test file, the seamless files in
    one (``tests/support/spread.py``)."""
    return spread.scheduler(config, log) if config.getvalue("dist") == "loadfile" else None


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """A worker finished: join what it reported."""
    output = getattr(node, "workeroutput", {})
    if "least_privilege" in output:
        joined = _session.setdefault("joined", privilege.Joined())
        assert isinstance(joined, privilege.Joined)
        joined.add(*output["least_privilege"])
    figures.FIGURES.update(output.get("figures", {}))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    mine = privilege.verdict(_session.get("stack"))
    worker_output = getattr(session.config, "workeroutput", None)
    if worker_output is not None:  # a worker: the controlling process joins and reports
        if mine is not None:
            worker_output["least_privilege"] = mine
        worker_output["figures"] = dict(figures.FIGURES)
        return
    if mine is not None:
        joined = _session.setdefault("joined", privilege.Joined())
        assert isinstance(joined, privilege.Joined)
        joined.add(*mine)
    joined = _session.get("joined")
    if not isinstance(joined, privilege.Joined):
        return
    report = joined.report()
    _session["report"] = report
    cache = getattr(session.config, "cache", None)  # None with -p no:cacheprovider
    if cache is not None:
        folder = cache.mkdir("croupier")
        (folder / "least-privilege.txt").write_text(report + "\n", encoding="utf-8")
        (folder / "aws-calls.txt").write_text("\n".join(iam.summary(joined.calls)) + "\n", encoding="utf-8")
    if joined.refused and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    figures.report(terminalreporter)
    report = _session.get("report")
    joined = _session.get("joined")
    if not isinstance(report, str) or not isinstance(joined, privilege.Joined):
        return
    terminalreporter.section("least privilege (template.yaml's roles against the recorded AWS calls)")
    terminalreporter.write_line(f"{len(joined.calls)} distinct calls recorded; grants unused by this run are listed "
                                "(a partial run leaves unused what the whole suite uses)")
    for line in report.splitlines():
        terminalreporter.write_line(line, red=line.lstrip().startswith("NOT GRANTED"))
