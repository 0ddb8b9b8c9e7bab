"""``make bench``: the performance figures of the issue "rules core", each beside its target.

Run ``python scripts/bench.py`` (``--quick`` for fewer rounds, ``--only KEY`` for one figure or
one section, ``--runs N`` to change how many timed runs a median is taken over). Figures are
measured in one process pinned to one core; they are printed, never asserted (the tests do not
depend on the machine's speed).

The document
    A full run (no ``--only``, no ``--quick``) also writes ``docs/benchmarks.md``: every figure
    with its target, the date, the machine, the command and the git commit (``--no-write`` to
    leave it alone). A partial run (``--only`` or ``--quick``) only prints, unless given
    ``--write``: then it replaces just the sections it measured, each carrying its own date,
    command and commit, and leaves the others as their last run wrote them.

Adding a section
    A section is a function ``run(opts: Options) -> Iterable[Figure]`` in any module of
    ``scripts/``; list it in :data:`SECTIONS` as ``Section(name, title, "module:function")``. It
    measures only the figures ``opts.wants(key)`` asks for (keys are ``"<section>.<figure>"``),
    takes its sizes from ``opts.quick``/``opts.runs``, and yields one :class:`Figure` per figure.
    :func:`median_seconds` and :func:`measure` time a callable the same way for everyone.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import multiprocessing
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent
T = TypeVar("T")


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    run: str
    """``"module:function"`` in ``scripts/``, imported only when the section runs."""
    readme: str = ""
    """``"module:function"`` in ``scripts/``: the README's block of this section's figures, from
    them and the run (the README's ``<!-- bench:NAME -->`` block); empty: the README shows none."""


SECTIONS: list[Section] = [
    Section("engines", "The engines alone, one core: construct with bets, deal, decide, settle every bet",
            "bench_engines:engines"),
    Section("replay", "Replay of one round (in-process) and croupier start-up (whole process)",
            "bench_engines:replay"),
    Section("rtp", "The exact RTP report of one rule set", "bench_proofs:rtp"),
    Section("help", "A table's help: its exact RTP figures computed on a request", "bench_proofs:help_figures"),
    Section("simulate", "The shoe simulator, one core", "bench_proofs:simulate"),
    Section("roads", "The roads (scoreboards) of whole dealt shoes, one core", "bench_roads:roads"),
    Section("cards", "Dealing at table speed on the local stack: scan to applied, scan to the next wait",
            "bench_proofs:cards"),
    Section("coldstart", "The card path's cold start: the dealing, round and decisions functions built as they deploy",
            "bench_coldstart:coldstart"),
    Section("screens", "The push to the screens: a table with no one watching, then with 1,000 idle watchers",
            "bench_proofs:screens"),
    Section("stack", "The application on the local stack: one round each, and rounds of 1,000 and 10,000 bets",
            "bench_proofs:stack"),
    Section("cost", "What a round costs on AWS, counted from its calls: croupier cost", "bench_cost:cost",
            readme="bench_cost:readme_table"),
    Section("seamless", "Seamless wallets: bets at an operator's wallet (at once, 50 ms), calls per bet, "
            "credits after a 60 s outage", "bench_proofs:seamless"),
    Section("demo", "The README's main command, make demo, timed whole (set-up aside)", "bench_proofs:demo"),
    Section("localstore", "The local stack's DynamoDB (moto): one query of one partition as the table grows",
            "bench_proofs:localstore"),
    Section("chaos", "The simulator: one round of croupier chaos (default faults, every invariant), one core",
            "bench_chaos:chaos"),
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
        ok = self.value >= self.target if self.higher_is_better else self.value <= self.target  # at most
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

    def touches(self, section: str) -> bool:
        """Whether any figure of ``section`` is to be measured (a section measured in one go, such as
        ``cards``, runs whole and :func:`main` keeps only the figures asked for)."""
        return not self.only or any(o.split(".")[0] == section for o in self.only)

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


def isolated(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a fresh (spawned) process, pinned as this one is, printing to the same
    output: for a section that starts the local stack. moto's services keep their state in the
    process, so a second stack in one process finds the first one's resources (and a section's
    patches of botocore would stay for the next). The process ends as soon as it has sent its
    result: a thread the section left behind (a player still polling, a server) cannot hold the
    benchmark up, as it did when Python waited for every thread before exiting."""
    sys.stdout.flush()
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_send_and_exit, args=(sender, fn, args), name=f"bench-{fn.__name__}")
    process.start()
    sender.close()
    try:
        ok, value = receiver.recv()
    except EOFError:
        process.join(timeout=10)
        raise RuntimeError(f"{fn.__name__} died before it answered (exit code {process.exitcode})") from None
    process.join(timeout=30)
    if process.is_alive():
        process.kill()
    if not ok:
        raise RuntimeError(f"{fn.__name__} failed:\n{value}")
    result: T = value
    return result


def _send_and_exit(sender: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """In the section's process: run it, send its result (or its traceback), and end at once."""
    try:
        answer: tuple[bool, Any] = (True, fn(*args))
    except BaseException:
        import traceback

        answer = (False, traceback.format_exc())
    sys.stdout.flush()
    sys.stderr.flush()
    sender.send(answer)
    sender.close()
    os._exit(0)


# --- the report ------------------------------------------------------------------------------


def _format_value(value: float) -> str:
    if 0 < abs(value) < 0.01:  # a cost in dollars: three significant digits
        return f"{value:.3g}"
    if float(value).is_integer():  # a count
        return f"{value:,.0f}"
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
    sign = ">=" if figure.higher_is_better else "<="
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


def machine() -> dict[str, str]:
    """The machine the figures were taken on: CPU model, cores, memory, Python and the OS."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith(("model name", "hardware")):
                model = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 ** 2:.1f} GiB"
    system = platform.platform()
    with contextlib.suppress(OSError, ValueError):
        release = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines()
                       if "=" in line)
        system = f"{release.get('PRETTY_NAME', '').strip(chr(34))} (Linux {platform.release()})"
    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = f"{os.cpu_count()} cores" + (f" ({allowed} usable)" if allowed != os.cpu_count() else "")
    return {"cpu": f"{model} ({platform.machine()})", "cores": cores,
            "memory": memory, "python": f"{platform.python_implementation()} {platform.python_version()}",
            "os": system}


def git_commit() -> str:
    """The commit the figures were taken at, and whether the working tree had changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" (with uncommitted changes in the working tree)" if dirty else "")


def pin_to_one_core(core: int | None) -> str:
    """Pin this process (and the processes it starts) to one core; returns a description."""
    if not hasattr(os, "sched_setaffinity"):
        return "one process (no CPU pinning on this platform)"
    allowed = sorted(os.sched_getaffinity(0))
    chosen = core if core is not None else allowed[-1]
    os.sched_setaffinity(0, {chosen})
    return f"one process pinned to core {chosen} of {len(allowed)}"


DOCUMENT = ROOT / "docs" / "benchmarks.md"
README = ROOT / "README.md"
_BLOCK = re.compile(r"<!-- bench:(?P<name>[a-z0-9_-]+) -->\n.*?<!-- /bench:(?P=name) -->\n", re.S)


@dataclass
class Run:
    """What a run tells the document besides its figures."""

    command: str
    date: str
    commit: str
    machine: dict[str, str]
    where: str
    note: str


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section_block(section: Section, figures: Sequence[Figure], run: Run) -> str:
    """One section of the document: its figures with their targets, and when, how and where."""
    m = run.machine
    lines = [f"<!-- bench:{section.name} -->", f"## {section.name}: {section.title}", "",
             f"Measured {run.date} at commit {run.commit} with `{run.command}`; {run.where}; "
             f"{m['cpu']}, {m['cores']}, {m['memory']}, {m['python']}, {m['os']}; {run.note}.", "",
             "| figure | value | unit | target | verdict | how |", "|---|---:|---|---|---|---|"]
    for f in figures:
        lines.append(f"| {_cell(f.label)} (`{f.key}`) | {_format_value(f.value)} | {_cell(f.unit)} | "
                     f"{_format_target(f).removeprefix('target ')} | {f.verdict} | {_cell(f.note)} |")
    if not figures:
        lines.append("| (no figure) | | | | | |")
    return "\n".join(lines) + "\n\n<!-- /bench:" + section.name + " -->\n"


def write_document(path: Path, measured: dict[str, list[Figure]], run: Run, *, whole: bool) -> None:
    """Write the document: ``whole``, every section from this run; else this run's sections
    replace theirs and the others stay as the file has them (in :data:`SECTIONS` order)."""
    kept: dict[str, str] = {}
    if not whole and path.exists():
        kept = {m["name"]: m.group(0) for m in _BLOCK.finditer(path.read_text(encoding="utf-8"))}
    for section in SECTIONS:
        if section.name in measured:
            kept[section.name] = section_block(section, measured[section.name], run)
    m = run.machine
    head = ["# Benchmarks", "",
            "Written by `make bench` (`scripts/bench.py`): do not edit by hand; every figure below is what a run "
            "printed. A full run rewrites the whole page; `scripts/bench.py --only SECTION --write` rewrites only "
            "that section, which then says when and where it was measured. Figures are measured, never asserted; "
            "a target is the issue's where it set one (PASS: met; BELOW: not met). Each figure's key is what "
            "`--only` takes.", "",
            f"Last written {run.date} with `{run.command}` at commit {run.commit}.", "",
            "| machine of that run | |", "|---|---|",
            f"| CPU | {m['cpu']} |", f"| cores | {m['cores']} |", f"| memory | {m['memory']} |",
            f"| Python | {m['python']} |", f"| OS | {m['os']} |", f"| measured as | {run.where} |",
            f"| load | {run.note} |", ""]
    body = [kept[s.name] for s in SECTIONS if s.name in kept]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(head) + "\n" + "\n".join(body), encoding="utf-8")


def write_readme(path: Path, measured: dict[str, list[Figure]], run: Run) -> list[str]:
    """Replace the README's block of each measured section that has one (``Section.readme``) with
    what this run measured; returns the sections written. A section the README has no block for
    is left out: the README says where its figures are."""
    blocks: dict[str, str] = {}
    for section in SECTIONS:
        if section.readme and measured.get(section.name):
            module, func = section.readme.split(":")
            body: str = getattr(import_module(module), func)(measured[section.name], run)
            blocks[section.name] = f"<!-- bench:{section.name} -->\n{body.rstrip()}\n<!-- /bench:{section.name} -->\n"
    written: list[str] = []

    def replaced(block: re.Match[str]) -> str:
        if block["name"] not in blocks:
            return block.group(0)
        written.append(block["name"])
        return blocks[block["name"]]

    text = _BLOCK.sub(replaced, path.read_text(encoding="utf-8"))
    path.write_text(text, encoding="utf-8")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and runs (a rough figure in seconds)")
    parser.add_argument("--only", action="append", default=[], metavar="KEY",
                        help="measure only this section or figure (repeatable), e.g. engines or engines.baccarat")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per figure (the median is reported)")
    parser.add_argument("--core", type=int, default=None, help="the CPU core to pin to (default: the last allowed)")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    parser.add_argument("--write", action=argparse.BooleanOptionalAction, default=None,
                        help="write docs/benchmarks.md (default: only for a full run; a partial run with --write "
                             "replaces only the sections it measured)")
    parser.add_argument("--document", type=Path, default=DOCUMENT, help=argparse.SUPPRESS)
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

    whole = not opts.only and not opts.quick
    write = whole if args.write is None else args.write
    words = ["scripts/bench.py", *(argv if argv is not None else sys.argv[1:])]
    command = "make bench" if whole and len(words) == 1 else " ".join(shlex.quote(w) for w in words)
    host = machine()  # before pinning: the machine's cores, not the one this process keeps
    where = pin_to_one_core(opts.core)
    impl = platform.python_implementation()
    print(f"Croupier benchmark: {impl} {platform.python_version()} on {platform.machine()}, {where}; "
          f"median of {opts.runs} runs{' (--quick)' if opts.quick else ''}")
    note = machine_note()
    print(f"Machine: {note}")
    run_info = Run(command=command, date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                   commit=git_commit(), machine=host,
                   where=f"{where}, median of {opts.runs} runs{' (--quick)' if opts.quick else ''}", note=note)
    measured: dict[str, list[Figure]] = {}
    sys.modules.setdefault("bench", sys.modules[__name__])  # sections import Figure & co. from here
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    below = 0
    for section in SECTIONS:
        if not opts.touches(section.name):
            continue
        print(f"\n== {section.name}: {section.title}")
        module, func = section.run.split(":")
        run: Callable[[Options], Iterable[Figure]] = getattr(import_module(module), func)
        figures = measured.setdefault(section.name, [])
        for figure in run(opts):
            if not opts.wants(figure.key):
                continue
            figures.append(figure)
            verdict = figure.verdict
            below += verdict == "BELOW"
            print(f"  {figure.label:<52} {_format_value(figure.value):>10} {figure.unit:<9} "
                  f"{_format_target(figure):<18} {verdict}")
            if figure.note:
                print(f"      {figure.note}")
            print(f"      reproduce: {opts.command(figure.key)}")
            sys.stdout.flush()
    print(f"\n{'every figure meets its target' if not below else f'{below} figure(s) below target'}")
    if write:
        write_document(args.document, measured, run_info, whole=whole)
        print(f"written: {_display(args.document)}" + ("" if whole else f" (sections {', '.join(measured)})"))
        if not opts.quick and args.document == DOCUMENT:  # a rough run, or a test's page, is not the README's
            readme = write_readme(README, measured, run_info)
            if readme:
                print(f"written: {_display(README)} (sections {', '.join(readme)})")
    else:
        print(f"not written: {_display(args.document)} (a partial run; --write replaces its sections there)"
              if not whole else f"not written: {_display(args.document)} (--no-write)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
