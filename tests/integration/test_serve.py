"""``make local`` prints a whole round to play by hand: run as printed, by a shell, it settles."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from croupier.local.client import Client, wait_until
from croupier.local.serve import state_of, tokens, walkthrough
from croupier.local.stack import LocalStack

pytestmark = pytest.mark.integration
COUNTDOWN = 4


@pytest.mark.skipif(shutil.which("curl") is None, reason="the printed lines call curl, which is not installed")
def test_the_printed_round_settles_when_run_as_printed(stack: LocalStack, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    table, players = f"bac-{suffix}", (f"alice-{suffix}", f"bob-{suffix}")
    croupier = str(Path(sys.executable).parent / "croupier")
    lines = walkthrough(table, players, countdown=COUNTDOWN, croupier=croupier)
    assert not any("uuidgen" in line for line in lines)
    state = tmp_path / "local.json"
    state.write_text(json.dumps(state_of(stack)), encoding="utf-8")
    env = {**os.environ, "API": stack.api_url, "CROUPIER_LOCAL_STATE": str(state),
           **tokens(stack.jwt_secret, table, players)}
    script = tmp_path / "round.sh"
    script.write_text("set -euo pipefail\n" + "\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(["bash", str(script)], cwd=stack.root, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.splitlines()
    answers = [json.loads(line) for line in out if line.startswith("{")]
    assert answers and not [a for a in answers if "error" in a], done.stdout
    round_id = next(line.split()[1] for line in out if line.startswith("round "))
    # every card was taken by the round, in the order dealt, into the hand the round expected
    assert [re.sub(r"^#\d+ ", "", line) for line in out if line.startswith("#")][-4:] == [
        f"card-scanned 4S: taken by round {round_id}, player", f"card-scanned 2H: taken by round {round_id}, banker",
        f"card-scanned 4D: taken by round {round_id}, player", f"card-scanned 5C: taken by round {round_id}, banker"]
    supervisor = Client(stack.api_url, stack.jwt_secret, "supervisor-1", "supervisor")
    final = wait_until(lambda: (v := supervisor.get(f"/rounds/{round_id}"))["status"] == "settled" and v, timeout=30)
    assert final["hands"] == {"player": {"cards": ["4S", "4D"], "points": 8},
                              "banker": {"cards": ["2H", "5C"], "points": 7}}
    assert supervisor.get(f"/wallets/{players[0]}")["balance"] == 100000 + 1000  # the Player bet won 1:1
    assert supervisor.get(f"/wallets/{players[1]}")["balance"] == 100000 - 2000 - 100  # Banker and Tie lost
