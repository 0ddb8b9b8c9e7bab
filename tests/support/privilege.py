"""The least-privilege verdict of a test session that runs in several processes: each process
checks the AWS calls its own local stack recorded (:func:`verdict`, in a form a pytest-xdist worker
can send), and the controlling process joins them (:class:`Joined`): a call refused in any process
is refused; a grant is unused only when no process used it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from croupier.local import iam
from croupier.local.stack import LocalStack

Report = tuple[list[list[Any]], list[str], list[str]]
"""A process's calls (each ``[function, action, resource, keys, operation, count]``), its refused
calls (described) and its unused grants."""


@dataclass
class Joined:
    """The least-privilege verdicts of the session's processes, joined."""

    calls: Counter[iam.Call] = field(default_factory=Counter)
    refused: set[str] = field(default_factory=set)
    unused: set[str] | None = None  # None until a process that ran a stack reported

    def add(self, calls: list[list[Any]], refused: list[str], unused: list[str]) -> None:
        """One process's calls (as :func:`verdict` gives them), refusals and unused grants."""
        for function, action, resource, keys, operation, count in calls:
            self.calls[iam.Call(function, action, resource, None if keys is None else tuple(keys), operation)] += count
        self.refused.update(refused)
        self.unused = set(unused) if self.unused is None else self.unused & set(unused)

    def report(self) -> str:
        unused = sorted(self.unused or ())
        lines = [f"least privilege: {len(self.refused)} call(s) not granted, {len(unused)} grant(s) unused"]
        lines += [f"  NOT GRANTED {line}" for line in sorted(self.refused)]
        lines += [f"  unused {grant}" for grant in unused]
        return "\n".join(lines)


def verdict(started: object) -> Report | None:
    """This process's calls (plain lists, as a worker can send them), refusals and unused grants
    (None: it ran no stack)."""
    if not isinstance(started, LocalStack) or started.recorder is None:
        return None
    started.recorder.disable()
    calls = started.recorder.snapshot()
    checked = iam.check(calls, started.roles())
    refused = [f"{call.describe()}{' — ' + why if why else ''}" for call, why in checked.refused]
    sent = [[call.function, call.action, call.resource, None if call.keys is None else list(call.keys), call.operation,
             count] for call, count in calls.items()]
    return sent, refused, checked.unused
