"""``make demo``: start the local stack and play rounds of all four games against it, as real
clients would: players, operator, dealer console and supervisor over HTTP; the card reader as bus
events from freshly shuffled shoes. Prints each round, the wallets, and an audit as the last line.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..cards import ALL_CARDS, BURN_VALUE
from .client import ApiError, Client, TableDevices, wait_until
from .stack import LocalStack, project_root

FAST = {"countdown": 4, "decision": 2, "follow": 1, "insurance": 1, "pause_void": 30}
START_BALANCE = 100_000


class DealerShoe:
    """A real shuffled 8-deck shoe with a cut card, as the dealer handles it: the reader reports the
    cut card when the dealer reaches it. ``prepare`` moves chosen cards to the top (a prepared shoe,
    said so in the output) so that a showcase round is sure to happen."""

    def __init__(self, seed: int, cut_at: int) -> None:
        self.cards = [c for c in ALL_CARDS for _ in range(8)]
        random.Random(seed).shuffle(self.cards)
        self.position, self.cut_at, self.cut_reported = 0, cut_at, False

    def prepare(self, wanted: list[str]) -> None:
        rest = self.cards[self.position:]
        for card in wanted:
            rest.remove(card)
        self.cards[self.position:] = wanted + rest

    def draw(self, devices: TableDevices) -> str:
        if self.position >= self.cut_at and not self.cut_reported:
            devices.cut_card()
            self.cut_reported = True
        card = self.cards[self.position]
        self.position += 1
        return card


class Demo:
    def __init__(self, stack: LocalStack, seed: int = 7, out: Callable[[str], None] = print,
                 timers: dict[str, int] | None = None, prefix: str = "") -> None:
        self.stack, self.out, self.rng = stack, out, random.Random(seed)
        self.timers = timers or FAST
        secret, url = stack.jwt_secret, stack.api_url
        self.operator = Client(url, secret, "operator-1", "operator")
        self.dealer = Client(url, secret, "console-1", "dealer")
        self.supervisor = Client(url, secret, "supervisor-1", "supervisor")
        self.players = {p: Client(url, secret, prefix + p, "player")
                        for p in ("ana", "ben", "chloe", "dev", "eli", "fay")}
        self.prefix = prefix
        self.seed = seed
        self.summary: list[str] = []

    # --- set-up --------------------------------------------------------------------------------
    def fund(self) -> None:
        for name in self.players:
            self.operator.post(f"/wallets/{self.prefix}{name}/deposits", {"amount": START_BALANCE, "reference": "demo"},
                               idempotent=True)

    def open_table(self, table_id: str, game: str, seed: int, cut_at: int, *, scan_burn: bool = True,
                   rules: dict[str, Any] | None = None) -> tuple[TableDevices, DealerShoe]:
        reader = f"reader-{table_id}"
        self.operator.post("/tables", {"game": game, "table_id": table_id, "reader_id": reader,
                                       "rules": {"timers": self.timers, **(rules or {})}})
        devices = TableDevices(self.stack.outputs["event_bus"], table_id, reader)
        return devices, self.shuffle(devices, seed, cut_at, scan_burn=scan_burn)

    def shuffle(self, devices: TableDevices, seed: int, cut_at: int, *, scan_burn: bool) -> DealerShoe:
        shoe = DealerShoe(seed, cut_at)
        devices.shuffled(f"shoe-{seed}")
        first = shoe.draw(devices)
        devices.scan(first)
        burned = BURN_VALUE[first[0]]
        if scan_burn:
            for _ in range(burned):
                devices.scan(shoe.draw(devices))
        else:
            shoe.position += burned
            devices.burn_done()
        # the reader's events arrive through the bus and the table's queue: the dealer waits for
        # the console to show the shoe ready before opening a round
        wait_until(lambda: (self.dealer.get(f"/tables/{devices.table_id}")["shoe"] or {}).get("phase") == "ready",
                   timeout=60, interval=0.1)
        self.out(f"  new shoe shoe-{seed}: first card {first} burns {burned} "
                 f"({'scanned face down' if scan_burn else 'confirmed by the dealer console'})")
        return shoe

    # --- one round -----------------------------------------------------------------------------
    def round(self, table_id: str, devices: TableDevices, shoe: DealerShoe,
              bets: dict[str, list[dict[str, Any]]], *, per_round_burn: bool = False,
              decide: Callable[[dict[str, Any]], tuple[str, dict[str, Any]] | None] | None = None,
              windows: Callable[[dict[str, Any]], list[tuple[str, dict[str, Any]]]] | None = None,
              during: Callable[[str, dict[str, Any], int], None] | None = None, label: str = "") -> dict[str, Any]:
        started = self.dealer.post(f"/tables/{table_id}/rounds")
        round_id = started["round_id"]
        if per_round_burn:
            devices.scan(shoe.draw(devices))  # Pok Deng: one card burned face down each round
        def place(player: str, wanted: list[dict[str, Any]]) -> None:
            try:
                self.players[player].post(f"/tables/{table_id}/bets", {"bets": wanted}, idempotent=True)
            except ApiError as exc:  # too late, or not affordable: the player sits this round out
                self.out(f"    {player}: bets refused: {exc}")

        with ThreadPoolExecutor(max_workers=max(1, len(bets))) as pool:  # players bet at the same time
            list(pool.map(lambda item: place(*item), bets.items()))
        answered: set[str] = set()
        step = 0
        while True:
            view = self.supervisor.get(f"/rounds/{round_id}")
            status = view["status"]
            if status in ("settled", "voided"):
                break
            if status in ("betting", "closing", "settling", "voiding") or view.get("paused"):
                if during and view.get("paused"):
                    during(round_id, view, step)
                time.sleep(0.1)
                continue
            step += 1
            if during:
                during(round_id, view, step)
            expected = view["expected"]
            kind = expected["kind"]
            if kind == "card":  # the next card only once the console shows this one taken (events are async)
                devices.scan(shoe.draw(devices))
                wait_until(lambda v=view: self._moved(round_id, v), timeout=30, interval=0.05)
            elif kind == "decision" and decide is not None:
                choice = decide(view)
                if choice is None:  # the player stays silent: the decision timer runs out
                    wait_until(lambda v=view: self._moved(round_id, v), timeout=30, interval=0.1)
                else:
                    player, body = choice
                    self._decide(player, round_id, body)
            elif kind in ("insurance", "follow"):
                key = f"{kind}:{expected.get('seat')}:{expected.get('hand')}:{expected.get('what')}"
                if key not in answered and windows is not None:
                    answered.add(key)
                    for player, body in windows(view):
                        self._decide(player, round_id, body)
                wait_until(lambda v=view: self._moved(round_id, v), timeout=30, interval=0.1)
            else:
                time.sleep(0.05)
        final = self.supervisor.get(f"/rounds/{round_id}")
        self.report(final, bets, label)
        return final

    def _moved(self, round_id: str, before: dict[str, Any]) -> bool:
        now = self.supervisor.get(f"/rounds/{round_id}")
        return any(now.get(k) != before.get(k) for k in ("expected", "hands", "status")) or bool(now.get("paused"))

    def _decide(self, player: str, round_id: str, body: dict[str, Any]) -> None:
        try:
            self.players[player].post(f"/rounds/{round_id}/decisions", body, idempotent=True)
            behind = f" (behind seat {body['seat']})" if body.get("behind") else ""
            self.out(f"    {player}: {body['action']}{behind}")
        except ApiError as exc:
            self.out(f"    {player}: {body['action']} refused: {exc}")

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
        devices, shoe = self.open_table("bac-1", "baccarat", self.seed + 1, cut_at=30)
        for _ in range(4):
            bets = {"ana": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
                    "ben": [{"type": "player", "amount": 500}, {"type": "player-pair", "amount": 100},
                            {"type": "small", "amount": 200}],
                    "chloe": [{"type": "banker", "amount": 1001, "mode": "no-commission"},
                              {"type": "lucky-6", "amount": 100}, {"type": "big", "amount": 300}]}
            final = self.round("bac-1", devices, shoe, bets)
            if final.get("last_round"):
                self.out("  the cut card came out: that was the last round of the shoe; the dealer reshuffles")
                shoe = self.shuffle(devices, self.seed + 11, cut_at=200, scan_burn=False)

    def play_pok_deng(self) -> None:
        self.out("\nPok Deng (table pd-1): five hands against the Banker; a Player bet reserves twice its stake")
        devices, shoe = self.open_table("pd-1", "pok-deng", self.seed + 2, cut_at=300)
        for _ in range(3):
            bets = {"dev": [{"type": "player-1", "amount": 1000}, {"type": "player-3", "amount": 500}],
                    "eli": [{"type": "player-2", "amount": 700}, {"type": "player-2-pair", "amount": 100}],
                    "fay": [{"type": "player-5", "amount": 2000}]}
            self.round("pd-1", devices, shoe, bets, per_round_burn=True)


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
        devices, shoe = d.open_table("dlx-1", "deluxe-blackjack", d.seed + 3, cut_at=300, scan_burn=False,
                                     rules=slower)
        d.players["ana"].call("PUT", "/tables/dlx-1/seats/1")
        d.players["ben"].call("PUT", "/tables/dlx-1/seats/2")
        owners = {1: "ana", 2: "ben"}
        bets = {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                "ben": [{"type": "seat", "seat": 2, "amount": 1000}],
                "chloe": [{"type": "behind", "seat": 1, "amount": 500}, {"type": "pair", "seat": 2, "amount": 100}]}
        shoe.prepare(["8S", "6H", "AS", "8D", "5C", "9C", "3H", "TS", "9S", "7D"])

        def windows(view: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
            kind = view["expected"]["kind"]
            if kind == "insurance":
                return [("ana", {"seat": 1, "action": "insurance"}),
                        ("chloe", {"seat": 1, "action": "insurance", "behind": True})]
            what = view["expected"].get("what")
            return [("chloe", {"seat": 1, "action": f"follow-{what}", "behind": True})]

        d.round("dlx-1", devices, shoe, bets, windows=windows,
                decide=blackjack_round_plan(owners, {1: ["split", "double", "stand"], 2: [None]}),
                label="prepared shoe order: insurance, split and double followed behind, a timeout")
        paused: dict[str, bool] = {}

        def pause_then_resume(round_id: str, view: dict[str, Any], step: int) -> None:
            if step >= 3 and not paused:
                paused["done"] = True
                d.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "camera feed lost"})
                d.out("    supervisor: pause (camera feed lost)")
                time.sleep(1.0)
                d.supervisor.post(f"/rounds/{round_id}/resume", {})
                d.out("    supervisor: resume")

        d.round("dlx-1", devices, shoe, bets, decide=blackjack_round_plan(owners), windows=lambda v: [],
                during=pause_then_resume, label="paused and resumed")
        voided: dict[str, bool] = {}

        def void_it(round_id: str, view: dict[str, Any], step: int) -> None:
            if step >= 4 and not voided:
                voided["done"] = True
                d.supervisor.post(f"/rounds/{round_id}/void", {"reason": "misdeal"})
                d.out("    supervisor: void (misdeal): every stake is refunded")

        d.round("dlx-1", devices, shoe, bets, decide=blackjack_round_plan(owners), windows=lambda v: [],
                during=void_it, label="voided")

    def classic(self) -> None:
        d = self.demo
        d.out("\nBlackjack, the classic table (bj-1): no hole card; the cut card ends the shoe")
        devices, shoe = d.open_table("bj-1", "blackjack", d.seed + 4, cut_at=30)
        d.players["dev"].call("PUT", "/tables/bj-1/seats/3")
        d.players["fay"].call("PUT", "/tables/bj-1/seats/5")
        owners = {3: "dev", 5: "fay"}
        bets = {"dev": [{"type": "seat", "seat": 3, "amount": 2000}, {"type": "pair", "seat": 3, "amount": 100}],
                "fay": [{"type": "seat", "seat": 5, "amount": 1500}],
                "eli": [{"type": "behind", "seat": 3, "amount": 1000}]}
        for _ in range(3):
            final = d.round("bj-1", devices, shoe, bets, decide=blackjack_round_plan(owners), windows=lambda v: [])
            if final.get("last_round"):
                d.out("  the cut card came out: that was the last round of the shoe; the dealer reshuffles")
                shoe = d.shuffle(devices, d.seed + 14, cut_at=300, scan_burn=True)


def simple_strategy(hand: dict[str, Any], legal: list[str]) -> str:
    """What the demo's players do on their own: split aces and eights, double 10 and 11, hit below 17."""
    cards, score = hand["cards"], hand["score"]
    if "split" in legal and len(cards) == 2 and cards[0][0] == cards[1][0] and cards[0][0] in "A8":
        return "split"
    if "double" in legal and score in (10, 11) and not hand.get("soft"):
        return "double"
    return "hit" if score < 17 and "hit" in legal else "stand"


def _seat_hand(view: dict[str, Any]) -> tuple[int, dict[str, Any], list[str]]:
    expected = view["expected"]
    seat = view["hands"]["seats"][str(expected["seat"])]
    return int(expected["seat"]), seat["hands"][int(expected["hand"])], list(expected["legal"])


def blackjack_round_plan(owners: dict[int, str], planned: dict[int, list[str | None]] | None = None,
                         ) -> Callable[[dict[str, Any]], tuple[str, dict[str, Any]] | None]:
    """The seated players' decisions: planned ones first (None: stay silent), then their own."""
    queue = {seat: list(actions) for seat, actions in (planned or {}).items()}

    def decide(view: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        seat, hand, legal = _seat_hand(view)
        if queue.get(seat):
            action = queue[seat].pop(0)
            if action is None:
                return None
        else:
            action = simple_strategy(hand, legal)
        return owners[seat], {"seat": seat, "action": action}

    return decide


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
]
"""The demo's four tables, played one after the other with the same players."""


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
        print(f"  {len(players.players)} players funded with {START_BALANCE} each", flush=True)
        for _, scene in SCENES:
            scene(players)
        print("\nWallets")
        for name, client in players.players.items():
            wallet = client.get(f"/wallets/{client.subject}")
            print(f"  {name:6} {wallet['balance']:>8}  ({wallet['balance'] - START_BALANCE:+d})")
        print(f"\nLambda invocations: {sum(stack.invocations.values())}; wall time {time.monotonic() - started:.1f} s")
        from ..app.audit import run_audit

        report = run_audit()
        print(report.summary())
        return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
