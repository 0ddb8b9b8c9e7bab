"""How ``make test`` spreads the suite over processes (pytest-xdist, ``--dist loadfile``): each
test file is one unit of work, taken whole by one process (its tests in order, its module
fixtures made once), but the files of :data:`SHARED_PROCESS` are one unit together.

pytest-xdist's own ``xdist_group`` mark cannot say this: pytest-xdist 3.8 groups by renaming a
test's node id, which pytest 9 no longer lets a plugin do, so ``--dist loadgroup`` spread a file's
tests over every process and ran its module fixtures in each."""

from __future__ import annotations

from typing import Any

SHARED_PROCESS = {"tests/integration/test_seamless.py": "seamless-operators",
                  "tests/reliability/test_seamless_wallet.py": "seamless-operators"}
"""Files whose tests run in one process, in this order: each ends with an audit of the whole store
that asks every operator about every call, and the reliability file's operators stop answering when
its tests end (so the integration file's audit must come first, as it does in one process)."""


def scope_of(nodeid: str) -> str:
    """The unit of work one process takes whole: a test's file, or its :data:`SHARED_PROCESS` group."""
    path = nodeid.split("::", 1)[0]
    return SHARED_PROCESS.get(path, path)


def scheduler(config: Any, log: Any) -> Any:
    """pytest-xdist's file scheduling, with :func:`scope_of` as its unit of work."""
    from xdist.scheduler import LoadFileScheduling

    class ByFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    return ByFile(config, log)
