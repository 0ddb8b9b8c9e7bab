"""A studio on the local stack: what plays rounds at live tables the way a studio does, for the
demo (``make demo``), the tests' harness and the scripts that need rounds played.

:class:`Studio` holds the people's HTTP clients (players, the operator, the supervisor, each table's
dealer console) and their screens (one WebSocket connection per client and table); it opens a
table with its devices, shoe and dealer (:class:`Table`), shuffles a new shoe in, and plays one
round (:meth:`Studio.round`): the players bet at the same time, the dealer deals at table speed
(:mod:`croupier.local.dealer`), blackjack's players decide on their own screens, and the round is
returned as the supervisor sees it once settled or voided. Every line it tells goes to ``out``.
"""

from __future__ import annotations

import random
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
from .stack import LocalStack

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


class Studio:
    """The studio's people and tables on one local stack: ``seed`` chooses the dealers' and players'
    chance moves, ``timers`` the tables' (default :data:`FAST`), ``prefix`` starts the players'
    subjects (fresh names), ``offsets`` how early or late the dealer deals the first card."""

    REFERENCE = "studio"
    """The reference of the deposits :meth:`fund` makes."""

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
        """Every player's Croupier wallet gets :data:`START_BALANCE`, deposited by the operator."""
        for name in self.players:
            self.operator.post(f"/wallets/{self.prefix}{name}/deposits",
                               {"amount": START_BALANCE, "reference": self.REFERENCE}, idempotent=True)

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


def describe_hands(game: str, hands: dict[str, Any]) -> str:
    """A round's hands in one line: each hand's cards (blackjack: its score, blackjack, bust, doubled)."""
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

