"""The AWS SDK, imported when a function first calls AWS rather than when it starts; what a
function imports on its first call rather than at start-up (:func:`prepare`).

``from .aws import boto3`` gives a stand-in for the ``boto3`` module: the first attribute taken
from it (``boto3.client``, ``boto3.resource``) imports boto3, and every attribute is boto3's own
(nothing is copied: a later change of boto3's module state is seen). boto3 and botocore are the
largest import of a function (``docs/deploying.md``, *The card path's cold start*); a function
whose first invocation calls AWS pays that import on its first call instead of at start-up, and
one that never calls AWS on a path never pays it there.

``botocore.exceptions`` stays a plain import where it is used (``except ClientError``): it is
small, and an ``except`` clause needs the class itself.

Where nobody waits for the initialisation (provisioned concurrency, SnapStart: Lambda sets
``AWS_LAMBDA_INITIALIZATION_TYPE``), boto3 is imported at start-up after all, so that the first
call finds it loaded; so is whatever a module defers to its first call with :func:`prepare`.
"""

from __future__ import annotations

import contextvars
import importlib
import os
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

PREPARED_INITIALISATIONS = ("provisioned-concurrency", "snap-start")
"""Values of ``AWS_LAMBDA_INITIALIZATION_TYPE`` whose initialisation happens before any call waits."""


class LazyModule(types.ModuleType):
    """A module imported on the first use of one of its attributes."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"the {name} module, imported on first use")

    def __getattr__(self, attribute: str) -> Any:
        standing_in = _stand_in.get() if self.__name__ == "boto3" else None
        if standing_in is not None:
            return getattr(standing_in, attribute)
        return getattr(importlib.import_module(self.__name__), attribute)

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(self.__name__))


boto3: Any = LazyModule("boto3")
"""Stands for the ``boto3`` module (``boto3.client(...)``, ``boto3.resource(...)``)."""

_stand_in: contextvars.ContextVar[Any] = contextvars.ContextVar("croupier_sdk", default=None)


@contextmanager
def standing_in(sdk: Any) -> Iterator[Any]:
    """Within this block, in this thread, ``boto3.client`` and ``boto3.resource`` are ``sdk``'s (a
    simulation's services in memory): the one seam between the application and the AWS SDK. A
    module that cached a client made outside the block must be reset by the caller."""
    token = _stand_in.set(sdk)
    try:
        yield sdk
    finally:
        _stand_in.reset(token)


def prepared_initialisation(environ: Mapping[str, str] | None = None) -> bool:
    """Whether this process initialises before any call waits for it (provisioned concurrency, SnapStart)."""
    kind = (os.environ if environ is None else environ).get("AWS_LAMBDA_INITIALIZATION_TYPE", "")
    return kind in PREPARED_INITIALISATIONS


def prepare(*modules: str) -> None:
    """Import ``modules`` now if nobody waits for this initialisation (provisioned concurrency,
    SnapStart): a module that imports them on its first call says so with this call, so that they
    are in the snapshot, or loaded before the first call, where an initialisation is prepared."""
    if prepared_initialisation():
        for name in modules:
            importlib.import_module(name)


prepare("boto3")
