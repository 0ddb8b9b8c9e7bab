"""Benchmark of seamless wallets on the local stack: what an operator's wallet costs a table.

Three figures, each against the local stack's reference operator wallet (a real HTTP server on
this machine):

- **bets**: at an internal table, then at a seamless table whose wallet answers at once, then at
  one whose wallet takes 50 ms per debit, during one Baccarat countdown each: one player's bets
  one after the other (each request's latency, p50 and p99: the difference between the tables is
  what the wallet adds to a bet), then ``--players`` players betting at once (the bets placed per
  second at the table);
- **calls per bet**: the wallet calls of those rounds, per bet (a Baccarat bet is one debit and
  one credit);
- **outage**: a round settles while the operator's wallet is down for credits; the wallet comes
  back after ``--outage`` seconds; how long until the last of the round's credits is
  acknowledged. The outbox runs with its AWS timings here (backoff from 1 s doubling to 30 s, the
  sweeper every minute, 30 s past due), not the tests' faster ones.

Locally each function has one execution environment and the HTTP functions take turns (see
``croupier.local.stack``), so bets per second is one environment's; on AWS Lambda runs many.

    .venv/bin/python scripts/bench_seamless.py [--players 8] [--seconds 12] [--outage 60]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AWS_TIMINGS = {"WALLET_RETRY_BASE_MS": "1000", "WALLET_RETRY_CAP_MS": "30000", "WALLET_SWEEP_SLACK_MS": "30000",
               "WALLET_DEBIT_GRACE_MS": "60000", "CROUPIER_LOCAL_SCHEDULE_SECONDS": "60"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=8, help="players betting at once (default 8)")
    parser.add_argument("--seconds", type=float, default=12.0, help="how long they bet, per table (default 12)")
    parser.add_argument("--outage", type=float, default=60.0, help="the wallet's outage, seconds (default 60)")
    parser.add_argument("--latency", type=int, default=50, help="the slow wallet's latency per debit, ms")
    parser.add_argument("--outage-only", action="store_true", help="only the outage figure")
    args = parser.parse_args(argv)
    if args.players < 1 or args.seconds <= 0 or args.outage < 0 or args.latency < 0:
        parser.error("--players, --seconds, --outage and --latency must be positive")
    os.environ.update(AWS_TIMINGS)
    from bench_cards import quiet_demo

    from croupier.app import store
    from croupier.local.client import Client
    from croupier.local.operator_wallet import Fault
    from croupier.local.stack import LOCAL_OPERATOR, LocalStack

    results: dict[str, Any] = {"bets": {}}
    with LocalStack(ROOT) as stack:
        demo = quiet_demo(stack)
        wallet = stack.operator_wallet
        players = [Client(stack.api_url, stack.jwt_secret, f"bench-p{i}", "player") for i in range(args.players)]
        for client in players:
            demo.operator.post(f"/wallets/{client.subject}/deposits", {"amount": 10**9, "reference": "bench"},
                               idempotent=True)
            wallet.open_account(client.subject, 10**9)
        seamless = {"mode": "seamless", "operator": LOCAL_OPERATOR}
        phases = [("internal", None, 0), ("seamless, wallet at once", seamless, 0),
                  (f"seamless, wallet {args.latency} ms", seamless, args.latency)]
        timers = {**demo.timers, "countdown": int(args.seconds) + 4}
        for n, (label, mode, latency) in enumerate([] if args.outage_only else phases):
            wallet.clear_faults()
            if latency:
                wallet.inject(Fault("latency", call="debit", ms=latency))
            table = demo.open_table(f"bench-sw-{n}", "baccarat", 70 + n, cut_at=400, rules={"timers": timers},
                                    wallet=mode)
            measured = _bets(demo, table, players, args.seconds)
            if mode:
                calls = store.round_calls(measured["round_id"])
                measured["calls_per_bet"] = len(calls) / max(1, measured["distinct_bets"])
                measured["calls_per_request"] = sum(c["call"] == "debit" for c in calls) / max(1, measured["bets"])
            results["bets"][label] = measured
            print(f"{label:28} one player's bet p50 {measured['p50_ms']:6.1f} ms, p99 {measured['p99_ms']:6.1f} ms "
                  f"({measured['alone']} bets); {args.players} players at once {measured['bets_per_s']:6.1f} bets/s "
                  f"({measured['bets']} bets in the round"
                  + (f", {measured['distinct_bets']} bets once a player's bets of one type are added up: "
                     f"{measured['calls_per_request']:.2f} debits per request, {measured['calls_per_bet']:.2f} wallet "
                     f"calls per bet)" if mode else ")"), flush=True)
        wallet.clear_faults()
        results["outage"] = _outage(demo, stack, players, args.outage)
        out = results["outage"]
        print(f"credits after a {args.outage:.0f} s outage: the last of {out['credits']} acknowledged "
              f"{out['drain_s']:.1f} s after the wallet came back ({out['attempts_max']} attempts at most; "
              f"{out['calls_per_bet']:.2f} wallet calls per bet, one bet per player; "
              f"the round settled {out['settled_s']:.1f} s after its last card, while the wallet was down)", flush=True)
        if args.outage_only:
            return results
        slow, quick = results["bets"][phases[2][0]], results["bets"][phases[1][0]]
        results["added_ms"] = {"p50": slow["p50_ms"] - quick["p50_ms"], "p99": slow["p99_ms"] - quick["p99_ms"]}
        print(f"a {args.latency} ms wallet adds {results['added_ms']['p50']:.1f} ms (p50), "
              f"{results['added_ms']['p99']:.1f} ms (p99) to a bet", flush=True)
    return results


def _bets(demo: Any, table: Any, players: list[Any], seconds: float) -> dict[str, Any]:
    """One player bets alone for half of ``seconds`` (latency), then every player bets at once for
    the other half (bets per second); the round is then dealt, and its outbox drained."""
    from croupier.app import store
    from croupier.games.base import Bet

    started = table.console.post(f"/tables/{table.table_id}/rounds")
    latencies: list[float] = []
    placed: list[Bet] = []
    lock = threading.Lock()
    until = time.monotonic() + seconds / 2

    def bettor(client: Any) -> None:
        kinds = ("player", "banker", "tie")
        i = 0
        while time.monotonic() < until:
            began = time.monotonic()
            answer = client.post(f"/tables/{table.table_id}/bets",
                                 {"bets": [{"type": kinds[i % 3], "amount": 100}]}, idempotent=True)
            spent = (time.monotonic() - began) * 1000
            with lock:
                latencies.append(spent)
                placed.extend(Bet(b["bet_id"], client.subject, b["type"], int(b["amount"]), None, b.get("mode"))
                              for b in answer["bets"])
            i += 1

    bettor(players[0])
    alone = list(latencies)
    latencies.clear()
    until = time.monotonic() + seconds / 2
    began = time.monotonic()
    threads = [threading.Thread(target=bettor, args=(c,)) for c in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    _deal(demo, table, started, placed)
    round_id = started["round_id"]
    while any(c["status"] in ("pending", "sending") for c in store.round_calls(round_id)):
        time.sleep(0.2)
    return {"round_id": round_id, "bets": len(placed), "distinct_bets": len({b.id for b in placed}),
            "bets_per_s": len(latencies) / elapsed,
            "p50_ms": statistics.median(alone), "p99_ms": percentile(alone, 0.99), "alone": len(alone)}


def _deal(demo: Any, table: Any, started: dict[str, Any], placed: list[Any]) -> float:
    """Deal the round and wait until it is settled: seconds from its last card to settled."""
    round_id = started["round_id"]
    watching = demo.screen(demo.supervisor, table.table_id)
    table.dealer.deal(started, placed)
    dealt = time.monotonic()
    watching.next(lambda e: e.get("round_id") == round_id and e["type"] == "round-settled", timeout=600)
    table.dealer.finish()
    return time.monotonic() - dealt


def _outage(demo: Any, stack: Any, players: list[Any], outage: float) -> dict[str, Any]:
    from croupier.app import store
    from croupier.games.base import Bet
    from croupier.local.operator_wallet import Fault
    from croupier.local.stack import LOCAL_OPERATOR

    table = demo.open_table("bench-sw-outage", "baccarat", 90, cut_at=400,
                            wallet={"mode": "seamless", "operator": LOCAL_OPERATOR})
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    placed = []
    for client in players:
        answer = client.post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "banker", "amount": 500}]},
                             idempotent=True)
        placed += [Bet(b["bet_id"], client.subject, b["type"], int(b["amount"]), None, None) for b in answer["bets"]]
    stack.operator_wallet.inject(Fault("down", call="credit"))
    down_since = time.monotonic()
    settled_s = _deal(demo, table, started, placed)
    time.sleep(max(0.0, outage - (time.monotonic() - down_since)))
    stack.operator_wallet.clear_faults()
    back = time.monotonic()

    def credits() -> list[dict[str, Any]]:
        return [c for c in store.round_calls(started["round_id"]) if c["call"] == "credit"]

    while any(c["status"] != "acknowledged" for c in credits()) or len(credits()) < len(placed):
        if time.monotonic() - back > 600:
            raise RuntimeError("the credits did not drain within 10 minutes")
        time.sleep(0.2)
    drained = time.monotonic() - back
    done = credits()
    calls = store.round_calls(started["round_id"])
    return {"credits": len(done), "drain_s": drained, "settled_s": settled_s, "calls_per_bet": len(calls) / len(placed),
            "attempts_max": max(int(c["attempts"]) for c in done)}


if __name__ == "__main__":
    main()
