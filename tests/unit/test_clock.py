"""The clock port (``croupier.app.clock``): the application reads time and sleeps only through it,
so that on a virtual clock it neither reads the machine's time nor waits for real seconds."""

from __future__ import annotations

import ast
import random
import threading
import time
from pathlib import Path

import pytest

from croupier.app import clock, identity, push, store
from croupier.app.errors import Unauthorized
from tests.support.pyparse import parse_files

APP = Path(clock.__file__).parent
MACHINE_TIME = {"time", "sleep", "monotonic", "time_ns", "monotonic_ns", "perf_counter"}


def test_no_module_of_the_application_but_the_clock_reads_the_machines_time() -> None:
    # GIVEN every module of croupier.app; WHEN their code is read
    offenders = []
    trees = parse_files(sorted(p for p in APP.rglob("*.py") if p.name != "clock.py"))
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == "time" for a in node.names):
                offenders.append(f"{path.name}:{node.lineno} imports time")
            elif isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
                offenders.append(f"{path.name}:{node.lineno} imports from {node.module}")
            elif (isinstance(node, ast.Attribute) and node.attr in MACHINE_TIME | {"now", "utcnow"}
                  and isinstance(node.value, ast.Name) and node.value.id in ("time", "datetime")):
                offenders.append(f"{path.name}:{node.lineno} calls {node.value.id}.{node.attr}")
    # THEN none reads the machine's clock or sleeps on it but through the port
    assert offenders == []


SHARED_RANDOM_USES = {"random", "uniform", "choice", "choices", "randint", "randrange", "sample", "shuffle",
                      "getrandbits", "gauss", "seed", "betavariate", "expovariate", "triangular"}
TENACITY_RANDOM_WAITS = {"wait_random", "wait_random_exponential", "wait_full_jitter", "wait_exponential_jitter"}


def test_no_module_of_the_application_draws_from_the_random_modules_shared_generator() -> None:
    # GIVEN every module of croupier.app; WHEN their code is read
    offenders = []
    for path, tree in parse_files(sorted(APP.rglob("*.py"))).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                offenders.append(f"{path.name}:{node.lineno} imports from random")
            elif isinstance(node, ast.ImportFrom) and node.module == "tenacity":
                offenders += [f"{path.name}:{node.lineno} imports tenacity's {a.name}" for a in node.names
                              if a.name in TENACITY_RANDOM_WAITS]
            elif (isinstance(node, ast.Attribute) and node.attr in SHARED_RANDOM_USES
                  and isinstance(node.value, ast.Name) and node.value.id == "random"):
                offenders.append(f"{path.name}:{node.lineno} calls random.{node.attr}")
    # THEN randomness comes from a generator of its own (a virtual clock's from its seed): the shared
    # one's state is whoever seeded it last, and a simulation must not depend on it
    assert offenders == []


def test_a_backoff_draws_its_jitter_from_the_clock_and_leaves_the_shared_generator_alone() -> None:
    # GIVEN a write that loses its race five times, then wins
    def run(on: clock.Clock) -> None:
        outcomes = iter([True] * 5 + [False])

        def attempt() -> str:
            if next(outcomes):
                raise store.Conflict("lost")
            return "won"

        with clock.using(on):
            store.until_it_wins(attempt, lost=store.Conflict, attempts=10, busy=lambda: RuntimeError("busy"))

    shared = random.getstate()
    # WHEN it runs on virtual clocks of the same seed, of another, and on the machine's (sleeping for real)
    first, again, other = (clock.VirtualClock(seed="1"), clock.VirtualClock(seed="1"), clock.VirtualClock(seed="2"))
    for virtual in (first, again, other):
        run(virtual)
    run(clock.MachineClock())
    # THEN the same seed slept the same waits, another seed others, each within its attempt's bound
    assert first.slept == again.slept != other.slept
    assert all(0 <= wait <= min(0.25, 0.01 * 2 ** n) for n, wait in enumerate(first.slept))
    # AND the `random` module's shared generator was not drawn from, on either clock
    assert random.getstate() == shared


def test_a_virtual_clock_moves_only_when_told_and_a_sleep_moves_it_at_once() -> None:
    virtual = clock.VirtualClock(start=1_800_000_000.5)
    started = time.monotonic()
    with clock.using(virtual):
        assert clock.now_ms() == 1_800_000_000_500 and clock.now_s() == 1_800_000_000
        assert clock.monotonic() == 0.0
        clock.sleep(3600)  # an hour, in no real time
        virtual.advance(0.25)
        assert clock.now_ms() == 1_800_003_600_750 and clock.monotonic() == 3600.25
        with pytest.raises(ValueError, match="does not go back"):
            virtual.advance(-1)
    assert time.monotonic() - started < 1.0
    assert virtual.slept == [3600]
    assert abs(clock.now_s() - time.time()) < 5  # the machine's clock again outside


def test_a_virtual_clock_is_the_running_threads_only() -> None:
    # GIVEN a thread on a virtual clock; WHEN another thread reads the time meanwhile
    seen: list[int] = []
    with clock.using(clock.VirtualClock(start=1_900_000_000.0)):
        other = threading.Thread(target=lambda: seen.append(clock.now_s()))
        other.start()
        other.join()
        mine = clock.now_s()
    # THEN the other thread read the machine's clock (the local stack's threads run beside a simulation)
    assert mine == 1_900_000_000 and abs(seen[0] - time.time()) < 5


def test_the_applications_times_are_the_clocks() -> None:
    # GIVEN a virtual clock at a known instant
    with clock.using(clock.VirtualClock(start=1_800_000_000.0)) as virtual:
        # WHEN the application stamps, signs and expires by it
        stamped = store.now_ms()
        token = identity.issue_local_token("s" * 32, "p1", "player", ttl=60)
        claims = identity.verify_local_token("s" * 32, token)
        until = 1_800_000_030
        # THEN every time is the clock's: the stamp, the token's expiry, a connection's expiry
        assert stamped == 1_800_000_000_000
        assert claims["exp"] == 1_800_000_060
        assert not push.token_expired(until)
        virtual.advance(31)
        assert push.token_expired(until)
        virtual.advance(30)  # the token's 60 s are over on the clock, if not on the machine's
        with pytest.raises(Unauthorized, match="expired"):
            identity.verify_local_token("s" * 32, token)


def test_a_write_that_keeps_losing_backs_off_on_the_clock_not_in_real_time() -> None:
    # GIVEN a write that loses its race four times, then wins
    outcomes = iter([True, True, True, True, False])

    def attempt() -> str:
        if next(outcomes):
            raise store.Conflict("lost")
        return "won"

    started = time.monotonic()
    with clock.using(clock.VirtualClock()) as virtual:
        # WHEN it is retried until it wins
        won = store.until_it_wins(attempt, lost=store.Conflict, attempts=10, busy=lambda: RuntimeError("busy"))
    assert won == "won"
    # THEN its four backoffs were slept on the virtual clock, within the backoff's bounds
    assert len(virtual.slept) == 4 and all(0 <= s <= 0.25 for s in virtual.slept)
    assert time.monotonic() - started < 1.0
