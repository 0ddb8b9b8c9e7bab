"""The ``chaos`` section of ``make bench``: what one simulated round costs (``croupier.sim``).

One world per game, as ``croupier chaos`` plays it: four tables of four players, one of them on
the operator's seamless wallet, the default fault mix, the screens watching, every invariant
checked after every step. Each world is played in a fresh process (nothing warmed by another) and
timed by that process's CPU time; a figure is its milliseconds of one core per round played, and
the last one the same with the screens off (the live and push functions, the screens), all four
games together.

The target is the issue's: 20,000 rounds within three minutes on this machine's two cores, so
18 ms of one core a round.

What of a round is the application's own work, and what the simulator's (``chaos.app.<game>``):
the same world, smaller, played again under ``cProfile``; each function's own time goes to the
application (``croupier`` outside ``croupier.sim``, the functions, and the libraries they run on
Lambda: Powertools, pydantic, tenacity) or to the simulator (``croupier.sim``, moto, botocore's
validator), and the time of Python's own and the standard library's functions to whoever called
them. The figure is the application's share of the profiled time, applied to the round's CPU time
measured without the profiler: an estimate (the profiler slows small calls most), and a floor: the
simulator made free, a round would still cost that."""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from bench import Figure, Options, isolated

from croupier.sim.chaos import GAMES, Job, play
from croupier.sim.world import DEFAULT_RATES, World

TARGET_MS = 2 * 180 * 1000 / 20_000
"""Milliseconds of one core a round may cost for 20,000 rounds in three minutes on two cores."""


def played(game: str, rounds: int, screens: bool) -> tuple[float, int, int]:
    """CPU seconds, rounds finished and steps of one world of ``game`` (in the calling process)."""
    start = time.process_time()
    if screens:
        outcome = play(Job(f"bench/{game}", rounds, 4, 4, tuple(sorted(DEFAULT_RATES.items())), game=game,
                           seamless=1))
        return time.process_time() - start, sum(outcome.rounds.values()), outcome.steps
    world = World(f"bench/{game}", rounds=rounds, tables=4, players=4, game=game, seamless=1, screens=False)
    world.run()
    return time.process_time() - start, sum(world.rounds_finished.values()), world.steps_run


APPLICATION_LIBRARIES = ("aws_lambda_powertools", "pydantic", "pydantic_core", "tenacity")
"""The libraries the application runs on Lambda: their time is the application's."""


def _side(filename: str) -> str | None:
    """``"application"``, ``"simulator"``, ``"other"`` (another library), or None: Python's own or the
    standard library's, counted for whoever called it."""
    if "/croupier/sim/" in filename or "/moto/" in filename or "botocore/validate" in filename:
        return "simulator"
    if "site-packages/" in filename:
        library = filename.split("site-packages/", 1)[1].split("/", 1)[0]
        return "application" if library in APPLICATION_LIBRARIES else "other"
    if "/croupier/" in filename or "/functions/" in filename:
        return "application"
    return None


def application_share(game: str, rounds: int) -> float:
    """The application's share of a world's profiled time (in the calling process)."""
    profile = cProfile.Profile()
    profile.enable()
    play(Job(f"bench/{game}", rounds, 4, 4, tuple(sorted(DEFAULT_RATES.items())), game=game, seamless=1))
    profile.disable()
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]

    def side_of(function: tuple[str, int, str], depth: int = 0) -> str:
        found = _side(function[0])
        callers = stats[function][4] if function in stats else {}
        if found is not None or depth > 8 or not callers:
            return found or "other"
        return side_of(max(callers.items(), key=lambda caller: caller[1][3])[0], depth + 1)

    seconds: Counter[str] = Counter()
    for function, (_, _, own, _, callers) in stats.items():
        side = _side(function[0])
        if side is not None or not callers:
            seconds[side or "other"] += own
            continue
        total = sum(timing[3] for timing in callers.values()) or 1.0
        for caller, timing in callers.items():
            seconds[side_of(caller)] += own * timing[3] / total
    return seconds["application"] / sum(seconds.values())


def chaos(opts: Options) -> Iterator[Figure]:
    rounds = 40 if opts.quick else 200
    for game in GAMES:
        key, app_key = f"chaos.{game}", f"chaos.app.{game}"
        if not (opts.wants(key) or opts.wants(app_key)):
            continue
        seconds, finished, steps = isolated(played, game, rounds, True)
        per_round = 1000 * seconds / finished
        if opts.wants(key):
            yield Figure(key, f"{game}: one simulated round, screens on", per_round, "ms of CPU",
                         TARGET_MS, higher_is_better=False,
                         note=f"{finished} rounds, {steps:,} steps, {seconds:.1f} s of CPU")
        if opts.wants(app_key):
            share = isolated(application_share, game, rounds // 4)
            yield Figure(app_key, f"{game}: the application's own work in that round", share * per_round,
                         "ms of CPU", TARGET_MS, higher_is_better=False,
                         note=f"{100 * share:.0f}% of the time of a profiled world of {rounds // 4} rounds")
    if opts.wants("chaos.screens-off"):
        worlds = [isolated(played, game, rounds, False) for game in GAMES]
        seconds, finished = sum(w[0] for w in worlds), sum(w[1] for w in worlds)
        yield Figure("chaos.screens-off", "all four games: one simulated round, screens off",
                     1000 * seconds / finished, "ms of CPU", TARGET_MS, higher_is_better=False,
                     note=f"{finished} rounds, {seconds:.1f} s of CPU")
