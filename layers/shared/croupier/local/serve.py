"""``make local``: start the local stack and leave it running for people to explore.

Creates the walkthrough's table (Baccarat, a betting countdown of two minutes: time to paste the
lines), then prints the API's address, the Swagger page, tokens (operator, supervisor, a dealer
console bound to that table, two players) and a whole round to play by hand, line by line: money,
a new shoe, a round, bets, the cards (``croupier device``), the settled round and the wallets. Every
line runs on a bare machine (curl and python3; no ``uuidgen``). Writes ``.croupier-local.json``
(endpoint, region, table names, bus) for ``croupier audit``, ``croupier device`` and ``croupier
invoke``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from ..app.identity import issue_local_token
from .client import Client
from .stack import LocalStack, PortInUse, project_root
from .stopping import say_then_wait_for_stop
from .web import LOCAL_PLAYERS, LOCAL_TABLE

STATE_FILE = ".croupier-local.json"
NEW_KEY = "$(python3 -c 'import uuid; print(uuid.uuid4())')"
"""A fresh Idempotency-Key in a shell line, on any machine with Python."""
WALKTHROUGH_COUNTDOWN = 120
"""The betting countdown of the walkthrough's table, in seconds: time for a person to paste the
round's opening line and both bets."""
CARDS = ("4S", "2H", "4D", "5C")
"""The example round's cards in the order dealt (Player, Banker, Player, Banker): Player 8, a
natural, beats Banker 7; nobody draws a third card."""


def state_path(root: Path) -> Path:
    """Where the running stack's state is (``CROUPIER_LOCAL_STATE``, else the project's folder)."""
    return Path(os.environ.get("CROUPIER_LOCAL_STATE") or root / STATE_FILE)


def state_of(stack: LocalStack) -> dict[str, Any]:
    """What a client of the running stack needs: its endpoints, region and resources' names."""
    return {"endpoint": stack.endpoint, "api": stack.api_url, "region": "us-east-1", "stage": stack.stage,
            "game_table": stack.outputs["game_table"], "wallet_table": stack.outputs["wallet_table"],
            "event_bus": stack.outputs["event_bus"], "state_machine": stack.outputs["state_machine"],
            "websocket": stack.screens.url, "web": stack.web.url,
            "operator_wallets": os.environ.get("OPERATOR_WALLETS", ""), "operator_wallet": stack.operator_wallet.url}


def tokens(secret: str, table: str = LOCAL_TABLE, players: tuple[str, str] = LOCAL_PLAYERS) -> dict[str, str]:
    """A token per shell variable: the operator, the supervisor, the table's dealer console (its
    token names the one table it serves) and two players."""
    out = {"OPERATOR": issue_local_token(secret, "operator-1", "operator"),
           "SUPERVISOR": issue_local_token(secret, "supervisor-1", "supervisor"),
           "DEALER": issue_local_token(secret, f"console-{table}", "dealer", table=table)}
    out.update({name.upper().replace("-", "_"): issue_local_token(secret, name, "player") for name in players})
    return out


def curl(method: str, path: str, token: str, body: dict[str, Any] | None = None, *, idempotent: bool = False) -> str:
    """One API call as a ``curl`` line (``$API`` the API's address, ``$TOKEN`` the caller's token)."""
    words = ["curl -s -w '\\n'"] + ([f"-X {method}"] if method != "GET" else [])
    words += [f"$API{path}", f'-H "Authorization: Bearer ${token}"']
    if idempotent:
        words.append(f'-H "Idempotency-Key: {NEW_KEY}"')
    if body is not None:
        words += ['-H "Content-Type: application/json"', f"-d '{json.dumps(body)}'"]
    return " ".join(words)


def set_up(stack: LocalStack, table: str = LOCAL_TABLE, countdown: int = WALKTHROUGH_COUNTDOWN) -> dict[str, Any]:
    """The walkthrough's own table, created by the operator as the stack starts: Baccarat, its
    reader ``reader-1``, a betting countdown of ``countdown`` seconds. Returns the table."""
    operator = Client(stack.api_url, stack.jwt_secret, "operator-1", "operator")
    created: dict[str, Any] = operator.post("/tables", {"game": "baccarat", "table_id": table, "reader_id": "reader-1",
                                                        "rules": {"timers": {"countdown": countdown}}})
    return created


def walkthrough(table: str = LOCAL_TABLE, players: tuple[str, str] = LOCAL_PLAYERS,
                countdown: int = WALKTHROUGH_COUNTDOWN, croupier: str = ".venv/bin/croupier") -> list[str]:
    """A whole Baccarat round by hand, as shell lines (comments start with ``#``): run in order in
    the project's folder, with ``$API`` and the tokens of :func:`tokens` exported, on the table
    :func:`set_up` created (its countdown ``countdown``)."""
    first, second = players
    var1, var2 = (p.upper().replace("-", "_") for p in players)
    device = f"{croupier} device --table {table}"
    closes = ("'import json, sys, time; print(max(0.0, json.load(sys.stdin)[\"closes_at\"] / 1000 - time.time()))'")
    return [
        f"# 1. The operator funds two players (the Baccarat table {table}, betting countdown {countdown} s, was",
        "#    created as the stack started)",
        curl("POST", f"/wallets/{first}/deposits", "OPERATOR", {"amount": 100000}, idempotent=True),
        curl("POST", f"/wallets/{second}/deposits", "OPERATOR", {"amount": 100000}, idempotent=True),
        "# 2. The dealer shuffles a new shoe, shows its first card (a 2: two cards to burn) and confirms the burn",
        f"{device} shuffle",
        f"{device} scan 2C",
        f"{device} burn",
        f"# 3. The dealer console opens a round: betting is open for {countdown} s, bet now",
        f"ROUND=$({curl('POST', f'/tables/{table}/rounds', 'DEALER')} | python3 -c "
        "'import json, sys; print(json.load(sys.stdin)[\"round_id\"])') && echo \"round $ROUND\"",
        curl("POST", f"/tables/{table}/bets", var1, {"bets": [{"type": "player", "amount": 1000}]}, idempotent=True),
        curl("POST", f"/tables/{table}/bets", var2, {"bets": [{"type": "banker", "amount": 2000},
                                                               {"type": "tie", "amount": 100}]}, idempotent=True),
        "# 4. Once the countdown is over (the next line waits for its end; a card dealt more than 1 s before it",
        "#    pauses the round), the dealer deals Player, Banker, Player, Banker: Player 8 (a natural) beats Banker 7",
        f"sleep $({curl('GET', '/rounds/$ROUND', var1)} | python3 -c {closes})",
        f"{device} scan {' '.join(CARDS)}",
        f"# 5. The settled round as {first} sees it, and both wallets ({first} +1000, {second} -2100)",
        "sleep 2",
        curl("GET", "/rounds/$ROUND", var1),
        curl("GET", f"/wallets/{first}", var1),
        curl("GET", f"/wallets/{second}", var2),
    ]


STOP_WITHIN_S = 10.0
"""How long the console waits, once told to stop, for its servers and functions to stop."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier-local", description="Run the local stack until interrupted.")
    parser.add_argument("--api-port", type=int, default=3000, help="port of the HTTP API (default 3000)")
    parser.add_argument("--aws-port", type=int, default=4566, help="port of the AWS services (moto, default 4566)")
    parser.add_argument("--web-port", type=int, default=8000, help="port of the browser pages (default 8000)")
    args = parser.parse_args(argv)
    root = project_root()
    try:
        stack = LocalStack(root, api_port=args.api_port, moto_port=args.aws_port, web_port=args.web_port,
                           console=lambda line: print(line, flush=True)).start()
    except PortInUse as exc:
        flag = f"--{exc.role}-port"
        print(f"croupier-local: {exc}. Stop that program, or choose another port with {flag} PORT, e.g.\n"
              f"  make local ARGS=\"{flag} {exc.port + 1}\"   (ports: --api-port, --aws-port, --web-port; "
              "see python -m croupier.local.serve --help)", file=sys.stderr, flush=True)
        return 2
    set_up(stack)
    state = state_of(stack)
    path = state_path(root)
    path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    shown = path.name if path.parent == root else str(path)
    print(f"Croupier local stack is running.\n  Browser  {stack.web.url}/  (lobby, player's table, dealer and "
          "supervisor consoles: sign in by choosing a role and a player)\n"
          f"  API      {stack.api_url}   (Swagger: {stack.api_url}/swagger)\n"
          f"  AWS      {stack.endpoint}  (moto; AWS_ENDPOINT_URL for boto3 and the AWS CLI, region us-east-1)\n"
          f"  Screens  {stack.screens.url}  (the WebSocket API: connect with ?token=..., then send "
          f'{{"action": "subscribe", "tables": ["{LOCAL_TABLE}"]}})\n'
          f"  state    {shown} (read by `croupier audit`, `croupier device`, `croupier invoke`)\n\n"
          "Tokens (valid 24 h), for your shell:")
    print(f"  export API={stack.api_url}")
    for name, token in tokens(stack.jwt_secret).items():
        print(f"  export {name}={token}")
    print("\nA whole round by hand: run these lines in order, in another shell in this folder, after the exports:")
    for line in walkthrough():
        print("  " + line)
    say_then_wait_for_stop(
        "\nThe table's devices: .venv/bin/croupier device --table TABLE shuffle | burn | scan CARD... | fail | cut\n"
        f"  (events on the bus {state['event_bus']}, sources croupier.card-reader.TABLE and "
        "croupier.dealer-console.TABLE)\n"
        "A function on a sample event: .venv/bin/croupier invoke FUNCTION events/FILE.json [--round ROUND_ID]\n"
        f"A screen of the table, as alice: .venv/bin/python -m websockets \"{stack.screens.url}/?token=$ALICE\" "
        "(then type the subscribe message above)\n"
        "Press Ctrl-C to stop.")
    path.unlink(missing_ok=True)
    # Stopping is bounded: a server waiting for a request it is still serving (a workflow's task
    # in flight) is left to the process's exit, not waited for.
    stopping = threading.Thread(target=stack.stop, name="stopping", daemon=True)
    stopping.start()
    stopping.join(STOP_WITHIN_S)
    if stopping.is_alive():
        print(f"croupier-local: the stack did not stop within {STOP_WITHIN_S:.0f} s; exiting all the same",
              file=sys.stderr, flush=True)
    return 0


def run(argv: list[str] | None = None) -> None:
    """``python -m croupier.local.serve``: :func:`main`, then out of the process at once."""
    code = main(argv)
    # The stack is stopped (or given up on). An invocation still in flight in one of its function
    # workers (a handler whose request to a server that just stopped waits out the SDK's timeout)
    # is abandoned, as a Lambda environment's is when it is shut down: the interpreter would
    # otherwise join the workers' threads at exit, and the console would hang that long.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
