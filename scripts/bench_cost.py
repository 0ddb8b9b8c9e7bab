"""``make bench`` section ``cost``: what ``croupier cost`` prints, as figures: for each game, the
state transitions of a round and the price of 1,000 rounds at 1, 100 and 10,000 viewers, counted
from the calls a round makes on the local stack (:mod:`croupier.local.cost`).

Targets: a Baccarat round of 7 bets and a Pok Deng round at most 10 transitions; 1,000 Baccarat
rounds at most $0.85 at one viewer (half of the $1.70 counted before the workflow waited for
what it needs) and at most $1.80 at 100 viewers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from bench import Figure, Options, Run, isolated

TARGETS = {("baccarat", 1): 0.85, ("baccarat", 100): 1.80}
TRANSITIONS = {"baccarat": 10, "pok-deng": 10}
GAMES = {"baccarat": "Baccarat", "pok-deng": "Pok Deng", "deluxe-blackjack": "Deluxe Blackjack",
         "blackjack": "Blackjack (classic)"}
ROUND = re.compile(r"^(?P<game>[a-z-]+), (?P<bets>\d+) bets, (?P<cards>\d+) cards: state transitions$")
"""A round's transitions figure's label: the game, its bets and its cards."""


def measure(games: tuple[str, ...], viewers: int) -> dict[str, Any]:
    """In a process of its own (a local stack per process): the rounds, and the report's figures."""
    from croupier.local import cost
    from croupier.local.stack import LocalStack, project_root

    with LocalStack(project_root()) as stack:
        bills = cost.play(stack, games, (1, viewers), out=lambda line: print(line, flush=True))
    return cost.report(bills, out=lambda line: None)


def cost(opts: Options) -> Iterable[Figure]:
    from croupier.local.prices import read_on

    if not opts.touches("cost"):
        return
    games = ("baccarat",) if opts.quick else ("baccarat", "pok-deng", "deluxe-blackjack", "blackjack")
    viewers = 10 if opts.quick else 100
    summary = isolated(measure, games, viewers)
    note = f"croupier cost (measured at 1 and {viewers} viewers; {read_on()})"
    for game in games:
        rounds = [r for r in summary["rounds"] if r["game"] == game]
        first = rounds[0]
        yield Figure(f"cost.{game}.transitions", f"{game}, {first['bets']} bets, {first['cards']} cards: "
                     "state transitions", first["transitions"], "transitions", TRANSITIONS.get(game),
                     higher_is_better=False, note=note)
        for at, by_service in summary["per_1000_rounds_usd"][game].items():
            total = sum(by_service.values())
            biggest = max(by_service, key=by_service.get)
            yield Figure(f"cost.{game}.usd_per_1000_at_{at}", f"{game}: 1,000 rounds at {int(at):,} viewers",
                         round(total, 2), "USD", TARGETS.get((game, int(at))), higher_is_better=False,
                         note=f"{note}; the largest share: {biggest} {100 * by_service[biggest] / total:.0f}%")


def readme_table(figures: Sequence[Figure], run: Run) -> str:
    """The README's table of what 1,000 rounds cost, from a run's figures of this section."""
    rounds = {m["game"]: m for f in figures if (m := ROUND.match(f.label))}
    usd = {f.key.removeprefix("cost."): f.value for f in figures if ".usd_per_1000_at_" in f.key}
    viewers = sorted({int(key.rsplit("_", 1)[1]) for key in usd})

    def money(value: float) -> str:
        return f"${value:,.2f}" if value < 10 else f"${value:,.0f}"

    lines = ["| 1,000 rounds of | bets, cards | " + " | ".join(
                 f"{v:,} viewer{'s' if v > 1 else ''}" for v in viewers) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in viewers) + " |"]
    for game, seen in rounds.items():
        lines.append(f"| {GAMES.get(game, game)} | {seen['bets']} bets, {seen['cards']} cards | " + " | ".join(
            money(usd[f"{game}.usd_per_1000_at_{v}"]) for v in viewers) + " |")
    lines += ["", f"Written by `{run.command}` on {run.date} at commit {run.commit} "
              "([benchmarks.md](docs/benchmarks.md), section `cost`)."]
    return "\n".join(lines) + "\n"
