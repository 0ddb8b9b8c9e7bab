"""``make local`` prints a whole round to play by hand: run as printed, by a shell, it settles."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from croupier.local.client import Client, wait_until
from croupier.local.serve import WALKTHROUGH_COUNTDOWN, set_up, state_of, tokens, walkthrough
from croupier.local.stack import LocalStack
from croupier.local.web import LOCAL_TABLE

pytestmark = pytest.mark.integration
COUNTDOWN = 4
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("curl") is None, reason="the printed lines call curl, which is not installed")
def test_the_printed_round_settles_when_run_as_printed(stack: LocalStack, tmp_path: Path) -> None:
    suffix = uuid.uuid4().hex[:8]
    table, players = f"bac-{suffix}", (f"alice-{suffix}", f"bob-{suffix}")
    croupier = str(Path(sys.executable).parent / "croupier")
    created = set_up(stack, table)  # as make local sets up its table: a countdown a person can bet in
    assert created["rules"]["timers"]["countdown"] == WALKTHROUGH_COUNTDOWN >= 60
    lines = walkthrough(table, players, countdown=WALKTHROUGH_COUNTDOWN, croupier=croupier)
    assert not any("uuidgen" in line for line in lines)
    assert not any("-X POST $API/tables " in line for line in lines)  # the lines use that table
    # the test does not wait two minutes: between rounds, the operator shortens the table's countdown
    # (PATCH /tables/ID); the printed lines wait for the round's own end of betting, whatever its length
    operator = Client(stack.api_url, stack.jwt_secret, "operator-1", "operator")
    operator.call("PATCH", f"/tables/{table}", {"rules": {"timers": {"countdown": COUNTDOWN}}})
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


def test_make_local_prints_the_walkthrough_on_its_own_table() -> None:
    lines = walkthrough()
    assert f"betting countdown {WALKTHROUGH_COUNTDOWN} s" in lines[0] and LOCAL_TABLE in lines[0]
    assert all(LOCAL_TABLE in line for line in lines if "device --table" in line or "/tables/" in line)
    assert not any(line.startswith("sleep 1") or "sleep 10" in line for line in lines)  # no fixed countdown wait


def _taken_port() -> socket.socket:
    """A port another program listens on."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("flag", ["--aws-port", "--api-port", "--web-port"])
def test_a_taken_port_stops_serve_at_once_naming_the_port_and_its_flag(flag: str, tmp_path: Path) -> None:
    with _taken_port() as taken:
        port = taken.getsockname()[1]
        env = {**os.environ, "CROUPIER_LOCAL_STATE": str(tmp_path / "local.json")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "croupier.local.serve", flag, str(port)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"port {port} (" in done.stderr and "in use" in done.stderr and f"{flag} PORT" in done.stderr
    assert f'make local ARGS="{flag} {port + 1}"' in done.stderr
    assert time.monotonic() - started < 30  # it exits, it does not hang
    assert not (tmp_path / "local.json").exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_local_passes_its_ports_to_serve(tmp_path: Path) -> None:
    with _taken_port() as taken:
        port = taken.getsockname()[1]
        env = {**os.environ, "CROUPIER_LOCAL_STATE": str(tmp_path / "local.json")}
        done = subprocess.run(["make", "-s", "-o", ".venv/.runtime-stamp", "local", f"PY={sys.executable}",
                               f"ARGS=--api-port {port} --aws-port 0"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60, check=False)
    assert done.returncode != 0, done.stdout + done.stderr
    assert f"port {port} (the HTTP API) is in use" in done.stderr and "--api-port PORT" in done.stderr


def test_a_raw_event_the_dealing_function_refuses_is_told_on_the_serve_console(tmp_path: Path) -> None:
    """A reader's event the bus takes but the dealing function cannot read (a card 10H: tens are
    T) is said on make local's console, as the cards-not-taken alarm would on AWS, with why."""
    import boto3

    state = tmp_path / "local.json"
    env = {**os.environ, "CROUPIER_LOCAL_STATE": str(state), "PYTHONUNBUFFERED": "1"}
    serve = subprocess.Popen([sys.executable, "-m", "croupier.local.serve", "--api-port", "0", "--aws-port", "0",
                              "--web-port", "0"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(serve.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        wait_until(lambda: any("Press Ctrl-C" in line for line in lines), timeout=60)
        local = json.loads(state.read_text(encoding="utf-8"))
        events = boto3.client("events", endpoint_url=local["endpoint"], region_name=local["region"],
                              aws_access_key_id="local", aws_secret_access_key="local")
        detail = {"table_id": "bac-1", "reader_id": "reader-1", "scan_id": f"scan-{uuid.uuid4()}", "seq": 1,
                  "card": "10H"}
        answer = events.put_events(Entries=[{"Source": "croupier.card-reader.bac-1", "DetailType": "card-scanned",
                                             "Detail": json.dumps(detail), "EventBusName": local["event_bus"]}])
        assert answer["FailedEntryCount"] == 0  # the bus takes it
        said = wait_until(lambda: next((line for line in lines if line.startswith("ALARM")), None), timeout=30)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=30)
    assert "local-croupier-cards-not-taken (DeviceEventsInvalid)" in said, said
    assert "card-scanned from croupier.card-reader.bac-1" in said and "10H" in said, said


def test_serve_exits_soon_after_sigterm_even_when_the_stack_does_not_stop(tmp_path: Path) -> None:
    # GIVEN make local's console whose stack never finishes stopping (a server waiting on a request
    # it still serves), and a wait for it shortened to one second
    state = tmp_path / "local.json"
    stuck = tmp_path / "stuck_serve.py"
    stuck.write_text("import time\n"
                     "from croupier.local import serve, stack\n"
                     "serve.STOP_WITHIN_S = 1.0\n"
                     "stack.LocalStack.stop = lambda self: time.sleep(600)\n"
                     "serve.run()\n", encoding="utf-8")
    env = {**os.environ, "CROUPIER_LOCAL_STATE": str(state), "PYTHONUNBUFFERED": "1"}
    serve = subprocess.Popen([sys.executable, str(stuck), "--api-port", "0", "--aws-port", "0", "--web-port", "0"],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(serve.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        wait_until(lambda: any("Press Ctrl-C" in line for line in lines), timeout=60)
    finally:
        # WHEN it is told to stop
        serve.send_signal(signal.SIGTERM)
        # THEN it says so and exits, without waiting for the stack
        code = serve.wait(timeout=30)
    reader.join(timeout=10)
    assert code == 0
    assert any("did not stop within 1 s; exiting all the same" in line for line in lines), lines[-5:]
    assert not state.exists()
