"""The in-process round driver: tables, players and rounds driven through the application's modules
in the test's own process, with the round workflow switched off (:func:`drive_in_process`), so a
test decides exactly when each step runs (and, with :mod:`tests.support.faults`, what crashes)."""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from croupier.app import bets, config, dealing, rounds, settlement, steps, store, tables, tasks, workflow
from croupier.app import decisions as deciding
from croupier.local.client import reader_seq

from .faults import Faults, Plan, retry_through_crashes
from .harness import TIMERS

START = 100_000
"""What :meth:`Direct.player` deposits unless told."""
DIRECT_SHARDS = 3
"""Bet shards of the rounds driven in-process (the deployed default is 16): fewer empty shards to
visit keeps a round cheap on moto, and three still spread a round's bets over several."""

_counter = itertools.count(1)


@contextlib.contextmanager
def drive_in_process(monkeypatch: pytest.MonkeyPatch | None = None) -> Iterator[None]:
    """Within this block, in this thread (and the threads run in a copy of its context): rounds of
    :data:`DIRECT_SHARDS`. ``monkeypatch``: the round workflow off in the whole process too (the
    local stack's would run the round; in memory, none runs: :class:`croupier.sim.memory.NoWorkflows`)."""
    if monkeypatch is not None:
        monkeypatch.setattr(workflow, "start_round", lambda *args, **kwargs: "")  # the test drives the round
    with config.using(config.settings().model_copy(update={"bet_shards": DIRECT_SHARDS})):
        yield


def device_event(kind: str, detail: dict[str, Any], once: str | None = None, sent_at: int | None = None,
                 ) -> dict[str, Any]:
    """A device event as the dealing function records it (``once``: its scan id, else a fresh
    bus event id; ``sent_at``: the bus event's time, epoch ms); a reader's event numbered as its
    reader numbers it, unless it says."""
    if kind in dealing.READER_EVENTS and "seq" not in detail:
        detail = {**detail, "seq": reader_seq(detail["table_id"], detail["reader_id"], detail.get("scan_id"))}
    return dealing.record(kind, detail, once or detail.get("scan_id") or f"event:{uuid.uuid4().hex}",
                          sent_at=sent_at)


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

    def scan(self, table_id: str, card: str, scan_id: str | None = None, sent_at: int | None = None,
             ) -> dict[str, Any]:
        return device_event("card-scanned", {"table_id": table_id, "reader_id": f"reader-{table_id}",
                                             "scan_id": scan_id or uuid.uuid4().hex[:16], "card": card},
                            sent_at=sent_at)

    def start(self, table_id: str, burn: str | None = None) -> str:
        """Open a round (Pok Deng: ``burn`` is the card burned at its start)."""
        round_id: str = rounds.start_round(table_id).round_id
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
        if store.load_round(round_id).status in ("betting", "closing"):
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
        groups = settlement.shard_groups(store.load_round(round_id))  # the workflow's Map items
        shard_op, finish = ("settle-shard", "finish-settlement") if op == "settle" else ("refund-shard", "finish-void")
        return ([tasks.SettlementTask(op=shard_op, round_id=round_id, shards=g) for g in groups]  # type: ignore[arg-type]
                + [tasks.SettlementTask(op=finish, round_id=round_id)])  # type: ignore[arg-type]

    def run(self, steps: Sequence[tasks.SettlementTask], plan: Plan | None = None) -> None:
        """Each settlement invocation in turn, each retried until it completes (the workflow's Map
        and task Retry)."""
        for step in steps:
            retry_through_crashes(lambda s=step: tasks.run_settlement_task(s), self.faults, plan)
