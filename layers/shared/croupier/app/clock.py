"""Time, as the application reads it: one port, so that the same code runs on the machine's clock
(Lambda, the local stack) and on a virtual clock that only moves when told (a deterministic
simulation, a test that must not wait for real seconds).

Nothing else in ``croupier.app`` reads the machine's time or sleeps: it asks :func:`now_ms`,
:func:`now_s`, :func:`monotonic` or :func:`sleep` here (``tests/unit/test_clock.py`` keeps it so).
The clock in use is the machine's unless the running thread (its context) was given another with
:func:`using`: a simulation runs in one thread, while the local stack's threads beside it keep the
machine's clock.
"""

from __future__ import annotations

import contextlib
import contextvars
import random
import time
from datetime import datetime
from typing import Protocol

from .contexts import holding


class Clock(Protocol):
    def time(self) -> float:
        """Seconds since the epoch (the wall clock: what is stored and shown)."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary start that never goes back (durations)."""

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass."""

    def jitter(self, most: float) -> float:
        """A wait drawn at random between 0 and ``most`` seconds (a backoff's jitter)."""


class MachineClock:
    """The machine's clock: what deploys. Its jitter comes from a generator of its own, never
    from the ``random`` module's shared one, whose state belongs to whoever seeded it."""

    def __init__(self) -> None:
        self._jitter = random.Random()

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def jitter(self, most: float) -> float:
        return self._jitter.uniform(0.0, most)


SIMULATION_EPOCH = 1_798_761_600.0
"""Where a virtual clock starts unless told: 2027-01-01 00:00 UTC."""


class VirtualClock:
    """A clock that moves only when told to: :meth:`advance`, or a :meth:`sleep`, which moves it at
    once by the time slept (whoever sleeps in a simulation is the only one running). ``slept``
    keeps every sleep, in order. Its jitter is drawn from ``seed``: the same seed, the same waits."""

    def __init__(self, start: float = SIMULATION_EPOCH, seed: str = "") -> None:
        self._wall, self._elapsed = float(start), 0.0
        self._jitter = random.Random(f"jitter:{seed}")
        self.slept: list[float] = []

    def time(self) -> float:
        return self._wall + self._elapsed

    def monotonic(self) -> float:
        return self._elapsed

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)

    def jitter(self, most: float) -> float:
        return self._jitter.uniform(0.0, most)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"time does not go back: advance by {seconds} s")
        self._elapsed += seconds


_MACHINE = MachineClock()
_current: contextvars.ContextVar[Clock] = contextvars.ContextVar("croupier_clock", default=_MACHINE)


def current() -> Clock:
    return _current.get()


def using(clock: Clock) -> contextlib.AbstractContextManager[Clock]:
    """Run the code inside, in this thread, on ``clock`` (then back to the one before)."""
    return holding(_current, clock)


def now_ms() -> int:
    """Milliseconds since the epoch."""
    return int(current().time() * 1000)


def now_s() -> int:
    """Whole seconds since the epoch."""
    return int(current().time())


def monotonic() -> float:
    return current().monotonic()


def sleep(seconds: float) -> None:
    current().sleep(seconds)


def jitter(most: float) -> float:
    """A wait drawn at random between 0 and ``most`` seconds, from the clock in use."""
    return current().jitter(most)


def epoch_ms(text: str) -> int | None:
    """An ISO 8601 moment with its zone (``2026-12-04T10:23:31Z``) in epoch milliseconds; None if
    it is not one (a moment read from a message, never the clock's)."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(moment.timestamp() * 1000) if moment.tzinfo is not None else None
