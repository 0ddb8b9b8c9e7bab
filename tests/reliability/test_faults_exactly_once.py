"""Exactly once under crashes (issue "Trust", item 2).

A Lambda may die between any two of its writes and be run again (the workflow's Retry, the queue's
redelivery, the client's retry with the same Idempotency-Key). Whatever dies where, every bet is
credited exactly once (its payout, or its stake on a void), every debit happens once, and a card
is applied once. The crashes are injected at the DynamoDB client (``tests.support.faults.Faults``): the
planned write commits, then the process "dies"; the invocation is then run again.
"""

from __future__ import annotations

import os
import random
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from croupier.app import config, decisions, settlement, steps, store, supervision, tables, workflow
from croupier.app.engine import rebuild
from croupier.app.errors import StateConflict
from croupier.app.records import RoundRecord
from croupier.cards import ALL_CARDS
from croupier.local.client import ApiError, TableDevices
from croupier.local.dealer import DealerShoe
from tests.support.direct import START, Direct
from tests.support.faults import Crash, Plan, crash_after
from tests.support.figures import FIGURES
from tests.support.harness import TIMERS, Harness, wait_for
from tests.support.money import audit_ok, check_exactly_once, ledger

pytestmark = pytest.mark.reliability

FULL = os.environ.get("CROUPIER_RELIABILITY_FULL") == "1"
"""The default run crashes every write of a Deluxe round's settlement and of its refunds, one
crash per round, and every write of the other games' settlement in one round; set
``CROUPIER_RELIABILITY_FULL=1`` to run the one-crash-per-round matrix for every game and end,
and the workflow's refunds too (about twice as long)."""


# --- rounds ready to settle or to void -------------------------------------------------------


def shuffled_deck(seed: int) -> list[str]:
    """An 8-deck shoe in a fixed random order, less the ace of clubs ``Direct.table`` burns with."""
    cards = [c for c in ALL_CARDS for _ in range(8)]
    cards.remove("AC")
    random.Random(seed).shuffle(cards)
    return cards


class Scenario:
    """Rounds of one game, each with fresh players, played up to settlement (or voided midway)."""

    game = ""
    bets = 0

    def __init__(self, direct: Direct) -> None:
        self.direct = direct
        self.count = 0

    def players(self, *names: str) -> dict[str, str]:
        self.count += 1
        return {n: self.direct.player(n) for n in names}

    def ready(self, end: str) -> tuple[str, dict[str, int]]:
        """A round whose bets are placed and whose play is over (``end="settle"``) or that was
        voided midway (``end="void"``); and every player's balance before it."""
        raise NotImplementedError


class BaccaratRounds(Scenario):
    game, bets = "baccarat", 4

    def __init__(self, direct: Direct) -> None:
        super().__init__(direct)
        self.table = direct.table("baccarat", name="bac")
        self.deck = shuffled_deck(7)

    def ready(self, end: str) -> tuple[str, dict[str, int]]:
        d, p = self.direct, self.players("ana", "ben", "chloe")
        round_id = d.start(self.table)
        d.bet(self.table, p["ana"], [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}])
        d.bet(self.table, p["ben"], [{"type": "player", "amount": 500}])
        d.bet(self.table, p["chloe"], [{"type": "banker", "amount": 1001, "mode": "no-commission"}])
        if end == "void":
            d.play(round_id, self.table, self.deck, until=lambda step: len(store.load_round(round_id).events) >= 2)
            supervision.void(round_id, "misdeal")
        else:
            assert d.play(round_id, self.table, self.deck)["kind"] == "settle"
        return round_id, dict.fromkeys(p.values(), START)


class PokDengRounds(Scenario):
    game, bets = "pok-deng", 5

    def __init__(self, direct: Direct) -> None:
        super().__init__(direct)
        self.table = direct.table("pok-deng", name="pd")
        self.deck = shuffled_deck(11)

    def ready(self, end: str) -> tuple[str, dict[str, int]]:
        d, p = self.direct, self.players("dev", "eli", "fay")
        round_id = d.start(self.table, burn=self.deck.pop(0))
        d.bet(self.table, p["dev"], [{"type": "player-1", "amount": 1000}, {"type": "player-3", "amount": 500}])
        d.bet(self.table, p["eli"], [{"type": "player-2", "amount": 700}, {"type": "player-2-pair", "amount": 100}])
        d.bet(self.table, p["fay"], [{"type": "player-5", "amount": 2000}])
        if end == "void":
            d.play(round_id, self.table, self.deck, until=lambda step: len(store.load_round(round_id).events) >= 3)
            supervision.void(round_id, "misdeal")
        else:
            assert d.play(round_id, self.table, self.deck)["kind"] == "settle"
        return round_id, dict.fromkeys(p.values(), START)


class DeluxeRounds(Scenario):
    """Every kind of money a blackjack round moves: ana splits 8-8 and doubles the first split
    hand, chloe (behind seat 1) follows the split and has a pair bet that wins."""

    game, bets = "deluxe-blackjack", 3
    CARDS = ["8S", "9C", "8D", "TD",  # seat 1, up card, seat 1, hole card
             "3H", "TS", "2S"]  # split hand 1: 8 3 doubled, T (21); split hand 2: 8 2, stands; dealer 19

    def ready(self, end: str) -> tuple[str, dict[str, int]]:
        d, p = self.direct, self.players("ana", "chloe")
        table = d.table(self.game, name="dlx")
        tables.sit(table, 1, p["ana"], "real")
        round_id = d.start(table)
        d.bet(table, p["ana"], [{"type": "seat", "seat": 1, "amount": 1000}])
        d.bet(table, p["chloe"], [{"type": "behind", "seat": 1, "amount": 500},
                                  {"type": "pair", "seat": 1, "amount": 100}])
        decisions = {(1, 0): [(p["ana"], "split"), (p["ana"], "double")], (1, 1): [(p["ana"], "stand")]}
        windows = {"window:follow:1:0:split": [(p["chloe"], 1, "follow-split", True)]}
        until: Callable[[dict[str, Any]], bool] | None = None
        if end == "void":
            until = lambda step: step["key"] == "decision:1:1"  # noqa: E731 - ana has split and doubled
        step = d.play(round_id, table, list(self.CARDS), decisions, windows, until)
        if end == "void":
            assert step["key"] == "decision:1:1"
            supervision.void(round_id, "misdeal")
        else:
            assert step["kind"] == "settle"
        return round_id, dict.fromkeys(p.values(), START)


SCENARIOS: dict[str, type[Scenario]] = {"baccarat": BaccaratRounds, "pok-deng": PokDengRounds,
                                         "deluxe-blackjack": DeluxeRounds}


def _moved(players: dict[str, int]) -> int:
    return sum(len(ledger(p)) for p in players)


# --- settlement and void: a crash after each write in turn -----------------------------------


def open_bets(round_id: str) -> set[str]:
    shards = store.load_round(round_id).shards
    return {b.bet_id for b in store.round_bets(round_id, shards) if b.status == "open"}


def credit_transactions(round_id: str, bets: set[str], closed: bool = True) -> int:
    """The transactions that closed ``bets``: one per settlement task (a group of shards), player
    and kind (settled or refunded), up to ``CREDITS_PER_TRANSACTION`` bets each. With
    ``closed=False``, bets all still open: the transactions they will take (a round settles, or
    refunds, all its bets alike)."""
    rnd = store.load_round(round_id)
    task_of = {shard: i for i, group in enumerate(settlement.shard_groups(rnd)) for shard in group}
    groups = Counter((task_of[b.shard], b.player, b.status)
                     for b in store.round_bets(round_id, rnd.shards) if b.bet_id in bets)
    expected = ("settled", "refunded") if closed else ("open",)
    assert all(status in expected for _, _, status in groups)
    return sum(-(-n // settlement.CREDITS_PER_TRANSACTION) for n in groups.values())


def ready_with_writes(direct: Direct, rounds: Scenario, end: str, n: int) -> tuple[str, dict[str, int]]:
    """A fresh round ready to ``end`` whose settlement (or void) makes at least ``n`` writes. Bets
    go to shards by their random ids and a player's bets in one shard close in one transaction, so
    rounds differ: one with fewer writes is closed cleanly and another is played."""
    for _ in range(30):
        round_id, start = rounds.ready(end)
        if credit_transactions(round_id, open_bets(round_id), closed=False) + 1 >= n:
            return round_id, start
        direct.run(direct.settlement(round_id, end))
    raise AssertionError(f"no {rounds.game} round of 30 makes {n} writes")


@pytest.mark.parametrize("game", ["deluxe-blackjack", *(["baccarat", "pok-deng"] if FULL else [])])
def test_settlement_is_exactly_once_when_it_dies_after_any_of_its_writes(direct: Direct, game: str) -> None:
    rounds = SCENARIOS[game](direct)
    round_id, start = rounds.ready("settle")
    counting = Plan()
    still_open = open_bets(round_id)
    direct.run(direct.settlement(round_id), counting)  # a clean run: how many writes settlement makes
    check_exactly_once(round_id, start)
    writes = counting.writes
    assert len(still_open) == rounds.bets
    assert writes == credit_transactions(round_id, still_open) + 1  # one to finish the round
    for n in range(1, writes + 1):
        round_id, start = ready_with_writes(direct, rounds, "settle", n)
        plan = Plan(at=n)
        direct.run(direct.settlement(round_id), plan)
        FIGURES["crash_scenarios"] += 1
        assert len(plan.crashes) == 1, f"write {n} of {writes} never came"
        assert store.load_round(round_id).status == "settled"
        check_exactly_once(round_id, start)
    audit_ok()


@pytest.mark.parametrize("game", ["deluxe-blackjack", *(["baccarat", "pok-deng"] if FULL else [])])
def test_a_void_refunds_exactly_once_when_it_dies_after_any_of_its_writes(direct: Direct, game: str) -> None:
    rounds = SCENARIOS[game](direct)
    round_id, start = rounds.ready("void")
    counting = Plan()
    still_open = open_bets(round_id)
    direct.run(direct.settlement(round_id, "void"), counting)
    check_exactly_once(round_id, start)
    assert all(store.balance_of(p) == START for p in start)  # every stake back, doubles and splits included
    writes = counting.writes
    assert len(still_open) == rounds.bets
    assert writes == credit_transactions(round_id, still_open) + 1
    for n in range(1, writes + 1):
        round_id, start = ready_with_writes(direct, rounds, "void", n)
        plan = Plan(at=n)
        direct.run(direct.settlement(round_id, "void"), plan)
        FIGURES["crash_scenarios"] += 1
        assert len(plan.crashes) == 1, f"write {n} of {writes} never came"
        assert store.load_round(round_id).status == "voided"
        check_exactly_once(round_id, start)
        assert all(store.balance_of(p) == START for p in start)
    audit_ok()


EVERY_WRITE = ([(game, end) for game in SCENARIOS for end in ("settle", "void")] if FULL else
               [("baccarat", "settle"), ("pok-deng", "settle"), ("pok-deng", "void")])
"""By default the other games (the crash-after-write-N tests above cover both ends of a Deluxe
round, whose settlement and refunds carry every kind of stake)."""


@pytest.mark.parametrize("game,end", EVERY_WRITE)
def test_settlement_and_void_survive_a_crash_after_every_single_write(direct: Direct, game: str, end: str) -> None:
    """Each invocation dies after its first write, every time it runs: the settlement only gets
    through one write per attempt, and still ends exactly once. One settlement thread, so that
    each write is the first of an attempt once (the tests above crash the parallel settlement)."""
    rounds = SCENARIOS[game](direct)
    round_id, start = rounds.ready(end)
    still_open = open_bets(round_id)
    plan = Plan(every=True)
    with config.using(config.settings().model_copy(update={"settlement_workers": 1})):
        direct.run(direct.settlement(round_id, end), plan)
    FIGURES["crash_scenarios"] += 1
    assert len(still_open) == rounds.bets
    assert len(plan.crashes) == credit_transactions(round_id, still_open) + 1
    assert store.load_round(round_id).status == ("settled" if end == "settle" else "voided")
    check_exactly_once(round_id, start)


def test_settlement_run_again_after_it_finished_moves_nothing(direct: Direct) -> None:
    """A retry that comes after the round finished (a timed-out invocation that had in fact
    completed, a redelivered step): every settlement and refund step again, nothing moves."""
    rounds = BaccaratRounds(direct)
    round_id, start = rounds.ready("settle")
    direct.run(direct.settlement(round_id))
    before = _moved(start)
    direct.run(direct.settlement(round_id))
    for task in direct.settlement(round_id, "void")[:-1]:
        with pytest.raises(StateConflict):  # a settled round is never refunded
            settlement.refund_shards(task.round_id, task.shard_list())
    with pytest.raises(StateConflict):
        settlement.finish_void(round_id)
    with pytest.raises(StateConflict):  # nor voided afterwards
        supervision.void(round_id, "too late")
    assert _moved(start) == before
    check_exactly_once(round_id, start)
    voided, vstart = rounds.ready("void")
    direct.run(direct.settlement(voided, "void"))
    before = _moved(vstart)
    direct.run(direct.settlement(voided, "void"))
    with pytest.raises(StateConflict):  # a voided round is never settled
        settlement.settle_shards(voided, [0])
    assert _moved(vstart) == before
    check_exactly_once(voided, vstart)


# --- the real workflow: its Retry recovers a settlement that died midway --------------------


def _view(h: Harness, round_id: str) -> dict[str, Any]:
    view: dict[str, Any] = h.supervisor.get(f"/rounds/{round_id}")
    return view


def _deal_until(h: Harness, devices: TableDevices, shoe: DealerShoe, round_id: str, cards: int | None = None) -> None:
    """The dealer scans cards while the round expects them (or ``cards`` of them)."""
    dealt = 0
    while (cards is None or dealt < cards) and (view := _view(h, round_id))["status"] == "playing":
        if view.get("expected", {}).get("kind") != "card":
            break
        devices.scan(shoe.draw(devices))
        h.dealt(devices)  # the next look must see this card taken
        dealt += 1


def _open_round(h: Harness, table: str, bets: dict[str, list[dict[str, Any]]]) -> str:
    round_id: str = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    for player, wanted in bets.items():
        h.players[player].post(f"/tables/{table}/bets", {"bets": wanted}, idempotent=True)
    wait_for(lambda: _view(h, round_id)["status"] == "playing")
    return round_id


HTTP_TIMERS = {**TIMERS, "countdown": 4}
"""A countdown long enough for players to bet over HTTP on a busy machine (2 shared cores)."""
BACCARAT_BETS = {"ana": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
                 "ben": [{"type": "player", "amount": 500}]}


@pytest.mark.parametrize("end", ["settle", *(["void"] if FULL else [])])
def test_the_workflow_retries_a_settlement_that_died_after_each_write(
        h: Harness, monkeypatch: pytest.MonkeyPatch, end: str) -> None:
    """The deployed path: the settlement function, run by the round's workflow (16 shards), dies
    right after each of its money movements commits, and once more after finishing the round;
    the workflow's Retry runs it again until the round is settled exactly once. (``end="void"``,
    in the full run, does the same to a voided round's refunds through the other Map.)"""
    table = h.table(f"wf-{end}")
    devices, shoe = h.open_devices(table, "baccarat", 31 if end == "settle" else 32, cut_at=300,
                                 rules={"timers": HTTP_TIMERS})
    seen: set[str] = set()

    def first_time(player: str, legs: Any, **kwargs: Any) -> bool:
        # a player's bets that share a shard move in one transaction (ana's two, one time in 16)
        if kwargs.get("kind") not in ("settle", "refund"):
            return False
        ops = {str(leg[0]) for leg in legs if str(leg[0]).startswith("bet:")}
        fresh = bool(ops - seen)
        seen.update(ops)
        return fresh

    crashed = crash_after(monkeypatch, store, "move_money", first_time, times=100)
    finished = crash_after(monkeypatch, store, "write_versioned",
                           lambda items, extra=(): isinstance(items[0][0], RoundRecord)
                           and items[0][0].status in ("settled", "voided"))
    round_id = _open_round(h, table, BACCARAT_BETS)
    if end == "void":
        _deal_until(h, devices, shoe, round_id, cards=2)
        h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "camera feed lost"})
    else:
        _deal_until(h, devices, shoe, round_id)
    final = wait_for(lambda: (v := _view(h, round_id))["status"] in ("settled", "voided") and v, timeout=120)
    assert final["status"] == ("settled" if end == "settle" else "voided")
    FIGURES["crash_scenarios"] += 1
    # every bet's credit died once (in 2 or 3 transactions), and the finish once
    assert len({op.split(":")[1] for op in seen}) == 3 and len(crashed) in (2, 3) and len(finished) == 1
    start = {h.players[p].subject: START for p in BACCARAT_BETS}
    check_exactly_once(round_id, start)
    if end == "void":
        assert all(h.balance(p) == START for p in BACCARAT_BETS)
    audit_ok()


# --- bets: the request died after its transaction -----------------------------------------

ANA_BETS = [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}]


def _bet_debits(player: str) -> list[int]:
    return [int(e["amount"]) for e in ledger(player) if e["kind"] == "bet"]


def _bet_that_dies(direct: Direct, table: str, player: str, key: str) -> None:
    plan = Plan(at=1)  # place_bets writes once: bets, request summary and debit in one transaction
    with pytest.raises(Crash), direct.faults.armed(plan):
        direct.bet(table, player, ANA_BETS, key)
    assert plan.crashes == ["TransactWriteItems"]
    FIGURES["crash_scenarios"] += 1


def test_a_bet_request_that_died_after_its_transaction_debits_once_when_retried(direct: Direct) -> None:
    table = direct.table("baccarat")
    ana = direct.player("ana")
    round_id = direct.start(table)
    key = uuid.uuid4().hex
    _bet_that_dies(direct, table, ana, key)
    assert store.balance_of(ana) == START - 1100  # it did commit
    again = direct.bet(table, ana, ANA_BETS, key)  # the client retries with the same Idempotency-Key
    assert again["replayed"] is True
    assert sorted(b["amount"] for b in again["bets"]) == [100, 1000]
    assert _bet_debits(ana) == [-1000, -100] and store.balance_of(ana) == START - 1100
    direct.play(round_id, table, ["9S", "8H", "KD", "KC"])
    direct.run(direct.settlement(round_id))
    check_exactly_once(round_id, {ana: START})


def test_a_bet_retried_after_betting_closed_answers_the_bets_it_placed(direct: Direct) -> None:
    """The first attempt was accepted (and debited) just before the countdown ended, then died;
    the retry comes after the close. The bets are in the round: the retry must say so, not
    "betting closed" (the player would believe a debited bet was refused)."""
    table = direct.table("baccarat")
    ana = direct.player("ana")
    round_id = direct.start(table)
    key = uuid.uuid4().hex
    _bet_that_dies(direct, table, ana, key)
    steps.close_betting(round_id)
    again = direct.bet(table, ana, ANA_BETS, key)
    assert again["replayed"] is True and again["round_id"] == round_id
    assert _bet_debits(ana) == [-1000, -100]


def test_a_bet_retried_once_the_next_round_opened_is_not_placed_again(direct: Direct) -> None:
    """A retry that arrives after its round is over and the next one is open (a client backing
    off, a request whose first attempt stayed "in progress" until it expired) is the same
    request: it must not become a second bet, and a second debit, in the new round."""
    table = direct.table("baccarat")
    ana = direct.player("ana")
    first = direct.start(table)
    key = uuid.uuid4().hex
    _bet_that_dies(direct, table, ana, key)
    direct.play(first, table, ["9S", "8H", "KD", "KC"])
    direct.run(direct.settlement(first))
    second = direct.start(table)
    again = direct.bet(table, ana, ANA_BETS, key)
    assert again["round_id"] == first and again["replayed"] is True
    assert _bet_debits(ana) == [-1000, -100]
    assert store.round_bets(second, store.load_round(second).shards) == []
    check_exactly_once(first, {ana: START})


def test_a_bet_over_http_that_died_after_its_transaction_debits_once(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the API (Powertools idempotency in front): the bet function dies after its
    transaction (502); the client retries with the same Idempotency-Key: the same bets, one debit."""
    table = h.table("betcrash")
    devices, shoe = h.open_devices(table, "baccarat", 33, cut_at=300, rules={"timers": HTTP_TIMERS})
    shoe.prepare(["9S", "8H", "KD", "KC"])
    ana = h.players["ana"]
    crashed = crash_after(monkeypatch, store, "move_money",
                          lambda player, legs, **kw: kw.get("kind") == "bet" and player == ana.subject)
    round_id: str = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    key = uuid.uuid4().hex
    with pytest.raises(ApiError) as died:
        ana.post(f"/tables/{table}/bets", {"bets": ANA_BETS}, key=key)
    assert died.value.status == 502 and crashed
    FIGURES["crash_scenarios"] += 1
    assert h.balance("ana") == START - 1100
    first = ana.post(f"/tables/{table}/bets", {"bets": ANA_BETS}, key=key)
    second = ana.post(f"/tables/{table}/bets", {"bets": ANA_BETS}, key=key)  # and once more: Powertools' answer
    assert first["bets"] == second["bets"] and len(first["bets"]) == 2
    assert h.balance("ana") == START - 1100
    wait_for(lambda: _view(h, round_id)["status"] == "playing")
    _deal_until(h, devices, shoe, round_id)
    wait_for(lambda: _view(h, round_id)["status"] == "settled")
    check_exactly_once(round_id, {ana.subject: START})


# --- decisions that move money -------------------------------------------------------------


def _decide_and_die(direct: Direct, round_id: str, player: str, action: str, key: str) -> None:
    plan = Plan(at=1)  # the decision's one write: the round (and the debit) in one transaction
    with pytest.raises(Crash), direct.faults.armed(plan):
        decisions.decide(round_id, player, 1, action, idempotency_key=key)
    assert plan.crashes == ["TransactWriteItems"]
    FIGURES["crash_scenarios"] += 1


def test_a_decision_that_died_after_it_was_applied_is_applied_once_when_retried(direct: Direct) -> None:
    """ana splits 8-8, doubles the first hand, hits the second: each request dies right after
    its write, and the client retries each with its Idempotency-Key (at once, and again once the
    round moved on to the next hand): one split, one double, one hit."""
    table = direct.table("deluxe-blackjack")
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    round_id = direct.start(table)
    direct.bet(table, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    cards = ["8S", "9C", "8D", "TD"]
    assert direct.play(round_id, table, cards, until=lambda step: step["kind"] == "decision")["key"] == "decision:1:0"
    split, double, hit = (uuid.uuid4().hex for _ in range(3))
    _decide_and_die(direct, round_id, ana, "split", split)
    decisions.decide(round_id, ana, 1, "split", idempotency_key=split)  # retried at once
    direct.scan(table, "3H")  # the first split hand's second card: 8 3
    assert steps.advance(round_id)["key"] == "decision:1:0"
    _decide_and_die(direct, round_id, ana, "double", double)
    decisions.decide(round_id, ana, 1, "double", idempotency_key=double)  # retried at once
    direct.scan(table, "TS")  # the doubled hand's one card
    direct.scan(table, "2S")  # the second split hand: 8 2
    assert steps.advance(round_id)["key"] == "decision:1:1"
    decisions.decide(round_id, ana, 1, "double", idempotency_key=double)  # retried late: hand 2 now decides
    _decide_and_die(direct, round_id, ana, "hit", hit)
    direct.scan(table, "5H")  # 8 2 5
    assert steps.advance(round_id)["key"] == "decision:1:1"
    decisions.decide(round_id, ana, 1, "hit", idempotency_key=hit)  # retried late: must not hit again
    decisions.decide(round_id, ana, 1, "stand", idempotency_key=uuid.uuid4().hex)
    assert steps.advance(round_id)["kind"] == "settle"
    hands = rebuild(store.load_round(round_id)).view(reveal_hidden=True)["seats"]["1"]["hands"]
    assert [h["cards"] for h in hands] == [["8S", "3H", "TS"], ["8D", "2S", "5H"]]
    assert [bool(h.get("doubled")) for h in hands] == [True, False]
    debits = [int(e["amount"]) for e in ledger(ana) if int(e["amount"]) < 0]
    assert sorted(debits) == [-1000, -1000, -1000]  # the seat bet, the split, the double: once each
    direct.run(direct.settlement(round_id))
    check_exactly_once(round_id, {ana: START})


def _double_round(h: Harness, name: str, seed: int) -> tuple[TableDevices, DealerShoe, str]:
    """A Deluxe round where ana (seat 1) has 11 against a 9 and must decide; the hole card is a
    10 and the next card a 9: double, 20 wins. The decision timer is far longer than the test's
    waits: the round must go on without it."""
    table = h.table(name)
    devices, shoe = h.open_devices(table, "deluxe-blackjack", seed, cut_at=300, scan_burn=False,
                                 rules={"timers": {**HTTP_TIMERS, "decision": 600}})
    h.players["ana"].call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["6S", "9C", "5D", "TD", "9H"])
    round_id = _open_round(h, table, {"ana": [{"type": "seat", "seat": 1, "amount": 1000}]})
    _deal_until(h, devices, shoe, round_id)
    # the decision is due and the workflow waits for it (its token on the round): the double's
    # function is the one that wakes it (a player answering before that is woken by the wait itself)
    wait_for(lambda: _view(h, round_id)["expected"]["kind"] == "decision" and _waits(round_id))
    return devices, shoe, round_id


def _wake_of(round_id: str, armed: dict[str, bool]) -> Callable[[str | None], bool]:
    """When to crash ``workflow.resume``: while armed, on the wake of this round's workflow only (the
    token the round's write took). Other rounds of the session wake their own workflows meanwhile
    (their timers, their countdowns): a crash must not fire on one of theirs instead."""
    return lambda token: armed["on"] and bool(token) and token == store.load_round(round_id).woken_token


def _dies(request: Callable[[], Any], round_id: str) -> ApiError:
    """The request must die (a 5xx, raised as :class:`ApiError`). If it is answered instead, the
    failure shows the answer and what the round holds (in full runs, a crash injected after
    ``store.move_money`` sometimes did not fire: the double was applied and answered normally)."""
    try:
        answer = request()
    except ApiError as exc:
        return exc
    rnd = store.load_round(round_id)
    pytest.fail(f"answered instead of dying: {answer}; round events {rnd.events}, balances "
                f"{rnd.balances}, decision keys {rnd.decision_keys}, version {rnd.version}")


def _double_wins(h: Harness, devices: TableDevices, shoe: DealerShoe, round_id: str) -> None:
    _deal_until(h, devices, shoe, round_id)
    final = wait_for(lambda: (v := _view(h, round_id))["status"] == "settled" and v, timeout=60)
    assert final["result"]["seat-1"]["cards"] == ["6S", "5D", "9H"]
    check_exactly_once(round_id, {h.players["ana"].subject: START})
    assert h.balance("ana") == START + 2000


def test_a_double_over_http_that_died_after_its_debit_is_debited_once(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The double's transaction is written, then the function dies before it wakes the workflow:
    the retry is answered from the round, debits nothing, and wakes the workflow with the token the
    first attempt took (before any card: the workflow registers its next wait)."""
    devices, shoe, round_id = _double_round(h, "dblcrash", 34)
    ana = h.players["ana"]
    armed = {"on": True}  # the decision's transaction (the debit) is written; the function dies before its wake
    crashed = crash_after(monkeypatch, workflow, "resume", _wake_of(round_id, armed), before=True)
    key = uuid.uuid4().hex
    died = _dies(lambda: ana.post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "double"}, key=key),
                 round_id)
    assert died.status == 502 and crashed
    armed["on"] = False
    assert h.balance("ana") == START - 2000  # the seat bet and the double, debited once each
    FIGURES["crash_scenarios"] += 1
    retried = ana.post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "double"}, key=key)
    assert retried["cost"] in (0, 1000)
    assert h.balance("ana") == START - 2000
    wait_for(lambda: _waits(round_id))
    _double_wins(h, devices, shoe, round_id)


def test_a_double_that_died_before_its_wake_is_made_good_by_the_next_card(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """No retry this time: the double is applied and debited, its function dies before the wake,
    and the dealer's next card wakes the workflow with the token the double took."""
    devices, shoe, round_id = _double_round(h, "dblnoretry", 41)
    armed = {"on": True}
    crashed = crash_after(monkeypatch, workflow, "resume", _wake_of(round_id, armed), before=True)
    with pytest.raises(ApiError) as died:
        h.players["ana"].post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "double"}, idempotent=True)
    assert died.value.status == 502 and crashed
    armed["on"] = False
    FIGURES["crash_scenarios"] += 1
    assert h.balance("ana") == START - 2000 and not _waits(round_id)
    _double_wins(h, devices, shoe, round_id)


# --- supervisor requests that died before they woke the workflow ----------------------------


def _waits(round_id: str) -> bool:
    """The workflow has registered its wait (its task token is on the round)."""
    return bool(store.load_round(round_id).wait_token)


def _supervisor_dies_before_the_wake(h: Harness, monkeypatch: pytest.MonkeyPatch, round_id: str, action: str,
                                     body: dict[str, Any], refusal: str) -> None:
    """The supervisor's ``action`` is written, then its function dies before it wakes the
    workflow (a 502); the retry is refused (the round already is what was asked) and wakes it."""
    armed = {"on": True}
    crashed = crash_after(monkeypatch, workflow, "resume", _wake_of(round_id, armed), before=True)
    with pytest.raises(ApiError) as died:
        h.supervisor.post(f"/rounds/{round_id}/{action}", body)
    assert died.value.status == 502 and crashed
    armed["on"] = False
    FIGURES["crash_scenarios"] += 1
    with pytest.raises(ApiError) as retried:
        h.supervisor.post(f"/rounds/{round_id}/{action}", body)
    assert retried.value.status == 409 and retried.value.reason == refusal


def test_a_resume_that_died_before_it_woke_the_round_is_made_good_by_its_retry(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The paused round's workflow waits for the pause timer (600 s here): only the retried resume
    can wake it in time to deal and settle the round."""
    table = h.table("resumecrash")
    devices, shoe = h.open_devices(table, "baccarat", 39, cut_at=300,
                                 rules={"timers": {**HTTP_TIMERS, "pause_void": 600}})
    shoe.prepare(["9S", "8H", "KD", "KC"])
    round_id = _open_round(h, table, {"ana": [{"type": "player", "amount": 500}]})
    devices.scan(shoe.draw(devices))
    h.dealt(devices)
    h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "table inspection"})
    wait_for(lambda: _waits(round_id) and store.load_round(round_id).paused)
    _supervisor_dies_before_the_wake(h, monkeypatch, round_id, "resume", {}, "not-paused")
    wait_for(lambda: _waits(round_id))  # woken by the retry, before any card
    _deal_until(h, devices, shoe, round_id)
    final = wait_for(lambda: (v := _view(h, round_id))["status"] == "settled" and v, timeout=30)
    assert final["result"]["player"]["cards"] == ["9S", "KD"]
    assert h.balance("ana") == START + 500
    check_exactly_once(round_id, {h.players["ana"].subject: START})


def test_a_void_that_died_before_it_woke_the_round_is_made_good_by_its_retry(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workflow waits for a card (card timer 600 s): only the retried void can wake it in time
    to refund the round."""
    table = h.table("voidcrash")
    devices, shoe = h.open_devices(table, "baccarat", 40, cut_at=300,
                                 rules={"timers": {**HTTP_TIMERS, "pause_void": 600}})
    round_id = _open_round(h, table, BACCARAT_BETS)
    _deal_until(h, devices, shoe, round_id, cards=2)
    wait_for(lambda: _waits(round_id))  # for the third card
    _supervisor_dies_before_the_wake(h, monkeypatch, round_id, "void", {"reason": "camera feed lost"},
                                     "not-voidable")
    final = wait_for(lambda: (v := _view(h, round_id))["status"] in ("settled", "voided") and v, timeout=30)
    assert final["status"] == "voided"
    assert all(h.balance(p) == START for p in BACCARAT_BETS)
    check_exactly_once(round_id, {h.players[p].subject: START for p in BACCARAT_BETS})


# --- card events: duplicates, late and out of order; a dealing function that died ----------


def test_card_events_delivered_twice_late_or_out_of_order_are_applied_once(h: Harness) -> None:
    """Through the bus and the queue: a scan delivered twice at once, older scans delivered again
    after newer ones, and every scan again once the round settled: each card is applied once."""
    table = h.table("dupcards")
    devices, shoe = h.open_devices(table, "baccarat", 35, cut_at=300, rules={"timers": HTTP_TIMERS})
    shoe.prepare(["9S", "8H", "KD", "KC"])  # naturals: four cards
    drawn = lambda: h.operator.get(f"/tables/{table}")["shoe"]["cards_drawn"]  # noqa: E731
    round_id = _open_round(h, table, {"ana": [{"type": "player", "amount": 500}]})
    scans = [devices.scan(shoe.draw(devices))]
    devices.scan("9S", scan_id=scans[0])  # delivered twice at once
    scans += [devices.scan(shoe.draw(devices)), devices.scan(shoe.draw(devices))]
    devices.scan("8H", scan_id=scans[1])  # older scans again, newest first (out of order)
    devices.scan("9S", scan_id=scans[0])
    h.dealt(devices)
    view = _view(h, round_id)
    assert view["hands"]["player"]["cards"] == ["9S", "KD"] and view["hands"]["banker"]["cards"] == ["8H"]
    assert view["paused"] is False
    scans.append(devices.scan(shoe.draw(devices)))
    final = wait_for(lambda: (v := _view(h, round_id))["status"] == "settled" and v)
    before = drawn()
    for scan_id, card in zip(scans, ["9S", "8H", "KD", "KC"], strict=True):  # late: the round is over
        devices.scan(card, scan_id=scan_id)
    h.dealt(devices)
    FIGURES["duplicate_deliveries"] += 7
    assert drawn() == before
    assert _view(h, round_id)["result"] == final["result"]
    assert h.balance("ana") == START + 500
    check_exactly_once(round_id, {h.players["ana"].subject: START})


def test_a_card_delivered_again_during_a_decision_or_into_the_next_round_changes_nothing(direct: Direct) -> None:
    """At-least-once delivery: scans delivered again while the round waits for a decision (no card
    is expected: a duplicate must not be taken for "a card nobody expects", which pauses the
    round), and again when the next round of the table waits for its first cards."""
    table = direct.table("deluxe-blackjack")
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    first = direct.start(table)
    direct.bet(table, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    steps.close_betting(first)
    scans = [(uuid.uuid4().hex[:16], card) for card in ("TS", "9C", "7D", "TD")]  # 17 against 9, hole 10
    for scan_id, card in scans:
        direct.scan(table, card, scan_id)
    assert steps.advance(first)["key"] == "decision:1:0"
    for scan_id, card in reversed(scans):
        assert direct.scan(table, card, scan_id)["recorded"] == "duplicate"
    rnd = store.load_round(first)
    assert rnd.paused is False, rnd.pause_reason
    assert [e["card"] for e in rnd.events] == ["TS", "9C", "7D", "TD"]
    decisions.decide(first, ana, 1, "stand", idempotency_key=uuid.uuid4().hex)
    assert steps.advance(first)["kind"] == "settle"
    direct.run(direct.settlement(first))
    second = direct.start(table)
    direct.bet(table, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    assert steps.close_betting(second)["kind"] == "card"
    for scan_id, card in scans:
        assert direct.scan(table, card, scan_id)["recorded"] == "duplicate"
    rnd = store.load_round(second)
    assert rnd.events == [] and rnd.paused is False
    FIGURES["duplicate_deliveries"] += 8
    assert direct.play(second, table, ["TH", "9D", "TC", "8C"], {(1, 0): [(ana, "stand")]})["kind"] == "settle"
    direct.run(direct.settlement(second))
    check_exactly_once(first, {ana: START}, balances=False)
    check_exactly_once(second, {ana: START}, balances=False)
    assert store.balance_of(ana) == START - 1000 + 1000  # 17 lost to 19, then 20 beat 18


def _last_card_dies(h: Harness, monkeypatch: pytest.MonkeyPatch, name: str, seed: int,
                    pause_void: int) -> tuple[TableDevices, str, str]:
    """A Baccarat round whose last card (KC) is applied by a dealing function that then dies
    before it wakes the workflow (the cards before it leave the workflow asleep in its card wait:
    the round still waits for a card). Returns the devices, the round and the dead delivery's scan
    id."""
    table = h.table(name)
    devices, shoe = h.open_devices(table, "baccarat", seed, cut_at=300,
                                 rules={"timers": {**HTTP_TIMERS, "pause_void": pause_void}})
    shoe.prepare(["9S", "8H", "KD", "KC"])
    armed = {"on": False}
    round_id = _open_round(h, table, {"ana": [{"type": "player", "amount": 500}]})
    crashed = crash_after(monkeypatch, workflow, "resume", _wake_of(round_id, armed), before=True)
    devices.scan(shoe.draw(devices))
    devices.scan(shoe.draw(devices))
    # both cards applied and the workflow waiting for the next: it sleeps through the third
    wait_for(lambda: _view(h, round_id)["hands"]["banker"]["cards"] == ["8H"] and _waits(round_id))
    devices.scan(shoe.draw(devices))
    wait_for(lambda: _view(h, round_id)["hands"]["player"]["cards"] == ["9S", "KD"])
    armed["on"] = True
    scan_id = devices.scan(shoe.draw(devices))  # the round needs the workflow now: applied, then the function dies
    wait_for(lambda: bool(crashed))
    armed["on"] = False
    FIGURES["crash_scenarios"] += 1
    return devices, round_id, scan_id


def _settles(h: Harness, round_id: str, timeout: float) -> None:
    final = wait_for(lambda: (v := _view(h, round_id))["status"] in ("settled", "voided") and v, timeout=timeout)
    assert final["status"] == "settled", final
    assert final["result"]["player"]["cards"] == ["9S", "KD"]
    assert h.balance("ana") == START + 500


def test_the_redelivered_event_of_a_dealing_function_that_died_wakes_the_round(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """As below, with the card timer at its longest: the workflow is woken by the redelivery of the
    event whose function died (a duplicate, applied nothing), not by a timer ten minutes later."""
    devices, round_id, scan_id = _last_card_dies(h, monkeypatch, "deadwake", 38, pause_void=600)
    devices.scan("KC", scan_id=scan_id)  # the same event delivered again: a duplicate
    _settles(h, round_id, timeout=30)


def test_a_card_applied_by_a_dealing_function_that_then_died_does_not_stall_the_round(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dealing function applies the round's last card and dies before it wakes the workflow;
    nothing is delivered again. The workflow, never woken, waits for its card timer: when it runs
    out the round must go on (the card is there), not be paused as if no card had come (and then
    voided)."""
    _, round_id, _ = _last_card_dies(h, monkeypatch, "deadcard", 37, pause_void=5)
    _settles(h, round_id, timeout=60)
