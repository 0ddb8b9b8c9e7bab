"""Tracing: Powertools' Tracer where the function is traced, and no X-Ray SDK where it is not.

Powertools' ``Tracer()`` takes the X-Ray SDK's recorder (``aws_xray_sdk.core``) as its provider
even when tracing is off, so a function whose tracing is off would still import the SDK (and its
patches) at every cold start. :func:`tracer` gives Powertools' own ``Tracer`` either way: the
usual one where this function traces, else one disabled on a provider that records nothing
(:class:`Untraced`), so that the SDK's recorder is never imported.

Whether a function traces is Powertools' own rule: in Lambda (``LAMBDA_TASK_ROOT``), not under
``sam local`` or Chalice, and ``POWERTOOLS_TRACE_DISABLED`` not true. ``template.yaml`` turns the
card path's tracing on and off with the parameter ``CardPathTracing`` (the function's
``Tracing`` and its ``POWERTOOLS_TRACE_DISABLED``).

Powertools keeps one Tracer configuration per process: the first ``Tracer`` made sets the provider
every later ``Tracer()`` takes. A handler module calls :func:`tracer` before anything else makes a
``Tracer`` (:func:`croupier.app.tasks.task_function` makes its own with ``Tracer()``: it then
takes this one's provider).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from aws_lambda_powertools import Tracer
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

_TRUE = ("1", "y", "yes", "t", "true", "on")


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this function records traces (Powertools' rule: see the module's text)."""
    env = os.environ if environ is None else environ
    if env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in _TRUE:
        return False
    in_lambda = bool(env.get("LAMBDA_TASK_ROOT"))
    emulated = bool(env.get("AWS_SAM_LOCAL") or env.get("AWS_CHALICE_CLI_MODE"))
    return in_lambda and not emulated


class _Nothing(BaseSegment):
    """A segment that records nothing."""

    def close(self, end_time: int | None = None) -> None:
        return None

    def add_subsegment(self, subsegment: Any) -> None:
        return None

    def remove_subsegment(self, subsegment: Any) -> None:
        return None

    def put_annotation(self, key: str, value: Any) -> None:
        return None

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        return None

    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None:
        return None


class Untraced(BaseProvider):
    """Powertools' tracing provider for a function that is not traced: it records nothing and
    imports nothing."""

    @contextlib.contextmanager
    def in_subsegment(self, name: str | None = None, **kwargs: Any) -> Iterator[BaseSegment]:
        yield _Nothing()

    @contextlib.asynccontextmanager
    async def in_subsegment_async(self, name: str | None = None, **kwargs: Any) -> AsyncIterator[BaseSegment]:
        yield _Nothing()

    def put_annotation(self, key: str, value: Any) -> None:
        return None

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        return None

    def patch(self, modules: Sequence[str]) -> None:
        return None

    def patch_all(self) -> None:
        return None


def tracer() -> Tracer:
    """This function's Powertools ``Tracer``: X-Ray's where it traces, else :class:`Untraced`."""
    if enabled():
        return Tracer()
    return Tracer(provider=Untraced(), disabled=True, auto_patch=False)
