"""How ``make test`` spreads the suite over processes (pytest-xdist, ``--dist loadfile``): each
test file is one unit of work, taken whole by one process (its tests in order, its module
fixtures made once), but the files of :data:`SHARED_PROCESS` are one unit together; the units
that take longest are handed out first.

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


LONGEST_FIRST = ("tests/browser/test_pages.py", "tests/reliability/test_schemathesis.py", "seamless-operators",
                 "tests/integration/test_screens.py", "tests/browser/test_languages.py",
                 "tests/integration/test_faults.py", "tests/unit/test_chaos.py", "tests/integration/test_visibility.py",
                 "tests/integration/test_round_item.py", "tests/reliability/test_faults_exactly_once.py",
                 "tests/integration/test_rounds.py", "tests/integration/test_boundaries.py",
                 "tests/integration/test_table_speed.py", "tests/browser/test_accessibility.py",
                 "tests/integration/test_workflow_cost.py", "tests/deploy/test_sam_build.py",
                 "tests/reliability/test_fuzz.py", "tests/unit/test_chaos_wallets.py",
                 "tests/integration/test_policies.py", "tests/integration/test_betting_phase.py",
                 "tests/unit/test_chaos_spec.py")
"""The units that took longest in a four-process run (30 s to 2 minutes each, their tests' durations
added up), longest first: they are handed out first, so that the run does not end waiting on one
of them while the other processes idle; the others follow in the order pytest collects them. A
unit missing here only costs time."""


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

        def schedule(self) -> None:
            if self.collection is None and self.registered_collections:  # the first call: all collected
                # the work queue in the order of LONGEST_FIRST: pytest-xdist fills it in the order
                # of collection, and a unit already in it keeps its place (the collection itself
                # stays as each process collected it: the processes are told tests by index in it)
                collected = {scope_of(nodeid) for nodeid in next(iter(self.registered_collections.values()))}
                for scope in sorted(collected & set(LONGEST_FIRST), key=rank):
                    self.workqueue[scope] = {}
            super().schedule()

    config.option.loadscopereorder = False  # the order above, not the number of tests a unit holds
    return ByFile(config, log)


def rank(scope: str) -> int:
    """Where a unit of work comes in the order it is handed out (:data:`LONGEST_FIRST`)."""
    return LONGEST_FIRST.index(scope) if scope in LONGEST_FIRST else len(LONGEST_FIRST)
