"""The test tree's layout (tests/support/layout.py): no test module imports another test module
or a conftest.py; what tests share is in tests/support."""

from __future__ import annotations

from pathlib import Path

from tests.support.layout import cross_imports


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    found = cross_imports()
    assert not found, "move what they share to tests/support:\n" + "\n".join(found)


def test_the_check_finds_each_way_of_importing_a_test_module(tmp_path: Path) -> None:
    root = tmp_path / "tests"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / "conftest.py").write_text("X = 1\n")
    (root / "b" / "test_other.py").write_text("Y = 1\n")
    (root / "a" / "test_one.py").write_text(
        "from tests.b.test_other import Y\n"  # absolute
        "import tests.b.test_other\n"  # a plain import
        "from ..b import test_other\n"  # the module as a name of its package
        "from .conftest import X\n"  # a conftest
        "def f():\n    from .test_two import Z\n"  # inside a function
        "from tests.support import harness\n"  # not a test module: fine
        "from .test_one import W\n")  # itself: not another
    assert cross_imports(root) == [
        "tests/a/test_one.py:1 imports tests.b.test_other",
        "tests/a/test_one.py:2 imports tests.b.test_other",
        "tests/a/test_one.py:3 imports tests.b.test_other",
        "tests/a/test_one.py:4 imports tests.a.conftest",
        "tests/a/test_one.py:6 imports tests.a.test_two",
    ]
