"""``croupier chaos``: many simulated worlds (:mod:`croupier.sim.world`), faults everywhere, every
invariant checked after every step, and the report: rounds played, faults injected by kind,
invariants checked, and every violation with what replays it and the fewest faults that still
cause it.

The rounds are played by worlds of ``--per-world`` rounds each; world ``i`` of seed ``S`` is seeded
``"S/i"``, so the output depends on the seed, the rounds and the fault mix only (never on
``--jobs``, the processes the worlds are spread over): the same command prints the same bytes.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from .world import APART, DEFAULT_RATES, FAULT_KINDS, Plan, World, is_apart_label

GAMES = ("baccarat", "blackjack", "deluxe-blackjack", "pok-deng")
"""The games the simulated dealer deals: all four."""
SHRINK_TRIALS = 40
"""Worlds replayed, at most, to find the fewest faults that still cause a violation."""


@dataclass(frozen=True)
class Job:
    seed: str
    rounds: int
    tables: int
    players: int
    rates: tuple[tuple[str, float], ...]
    spared: frozenset[int] = frozenset()
    game: str = "baccarat"
    seamless: int = 0
    """Of the tables, how many keep their money in the operator's seamless wallet."""
    spared_apart: frozenset[str] = frozenset()
    """The faults drawn apart (each generator of :data:`~croupier.sim.world.APART`) not applied, by
    label."""
    house_rules: bool = False
    """Whether each table plays rules of its own (:mod:`croupier.sim.house`)."""

    def plan(self) -> Plan:
        return Plan(dict(self.rates), self.spared, self.spared_apart)

    def sparing(self, label: str) -> Job:
        """The same run with one more fault spared: a number, or the label of one drawn apart."""
        if label.isdigit():
            return replace(self, spared=self.spared | {int(label)})
        return replace(self, spared_apart=self.spared_apart | {label})

    def spares(self) -> list[str]:
        """The faults it spares, as ``--spare`` names them."""
        apart = sorted(self.spared_apart, key=lambda label: (label[0], int(label[1:])))
        return [str(n) for n in sorted(self.spared)] + apart


@dataclass
class Outcome:
    seed: str
    game: str
    rounds: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    checked: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    invocations: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    drawn: list[tuple[int, str, str]] = field(default_factory=list)
    steps: int = 0
    virtual_seconds: float = 0.0
    dead_letters: int = 0
    voided_why: Counter[str] = field(default_factory=Counter)
    resumed: int = 0
    drawn_apart: list[tuple[str, str, str]] = field(default_factory=list)
    pushes: Counter[str] = field(default_factory=Counter)
    """The push queue's messages: delivered (within a second, after more than ``QUIET`` seconds)
    and sent to its dead-letter queue."""
    push_longest: float = 0.0
    reconfigured: Counter[str] = field(default_factory=Counter)
    """On house rules: the operator's changes of a table's rules, taken, refused and failed."""
    bets_refused: Counter[str] = field(default_factory=Counter)
    """The players' bet requests refused, by reason."""
    players_drawn: Counter[str] = field(default_factory=Counter)
    """On house rules: the wallets short of funds, the seats taken by the player of the table before,
    the Deluxe tables seating a player twice, the players seated nowhere, the players staking cents
    (:attr:`croupier.sim.world.World.players_drawn`)."""
    rounded_down: int = 0
    """The settled bets whose exact payout fell between minor units, paid rounded down."""


def play(job: Job) -> Outcome:
    world = World(job.seed, job.plan(), rounds=job.rounds, tables=job.tables, players=job.players, game=job.game,
                  seamless=job.seamless, house_rules=job.house_rules)
    world.run()
    out = Outcome(job.seed, job.game, Counter(world.rounds_finished), Counter(world.faults.injected),
                  Counter(world.invariants.checked), Counter(world.function_errors), Counter(world.invocations),
                  [f"step {v.step} at {v.at:.2f} s: {v.invariant}: {v.detail}" for v in world.violations],
                  list(world.trace), list(world.faults.drawn), world.steps_run, world.clock.monotonic(),
                  len(world.dead_lettered), Counter(world.voided_why), world.resumed, world.drawn_apart(),
                  pushes(world), max(world.pushed_after, default=0.0), Counter(world.reconfigured),
                  Counter(world.bets_refused), Counter(world.players_drawn), world.invariants.rounded_down)
    return out


QUIET = 15.0
"""Seconds a page hears no public event before it asks for its tables' snapshots again
(``web/js/api.js``)."""


def pushes(world: World) -> Counter[str]:
    """How late the push function took the push queue's messages (see :class:`Outcome`)."""
    after = world.pushed_after
    return Counter({"delivered": len(after), "within 1 s": sum(1 for a in after if a <= 1.0),
                    f"after {QUIET:g} s": sum(1 for a in after if a > QUIET),
                    "dead-lettered": len(world.push_queue.dead_letter.messages) if world.push_queue.dead_letter
                    else 0})


def spareable(outcome: Outcome) -> list[str]:
    """The faults a run drew, by label, in the order the shrinking tries sparing them: the last
    drawn first, the rounds' own and each generator drawn apart taken in turn (a defect on the
    way to the wallet is shrunk within the trials as well as one of the rounds')."""
    queues = [[str(n) for n, _, _ in reversed(outcome.drawn)]]
    for letter in APART.values():
        queues.append([label for label, _, _ in reversed(outcome.drawn_apart) if label[0] == letter])
    return [label for turn in itertools.zip_longest(*queues) for label in turn if label is not None]


def shrink(job: Job, found: Outcome) -> tuple[Job, Outcome]:
    """The shortest run (fewest rounds, then fewest faults) that still breaks the first invariant
    ``found`` broke: the same draws, fewer rounds played, faults spared one at a time."""
    invariant = found.violations[0].split(": ")[1]

    def breaks(candidate: Job) -> Outcome | None:
        outcome = play(candidate)
        return outcome if any(v.split(": ")[1] == invariant for v in outcome.violations) else None

    best, best_outcome, trials = job, found, 0
    low, high = 1, job.rounds
    while low < high and trials < SHRINK_TRIALS // 2:
        middle = (low + high) // 2
        trials += 1
        candidate = replace(job, rounds=middle)
        outcome = breaks(candidate)
        if outcome is not None:
            high, best, best_outcome = middle, candidate, outcome
        else:
            low = middle + 1
    for label in spareable(best_outcome):
        if trials >= SHRINK_TRIALS:
            break
        trials += 1
        candidate = best.sparing(label)
        outcome = breaks(candidate)
        if outcome is not None:
            best, best_outcome = candidate, outcome
    return best, best_outcome


def run_chaos(rounds: int, seed: int, rates: dict[str, float], *, per_world: int = 250, tables: int = 4,
              players: int = 4, jobs: int = 1, shrinking: bool = True, games: tuple[str, ...] = GAMES,
              seamless: int = 1, house_rules: bool = False) -> tuple[list[Outcome], list[tuple[Job, Outcome]]]:
    """Play ``rounds`` in worlds of ``per_world`` rounds; world ``i`` plays ``games[i % len(games)]``."""
    jobs_list = []
    for index, start in enumerate(range(0, rounds, per_world)):
        jobs_list.append(Job(f"{seed}/{index}", min(per_world, rounds - start), tables, players,
                             tuple(sorted(rates.items())), game=games[index % len(games)],
                             seamless=min(seamless, tables), house_rules=house_rules))
    if jobs > 1:
        # spawned, not forked: the caller may run threads (a test session's local stacks)
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            outcomes = list(pool.map(play, jobs_list))
    else:
        outcomes = [play(job) for job in jobs_list]
    shrunk = [shrink(job, outcome) for job, outcome in zip(jobs_list, outcomes, strict=True)
              if outcome.violations and shrinking]
    return outcomes, shrunk


def report(rounds: int, seed: int, rates: dict[str, float], outcomes: list[Outcome],
           shrunk: list[tuple[Job, Outcome]], per_world: int, tables: int, seamless: int,
           house_rules: bool = False) -> str:
    total: dict[str, Counter[str]] = {name: Counter() for name in ("rounds", "faults", "checked", "errors",
                                                                   "invocations", "voided_why")}
    steps = 0
    for outcome in outcomes:
        for name in total:
            total[name].update(getattr(outcome, name))
        steps += outcome.steps
    games = Counter(o.game for o in outcomes)
    lines = [f"croupier chaos: seed {seed}, {rounds} rounds in {len(outcomes)} worlds "
             f"(each up to {per_world} rounds on {tables} tables, {min(seamless, tables)} of them on the "
             f"operator's seamless wallet{', each table on house rules' if house_rules else ''}; worlds by game: "
             f"{', '.join(f'{g} {n}' for g, n in sorted(games.items()))})",
             f"rounds: {sum(total['rounds'].values())} finished "
             f"({', '.join(f'{n} {k}' for k, n in sorted(total['rounds'].items()))})",
             f"voided because: {', '.join(f'{why} {n}' for why, n in sorted(total['voided_why'].items())) or '-'}; "
             f"paused rounds the supervisor resumed: {sum(o.resumed for o in outcomes)}",
             f"steps: {steps}; invocations: {sum(total['invocations'].values())} "
             f"({', '.join(f'{k} {n}' for k, n in sorted(total['invocations'].items()))})",
             f"faults injected: {sum(total['faults'].values())}"]
    lines += [f"  {kind:<20} {total['faults'][kind]:>8}   (chance {rates.get(kind, 0.0):g})" for kind in FAULT_KINDS]
    lines.append(f"invariants checked: {sum(total['checked'].values())}")
    lines += [f"  {name:<20} {count:>8}" for name, count in sorted(total["checked"].items())]
    lines.append(f"device events dead-lettered (the operators' alarm; each redriven 5 to 15 minutes on): "
                 f"{sum(o.dead_letters for o in outcomes)}")
    sent = Counter[str]()
    for outcome in outcomes:
        sent.update(outcome.pushes)
    if sent["delivered"]:
        lines.append(f"pushes to screens: {sent['delivered']} delivered, {sent['within 1 s']} within 1 s, "
                     f"{sent[f'after {QUIET:g} s']} after more than {QUIET:g} s (a failed delivery holds its "
                     f"message group for the push queue's visibility timeout; a page that hears no public event "
                     f"for {QUIET:g} s asks for its tables again), the latest after "
                     f"{max(o.push_longest for o in outcomes):.0f} s; {sent['dead-lettered']} dead-lettered")
    if total["errors"]:
        lines.append("function errors (the caller saw them and retried):")
        lines += [f"  {name:<60} {count:>6}" for name, count in sorted(total["errors"].items())]
    changed, refused, drawn = Counter[str](), Counter[str](), Counter[str]()
    for outcome in outcomes:
        changed.update(outcome.reconfigured)
        refused.update(outcome.bets_refused)
        drawn.update(outcome.players_drawn)
    if house_rules:
        lines.append(f"players on house rules: wallets short of funds (20 to 200 units) {drawn['short of funds']}, "
                     f"seats taken by the player of the table before (one wallet, two tables' rounds at once) "
                     f"{drawn['seats of a player of the table before']}, Deluxe tables seating a player twice "
                     f"{drawn['second seats']}, players betting behind, seated nowhere "
                     f"{drawn['players betting behind, seated nowhere']}, players staking cents "
                     f"{drawn['staking cents']}; "
                     f"payouts rounded down to the minor unit {sum(o.rounded_down for o in outcomes)}")
    if refused:
        lines.append(f"bet requests refused (nothing taken): "
                     f"{', '.join(f'{why} {n}' for why, n in sorted(refused.items()))}")
    if changed:
        lines.append(f"tables' rules changed by the operator between rounds: {changed['taken']} taken, "
                     f"{changed['refused']} refused (a round in play), {changed['failed']} failed")
    broken = [o for o in outcomes if o.violations]
    lines.append(f"violations: {sum(len(o.violations) for o in outcomes)}")
    for outcome in broken:
        lines.append(f"  world {outcome.seed} ({outcome.game}):")
        lines += [f"    {v}" for v in outcome.violations[:10]]
    for job, outcome in shrunk:
        spared = ",".join(job.spares())
        kept = [f"#{n} {kind} at {where}" for n, kind, where in outcome.drawn if n not in job.spared]
        kept += [f"#{label} {kind} at {where}" for label, kind, where in outcome.drawn_apart
                 if label not in job.spared_apart]
        lines.append(f"  shortest reproduction of world {job.seed}: "
                     f"croupier chaos --world {job.seed} --game {job.game} --rounds {job.rounds} "
                     f"--tables {job.tables} --players {job.players} --seamless {job.seamless}"
                     f"{' --house-rules' if job.house_rules else ''}"
                     f"{' --spare ' + spared if spared else ''}  ({len(kept)} faults left: {'; '.join(kept[:12])})")
        lines.append("    its last steps:")
        lines += [f"      {line}" for line in outcome.trace[-25:]]
    return "\n".join(lines)


def parse_rates(text: str | None) -> dict[str, float]:
    rates = dict(DEFAULT_RATES)
    if not text:
        return rates
    for part in text.split(","):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {name!r}: the kinds are {', '.join(FAULT_KINDS)}")
        try:
            rates[name] = float(value)
        except ValueError:
            raise ValueError(f"the chance of {name} must be a number from 0 to 1, not {value!r}") from None
        if not 0.0 <= rates[name] <= 1.0:
            raise ValueError(f"the chance of {name} must be from 0 to 1, not {value}")
    return rates


def parse_spare(text: str | None) -> tuple[frozenset[int], frozenset[str]]:
    """``--spare``: the rounds' faults by number, those drawn apart by label (a letter of
    :data:`~croupier.sim.world.APART` and a number), separated by commas, as a report names them."""
    labels = [part.strip() for part in (text or "").split(",") if part.strip()]
    bad = [label for label in labels if not (label.isdigit() or is_apart_label(label))]
    if bad:
        raise ValueError(f"--spare is faults separated by commas, as a report names them (a number, or "
                         f"{', '.join(APART.values())} and a number for one drawn apart), not {', '.join(bad)}")
    return (frozenset(int(label) for label in labels if label.isdigit()),
            frozenset(label for label in labels if not label.isdigit()))


def run(args: argparse.Namespace) -> int:
    try:
        rates = parse_rates(args.faults)
        if args.game is not None and args.game not in GAMES:
            raise ValueError(f"--game is one of {', '.join(GAMES)}, not {args.game!r}")
        spared, spared_apart = parse_spare(args.spare)
        if args.rounds < 1 or args.per_world < 1 or args.tables < 1 or args.players < 1 or args.jobs < 1:
            raise ValueError("--rounds, --per-world, --tables, --players and --jobs are at least 1")
        if not 0 <= args.seamless <= args.tables:
            raise ValueError(f"--seamless is from 0 to the tables ({args.tables}), not {args.seamless}")
    except ValueError as exc:
        print(f"croupier chaos: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    if args.world:
        job = Job(args.world, args.rounds, args.tables, args.players, tuple(sorted(rates.items())), spared,
                  args.game or "baccarat", args.seamless, spared_apart, args.house_rules)
        outcome = play(job)
        print(report(args.rounds, 0, rates, [outcome], [], args.rounds, args.tables, args.seamless, args.house_rules))
        if outcome.violations:
            print("its last steps:\n" + "\n".join(f"  {line}" for line in outcome.trace[-40:]))
        return 1 if outcome.violations else 0
    games = (args.game,) if args.game else GAMES
    outcomes, shrunk = run_chaos(args.rounds, args.seed, rates, per_world=args.per_world, tables=args.tables,
                                 players=args.players, jobs=args.jobs, shrinking=not args.no_shrink, games=games,
                                 seamless=args.seamless, house_rules=args.house_rules)
    print(report(args.rounds, args.seed, rates, outcomes, shrunk, args.per_world, args.tables, args.seamless,
                 args.house_rules))
    print(f"({time.monotonic() - started:.0f} s of this machine's time)", file=sys.stderr)
    return 1 if any(o.violations for o in outcomes) else 0
