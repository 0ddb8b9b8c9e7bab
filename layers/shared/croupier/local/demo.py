"""``make demo``: start the local stack and play rounds of all four games against it, as a studio
would: players, operator, each table's dealer console and the supervisor over HTTP; each table's
card reader as bus events from a freshly shuffled shoe, dealt by a dealer who deals at table speed
and never waits for the software between cards (:mod:`croupier.local.dealer`). Prints each round,
the wallets, and an audit as the last line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from .stack import LocalStack, project_root
from .studio import START_BALANCE, Studio


class Demo(Studio):
    """The studio playing the demo's scenes: the four games and a seamless table."""

    REFERENCE = "demo"

    # --- the games -----------------------------------------------------------------------------
    def play_baccarat(self) -> None:
        self.out("\nBaccarat (table bac-1): commission and no-commission Banker bets, side bets")
        table = self.open_table("bac-1", "baccarat", self.seed + 1, cut_at=30)
        for _ in range(4):
            bets = {"ana": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
                    "ben": [{"type": "player", "amount": 500}, {"type": "player-pair", "amount": 100},
                            {"type": "small", "amount": 200}],
                    "chloe": [{"type": "banker", "amount": 1001, "mode": "no-commission"},
                              {"type": "lucky-6", "amount": 100}, {"type": "big", "amount": 300}]}
            final = self.round(table, bets)
            if final.get("last_round"):
                self.out("  the cut card came out: that was the last round of the shoe; the dealer reshuffles")
                self.shuffle(table, self.seed + 11, cut_at=200, scan_burn=False)

    def play_seamless(self) -> None:
        from .stack import LOCAL_OPERATOR

        self.out(f"\nBaccarat in seamless mode (table bac-sw): every stake and payout moves in the operator's "
                 f"own wallet ({LOCAL_OPERATOR}, a separate HTTP server), not in Croupier's")
        table = self.open_table("bac-sw", "baccarat", self.seed + 5, cut_at=300,
                                wallet={"mode": "seamless", "operator": LOCAL_OPERATOR})
        for _ in range(3):
            bets = {"ana": [{"type": "banker", "amount": 1500}], "dev": [{"type": "player", "amount": 800},
                                                                       {"type": "tie", "amount": 100}],
                    "fay": [{"type": "banker", "amount": 600, "mode": "no-commission"}]}
            self.round(table, bets)

    def play_pok_deng(self) -> None:
        self.out("\nPok Deng (table pd-1): five hands against the Banker, dealt face down while bets are open; "
                 "a Player bet reserves twice its stake")
        table = self.open_table("pd-1", "pok-deng", self.seed + 2, cut_at=300)
        for _ in range(3):
            bets = {"dev": [{"type": "player-1", "amount": 1000}, {"type": "player-3", "amount": 500}],
                    "eli": [{"type": "player-2", "amount": 700}, {"type": "player-2-pair", "amount": 100}],
                    "fay": [{"type": "player-5", "amount": 2000}]}
            self.round(table, bets, per_round_burn=1)


class BlackjackScenes:
    """The blackjack part of the demo: Deluxe with bet behind, insurance, a split with follow, a
    double with follow, a timeout played automatically, a paused and resumed round and a voided one;
    the classic table with its own rules and a cut card that ends the shoe."""

    def __init__(self, demo: Demo) -> None:
        self.demo = demo

    def deluxe(self) -> None:
        d = self.demo
        d.out("\nDeluxe Blackjack (table dlx-1): two seated players, bets behind, a pair bet")
        # windows long enough to answer in on a busy machine
        slower = {"timers": {**d.timers, "insurance": 3, "follow": 3, "decision": 3}}
        table = d.open_table("dlx-1", "deluxe-blackjack", d.seed + 3, cut_at=300, scan_burn=False, rules=slower)
        d.players["ana"].call("PUT", "/tables/dlx-1/seats/1")
        d.players["ben"].call("PUT", "/tables/dlx-1/seats/2")
        bets = {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                "ben": [{"type": "seat", "seat": 2, "amount": 1000}],
                "chloe": [{"type": "behind", "seat": 1, "amount": 500}, {"type": "pair", "seat": 2, "amount": 100}]}
        table.shoe.prepare(["8S", "6H", "AS", "8D", "5C", "9C", "3H", "TS", "9S", "7D"])
        d.round(table, bets, plan={1: ["split", "double", "stand"], 2: [None]}, insure=("ana", "chloe"),
                follow=("chloe",), label="prepared shoe order: insurance, split and double followed behind, a timeout")

        def decision_due(round_id: str) -> None:
            d.screen(d.supervisor, "dlx-1").next(lambda e: e.get("round_id") == round_id and e["type"] == "waiting-for"
                                                 and e["kind"] == "decision", timeout=60)

        def pause_then_resume(round_id: str) -> None:
            # the supervisor stops the table while seat 1 decides, then lets it go on
            decision_due(round_id)
            d.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "camera feed lost"})
            d.out("    supervisor: pause (camera feed lost)")
            time.sleep(1.0)
            d.supervisor.post(f"/rounds/{round_id}/resume", {})
            d.out("    supervisor: resume")

        d.round(table, bets, during=pause_then_resume, label="paused and resumed")

        def void_it(round_id: str) -> None:
            decision_due(round_id)
            d.supervisor.post(f"/rounds/{round_id}/void", {"reason": "misdeal"})
            d.out("    supervisor: void (misdeal): every stake is refunded")

        d.round(table, bets, plan={1: [None], 2: [None]}, during=void_it, label="voided")

    def classic(self) -> None:
        d = self.demo
        d.out("\nBlackjack, the classic table (bj-1): no hole card; the cut card ends the shoe")
        table = d.open_table("bj-1", "blackjack", d.seed + 4, cut_at=30)
        d.players["dev"].call("PUT", "/tables/bj-1/seats/3")
        d.players["fay"].call("PUT", "/tables/bj-1/seats/5")
        bets = {"dev": [{"type": "seat", "seat": 3, "amount": 2000}, {"type": "pair", "seat": 3, "amount": 100}],
                "fay": [{"type": "seat", "seat": 5, "amount": 1500}],
                "eli": [{"type": "behind", "seat": 3, "amount": 1000}]}
        for _ in range(3):
            final = d.round(table, bets)
            if final.get("last_round"):
                d.out("  the cut card came out: that was the last round of the shoe; the dealer reshuffles")
                d.shuffle(table, d.seed + 14, cut_at=300, scan_burn=True)


SCENES: list[tuple[str, Callable[[Demo], None]]] = [
    ("baccarat", Demo.play_baccarat),
    ("pok deng", Demo.play_pok_deng),
    ("deluxe blackjack", lambda demo: BlackjackScenes(demo).deluxe()),
    ("classic blackjack", lambda demo: BlackjackScenes(demo).classic()),
    ("seamless wallet", Demo.play_seamless),
]
"""The demo's four games, played one after the other with the same players, and a Baccarat table
in seamless mode (the operator's wallet)."""


def main(argv: list[str] | None = None) -> int:
    root = project_root()
    started = time.monotonic()
    print("Croupier local stack: moto (DynamoDB, SQS, EventBridge, Step Functions, Lambda), resources from "
          "template.yaml")
    with LocalStack(root) as stack:
        print(f"  API {stack.api_url}  AWS endpoint {stack.endpoint}  ({len(stack.routes)} routes, "
              f"{len(stack.handlers)} functions)")
        players = Demo(stack, out=lambda line: print(line, flush=True))
        players.fund()
        players.fund_at_operator()
        print(f"  {len(players.players)} players funded with {START_BALANCE} each, in Croupier's wallets and in "
              f"the operator's", flush=True)
        for _, scene in SCENES:
            scene(players)
        print("\nWallets")
        for name, client in players.players.items():
            wallet = client.get(f"/wallets/{client.subject}")
            at_operator = stack.operator_wallet.balance(client.subject)
            print(f"  {name:6} {wallet['balance']:>8}  ({wallet['balance'] - START_BALANCE:+d})   at the operator "
                  f"{at_operator:>8}  ({at_operator - START_BALANCE:+d})")
        screens = len(players._screens)
        players.close_screens()
        calls = stack.invocation_counts()
        pushing = sum(n for name, n in calls.items() if name.rsplit("-", 1)[-1] in ("live", "push", "connections"))
        print(f"\nLambda invocations: {sum(calls.values())} ("
              + ", ".join(f"{name.rsplit('-', 1)[-1]} {n}" for name, n in sorted(calls.items(), key=lambda kv: -kv[1]))
              + f"); pushed {stack.screens.sent} messages to the screens; wall time {time.monotonic() - started:.1f} s")
        print(f"  Every screen ({screens}: players, dealer consoles, supervisor) followed the rounds through the "
              f"WebSocket pushes, at a cost of {pushing} invocations (live, push, connections); none polled (the "
              "query function only answered the players' bets and wallets for the printout). Before the push, the "
              f"same screens polling once a second would have made about {players.screen_seconds:,.0f} query "
              "invocations.")
        from ..app import reconcile
        from ..app.audit import run_audit

        report = run_audit(reconcile.ask_operator)  # the seamless table's calls against the operator's record
        print(report.summary())
        return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
