"""``make test`` runs each test file whole in one process (``tests/conftest.py``): its tests in
order, its module fixtures made once. These tests fail when a run spreads one file's tests over
several processes, as ``--dist loadgroup`` did under pytest 9."""

from __future__ import annotations

import os

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


def test_the_longest_units_are_handed_out_first_and_the_others_in_collection_order() -> None:
    collected = ["tests/unit/test_roads.py::a", "tests/integration/test_seamless.py::b",
                 "tests/reliability/test_schemathesis.py::c", "tests/unit/test_cards_shoe_money.py::d",
                 "tests/reliability/test_seamless_wallet.py::e", "tests/reliability/test_schemathesis.py::f"]
    handed = sorted(collected, key=lambda nodeid: rank(scope_of(nodeid)))
    assert [n[-1] for n in handed] == ["c", "f", "b", "e", "a", "d"]
    assert all(scope in LONGEST_FIRST for scope in ("seamless-operators", "tests/integration/test_table_speed.py"))


def test_every_unit_named_longest_is_a_test_file_or_a_shared_group() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    named = [scope for scope in LONGEST_FIRST if scope not in SHARED_PROCESS.values()]
    assert [scope for scope in named if not (root / scope).is_file()] == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
