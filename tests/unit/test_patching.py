"""The tests' thread-only monkeypatching (``tests/support/patching.py``): a planted bug or a faked
store reaches the world the test plays in its own thread, never a local stack's threads beside it."""

from __future__ import annotations

import json
import threading

import pytest

from tests.support.patching import in_this_thread


def test_a_replacement_made_for_this_thread_leaves_every_other_thread_the_original(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # GIVEN json.dumps replaced for this thread only
    in_this_thread(monkeypatch).setattr(json, "dumps", lambda value: "planted")
    # WHEN this thread and another call it
    seen: list[str] = []
    other = threading.Thread(target=lambda: seen.append(json.dumps([1])))
    other.start()
    other.join()
    # THEN this thread gets the replacement, the other the original
    assert json.dumps([1]) == "planted" and seen == ["[1]"]
