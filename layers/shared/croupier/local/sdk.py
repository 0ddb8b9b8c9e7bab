"""The AWS clients of the local tools (the devices, the dealer, the stack's pollers, the tests'
consoles): made from one boto3 session of the process, one at a time.

A boto3 session is not thread-safe, its clients are; so tools that start in parallel each used to
make a session of their own. A new session reads botocore's service models and endpoints again:
about 50 ms of CPU for each client, against 1 to 2 ms for a client of a session that has read them.
The session reads the local stack's endpoint and region from the environment each time it makes
a client, as a new session would; its credentials once it first finds some (the stack's, which it
sets once, before any tool runs)."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_session: list[Any] = []


def client(service: str) -> Any:
    """A new client of ``service``, from the process's one session."""
    import boto3

    with _lock:
        if not _session:
            _session.append(boto3.session.Session())
        return _session[0].client(service)


def sessions() -> list[Any]:
    """The process's session, if it has made one."""
    with _lock:
        return list(_session)
