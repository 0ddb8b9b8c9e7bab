"""Benchmark of dealing at table speed on the local stack: how long a scan takes to reach its hand.

Rounds of Baccarat, Pok Deng and the classic blackjack table are dealt by the studio's dealer
(three cards a second, never waiting for the system between cards). For every card of a round:

- **scan to applied**: from the moment the reader puts the event on the bus to the moment the
  card is taken into its hand (the device-log entry's ``taken_at``);
- **scan to next wait**: to the moment the round's workflow next registers a wait (its timer for
  what the round expects next; the card itself does not wait for it);
- the **AWS calls** the dealing function makes for one card, in order: on AWS each is a network
  round trip, one after the other.

Medians and 99th percentiles over every card; moto's seconds on this machine, not AWS's. The
sequential calls give the estimate for AWS printed at the end (typical latencies, stated).

    .venv/bin/python scripts/bench_cards.py [--rounds 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AWS_MS = {"events:PutEvents": 25, "hop:eventbridge-to-sqs": 40, "hop:sqs-to-lambda": 30,
          "dynamodb:GetItem": 5, "dynamodb:Query": 7, "dynamodb:TransactWriteItems": 15,
          "states:SendTaskSuccess": 25, "events:PutEvents(alert)": 25}
"""Typical latencies assumed on AWS (same region, warm Lambda), ms: EventBridge PutEvents and its
delivery to an SQS target, the SQS FIFO event source's poll, DynamoDB single-item reads, a query,
a transaction of a few items, a Step Functions callback."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class Instruments:
    """What the local stack's functions do, seen from inside the process: the waits the workflow
    registers, the scans the dealer sends, the AWS calls of each dealing invocation."""

    def __init__(self, stack: Any) -> None:
        from botocore.client import BaseClient

        from croupier.app import steps
        from croupier.local.client import TableDevices

        self.waits: dict[str, list[float]] = defaultdict(list)
        self.sent: dict[str, float] = {}
        self.calls: list[list[str]] = []
        self._current = threading.local()
        register, send, call = steps.register_wait, TableDevices.send, BaseClient._make_api_call  # type: ignore[attr-defined]
        instruments = self

        def register_wait(round_id: str, version: int, token: str) -> dict[str, Any]:
            out = register(round_id, version, token)
            if out.get("registered"):
                instruments.waits[round_id].append(time.time())
            return out

        def timed_send(devices: Any, device: str, detail_type: str, detail: dict[str, Any]) -> None:
            if detail.get("scan_id"):
                instruments.sent.setdefault(detail["scan_id"], time.time())
            send(devices, device, detail_type, detail)

        def counted(client: Any, operation: str, params: dict[str, Any]) -> Any:
            calls = getattr(instruments._current, "calls", None)
            if calls is not None:
                calls.append(f"{client.meta.service_model.endpoint_prefix}:{operation}")
            return call(client, operation, params)

        steps.register_wait = register_wait
        TableDevices.send = timed_send  # type: ignore[method-assign, assignment]
        BaseClient._make_api_call = counted  # type: ignore[attr-defined]
        name = stack.function_names["DealingFunction"]
        handler = stack.handlers[name]

        def dealing(event: dict[str, Any], context: Any) -> Any:
            calls: list[str] = []
            instruments._current.calls = calls
            try:
                return handler(event, context)
            finally:
                instruments._current.calls = None
                if any("card-scanned" in r.get("body", "") for r in event.get("Records", [])):
                    instruments.calls.append(calls)

        stack.handlers[name] = dealing


def quiet_demo(stack: Any) -> Any:
    """The demo's players and tables, funded, printing nothing, with a short countdown."""
    from croupier.local.demo import Demo

    demo = Demo(stack, out=lambda line: None, timers={"countdown": 3, "decision": 10, "follow": 2,
                                                      "insurance": 2, "pause_void": 60})
    demo.fund()
    return demo


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="rounds per table (default 8)")
    args = parser.parse_args(argv)
    from croupier.app import store
    from croupier.local.stack import LocalStack

    with LocalStack(ROOT) as stack:
        instruments = Instruments(stack)
        demo = quiet_demo(stack)
        tables = [("baccarat", {"ana": [{"type": "banker", "amount": 500}]}, 0),
                  ("pok-deng", {"dev": [{"type": "player-1", "amount": 500}]}, 1),
                  ("blackjack", {"eli": [{"type": "seat", "seat": 3, "amount": 1000}]}, 0)]
        applied: list[float] = []
        to_wait: list[float] = []
        for game, bets, burn in tables:
            table = demo.open_table(f"bench-cards-{game}", game, 11, cut_at=400)
            if game == "blackjack":
                demo.players["eli"].call("PUT", f"/tables/{table.table_id}/seats/3")
            for _ in range(args.rounds):
                final = demo.round(table, bets, per_round_burn=burn)
                waits = sorted(instruments.waits[final["round_id"]])
                for entry in store.log_entries(table.table_id):
                    if entry.round_id != final["round_id"] or entry.use != "round" or entry.taken_at is None:
                        continue
                    sent = instruments.sent.get(str(entry.scan_id))
                    if sent is None:
                        continue
                    applied.append(entry.taken_at / 1000 - sent)
                    later = [w for w in waits if w >= entry.taken_at / 1000]
                    if later:
                        to_wait.append(later[0] - sent)
        per_card = [calls for calls in instruments.calls if calls]
        typical = Counter(tuple(c) for c in per_card).most_common(1)[0][0]
    sequence = ["events:PutEvents", "hop:eventbridge-to-sqs", "hop:sqs-to-lambda",
                *[c for c in typical if not c.startswith("states:")]]
    ready_ms = sum(AWS_MS.get(step, 10) for step in sequence)
    out: dict[str, Any] = {
        "cards": len(applied),
        "scan_to_applied_ms": {"median": 1000 * statistics.median(applied), "p99": 1000 * percentile(applied, 0.99)},
        "scan_to_next_wait_ms": {"median": 1000 * statistics.median(to_wait), "p99": 1000 * percentile(to_wait, 0.99)},
        "dealing_calls_per_card": {"median": statistics.median(len(c) for c in per_card), "typical": list(typical)},
        "sequential_steps_to_ready": len(sequence), "aws_estimate_ms": ready_ms,
    }
    print(f"Dealing at table speed on the local stack: {out['cards']} cards of {3 * args.rounds} rounds "
          f"(Baccarat, Pok Deng, classic blackjack)")
    for key in ("scan_to_applied_ms", "scan_to_next_wait_ms"):
        print(f"  {key.replace('_', ' ')[:-3]:24} median {out[key]['median']:7.1f} ms   p99 {out[key]['p99']:7.1f} ms")
    print(f"  AWS calls of the dealing function per card: {out['dealing_calls_per_card']['median']:.0f}, "
          f"typically {' -> '.join(typical)}")
    print(f"  on AWS, scan to ready for the next card: {len(sequence)} sequential steps ({' -> '.join(sequence)}), "
          f"about {ready_ms} ms at typical latencies")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
