"""``monkeypatch.setattr`` for the calling thread only.

A test process runs many test files in turn (``make test``: one process per file, several files per
process), and a local stack started by an earlier file keeps running in it: its functions' threads,
its timers, a round still finishing. A test that replaces a function of the application for a
world it plays in its own thread (a planted bug, a store faked for a retry) must not replace it
for those threads too: a background round would then run the planted bug, or write through the
fake, and an audit or a least-privilege check at the end of the session would fail for a test that
passed. Here the replacement is used in the thread that made it, the original everywhere else."""

from __future__ import annotations

import threading
from typing import Any

import pytest


class InThisThread:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def setattr(self, target: Any, name: str, value: Any) -> None:
        original, here = getattr(target, name), threading.get_ident()

        def dispatch(*args: Any, **kwargs: Any) -> Any:
            return (value if threading.get_ident() == here else original)(*args, **kwargs)

        self.monkeypatch.setattr(target, name, dispatch)


def in_this_thread(monkeypatch: pytest.MonkeyPatch) -> InThisThread:
    """``in_this_thread(monkeypatch).setattr(module, "name", replacement)``: the replacement in this
    thread, the original in every other (undone with the test, as ``monkeypatch`` undoes it)."""
    return InThisThread(monkeypatch)
