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

from ..app.identity import issue_local_token
from .stack import LocalStack, project_root

STATE_FILE = ".croupier-local.json"


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
          f"  state    {STATE_FILE} (read by `croupier audit`)\n\nTokens (valid 24 h):")
    for role, token in tokens.items():
        print(f"  {role:10} {token}")
    print(f"""
Try:
  curl -s -X POST {stack.api_url}/tables -H "Authorization: Bearer $OPERATOR" \\
       -d '{{"game": "baccarat", "table_id": "bac-1", "reader_id": "reader-1"}}'
  curl -s -X POST {stack.api_url}/wallets/alice/deposits -H "Authorization: Bearer $OPERATOR" \\
       -H "Idempotency-Key: $(uuidgen)" -d '{{"amount": 100000}}'
  curl -s {stack.api_url}/wallets/alice -H "Authorization: Bearer $PLAYER"
Card-reader events go on the bus {state['event_bus']} (source croupier.card-reader).
Press Ctrl-C to stop.""", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    stack.stop()
    (root / STATE_FILE).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
