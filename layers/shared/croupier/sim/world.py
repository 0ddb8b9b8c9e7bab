"""The application in one process, on one seed: the real functions' handlers on DynamoDB in memory
(:mod:`croupier.sim.dynamo`), the real round workflow interpreted (:mod:`croupier.sim.asl`), the
devices' queue as SQS delivers (:mod:`croupier.sim.queues`), every clock virtual; a dealer at table
speed and a reader that now and then fails a read, players who bet early, late, twice, again and
behind another seat, and the faults a plan draws from the seed.

Nothing here is random except through generators seeded from the run's seed (one for each kind of
draw, so that adding one kind leaves the others' draws as they were), and nothing waits for real
time: a run is a function of its seed and its plan, step for step (:class:`World`).

What runs the application's own code, and how:

- the round and settlement functions: their Lambda handlers, invoked by the interpreted workflow;
- the dealing function: its Lambda handler, given SQS batches of the table bus's events;
- the live function: its Lambda handler, given the game table's stream as Lambda's event source
  mapping delivers it (:mod:`croupier.sim.streams`: its filter, batches, retries and bisection);
  the push function: its handler, given the FIFO push queue's batches; every player and each
  table's supervisor watch their table on a screen (their connection kept as the connections
  function keeps it), which receives what API Gateway would post to it;
- the outbox function: its Lambda handler, given the wallet-call queue's batches (a standard
  queue: delays, redeliveries, duplicates) and its schedule's sweep every minute, for the tables
  whose money is in an operator's seamless wallet (``seamless``); that wallet is the reference
  operator wallet's ledger, reached through the application's wallet transport, failing as the
  seed draws (:mod:`croupier.sim.operator`);
- the players' bets and decisions, the dealer console's "open round" and the supervisor's void:
  the services the HTTP routes call (``croupier.app.bets``, ``decisions``, ``rounds``,
  ``supervision``), invoked as their function would be (faults included). The HTTP layer in front
  of them (authorisation, request models, idempotency records) is proven by the end-to-end tests
  on the local stack instead.

What a step is: one thing the world does (a player's request, a card scanned, a batch delivered, a
timer of the workflow), each at its virtual time; the invariants (:mod:`croupier.sim.invariants`)
are checked after every step. Invocations run at once as on AWS: now and then one pauses before a
store call while the steps due meanwhile run, their invocations in their functions' second
environments (``interleave``, :meth:`World._interleave`).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import heapq
import itertools
import json
import logging
import random
import sys
import threading
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from aws_lambda_powertools import Metrics
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError

from ..app import aws, config, keys, operators, seamless, store
from ..app.clock import VirtualClock, using
from ..app.config import Settings, settings
from ..app.events import CONSOLE, READER, source_of
from ..app.records import FINISHED, RoundRecord, RoundStatus, bet_from_item, last_bet_ms
from ..betting import BLACKJACK_GAMES as BLACKJACK
from ..cards import BURN_VALUE
from ..errors import CroupierError
from ..games import new_round
from ..games.base import CardFor, DecisionFor, FollowWindow, InsuranceWindow, RoundEngine, Settle
from ..local import template as tpl
from .asl import Failure, TaskDoesNotExist, Workflows
from .dynamo import TRANSACTION_CONFLICT, WRITES, FakeDynamo, Refused, in_flight
from .house import house_apart, house_rules
from .memory import (
    ACCOUNT,
    BATCHES,
    REGION,
    AwsInMemory,
    Context,
    EventBusInMemory,
    ScreensInMemory,
    SqsInMemory,
    SsmInMemory,
    Unreliable,
    client_error,
    function_handler,
    partly,
    settings_for,
    template_tables,
)
from .operator import OPERATOR, WALLET_FAULTS, OperatorAtWorld
from .queues import Message, Queue
from .streams import StreamMapping

PUSH_QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/sim-croupier-push.fifo"
WALLET_CALLS_QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/sim-croupier-wallet-calls"
SWEEP_EVERY = 60.0
"""Seconds between two runs of the outbox's sweeper (its schedule: ``rate(1 minute)``)."""
OPENING_BALANCE = 1_000_000
"""What each player holds when the world begins, in either wallet."""
SHORT_FUNDED_CHANCE = 0.25
"""On house rules: the chance that a player begins with 20 to 200 units instead (stakes are 1 to 50
units a bet): bets the balance does not cover, doubles, splits, insurance and follows it does not."""
STREAM_PACE = 0.25
"""Seconds between two polls of a stream shard by Lambda (four a second)."""
CARD_PACE = 1 / 3
"""Seconds between two cards: three a second, the dealer never waits for the system."""
DECKS, CUT_AT = 8, 360
PATIENCE = 600
"""Seconds a dealer waits, looking at the console once a second, for a new shoe to show or to be
ready before shuffling again: longer than an event can stay in flight (five receives, each after
the devices' queue's visibility timeout) before it arrives or is dead-lettered."""

BACCARAT_BETS = ("player", "banker", "tie", "player-pair", "banker-pair", "big", "small", "lucky-6")
BEHIND_CHANCE = 0.3
"""The chance that a Deluxe Blackjack player also bets behind another seat in a round."""
SECOND_SEAT_CHANCE = 0.3
"""On house rules, Deluxe Blackjack: the chance that a table's last two seats are one player's (a
table the player of the table before does not sit at): its seat bets mirrored, or, one table in
two, not (``mirror_seat_bets``); two hands of one player to play; a bet behind the player's own
other seat refused."""
RAILBIRD_CHANCE = 0.5
"""On house rules: the chance that a blackjack table has a player at no seat who, each round, bets
behind one or two seats (and now and then a pair bet on one of them), then answers the windows on
those bets (insurance, following a double or a split): at the classic table, the only bets behind
(its seated players may not bet behind)."""
TWO_TABLES_CHANCE = 0.25
"""On house rules: the chance that a table's last seat is taken by the player of the last seat of
the table before it, who then plays both tables' rounds at once, on one wallet when both tables'
wallets are of one kind."""
ODD_STAKES_CHANCE = 0.3
"""On house rules: the chance that a player stakes whole units and some cents (1 to 99 minor units
more): what such a stake wins at 3:2, 6:5 or 19:20, and the half stakes it gives (insurance, a
surrender, a no-commission Banker winning on six), fall between minor units and are rounded down
(``common.md``, Money); every other stake is whole units, which no payout divides."""
RECONFIGURE_CHANCE = 0.2
"""On house rules: the chance that the operator gives a table new rules as one of its rounds ends."""
POK_DENG_BETS = tuple(f"player-{n}{pair}" for n in range(1, 6) for pair in ("", "-pair"))
FUNCTION_FAULTS = ("die-before-call", "die-after-call", "timeout", "lost-answer", "throttled", "conflict-storm",
                   "outage", "abandoned-call", "transaction-conflict", "die-late", "service-error")
"""Faults of one invocation: the function's process dies before or after one of its store calls
(after: the call took effect, its answer is lost), it runs out of time at a store call, it finishes
but its answer never reaches the caller, it is never run (Lambda throttles it), or every store call
of it may fail on throughput (a storm of conflicts that exhausts the SDK's retries); or the function
is throttled for 30 s to 5 minutes from this invocation on (``outage``, drawn apart: its concurrency
taken by something else, a broken deploy rolled back); or the workflow's call to a task's function
fails on the way (``abandoned-call``, drawn apart, per task: Step Functions reports
``Lambda.ClientExecutionTimeoutException`` or ``Lambda.SdkClientException``) while the invocation
runs on, slowly: it starts within :data:`ABANDONED_STARTS` seconds and pauses at one of its first
:data:`ABANDONED_CALLS` store calls for up to :data:`ABANDONED_RUNS` seconds, with the workflow (its
retry of the task) and the world going on meanwhile (:meth:`World._abandoned`); or one of its
writes meets another transaction in flight on one of its items (``transaction-conflict``, drawn
apart, per write: DynamoDB refuses it, :func:`croupier.sim.dynamo.in_flight`), which no write of the
world's one process can otherwise meet; or its process dies before or after one of its store calls
after the twelfth (``die-late``, drawn apart: the 13th to the :data:`LATE_CALLS`-th, where the other
deaths never strike; an invocation that makes fewer calls does not die); or one of its calls to
another AWS service (Step Functions, SQS, EventBridge, SSM, the screens' connections) fails once the
SDK's retries ran out (``service-error``, drawn apart, per call: :meth:`World._service_call`)."""
ABANDONED_ERRORS = ("Lambda.ClientExecutionTimeoutException", "Lambda.SdkClientException")
THROTTLED, DIED, TIMED_OUT, ANSWER_LOST = ("Lambda.TooManyRequestsException", "Runtime.ExitError", "Sandbox.Timedout",
                                           "Lambda.ServiceException")
STORM = "ProvisionedThroughputExceededException"
SERVICE_ERRORS = (EndpointConnectionError, ReadTimeoutError)
"""How a call to another AWS service fails once the SDK's retries ran out (``service-error``): not
sent (the connection refused), or sent and its answer timed out."""
INJECTED_ERRORS = frozenset({THROTTLED, DIED, TIMED_OUT, ANSWER_LOST, STORM, TRANSACTION_CONFLICT, *ABANDONED_ERRORS,
                             *(error.__name__ for error in SERVICE_ERRORS)})
"""The errors the function faults make a task fail with, as Step Functions names them: any other
is a function failing by itself."""
ABANDONED_STARTS, ABANDONED_RUNS, ABANDONED_CALLS = 1.5, 4.0, 8
FIRST_CALLS, LATE_CALLS = 12, 30
"""The store calls an invocation may die at: one of its first twelve (``die-before-call``, ``die-after-call``,
``timeout``), or one of the next ones up to the 30th (``die-late``)."""
WORLD_FAULTS = ("duplicate-delivery", "late-delivery", "double-click", "retry", "late-bet", "stray-card", "void",
                "failed-scan", "redelivery", "supervisor-pause", "preselect", "early-deal", "foreign-card",
                "index-lag", "stale-read", "seq-reuse")
"""Faults of the world: the queue delivers an event again or late, a player sends a request twice
at once or again later, bets after the countdown, the reader scans a card no hand can take, the
supervisor voids a round, the reader fails to read a card (and the dealer scans it again), a
device's event first reaches the dealing function only after the devices' queue's visibility
timeout (its first receive lost, as a batch whose invocation died before it recorded anything), the
supervisor pauses a round being dealt (the dealer stops; the supervisor resumes it or leaves it to
its timer, as any paused round), a blackjack player pre-selects hit or stand for their turn while
another seat decides (applied when their turn starts; drawn apart, per seat and decision), a
Baccarat dealer starts dealing 1.5 to 4 s before the countdown ends (:data:`EARLY_DEALS`; drawn
apart, per round), a shoe holds a card of another deck, a ninth copy of one of its cards, somewhere
before the cut card (``foreign-card``, drawn apart, per shoe: :meth:`World._new_shoe`), a global
secondary index takes a change of its table up to :data:`INDEX_LAG` seconds late (``index-lag``,
drawn apart, per change an index takes: :meth:`World._index_lag`), as DynamoDB's indexes, eventually
consistent, may; an eventually consistent read of a table sees it as it was up to
:data:`STALE_READ` seconds before (``stale-read``, drawn apart, per such read: :meth:`World._stale_read`),
as DynamoDB's may; the card reader numbers a round's card with a number it gave an earlier event of the
table's log (``seq-reuse``, drawn apart, per card dealt to a hand: :meth:`World._reused_number`), as
a reader's faulty count would."""
INDEX_LAG = 20.0
"""The longest an index takes a change late (``index-lag``), in seconds."""
STALE_READ = 1.0
"""How old at most is what an eventually consistent read sees (``stale-read``), in seconds."""
RACE_FAULTS = ("interleave",)
"""Invocations at once: one pauses at one of its store calls while the world goes on (players'
requests, deliveries, polls of the queues: other invocations, of any function), then goes on from
where it paused, as invocations run at once on AWS, each in its own environment."""
FAULT_KINDS = FUNCTION_FAULTS + WORLD_FAULTS + WALLET_FAULTS + RACE_FAULTS
EARLY_DEALS = frozenset({"baccarat"})
"""The games whose dealer may start early (``early-deal``): those whose hands do not depend on the
bets. A blackjack dealer deals the seats with chips, and a bet placed after an early first card
would be on a seat the dealer did not deal: a question for the table's procedure first; a Pok Deng
dealer deals while betting is open anyway."""
RESUMES = 3
"""How many times the simulated supervisor resumes one round at most."""
SUPERVISOR_WINDOW: dict[str, tuple[float | None, float]] = {
    "baccarat": (1.0, 3.0), "blackjack": (1.0, 20.0), "deluxe-blackjack": (1.0, 20.0), "pok-deng": (None, 3.0)}
"""When a supervisor's void (or pause) comes, per game: from this many seconds before betting
closes (None: from the opening), to this many after the first card (Pok Deng: after betting
closes, its cards come while betting is open). A void or a pause while betting is open is refused,
so most come while the round is dealt: a blackjack round's over its decisions and windows too."""
INTERLEAVE_WITHIN = 0.5
"""The longest pause of an invocation at a store call (a slow call, a busy environment), in seconds;
each pause is drawn up to it."""

DEFAULT_RATES: dict[str, float] = {
    "die-before-call": 0.02, "die-after-call": 0.02, "timeout": 0.005, "lost-answer": 0.01, "throttled": 0.01,
    "conflict-storm": 0.005, "duplicate-delivery": 0.03, "late-delivery": 0.02, "double-click": 0.05,
    "retry": 0.05, "late-bet": 0.03, "stray-card": 0.01, "void": 0.01, "failed-scan": 0.01, "redelivery": 0.002,
    "supervisor-pause": 0.01, "outage": 0.0001, "preselect": 0.05, "early-deal": 0.01, "abandoned-call": 0.002,
    "transaction-conflict": 0.001, "die-late": 0.02, "service-error": 0.002, "foreign-card": 0.05,
    "index-lag": 0.05, "stale-read": 0.05, "seq-reuse": 0.001,
    "wallet-no-answer": 0.02, "wallet-lost-answer": 0.02, "wallet-error": 0.01, "wallet-duplicate": 0.02,
    "wallet-outage": 0.002, "interleave": 0.005,
}
"""The fault mix of ``croupier chaos`` unless told otherwise: chances per invocation (function
faults), per event sent (deliveries), per bet request (players), per round (stray card, void)
per call to an operator's wallet and per store call (interleave)."""


SELDOM_COLLECTIONS = (50_000, 20, 20)
"""CPython's collector thresholds for a process that holds many long-lived objects and makes little
cyclic garbage: a world while it plays (:func:`collecting_seldom`), a test process (``tests/conftest.py``)."""


@contextlib.contextmanager
def collecting_seldom() -> Iterator[None]:
    """CPython's cyclic garbage collector run seldom while a world plays: at
    :data:`SELDOM_COLLECTIONS`, as in a test process, not at CPython's defaults.

    A world allocates millions of short-lived dicts and lists (typed items, events, records) that
    reference counting frees; at the defaults the collector traversed the survivors every 700
    allocations, for little. ``croupier chaos --rounds 500 --seed 2 --jobs 1`` took 45 to 50 s of
    CPU (47 s on average over five runs) at the defaults, 43 and 45 s at these, at the same peak
    memory (532 MB). When the collector runs changes nothing a world does: the report is the same
    bytes."""
    thresholds = gc.get_threshold()
    gc.set_threshold(*SELDOM_COLLECTIONS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


class FunctionDied(BaseException):
    """The function's process died here: nothing after this point ran (not an ``Exception``, so
    that no ``except Exception`` of the application can survive it)."""


@dataclass(frozen=True)
class Plan:
    """What faults a run injects: ``rates`` by kind (see :data:`DEFAULT_RATES`); ``spared``: the
    numbers of faults drawn but not applied (the shrinking of a failing run: the same draws, fewer
    faults); ``spared_apart``: the same for the faults drawn apart, by their labels (:data:`APART`)."""

    rates: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_RATES))
    spared: frozenset[int] = frozenset()
    spared_apart: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = set(self.rates) - set(FAULT_KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}: the kinds are {', '.join(FAULT_KINDS)}")
        bad = {k: v for k, v in self.rates.items() if not 0.0 <= v <= 1.0}
        if bad:
            raise ValueError(f"a fault's chance is from 0 to 1: {bad}")
        unlabelled = sorted(label for label in self.spared_apart if not is_apart_label(label))
        if unlabelled:
            raise ValueError(f"a fault drawn apart is spared by its label ({', '.join(APART.values())} and its "
                             f"number, e.g. w3), not {', '.join(unlabelled)}")


@dataclass
class Invocation:
    function: str
    die: tuple[str, int] | None = None
    """``("before" | "after", n)``: the process dies at its n-th store call."""
    timeout: bool = False
    storm: random.Random | None = None
    """A storm of throughput errors: which store calls fail, drawn from its own generator."""
    slow: tuple[int, float] | None = None
    """``(n, seconds)``: the invocation pauses at its n-th store call for that long, the workflow
    going on meanwhile (an invocation whose caller gave up on it: ``abandoned-call``)."""
    calls: int = 0


APART = {"screens": "s", "wallet": "w", "reader": "r", "interleave": "i", "delivery": "d", "supervisor": "p",
         "outage": "o", "preselect": "e", "early-deal": "a", "abandoned-call": "c",
         "transaction-conflict": "t", "die-late": "l", "service-error": "v", "foreign-card": "f",
         "index-lag": "g", "stale-read": "h", "seq-reuse": "q"}
"""The generators whose faults are drawn apart from the rounds' own, and the letter their faults'
labels begin with: ``w3`` is the third fault drawn on the way to the operator's wallet."""


def is_apart_label(label: str) -> bool:
    """Whether ``label`` names a fault drawn apart: a letter of :data:`APART`, then a number."""
    return label[:1] in APART.values() and label[1:].isdigit()


class Faults:
    """Draws the faults of a run from its generator, numbers them, and counts those that happened.
    ``tag``: the letter of a generator drawn apart (:data:`APART`), spared by label; none for the
    rounds' own, spared by number."""

    def __init__(self, rng: random.Random, plan: Plan, tag: str = "") -> None:
        self.rng, self.plan, self.tag = rng, plan, tag
        self.numbers = itertools.count(1)
        self.drawn: list[tuple[int, str, str]] = []
        """Every fault drawn: its number, kind and where (spared ones too)."""
        self.injected: Counter[str] = Counter()

    def roll(self, kind: str, where: str) -> int | None:
        """Whether a fault of ``kind`` happens here: its number, or None. The generator is drawn
        the same whether it is spared or not, so sparing one changes nothing else of the run."""
        happens = self.rng.random() < self.plan.rates.get(kind, 0.0)
        if not happens:
            return None
        number = next(self.numbers)
        self.drawn.append((number, kind, where))
        if (self.label(number) in self.plan.spared_apart) if self.tag else (number in self.plan.spared):
            return None
        return number

    def label(self, number: int) -> str:
        """A fault's name in a report and in ``--spare``: its number, after its generator's letter
        if drawn apart."""
        return f"{self.tag}{number}"

    def labelled(self) -> list[tuple[str, str, str]]:
        """Every fault drawn, by its label."""
        return [(self.label(number), kind, where) for number, kind, where in self.drawn]

    def happened(self, kind: str) -> None:
        self.injected[kind] += 1


# --- the AWS services the application reaches, in memory --------------------------------------


class StepFunctionsInMemory:
    """``boto3.client("stepfunctions")``: executions of the interpreted workflow."""

    def __init__(self, world: World) -> None:
        self.world = world

    def start_execution(self, *, stateMachineArn: str, name: str, input: str) -> dict[str, Any]:
        try:
            self.world.workflows.start(name, json.loads(input))
        except ValueError as exc:
            raise client_error("ExecutionAlreadyExists", str(exc), "StartExecution") from None
        return {"executionArn": f"{stateMachineArn.replace(':stateMachine:', ':execution:')}:{name}",
                "startDate": self.world.clock.time()}

    def send_task_success(self, *, taskToken: str, output: str) -> dict[str, Any]:
        try:
            self.world.workflows.send_task_success(taskToken, output)
        except TaskDoesNotExist as exc:
            raise client_error("TaskDoesNotExist", str(exc), "SendTaskSuccess") from None
        return {}


# --- the people and the devices ---------------------------------------------------------------


class Shoe:
    """The dealer's physical shoe: eight decks, shuffled by the run's generator."""

    def __init__(self, rng: random.Random, number: int) -> None:
        from ..cards import ALL_CARDS

        self.cards = [c for c in ALL_CARDS for _ in range(DECKS)]
        rng.shuffle(self.cards)
        self.position, self.shoe_id, self.cut_reported = 0, f"shoe-{number}", False
        self.rounds_after_cut = 0
        self.drawn: Counter[str] = Counter()
        """Each card drawn from this shoe, and how many times (cards passed over are not)."""
        self.uncounted: Counter[str] = Counter()
        """The copies drawn that the application refuses, and so never counts: a ninth copy, a card
        the reader numbered again."""

    def draw(self) -> str:
        card = self.cards[self.position]
        self.position += 1
        self.drawn[card] += 1
        return card

    def refused(self, card: str, *, reused: bool = False) -> bool:
        """Whether the application refuses the copy of ``card`` just drawn: a ninth copy of those it
        counts, or one the reader numbered again (``reused``); counted as refused if so."""
        if reused or self.drawn[card] - self.uncounted[card] > DECKS:
            self.uncounted[card] += 1
            return True
        return False


@dataclass
class PhysicalRound:
    """What happened at the table in one round: the cards dealt to its hands, in order, and the
    dealer's own engine (which knows the procedure) after them."""

    round_id: str
    engine: RoundEngine | None
    """None until the first card of a blackjack round: the dealer deals the seats whose bets are on
    the layout then."""
    closes_at: float
    cards: list[str] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)
    """Cards the reader scanned that no hand was dealt (a stray scan)."""
    refused: list[int] = field(default_factory=list)
    """The positions in :attr:`cards` of the cards in a hand at the table that the application must
    refuse: the ninth copies of a card drawn from the shoe (a card of another deck in it,
    ``foreign-card``, or the eighth of the shoe's own after it), and the cards the reader gave a
    number it had used before (``seq-reuse``)."""
    refused_scans: list[str] = field(default_factory=list)
    """The scan ids of the cards of :attr:`refused`."""
    scans: list[tuple[str, bool]] = field(default_factory=list)
    """The scan ids of this round's cards, in the order dealt, each with whether the reader numbered
    it again (``seq-reuse``): :meth:`~croupier.sim.invariants.Invariants.shifted` reads them."""
    burn_refused: str | None = None
    """A Pok Deng round's burn card, when the application must refuse it (a ninth copy): burned at
    the table, face down, refused by the application, its round paused."""
    stopped: str | None = None
    dealer_up: list[str] = field(default_factory=list)
    """The dealer's cards dealt face up, in order."""
    face_down: list[str] = field(default_factory=list)
    """Cards dealt face down (the Deluxe hole card): in no view until the round reveals them."""
    mirrored: int = 0
    """The round's events the dealer has followed (the console shows decisions and windows)."""
    asked: set[str] = field(default_factory=set)
    """The decisions and windows the players were shown (each answered once, or left to its timer)."""
    dealt: frozenset[int] = frozenset()
    """The seats the dealer deals (a blackjack round): a bet behind or a pair bet on another seat
    is refunded, its round settled."""
    preselected: set[str] = field(default_factory=set)
    """The seats (``seat-N``) the console took a pre-selection of, whose turn the dealer has not yet
    seen the console start."""
    fresh: partial[RoundEngine] | None = None
    """A blackjack round's engine as the dealer began it (no card yet): to follow the round again
    in the console's order (:meth:`World.mirror`)."""
    balances: bool = False
    """Whether the dealer's engine knows the players' balances the round took at its close (what a
    double, a split, insurance or a follow the balance does not cover becomes): the console shows
    them once betting has closed, a moment after the dealer's first card (:meth:`World.mirror`)."""


@dataclass
class TableAtWorld:
    table_id: str
    game: str
    reader: str
    players: list[str]
    shoe: Shoe | None = None
    seq: int = 0
    """The reader's last event number."""
    railbird: str | None = None
    """On house rules, a blackjack table's player who sits at no seat and bets behind the seated
    players (:data:`RAILBIRD_CHANCE`)."""
    physical: PhysicalRound | None = None
    rounds: int = 0
    refusals: int = 0
    """"Open round" refused in a row."""
    rules: dict[str, Any] = field(default_factory=dict)
    """The table's rule overrides, as it was created with them or last configured (an answer taken)."""
    asked: list[dict[str, Any]] = field(default_factory=list)
    """Every set of rule overrides the operator gave the table, answered or not, in order."""
    modes: tuple[str, ...] = ()
    """The modes a Banker bet is placed in, drawn among (none: the bet names none, the default)."""

    def plays(self, rules: dict[str, Any]) -> None:
        """The table's rule overrides are now ``rules`` (as created, or an operator's change taken)."""
        self.rules, self.modes = rules, tuple(rules.get("modes", ()))

    def everyone(self) -> list[str]:
        """The table's players, once each: the seated ones in seat order, then the one seated nowhere."""
        return list(dict.fromkeys([*self.players, *filter(None, [self.railbird])]))


@dataclass(order=True)
class _Step:
    at: float
    seq: int
    what: str = field(compare=False)
    act: Callable[[], None] = field(compare=False)
    poller: _Poller | None = field(default=None, compare=False)
    """The poller whose poll this step is, if it is one."""


@dataclass
class Violation:
    step: int
    at: float
    invariant: str
    detail: str
    round_id: str | None = None


def _bets_end(closes_at: float, game: str) -> float:
    """When betting closes (virtual seconds) in a round of ``game`` whose countdown ends at
    ``closes_at`` (:func:`croupier.app.records.bets_until`)."""
    return closes_at - last_bet_ms(game) / 1000


def _pushed_as(group: str, body: str) -> tuple[str, str]:
    """A push message's message group and id: what stays the same when its change is sent again."""
    return group, str(json.loads(body)["id"])


class World:
    """One simulated deployment: ``tables`` tables of ``game``, ``players`` players each, played
    for ``rounds`` rounds in all; ``seed`` and ``plan`` decide everything else."""

    def __init__(self, seed: int | str, plan: Plan | None = None, *, rounds: int = 10, tables: int = 2,
                 players: int = 4, game: str = "baccarat", root: Path | None = None,
                 trace: int = 40, screens: bool = True, seamless: int = 0, house_rules: bool = False,
                 press_again: bool = True) -> None:
        self.seed, self.plan, self.rounds_wanted, self.game = seed, plan or Plan(), rounds, game
        self.press_again = press_again
        """Whether a dealer whose "open round" failed presses it again (the console shows the error);
        if not, a dealer whose console shows the round open anyway deals it (the stream's record of
        the round's opening is then all that starts a workflow its opening did not)."""
        self.screens_on = screens
        """Whether the screens run (the live and push functions, the players' and supervisors'
        screens): off, at half the cost, the rounds play as they do with them (their draws are their
        own) but where the live function starts a round's workflow before its opening does, which
        it does only with them (decision 0078)."""
        self.root = root or Path(__file__).resolve().parents[4]
        self.rng = random.Random(seed)
        self.faults = Faults(random.Random(f"{seed}:faults"), self.plan)
        self.apart: list[Faults] = []
        """The generators drawn apart, in the order made (:meth:`_apart`)."""
        self.screen_faults = self._apart("screens", f"{seed}:screen-faults")
        """The faults of the screens' functions (live, push, connections), drawn apart: the rounds'
        own draws, and so the worlds the regression tests keep, are as they were without screens."""
        self.seamless_tables = seamless
        """How many of the tables (the last ones) keep their players' money in the operator's
        seamless wallet, not in Croupier's: their stakes are debited there while the player waits,
        their credits and cancels go through the outbox."""
        self.wallet_faults = self._apart("wallet", f"{seed}:wallet-faults")
        """The faults of the operator's wallet and of the outbox function, drawn apart (a world
        without seamless tables draws none of them)."""
        self.reader_faults = self._apart("reader", f"{seed}:reader-faults")
        """The reader's failed reads, drawn apart with what they send (their ids, their deliveries'
        faults): with none, a world plays as it did before they were simulated."""
        self.reader_ids = random.Random(f"{seed}:reader-ids")
        self.interleavings = self._apart("interleave", f"{seed}:interleavings")
        """Where an invocation pauses for the world's next step, drawn apart: with none, a world plays
        as it did before invocations ran at once."""
        self.deliveries = self._apart("delivery", f"{seed}:deliveries")
        """Which device events first arrive after the devices' queue's visibility timeout, drawn
        apart: with none, a world plays as it did before they were simulated."""
        self.supervision = self._apart("supervisor", f"{seed}:supervision")
        """Which rounds the supervisor pauses, and when, drawn apart: with none, a world plays as it
        did before they were simulated."""
        self.outages = self._apart("outage", f"{seed}:outages")
        """Which invocations find their function throttled from then on, and for how long, drawn
        apart: with none, a world plays as it did before they were simulated."""
        self.preselects = self._apart("preselect", f"{seed}:preselects")
        """Which players pre-select their next action, drawn apart: with none, a world plays as it did
        before they were simulated."""
        self.early = self._apart("early-deal", f"{seed}:early-deals")
        """Which rounds' dealer starts before the countdown ends, and how early, drawn apart: with none,
        a world plays as it did before they were simulated."""
        self.abandoned = self._apart("abandoned-call", f"{seed}:abandoned-calls")
        """Which of the workflow's calls to a task's function fail on the way while the invocation
        runs on (and that invocation's own faults), drawn apart: with none, a world plays as it did
        before they were simulated."""
        self.late_deaths = self._apart("die-late", f"{seed}:late-deaths")
        """Which invocations die at one of their store calls after the twelfth, and where, drawn apart:
        with none, a world plays as it did before they were simulated."""
        self.conflicts = self._apart("transaction-conflict", f"{seed}:conflicts")
        """Which writes meet a transaction in flight, drawn apart: with none, a world plays as it did
        before they were simulated."""
        self.foreign = self._apart("foreign-card", f"{seed}:foreign-cards")
        """Which shoes hold a card of another deck, drawn apart: with none, a world plays as it did
        before they were simulated."""
        self.index_lags = self._apart("index-lag", f"{seed}:index-lags")
        """Which changes reach an index late, drawn apart: with none, a world plays as it did before
        they were simulated."""
        self.stale_copies = self._apart("stale-read", f"{seed}:stale-reads")
        """Which eventually consistent reads see a table as it was, drawn apart: with none, a world
        plays as it did before they were simulated."""
        self.reused = self._apart("seq-reuse", f"{seed}:seq-reuses")
        """Which cards the reader numbers with a number it used before, drawn apart: with none, a
        world plays as it did before they were simulated."""
        self.service_errors = self._apart("service-error", f"{seed}:service-errors")
        """Which calls to the AWS services other than DynamoDB fail, and how, drawn apart: with none,
        a world plays as it did before they were simulated."""
        self.out_until: dict[str, float] = {}
        """Per function in an outage: until when Lambda throttles every invocation of it."""
        self.outs: list[tuple[float, float]] = []
        """Every outage, from when to when."""
        self.paused: Invocation | None = None
        """The invocation paused while a step runs (one at a time)."""
        self.interleaved_error: Exception | None = None
        self.clock = VirtualClock(seed=f"{seed}:clock")
        self.dynamo = FakeDynamo(REGION, self.clock.time)
        self.dynamo.meta.client.around = self._around
        self.dynamo.lag_indexes(self._index_lag)
        self.dynamo.stale_reads_within(self._stale_read, STALE_READ)
        self.dynamo.take_changes()  # from now on, every change is noted for the invariants
        self.sfn, self.bus = StepFunctionsInMemory(self), EventBusInMemory()
        self.screens = ScreensInMemory(self._posted)
        self.operator = OperatorAtWorld(self.clock, self.wallet_faults, random.Random(f"{seed}:operator"), self.note)
        self.aws = AwsInMemory(self.dynamo, {
            service: Unreliable(client, partial(self._service_call, service))
            for service, client in (("stepfunctions", self.sfn), ("events", self.bus), ("ssm", SsmInMemory()),
                                    ("sqs", SqsInMemory(self._queued)), ("apigatewaymanagementapi", self.screens))})
        self.steps: list[_Step] = []
        self.step_seq = itertools.count()
        self.steps_run = 0
        self.trace: list[str] = []
        self.trace_length = trace
        self.violations: list[Violation] = []
        self.invocation: Invocation | None = None
        self.invocations: Counter[str] = Counter()
        self.function_errors: Counter[str] = Counter()
        self.rounds_started = 0
        self.rounds_finished: Counter[str] = Counter()
        self.voided_why: Counter[str] = Counter()
        self.uuids = random.Random(f"{seed}:ids")
        self.behind = random.Random(f"{seed}:behind")
        """The draws of the bets behind a seat and their answers (Deluxe Blackjack), apart: the
        worlds of the other games, and the seeds their regression tests keep, are as they were."""
        self.house_rules = house_rules
        """Whether each table plays rules of its own (:func:`croupier.sim.house.house_rules`), and
        each Banker bet is placed in one of its table's modes; else every table plays its game's
        defaults (the worlds the regression tests keep)."""
        self.railbirds = random.Random(f"{seed}:railbirds")
        """The players seated nowhere (:data:`RAILBIRD_CHANCE`), their funds and their bets, drawn apart."""
        self.timer_draws = random.Random(f"{seed}:timers")
        """On house rules, a blackjack table's decision, insurance and follow timers (2 to 8, 2 to 5
        and 2 to 5 seconds, where the players answer 0.3 to 4 s on): drawn apart."""
        self.seating = random.Random(f"{seed}:seating")
        """On house rules, who sits where (a player at two tables, or on two seats of a Deluxe table),
        drawn apart: the other house draws are as they would be without."""
        self.cents = random.Random(f"{seed}:cents")
        """On house rules, the players who stake cents (:data:`ODD_STAKES_CHANCE`) and their cents,
        drawn apart."""
        self.stakes_cents: dict[str, bool] = {}
        """Each player's draw: whether their stakes have cents."""
        self.apart_draws = random.Random(f"{seed}:house-payouts")  # named when it drew payouts only
        """On house rules, the rules drawn apart from the others: a baccarat table's Tie payout and
        its side bets' last rounds in a shoe, a Pok Deng table's payouts and special combinations, a
        blackjack table's idle seats (:func:`croupier.sim.house.house_apart`)."""
        self.house_draws = random.Random(f"{seed}:house-rules")
        """The draws of the house rules, of the operator's changes to them and of the Banker bets'
        modes, apart."""
        self.bets_refused: Counter[str] = Counter()
        """The players' bet requests refused, by the refusal's reason."""
        self.reconfigured: Counter[str] = Counter()
        """The operator's changes of a table's rules: taken, refused (a round in play), failed."""
        self.players_drawn: Counter[str] = Counter()
        """On house rules: the wallets short of funds (:data:`SHORT_FUNDED_CHANCE`), the seats taken by
        the player of the table before (:data:`TWO_TABLES_CHANCE`), the Deluxe tables seating a
        player twice (:data:`SECOND_SEAT_CHANCE`), the players seated nowhere (:data:`RAILBIRD_CHANCE`)
        and the players staking cents (:data:`ODD_STAKES_CHANCE`)."""
        self.output = Output()
        self._tables_spec = template_tables(self.root, "sim")
        self.table_count, self.player_count = tables, players
        self.tables: dict[str, TableAtWorld] = {}
        self.physical: dict[str, PhysicalRound] = {}
        self.shoe_numbers = itertools.count(1)
        self.scans: dict[str, str | None] = {}
        """Each scan, and the round whose hand its card was dealt to (None: none)."""
        self.resumed = 0
        self.pushed_after: list[float] = []
        """For each message the push function took off the push queue, how long after it was sent
        (virtual seconds): a failed delivery holds its message group for the queue's visibility
        timeout, and what the screens of that group see waits with it."""
        self.handlers: dict[str, Callable[[dict[str, Any], Any], Any]] = {}
        self.second_handlers: dict[str, Callable[[dict[str, Any], Any], Any]] = {}
        """Each function's second execution environment: what runs while the first is paused."""
        self.workflows: Workflows = Workflows(
            (self.root / "statemachine" / "round.asl.json").read_text(encoding="utf-8"), self._task, self.clock,
            {"RoundFunctionArn": "round", "SettlementFunctionArn": "settlement"})
        visibility, receives, self.batch_size = self._devices_queue()
        self.dead_letters = Queue("table-events-dead-letters", self.clock, random.Random(f"{seed}:dead"))
        self.queue = Queue("table-events", self.clock, random.Random(f"{seed}:queue"), visibility_timeout=visibility,
                           max_receives=receives, dead_letter=self.dead_letters,
                           duplicates=self.plan.rates.get("duplicate-delivery", 0.0))
        self.dealing_poller = _Poller(self, "dealing queue polled", self._poll)
        self._deleted: set[str] = set()
        self.dead_lettered: set[str] = set()
        """The device events dead-lettered, by message id: the operators redrive each to the queue
        once its alarm has told them (:meth:`_redrive`)."""
        self.operators = random.Random(f"{seed}:operators")
        self.live, self.push_queue, self._push_batch = self._screens_pipeline()
        self.stream_poller = _Poller(self, "game table stream polled", self._stream_poll, concurrent=False)
        self.push_poller = _Poller(self, "push queue polled", self._push_poll)
        self.outbox, self._outbox_batch = self._outbox_queue()
        self.outbox_poller = _Poller(self, "wallet-call queue polled", self._outbox_poll)
        self.screen_ids = random.Random(f"{seed}:screens")
        self.connections: dict[str, Any] = {}
        """Every screen connected, and who watches on it."""
        self.subscribed_at: dict[str, int] = {}
        """When each screen subscribed to its table (epoch ms, as the store's times)."""
        self.watching: dict[str, list[tuple[str, Any]]] = {}
        """Each table's screens: their connection and who watches (its players, its supervisor)."""
        self.posts = 0
        self.unpushed: dict[tuple[str, str], str] = {}
        """The push messages SQS did not send (``service-error``) and nobody has sent since, by
        message group and message id: the change's record handed again derives its events again,
        as the staff or the table may see them then (a card face down then may be face up now)."""
        self.live_failures = 0
        """Stream batches the live function gave up on (its failure destination's messages)."""
        from .invariants import Invariants

        self.invariants = Invariants(self)

    # --- the deployment ----------------------------------------------------------------------

    def _devices_queue(self) -> tuple[float, int, int]:
        """The devices' queue as deployed: its visibility timeout, its receives before the dead-letter
        queue, and the dealing function's batch size."""
        resources = tpl.load(self.root / "template.yaml")["Resources"]
        queue = resources["TableEventsQueue"]["Properties"]
        events = resources["DealingFunction"]["Properties"]["Events"]["TableEvents"]["Properties"]
        return (float(queue["VisibilityTimeout"]), int(queue["RedrivePolicy"]["maxReceiveCount"]),
                int(events["BatchSize"]))

    def _screens_pipeline(self) -> tuple[StreamMapping, Queue, int]:
        """The live function's stream mapping and the push queue as deployed (filter, batch sizes,
        retries, the queue's visibility and receives), and the push function's batch size."""
        resources = tpl.load(self.root / "template.yaml")["Resources"]
        stream = resources["LiveFunction"]["Properties"]["Events"]["GameChanges"]["Properties"]
        mapping = StreamMapping(
            self._live, random.Random(f"{self.seed}:stream"), batch_size=int(stream["BatchSize"]),
            max_retries=int(stream["MaximumRetryAttempts"]), bisect=bool(stream["BisectBatchOnFunctionError"]),
            filters=[f["Pattern"] for f in stream["FilterCriteria"]["Filters"]], on_failure=self._live_gave_up)
        queue = resources["PushQueue"]["Properties"]
        push = Queue("push.fifo", self.clock, random.Random(f"{self.seed}:push"), fifo=True,
                     visibility_timeout=float(queue["VisibilityTimeout"]),
                     max_receives=int(queue["RedrivePolicy"]["maxReceiveCount"]),
                     dead_letter=Queue("push-dead-letters", self.clock, random.Random(f"{self.seed}:push-dead")))
        batch = int(resources["PushFunction"]["Properties"]["Events"]["Pushes"]["Properties"]["BatchSize"])
        return mapping, push, batch

    def _outbox_queue(self) -> tuple[Queue, int]:
        """The wallet outbox's queue as deployed (a standard queue: its visibility timeout, its
        receives before the dead-letter queue) and the outbox function's batch size."""
        resources = tpl.load(self.root / "template.yaml")["Resources"]
        queue = resources["WalletCallsQueue"]["Properties"]
        events = resources["OutboxFunction"]["Properties"]["Events"]["WalletCalls"]["Properties"]
        outbox = Queue("wallet-calls", self.clock, random.Random(f"{self.seed}:wallet-calls"),
                       visibility_timeout=float(queue["VisibilityTimeout"]),
                       max_receives=int(queue["RedrivePolicy"]["maxReceiveCount"]),
                       dead_letter=Queue("wallet-calls-dead-letters", self.clock,
                                         random.Random(f"{self.seed}:wallet-calls-dead")),
                       duplicates=self.plan.rates.get("duplicate-delivery", 0.0))
        return outbox, int(events["BatchSize"])

    def _settings(self) -> Settings:
        """The functions' settings in this world (what their environment variables say on AWS)."""
        return settings_for(self._tables_spec, "sim", BET_SHARDS="4", SETTLEMENT_WORKERS="1", PUSH_WORKERS="1",
                            PUSH_QUEUE_URL=PUSH_QUEUE_URL, WEBSOCKET_ENDPOINT="https://screens.sim",
                            SCREENS_CAN_CLOSE="true", WALLET_CALLS_QUEUE_URL=WALLET_CALLS_QUEUE_URL)

    @contextlib.contextmanager
    def running(self) -> Iterator[World]:
        """The application pointed at this world for the block, in this thread only: its SDK, its
        settings, its clock, its identifiers drawn from the seed. Other threads (a local stack
        beside it, in a test session) keep theirs."""
        world_thread, machine_uuid4 = threading.get_ident(), uuid.uuid4

        def seeded_uuid4() -> uuid.UUID:
            if threading.get_ident() != world_thread:
                return machine_uuid4()
            return uuid.UUID(int=self.uuids.getrandbits(128), version=4)

        uuid.uuid4 = seeded_uuid4
        try:
            with aws.standing_in(self.aws), using(self.clock), config.using(self._settings()), \
                    seamless.using_transport(self.operator):
                if not self.handlers:
                    self._deploy()
                # metrics the process added outside any invocation (a test's direct calls into the
                # application, in the same process), which the world's first handler would flush
                # as its own: not the world's (Powertools keeps one buffer for the process)
                Metrics().clear_metrics()
                with self.output.capturing():  # the functions' loggers made (by their imports)
                    yield self
        finally:
            uuid.uuid4 = machine_uuid4

    def _deploy(self) -> None:
        for spec in self._tables_spec:
            self.dynamo.create_table(**{k: v for k, v in spec.items() if k != "logical"})
        for name in ("round", "settlement", "dealing", "live", "push", "outbox"):
            self.handlers[name] = function_handler(self.root, name)
            self.second_handlers[name] = function_handler(self.root, name, environment=2)
        operators.put(self.operator.configuration())

    # --- invocations ---------------------------------------------------------------------------

    def _around(self, operation: str, when: str, request: Mapping[str, Any]) -> None:
        invocation = self.invocation
        if invocation is None:
            return
        if when == "before":
            invocation.calls += 1
            pause = None if self.paused is not None else self.interleavings.roll(
                "interleave", f"{invocation.function} call #{invocation.calls}")
            if invocation.slow is not None and invocation.slow[0] == invocation.calls and self.paused is None \
                    and not self.workflows.busy:
                self._interleave(invocation, operation, self.clock.monotonic() + invocation.slow[1], workflows=True)
            elif pause is not None:
                until = random.Random(f"{self.seed}:pause:{pause}").uniform(0.0, INTERLEAVE_WITHIN)
                self._interleave(invocation, operation, self.clock.monotonic() + until)
            if invocation.storm is not None and invocation.storm.random() < 0.7:
                raise Refused("The level of configured provisioned throughput for the table was exceeded "
                              "(the SDK's retries ran out)", STORM)
        if invocation.die == (when, invocation.calls):
            self.faults.happened("die-late" if invocation.calls > FIRST_CALLS
                                 else "timeout" if invocation.timeout else f"die-{when}-call")
            self.note(f"  {invocation.function} dies {when} its store call #{invocation.calls} ({operation})")
            raise FunctionDied(f"{invocation.function} died {when} {operation}")
        if when == "before" and operation in WRITES and self.conflicts.roll(
                "transaction-conflict", f"{invocation.function} call #{invocation.calls} ({operation})") is not None:
            self.conflicts.happened("transaction-conflict")
            self.note(f"  {invocation.function}'s {operation} meets a transaction in flight")
            raise in_flight(operation, request, self.conflicts.rng.randrange(len(request.get("TransactItems", [0]))))

    def _index_lag(self, table: str, index: str) -> float:
        """How late ``index`` of ``table`` takes a change (``index-lag``): at once, or up to
        :data:`INDEX_LAG` seconds late."""
        return self._seconds_late(self.index_lags, "index-lag", f"{table}/{index}", INDEX_LAG)

    def _stale_read(self, table: str) -> float:
        """How old is what an eventually consistent read of ``table`` sees (``stale-read``): the table
        as it is, or as it was up to :data:`STALE_READ` seconds before."""
        return self._seconds_late(self.stale_copies, "stale-read", table, STALE_READ)

    def _seconds_late(self, faults: Faults, kind: str, where: str, most: float) -> float:
        """0, or up to ``most`` seconds when a fault of ``kind`` happens here, drawn from the fault's
        number (sparing another changes none)."""
        number = faults.roll(kind, where)
        if number is None:
            return 0.0
        faults.happened(kind)
        return random.Random(f"{self.seed}:{kind}:{number}").uniform(0.0, most)

    def _service_call(self, service: str, operation: str, method: Callable[..., Any], params: Mapping[str, Any]) -> Any:
        """A function's call to an AWS service other than DynamoDB, which may fail once the SDK's
        retries ran out (``service-error``, drawn apart, per call made within an invocation): before
        it reached the service (a connection refused: nothing done), after (the answer timed out:
        done all the same), or, for a batch (:data:`~croupier.sim.memory.BATCHES`), in some of its
        entries (answered, the others done)."""
        invocation = self.invocation
        where = f"{invocation.function} {service}.{operation}" if invocation else ""
        number = None if invocation is None else self.service_errors.roll("service-error", where)
        if number is None:
            return method(**params)
        self.service_errors.happened("service-error")
        # how it fails, drawn from its number: sparing another changes none
        rng, endpoint = random.Random(f"{self.seed}:service-error:{number}"), f"https://{service}.{REGION}.amazonaws.com/"
        how = rng.choice(("before", "after", "entries") if (service, operation) in BATCHES else ("before", "after"))
        self.note(f"  {where} fails {how}")
        unsent, timed_out = SERVICE_ERRORS
        if how == "before":
            self._not_pushed(params, range(len(params.get("Entries", []))))
            if operation == "post_to_connection":  # the screen was not shown it: its page resyncs
                self.invariants.screens.missed(params["ConnectionId"], params["Data"])
            raise unsent(endpoint_url=endpoint)
        if how == "entries":
            entries = len(params["Entries"])
            failed = set(rng.sample(range(entries), rng.randint(1, entries)))
            self._not_pushed(params, failed)
            return partly(operation, method, params, failed)
        method(**params)
        raise timed_out(endpoint_url=endpoint)

    def _not_pushed(self, params: Mapping[str, Any], positions: Iterable[int]) -> None:
        """Note the push messages a call to SQS did not send: each must be sent again (its change's
        record handed again by the stream), unless the live function gave up on that record."""
        if params.get("QueueUrl") == PUSH_QUEUE_URL:
            for i in positions:
                entry = params["Entries"][i]
                self.unpushed[_pushed_as(entry["MessageGroupId"], entry["MessageBody"])] = entry["MessageBody"]

    def _interleave(self, invocation: Invocation, operation: str, until: float, *, workflows: bool = False) -> None:
        """Pause ``invocation`` before its store call until ``until`` (an ``interleave``: a time up
        to :data:`INTERLEAVE_WITHIN`, drawn from the pause's number, so that sparing another pause
        changes none), while the world goes on: every step due meanwhile runs, in order, its
        invocations in their functions' second environments; then the invocation goes on from where
        it paused. A poll of a stream shard whose batch is in flight waits for the pause to end
        (Lambda reads a shard one batch at a time); a poll of a queue does not (a standard queue's
        batches run at once, and a FIFO queue holds a group back while one is in flight). The
        workflow's own timers and the executions they wake wait for it too, unless ``workflows``
        (an invocation no execution waits for: one whose caller gave up on it)."""
        if not workflows:
            self.interleavings.happened("interleave")
        self.note(f"  {invocation.function} pauses before its store call #{invocation.calls} ({operation})")
        self.paused, self.invocation = invocation, None
        held: list[_Step] = []
        try:
            while True:
                timer = self.workflows.next_timer() if workflows else None
                if timer is not None and timer <= until and (not self.steps or timer < self.steps[0].at):
                    self.note("  meanwhile: workflow timer")
                    self.workflows.run_until(timer)
                    self.steps_run += 1
                    continue
                if not self.steps or self.steps[0].at > until:
                    break
                step = heapq.heappop(self.steps)
                if step.poller is not None and step.poller.running and not step.poller.concurrent:
                    held.append(step)
                    continue
                if step.at > self.clock.monotonic():
                    self.clock.advance(step.at - self.clock.monotonic())
                self.note(f"  meanwhile: {step.what}")
                step.act()
                if workflows:
                    self.workflows.run_ready()
                self.steps_run += 1
        except Exception as exc:  # the world's own failure: not the paused function's to see
            self.interleaved_error = self.interleaved_error or exc
        finally:
            self.paused, self.invocation = None, invocation
            for step in held:
                heapq.heappush(self.steps, step)
        if until > self.clock.monotonic():
            self.clock.advance(until - self.clock.monotonic())
        self.note(f"  {invocation.function} goes on")

    def handler(self, function: str) -> Callable[[dict[str, Any], Any], Any]:
        """``function``'s Lambda handler, in its second environment while another invocation is paused."""
        return (self.handlers if self.paused is None else self.second_handlers)[function]

    def invoke(self, function: str, run: Callable[[], Any], faults: Faults | None = None,
               slow: tuple[int, float] | None = None) -> Any:
        """Run one invocation of ``function`` (``run``: its handler called, or the service its
        route calls) with the faults the plan draws for it (from ``faults``, the world's unless
        told), ``slow`` as :attr:`Invocation.slow`. Returns what it returned; raises
        :class:`Failure` when the caller sees an error (its name as Lambda reports it)."""
        faults = faults or self.faults
        self.invocations[function] += 1
        where = f"{function}#{self.invocations[function]}"
        now = self.clock.monotonic()
        if self.out_until.get(function, now) <= now and self.outages.roll("outage", where) is not None:
            self.outages.happened("outage")  # drawn only while the function is up: an outage ends
            self.out_until[function] = now + self.outages.rng.uniform(30.0, 300.0)
            self.outs.append((now, self.out_until[function]))
            self.note(f"  {function} is throttled until {self.out_until[function]:.1f}")
        if self.out_until.get(function, now) > now:
            raise Failure(THROTTLED, "Rate Exceeded. (an outage of the function)")
        if faults.roll("throttled", where) is not None:
            faults.happened("throttled")
            raise Failure(THROTTLED, "Rate Exceeded.")
        invocation = Invocation(function, slow=slow)
        at_call = faults.rng.randint(1, FIRST_CALLS)  # drawn whatever happens: sparing a fault moves no later draw
        for kind in ("die-before-call", "die-after-call", "timeout"):
            if faults.roll(kind, where) is not None:
                invocation.die = ("after" if kind == "die-after-call" else "before", at_call)
                invocation.timeout = kind == "timeout"
                break
        if invocation.die is None and self.late_deaths.roll("die-late", where) is not None:
            rng = self.late_deaths.rng
            invocation.die = (rng.choice(("before", "after")), rng.randint(FIRST_CALLS + 1, LATE_CALLS))
        if faults.roll("conflict-storm", where) is not None:
            invocation.storm = random.Random(f"{self.seed}:{where}")
            faults.happened("conflict-storm")
        lost = faults.roll("lost-answer", where) is not None
        self.invocation = invocation
        try:
            result = run()
        except FunctionDied as died:
            raise Failure(TIMED_OUT if invocation.timeout else DIED, str(died)) from None
        except CroupierError as refused:
            self.output.answered(refused)
            raise  # a refusal: the caller is told why (a 4xx), nothing went wrong
        except Exception as exc:
            self.output.answered(exc)
            self.function_errors[f"{function}: {type(exc).__name__}"] += 1
            raise Failure(type(exc).__name__, str(exc)) from None
        finally:
            self.invocation = None
        if lost:
            faults.happened("lost-answer")
            self.note(f"  {function}'s answer is lost")
            raise Failure(ANSWER_LOST, "the function's answer did not reach its caller")
        return result

    def out_between(self, start: float, end: float) -> float:
        """Seconds of outages between ``start`` and ``end`` (two at once counted twice)."""
        return sum(max(0.0, min(end, until) - max(start, since)) for since, until in self.outs)

    def _task(self, function: str, payload: dict[str, Any]) -> Any:
        handler = self.handler(function)
        what = f"{function} {payload.get('op')} {payload.get('round_id')}"
        self.note(f"task {what}")
        if self.abandoned.roll("abandoned-call", what) is not None:
            self.abandoned.happened("abandoned-call")
            rng = self.abandoned.rng
            error, start = rng.choice(ABANDONED_ERRORS), self.clock.monotonic() + rng.uniform(0.0, ABANDONED_STARTS)
            slow = (rng.randint(1, ABANDONED_CALLS), rng.uniform(0.0, ABANDONED_RUNS))
            self.at(start, f"{what}: the invocation its caller gave up on",
                    lambda: self._abandoned(function, payload, slow))
            raise Failure(error, "the call to the function failed on the way (the invocation may still run)")
        try:
            return self.invoke(function, lambda: handler(json.loads(json.dumps(payload)), Context(function)))
        except CroupierError as exc:  # a task's refusal is a function error to Step Functions
            self.function_errors[f"{function}: {type(exc).__name__}"] += 1
            raise Failure(type(exc).__name__, str(exc)) from None

    def _abandoned(self, function: str, payload: dict[str, Any], slow: tuple[int, float]) -> None:
        """An invocation whose caller (the workflow) gave up on it, run all the same (its own faults
        drawn apart): nobody hears how it ends."""
        handler = self.handler(function)
        with contextlib.suppress(Failure, CroupierError):
            self.invoke(function, lambda: handler(json.loads(json.dumps(payload)), Context(function)),
                        self.abandoned, slow)

    def _apart(self, name: str, seed: str) -> Faults:
        """A generator of faults drawn apart from the rounds' own (:data:`APART`), at the plan's
        rates, spared by label, counted with the others."""
        faults = Faults(random.Random(seed), Plan(self.plan.rates, spared_apart=self.plan.spared_apart),
                        APART[name])
        faults.injected = self.faults.injected
        self.apart.append(faults)
        return faults

    def drawn_apart(self) -> list[tuple[str, str, str]]:
        """Every fault drawn apart, by its label (its generator's letter in :data:`APART` and its
        number), generator by generator."""
        return [d for faults in self.apart for d in faults.labelled()]

    # --- the schedule ---------------------------------------------------------------------------

    def at(self, when: float, what: str, act: Callable[[], None], poller: _Poller | None = None) -> None:
        heapq.heappush(self.steps, _Step(when, next(self.step_seq), what, act, poller))

    def note(self, line: str) -> None:
        self.trace.append(f"{self.clock.monotonic():9.2f} {line}")
        if len(self.trace) > self.trace_length:
            del self.trace[0]

    def run(self, *, horizon: float = 3600.0) -> None:
        """Play until the rounds wanted are finished and nothing is left to do, checking the
        invariants after every step."""
        with self.running(), collecting_seldom():
            self._open_tables()
            while True:
                timer = self.workflows.next_timer()
                step = self.steps[0] if self.steps else None
                if step is None and timer is None:
                    break
                if timer is not None and (step is None or timer < step.at):
                    self.workflows.run_until(timer)
                    what = "workflow timer"
                else:
                    assert step is not None
                    heapq.heappop(self.steps)
                    if step.at > self.clock.monotonic():
                        self.clock.advance(step.at - self.clock.monotonic())
                    self.note(step.what)
                    step.act()
                    self.workflows.run_ready()
                    what = step.what
                if self.interleaved_error is not None:  # a step run while an invocation paused
                    raise self.interleaved_error
                self.steps_run += 1
                self.invariants.after_step(what)
                if self.clock.monotonic() > self.last_round_by + horizon:
                    self.invariants.stuck()
                    break
            self.invariants.at_the_end()

    # --- the tables ------------------------------------------------------------------------------

    last_round_by = 0.0

    def _open_tables(self) -> None:
        from ..app import tables

        funded: set[tuple[str, bool]] = set()
        for number in range(1, self.table_count + 1):
            table_id = f"sim-{number}"
            players = [f"p{number}-{i}" for i in range(1, self.player_count + 1)]
            if self.house_rules and number > 1 and self.seating.random() < TWO_TABLES_CHANCE:
                players[-1] = self.tables[f"sim-{number - 1}"].players[-1]  # one wallet, two tables' rounds
                self.players_drawn["seats of a player of the table before"] += 1
            elif self.game == "deluxe-blackjack" and self.house_rules and len(players) > 1 \
                    and self.seating.random() < SECOND_SEAT_CHANCE:
                players[-1] = players[-2]  # one player on two seats: mirrored seat bets, two hands to play
                self.players_drawn["second seats"] += 1
            table = self.tables[table_id] = TableAtWorld(table_id, self.game, f"reader-{table_id}", players)
            on_operator = number > self.table_count - self.seamless_tables
            rules: dict[str, Any] = {"timers": {"countdown": 10, "pause_void": 120, "decision": 6, "insurance": 4,
                                                "follow": 4}}
            if self.house_rules:
                rules = self._house_rules(rules)
                if self.game in BLACKJACK:  # shorter timers: the players' answers race them
                    rules["timers"] |= {"decision": self.timer_draws.randint(2, 8),
                                        "insurance": self.timer_draws.randint(2, 5),
                                        "follow": self.timer_draws.randint(2, 5)}
                if len(set(players)) < len(players) and self.seating.random() < 0.5:
                    rules["mirror_seat_bets"] = False  # the player's two seats take bets of their own
                self.note(f"{table_id} plays house rules: {rules}")
            if self.house_rules and self.game in BLACKJACK and self.railbirds.random() < RAILBIRD_CHANCE:
                table.railbird = f"r{number}"
                self.players_drawn["players betting behind, seated nowhere"] += 1
            table.plays(rules)
            table.asked.append(rules)
            tables.create_table(self.game, rules, table.reader, table_id,
                                wallet={"mode": "seamless", "operator": OPERATOR} if on_operator else None)
            for seat, player in enumerate(players, start=1):
                balance = self._opening_balance(self.house_draws)  # drawn for every seat
                if (player, on_operator) not in funded:  # a wallet of the player's: the operator's, or ours
                    funded.add((player, on_operator))
                    if balance < OPENING_BALANCE:
                        self.players_drawn["short of funds"] += 1
                    self._open_wallet(player, on_operator, balance)
                if self.game in BLACKJACK:
                    tables.sit(table_id, seat, player, "real")
            if table.railbird is not None:
                self._open_wallet(table.railbird, on_operator, self._opening_balance(self.railbirds))
            if self.house_rules:
                for player in table.everyone():
                    if player not in self.stakes_cents:
                        self.stakes_cents[player] = self.cents.random() < ODD_STAKES_CHANCE
                        self.players_drawn["staking cents"] += self.stakes_cents[player]
            self.at(self.clock.monotonic() + number * 0.5, f"{table_id}: new shoe", partial(self._new_shoe, table))
        if self.seamless_tables:
            self.at(self.clock.monotonic() + SWEEP_EVERY, "the outbox's sweeper", self._sweep)

    def _house_rules(self, base: dict[str, Any]) -> dict[str, Any]:
        """``base`` with a table's house rules drawn (:func:`croupier.sim.house.house_rules`), then the rules
        drawn apart, from their own generator (:func:`croupier.sim.house.house_apart`)."""
        return house_apart(self.game, base | house_rules(self.game, self.house_draws), self.apart_draws)

    def _stake(self, player: str, units: int) -> int:
        """A stake of ``units`` units (minor units: a hundred each), and some cents if the player
        stakes cents (:data:`ODD_STAKES_CHANCE`)."""
        return 100 * units + (self.cents.randint(1, 99) if self.stakes_cents.get(player) else 0)

    def _opening_balance(self, rng: random.Random) -> int:
        """What a player begins with: on house rules, one time in four, 20 to 200 units."""
        if self.house_rules and rng.random() < SHORT_FUNDED_CHANCE:
            return 100 * rng.randint(20, 200)
        return OPENING_BALANCE

    def _open_wallet(self, player: str, on_operator: bool, balance: int) -> None:
        """The player's wallet where the table's money is: the operator's, or Croupier's own."""
        if on_operator:
            self.operator.open_account(player, balance)
        else:
            self.invariants.deposit(player, balance)

    def _new_shoe(self, table: TableAtWorld) -> None:
        table.shoe = Shoe(self.rng, next(self.shoe_numbers))
        table.shoe.position = self.rng.randint(0, 3)  # the dealer's hands are not a machine's
        if self.foreign.roll("foreign-card", table.shoe.shoe_id) is not None:
            self.foreign.happened("foreign-card")
            # which card, and where, drawn from the shoe's number: sparing another changes neither
            rng = random.Random(f"{self.seed}:foreign:{table.shoe.shoe_id}")
            card, at = rng.choice(sorted(set(table.shoe.cards))), rng.randint(table.shoe.position, CUT_AT)
            table.shoe.cards.insert(at, card)
            self.note(f"  {table.table_id}'s {table.shoe.shoe_id} holds a card of another deck: {card}, #{at}")
        self._send(table, "shoe-shuffled", {"table_id": table.table_id, "shoe_id": table.shoe.shoe_id}, CONSOLE)
        self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: dealer looks at the console",
                lambda: self._burn(table, 0))

    def _burn(self, table: TableAtWorld, looked: int) -> None:
        """The first card and the burn, once the console shows the new shoe (its events and the
        reader's are not ordered on the way: the dealer looks before drawing)."""
        assert table.shoe is not None
        shown = (self.dynamo.peek(settings().game_table, keys.table_key(table.table_id)) or {}).get("shoe") or {}
        if shown.get("shoe_id") != table.shoe.shoe_id:
            if looked < PATIENCE:
                self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: dealer looks at the console",
                        lambda: self._burn(table, looked + 1))
            else:
                self._new_shoe(table)
            return
        at = self.clock.monotonic()
        first = table.shoe.draw()
        self.at(at, f"{table.table_id}: first card {first}", lambda: self._scan(table, first))
        for n in range(BURN_VALUE[first[0]]):
            burned = table.shoe.draw()
            self.at(at + (n + 1) * CARD_PACE, f"{table.table_id}: burn", partial(self._scan, table, burned))
        self.at(at + 8.0, f"{table.table_id}: open round", lambda: self._open_round(table))

    def _open_round(self, table: TableAtWorld) -> None:
        from ..app import rounds

        if self.rounds_started >= self.rounds_wanted and self._opened_anyway(table) is None:
            return  # every round wanted is dealt; but a round a failed press opened is pressed for again
        if self.screens_on:
            self._watch(table)
        assert table.shoe is not None
        if table.shoe.cut_reported and table.shoe.rounds_after_cut >= 1:  # the last round was played
            self.at(self.clock.monotonic() + 2.0, f"{table.table_id}: new shoe", lambda: self._new_shoe(table))
            return
        if table.shoe.position >= CUT_AT and not table.shoe.cut_reported:  # between rounds: the next is the last
            table.shoe.cut_reported = True
            self._send_reader(table, "cut-card", {})
        try:
            started = self.invoke("tables", lambda: rounds.start_round(table.table_id))
        except CroupierError as refused:
            reason = getattr(refused, "reason", "")
            table.refusals += 1
            if reason == "no-shoe" or table.refusals > PATIENCE:  # no usable shoe shows: the dealer shuffles again
                self.at(self.clock.monotonic() + 2.0, f"{table.table_id}: new shoe", lambda: self._new_shoe(table))
            elif (shown := self._opened_anyway(table)) is not None:
                self._dealing(table, shown)  # opened by a press whose answer was lost
            else:
                self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: open round again ({reason})",
                        lambda: self._open_round(table))
            return
        except Failure as failure:  # the console shows the error: the dealer presses again
            self.note(f"  open round failed: {failure.error}")
            if not self.press_again and (shown := self._opened_anyway(table)) is not None:
                self._dealing(table, shown)  # or deals the round the console shows open
                return
            self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: open round again",
                    lambda: self._open_round(table))
            return
        self._dealing(table, started.item())  # what the console shows of it: the round as written

    def _dealing(self, table: TableAtWorld, started: dict[str, Any]) -> None:
        """The dealer deals the round the console shows open: the players bet, the cards come."""
        if started["round_id"] in self.physical:
            return
        table.refusals = 0
        if table.shoe is not None and table.shoe.cut_reported:
            table.shoe.rounds_after_cut += 1
        self.rounds_started += 1
        table.rounds += 1
        round_id = started["round_id"]
        closes_at = self.clock.monotonic() + int(started["closes_at"]) / 1000 - self.clock.time()
        engine = None if self.game in BLACKJACK else new_round(
            self.game, [], overrides=store.round_rules(RoundRecord.from_item(started)), validate=False,
            round_in_shoe=int(started["round_in_shoe"]))
        physical = table.physical = self.physical[round_id] = PhysicalRound(round_id, engine, closes_at)
        self.last_round_by = max(self.last_round_by, closes_at)
        for seat, player in enumerate(table.players, start=1):
            self._plan_bets(table, round_id, player, seat, closes_at)
        if table.railbird is not None:
            self._plan_behind(table, table.railbird, round_id, closes_at)
        # a blackjack dealer starts once the countdown shows zero: the seats with chips are dealt;
        # a Pok Deng dealer burns one card face down and deals the twelve while the countdown runs
        if self.game == "pok-deng":
            first = self.clock.monotonic() + self.rng.uniform(0.5, 2.0)
            burned = table.shoe.draw() if table.shoe is not None else None
            if burned is not None:
                if table.shoe is not None and table.shoe.refused(burned):
                    physical.burn_refused = burned
                self.at(first, f"{table.table_id}: round burn", lambda: self._scan(table, burned))
                first += CARD_PACE
        else:
            first = closes_at + (self.rng.uniform(0.05, 0.5) if self.game in BLACKJACK else self.rng.uniform(-0.2, 0.5))
            if self.game in EARLY_DEALS and self.early.roll("early-deal", round_id) is not None:
                self.early.happened("early-deal")
                first = closes_at - self.early.rng.uniform(1.5, 4.0)
        self.at(first, f"{table.table_id}: deal", lambda: self._deal(table, physical))
        since, until = SUPERVISOR_WINDOW[self.game]
        start = self.clock.monotonic() if since is None else closes_at - since
        until += closes_at if self.game == "pok-deng" else first
        if self.faults.roll("void", round_id) is not None:
            self.at(self.rng.uniform(start, until), f"{round_id}: supervisor voids", lambda: self._void(round_id))
        if self.supervision.roll("supervisor-pause", round_id) is not None:
            self.at(self.supervision.rng.uniform(start, until), f"{round_id}: supervisor pauses",
                    lambda: self._pause(round_id))

    def _opened_anyway(self, table: TableAtWorld) -> dict[str, Any] | None:
        """The round the console shows open although its "open round" failed (the function died
        after its write, or its answer was lost): the dealer deals the round the table shows."""
        shown = self.dynamo.peek(settings().game_table, keys.table_key(table.table_id)) or {}
        round_id = shown.get("round_id")
        if not round_id or round_id in self.physical or shown.get("round_status") != RoundStatus.BETTING:
            return None
        found: dict[str, Any] = store.plain(self._round_item(str(round_id)))
        return found

    def _plan_bets(self, table: TableAtWorld, round_id: str, player: str, seat: int, closes_at: float) -> None:
        now = self.clock.monotonic()
        # a player's request for a second seat is a request of its own (its own idempotency key)
        key = f"{round_id}/{player}" if table.players.index(player) + 1 == seat else f"{round_id}/{player}/{seat}"
        late = self.faults.roll("late-bet", key) is not None
        # the players' screens count down to betting's end, half a second before the countdown's
        ends = _bets_end(closes_at, self.game)
        when = self.rng.uniform(ends, ends + 2.0) if late else self.rng.uniform(now, ends - 0.1)
        if self.game in BLACKJACK:
            wanted: list[dict[str, Any]] = [
                {"type": "seat", "seat": seat, "amount": self._stake(player, self.rng.randint(1, 50))}]
            if self.rng.random() < 0.3:
                wanted.append({"type": "pair", "seat": seat, "amount": self._stake(player, self.rng.randint(1, 5))})
            if self.game == "deluxe-blackjack" and len(table.players) > 1 and self.behind.random() < BEHIND_CHANCE:
                other = self.behind.choice([n for n in range(1, len(table.players) + 1) if n != seat])
                wanted.append({"type": "behind", "seat": other,
                               "amount": self._stake(player, self.behind.randint(1, 20))})
        else:
            kinds = POK_DENG_BETS if self.game == "pok-deng" else BACCARAT_BETS
            wanted = [{"type": self.rng.choice(kinds), "amount": self._stake(player, self.rng.randint(1, 50))}
                      for _ in range(self.rng.randint(1, 3))]
            if table.modes:  # one mode for the player's Banker bets of the round
                mode = self.house_draws.choice(table.modes)
                wanted = [bet | {"mode": mode} if bet["type"] == "banker" else bet for bet in wanted]
        self.at(when, f"{player} bets {wanted}", lambda: self._bet(table, player, wanted, key, late))
        if self.faults.roll("double-click", key) is not None:
            self.at(when, f"{player} bets again at once",
                    lambda: self._bet(table, player, wanted, key, late, "double-click"))
        if self.faults.roll("retry", key) is not None:
            self.at(when + self.rng.uniform(0.5, 20.0), f"{player} retries",
                    lambda: self._bet(table, player, wanted, key, late, "retry"))

    def _plan_behind(self, table: TableAtWorld, player: str, round_id: str, closes_at: float) -> None:
        """A player seated nowhere bets behind one or two seats of the table (and, one time in three,
        a pair bet on the first of them), drawn apart: the seated players' draws are as they were."""
        rail = self.railbirds
        seats = rail.sample(range(1, len(table.players) + 1), rail.randint(1, 2))
        wanted = [{"type": "behind", "seat": seat, "amount": self._stake(player, rail.randint(1, 20))}
                  for seat in seats]
        if rail.random() < 1 / 3:
            wanted.append({"type": "pair", "seat": seats[0], "amount": self._stake(player, rail.randint(1, 5))})
        self.at(rail.uniform(self.clock.monotonic(), _bets_end(closes_at, self.game) - 0.1), f"{player} bets {wanted}",
                lambda: self._bet(table, player, wanted, f"{round_id}/{player}", False))

    def _bet(self, table: TableAtWorld, player: str, wanted: list[dict[str, Any]], key: str, late: bool,
             fault: str | None = None) -> None:
        from ..app import bets

        if late:
            self.faults.happened("late-bet")
        if fault:
            self.faults.happened(fault)
        try:
            answer = self.invoke("bets", lambda: bets.place_bets(table.table_id, player, "real", wanted, key))
        except CroupierError as refused:
            self.note(f"  refused: {refused}")
            self.bets_refused[str(getattr(refused, "reason", ""))] += 1
            if getattr(refused, "reason", "") == "not-your-seat" and not key.endswith("/seated"):
                self._sit_again(table, player, wanted, key, late)
            return
        except Failure as failure:
            self.note(f"  failed: {failure.error}")
            return
        self.invariants.bets_answered(player, answer)

    def _sit_again(self, table: TableAtWorld, player: str, wanted: list[dict[str, Any]], key: str, late: bool) -> None:
        """A player whose seat was freed (rounds without a seat bet: a bet refused or lost) sits down
        at it again, and bets again at once."""
        from ..app import tables

        seat = int(wanted[0]["seat"])  # the seat the seat bet was for (a player may hold two)
        try:
            self.invoke("tables", lambda: tables.sit(table.table_id, seat, player, "real"))
        except (CroupierError, Failure) as refused:
            self.note(f"  {player} could not sit down again: {refused}")
            return
        self._bet(table, player, wanted, f"{key}/seated", late)

    def _void(self, round_id: str) -> None:
        from ..app import supervision

        self.faults.happened("void")
        self._console("void", lambda: supervision.void(round_id, "voided by the simulation's supervisor"))

    def _pause(self, round_id: str) -> None:
        """The supervisor pauses the round (the dealer stops at the next card); it is then resumed,
        or left to its timer, as any paused round (:meth:`_supervise`)."""
        from ..app import supervision

        self.supervision.happened("supervisor-pause")
        self._console("pause", lambda: supervision.pause(round_id, "paused by the simulation's supervisor"))

    def _console(self, what: str, act: Callable[[], Any]) -> bool:
        """A supervisor's press on the console (the tables function): whether it was taken; a
        refusal or a failure is only noted (the console shows it)."""
        try:
            self.invoke("tables", act)
        except (CroupierError, Failure) as refused:
            self.note(f"  {what} refused: {refused}")
            return False
        return True

    # --- the dealer and the reader --------------------------------------------------------------

    def _round_item(self, round_id: str) -> dict[str, Any]:
        return self.dynamo.peek(settings().game_table, keys.round_key(round_id)) or {}

    def _deal(self, table: TableAtWorld, physical: PhysicalRound) -> None:
        rnd = self._round_item(physical.round_id)
        status = rnd.get("status")
        if status in (RoundStatus.VOIDING, RoundStatus.VOIDED):
            physical.stopped = "voided"
            self._next_round(table, physical)
            return
        if rnd.get("paused") and status not in FINISHED:
            self._supervise(physical, rnd)
            self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: dealer waits (paused)",
                    lambda: self._deal(table, physical))
            return
        if physical.engine is None:
            physical.engine = self._blackjack_engine(physical, rnd)
        problem = self.mirror(physical, rnd)
        if problem:
            self.invariants.violation("hands", problem, physical.round_id)
            physical.stopped = problem
            self._next_round(table, physical)
            return
        expected = physical.engine.expected
        if isinstance(expected, CardFor) and self._preselected_turn(physical, rnd, expected):
            self.at(self.clock.monotonic() + CARD_PACE, f"{table.table_id}: dealer waits for the console "
                    "(a pre-selected turn)", lambda: self._deal(table, physical))
            return
        expected = physical.engine.expected  # the round followed again: another hand's card, or a decision
        if isinstance(expected, CardFor):
            assert table.shoe is not None
            card = table.shoe.draw()
            physical.engine.deal(card)
            reused = self._reused_number(table, card)
            refused = table.shoe.refused(card, reused=reused is not None)
            if refused:
                physical.refused.append(len(physical.cards))
            physical.cards.append(card)
            dealt_to: str | None = physical.round_id
            if not expected.face_up:
                physical.face_down.append(card)
            elif expected.hand == "dealer":
                physical.dealer_up.append(card)
            scan_id = self._scanned(table, card, dealt_to, reused)
            if refused:
                physical.refused_scans.append(scan_id)
            physical.scans.append((scan_id, reused is not None))
            if physical.face_down or self.game == "pok-deng":
                self.invariants.hidden(table, physical, rnd)
            self.at(self.clock.monotonic() + CARD_PACE, f"{table.table_id}: deal", lambda: self._deal(table, physical))
            return
        if isinstance(expected, Settle):
            if self.faults.roll("stray-card", physical.round_id) is not None and table.shoe is not None:
                self.faults.happened("stray-card")
                stray = table.shoe.draw()
                physical.stray.append(stray)
                self._scan(table, stray)
            self._next_round(table, physical)
            return
        # a decision or a window: the players see it on their screens; the dealer watches the console
        self._ask(table, physical, expected)
        self.at(self.clock.monotonic() + 0.5, f"{table.table_id}: dealer watches the console",
                lambda: self._deal(table, physical))

    def _supervise(self, physical: PhysicalRound, rnd: dict[str, Any]) -> None:
        """A paused round's supervisor, once per pause: most often resumes it after a look at the
        table (saying what the card that paused it was: the round's, or set aside), sometimes
        leaves it to its timer (voided once paused too long). A round resumed three times already
        is left to its timer: its cards do not come (a card's event dead-lettered holds its
        reader's later ones), and the console would pause it again for ever."""
        pause = f"pause:{rnd.get('paused_at')}:{(rnd.get('blocked') or {}).get('n')}"
        if pause in physical.asked:
            return
        physical.asked.add(pause)
        if sum(1 for event in rnd.get("history") or [] if event.get("resume")) >= RESUMES:
            return
        if self.rng.random() < 0.2:
            return
        # a card refused is in a hand, or was the round's burn card (the application then waits for a
        # burn the dealer made already): the round cannot go on as dealt
        if physical.refused or physical.burn_refused:
            why = "a card refused is in a hand" if physical.refused else "a card refused was the round's burn card"
            self.at(self.clock.monotonic() + self.rng.uniform(5.0, 60.0), f"{physical.round_id}: supervisor voids "
                    "(a card refused)", lambda: self._void_refused(physical.round_id, why))
            return
        blocked = rnd.get("blocked") or {}
        card = None
        if blocked:  # what the camera shows: a card the dealer dealt into this round, or another
            card = "round" if self.scans.get(str(blocked.get("scan_id"))) == physical.round_id else "discarded"
        self.at(self.clock.monotonic() + self.rng.uniform(5.0, 60.0), f"{physical.round_id}: supervisor resumes "
                f"({card or 'no card'})", lambda: self._resume(physical.round_id, card))

    def _void_refused(self, round_id: str, why: str) -> None:
        from ..app import supervision

        self._console("void", lambda: supervision.void(round_id, why))

    def _resume(self, round_id: str, card: str | None) -> None:
        from ..app import supervision

        if self._console("resume", lambda: supervision.resume_round(round_id, card)):
            self.resumed += 1

    def _blackjack_engine(self, physical: PhysicalRound, rnd: dict[str, Any]) -> RoundEngine:
        """The dealer's engine of a blackjack round at its first card: the seats with bets on the
        layout, as the rules seat them (the same pure rules the system applies at the close)."""
        from .. import betting
        from ..app.rounds import table_rules

        bets = [bet_from_item(b) for b in self.invariants.round_bets(str(rnd["round_id"])) if b.get("status") == "open"]
        stored = RoundRecord.from_item(rnd)  # the app's rules of the round, as the app reads them
        closing = betting.close_betting(stored.game, table_rules(stored), betting.seats_from_dict(stored.seats), bets)
        physical.dealt = frozenset(closing.dealt)
        physical.fresh = partial(new_round, stored.game, list(closing.bets), overrides=store.round_rules(stored),
                                 round_in_shoe=stored.round_in_shoe, validate=False)
        return physical.fresh()

    def mirror(self, physical: PhysicalRound, rnd: dict[str, Any]) -> str | None:
        """Follow in the dealer's engine what the console shows happened since (decisions, windows
        closed); the cards are the dealer's own. What does not fit the table is returned."""
        from ..app.engine import apply_event

        assert physical.engine is not None
        events = rnd.get("events") or []
        if not physical.balances and rnd.get("balances") and physical.fresh is not None:
            physical.balances = True  # the round closed: its balances, followed again with them
            physical.fresh = partial(physical.fresh, balances=store.plain(rnd["balances"]))
            followed = self._followed(physical, events[:physical.mirrored])
            if followed is None:
                return (f"round {physical.round_id}: the cards dealt do not fit the round with the balances it "
                        f"took at its close, {store.plain(rnd['balances'])}")
            physical.engine = followed
        for event in events[physical.mirrored:]:
            physical.mirrored += 1
            if "card" in event:
                continue
            if "preselect" in event:
                physical.preselected.add(f"seat-{event['preselect']['seat']}")
            try:
                apply_event(physical.engine, store.plain(event))
            except CroupierError as exc:
                if "preselect" in event and physical.fresh is not None:
                    # a pre-selection is the one event recorded while cards are on their way: the
                    # console took it before the card that started that turn, which the dealer had
                    # dealt already. The round, followed again in the console's order, takes it
                    followed = self._followed(physical, events[:physical.mirrored])
                    if followed is not None:
                        physical.engine = followed
                        continue
                return (f"round {physical.round_id} recorded {event} where the table was at "
                        f"{physical.engine.expected}: {exc}")
        return None

    def _preselected_turn(self, physical: PhysicalRound, rnd: dict[str, Any], expected: CardFor) -> bool:
        """Whether the dealer waits before dealing ``expected``'s card: its hand's turn began with
        a pre-selection, which the console applies only when that turn starts there (the player may
        change it until then), so the dealer deals it once the console shows every card dealt so far,
        following the round again in the console's order."""
        seat = expected.hand.split("/")[0]
        if seat not in physical.preselected:
            return False
        events = rnd.get("events") or []
        if sum(1 for event in events if "card" in event) < len(physical.cards):
            return True
        physical.preselected.discard(seat)
        followed = self._followed(physical, events)
        if followed is not None:
            physical.engine, physical.mirrored = followed, len(events)
        return False

    @staticmethod
    def _followed(physical: PhysicalRound, events: Sequence[dict[str, Any]]) -> RoundEngine | None:
        """The dealer's round followed again from its start: the console's events in its order,
        each card it recorded being the dealer's card in turn, then the cards the dealer has dealt
        since; None when the round cannot take them so."""
        from ..app.engine import apply_event

        assert physical.fresh is not None
        engine, cards = physical.fresh(), iter(physical.cards)
        try:
            for event in events:
                if "card" in event:
                    engine.deal(next(cards))
                else:
                    apply_event(engine, store.plain(event))
            for card in cards:
                engine.deal(card)
        except (CroupierError, StopIteration):
            return None
        return engine

    def _ask(self, table: TableAtWorld, physical: PhysicalRound, expected: Any) -> None:
        """Show the players what the round waits for: the deciding seat's player answers after a
        moment (or says nothing: the timer plays), each insurance buyer answers or not."""
        key = f"{type(expected).__name__}:{getattr(expected, 'seat', '')}:{getattr(expected, 'hand', '')}:" \
              f"{len(physical.cards)}:{physical.mirrored}"
        if key in physical.asked:
            return
        physical.asked.add(key)
        now = self.clock.monotonic()
        if isinstance(expected, DecisionFor):
            self._preselect(table, physical, expected.seat, key)
            player = table.players[expected.seat - 1]
            if self.rng.random() < 0.15:
                return  # silent: the decision timer plays the hand
            legal = sorted(a for a in expected.legal if a not in ("timeout", "insurance"))
            action = self.rng.choice(legal) if self.rng.random() < 0.3 else ("hit" if "hit" in legal and
                                                                             self.rng.random() < 0.5 else "stand")
            if action not in legal:
                action = legal[0]
            self._decision_at(now + self.rng.uniform(0.3, 4.0), physical.round_id, player, expected.seat, action,
                              expected.hand, f"{physical.round_id}/{key}")
        elif isinstance(expected, InsuranceWindow):
            for seat, player in enumerate(table.players, start=1):
                if self.rng.random() < 0.3:
                    self._decision_at(now + self.rng.uniform(0.3, 3.0), physical.round_id, player, seat, "insurance",
                                      None, f"{physical.round_id}/{key}/{seat}")
            self._answer_behind(physical, expected.bets, "insurance", None, key)
        elif isinstance(expected, FollowWindow):
            self._answer_behind(physical, expected.bets, f"follow-{expected.what}", expected.hand, key)

    def _preselect(self, table: TableAtWorld, physical: PhysicalRound, deciding: int, key: str) -> None:
        """While seat ``deciding`` decides, the other seats' players now and then pre-select hit or
        stand for their own turn (a seat already played, or not dealt, is refused)."""
        for seat, player in enumerate(table.players, start=1):
            if seat == deciding or self.preselects.roll("preselect", f"{physical.round_id}/{seat}") is None:
                continue
            action = self.preselects.rng.choice(("hit", "stand"))
            self.at(self.clock.monotonic() + self.preselects.rng.uniform(0.2, 3.0),
                    f"{player} pre-selects {action} on seat {seat}",
                    partial(self._decide, physical.round_id, player, seat, action, None, f"{physical.round_id}/"
                            f"{key}/pre/{seat}", "preselect", preselect=True))

    def _answer_behind(self, physical: PhysicalRound, bet_ids: Sequence[str], action: str, hand: int | None,
                       key: str) -> None:
        """The players betting behind a seat answer a window on their bet (buy insurance, follow a
        double or a split) about half the time, or let its timer close it."""
        behind = {str(b["bet_id"]): b for b in self.invariants.round_bets(physical.round_id) if b["type"] == "behind"}
        for bet_id in bet_ids:
            bet = behind.get(bet_id)
            if bet is None or self.behind.random() < 0.5:
                continue
            self._decision_at(self.clock.monotonic() + self.behind.uniform(0.3, 3.0), physical.round_id,
                              str(bet["player"]), int(bet["seat"]), action, hand, f"{physical.round_id}/{key}/{bet_id}",
                              behind=True)

    def _decision_at(self, when: float, round_id: str, player: str, seat: int, action: str, hand: int | None,
                     key: str, behind: bool = False) -> None:
        where = f"{'behind ' if behind else ''}seat {seat}"
        self.at(when, f"{player} decides {action} on {where}",
                lambda: self._decide(round_id, player, seat, action, hand, key, behind=behind))
        if self.faults.roll("double-click", key) is not None:
            self.at(when, f"{player} decides again at once",
                    lambda: self._decide(round_id, player, seat, action, hand, key, "double-click", behind))
        if self.faults.roll("retry", key) is not None:
            self.at(when + self.rng.uniform(0.2, 3.0), f"{player} decides again",
                    lambda: self._decide(round_id, player, seat, action, hand, key, "retry", behind))

    def _decide(self, round_id: str, player: str, seat: int, action: str, hand: int | None, key: str,
                fault: str | None = None, behind: bool = False, preselect: bool = False) -> None:
        from ..app import decisions

        if fault:
            (self.preselects if preselect else self.faults).happened(fault)
        try:
            self.invoke("decisions", lambda: decisions.decide(round_id, player, seat, action, behind=behind,
                                                              hand=hand, preselect=preselect, idempotency_key=key))
        except (CroupierError, Failure) as refused:
            self.note(f"  decision refused: {refused}")

    def _next_round(self, table: TableAtWorld, physical: PhysicalRound) -> None:
        rnd = self._round_item(physical.round_id)
        if rnd.get("status") not in FINISHED:
            if rnd.get("paused"):  # a card after the round's last one paused it: the console lists it
                self._supervise(physical, rnd)
            self.at(self.clock.monotonic() + 1.0, f"{table.table_id}: dealer watches {physical.round_id}",
                    lambda: self._next_round(table, physical))
            return
        self.at(self.clock.monotonic() + self.rng.uniform(1.0, 3.0), f"{table.table_id}: open round",
                lambda: self._open_round(table))
        if self.house_rules and self.house_draws.random() < RECONFIGURE_CHANCE:
            self.at(self.clock.monotonic() + self.house_draws.uniform(0.5, 3.5), f"{table.table_id}: new rules",
                    lambda: self._reconfigure(table))

    def _reconfigure(self, table: TableAtWorld) -> None:
        """The operator gives the table new house rules (its timers kept) between its rounds, as the
        dealer opens the next: taken while no round is in play, refused once one is."""
        from ..app import tables

        rules = self._house_rules({"timers": table.rules["timers"]})
        table.asked.append(rules)
        try:
            self.invoke("tables", lambda: tables.configure_table(table.table_id, rules, None))
        except CroupierError as refused:
            self.reconfigured["refused"] += 1
            self.note(f"  {table.table_id}'s new rules refused: {refused}")
            return
        except Failure as failure:  # taken or not: the rounds the table opens next say
            self.reconfigured["failed"] += 1
            self.note(f"  {table.table_id}'s new rules failed: {failure.error}")
            return
        self.reconfigured["taken"] += 1
        table.plays(rules)
        self.note(f"  {table.table_id} plays new house rules: {rules}")

    def _scan(self, table: TableAtWorld, card: str) -> None:
        """The reader scans ``card``, dealt to no hand (a burn, a stray card)."""
        self._scanned(table, card)

    def _scanned(self, table: TableAtWorld, card: str, dealt_to: str | None = None, seq: int | None = None) -> str:
        """The reader scans ``card``; ``dealt_to``: the round whose hand it was dealt to (None: a
        burn, or a card no hand was dealt), as the supervisor sees it on camera; ``seq``: the number
        the reader gives it, when not its next one (``seq-reuse``). Returns its scan id."""
        if self.reader_faults.roll("failed-scan", table.table_id) is not None:
            self.reader_faults.happened("failed-scan")  # the reader could not read it: scanned again
            self._send_reader(table, "scan-failed", {"reason": "unreadable"}, self.reader_ids, self.reader_faults)
        scan_id = self._send_reader(table, "card-scanned", {"card": card}, seq=seq)
        self.scans[scan_id] = dealt_to
        return scan_id

    def _reused_number(self, table: TableAtWorld, card: str) -> int | None:
        """The number the reader gives a card dealt to a hand instead of its next one (``seq-reuse``):
        one of the last few its table's log placed already, drawn from the fault's number (sparing
        another changes none); None for its next one. A number the log has not placed yet (its event
        still on the way) is not taken: the log cannot tell which of two events with one number is
        the reader's mistake before both have come, and would place the first to come."""
        number = self.reused.roll("seq-reuse", f"{table.table_id} {card}")
        if number is None:
            return None
        head = self.dynamo.peek(settings().game_table, keys.log_head_key(table.table_id)) or {}
        placed = int((head.get("seqs") or {}).get(table.reader, 0))
        if placed < 1:
            return None
        self.reused.happened("seq-reuse")
        reused = random.Random(f"{self.seed}:seq-reuse:{number}").randint(max(1, placed - 5), placed)
        self.note(f"  {table.table_id}'s reader numbers {card} #{reused} again (its next: #{table.seq + 1})")
        return reused

    def _send_reader(self, table: TableAtWorld, kind: str, fields: dict[str, Any], ids: random.Random | None = None,
                     faults: Faults | None = None, seq: int | None = None) -> str:
        if seq is None:
            table.seq += 1
        scan_id = f"scan-{(ids or self.uuids).getrandbits(48):012x}"
        detail = {"table_id": table.table_id, "reader_id": table.reader, "scan_id": scan_id,
                  "seq": table.seq if seq is None else seq, **fields}
        self._send(table, kind, detail, READER, ids, faults)
        return scan_id

    def _send(self, table: TableAtWorld, kind: str, detail: dict[str, Any], device: str,
              ids: random.Random | None = None, faults: Faults | None = None) -> None:
        """Put a device's event on the devices' queue (its id from ``ids``, its delivery's faults
        from ``faults``: the world's unless told)."""
        faults = faults or self.faults
        event = {"version": "0", "id": f"ev-{(ids or self.uuids).getrandbits(64):016x}", "detail-type": kind,
                 "source": source_of(device, table.table_id), "account": ACCOUNT,
                 "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock.time())),
                 "region": REGION, "resources": [], "detail": detail}
        message_id = self.queue.send(json.dumps(event))
        late = faults.roll("late-delivery", kind) is not None
        redelivered = self.deliveries.roll("redelivery", kind) is not None
        if late or redelivered:
            message = next(m for m in self.queue.messages if m.id == message_id)
            if late:
                faults.happened("late-delivery")
                draws = self.rng if faults is self.faults else faults.rng  # the world's own draws as they were
                message.visible_at = self.clock.monotonic() + draws.uniform(0.5, 5.0)
            if redelivered:
                self.deliveries.happened("redelivery")
                message.visible_at = max(message.visible_at, self.clock.monotonic() + self.queue.visibility_timeout)
        self.dealing_poller.schedule(self.clock.monotonic() + 0.02)

    # --- the dealing function's queue -----------------------------------------------------------

    def _poll(self) -> None:
        batch = self.queue.receive(self.batch_size)
        for message in [m for m in self.dead_letters.messages if m.id not in self.dead_lettered]:
            self.dead_lettered.add(message.id)  # the alarm: an operator redrives it, 5 to 15 minutes on
            self.at(self.clock.monotonic() + self.operators.uniform(300.0, 900.0),
                    f"an operator redrives dead-lettered {message.id}", partial(self._redrive, message))
        if batch:
            self._deliver(batch)
        if self.queue.messages:
            soonest = min(m.visible_at for m in self.queue.messages)
            self.dealing_poller.schedule(max(soonest, self.clock.monotonic() + 0.02))

    def _redrive(self, message: Message) -> None:
        """The dead-letter queue's message moved back to the devices' queue (its redrive to source):
        the reader's event comes again, and its later ones no longer wait behind it."""
        self.dead_letters.remove(message)
        self.queue.send(message.body)
        self.dealing_poller.schedule(self.clock.monotonic() + 0.02)

    def _deliver(self, batch: list[Message]) -> None:
        for message in batch:
            if message.id in self._deleted:
                self.faults.happened("duplicate-delivery")
        event = sqs_event(batch, "table-events")
        handler = self.handler("dealing")
        try:
            answer = self.invoke("dealing", lambda: handler(event, Context("dealing")))
        except Failure as failure:
            self.note(f"  dealing batch failed ({failure.error}): redelivered after the visibility timeout")
            return
        failed = {f["itemIdentifier"] for f in (answer or {}).get("batchItemFailures", [])}
        for message in batch:
            if message.id not in failed:
                self._deleted.add(message.id)
                self.queue.delete(message)

    # --- the screens: the game table's stream, the push queue, the WebSocket connections -------

    def game_records(self) -> list[dict[str, Any]]:
        """The game table's stream records since the last step (for the invariants, which change
        nothing in them); the live function's mapping receives them too, as they are (its handler
        reads them through Powertools' record classes, which change nothing either)."""
        records = self.dynamo.take_records(settings().game_table, copies=False)
        if records and self.screens_on:
            self.live.add(records)
            if self.live.pending():
                self.stream_poller.schedule(self.clock.monotonic() + STREAM_PACE)
        return records

    def _stream_poll(self) -> None:
        self.live.step()
        if self.live.pending():
            self.stream_poller.schedule(self.clock.monotonic() + STREAM_PACE)

    def _live(self, event: dict[str, Any]) -> Any:
        handler = self.handler("live")
        return self.invoke("live", lambda: handler(event, Context("live")), self.screen_faults)

    def _live_gave_up(self, batch: dict[str, Any]) -> None:
        self.live_failures += 1
        self.note(f"  live gave up on a stream batch: {batch}")

    def _queued(self, url: str, body: str, group: str | None, deduplication: str | None, delay: int) -> str | None:
        if url == WALLET_CALLS_QUEUE_URL:
            sent = self.outbox.send(body, delay=delay)
            self.outbox_poller.schedule(self.clock.monotonic() + delay + 0.02)
            return sent
        if url != PUSH_QUEUE_URL:
            raise client_error("AWS.SimpleQueueService.NonExistentQueue", f"no queue {url}", "SendMessage")
        if self.unpushed:
            self.unpushed.pop(_pushed_as(str(group), body), None)
        sent = self.push_queue.send(body, group, deduplication or hashlib.sha256(body.encode()).hexdigest(), delay)
        self.push_poller.schedule(self.clock.monotonic() + delay + 0.02)
        return sent

    def _batch(self, queue: Queue, most: int, function: str, queue_name: str, faults: Faults) -> list[Message]:
        """One poll of ``queue`` by ``function``'s event source mapping: a batch received, handed to
        its handler, and deleted but for the messages it reported failed (all of them when the
        invocation failed: they come back after the visibility timeout). The batch received."""
        batch = queue.receive(most)
        if not batch:
            return batch
        event, handler = sqs_event(batch, queue_name), self.handler(function)
        try:
            answer = self.invoke(function, lambda: handler(event, Context(function)), faults)
        except Failure as failure:
            self.note(f"  {function} batch failed ({failure.error}): redelivered after the visibility timeout")
            answer = {"batchItemFailures": [{"itemIdentifier": m.id} for m in batch]}
        failed = {f["itemIdentifier"] for f in (answer or {}).get("batchItemFailures", [])}
        now = self.clock.monotonic()
        for message in batch:
            if message.id not in failed:
                queue.delete(message)
                if queue is self.push_queue:
                    self.pushed_after.append(now - message.sent_at)
        return batch

    def _push_poll(self) -> None:
        batch = self._batch(self.push_queue, self._push_batch, "push", "sim-croupier-push.fifo", self.screen_faults)
        if self.push_queue.messages:  # at once while batches come; else when a message in flight
            now = self.clock.monotonic()  # comes back (its group's next waits for it)
            later = [m.visible_at for m in self.push_queue.messages if m.visible_at > now]
            self.push_poller.schedule(now + 0.02 if batch or not later else min(later))

    def _posted(self, connection_id: str, text: str) -> None:
        self.posts += 1
        self.invariants.pushed(connection_id, text)

    def _watch(self, table: TableAtWorld) -> None:
        """Every player of the table and its supervisor watch it on a screen: one connected (again,
        once API Gateway closed the last: its token ran out) as the connections function connects
        one, and subscribed to the table."""
        from ..app import push
        from ..app.identity import Identity

        screens = self.watching.setdefault(table.table_id, [])
        if not screens:
            screens.extend(("", Identity(player, "player")) for player in table.everyone())
            screens.append(("", Identity(f"supervisor-{table.table_id}", "supervisor")))
        for i, (connection_id, who) in enumerate(screens):
            if connection_id and connection_id not in self.screens.closed:
                continue
            connection_id = f"c-{table.table_id}-{i}-{self.screen_ids.getrandbits(32):08x}"

            def connect(connection_id: str = connection_id, who: Any = who) -> None:
                push.connect(connection_id, who)
                push.subscribe(connection_id, [table.table_id])

            try:
                self.invoke("connections", connect, self.screen_faults)
            except (CroupierError, Failure) as refused:
                self.note(f"  {who.subject}'s screen did not connect: {refused}")
                continue
            screens[i] = (connection_id, who)
            self.connections[connection_id] = who
            self.subscribed_at[connection_id] = int(self.clock.time() * 1000)

    # --- the operator's wallet: the outbox ---------------------------------------------------------

    def _outbox_poll(self) -> None:
        batch = self._batch(self.outbox, self._outbox_batch, "outbox", "sim-croupier-wallet-calls", self.wallet_faults)
        if self.outbox.messages:
            now = self.clock.monotonic()
            soonest = min(m.visible_at for m in self.outbox.messages)
            self.outbox_poller.schedule(now + 0.02 if batch and soonest <= now else max(soonest, now + 0.02))

    def _sweep(self) -> None:
        """The outbox's schedule: every minute, the sweeper queues the calls overdue (a message lost,
        a request that died with its debit), while the world has rounds or calls left."""
        handler, event = self.handler("outbox"), scheduled_event("sim-croupier-outbox-sweep", self.clock.time())
        try:
            self.invoke("outbox", lambda: handler(event, Context("outbox")), self.wallet_faults)
        except Failure as failure:  # the schedule's invocation is asynchronous: the next minute's sweeps
            self.note(f"  the sweeper failed ({failure.error})")
        if self.rounds_started < self.rounds_wanted or len(self.invariants.rounds_checked) < len(self.physical) \
                or store.due_calls(store.now_ms() + 10**12, 1):
            self.at(self.clock.monotonic() + SWEEP_EVERY, "the outbox's sweeper", self._sweep)


@dataclass
class _Poller:
    """Lambda's poller of one queue or stream, which polls all the time: a poll is scheduled for
    when something can be received, unless one is due sooner (at most one is pending)."""

    world: World
    what: str
    poll: Callable[[], None]
    concurrent: bool = True
    """Whether Lambda runs another batch of its source while one is in flight (a queue's), or not
    (a stream shard's)."""
    pending: float | None = None
    running: bool = False

    def schedule(self, when: float) -> None:
        if self.pending is None or when < self.pending:
            self.pending = when
            self.world.at(when, self.what, lambda: self._run(when), self)

    def _run(self, when: float) -> None:
        if self.pending != when:
            return  # a sooner poll took over
        self.pending = None
        running, self.running = self.running, True
        try:
            self.poll()
        finally:
            self.running = running


def scheduled_event(rule: str, at: float) -> dict[str, Any]:
    """What an EventBridge schedule's rule delivers to its function at ``at`` (epoch seconds)."""
    moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    return {"version": "0", "id": f"schedule-{int(at)}", "detail-type": "Scheduled Event", "source": "aws.events",
            "account": ACCOUNT, "time": moment, "region": REGION,
            "resources": [f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{rule}"], "detail": {}}


def sqs_event(batch: list[Message], queue: str) -> dict[str, Any]:
    """The event Lambda gives a function for a batch of a queue's messages (a FIFO queue's with
    their group)."""
    def attributes(m: Message) -> dict[str, str]:
        fifo = {} if m.group is None else {"MessageGroupId": m.group, "MessageDeduplicationId": m.id,
                                           "SequenceNumber": m.id.rsplit("-", 1)[1]}
        return {"ApproximateReceiveCount": str(m.receives), **fifo}

    return {"Records": [{"messageId": m.id, "receiptHandle": m.receipt, "body": m.body, "attributes": attributes(m),
                         "eventSource": "aws:sqs", "eventSourceARN": f"arn:aws:sqs:{REGION}:{ACCOUNT}:{queue}",
                         "awsRegion": REGION, "messageAttributes": {}, "md5OfBody": ""} for m in batch]}


class _Routed:
    """A stream that gives the world's thread's text to the world's :class:`Output` and any other
    thread's to the stream it stood in for: a local stack running beside the world in the same
    process (a test session's) logs through the same loggers, and its lines are neither the
    world's nor a seed's (counted, they made a world's report differ with what else ran)."""

    def __init__(self, output: Output, other: Any, thread: int) -> None:
        self.output, self.other, self.thread = output, other, thread

    def write(self, text: str) -> int:
        if threading.get_ident() == self.thread:
            return self.output.write(text)
        return int(self.other.write(text) or 0)

    def flush(self) -> None:
        if threading.get_ident() != self.thread:
            self.other.flush()


class Output:
    """What the functions write to standard output (their log lines, their metrics) and the errors
    their callers are answered, kept while a world runs instead of printed (a run's own report is
    all it prints), until the invariants have read them (:meth:`take`). Only the world's own
    thread's text: another thread's goes where it went (:class:`_Routed`)."""

    def __init__(self) -> None:
        self.lines = 0
        self.bytes = 0
        self.said: list[str] = []

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        self.bytes += len(text)
        self.said.append(text)
        return len(text)

    def answered(self, error: BaseException) -> None:
        """An error a caller was answered (a refusal, a function's error)."""
        self.said.append(f"{type(error).__name__}: {error}")

    def take(self) -> list[str]:
        """What was written and answered since the last time, once."""
        said, self.said = self.said, []
        return said

    def flush(self) -> None:
        pass

    @contextlib.contextmanager
    def capturing(self) -> Iterator[None]:
        handlers = [h for name in [*logging.Logger.manager.loggerDict, ""]
                    for h in logging.getLogger(name or None).handlers
                    if isinstance(h, logging.StreamHandler) and h.stream in (sys.stdout, sys.stderr)]
        thread = threading.get_ident()
        streams = [h.setStream(_Routed(self, h.stream, thread)) for h in handlers]
        loggers = [logging.getLogger(name) for name in logging.Logger.manager.loggerDict]
        levels = [logger.level for logger in loggers]
        for logger in loggers:  # the functions' own lines down to info are read (for hidden cards);
            if logger.name.startswith("croupier"):  # the libraries' warnings and errors only
                logger.setLevel(logging.INFO)
            elif logger.level < logging.WARNING:
                logger.setLevel(logging.WARNING)
        try:
            with contextlib.redirect_stdout(_Routed(self, sys.stdout, thread)), warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # Powertools: "no application metrics"
                yield
        finally:
            for handler, stream in zip(handlers, streams, strict=True):
                handler.setStream(stream)
            for logger, level in zip(loggers, levels, strict=True):
                logger.setLevel(level)
