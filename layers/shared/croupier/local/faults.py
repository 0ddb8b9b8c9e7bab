"""Faults the local stack injects on purpose, to show what a client does when the network fails
(local only: nothing of this is in ``template.yaml`` or deployed).

``drop``: the next ``count`` requests of a method and route template (``POST`` and
``/tables/{table_id}/bets``, as the template names the route) run as usual, their function is
invoked and its work is done, but the answer never reaches the caller: the gateway closes the
connection instead of answering, as a phone losing its signal would see it. A client that cannot
tell "not done" from "done, answer lost" must retry with the same ``Idempotency-Key``.

The page server sets them (``POST /local/faults``); the gateway takes them
(:func:`take_drop`). Each stack has its own.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Faults:
    drops: dict[tuple[str, str], int] = field(default_factory=dict)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    """(method, path) of every answer dropped, in order."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def drop(self, method: str, route: str, count: int) -> None:
        with self.lock:
            self.drops[(method.upper(), route)] = count

    def take_drop(self, method: str, route: str, path: str) -> bool:
        """Whether this answer is to be dropped (counting it)."""
        with self.lock:
            left = self.drops.get((method.upper(), route), 0)
            if left <= 0:
                return False
            self.drops[(method.upper(), route)] = left - 1
            self.dropped.append((method.upper(), path))
            return True


_of: weakref.WeakKeyDictionary[Any, Faults] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def faults_of(stack: Any) -> Faults:
    """The faults of one local stack (made when first asked for)."""
    with _lock:
        if stack not in _of:
            _of[stack] = Faults()
        return _of[stack]
