"""``make bench`` writes docs/benchmarks.md: a full run the whole page, a partial run (``--write``)
only its own sections, each with its date, machine, command and commit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", ROOT / "scripts" / "bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench", module)
    spec.loader.exec_module(module)
    return module


def test_a_partial_run_replaces_only_its_sections(tmp_path: Path) -> None:
    bench = _bench()
    machine = {"cpu": "CPU X (x86_64)", "cores": "2 cores", "memory": "4.0 GiB", "python": "CPython 3.12.0",
               "os": "Debian"}

    def run(command: str, date: str) -> object:
        return bench.Run(command=command, date=date, commit="abc123", machine=machine, where="pinned", note="load 0")

    doc = tmp_path / "benchmarks.md"
    first = {"engines": [bench.Figure("engines.baccarat", "Baccarat", 80_000, "rounds/s", 70_000)],
             "roads": [bench.Figure("roads.pok-deng", "Pok Deng roadmap", 38.7, "µs")]}
    bench.write_document(doc, first, run("make bench", "2026-12-01 10:00 UTC"), whole=True)
    text = doc.read_text(encoding="utf-8")
    assert "| Baccarat (`engines.baccarat`) | 80,000 | rounds/s | >= 70,000 | PASS |" in text
    assert "CPU X (x86_64)" in text and "4.0 GiB" in text and "CPython 3.12.0" in text and "abc123" in text
    again = {"roads": [bench.Figure("roads.pok-deng", "Pok Deng roadmap", 40.1, "µs")]}
    bench.write_document(doc, again, run("scripts/bench.py --only roads --write", "2026-12-02 11:00 UTC"),
                         whole=False)
    text = doc.read_text(encoding="utf-8")
    assert "80,000" in text and "Measured 2026-12-01 10:00 UTC" in text  # engines kept as the full run wrote it
    assert "40.1" in text and "38.7" not in text  # roads replaced, and says when and how
    assert "Measured 2026-12-02 11:00 UTC at commit abc123 with `scripts/bench.py --only roads --write`" in text
    assert text.index("## engines") < text.index("## roads")


def test_a_run_of_the_cost_section_writes_the_readmes_table_and_nothing_else_of_it(tmp_path: Path) -> None:
    # GIVEN a README with the cost block (and text around it), and a run's figures of that section
    bench = _bench()
    if str(ROOT / "scripts") not in sys.path:
        sys.path.insert(0, str(ROOT / "scripts"))
    readme = tmp_path / "README.md"
    readme.write_text("# Croupier\n\nbefore\n<!-- bench:cost -->\nold table\n<!-- /bench:cost -->\nafter\n",
                      encoding="utf-8")
    figures = [bench.Figure("cost.baccarat.transitions", "baccarat, 7 bets, 4 cards: state transitions", 10,
                            "transitions")]
    figures += [bench.Figure(f"cost.baccarat.usd_per_1000_at_{v}", f"baccarat: 1,000 rounds at {v:,} viewers",
                             usd, "USD") for v, usd in ((1, 0.6), (100, 1.52), (10_000, 93.92))]
    run = bench.Run(command="scripts/bench.py --only cost --write", date="2026-12-04 08:00 UTC", commit="abc123",
                    machine={}, where="pinned", note="load 0")
    # WHEN the README is written from them
    written = bench.write_readme(readme, {"cost": figures, "roads": []}, run)
    # THEN the block holds the run's table, with its command, date and commit; the rest is as it was
    text = readme.read_text(encoding="utf-8")
    assert written == ["cost"]
    assert "| Baccarat | 7 bets, 4 cards | $0.60 | $1.52 | $94 |" in text
    assert "| 1,000 rounds of | bets, cards | 1 viewer | 100 viewers | 10,000 viewers |" in text
    assert "`scripts/bench.py --only cost --write` on 2026-12-04 08:00 UTC at commit abc123" in text
    assert "old table" not in text and text.startswith("# Croupier\n\nbefore\n<!-- bench:cost -->\n")
    assert text.endswith("<!-- /bench:cost -->\nafter\n")
