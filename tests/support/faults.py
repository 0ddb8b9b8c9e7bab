"""Crash injection and races at the DynamoDB client (botocore's one call path, and DynamoDB in
memory's: :func:`intercept`).

- :class:`Faults` with a :class:`Plan`: a planned write commits (or not) and then the "process
  dies" (:class:`Crash`), as a Lambda killed between two writes; :func:`retry_through_crashes`
  re-runs the invocation as the workflow's Retry, the queue's redelivery or the client would.
- :func:`crash_after`: any function of the application dies right after (or instead of) a call.
- :class:`Lockstep`: racing threads all do their reads before any of them writes.

Every crash raised is counted in ``FIGURES["faults_injected"]``, every retry in ``retries``.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.client import BaseClient

from croupier.sim.dynamo import FakeClient

from .figures import FIGURES

WRITE_OPS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})


def intercept(monkeypatch: pytest.MonkeyPatch, around: Callable[[str, Callable[[], Any]], Any]) -> None:
    """Every AWS request, for the test: ``around(operation, proceed)`` decides what happens, and
    ``proceed()`` makes the request. Both of the application's ways to DynamoDB are taken: the
    SDK's (botocore's one call path: the local stack) and DynamoDB in memory's (:mod:`croupier.sim.dynamo`)."""
    sdk, memory = BaseClient._make_api_call, FakeClient._call

    def via_sdk(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        return around(operation_name, lambda: sdk(client, operation_name, api_params))

    def in_memory(client: FakeClient, operation: str, params: Any, run: Any) -> Any:
        return around(operation, lambda: memory(client, operation, params, run))

    monkeypatch.setattr(BaseClient, "_make_api_call", via_sdk)
    monkeypatch.setattr(FakeClient, "_call", in_memory)


class Crash(Exception):
    """The function's process died here."""


@dataclass
class Plan:
    """Where an armed thread crashes. ``at``: after (or, ``before``, instead of) its ``at``-th
    write, counted over every attempt run under this plan; ``every``: after the first write of
    each attempt (each armed run), so a task crashes once after each of its writes in turn."""

    at: int | None = None
    every: bool = False
    before: bool = False
    writes: int = 0
    attempt_writes: int = 0
    crashes: list[str] = field(default_factory=list)

    def hit(self) -> bool:
        self.writes += 1
        self.attempt_writes += 1
        return (self.every and self.attempt_writes == 1) or (self.at is not None and self.writes == self.at)


class Faults:
    """Crash injection at botocore's one call path: every DynamoDB write of an armed context is
    counted; the planned one commits (or not) and then raises :class:`Crash`. The plan is a
    context variable: the settlement's worker threads, which run in a copy of the caller's
    context, crash by it too."""

    def __init__(self) -> None:
        self._plan: contextvars.ContextVar[Plan | None] = contextvars.ContextVar("plan", default=None)
        self._lock = threading.Lock()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def call(operation_name: str, proceed: Callable[[], Any]) -> Any:
            plan = self._plan.get()
            if plan is None or operation_name not in WRITE_OPS:
                return proceed()
            with self._lock:
                hit = plan.hit()
            if not hit:
                return proceed()
            if not plan.before:
                proceed()  # it commits (or fails, as it would have)
            plan.crashes.append(operation_name)
            FIGURES["faults_injected"] += 1
            raise Crash(f"died {'before' if plan.before else 'after'} {operation_name} (write {plan.writes})")

        intercept(monkeypatch, call)

    @contextlib.contextmanager
    def armed(self, plan: Plan | None) -> Iterator[Plan | None]:
        if plan is not None:
            plan.attempt_writes = 0
        token = self._plan.set(plan)
        try:
            yield plan
        finally:
            self._plan.reset(token)


def crash_after(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, when: Callable[..., bool],
                times: int = 1, before: bool = False) -> list[str]:
    """Make ``owner.name`` (in any thread: the local stack runs functions on its own threads) die
    right after it returned (``before``: instead of running), the first ``times`` times
    ``when(*args, **kwargs)`` holds. Returns the list the crashes are logged to."""
    original = getattr(owner, name)
    crashed: list[str] = []
    lock = threading.Lock()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with lock:
            fire = len(crashed) < times and when(*args, **kwargs)
            if fire:
                crashed.append(name)
                FIGURES["faults_injected"] += 1
        if fire and before:
            raise Crash(f"died before {name}")
        result = original(*args, **kwargs)
        if fire:
            raise Crash(f"died right after {name}")
        return result

    monkeypatch.setattr(owner, name, wrapper)
    return crashed


class Lockstep:
    """Holds each write of the racing threads until ``parties`` of them are about to write (or
    ``timeout`` passed): every racer has done its reads before any of them writes, so the
    outcome rests on the writes' conditions alone, not on which thread happened to be first."""

    def __init__(self, parties: int, timeout: float = 1.0) -> None:
        self.parties, self.timeout = parties, timeout
        self._cond = threading.Condition()
        self._waiting = 0
        self._generation = 0

    def wait(self) -> None:
        with self._cond:
            generation = self._generation
            self._waiting += 1
            if self._waiting >= self.parties:
                self._generation += 1
                self._waiting = 0
                self._cond.notify_all()
                return
            if not self._cond.wait_for(lambda: self._generation != generation, timeout=self.timeout):
                self._waiting -= 1  # the others are done: go alone

    def install(self, monkeypatch: pytest.MonkeyPatch, operations: frozenset[str] = WRITE_OPS) -> None:
        def call(operation_name: str, proceed: Callable[[], Any]) -> Any:
            if operation_name in operations:
                self.wait()
            return proceed()

        intercept(monkeypatch, call)


def retry_through_crashes(fn: Callable[[], Any], faults: Faults, plan: Plan | None, attempts: int = 40) -> Any:
    """Run ``fn`` under ``plan`` until it completes: every :class:`Crash` is a dead process whose
    invocation is retried (the workflow's Retry, the queue's redelivery, the client's retry)."""
    for _ in range(attempts):
        try:
            with faults.armed(plan):
                return fn()
        except Crash:
            FIGURES["retries"] += 1
    raise AssertionError(f"still crashing after {attempts} attempts")
