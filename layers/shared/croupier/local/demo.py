"""``make demo``: start the local stack and play rounds of all four games against it, as a studio
would: players, operator, each table's dealer console and the supervisor over HTTP; each table's
card reader as bus events from a freshly shuffled shoe, dealt by a dealer who deals at table speed
and never waits for the software between cards (:mod:`croupier.local.dealer`). Prints each round,
the wallets, and an audit as the last line.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..cards import BURN_VALUE
from ..games.base import Bet
from .client import ApiError, Client, Screen, TableDevices
from .dealer import DealerShoe, PhysicalRound, StudioDealer, TablePlayers
from .stack import LocalStack, project_root

FAST = {"countdown": 4, "decision": 2, "follow": 1, "insurance": 1, "pause_void": 30}
START_BALANCE = 100_000
BLACKJACK = ("deluxe-blackjack", "blackjack")


@dataclass
class Table:
    """One table of the studio: its devices (card reader and dealer console on the bus), the
    dealer console's HTTP client, the physical shoe and the dealer."""

    table_id: str
    game: str
    devices: TableDevices
    console: Client
    shoe: DealerShoe
    dealer: StudioDealer


class Demo:
    def __init__(self, stack: LocalStack, seed: int = 7, out: Callable[[str], None] = print,
                 timers: dict[str, int] | None = None, prefix: str = "",
                 offsets: tuple[float, float] = (-0.2, 0.3)) -> None:
        self.stack, self.out, self.rng = stack, out, random.Random(seed)
        self.timers = timers or FAST
        self.offsets = offsets
        secret, url = stack.jwt_secret, stack.api_url
        self.operator = Client(url, secret, "operator-1", "operator")
        self.supervisor = Client(url, secret, "supervisor-1", "supervisor")
        self.players = {p: Client(url, secret, prefix + p, "player")
                        for p in ("ana", "ben", "chloe", "dev", "eli", "fay")}
        self.prefix = prefix
        self.seed = seed
        self.summary: list[str] = []
        self.physical: dict[str, PhysicalRound] = {}
        """What each round's dealer dealt, by round id."""
        self.tables: dict[str, Table] = {}
        self._screens: dict[tuple[str, str], Screen] = {}
        self.screen_seconds = 0.0
        """How long the screens were open, summed (what polling them would have cost, in seconds)."""
        self._opened: dict[tuple[str, str], float] = {}

    def screen(self, client: Client, table_id: str) -> Screen:
        """The client's screen at a table: a WebSocket connection subscribed to it (one per client
        and table, kept open)."""
        key = (client.subject, table_id)
        if key not in self._screens:
            self._screens[key] = Screen(self.stack.screens.url, client.token, [table_id])
            self._opened[key] = time.monotonic()
        return self._screens[key]

    def close_screens(self) -> None:
        for key, screen in self._screens.items():
            screen.close()
            self.screen_seconds += time.monotonic() - self._opened.pop(key)
        self._screens.clear()

    def console(self, table_id: str) -> Client:
        """The dealer console of a table (its token names the table it serves)."""
        return Client(self.stack.api_url, self.stack.jwt_secret, f"console-{table_id}", "dealer", table=table_id)

    # --- set-up --------------------------------------------------------------------------------
    def fund(self) -> None:
        for name in self.players:
            self.operator.post(f"/wallets/{self.prefix}{name}/deposits", {"amount": START_BALANCE, "reference": "demo"},
                               idempotent=True)

    def fund_at_operator(self) -> None:
        """The players' accounts in the operator's own wallet (a seamless table's money)."""
        for client in self.players.values():
            self.stack.operator_wallet.open_account(client.subject, START_BALANCE)

    def open_table(self, table_id: str, game: str, seed: int, cut_at: int, *, scan_burn: bool = True,
                   rules: dict[str, Any] | None = None, wallet: dict[str, str] | None = None) -> Table:
        reader = f"reader-{table_id}"
        overrides = {"timers": self.timers, **(rules or {})}
        self.operator.post("/tables", {"game": game, "table_id": table_id, "reader_id": reader, "rules": overrides,
                                       **({"wallet": wallet} if wallet else {})})
        devices = TableDevices(self.stack.outputs["event_bus"], table_id, reader)
        shoe = DealerShoe(seed, cut_at)
        console = self.console(table_id)
        dealer = StudioDealer(devices, console, self.screen(console, table_id), shoe, game, overrides,
                              rng=random.Random(seed), offsets=self.offsets)
        table = self.tables[table_id] = Table(table_id, game, devices, dealer.console, shoe, dealer)
        self.shuffle(table, seed, cut_at, scan_burn=scan_burn)
        return table

    def shuffle(self, table: Table, seed: int, cut_at: int, *, scan_burn: bool) -> DealerShoe:
        """A new shoe: the console reports the shuffle, the dealer shows the first card and burns
        as many (scanned face down, or confirmed on the console), at table speed."""
        devices = table.devices
        shoe = table.dealer.shoe = table.shoe = DealerShoe(seed, cut_at)
        devices.shuffled(f"shoe-{seed}")
        # the dealer draws the first card once the console shows the new shoe, and confirms the
        # burn once it shows how many to burn: the console's events carry no number, and nothing
        # on the way (the bus, a standard queue) keeps them in order with the reader's
        self.stack.wait_handled(devices.last_event_id)
        first = shoe.draw(devices)
        devices.scan(first)
        burned = BURN_VALUE[first[0]]
        if scan_burn:
            for _ in range(burned):
                devices.scan(shoe.draw(devices))
        else:
            shoe.position += burned
            self.stack.wait_handled(devices.last_event_id)
            devices.burn_done()
        # the console's "open round" is ready once the shoe is: the dealer looks before opening
        table.dealer.screen.next(lambda e: e["type"] == "shoe-ready" and e["shoe_id"] == f"shoe-{seed}", timeout=60)
        self.out(f"  new shoe shoe-{seed}: first card {first} burns {burned} "
                 f"({'scanned face down' if scan_burn else 'confirmed by the dealer console'})")
        return shoe

    # --- one round -----------------------------------------------------------------------------
    def round(self, table: Table, bets: dict[str, list[dict[str, Any]]], *, per_round_burn: int = 0,
              plan: dict[int, list[str | None]] | None = None, insure: Collection[str] = (),
              follow: Collection[str] = (), during: Callable[[str], None] | None = None,
              label: str = "") -> dict[str, Any]:
        """Open a round, let the players bet, deal it as the studio's dealer does, and wait until it
        is settled or voided. Blackjack: ``plan`` gives the seated players' first decisions per seat
        (``None``: silent, the timer plays), then they play on their own; the players named in
        ``insure`` and ``follow`` buy insurance and follow every double and split. ``during`` runs
        beside the round (a supervisor's hand). Returns the round as the supervisor sees it."""
        started = table.console.post(f"/tables/{table.table_id}/rounds")
        round_id = started["round_id"]
        accepted: dict[str, list[dict[str, Any]]] = {}

        def place(player: str, wanted: list[dict[str, Any]]) -> None:
            try:
                answer = self.players[player].post(f"/tables/{table.table_id}/bets", {"bets": wanted}, idempotent=True)
                accepted[player] = answer["bets"]
            except ApiError as exc:  # too late, or not affordable: the player sits this round out
                self.out(f"    {player}: bets refused: {exc}")

        with ThreadPoolExecutor(max_workers=max(1, len(bets))) as pool:  # players bet at the same time
            list(pool.map(lambda item: place(*item), bets.items()))
        on_table = [Bet(b["bet_id"], self.players[p].subject, b["type"], int(b["amount"]), b.get("seat"), b.get("mode"))
                    for p, placed in accepted.items() for b in placed]
        players = (self._players(table.table_id, round_id, on_table, plan, insure, follow)
                   if table.game in BLACKJACK else None)
        watching = self.screen(self.supervisor, table.table_id)
        beside = threading.Thread(target=during, args=(round_id,), daemon=True) if during else None
        if beside:
            beside.start()
        try:
            self.physical[round_id] = table.dealer.deal(started, on_table, per_round_burn=per_round_burn)
            watching.next(lambda e: e.get("round_id") == round_id and e["type"] in ("round-settled", "round-refunded"),
                          timeout=120)
            final = self.supervisor.get(f"/rounds/{round_id}")
        finally:
            table.dealer.finish()
            if players is not None:
                players.stop()
                for player, body, outcome in players.said:
                    behind = f" (behind seat {body['seat']})" if body.get("behind") else ""
                    refused = "" if outcome == "applied" else f" refused: {outcome}"
                    self.out(f"    {player.removeprefix(self.prefix)}: {body['action']}{behind}{refused}")
            if beside:
                beside.join(60)
        self.report(final, bets, label)
        return final

    def _players(self, table_id: str, round_id: str, bets: list[Bet], plan: dict[int, list[str | None]] | None,
                 insure: Collection[str], follow: Collection[str]) -> TablePlayers:
        by_subject = {c.subject: c for c in self.players.values()}
        seats = {int(b.seat): (by_subject[b.player], self.screen(by_subject[b.player], table_id))
                 for b in bets if b.type == "seat" and b.seat is not None}
        behind = [(by_subject[b.player], self.screen(by_subject[b.player], table_id), int(b.seat))
                  for b in bets if b.type == "behind" and b.seat is not None]
        wanted = {self.players[name].subject for name in (*insure, *follow)}
        return TablePlayers(round_id, seats, behind, plan=plan or {},
                            insure={self.players[n].subject for n in insure} if insure else 0.0,
                            follow={self.players[n].subject for n in follow} if follow else 0.0,
                            rng=random.Random(len(wanted) + self.seed)).start()

    def report(self, final: dict[str, Any], bets: dict[str, list[dict[str, Any]]], label: str) -> None:
        rid = final["round_id"]
        status = final["status"]
        head = f"  round {final['round_in_shoe']} of the shoe ({rid}): {status}"
        if final.get("void_reason"):
            head += f" ({final['void_reason']})"
        self.out(head + (f" — {label}" if label else ""))
        if final.get("result"):
            self.out("    " + describe_hands(final["game"], final["result"]))
        for player in bets:
            mine = self.players[player].get(f"/rounds/{rid}")["bets"]
            for bet in mine:
                res = bet.get("result") or {}
                where = f" seat {bet['seat']}" if bet.get("seat") else ""
                mode = f" ({bet['mode']})" if bet.get("mode") else ""
                self.out(f"    {player:6} {bet['type']}{where}{mode} {bet['amount']}: "
                         f"{res.get('outcome', bet['status'])} net {res.get('net', 0):+d}")
        self.summary.append(f"{final['game']} {rid}: {status}")

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


def simple_strategy(hand: dict[str, Any], legal: list[str]) -> str:
    """What the demo's players do on their own: split aces and eights, double 10 and 11, hit below 17."""
    cards, score = hand["cards"], hand["score"]
    if "split" in legal and len(cards) == 2 and cards[0][0] == cards[1][0] and cards[0][0] in "A8":
        return "split"
    if "double" in legal and score in (10, 11) and not hand.get("soft"):
        return "double"
    return "hit" if score < 17 and "hit" in legal else "stand"


def describe_hands(game: str, hands: dict[str, Any]) -> str:
    if game == "baccarat":
        p, b = hands["player"], hands["banker"]
        return (f"Player {' '.join(p['cards'])} ({p['points']}), Banker {' '.join(b['cards'])} ({b['points']}): "
                f"{hands['winner']}")
    if game == "pok-deng":
        parts = []
        for name, hand in hands.items():
            if isinstance(hand, dict) and "cards" in hand:
                parts.append(f"{name} {' '.join(hand['cards'])}")
        return "; ".join(parts)
    parts = []
    for name, hand in hands.items():
        if isinstance(hand, dict) and "cards" in hand:
            extra = " BJ" if hand.get("bj") else " bust" if hand.get("bust") else ""
            extra += " doubled" if hand.get("doubled") else ""
            parts.append(f"{name} {' '.join(hand['cards'])} ({hand.get('score')}{extra})")
    return "; ".join(parts)


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
