"""The ``chaos`` section of ``make bench``: what one simulated round costs (``croupier.sim``).

One world per game, as ``croupier chaos`` plays it: four tables of four players, one of them on
the operator's seamless wallet, the default fault mix, the screens watching, every invariant
checked after every step. Each world is played in a fresh process (nothing warmed by another) and
timed by that process's CPU time; a figure is its milliseconds of one core per round played, and
the last one the same with the screens off (the live and push functions, the screens), all four
games together.

The target is the issue's: 20,000 rounds within three minutes on this machine's two cores, so
18 ms of one core a round."""

from __future__ import annotations

import time
from collections.abc import Iterator

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


def chaos(opts: Options) -> Iterator[Figure]:
    rounds = 40 if opts.quick else 200
    for game in GAMES:
        key = f"chaos.{game}"
        if not opts.wants(key):
            continue
        seconds, finished, steps = isolated(played, game, rounds, True)
        yield Figure(key, f"{game}: one simulated round, screens on", 1000 * seconds / finished, "ms of CPU",
                     TARGET_MS, higher_is_better=False,
                     note=f"{finished} rounds, {steps:,} steps, {seconds:.1f} s of CPU")
    if opts.wants("chaos.screens-off"):
        worlds = [isolated(played, game, rounds, False) for game in GAMES]
        seconds, finished = sum(w[0] for w in worlds), sum(w[1] for w in worlds)
        yield Figure("chaos.screens-off", "all four games: one simulated round, screens off",
                     1000 * seconds / finished, "ms of CPU", TARGET_MS, higher_is_better=False,
                     note=f"{finished} rounds, {seconds:.1f} s of CPU")
