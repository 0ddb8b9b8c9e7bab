"""``make bench`` sections of the proofs and the application: exact RTP timings, simulation
throughput, and a round of each game on the local stack (see ``scripts/bench_stack.py``)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from bench import Figure, Options

GAMES = ("baccarat", "pok-deng", "deluxe-blackjack", "blackjack")


def rtp(opts: Options) -> Iterable[Figure]:
    from croupier.rules import default_rules

    for game, target in (("baccarat", 10.0), ("pok-deng", 10.0), ("deluxe-blackjack", 60.0), ("blackjack", 60.0)):
        key = f"rtp.{game}"
        if not opts.wants(key):
            continue
        module: Any
        if game == "baccarat":
            from croupier.rtp import baccarat as module
        elif game == "pok-deng":
            from croupier.rtp import pokdeng as module
        else:
            from croupier.rtp import blackjack as module
        started = time.process_time()
        module.analyse(default_rules(game))
        seconds = time.process_time() - started
        yield Figure(key, f"exact RTP report, {game} (first run, CPU)", seconds, "s", target=target,
                     higher_is_better=False, note="croupier rtp " + game)


def simulate(opts: Options) -> Iterable[Figure]:
    from croupier.simulate import simulate as run

    rounds = 1000 if opts.quick else 5000
    for game in GAMES:
        key = f"simulate.{game}"
        if not opts.wants(key):
            continue
        report = run(game, rounds, seed=1)
        yield Figure(key, f"simulation, {game}, money and replay checked every round", report.rounds_per_second,
                     "rounds/s", note=f"croupier simulate {game} --rounds {rounds} --seed 1")


def stack(opts: Options) -> Iterable[Figure]:
    import bench_stack

    if not opts.wants("stack"):
        return
    argv = ["--quick"] if opts.quick else []
    bench_stack.main(argv)
    yield Figure("stack.rounds", "local stack rounds (counts above)", 1, "run", note="scripts/bench_stack.py")
