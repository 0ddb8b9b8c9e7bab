"""Benchmark of the application on the local stack: what one round costs.

For a full round of each game, and for Baccarat rounds with 1,000 and 10,000 bets: wall time on
the local stack, Lambda invocations, Step Functions state transitions, DynamoDB requests and
write units, and the cost of the round on AWS computed from those counts and public list prices.
Wall times are moto's, not AWS's: compare counts, not seconds.

    .venv/bin/python scripts/bench_stack.py [--bets 1000 10000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from croupier.local.prices import unit_price  # noqa: E402  (the repository's prices file)

PRICE = {
    "lambda_request": unit_price("lambda_request"),
    "lambda_gb_second": unit_price("lambda_gb_second_arm64"),
    "sfn_transition": unit_price("sfn_standard_transition"),
    "ddb_write_unit": unit_price("ddb_write_request_unit"),
    "ddb_read_unit": unit_price("ddb_read_request_unit"),
    "apigw_request": unit_price("apigw_rest_request"),
    "eventbridge_event": unit_price("eventbridge_event"),
    "sqs_standard_request": unit_price("sqs_standard_request"),
}
LAMBDA_MEMORY_GB = 0.5
ASSUMED_LAMBDA_SECONDS = 0.08  # average billed duration assumed per invocation (warm, arm64, 512 MB)


def transitions(round_id: str) -> int:
    from croupier.local.usage import state_transitions

    return state_transitions(STACK.outputs["state_machine"], round_id)


def _api_calls() -> int:
    """HTTP requests that change something (the clients' polling of GET /rounds is left out)."""
    return sum(v for k, v in STACK.invocations.items() if k.endswith(("bets", "decisions", "tables", "wallet")))


def measure(label: str, play: Any, bets: int) -> dict[str, Any]:
    from croupier.local import motopatch

    invocations_before = dict(STACK.invocations)
    ddb_before = dict(motopatch.counters)
    api_before = _api_calls()
    started = time.perf_counter()
    final, events, *idle = play()
    wall = time.perf_counter() - started - sum(idle)  # a big round's idle rest of its countdown is left out
    lambdas = sum(v for k, v in STACK.invocations.items() if not k.endswith("query")) - sum(
        v for k, v in invocations_before.items() if not k.endswith("query"))
    api = _api_calls() - api_before
    counts = {k: motopatch.counters[k] - ddb_before.get(k, 0) for k in motopatch.counters}
    writes, reads = counts.get("write_units", 0), counts.get("read_requests", 0)
    steps = transitions(final["round_id"])
    cost = (lambdas * (PRICE["lambda_request"] + LAMBDA_MEMORY_GB * ASSUMED_LAMBDA_SECONDS * PRICE["lambda_gb_second"])
            + steps * PRICE["sfn_transition"] + writes * PRICE["ddb_write_unit"] + reads * PRICE["ddb_read_unit"]
            + api * PRICE["apigw_request"] + events * (PRICE["eventbridge_event"] + 3 * PRICE["sqs_standard_request"]))
    row = {"round": label, "bets": bets, "status": final["status"], "wall_s": round(wall, 2), "lambda": lambdas,
           "api_requests": api, "transitions": steps, "ddb_requests": sum(v for k, v in counts.items()
                                                                         if k.startswith("op:")),
           "ddb_write_units": writes, "ddb_reads": reads, "card_events": events, "usd": round(cost, 6)}
    print(f"  {label:34} {bets:>6} bets  {row['status']:8} {wall:7.1f} s  lambda {lambdas:>6}  api {api:>6}  "
          f"transitions {steps:>4}  ddb {row['ddb_requests']:>7} req / {writes:>7} WU  events {events:>3}  "
          f"${cost:.5f}", flush=True)
    return row


def game_rounds(demo: Any) -> list[dict[str, Any]]:
    """One round of each game, dealt by the studio's dealer at table speed (table events are the
    dealer's scans and the console's events of the round)."""
    rows = []
    counter = {"events": 0}

    def counting(devices: Any) -> Any:
        original = devices.send

        def send(*a: Any, **k: Any) -> None:
            counter["events"] += 1
            original(*a, **k)

        devices.send = send
        return devices

    def played(table: Any, bets: dict[str, list[dict[str, Any]]], **kwargs: Any) -> Any:
        def play() -> Any:
            counter["events"] = 0
            return demo.round(table, bets, **kwargs), counter["events"]

        return play

    bac = demo.open_table("bench-bac", "baccarat", 1, cut_at=300)
    counting(bac.devices)
    rows.append(measure("baccarat", played(bac, {"ana": [{"type": "banker", "amount": 1000}],
                                                 "ben": [{"type": "player", "amount": 500}]}), 2))
    pd = demo.open_table("bench-pd", "pok-deng", 2, cut_at=300)
    counting(pd.devices)
    rows.append(measure("pok deng", played(pd, {"dev": [{"type": "player-1", "amount": 1000}],
                                                "eli": [{"type": "player-4", "amount": 500}]}, per_round_burn=1), 2))
    for game, name, seats in (("deluxe-blackjack", "bench-dlx", (1, 2)), ("blackjack", "bench-bj", (3,))):
        table = demo.open_table(name, game, 3, cut_at=300, scan_burn=False)
        counting(table.devices)
        owners = {}
        for seat, player in zip(seats, ("ana", "ben"), strict=False):
            demo.players[player].call("PUT", f"/tables/{name}/seats/{seat}")
            owners[seat] = player
        bets = {owners[s]: [{"type": "seat", "seat": s, "amount": 1000}] for s in seats}
        bets["chloe"] = [{"type": "behind", "seat": seats[0], "amount": 500}]
        rows.append(measure(game, played(table, bets), len(bets)))
    return rows


PER_REQUEST_S = [0.5]
"""Seconds one 8-bet request takes on this stack: a first guess, then what the last big round measured."""


def big_round(demo: Any, n_bets: int) -> dict[str, Any]:
    """A Baccarat round with ``n_bets`` bets: players of 8 bets each (every bet type), bets placed
    over HTTP by 8 clients at a time, as a burst at the end of the countdown would come.

    The countdown (the workflow's Wait state, which nothing can shorten) is sized from the last
    measured request time, with room to spare; the idle rest of it is not counted in the wall
    time: placing the bets, then dealing and settling from the close of betting, are."""
    from croupier.app import store
    from croupier.local.client import ApiError, Client

    players = (n_bets + 7) // 8
    table = f"bench-big-{n_bets}"
    rng = random.Random(n_bets)
    clients = [Client(STACK.api_url, STACK.jwt_secret, f"big{n_bets}-{i}", "player") for i in range(players)]
    for client in clients:  # funding is not part of the round
        store.move_money(client.subject, [(f"deposit:bench:{client.subject}", 1_000_000, {})], kind="deposit")
    types = ["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small"]
    countdown = min(600, int(30 + 1.3 * players * PER_REQUEST_S[0]))  # 600: the longest a table allows
    opened_table = demo.open_table(table, "baccarat", 5, cut_at=300,
                                   rules={"timers": {**demo.timers, "countdown": countdown}})
    placed = {"bets": 0}
    counting = threading.Lock()

    def play() -> Any:
        started = opened_table.console.post(f"/tables/{table}/rounds")
        round_id = started["round_id"]
        opened = time.perf_counter()

        def bet(i: int) -> None:
            count = min(8, n_bets - 8 * i)
            wanted = [{"type": t, "amount": rng.choice((100, 200, 500))} for t in types[:count]]
            try:
                clients[i].post(f"/tables/{table}/bets", {"bets": wanted}, idempotent=True)
                with counting:
                    placed["bets"] += count
            except ApiError as exc:  # the countdown ran out before this request: it is counted out
                print(f"    refused: {exc}", flush=True)

        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(bet, range(players)))
        placing = time.perf_counter() - opened
        PER_REQUEST_S[0] = placing / players
        print(f"    {placed['bets']} of {n_bets} bets placed in {placing:.1f} s ({players} requests, "
              f"countdown {countdown} s)", flush=True)
        dealer = opened_table.dealer
        scans = dealer.scans
        physical = dealer.deal(started)  # the dealer starts as the countdown shows zero
        closed = time.perf_counter() - (physical.first_card_offset or 0.0)
        while (view := demo.supervisor.get(f"/rounds/{round_id}"))["status"] not in ("settled", "voided"):
            time.sleep(0.2)
        settling = time.perf_counter() - closed
        print(f"    closed, dealt and settled in {settling:.1f} s", flush=True)
        idle = closed - opened - placing
        return view, dealer.scans - scans, idle

    row = measure(f"baccarat, {n_bets} bets", play, n_bets)
    row["bets"] = placed["bets"]
    return row


def main(argv: list[str] | None = None) -> int:
    rows(argv)
    return 0


def rows(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Play the rounds and print a line each; returns the rows (``make bench``'s figures)."""
    global STACK
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bets", type=int, nargs="*", default=[1000, 10000], help="sizes of the big rounds")
    parser.add_argument("--quick", action="store_true", help="only the four game rounds")
    parser.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    from croupier.local.demo import Demo
    from croupier.local.stack import LocalStack

    print("Local stack, one round each (counts are what AWS would bill; seconds are moto's):", flush=True)
    with LocalStack(ROOT) as stack:
        STACK = stack
        demo = Demo(stack, out=lambda line: None)
        demo.fund()
        measured = game_rounds(demo)
        if not args.quick:
            for n in args.bets:
                measured.append(big_round(demo, n))
    print(f"  prices: us-east-1 on-demand list prices; Lambda billed {ASSUMED_LAMBDA_SECONDS * 1000:.0f} ms at "
          f"{LAMBDA_MEMORY_GB * 1024:.0f} MB per invocation (assumed)")
    if args.json:
        Path(args.json).write_text(json.dumps(measured, indent=2), encoding="utf-8")
    return measured


STACK: Any = None

if __name__ == "__main__":
    raise SystemExit(main())
