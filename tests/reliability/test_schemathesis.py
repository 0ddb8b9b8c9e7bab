"""A third-party API fuzzer, Schemathesis, run from the API's own ``/openapi.json`` against the
local stack: the API conforms to its document, for every role.

Every operation of the document, with generated requests that fit the document (positive) and
requests that do not (negative), each sent once with each role's bearer token (player, operator,
the dealer console of a table, supervisor); path parameters are drawn at random or, half the time,
among a real table, round and player so that requests get past the lookups. The requests are
generated once for the four roles: a run per role generated the very same ones (the generation is
derandomized), and the generation is most of the fuzzer's CPU. The run stops generating at its
time budget, so the suite takes a bounded time.

Checks, on every answer: ``not_a_server_error``, ``status_code_conformance`` (the status is one the
operation documents), ``content_type_conformance``, ``response_schema_conformance`` (the body fits
the status's model: no undeclared field), ``response_headers_conformance``,
``negative_data_rejection`` (a request the document refuses is a 4xx), ``missing_required_header``
(without Idempotency-Key, a 4xx) and ``ignored_auth`` (a route with the bearer scheme refuses the
request without its token). Left out, as they cannot apply: ``positive_data_acceptance`` (a request
that fits the document is refused when the table's state refuses it: betting closed, not your
turn), ``unsupported_method`` (an undocumented method answers 404 no-route, as API Gateway's
missing-route answer does, not 405) and the stateful checks (``use_after_free``,
``ensure_resource_availability``: no stateful run).

The run generates ``CROUPIER_SCHEMATHESIS_EXAMPLES`` (default 40) times two modes times the 24
operations requests (1,920), drawn among all of them, and sends each four times;
``CROUPIER_SCHEMATHESIS_SECONDS`` is its time budget (default 180). The store audits clean after.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from croupier.app.audit import run_audit
from croupier.app.identity import issue_local_token
from croupier.local.client import ApiError
from croupier.local.stack import LocalStack
from tests.support.harness import Harness

pytestmark = pytest.mark.reliability

EXAMPLES = int(os.environ.get("CROUPIER_SCHEMATHESIS_EXAMPLES", "40"))
SECONDS = float(os.environ.get("CROUPIER_SCHEMATHESIS_SECONDS", "180"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance, negative_data_rejection, missing_required_header, ignored_auth]
ROLES = ("player", "operator", "dealer", "supervisor")
LONG = {"countdown": 600, "decision": 600, "follow": 600, "insurance": 600, "pause_void": 600}
SENT: Counter[str] = Counter()
"""Requests sent, per role and per status."""


class Target:
    """A Deluxe table whose round is open for bets (long timers), a funded player seated at it, and
    the document."""

    def __init__(self, stack: LocalStack) -> None:
        self.stack = stack
        self.h = Harness(stack)
        self.table = self.h.table("st-deluxe")
        self.h.open_devices(self.table, "deluxe-blackjack", 71, cut_at=300, scan_burn=False, rules={"timers": LONG})
        self.player = self.h.players["ana"].subject
        self.h.players["ana"].call("PUT", f"/tables/{self.table}/seats/1")
        self.round = self.h.console(self.table).post(f"/tables/{self.table}/rounds")["round_id"]
        with urllib.request.urlopen(f"{stack.api_url}/openapi.json", timeout=30) as response:
            self.document: dict[str, Any] = json.loads(response.read())

    def token(self, role: str) -> str:
        subject = self.player if role == "player" else f"{role}-1"
        return issue_local_token(self.stack.jwt_secret, subject, role,
                                 table=self.table if role == "dealer" else None)

    def known(self) -> dict[str, Any]:
        return {"table_id": self.table, "round_id": self.round, "player_id": self.player, "seat": 1}

    def release(self) -> None:
        """Void whatever round the run left open at the table (every stake back)."""
        current = self.h.supervisor.get(f"/tables/{self.table}").get("round_id")
        for round_id in {self.round, current} - {None}:
            with contextlib.suppress(ApiError):  # settled or voided already
                self.h.supervisor.call("POST", f"/rounds/{round_id}/void", {"reason": "fuzzing over"})


@pytest.fixture(scope="module")
def target(stack: LocalStack) -> Iterator[Target]:
    built = Target(stack)
    yield built
    built.release()


def _strategy(schema: Any, target: Target) -> st.SearchStrategy[Any]:
    strategies = []
    for result in schema.get_all_operations():
        operation = result.ok()
        names = {p.name for p in operation.path_parameters}
        known = {k: v for k, v in target.known().items() if k in names}
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            strategies.append(operation.as_strategy(generation_mode=mode))
            if known and mode is GenerationMode.POSITIVE:
                strategies.append(operation.as_strategy(generation_mode=mode, path_parameters=known))
    return st.one_of(strategies)


def test_the_api_conforms_to_its_own_document_for_every_role(target: Target) -> None:
    schema = schemathesis.openapi.from_dict(target.document)
    operations = len(list(schema.get_all_operations()))
    assert operations == 24  # the 22 before, and a table's help and a player's rounds
    tokens = {role: target.token(role) for role in ROLES}
    deadline = time.monotonic() + SECONDS
    failures: list[str] = []

    @settings(max_examples=EXAMPLES * operations * 2, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=_strategy(schema, target))
    def run(case: Any) -> None:
        if time.monotonic() > deadline:
            return
        # a query parameter whose value is an empty list or object is not sent at all (the HTTP
        # client drops it): a "negative" case made only of such is a valid request, answered 200
        assume(not any(value in ([], {}) for value in (case.query or {}).values()))
        for role, token in tokens.items():
            try:
                response = case.call_and_validate(base_url=target.stack.api_url, checks=CHECKS,
                                                  headers={"Authorization": f"Bearer {token}"}, timeout=60)
            except (AssertionError, FailureGroup) as exc:  # every failure is kept, the run goes on
                failures.append(f"{role}: {case.method} {case.formatted_path}: {str(exc)[:600]}")
                continue
            SENT[f"{role} {response.status_code}"] += 1
            SENT[role] += 1

    run()
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:10])
    for role in ROLES:
        assert SENT[role] >= operations, SENT


def test_the_store_audits_clean_after_the_fuzzing(target: Target) -> None:
    target.release()
    report = run_audit()
    assert report.ok, report.summary()


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest) -> Iterator[None]:
    started = time.monotonic()
    yield
    lines = ["", f"schemathesis: {time.monotonic() - started:.0f} s; requests per role and status:"]
    for role in ROLES:
        statuses = ", ".join(f"{key.split()[1]} x{n}" for key, n in sorted(SENT.items())
                             if key.startswith(f"{role} "))
        lines.append(f"  {role:10} {SENT[role]:5}   {statuses}")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print("\n".join(lines))

