"""make local's console stops on SIGTERM sent the moment it says how to stop, however busy its
other threads are (``croupier.local.stopping.say_then_wait_for_stop``, which ``croupier.local.serve`` runs).

Its earlier wait (a handler that set a ``threading.Event``, installed after the text was printed)
hung or was killed in most of such trials: the signal came before the handler, or was handled
while the main thread held the Event's lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRIALS = 20

CONSOLE = """
import threading
from croupier.local.stopping import say_then_wait_for_stop

def busy():  # the stack's servers and workers, as contention for the interpreter
    while True:
        pass

for _ in range(3):
    threading.Thread(target=busy, daemon=True).start()
say_then_wait_for_stop("Press Ctrl-C to stop.")
print("stopped", flush=True)
"""


def test_sigterm_sent_as_soon_as_the_console_says_how_to_stop_stops_it_every_time() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "shared")}
    outcomes = []
    for _ in range(TRIALS):
        # GIVEN a console whose other threads keep the interpreter busy
        console = subprocess.Popen([sys.executable, "-c", CONSOLE], env=env, stdout=subprocess.PIPE, text=True)
        assert console.stdout is not None
        assert console.stdout.readline().strip() == "Press Ctrl-C to stop."
        # WHEN SIGTERM is sent the moment it says how to stop
        console.send_signal(signal.SIGTERM)
        try:
            code = console.wait(timeout=10)
            outcomes.append(f"exit {code}, {console.stdout.read().strip()!r}")
        except subprocess.TimeoutExpired:
            console.kill()
            console.wait()
            outcomes.append("hung")
    # THEN each time it stopped as asked, and went on to its stopping
    assert outcomes == ["exit 0, 'stopped'"] * TRIALS, outcomes
