"""``make test`` runs each test file whole in one process (``tests/conftest.py``): its tests in
order, its module fixtures made once. These tests fail when a run spreads one file's tests over
several processes, as ``--dist loadgroup`` did under pytest 9."""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from tests.support import spread
from tests.support.spread import LONGEST_FIRST, SHARED_PROCESS, rank, scope_of

_ran: list[str] = []


def test_a_file_is_its_own_unit_of_work_and_the_seamless_files_share_one() -> None:
    assert scope_of("tests/unit/test_roads.py::test_x[a-b]") == "tests/unit/test_roads.py"
    assert scope_of("tests/integration/test_fanout.py::Class::test_y") == "tests/integration/test_fanout.py"
    shared = {scope_of(f"{path}::test_z") for path in SHARED_PROCESS}
    assert len(shared) == 1 and shared.isdisjoint(SHARED_PROCESS)
    _ran.append(os.environ.get("PYTEST_XDIST_WORKER", "main"))


def test_the_tests_before_this_one_in_its_file_ran_in_this_process() -> None:
    assert _ran == [os.environ.get("PYTEST_XDIST_WORKER", "main")]
    _ran.append("second")


def test_so_did_every_one_before_it() -> None:
    assert _ran[1:] == ["second"]


class Config:
    """What pytest-xdist's scheduler reads of the session's configuration: two processes."""

    def __init__(self) -> None:
        self.option = SimpleNamespace(loadscopereorder=True, maxschedchunk=None)

    def getvalue(self, name: str) -> Any:
        return {"tx": ["2*popen"], "dist": "loadfile", "maxschedchunk": None}[name]


class Node:
    """A process as the scheduler sees it: the test indexes it was told to run."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.told: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.told.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_the_longest_units_go_first_each_whole_to_one_process_named_by_its_collection_index() -> None:
    # GIVEN two processes that collected the same tests, the longest file last and the seamless
    # files apart
    collected = ["tests/unit/test_roads.py::a", "tests/integration/test_seamless.py::b",
                 "tests/unit/test_roads.py::c", "tests/reliability/test_seamless_wallet.py::d",
                 "tests/reliability/test_schemathesis.py::e", "tests/reliability/test_schemathesis.py::f"]
    scheduler = spread.scheduler(Config(), None)
    one, two = Node("gw0"), Node("gw1")
    for node in (one, two):
        scheduler.add_node(node)
        scheduler.add_node_collection(node, list(collected))
    # WHEN the work is handed out
    scheduler.schedule()
    # THEN the longest unit went first, each unit whole to one process, the seamless files together,
    # and each process was told the indexes of those very tests in the collection
    told = [[collected[i] for i in node.told] for node in (one, two)]
    assert told[0][:2] == ["tests/reliability/test_schemathesis.py::e", "tests/reliability/test_schemathesis.py::f"]
    units = [{scope_of(nodeid) for nodeid in tests} for tests in told]
    assert sorted(nodeid for tests in told for nodeid in tests) == sorted(collected)
    assert not units[0] & units[1] and {"seamless-operators"} <= units[0] | units[1]
    assert rank("tests/reliability/test_schemathesis.py") < rank("seamless-operators") < rank(
        "tests/unit/test_roads.py")
    assert all(scope in LONGEST_FIRST for scope in ("seamless-operators", "tests/integration/test_table_speed.py"))


def test_every_unit_named_longest_is_a_test_file_or_a_shared_group() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    named = [scope for scope in LONGEST_FIRST if scope not in SHARED_PROCESS.values()]
    assert [scope for scope in named if not (root / scope).is_file()] == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
