"""Benchmark of the push to the screens: a Baccarat table played with no one watching, then with
1,000 idle watchers subscribed (WebSocket connections of players who bet nothing).

For each phase, per round: the Lambda invocations of the game (bets, dealing, round, settlement,
query ...) and of the screens (live, push, connections), the scan-to-applied time of its cards,
the round's wall time from opening to settled, and, with watchers, how long after the round was
settled its ``round-settled`` event reached the watchers (median and the last of them). The
invocations of a round's game must not grow with its watchers; the push's grow with the number
of slots that have watchers (``PUSH_SLOTS``), not with the watchers.

On AWS the game's functions, the push functions and the watchers' own screens run on different
machines. Here they share this machine's cores, so the game's process (and moto with it) is pinned
to one core, and the screens' process (the WebSocket API and the push function) with the watchers
to the others, in both phases alike: what the watchers cost the game is what reaches its core (the
push function's calls to DynamoDB and SQS, answered by moto in the game's process).

The cost per round per 1,000 watchers on AWS is estimated from the counts measured here, at the
prices stated in :data:`PRICES`, next to what the same watchers would cost polling
``GET /rounds/{id}`` once a second.

    .venv/bin/python scripts/bench_screens.py [--rounds 4] [--watchers 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

SCREENS = ("live", "push", "connections")
PRICES = {
    "lambda_request": 0.20 / 1e6,  # per invocation
    "lambda_gb_second_arm": 0.0000133334,  # per GB-second, arm64
    "websocket_message": 1.00 / 1e6,  # per message (32 KB units), first billion a month
    "websocket_connection_minute": 0.25 / 1e6,
    "rest_request": 3.50 / 1e6,  # REST API, first 333 million a month
    "sqs_fifo_request": 0.50 / 1e6,
    "dynamodb_read_unit": 0.25 / 1e6,  # on-demand, per read request unit
    "eventbridge_event": 1.00 / 1e6,  # custom events put on the bus
}
"""us-east-1 list prices (USD) used for the estimate."""
MEMORY_GB = 0.5  # the functions' memory (template.yaml Globals)


def watch(url: str, tokens: list[str], table_id: str, ready: Any, commands: Any, results: Any) -> None:
    """The watchers, in a process of their own (their screens are not the system's work): one
    asyncio connection each, subscribed to the table; reports when each received each
    ``round-settled`` (round id -> arrival times), when asked."""
    import asyncio
    import json

    from websockets.asyncio.client import connect

    settled: dict[str, list[float]] = {}

    async def one(token: str, opened: asyncio.Event) -> None:
        async with connect(f"{url}/?token={token}", max_queue=None, open_timeout=120) as ws:
            await ws.send(json.dumps({"action": "subscribe", "tables": [table_id]}))
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "snapshot":
                    opened.set()
                for event in message.get("events", []):
                    if event["type"] == "round-settled":
                        settled.setdefault(event["round_id"], []).append(time.time())

    async def run() -> None:
        tasks, flags = [], []
        for start in range(0, len(tokens), 50):
            batch = [asyncio.Event() for _ in tokens[start:start + 50]]
            tasks += [asyncio.create_task(one(t, e)) for t, e in zip(tokens[start:start + 50], batch, strict=True)]
            flags += batch
            await asyncio.gather(*(e.wait() for e in batch))
        ready.set()
        loop = asyncio.get_running_loop()
        while True:
            command = await loop.run_in_executor(None, commands.get)
            if command == "stop":
                break
            results.put({rid: list(times) for rid, times in settled.items()})
        for task in tasks:
            task.cancel()

    asyncio.run(run())


def pin(pid: int, cores: set[int]) -> None:
    """Every thread of the process on ``cores`` (``sched_setaffinity(pid)`` moves one thread only:
    the threads the process already started would stay where they were)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):  # that thread has ended
            os.sched_setaffinity(int(tid), cores)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds per phase (default 4)")
    parser.add_argument("--watchers", type=int, default=1000, help="idle watchers of the second phase")
    args = parser.parse_args(argv)
    before = os.sched_getaffinity(0)
    cores = list(range(os.cpu_count() or 1))
    game_core, screens_cores = ({cores[0]}, set(cores[1:])) if len(cores) > 1 else (set(cores), set(cores))
    os.sched_setaffinity(0, game_core)  # the game (and moto) on one core ...
    try:
        return _measure(args, game_core, screens_cores)
    finally:
        os.sched_setaffinity(0, before)


def _measure(args: argparse.Namespace, game_core: set[int], screens_cores: set[int]) -> dict[str, Any]:
    from bench_cards import Instruments, percentile, quiet_demo

    from croupier.app import keys, store
    from croupier.local.client import Client
    from croupier.local.stack import LocalStack

    with LocalStack(ROOT, separate_screens=True) as stack:
        process = stack.screens._process
        if process is not None:  # ... the screens and their pushes on the others: on AWS they run elsewhere
            pin(process.pid, screens_cores)
        instruments = Instruments(stack)
        demo = quiet_demo(stack)
        table = demo.open_table("bench-screens", "baccarat", 21, cut_at=400)
        bets = {"ana": [{"type": "banker", "amount": 500}], "ben": [{"type": "player", "amount": 300}]}
        phases: dict[str, dict[str, Any]] = {}
        child = None
        spawn = multiprocessing.get_context("spawn")  # not a fork of a process full of server threads
        commands: Any = spawn.Queue()
        results: Any = spawn.Queue()
        for phase, count in (("no watchers", 0), (f"{args.watchers} watchers", args.watchers)):
            started = time.perf_counter()
            if count:
                ready = spawn.Event()
                tokens = [Client(stack.api_url, stack.jwt_secret, f"watcher-{n}", "player").token for n in range(count)]
                child = spawn.Process(target=watch, args=(stack.screens.url, tokens, table.table_id, ready,
                                                                    commands, results), daemon=True)
                child.start()
                if child.pid is not None:
                    pin(child.pid, screens_cores)
                ready.wait(600)
                if child.pid is not None:
                    pin(child.pid, screens_cores)  # and the threads it started meanwhile
            connect_s = time.perf_counter() - started
            before = stack.invocation_counts()
            sent_before = stack.screens.sent
            walls: list[float] = []
            applied: list[float] = []
            reach: list[float] = []
            for _ in range(args.rounds):
                opened = time.perf_counter()
                final = demo.round(table, bets)
                walls.append(time.perf_counter() - opened)
                rid = final["round_id"]
                for entry in store.log_entries(table.table_id):
                    sent = instruments.sent.get(str(entry.scan_id))
                    if entry.round_id == rid and entry.use == "round" and sent is not None and entry.taken_at:
                        applied.append(entry.taken_at / 1000 - sent)
                if child is not None:
                    settled = store.get(store.game_table(), keys.round_key(rid))
                    assert settled is not None, rid
                    finished = int(settled["finished_at"]) / 1000
                    deadline = time.monotonic() + 180
                    while True:
                        commands.put("report")
                        arrived = results.get(timeout=60).get(rid, [])
                        if len(arrived) >= count or time.monotonic() > deadline:
                            break
                        time.sleep(0.5)
                    reach.extend(t - finished for t in arrived)
            calls = stack.invocation_counts()
            calls.subtract(before)
            game = sum(n for name, n in calls.items() if name.rsplit("-", 1)[-1] not in SCREENS)
            by_screen = {kind: sum(n for name, n in calls.items() if name.rsplit("-", 1)[-1] == kind)
                         for kind in SCREENS}
            phases[phase] = {
                "watchers": count, "connect_seconds": round(connect_s, 1),
                "game_invocations_per_round": game / args.rounds,
                "screen_invocations_per_round": {k: v / args.rounds for k, v in by_screen.items()},
                "messages_per_round": (stack.screens.sent - sent_before) / args.rounds,
                "round_wall_s_median": statistics.median(walls),
                "scan_to_applied_ms_median": statistics.median(applied) * 1000,
                "scan_to_applied_ms_p99": percentile(applied, 0.99) * 1000,
                "settled_to_watchers_ms_median": statistics.median(reach) * 1000 if reach else None,
                "settled_to_last_watcher_ms": max(reach) * 1000 if reach else None,
            }
        if child is not None:
            commands.put("stop")
            child.join(30)
        demo.close_screens()
    out = {"rounds_per_phase": args.rounds, "phases": phases, "cores": {"game": sorted(game_core),
                                                                      "screens": sorted(screens_cores)},
           "aws_per_round_per_1000": cost(phases[f"{args.watchers} watchers"], args.watchers,
                                          phases["no watchers"]["round_wall_s_median"])}
    report(out)
    return out


def cost(measured: dict[str, Any], watchers: int, seconds: float) -> dict[str, float]:
    """USD per round for 1,000 watchers on AWS: push (from the counts measured) against polling
    once a second for the length of a round (``seconds``: the round's length with no watchers)."""
    scale = 1000 / max(1, watchers)
    messages = measured["messages_per_round"] * scale
    push_calls = measured["screen_invocations_per_round"]["push"]
    live_calls = measured["screen_invocations_per_round"]["live"]
    push = (messages * PRICES["websocket_message"]
            + (push_calls + live_calls) * PRICES["lambda_request"]
            + push_calls * 1.0 * MEMORY_GB * PRICES["lambda_gb_second_arm"]  # ~1 s to post a slot's screens
            + live_calls * 0.1 * MEMORY_GB * PRICES["lambda_gb_second_arm"]
            + push_calls * 2 * PRICES["sqs_fifo_request"]  # sent, then received and deleted in a batch
            + push_calls * 1 * PRICES["dynamodb_read_unit"] * 8  # the slot's watchers, queried
            + 1000 * seconds / 60 * PRICES["websocket_connection_minute"])
    polls = 1000 * seconds
    polling = polls * (PRICES["rest_request"] + PRICES["lambda_request"]
                       + 0.05 * MEMORY_GB * PRICES["lambda_gb_second_arm"] + 2 * PRICES["dynamodb_read_unit"])
    return {"round_seconds": round(seconds, 1), "push_usd": push, "polling_usd": polling,
            "polling_requests": polls, "push_messages": messages}


def report(out: dict[str, Any]) -> None:
    print(f"\nScreens: a Baccarat table, {out['rounds_per_phase']} rounds per phase (local stack; the game on core "
          f"{out['cores']['game']}, the screens and the watchers on {out['cores']['screens']})")
    for name, p in out["phases"].items():
        screens = ", ".join(f"{k} {v:.1f}" for k, v in p["screen_invocations_per_round"].items())
        print(f"  {name:>15}: game invocations per round {p['game_invocations_per_round']:.1f}; screens {screens}; "
              f"messages pushed per round {p['messages_per_round']:.0f}")
        line = (f"  {'':>15}  round open to settled {p['round_wall_s_median']:.2f} s (median); scan to applied "
                f"{p['scan_to_applied_ms_median']:.0f} ms median, {p['scan_to_applied_ms_p99']:.0f} ms p99")
        if p["settled_to_watchers_ms_median"] is not None:
            line += (f"; settled to watchers {p['settled_to_watchers_ms_median']:.0f} ms median, last "
                     f"{p['settled_to_last_watcher_ms']:.0f} ms; {p['watchers']} connected in {p['connect_seconds']} s")
        print(line)
    c = out["aws_per_round_per_1000"]
    print(f"  AWS, per round of {c['round_seconds']} s per 1,000 watchers: push ${c['push_usd']:.4f} "
          f"({c['push_messages']:.0f} messages) against polling once a second ${c['polling_usd']:.4f} "
          f"({c['polling_requests']:.0f} requests)")


if __name__ == "__main__":
    main(sys.argv[1:])
