"""``croupier invoke FUNCTION events/FILE`` runs the function in its own process on the sample event,
against the running local stack, as ``sam local invoke`` would in Docker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from croupier.local.serve import state_of
from croupier.local.stack import LocalStack
from tests.support.harness import TIMERS, Harness

pytestmark = pytest.mark.integration
CROUPIER = str(Path(sys.executable).parent / "croupier")


def _invoke(stack: LocalStack, state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CROUPIER_LOCAL_STATE": str(state)}
    return subprocess.run([CROUPIER, "invoke", *argv], cwd=stack.root, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_invoke_runs_a_function_on_a_sample_event(h: Harness, stack: LocalStack, tmp_path: Path) -> None:
    state = tmp_path / "local.json"
    state.write_text(json.dumps(state_of(stack)), encoding="utf-8")
    table = h.open_table(h.table("invoke"), "baccarat", 51, cut_at=300,
                         rules={"timers": {**TIMERS, "countdown": 60}})
    round_id = table.console.post(f"/tables/{table.table_id}/rounds")["round_id"]

    seen = _invoke(stack, state, "query", "events/query-round.json", "--round", round_id)
    assert seen.returncode == 0, seen.stderr
    answer = json.loads(seen.stdout)
    assert answer["statusCode"] == 200
    assert (answer["body"]["round_id"], answer["body"]["status"]) == (round_id, "betting")

    operator = h.client("operator-1", "operator")
    before = int(operator.get("/wallets/alice")["balance"])  # the sample's player (0 if never funded)
    for _ in range(2):  # a fresh Idempotency-Key each time: two deposits
        deposit = _invoke(stack, state, "wallet", "events/wallet-deposit.json")
        assert deposit.returncode == 0, deposit.stderr
        assert json.loads(deposit.stdout)["statusCode"] in (200, 201)
    assert int(operator.get("/wallets/alice")["balance"]) == before + 2 * 100000

    early = _invoke(stack, state, "round", "events/round-advance.json", "--round", round_id)
    assert early.returncode == 1
    assert f"RoundFunction raised StateConflict: round {round_id} is still betting" in early.stderr

