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
import itertools
import os
import types
from collections.abc import Callable, Iterator, Mapping
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
_sdk_number: contextvars.ContextVar[int] = contextvars.ContextVar("croupier_sdk_number", default=0)
_numbers = itertools.count(1)
_registry: list[Clients] = []


@contextmanager
def standing_in(sdk: Any) -> Iterator[Any]:
    """Within this block, in this thread (its context), ``boto3.client`` and ``boto3.resource`` are
    ``sdk``'s (a simulation's services in memory): the one seam between the application and the AWS
    SDK. Other threads keep the real SDK, and the clients the modules keep (:class:`Clients`) are
    kept apart per SDK: a stand-in's client never reaches another thread, nor a real one this block."""
    number = next(_numbers)
    token, numbered = _stand_in.set(sdk), _sdk_number.set(number)
    try:
        yield sdk
    finally:
        _sdk_number.reset(numbered)
        _stand_in.reset(token)
        for clients in _registry:
            clients.forget(number)


def stand_in() -> Any:
    """The SDK standing in for boto3 in this context, if any."""
    return _stand_in.get()


def sdk_in_use() -> int:
    """The number of the SDK in use in this context (0: boto3's; each :func:`standing_in` block its
    own): what a module keeps of what it read through one SDK is kept apart from another's."""
    return _sdk_number.get()


class Clients:
    """The clients one module keeps, made once per SDK in use (boto3's, or a stand-in's: see
    :func:`standing_in`). As a mapping, it holds the real SDK's clients (tests put fakes there)."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, str], Any] = {}
        _registry.append(self)

    def made(self, name: str, make: Callable[[], Any]) -> Any:
        """The client ``name`` of the SDK in use, made by ``make`` the first time."""
        key = (_sdk_number.get(), name)
        client = self._made.get(key)
        if client is None:
            client = self._made[key] = make()
        return client

    def forget(self, number: int) -> None:
        for key in [k for k in self._made if k[0] == number]:
            del self._made[key]

    def clear(self) -> None:
        self._made.clear()

    def get(self, name: str, default: Any = None) -> Any:
        return self._made.get((0, name), default)

    def __getitem__(self, name: str) -> Any:
        return self._made[(0, name)]

    def __setitem__(self, name: str, client: Any) -> None:
        self._made[(0, name)] = client

    def __delitem__(self, name: str) -> None:
        del self._made[(0, name)]

    def __contains__(self, name: object) -> bool:
        return (0, name) in self._made


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
