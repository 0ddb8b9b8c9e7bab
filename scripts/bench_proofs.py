"""``make bench`` sections of the proofs and the application: exact RTP timings, simulation
throughput, and a round of each game on the local stack (see ``scripts/bench_stack.py``)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import Any

from bench import Figure, Options, isolated

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


def help_figures(opts: Options) -> Iterable[Figure]:
    """What a table's help (``GET /tables/{id}/help``) computes on a request: its exact RTP figures for
    a rule set not seen yet, in a process that already served another one (the first one's cost is
    the ``rtp`` section's: Baccarat enumerates the shoe's coup classes once per process)."""
    from fractions import Fraction

    from croupier.app import help as table_help
    from croupier.rules import default_rules

    for game, changed in (("baccarat", {"payouts": {"player_pair": "25:1"}}),
                          ("pok-deng", {"special_combinations": ["lion-flush", "special-pair", "court-cards"]}),
                          ("blackjack", {"pair_paytable": {"same-rank": "15:1"}})):
        key = f"help.{game}"
        if not opts.wants(key):
            continue
        rules = default_rules(game)
        table_help.exact_rtp(game, rules)  # the process has served a table of the game already
        other = type(rules).model_validate({**rules.model_dump(mode="json", by_alias=True), **changed})
        assert table_help.rules_hash(game, other) != table_help.rules_hash(game, rules)  # not kept yet
        started = time.perf_counter()
        figures = table_help.exact_rtp(game, other)
        seconds = time.perf_counter() - started
        assert all(isinstance(v, Fraction) for v in figures.values())
        yield Figure(key, f"a table's help, {game}: the exact RTP of a new rule set, the game seen before",
                     seconds * 1000, "ms", target=1000.0, higher_is_better=False,
                     note="blackjack: Pair and insurance (its main bet is not computed on a request)"
                     if game == "blackjack" else "")


def demo(opts: Options) -> Iterable[Figure]:
    """The README's main command, timed whole: ``make demo``'s work (``python -m croupier.local.demo``:
    the local stack started, rounds of all four games played, the audit), set-up aside, in a process
    of its own. It must end with the audit passed, or no figure is given."""
    import subprocess
    import sys

    if not opts.wants("demo.wall_s"):
        return
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "croupier.local.demo"], capture_output=True, text=True,
                          timeout=1800, check=False)
    seconds = time.perf_counter() - started
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0:
        raise RuntimeError(f"the demo failed ({done.returncode}): {last or done.stderr[-2000:]}")
    yield Figure("demo.wall_s", "make demo: the local stack, rounds of all four games and the audit (wall)",
                 seconds, "s", higher_is_better=False, note=f"its last line: {last}")


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


def cards(opts: Options) -> Iterable[Figure]:
    import bench_cards

    if not opts.touches("cards"):
        return
    out = isolated(bench_cards.main, ["--rounds", "3" if opts.quick else "8"])
    note = "scripts/bench_cards.py"
    for key, label in (("scan_to_applied_ms", "scan to applied (local stack)"),
                       ("scan_to_next_wait_ms", "scan to the workflow's next wait (local stack)")):
        yield Figure(f"cards.{key}.median", f"{label}, median", out[key]["median"], "ms", higher_is_better=False,
                     note=note)
        yield Figure(f"cards.{key}.p99", f"{label}, p99", out[key]["p99"], "ms", higher_is_better=False, note=note)
    yield Figure("cards.aws_steps", "sequential steps from a scan to ready for the next card, on AWS",
                 out["sequential_steps_to_ready"], "steps", higher_is_better=False, note=note)
    yield Figure("cards.aws_estimate", "estimated on AWS at typical latencies", out["aws_estimate_ms"], "ms",
                 higher_is_better=False, note=note)


def screens(opts: Options) -> Iterable[Figure]:
    import bench_screens

    if not opts.touches("screens"):
        return
    out = isolated(bench_screens.main, ["--rounds", "2" if opts.quick else "4"])
    note = "scripts/bench_screens.py"
    for phase, measured in out["phases"].items():
        key = "watched" if measured["watchers"] else "alone"
        yield Figure(f"screens.{key}.game_invocations", f"{phase}: game invocations per round",
                     measured["game_invocations_per_round"], "calls", higher_is_better=False, note=note)
        yield Figure(f"screens.{key}.round_s", f"{phase}: round open to settled (median)",
                     measured["round_wall_s_median"], "s", higher_is_better=False, note=note)
        yield Figure(f"screens.{key}.scan_to_applied_ms", f"{phase}: scan to applied (median)",
                     measured["scan_to_applied_ms_median"], "ms", higher_is_better=False, note=note)
        if measured["settled_to_last_watcher_ms"] is not None:
            yield Figure(f"screens.{key}.settled_to_last_watcher_ms", f"{phase}: settled to the last watcher",
                         measured["settled_to_last_watcher_ms"], "ms", higher_is_better=False, note=note)
    cost = out["aws_per_round_per_1000"]
    yield Figure("screens.aws_push_usd", "AWS, per round per 1,000 watchers: push", cost["push_usd"], "USD",
                 higher_is_better=False, note=note)
    yield Figure("screens.aws_polling_usd", "AWS, per round per 1,000 watchers: polling once a second",
                 cost["polling_usd"], "USD", higher_is_better=False, note=note)


def seamless(opts: Options) -> Iterable[Figure]:
    import bench_seamless

    if not opts.touches("seamless"):
        return
    out = isolated(bench_seamless.main, ["--seconds", "6" if opts.quick else "12", "--outage", "60"])
    note = "scripts/bench_seamless.py"
    for label, measured in out["bets"].items():
        key = label.replace(",", "").replace(" ", "_")
        yield Figure(f"seamless.{key}.bets_per_s", f"{label}: bets per second at the table", measured["bets_per_s"],
                     "bets/s", note=note)
        yield Figure(f"seamless.{key}.p50_ms", f"{label}: one bet, p50", measured["p50_ms"], "ms",
                     higher_is_better=False, note=note)
        yield Figure(f"seamless.{key}.p99_ms", f"{label}: one bet, p99", measured["p99_ms"], "ms",
                     higher_is_better=False, note=note)
    yield Figure("seamless.added_p50_ms", "what a 50 ms wallet adds to a bet, p50", out["added_ms"]["p50"], "ms",
                 higher_is_better=False, note=note)
    yield Figure("seamless.added_p99_ms", "what a 50 ms wallet adds to a bet, p99", out["added_ms"]["p99"], "ms",
                 higher_is_better=False, note=note)
    yield Figure("seamless.calls_per_bet", "wallet calls per bet of a round (a debit and a credit)",
                 out["outage"]["calls_per_bet"], "calls", higher_is_better=False, note=note)
    yield Figure("seamless.drain_after_outage_s", "a round's credits drained after a 60 s outage",
                 out["outage"]["drain_s"], "s", higher_is_better=False, note=note)


def localstore(opts: Options) -> Iterable[Figure]:
    import bench_localstore

    if not opts.touches("localstore"):
        return
    sizes = [1_000, 10_000] if opts.quick else [1_000, 10_000, 30_000]
    note = "scripts/bench_localstore.py"
    for patched in (False, True):
        name = "patched" if patched else "moto"
        for items, ms in bench_localstore.run_sizes(sizes, patched).items():
            label = "the local stack's patch" if patched else "moto as it ships"
            yield Figure(f"localstore.{name}_{items}_ms", f"{label}, a table of {items:,} items", ms, "ms/query",
                         higher_is_better=False, note=note)


def stack(opts: Options) -> Iterable[Figure]:
    import bench_stack

    from croupier.local.prices import read_on

    if not opts.touches("stack"):
        return
    argv = ["--quick"] if opts.quick else []
    note = "scripts/bench_stack.py"
    for row in isolated(bench_stack.rows, argv):
        key = "stack." + re.sub(r"[^a-z0-9]+", "-", row["round"]).strip("-")
        what = f"{row['round']} ({row['bets']:,} bets, {row['status']})"
        yield Figure(f"{key}.wall_s", f"{what}: wall time (moto's)", row["wall_s"], "s", higher_is_better=False,
                     note=note)
        for field, label, unit in (("lambda", "Lambda invocations", "calls"),
                                   ("api_requests", "API requests that change something", "requests"),
                                   ("transitions", "Step Functions state transitions", "transitions"),
                                   ("ddb_requests", "DynamoDB requests", "requests"),
                                   ("ddb_write_units", "DynamoDB write units", "WU"),
                                   ("card_events", "table events (scans and console)", "events")):
            yield Figure(f"{key}.{field}", f"{what}: {label}", row[field], unit, higher_is_better=False, note=note)
        billed = (f"Lambda billed {bench_stack.ASSUMED_LAMBDA_SECONDS * 1000:.0f} ms at "
                  f"{bench_stack.LAMBDA_MEMORY_GB * 1024:.0f} MB per invocation, assumed")
        yield Figure(f"{key}.usd", f"{what}: cost on AWS at list prices", row["usd"], "USD",
                     higher_is_better=False, note=f"{note} ({billed}; {read_on()})")
