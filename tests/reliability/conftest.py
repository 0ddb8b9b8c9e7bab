"""Reliability tests: fault injection, races (and fuzzing) against the local stack.

- ``stack``: the session's local stack (the integration suite's one when both run in one session).
- ``h``: the integration suite's :class:`Harness` (HTTP clients, funded players, fresh names; its
  screens closed with the test).
- ``direct``: drives rounds in-process through the application's modules with the round workflow
  switched off, so that a test decides exactly when each step runs (and what crashes).
- ``faults``: crash injection at the DynamoDB client: a planned write commits (or not) and then the
  "process dies" (:class:`Crash`), as a Lambda killed between two writes.
- ``FIGURES``: what the suite injected and checked, printed at the end of the session and written
  to ``tests/reliability/figures.json``.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import json
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from botocore.client import BaseClient

from croupier.app import bets, dealing, rounds, steps, store, tables, tasks, workflow
from croupier.app import decisions as deciding
from croupier.app.audit import run_audit
from croupier.app.engine import bet_from_item, rebuild
from croupier.local.client import reader_seq, wait_until
from croupier.local.stack import LocalStack
from tests.integration.conftest import TIMERS, Harness, h  # noqa: F401 (the fixture)

START = 100_000
FIGURES_FILE = Path(__file__).with_name("figures.json")

FIGURES: Counter[str] = Counter()
"""Counted by the tests: ``faults_injected`` (crashes raised), ``crash_scenarios``, ``retries``
(re-runs after a crash), ``duplicate_deliveries``, ``concurrent_requests``, ``bets_checked``,
``money_lost`` and ``money_duplicated`` (minor units, summed over every check: must stay 0),
``audits`` (whole-store audits that passed)."""


# --- the stack -------------------------------------------------------------------------------


def audit_ok() -> None:
    report = run_audit()
    assert report.ok, report.summary()
    FIGURES["audits"] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    figures = {key: FIGURES[key] for key in ("faults_injected", "crash_scenarios", "retries", "duplicate_deliveries",
                                             "concurrent_requests", "bets_checked", "money_lost",
                                             "money_duplicated", "audits")}
    terminalreporter.write_sep("-", "reliability figures")
    for key, value in figures.items():
        terminalreporter.write_line(f"{key:22} {value}")
    with contextlib.suppress(OSError):
        FIGURES_FILE.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


# --- crash injection -------------------------------------------------------------------------

WRITE_OPS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"})


class Crash(Exception):
    """The function's process died here."""


@dataclass
class Plan:
    """Where an armed thread crashes. ``at``: after (or, ``before``, instead of) its ``at``-th
    write, counted over every attempt run under this plan; ``every``: after the first write of
    each attempt (each armed run), so a task crashes once after each of its writes in turn."""

    at: int | None = None
    every: bool = False
    before: bool = False
    writes: int = 0
    attempt_writes: int = 0
    crashes: list[str] = field(default_factory=list)

    def hit(self) -> bool:
        self.writes += 1
        self.attempt_writes += 1
        return (self.every and self.attempt_writes == 1) or (self.at is not None and self.writes == self.at)


class Faults:
    """Crash injection at botocore's one call path: every DynamoDB write of an armed context is
    counted; the planned one commits (or not) and then raises :class:`Crash`. The plan is a
    context variable: the settlement's worker threads, which run in a copy of the caller's
    context, crash by it too."""

    def __init__(self) -> None:
        self._plan: contextvars.ContextVar[Plan | None] = contextvars.ContextVar("plan", default=None)
        self._lock = threading.Lock()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = BaseClient._make_api_call

        def call(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
            plan = self._plan.get()
            if plan is None or operation_name not in WRITE_OPS:
                return original(client, operation_name, api_params)
            with self._lock:
                hit = plan.hit()
            if not hit:
                return original(client, operation_name, api_params)
            if not plan.before:
                original(client, operation_name, api_params)  # it commits (or fails, as it would have)
            plan.crashes.append(operation_name)
            FIGURES["faults_injected"] += 1
            raise Crash(f"died {'before' if plan.before else 'after'} {operation_name} (write {plan.writes})")

        monkeypatch.setattr(BaseClient, "_make_api_call", call)

    @contextlib.contextmanager
    def armed(self, plan: Plan | None) -> Iterator[Plan | None]:
        if plan is not None:
            plan.attempt_writes = 0
        token = self._plan.set(plan)
        try:
            yield plan
        finally:
            self._plan.reset(token)


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    injector = Faults()
    injector.install(monkeypatch)
    return injector


def crash_after(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, when: Callable[..., bool],
                times: int = 1, before: bool = False) -> list[str]:
    """Make ``owner.name`` (in any thread: the local stack runs functions on its own threads) die
    right after it returned (``before``: instead of running), the first ``times`` times
    ``when(*args, **kwargs)`` holds. Returns the list the crashes are logged to."""
    original = getattr(owner, name)
    crashed: list[str] = []
    lock = threading.Lock()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with lock:
            fire = len(crashed) < times and when(*args, **kwargs)
            if fire:
                crashed.append(name)
                FIGURES["faults_injected"] += 1
        if fire and before:
            raise Crash(f"died before {name}")
        result = original(*args, **kwargs)
        if fire:
            raise Crash(f"died right after {name}")
        return result

    monkeypatch.setattr(owner, name, wrapper)
    return crashed


class Lockstep:
    """Holds each write of the racing threads until ``parties`` of them are about to write (or
    ``timeout`` passed): every racer has done its reads before any of them writes, so the
    outcome rests on the writes' conditions alone, not on which thread happened to be first."""

    def __init__(self, parties: int, timeout: float = 1.0) -> None:
        self.parties, self.timeout = parties, timeout
        self._cond = threading.Condition()
        self._waiting = 0
        self._generation = 0

    def wait(self) -> None:
        with self._cond:
            generation = self._generation
            self._waiting += 1
            if self._waiting >= self.parties:
                self._generation += 1
                self._waiting = 0
                self._cond.notify_all()
                return
            if not self._cond.wait_for(lambda: self._generation != generation, timeout=self.timeout):
                self._waiting -= 1  # the others are done: go alone

    def install(self, monkeypatch: pytest.MonkeyPatch, operations: frozenset[str] = WRITE_OPS) -> None:
        original = BaseClient._make_api_call

        def call(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
            if operation_name in operations:
                self.wait()
            return original(client, operation_name, api_params)

        monkeypatch.setattr(BaseClient, "_make_api_call", call)


def retry_through_crashes(fn: Callable[[], Any], faults: Faults, plan: Plan | None, attempts: int = 40) -> Any:
    """Run ``fn`` under ``plan`` until it completes: every :class:`Crash` is a dead process whose
    invocation is retried (the workflow's Retry, the queue's redelivery, the client's retry)."""
    for _ in range(attempts):
        try:
            with faults.armed(plan):
                return fn()
        except Crash:
            FIGURES["retries"] += 1
    raise AssertionError(f"still crashing after {attempts} attempts")


# --- driving rounds in-process ---------------------------------------------------------------

_counter = itertools.count(1)


def device_event(kind: str, detail: dict[str, Any], once: str | None = None) -> dict[str, Any]:
    """A device event as the dealing function records it (``once``: its scan id, else a fresh
    bus event id); a reader's event numbered as its reader numbers it, unless it says."""
    if kind in dealing.READER_EVENTS and "seq" not in detail:
        detail = {**detail, "seq": reader_seq(detail["table_id"], detail["reader_id"], detail.get("scan_id"))}
    return dealing.record(kind, detail, once or detail.get("scan_id") or f"event:{uuid.uuid4().hex}")


class Direct:
    """Tables, players and rounds driven through the application's modules in this process, with
    the round workflow off: ``close``, ``play`` and the settlement tasks run when the test says."""

    def __init__(self, faults: Faults) -> None:
        self.tag = f"rel{next(_counter)}-{uuid.uuid4().hex[:4]}"
        self.faults = faults
        self._players = itertools.count(1)
        self._tables = itertools.count(1)

    # set-up
    def player(self, name: str, amount: int = START) -> str:
        """A new player (a fresh name every time) with ``amount`` deposited."""
        player = f"{self.tag}-{name}{next(self._players)}"
        store.move_money(player, [(f"deposit:{uuid.uuid4().hex}", amount, {"reference": "test"})], kind="deposit")
        return player

    def table(self, game: str, rules: dict[str, Any] | None = None, name: str = "t") -> str:
        """A new table with a new shoe whose burn is done (the first card, the ace of clubs,
        burns one card)."""
        table_id = f"{self.tag}-{name}{next(self._tables)}"
        tables.create_table(game, {"timers": dict(TIMERS), **(rules or {})}, f"reader-{table_id}", table_id)
        device_event("shoe-shuffled", {"table_id": table_id, "shoe_id": f"shoe-{uuid.uuid4().hex[:8]}"})
        self.scan(table_id, "AC")
        device_event("burn-done", {"table_id": table_id})
        return table_id

    def scan(self, table_id: str, card: str, scan_id: str | None = None) -> dict[str, Any]:
        return device_event("card-scanned", {"table_id": table_id, "reader_id": f"reader-{table_id}",
                                             "scan_id": scan_id or uuid.uuid4().hex[:16], "card": card})

    def start(self, table_id: str, burn: str | None = None) -> str:
        """Open a round (Pok Deng: ``burn`` is the card burned at its start)."""
        round_id: str = rounds.start_round(table_id)["round_id"]
        if burn:
            self.scan(table_id, burn)
        return round_id

    def bet(self, table_id: str, player: str, wanted: Sequence[dict[str, Any]], key: str | None = None,
            ) -> dict[str, Any]:
        return bets.place_bets(table_id, player, "real", list(wanted), key or uuid.uuid4().hex)

    # the round
    def play(self, round_id: str, table_id: str, cards: list[str],
             decisions: dict[tuple[int, int], list[tuple[str, str]]] | None = None,
             windows: dict[str, list[tuple[str, int, str, bool]]] | None = None,
             until: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """Close betting (if still open) and play until the round waits for settlement (or
        ``until(step)``): cards popped from ``cards`` in order, ``decisions[(seat, hand)]`` as
        ``(player, action)``, ``windows[key]`` answered as ``(player, seat, action, behind)``
        then closed. Returns the step the round waits on."""
        if store.load_round(round_id)["status"] in ("betting", "closing"):
            steps.close_betting(round_id)
        left = cards
        plan = {k: list(v) for k, v in (decisions or {}).items()}
        answered: set[str] = set()
        for _ in range(200):
            step = steps.advance(round_id)
            kind, key = step["kind"], step["key"]
            if kind in ("settle", "void", "done") or (until is not None and until(step)):
                return step
            if kind == "card":
                self.scan(table_id, left.pop(0))
            elif kind == "decision":
                _, seat, hand = key.split(":")
                player, action = plan[(int(seat), int(hand))].pop(0)
                deciding.decide(round_id, player, int(seat), action, idempotency_key=uuid.uuid4().hex)
            elif kind == "window":
                if windows and key in windows and key not in answered:
                    answered.add(key)
                    for player, seat, action, behind in windows[key]:
                        deciding.decide(round_id, player, seat, action, behind=behind,
                                       idempotency_key=uuid.uuid4().hex)
                else:
                    steps.close_window(round_id, key)
            else:
                raise AssertionError(f"round {round_id} waits for {step}")
        raise AssertionError(f"round {round_id} did not reach settlement")

    # settlement
    def settlement(self, round_id: str, op: str = "settle") -> list[tasks.SettlementTask]:
        shards = int(store.load_round(round_id)["shards"])
        shard_op, finish = ("settle-shard", "finish-settlement") if op == "settle" else ("refund-shard", "finish-void")
        return ([tasks.SettlementTask(op=shard_op, round_id=round_id, shard=s) for s in range(shards)]  # type: ignore[arg-type]
                + [tasks.SettlementTask(op=finish, round_id=round_id)])  # type: ignore[arg-type]

    def run(self, steps: Sequence[tasks.SettlementTask], plan: Plan | None = None) -> None:
        """Each settlement invocation in turn, each retried until it completes (the workflow's Map
        and task Retry)."""
        for step in steps:
            retry_through_crashes(lambda s=step: tasks.run_settlement_task(s), self.faults, plan)


DIRECT_SHARDS = 3
"""Bet shards of the rounds driven in-process (the deployed default is 16): fewer empty shards to
visit keeps a round cheap on moto, and three still spread a round's bets over several."""


@pytest.fixture
def direct(faults: Faults, monkeypatch: pytest.MonkeyPatch, stack: LocalStack) -> Direct:
    monkeypatch.setattr(workflow, "start_round", lambda *args, **kwargs: "")  # the test drives the round
    configured = rounds.settings()
    monkeypatch.setattr(rounds, "settings", lambda: configured.model_copy(update={"bet_shards": DIRECT_SHARDS}))
    return Direct(faults)


# --- money checks ----------------------------------------------------------------------------


def ledger(player: str) -> list[dict[str, Any]]:
    return list(store.query_all(store.wallet_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :l)",
                                ExpressionAttributeValues={":p": f"WALLET#{player}", ":l": "LEDGER#"},
                                ConsistentRead=True))


def expected_payouts(round_id: str) -> dict[str, int]:
    """What each bet of a round must be credited, computed from the round's record by the engine
    (not by the settlement code): a voided round refunds every stake; a settled one pays the
    engine's result, and a bet the engine did not play (refunded at the close) gets its stake."""
    rnd = store.load_round(round_id)
    items = store.round_bets(round_id, int(rnd["shards"]))
    if rnd["status"] in ("voiding", "voided"):
        return {b["bet_id"]: int(b["taken"]) for b in items}
    if rnd.get("settlement") and rnd.get("engine_bets"):
        results = {r["id"]: int(r["paid"]) for r in rnd["settlement"]["bets"]}
    else:
        engine = rebuild(rnd, [bet_from_item(b) for b in items if b["bet_id"] not in (rnd.get("refunds") or [])])
        results = {r.id: int(r.paid) for r in engine.settle().bets}
    return {b["bet_id"]: results.get(b["bet_id"], int(b["taken"])) for b in items}


def check_exactly_once(round_id: str, start: dict[str, int], expected: dict[str, int] | None = None,
                       *, balances: bool = True) -> None:
    """Every bet of the round finished, debited exactly what it took, credited exactly once with
    exactly its payout; every player's wallet (``balances``: if this round is all they played
    since ``start``) is where those movements put it. Adds what was lost or duplicated to
    FIGURES before asserting."""
    expected = expected if expected is not None else expected_payouts(round_id)
    rnd = store.load_round(round_id)
    items = store.round_bets(round_id, int(rnd["shards"]))
    problems: list[str] = []
    lost = duplicated = 0
    by_player: dict[str, int] = dict.fromkeys(start, 0)
    entries = {player: ledger(player) for player in {*start, *(b["player"] for b in items)}}
    for bet in items:
        player, bet_id = bet["player"], bet["bet_id"]
        mine = [e for e in entries[player] if e.get("bet_id") == bet_id]
        credits = [int(e["amount"]) for e in mine if e["kind"] in ("settle", "refund")]
        debits = -sum(int(e["amount"]) for e in mine if e["kind"] not in ("settle", "refund"))
        want = expected[bet_id]
        if bet["status"] == "open" or len(credits) != 1 or sum(credits) != want:
            problems.append(f"bet {bet_id}: {bet['status']}, credits {credits}, expected one credit of {want}")
        if debits != int(bet["taken"]):
            problems.append(f"bet {bet_id}: debited {debits}, took {bet['taken']}")
            duplicated += max(0, debits - int(bet["taken"]))
            lost += max(0, int(bet["taken"]) - debits)
        lost += max(0, want - sum(credits))
        duplicated += max(0, sum(credits) - want)
        by_player[player] = by_player.get(player, 0) + want - int(bet["taken"])
        FIGURES["bets_checked"] += 1
    for player, net in by_player.items() if balances else ():
        balance = store.balance_of(player)
        if balance != start[player] + net:
            problems.append(f"{player}: balance {balance}, expected {start[player] + net}")
    FIGURES["money_lost"] += lost
    FIGURES["money_duplicated"] += duplicated
    assert not problems, "\n".join(problems)


def wait_for(check: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05) -> Any:
    """The client's ``wait_until``, failing the test (not erroring it) when the stack is late."""
    try:
        return wait_until(check, timeout=timeout, interval=interval)
    except TimeoutError as exc:
        raise AssertionError("timed out waiting for the local stack") from exc
