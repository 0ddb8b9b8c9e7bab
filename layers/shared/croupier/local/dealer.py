"""A studio's dealer and players, as the world drives a live table: the demo's and the tests'.

:class:`StudioDealer` deals from a physical shuffled shoe at table speed and never waits for the
software between cards: the first card as the countdown shows zero (give or take a human's
reaction and the screen's clock), then about three a second; Pok Deng's burn card and twelve cards
while the countdown runs. It knows the game's procedure (its own engine, fed with the cards it
deals), so it knows which hand each card goes to without asking. It waits only where a real dealer
waits: for a player's decision or the end of a window, shown on the dealer's console. Its card
reader may send a scan twice (a reader's retry) and the table's queue may deliver an event again,
late (a redelivery).

:class:`TablePlayers` are the seated and bet-behind players of a blackjack round: each watches
their own screen and answers when it is their turn.

What the dealer dealt is the round's physical truth (:class:`PhysicalRound`): the tests hold the
system's record of every round against it.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import ALL_CARDS
from ..games import new_round
from ..games.base import Action, Bet, CardFor, RoundEngine, Settle
from ..games.blackjack import hand_value
from ..transcript import Transcript, replay
from . import sdk
from .client import ApiError, Client, Screen, ScreenReader, TableDevices

CARDS_PER_SECOND = 3.0
RETRIES = 3
"""How often a studio player's app sends a decision again after "busy, try again" or a server error."""


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


@dataclass
class PhysicalRound:
    """What happened at the table: the cards in the order dealt, the decisions the dealer saw, and
    the dealer's own engine (the procedure) after them."""

    round_id: str
    engine: RoundEngine
    cards: list[str] = field(default_factory=list)
    burned: list[str] = field(default_factory=list)
    first_card_offset: float | None = None
    """Seconds between the countdown's end and the first card after it (Pok Deng: its first card)."""
    stopped: str | None = None
    """Why the dealer stopped before the round was complete (the round was voided)."""

    @property
    def actions(self) -> list[Action]:
        return [entry for entry in self.engine.log if isinstance(entry, Action)]

    def transcript(self, game: str, rules: dict[str, Any], round_in_shoe: int, bets: Sequence[Bet],
                   balances: dict[str, int] | None) -> Transcript:
        """The physical round as a transcript, with the bets the system accepted."""
        return Transcript.parse({
            "game": game, "rules": rules, "round_in_shoe": round_in_shoe, "balances": balances or None,
            "bets": [b.to_dict() for b in bets], "cards": list(self.cards),
            "actions": [a.to_dict() for a in self.actions]})

    def replayed_nets(self, *args: Any) -> dict[str, int]:
        """Each bet's net, by the engine's replay of the physical transcript (see :meth:`transcript`)."""
        return {r.id: r.net for r in replay(self.transcript(*args)).bets}


class Redeliveries:
    """Sends a table event again straight to the table's queue, as SQS redelivers a message whose
    consumer died: the same bus event (same id, same scan id), late."""

    def __init__(self, queue_url: str, account: str = "123456789012", region: str = "us-east-1") -> None:
        self.sqs = sdk.client("sqs")
        self.queue_url, self.account, self.region = queue_url, account, region
        self.sent = 0

    def again(self, devices: TableDevices, detail_type: str, detail: dict[str, Any], event_id: str) -> None:
        event = {"version": "0", "id": event_id, "detail-type": detail_type, "source": devices.source_for(detail_type),
                 "account": self.account, "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "region": self.region, "resources": [], "detail": {"table_id": devices.table_id, **detail}}
        self.sqs.send_message(QueueUrl=self.queue_url, MessageBody=json.dumps(event))
        self.sent += 1


class StudioDealer:
    """One table's dealer. ``offsets``: the first card comes this many seconds after the countdown's
    end (drawn at random; negative: before it, as the dealer's screen shows zero a moment early).
    ``resend``: the share of scans the reader sends twice; ``redeliver``: the share the queue
    delivers again, late (needs ``redeliveries``)."""

    def __init__(self, devices: TableDevices, console: Client, screen: Screen, shoe: DealerShoe, game: str,
                 rules: dict[str, Any] | None = None, *, rng: random.Random | None = None,
                 offsets: tuple[float, float] = (0.0, 0.3), pace: float = 1 / CARDS_PER_SECOND,
                 resend: float = 0.0, redeliver: float = 0.0, redeliveries: Redeliveries | None = None) -> None:
        self.devices, self.console, self.screen, self.shoe, self.game = devices, console, screen, shoe, game
        self.rules = rules or {}
        self.rng = rng or random.Random(1)
        self.offsets, self.pace, self.resend, self.redeliver = offsets, pace, resend, redeliver
        self.redeliveries = redeliveries
        self._late: list[tuple[float, str, dict[str, Any], str]] = []
        self.scans = 0

    # --- the devices ---------------------------------------------------------------------------
    def scan(self, card: str) -> None:
        scan_id = self.devices.scan(card)
        event_id = self.devices.last_event_id
        self.scans += 1
        detail = {"reader_id": self.devices.reader_id, "scan_id": scan_id, "card": card}
        if self.rng.random() < self.resend:  # the reader did not hear the bus's answer: it sends again
            self.devices.scan(card, scan_id)
        if self.redeliveries is not None and self.rng.random() < self.redeliver:
            self._late.append((time.monotonic() + self.rng.uniform(0.2, 2.0), "card-scanned", detail, event_id))
        self._flush_late()

    def _flush_late(self, everything: bool = False) -> None:
        now = time.monotonic()
        due = [item for item in self._late if everything or item[0] <= now]
        self._late = [item for item in self._late if item not in due]
        for _, detail_type, detail, event_id in due:
            assert self.redeliveries is not None
            self.redeliveries.again(self.devices, detail_type, detail, event_id)

    def finish(self) -> None:
        """The queue's late redeliveries still due go now."""
        self._flush_late(everything=True)

    # --- a round -------------------------------------------------------------------------------
    def deal(self, started: dict[str, Any], bets: Sequence[Bet] = (), *, per_round_burn: int = 0,
             until: Callable[[RoundEngine], bool] | None = None) -> PhysicalRound:
        """Deal the round opened as ``started`` (the open-round answer: ``round_id``, ``closes_at``,
        ``round_in_shoe``). ``bets``: the blackjack bets on the table as the countdown ends (which
        seats are dealt, who may follow). ``until``: stop dealing once it holds (a test's fault)."""
        round_id = started["round_id"]
        engine = new_round(self.game, list(bets), overrides=self.rules, round_in_shoe=int(started["round_in_shoe"]),
                           validate=False)
        physical = PhysicalRound(round_id, engine)
        closes_at = int(started["closes_at"]) / 1000
        deals_early = bool(type(engine).deals_during_betting)
        for _ in range(per_round_burn):  # burned face down as the round starts
            card = self.shoe.draw(self.devices)
            physical.burned.append(card)
            self.scan(card)
            time.sleep(self.pace)
        if not deals_early:
            first = closes_at + self.rng.uniform(*self.offsets)
            time.sleep(max(0.0, first - time.time()))
        while True:
            if until is not None and until(engine):
                physical.stopped = "the test stopped the dealer"
                return physical
            expected = engine.expected
            if isinstance(expected, Settle):
                return physical
            if isinstance(expected, CardFor):
                card = self.shoe.draw(self.devices)
                if physical.first_card_offset is None and (not deals_early or not physical.cards):
                    physical.first_card_offset = time.time() - closes_at
                self.scan(card)
                engine.deal(card)
                physical.cards.append(card)
                time.sleep(self.pace)
                continue
            stopped = self._wait_for_the_table(round_id, engine)
            if stopped:
                physical.stopped = stopped
                return physical

    def _wait_for_the_table(self, round_id: str, engine: RoundEngine, timeout: float = 120.0) -> str | None:
        """A decision or a window: the dealer watches the console (its pushes) until it shows what
        the players did (or a timer did), and follows it in its own engine. Returns why it
        stopped, if the round was voided meanwhile (a paused round: the dealer waits)."""
        from ..app.engine import apply_event

        deadline = time.monotonic() + timeout
        mirrored = ("decision-made", "window-closed", "preselected", "round-voided")
        while time.monotonic() < deadline:
            self._flush_late()
            try:
                event = self.screen.next(lambda e: e.get("round_id") == round_id and e["type"] in mirrored,
                                         timeout=0.5)
            except TimeoutError:
                continue
            if event["type"] == "round-voided":
                return "round voided"
            apply_event(engine, _stored(event))
            return None
        raise TimeoutError(f"round {round_id}: nothing happened at the table for {timeout:.0f} s")


def _stored(event: dict[str, Any]) -> dict[str, Any]:
    """A console event as the round's own event (what the engine applies)."""
    if event["type"] == "window-closed":
        return {"close": True}
    if event["type"] == "preselected":
        return {"preselect": {"seat": event["seat"], "action": event.get("action")}}
    action = {"seat": event["seat"], "action": event["action"]}
    if event.get("player"):
        action["player"] = event["player"]
    if event.get("hand") is not None:
        action["hand"] = event["hand"]
    return {"action": action}


class TablePlayers:
    """The players of one blackjack round, each watching their own screen (the WebSocket pushes
    of the table) from the close of betting until the round is over, answering when it is their
    turn. Nothing polls.

    ``seats``: seat -> the seated player's screen; ``behind``: (player's screen, seat) of each bet
    behind. ``plan``: per seat, its first decisions in order (``None``: the player says nothing and
    the decision timer plays the hand), then the player's own ``strategy``. ``insure`` and
    ``follow``: who says Yes — a chance for each player, or the set of players who always do."""

    def __init__(self, round_id: str, seats: dict[int, tuple[Client, Screen]],
                 behind: Sequence[tuple[Client, Screen, int]] = (), *,
                 plan: dict[int, list[str | None]] | None = None, rng: random.Random | None = None,
                 insure: float | Collection[str] = 0.3, follow: float | Collection[str] = 0.5,
                 think: tuple[float, float] = (0.05, 0.3),
                 strategy: Callable[[dict[str, Any], list[str]], str] | None = None) -> None:
        self.round_id, self.seats, self.behind = round_id, seats, list(behind)
        self.plan = {seat: list(actions) for seat, actions in (plan or {}).items()}
        self.rng = rng or random.Random(2)
        self.insure, self.follow, self.think = insure, follow, think
        self.strategy = strategy or simple_strategy
        self.said: list[tuple[str, dict[str, Any], str]] = []
        """Every answer sent: (player, body, "applied" or the refusal)."""
        self._threads: list[threading.Thread] = []
        self._done = threading.Event()
        self._lock = threading.Lock()

    def _yes(self, choice: float | Collection[str], player: str) -> bool:
        if isinstance(choice, float | int):
            with self._lock:
                return self.rng.random() < choice
        return player in choice

    def start(self) -> TablePlayers:
        # each position reads the screen for itself: a player with two seats, or a seat and a bet
        # behind, sharing one place in the screen would each miss what the other read first
        for seat, (client, screen) in self.seats.items():
            self._threads.append(threading.Thread(target=self._play, args=(client, screen.reader(), seat, False),
                                                  daemon=True))
        for client, screen, seat in self.behind:
            self._threads.append(threading.Thread(target=self._play, args=(client, screen.reader(), seat, True),
                                                  daemon=True))
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._done.set()
        for thread in self._threads:
            thread.join(10)

    def _say(self, client: Client, body: dict[str, Any]) -> None:
        with self._lock:
            pause = self.rng.uniform(*self.think)
        time.sleep(pause)
        key = uuid.uuid4().hex  # one decision: its retries are the same request
        for attempt in range(RETRIES + 1):
            try:
                client.post(f"/rounds/{self.round_id}/decisions", body, key=key)
                self.said.append((client.subject, body, "applied"))
                return
            except ApiError as exc:
                # "try again" (the round busy with another writer) or a server error: a player's
                # app retries the same request; any other refusal is the answer
                again = exc.reason == "busy" or exc.status >= 500
                if not again or attempt == RETRIES:
                    self.said.append((client.subject, body, str(exc)))
                    return
                time.sleep(0.1 * 2 ** attempt)

    def _play(self, client: Client, screen: ScreenReader, seat: int, behind: bool) -> None:
        """One player's screen: the hands as they are dealt, and an answer when it is their turn."""
        hands: dict[str, list[str]] = {}
        answered: set[Any] = set()
        over = ("round-result", "round-settled", "round-voided")
        while not self._done.is_set():
            try:
                event = screen.next(lambda e: e.get("round_id") == self.round_id, timeout=0.5)
            except TimeoutError:
                continue
            kind = event["type"]
            if kind in over:
                return
            if kind == "card-dealt":
                hands.setdefault(event["hand"], []).append(event["card"])
            elif kind == "decision-made" and event["action"] == "split" and not event["behind"]:
                first = hands.get(f"seat-{event['seat']}", [])
                hands[f"seat-{event['seat']}"], hands[f"seat-{event['seat']}/1"] = first[:1], first[1:]
            elif kind == "waiting-for":
                self._answer(client, seat, behind, event, hands, answered)

    def _answer(self, client: Client, seat: int, behind: bool, event: dict[str, Any], hands: dict[str, list[str]],
                answered: set[Any]) -> None:
        kind = event["kind"]
        if kind == "decision" and not behind and event["seat"] == seat:
            key = ("decision", event["seq"])
            if key in answered:
                return
            answered.add(key)
            name = f"seat-{seat}" if event["seat_hand"] == 0 else f"seat-{seat}/1"
            cards = hands.get(name, [])
            score, soft = hand_value(cards)
            planned = self.plan.get(seat)
            action = planned.pop(0) if planned else self.strategy({"cards": cards, "score": score, "soft": soft},
                                                                   list(event["legal"]))
            if action is not None:  # None: silent; the decision timer plays the hand
                self._say(client, {"seat": seat, "action": action})
        elif kind == "insurance" and "insurance" not in answered:
            answered.add("insurance")
            if self._yes(self.insure, client.subject):
                self._say(client, {"seat": seat, "action": "insurance", **({"behind": True} if behind else {})})
        elif kind == "follow" and behind and event["seat"] == seat:
            follow_key = ("follow", event.get("seat_hand"), event.get("what"))
            if follow_key in answered:
                return
            answered.add(follow_key)
            if self._yes(self.follow, client.subject):
                what = event["what"]
                self._say(client, {"seat": seat, "action": f"follow-{what}", "behind": True,
                                   **({"hand": event["seat_hand"]} if what == "double" else {})})


def simple_strategy(hand: dict[str, Any], legal: list[str]) -> str:
    """What the studio's players do on their own: split aces and eights, double 10 and 11, hit below 17."""
    cards, score = hand["cards"], hand["score"]
    if "split" in legal and len(cards) == 2 and cards[0][0] == cards[1][0] and cards[0][0] in "A8":
        return "split"
    if "double" in legal and score in (10, 11) and not hand.get("soft"):
        return "double"
    return "hit" if score < 17 and "hit" in legal else "stand"
