"""The reliability figures: what the suite injected and checked, counted by the tests and the
support code while they run (:data:`FIGURES`), printed at the end of the session and written to
``tests/reliability/figures.json`` (a test output, not tracked)."""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

FIGURES_FILE = Path(__file__).resolve().parents[1] / "reliability" / "figures.json"
KEYS = ("faults_injected", "crash_scenarios", "retries", "duplicate_deliveries", "concurrent_requests",
        "bets_checked", "money_lost", "money_duplicated", "audits")
"""The figures, in the order they are printed and written."""

FIGURES: Counter[str] = Counter()
"""Counted by the tests: ``faults_injected`` (crashes raised), ``crash_scenarios``, ``retries``
(re-runs after a crash), ``duplicate_deliveries``, ``concurrent_requests``, ``bets_checked``,
``money_lost`` and ``money_duplicated`` (minor units, summed over every check: must stay 0),
``audits`` (whole-store audits that passed)."""


def report(terminalreporter: Any, path: Path = FIGURES_FILE) -> None:
    """Print the figures in the session's summary and write them to ``path`` (nothing when no
    reliability test counted anything)."""
    if not FIGURES:
        return
    figures = {key: FIGURES[key] for key in KEYS}
    terminalreporter.write_sep("-", "reliability figures")
    for key, value in figures.items():
        terminalreporter.write_line(f"{key:22} {value}")
    with contextlib.suppress(OSError):
        path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
