"""``make bench``: the performance figures of the issue "rules core", each beside its target.

Run ``python scripts/bench.py`` (``--quick`` for fewer rounds, ``--only KEY`` for one figure or
one section, ``--runs N`` to change how many timed runs a median is taken over). Figures are
measured in one process pinned to one core; they are printed, never asserted (the tests do not
depend on the machine's speed).

Adding a section
    A section is a function ``run(opts: Options) -> Iterable[Figure]`` in any module of
    ``scripts/``; list it in :data:`SECTIONS` as ``Section(name, title, "module:function")``. It
    measures only the figures ``opts.wants(key)`` asks for (keys are ``"<section>.<figure>"``),
    takes its sizes from ``opts.quick``/``opts.runs``, and yields one :class:`Figure` per figure.
    :func:`median_rate` and :func:`median_seconds` time a callable the same way for everyone.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    run: str
    """``"module:function"`` in ``scripts/``, imported only when the section runs."""


SECTIONS: list[Section] = [
    Section("engines", "The engines alone, one core: construct with bets, deal, decide, settle every bet",
            "bench_engines:engines"),
    Section("replay", "Replay of one round (in-process) and croupier start-up (whole process)",
            "bench_engines:replay"),
    Section("rtp", "The exact RTP report of one rule set", "bench_proofs:rtp"),
    Section("simulate", "The shoe simulator, one core", "bench_proofs:simulate"),
    Section("roads", "The roads (scoreboards) of whole dealt shoes, one core", "bench_roads:roads"),
    Section("cards", "Dealing at table speed on the local stack: scan to applied, scan to the next wait",
            "bench_proofs:cards"),
    Section("screens", "The push to the screens: a table with no one watching, then with 1,000 idle watchers",
            "bench_proofs:screens"),
    Section("stack", "The application on the local stack: one round each, and rounds of 1,000 and 10,000 bets",
            "bench_proofs:stack"),
    Section("seamless", "Seamless wallets: bets at an operator's wallet (at once, 50 ms), calls per bet, "
            "credits after a 60 s outage", "bench_proofs:seamless"),
    Section("localstore", "The local stack's DynamoDB (moto): one query of one partition as the table grows",
            "bench_proofs:localstore"),
]
"""Every section of ``make bench``, in the order they run. Add yours here."""


@dataclass(frozen=True)
class Figure:
    key: str
    """``"<section>.<figure>"``: what ``--only`` selects."""
    label: str
    value: float
    unit: str
    target: float | None = None
    higher_is_better: bool = True
    note: str = ""

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        ok = self.value >= self.target if self.higher_is_better else self.value < self.target
        return "PASS" if ok else "BELOW"


@dataclass
class Options:
    quick: bool = False
    runs: int = 7
    only: Sequence[str] = ()
    core: int | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def wants(self, key: str) -> bool:
        """Whether figure ``key`` (``"section.figure"``) is to be measured."""
        if not self.only:
            return True
        return any(key == o or key.startswith(o + ".") for o in self.only)

    def command(self, key: str) -> str:
        """The command that measures this one figure again, with the same options."""
        parts = [_display(Path(sys.executable)), "scripts/bench.py", "--only", key]
        if self.quick:
            parts.append("--quick")
        if self.runs != default_runs(self.quick):
            parts += ["--runs", str(self.runs)]
        return " ".join(shlex.quote(p) for p in parts)


def default_runs(quick: bool) -> int:
    return 3 if quick else 7


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT)) if path.is_absolute() else str(path)
    except ValueError:
        return str(path)


# --- timing helpers shared by every section ---------------------------------------------------


def prepare_heap() -> None:
    """Collect, then freeze what is alive (the pre-generated input), so that garbage collection
    during a timed run sees only what the run itself allocates."""
    gc.collect()
    gc.freeze()


@dataclass(frozen=True)
class Timing:
    """Medians over the timed runs: ``wall`` (``time.perf_counter``, the reported figure) and
    ``cpu`` (``time.process_time`` of this process: what the run cost when other processes
    compete for the core)."""

    wall: float
    cpu: float


def measure(fn: Callable[[], object], runs: int) -> Timing:
    """Median wall and CPU seconds of ``runs`` calls of ``fn`` (after one warm-up call)."""
    fn()
    walls, cpus = [], []
    for _ in range(runs):
        cpu = time.process_time()
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return Timing(statistics.median(walls), statistics.median(cpus))


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    """The median wall time of ``runs`` calls of ``fn`` (one warm-up call first)."""
    return measure(fn, runs).wall


def median_rate(fn: Callable[[], object], count: int, runs: int) -> float:
    """``count / median_seconds(fn)``: items a second when one call of ``fn`` handles ``count``."""
    return count / median_seconds(fn, runs)


# --- the report ------------------------------------------------------------------------------


def _format_value(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _format_target(figure: Figure) -> str:
    if figure.target is None:
        return ""
    sign = ">=" if figure.higher_is_better else "<"
    return f"target {sign} {_format_value(figure.target)}"


def machine_note() -> str:
    """The load average and a reference loop, to compare figures taken on different machines (or
    on one machine under different load): every figure scales roughly with the reference."""
    start = time.process_time()
    sum(range(10_000_000))
    reference = time.process_time() - start
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    return (f"{os.cpu_count()} CPUs, load average {load}; reference loop sum(range(10**7)) "
            f"{reference * 1e3:.0f} ms CPU")


def pin_to_one_core(core: int | None) -> str:
    """Pin this process (and the processes it starts) to one core; returns a description."""
    if not hasattr(os, "sched_setaffinity"):
        return "one process (no CPU pinning on this platform)"
    allowed = sorted(os.sched_getaffinity(0))
    chosen = core if core is not None else allowed[-1]
    os.sched_setaffinity(0, {chosen})
    return f"one process pinned to core {chosen} of {len(allowed)}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and runs (a rough figure in seconds)")
    parser.add_argument("--only", action="append", default=[], metavar="KEY",
                        help="measure only this section or figure (repeatable), e.g. engines or engines.baccarat")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per figure (the median is reported)")
    parser.add_argument("--core", type=int, default=None, help="the CPU core to pin to (default: the last allowed)")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    args = parser.parse_args(argv)
    if args.list:
        for section in SECTIONS:
            print(f"{section.name:<12} {section.title}")
        return 0
    opts = Options(quick=args.quick, runs=args.runs or default_runs(args.quick), only=tuple(args.only),
                   core=args.core)
    known = {s.name for s in SECTIONS}
    unknown = [o for o in opts.only if o.split(".")[0] not in known]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; sections are {', '.join(sorted(known))}")

    where = pin_to_one_core(opts.core)
    impl = platform.python_implementation()
    print(f"Croupier benchmark: {impl} {platform.python_version()} on {platform.machine()}, {where}; "
          f"median of {opts.runs} runs{' (--quick)' if opts.quick else ''}")
    print(f"Machine: {machine_note()}")
    sys.modules.setdefault("bench", sys.modules[__name__])  # sections import Figure & co. from here
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    below = 0
    for section in SECTIONS:
        if opts.only and not any(o.split(".")[0] == section.name for o in opts.only):
            continue
        print(f"\n== {section.name}: {section.title}")
        module, func = section.run.split(":")
        run: Callable[[Options], Iterable[Figure]] = getattr(import_module(module), func)
        for figure in run(opts):
            verdict = figure.verdict
            below += verdict == "BELOW"
            print(f"  {figure.label:<52} {_format_value(figure.value):>10} {figure.unit:<9} "
                  f"{_format_target(figure):<18} {verdict}")
            if figure.note:
                print(f"      {figure.note}")
            print(f"      reproduce: {opts.command(figure.key)}")
            sys.stdout.flush()
    print(f"\n{'every figure meets its target' if not below else f'{below} figure(s) below target'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
