"""Hold many simulated worlds to the spec's oracles (``tests/support/spec_check.py``): each game's
worlds ``sweep-GAME/N`` for N from ``--first`` to ``--last``, every settled round's dealing and hands
and every settled bet's payout checked against what the spec says, and the simulator's invariants
as in every world. Prints, per game, the rounds and bets checked; then every world with anything
wrong (its first lines) and the totals. Exits 1 if anything was wrong.

Usage: ``spec_sweep.py --first 200 --last 299 [--rounds 60] [--game G] [--no-house-rules]
[--screens] [--jobs 2]`` (``docs/reliability.md``, *The spec's oracles*).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("baccarat", "blackjack", "deluxe-blackjack", "pok-deng")


def _at_least(low: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value
    return parse


def sweep_one(game: str, number: int, rounds: int, house: bool, screens: bool) -> tuple[str, int, list[str], list[str],
                                                                                         Counter[str]]:
    """One world played and held to the spec: its game, number, what was wrong, its violations and
    what was checked."""
    sys.path[:0] = [str(ROOT), str(ROOT / "layers" / "shared")]
    from croupier.sim.world import DEFAULT_RATES, Plan, World
    from tests.support.spec_check import CHECKS

    played = World(f"sweep-{game}/{number}", Plan(dict(DEFAULT_RATES)), rounds=rounds, tables=3, players=4, game=game,
                   house_rules=house, screens=screens)
    played.run()
    wrong, checked = CHECKS[game](played)
    return game, number, wrong, [f"{v.invariant}: {v.detail}" for v in played.violations], checked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--first", type=_at_least(0), required=True, help="the first world's number")
    parser.add_argument("--last", type=_at_least(0), required=True, help="the last world's number")
    parser.add_argument("--rounds", type=_at_least(1), default=60, help="rounds per world (default 60)")
    parser.add_argument("--game", choices=GAMES, action="append", help="a game (default: all four)")
    parser.add_argument("--house-rules", action=argparse.BooleanOptionalAction, default=True,
                        help="each table on house rules of its own (default) or its game's defaults")
    parser.add_argument("--screens", action="store_true", help="simulate the screens too (twice the cost)")
    parser.add_argument("--jobs", type=_at_least(1), default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    if args.last < args.first:
        parser.error(f"--last {args.last} comes before --first {args.first}")
    games = tuple(args.game or GAMES)
    start, totals, failed = time.monotonic(), Counter[str](), 0
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(sweep_one, game, n, args.rounds, args.house_rules, args.screens)
                   for n in range(args.first, args.last + 1) for game in games]
        for future in futures:
            game, number, wrong, violations, checked = future.result()
            totals[f"{game} rounds"] += checked["rounds"]
            totals[f"{game} bets"] += checked["bets"]
            if wrong or violations:
                failed += 1
                print(f"sweep-{game}/{number}: {len(wrong)} wrong, {len(violations)} violations")
                for line in (wrong + violations)[:5]:
                    print(f"  {line}")
    for game in games:
        print(f"{game}: {totals[f'{game} rounds']} settled rounds, {totals[f'{game} bets']} settled bets")
    print(f"{len(futures)} worlds, {sum(v for k, v in totals.items() if k.endswith('rounds'))} rounds, "
          f"{sum(v for k, v in totals.items() if k.endswith('bets'))} bets; {failed} worlds with something wrong; "
          f"{time.monotonic() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
