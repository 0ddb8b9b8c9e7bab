"""A value given to the code inside a block, in this thread only (a context variable set for the
block): the clock in use (:mod:`croupier.app.clock`), the settings in use (:mod:`croupier.app.config`)."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def holding(variable: contextvars.ContextVar[T], value: T) -> Iterator[T]:
    """``variable`` is ``value`` inside the block, in this thread; then what it was before."""
    token = variable.set(value)
    try:
        yield value
    finally:
        variable.reset(token)
