"""The local console's wait for Ctrl-C or SIGTERM (``make local``): a module of its own, with
nothing of the local stack's in it, so that a process that only waits imports only this."""

from __future__ import annotations

import contextlib
import signal
import time
from typing import Any

WAKE_EVERY_S = 0.1
"""How often the waiting main thread wakes: a SIGTERM the system hands to another thread is
handled when the main thread next wakes, so the console stops within this long of it."""


def say_then_wait_for_stop(text: str) -> None:
    """Print ``text`` (which tells how to stop), then wait for Ctrl-C or SIGTERM.

    SIGTERM stops the console as Ctrl-C does, from before the text is printed (whoever read it may
    signal at once). Its handler raises KeyboardInterrupt in the main thread and takes no lock: one
    that set a ``threading.Event`` waited for ever on the Event's own lock when the signal landed
    while the main thread held it, entering its wait. The main thread waits in short sleeps
    (:data:`WAKE_EVERY_S`): a signal the system hands to another thread runs its handler when the
    main thread next wakes."""
    signal.signal(signal.SIGTERM, _interrupted)
    with contextlib.suppress(KeyboardInterrupt):
        print(text, flush=True)
        while True:
            time.sleep(WAKE_EVERY_S)


def _interrupted(*_: Any) -> None:
    raise KeyboardInterrupt
