"""The one local stack of a test session, shared by the integration and reliability suites (two
stacks cannot share a process: they would fight over its environment, boto3's default session and
moto's Lambda patch). Started only when a test asks for it.

Every AWS call its functions make is recorded (croupier.local.iam); when the session ends, each
call is checked against the function's role as SAM generates it from template.yaml: a call the
role does not grant (AccessDenied on AWS) fails the run; the grants no call used are reported."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from croupier.app import store, workflow
from croupier.local import iam
from croupier.local.stack import LocalStack, project_root

_session: dict[str, object] = {}


@pytest.fixture(scope="session")
def stack() -> Iterator[LocalStack]:
    with LocalStack(project_root()) as started:
        store.reset_clients()  # a client made before the stack set the endpoint points elsewhere
        workflow.reset_clients()
        _session["stack"] = started
        started.record_calls()
        yield started


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    started = _session.get("stack")
    if not isinstance(started, LocalStack) or started.recorder is None:
        return
    started.recorder.disable()
    calls = started.recorder.snapshot()
    verdict = iam.check(calls, started.roles())
    _session["verdict"], _session["calls"] = verdict, calls
    report = verdict.report()
    cache = getattr(session.config, "cache", None)  # None with -p no:cacheprovider
    if cache is not None:
        folder = cache.mkdir("croupier")
        (folder / "least-privilege.txt").write_text(report + "\n", encoding="utf-8")
        (folder / "aws-calls.txt").write_text("\n".join(iam.summary(calls)) + "\n", encoding="utf-8")
    if verdict.refused and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    verdict = _session.get("verdict")
    if not isinstance(verdict, iam.Verdict):
        return
    calls = _session.get("calls")
    terminalreporter.section("least privilege (template.yaml's roles against the recorded AWS calls)")
    terminalreporter.write_line(f"{len(calls or ())} distinct calls recorded; grants unused by this run are listed "
                                "(a partial run leaves unused what the whole suite uses)")
    for line in verdict.report().splitlines():
        terminalreporter.write_line(line, red=line.lstrip().startswith("NOT GRANTED"))
