"""``make local``: start the local stack and leave it running for people to explore.

Prints the API's address, the Swagger page, tokens for each role and example ``curl`` calls, and
writes ``.croupier-local.json`` (endpoint and table names) so that ``croupier audit`` finds it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import threading
from typing import Any

from ..app.identity import issue_local_token
from .stack import LocalStack, project_root

STATE_FILE = ".croupier-local.json"


def examples(table: str = "bac-1", player: str = "alice") -> list[tuple[str, str, str, dict[str, Any] | None, bool]]:
    """The calls printed for people to try: ``(role, method, path, body, idempotent)``."""
    return [("operator", "POST", "/tables", {"game": "baccarat", "table_id": table, "reader_id": "reader-1"}, False),
            ("operator", "POST", f"/wallets/{player}/deposits", {"amount": 100000}, True),
            ("player", "GET", f"/wallets/{player}", None, False)]


def curl(api_url: str, role: str, method: str, path: str, body: dict[str, Any] | None, idempotent: bool) -> str:
    """One example as a ``curl`` command line (the role's token in ``$ROLE``)."""
    words = ["curl -s"] + ([f"-X {method}"] if method != "GET" else [])
    words += [api_url + path, f'-H "Authorization: Bearer ${role.upper()}"']
    if idempotent:
        words.append('-H "Idempotency-Key: $(uuidgen)"')
    if body is not None:
        words += ['-H "Content-Type: application/json"', f"-d '{json.dumps(body)}'"]
    return " ".join(words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupier-local", description="Run the local stack until interrupted.")
    parser.add_argument("--api-port", type=int, default=3000, help="port of the HTTP API (default 3000)")
    parser.add_argument("--aws-port", type=int, default=4566, help="port of the AWS services (moto, default 4566)")
    args = parser.parse_args(argv)
    root = project_root()
    stack = LocalStack(root, api_port=args.api_port, moto_port=args.aws_port).start()
    state = {"endpoint": stack.endpoint, "api": stack.api_url, "region": "us-east-1",
             "game_table": stack.outputs["game_table"], "wallet_table": stack.outputs["wallet_table"],
             "event_bus": stack.outputs["event_bus"], "state_machine": stack.outputs["state_machine"]}
    (root / STATE_FILE).write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    tokens = {role: issue_local_token(stack.jwt_secret, f"{role}-1" if role != "player" else "alice", role)
              for role in ("operator", "dealer", "supervisor", "player")}
    print(f"Croupier local stack is running.\n  API      {stack.api_url}   (Swagger: {stack.api_url}/swagger)\n"
          f"  AWS      {stack.endpoint}  (moto; AWS_ENDPOINT_URL for boto3 and the AWS CLI)\n"
          f"  state    {STATE_FILE} (read by `croupier audit`)\n\nTokens (valid 24 h), for your shell:")
    for role, token in tokens.items():
        print(f"  export {role.upper()}={token}")
    print("\nTry:")
    for example in examples():
        print("  " + curl(stack.api_url, *example))
    print(f"Card-reader events go on the bus {state['event_bus']} (source croupier.card-reader).\n"
          "Press Ctrl-C to stop.", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    stack.stop()
    (root / STATE_FILE).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
