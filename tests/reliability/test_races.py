"""Races (issue "Trust", item 3).

Requests that reach the service at the same moment, as they would from many Lambda execution
environments at once (the local stack's API runs one invocation per function at a time, so these
tests call ``croupier.app.service`` from threads, each with its own DynamoDB client, released
together by a barrier): one wallet never overdraws, one seat gets one player, one hand takes one
decision, and a bet racing the end of the countdown is in the round or refused, never lost.
"""

from __future__ import annotations

import contextvars
import random
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError

from croupier.app import api, bets, decisions, queries, steps, store, supervision, tables
from croupier.app.errors import Funds, StateConflict
from croupier.app.identity import Identity
from croupier.app.records import LAST_BET_MS, bets_until
from croupier.errors import CroupierError
from croupier.sim.memory import InMemory
from tests.support.direct import START, Direct
from tests.support.faults import Lockstep
from tests.support.figures import FIGURES
from tests.support.harness import TIMERS, Harness, wait_for
from tests.support.money import audit_ok, check_exactly_once, ledger
from tests.support.patching import in_this_thread

pytestmark = pytest.mark.reliability

_clients = threading.Lock()


def _own_client() -> None:
    """This thread's DynamoDB client, created one thread at a time (boto3's default session,
    which creates them, is not thread-safe; the clients are)."""
    with _clients:
        store.client()


def race(calls: list[Callable[[], Any]]) -> list[tuple[str, Any]]:
    """Run ``calls`` at the same moment, one thread each. Each outcome is ``("ok", result)`` or
    ``("refused", error)`` for a domain refusal (or a write that kept losing its race: "try
    again"); anything else fails the test."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], Any]) -> tuple[str, Any]:
        _own_client()
        barrier.wait()
        try:
            return "ok", call()
        except (CroupierError, store.Conflict) as exc:
            return "refused", exc

    contexts = [contextvars.copy_context() for _ in calls]  # each thread reaches the test's AWS
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        outcomes = list(pool.map(lambda context, call: context.run(run, call), contexts, calls))
    FIGURES["concurrent_requests"] += len(calls)
    return outcomes


def _keys_moved(player: str) -> list[str]:
    """The idempotency key of every bet debit and withdrawal in the player's ledger."""
    keys = []
    for entry in ledger(player):
        op = entry["op"]
        if entry["kind"] == "bet":
            keys.append(op.rsplit(":stake:", 1)[1])
        elif entry["kind"] == "withdrawal":
            keys.append(op.split(":", 1)[1])
    return keys


# --- one wallet ------------------------------------------------------------------------------


def test_thirty_concurrent_requests_on_one_wallet_never_overdraw_it(direct: Direct) -> None:
    """30 requests at once on a wallet of 10,000: 25 bets (700 to 2,100 each, on two tables'
    rounds, several adding to the same bet) and 5 withdrawals. Only some fit: what is debited never
    exceeds the balance, each accepted request moved its amount once, each refused one nothing,
    and a request refused for funds was refused because the balance really was short."""
    funded = 10_000
    ana = direct.player("ana", funded)
    # betting stays open for the whole race: a refusal here is for the wallet's sake, not the clock's
    tables = [direct.table("baccarat", {"timers": {**TIMERS, "countdown": 120}}, name=f"w{i}") for i in range(2)]
    rounds = [direct.start(t) for t in tables]
    rng = random.Random(3)
    plan: list[tuple[str, str, int, str, str]] = []  # (kind, key, amount, table, bet type)
    for i in range(30):
        key = f"k{i:02d}-{uuid.uuid4().hex[:6]}"
        amount = rng.choice([700, 900, 1300, 1700, 2100])
        table = tables[i % 2]
        plan.append(("withdrawal" if i % 6 == 5 else "bet", key, amount, table, rng.choice(["player", "banker"])))

    def call(kind: str, key: str, amount: int, table: str, bet_type: str) -> Callable[[], Any]:
        if kind == "withdrawal":
            return lambda: queries.move(ana, -amount, "withdrawal", key, "race")
        return lambda: direct.bet(table, ana, [{"type": bet_type, "amount": amount}], key)

    outcomes = race([call(*p) for p in plan])
    accepted = [p for p, (status, _) in zip(plan, outcomes, strict=True) if status == "ok"]
    refused = [(p, err) for p, (status, err) in zip(plan, outcomes, strict=True) if status == "refused"]
    final = store.balance_of(ana)
    debited = sum(p[2] for p in accepted)
    assert accepted and refused, "the amounts are chosen so that only some requests fit"
    assert 0 <= final == funded - debited
    assert sorted(_keys_moved(ana)) == sorted(p[1] for p in accepted)  # accepted once each, refused never
    for p, err in refused:
        short = isinstance(err, Funds) or getattr(err, "reason", "") == "insufficient-balance"
        busy = isinstance(err, store.Conflict) or (isinstance(err, StateConflict) and err.reason == "busy")
        assert short or busy, err
        if short:  # the balance only went down: it is still short of what was refused
            assert final < p[2], f"{p[1]} was refused for funds but {p[2]} still fits in {final}"
    for round_id, table in zip(rounds, tables, strict=True):  # each round holds what was accepted for it
        want: dict[str, int] = defaultdict(int)
        for kind, _, amount, t, bet_type in accepted:
            if kind == "bet" and t == table:
                want[bet_type] += amount
        bets = store.round_bets(round_id, store.load_round(round_id).shards)
        assert {b.bet.type: b.taken for b in bets} == dict(want)
    for round_id in rounds:  # void them: every stake comes back, exactly once
        steps.close_betting(round_id)
        supervision.void(round_id, "test over")
        direct.run(direct.settlement(round_id, "void"))
        check_exactly_once(round_id, {ana: funded}, balances=False)
    withdrawn = sum(p[2] for p in accepted if p[0] == "withdrawal")
    assert store.balance_of(ana) == funded - withdrawn
    audit_ok()


# --- one seat, one hand ----------------------------------------------------------------------


def test_players_racing_for_one_seat_exactly_one_sits(direct: Direct) -> None:
    table = direct.table("deluxe-blackjack", name="seats")
    for seat in range(1, 8):
        racers = [direct.player(f"p{seat}x{i}") for i in range(2 + seat % 3)]  # 2 to 4 players per seat
        outcomes = race([lambda p=p, s=seat: tables.sit(table, s, p, "real") for p in racers])
        winners = [p for p, (status, _) in zip(racers, outcomes, strict=True) if status == "ok"]
        assert len(winners) == 1, outcomes
        for status, err in outcomes:
            if status == "refused":
                assert err.reason in ("seat-taken", "busy"), err
        assert store.load_table(table).seats[str(seat)]["player"] == winners[0]


def test_cards_dealt_before_the_workflow_keeps_its_card_wait_leave_it_asleep_until_the_round_needs_more(
        direct: Direct, memory: InMemory) -> None:
    """The dealer does not wait for the workflow: a card comes between its "what next?" (a card)
    and its card wait being kept. The wait is kept all the same while the round still waits for
    a card, and the workflow sleeps on; once the round needs something else, the wait is refused
    and the workflow woken at once."""
    table = direct.table("baccarat", name="card-wait")
    ana = direct.player("ana")
    round_id = direct.start(table)
    direct.bet(table, ana, [{"type": "player", "amount": 100}])
    asked = steps.close_betting(round_id)
    assert (asked["kind"], asked["key"]) == ("card", "card:player")
    # WHEN the first card comes before the wait is kept
    direct.scan(table, "4H")
    assert store.load_round(round_id).version != asked["version"]
    kept = steps.register_wait(round_id, asked["version"], "token-1")
    # THEN the wait is kept, for the card the round waits for now, and nobody woke the workflow
    rnd = store.load_round(round_id)
    assert kept == {"registered": True} and rnd.wait_token == "token-1" and rnd.expect_key == "card:banker"
    assert steps.register_wait(round_id, asked["version"], "token-1") == {"registered": True}  # run again
    assert memory.sfn.woken == []
    # WHEN the rest of the cards come (Player 9, Banker 5: no third card) before a second wait is kept
    asked = steps.advance(round_id)
    for card in ("2C", "5D", "3S"):
        direct.scan(table, card)
    # THEN that wait is refused and its workflow woken: the round is to be settled
    assert steps.register_wait(round_id, asked["version"], "token-2") == {"registered": False}
    assert memory.sfn.woken[-1:] == ["token-2"] and steps.advance(round_id)["kind"] == "settle"


def _blackjack_decision(direct: Direct, name: str) -> tuple[str, str, str]:
    """A Deluxe round where ana (seat 1) holds 6 5 against a 9 (hole card 10) and must decide."""
    table = direct.table("deluxe-blackjack", name=name)
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    round_id = direct.start(table)
    direct.bet(table, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    step = direct.play(round_id, table, ["6S", "9C", "5D", "TD"], until=lambda s: s["kind"] == "decision")
    assert step["key"] == "decision:1:0"
    return table, ana, round_id


def test_a_hit_made_before_the_workflow_keeps_its_decision_wait_leaves_it_asleep_for_the_card(
        direct: Direct, memory: InMemory) -> None:
    """The player does not wait for the workflow either: a hit made between its "what next?" (a
    decision) and its wait being kept. The round waits for the hit's card, and the wait is kept as
    the card's: nobody wakes the workflow for it."""
    _, ana, round_id = _blackjack_decision(direct, "hit-wait")
    asked = steps.advance(round_id)
    assert asked["kind"] == "decision"
    decisions.decide(round_id, ana, 1, "hit", idempotency_key=uuid.uuid4().hex)
    woken = list(memory.sfn.woken)
    assert steps.register_wait(round_id, asked["version"], "token-hit") == {"registered": True}
    rnd = store.load_round(round_id)
    assert rnd.wait_token == "token-hit" and str(rnd.expect_key).startswith("card:")
    assert memory.sfn.woken == woken


def test_a_late_decision_timer_never_plays_the_hands_next_decision(direct: Direct) -> None:
    """The timer of a decision the player answered (its wake-up was lost, so it ran out anyway)
    fires after the hit's card, when the same hand decides again under the same key: it is
    stale and plays nothing; the new decision's own timer still does."""
    table, ana, round_id = _blackjack_decision(direct, "late-timer")
    first = steps.advance(round_id)
    decisions.decide(round_id, ana, 1, "hit", idempotency_key=uuid.uuid4().hex)
    again = direct.play(round_id, table, ["2H"], until=lambda s: s["kind"] == "decision")
    assert (again["key"], first["key"]) == ("decision:1:0", "decision:1:0") and again["seq"] != first["seq"]
    events = list(store.load_round(round_id).events)
    assert steps.decision_timeout(round_id, first["key"], first["seq"])["key"] == "decision:1:0"
    assert store.load_round(round_id).events == events  # the stale timer played nothing
    steps.decision_timeout(round_id, again["key"], again["seq"])
    assert store.load_round(round_id).events[len(events):] == [{"action": {"seat": 1, "action": "timeout"}}]


@pytest.mark.parametrize("first,second", [("double", "double"), ("double", "hit"), ("hit", "stand"),
                                          ("double", "timer")])
def test_two_decisions_racing_on_one_hand_exactly_one_applies(direct: Direct, first: str, second: str) -> None:
    """Two devices of one player (or the player and the decision timer) act on the same hand at
    the same moment: one decision is applied, the other refused; one debit if a double won."""
    table, ana, round_id = _blackjack_decision(direct, f"{first}-{second}")
    before = len(store.load_round(round_id).events)

    def act(action: str) -> Callable[[], Any]:
        if action == "timer":
            return lambda: steps.decision_timeout(round_id, "decision:1:0")
        return lambda: decisions.decide(round_id, ana, 1, action, idempotency_key=uuid.uuid4().hex)

    outcomes = race([act(first), act(second)])
    events = store.load_round(round_id).events[before:]
    actions = [e["action"]["action"] for e in events if "action" in e]
    assert len(actions) == 1, events
    if second == "timer":
        assert (outcomes[0][0] == "ok") == (actions == ["double"])
    elif first != second:
        assert [status for status, _ in outcomes].count("ok") == 1, outcomes
        assert next(r for status, r in outcomes if status == "ok")["applied"]["action"]["action"] == actions[0]
    else:
        # The same decision twice at once: one is applied; the other is refused, or (both computed
        # the same money movement, whose marker the first wrote) answered as that same decision.
        assert all(r["applied"]["action"]["action"] == first for status, r in outcomes if status == "ok"), outcomes
    doubles = [int(e["amount"]) for e in ledger(ana) if e["kind"] == "double"]
    assert doubles == ([-1000] if actions == ["double"] else [])
    step = direct.play(round_id, table, ["9H", "2C", "3C", "4C"],
                       decisions={(1, 0): [(ana, "stand")] * 3})
    assert step["kind"] == "settle"
    direct.run(direct.settlement(round_id))
    check_exactly_once(round_id, {ana: START})


# --- settlement racing itself, a void racing the settlement ----------------------------------


def test_concurrent_runs_of_a_settlement_credit_each_bet_once(direct: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step run twice at once (a retry started while the first, slow, attempt still runs): three
    copies of the whole settlement race, in lockstep (each has read a bet as open and its credit
    as not done before any of them writes); every bet is credited once."""
    table = direct.table("baccarat", name="dup")
    players = {n: direct.player(n) for n in ("ana", "ben", "chloe")}
    round_id = direct.start(table)
    for i, (name, player) in enumerate(players.items()):
        direct.bet(table, player, [{"type": ["banker", "player", "tie"][i], "amount": 1000 + i},
                                   {"type": "player-pair", "amount": 100}])
        assert name
    direct.play(round_id, table, ["9S", "8H", "KD", "KC"])
    Lockstep(3).install(monkeypatch, frozenset({"TransactWriteItems"}))
    race([lambda: direct.run(direct.settlement(round_id)) for _ in range(3)])
    assert store.load_round(round_id).status == "settled"
    check_exactly_once(round_id, dict.fromkeys(players.values(), START))


def test_a_void_racing_the_settlement_either_voids_or_settles_never_both(direct: Direct) -> None:
    """The supervisor voids as the last card makes the round settle: either the void wins (every
    stake back) or the settlement does (the void is refused); never a bit of each."""
    table = direct.table("baccarat", name="voidrace")
    for trial in range(3):
        ana, ben = direct.player(f"ana{trial}"), direct.player(f"ben{trial}")
        round_id = direct.start(table)
        direct.bet(table, ana, [{"type": "banker", "amount": 1000}])
        direct.bet(table, ben, [{"type": "player", "amount": 700}])
        direct.play(round_id, table, ["9S", "8H", "KD"],
                    until=lambda step, r=round_id: len(store.load_round(r).events) == 3)
        direct.scan(table, "KC")  # the last card: the round settles at its next step
        raced = race([lambda r=round_id: steps.advance(r), lambda r=round_id: supervision.void(r, "race")])
        status = store.load_round(round_id).status
        assert status in ("settling", "voiding"), status
        assert (raced[1][0] == "ok") == (status == "voiding"), raced
        direct.run(direct.settlement(round_id, "settle" if status == "settling" else "void"))
        check_exactly_once(round_id, {ana: START, ben: START})


# --- bets against the end of the countdown -------------------------------------------------


def test_bets_hammered_across_the_close_are_in_the_round_or_refused_never_lost(h: Harness) -> None:
    """Eight clients keep betting (six players, random bets) while the round's workflow closes
    the countdown. Every accepted bet is in the round and settled exactly once; every refused one
    moved nothing; the store balances."""
    table = h.table("hammer")
    devices, shoe = h.open_devices(table, "baccarat", 51, cut_at=300)
    shoe.prepare(["9S", "8H", "KD", "KC"])
    players = [client.subject for client in h.players.values()]
    round_id: str = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    lock = threading.Lock()
    accepted: list[tuple[str, str, list[dict[str, Any]]]] = []
    refused: list[tuple[str, str, str]] = []

    def hammer(worker: int) -> None:
        _own_client()
        rng = random.Random(worker)
        player = players[worker % len(players)]
        for n in range(10_000):
            key = f"w{worker}-{n}-{uuid.uuid4().hex[:6]}"
            wanted = [{"type": rng.choice(["player", "banker", "tie"]), "amount": rng.randrange(100, 2000)}]
            try:
                bets.place_bets(table, player, "real", wanted, key)
            except CroupierError as exc:
                with lock:
                    refused.append((player, key, exc.reason))
                if exc.reason == "betting-closed":
                    return
                continue
            with lock:
                accepted.append((player, key, wanted))

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(hammer, range(8)))
    assert time.monotonic() - started < 60
    FIGURES["concurrent_requests"] += len(accepted) + len(refused)
    assert accepted and any(reason == "betting-closed" for _, _, reason in refused)
    wait_for(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "playing")
    for _ in range(4):
        devices.scan(shoe.draw(devices))
    wait_for(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "settled")
    moved = {player: _keys_moved(player) for player in players}
    for player, key, _ in accepted:
        assert moved[player].count(key) == 1
    for player, key, _ in refused:
        assert key not in moved[player]
    staked: dict[tuple[str, str], int] = defaultdict(int)
    for player, _, placed in accepted:
        for bet in placed:
            staked[(player, bet["type"])] += int(bet["amount"])
    in_round = store.round_bets(round_id, store.load_round(round_id).shards)
    assert {(b.player, b.bet.type): b.taken for b in in_round} == dict(staked)
    check_exactly_once(round_id, dict.fromkeys(players, START))
    audit_ok()


def test_http_requests_to_different_functions_at_once_each_keep_their_own_caller(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two HTTP functions answering at the same moment (the query function, the wallet function):
    each request is resolved with its own route, body and caller, never another request's. Each
    function pauses between taking its request and reading its caller, so that the two overlap."""
    ana, operator = h.players["ana"], h.operator
    FIGURES["concurrent_requests"] += 60
    read_caller = api.caller

    def slow_caller(router: Any) -> Any:
        time.sleep(0.01)
        return read_caller(router)

    monkeypatch.setattr(api, "caller", slow_caller)

    def one(i: int) -> tuple[str, Any]:
        if i % 2:
            return "deposit", operator.post(f"/wallets/{ana.subject}/deposits", {"amount": 1}, idempotent=True)
        return "wallet", ana.get(f"/wallets/{ana.subject}")

    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(one, range(60)))
    assert all(kind != "wallet" or answer["player"] == ana.subject for kind, answer in answers)
    assert all(kind != "deposit" or answer["amount"] == 1 for kind, answer in answers)
    assert h.balance("ana") == START + 30


@pytest.mark.parametrize("slow", ["player_round", "wallet_of"])
def test_a_bet_whose_reads_outlast_the_countdown_is_refused_and_moves_nothing(
        slow: str, direct: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by ``croupier chaos --rounds 20000 --seed 11`` (world 11/6, Deluxe Blackjack): a seat bet
    checked its round's countdown before the end, then its invocation paused inside the money's
    move (before the wallet's read) and stored the bet after the end, while the round still said
    betting (its close had not run yet). The dealer, dealing from the countdown's end, had not
    dealt that seat; the round had, so every card after the seat's went to the wrong hand (the
    dealer's up card to a player, the next to the dealer: a player's view showed the dealer a card
    the table did not). ``slow``: the read that takes the bet past the end (the bet's own, the
    wallet's within the money's move).

    Narrowed: the countdown is now read right before the transaction, and betting closes half a
    second before the countdown's end (the next test); a bet held up for longer than that between its
    last look and its transaction's commit is still stored after the end: DynamoDB's conditions have
    no clock, and the close of betting cannot tell such a bet from one stored in time."""
    # GIVEN a Deluxe Blackjack round taking bets, and a player's bet whose read takes it past the
    # countdown's end (the clock read before it says the countdown runs, the one after says it ended)
    table = direct.table("deluxe-blackjack", name="late-read")
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    round_id = direct.start(table)
    closes_at = store.load_round(round_id).closes_at
    clock, moving = {"now": bets_until(closes_at, "deluxe-blackjack") - 100}, []
    read, move = getattr(store, slow), store.move_money

    def slow_read(*args: Any) -> Any:
        found = read(*args)
        if slow == "player_round" or moving:  # the wallet's read within the money's move, not the funds'
            clock["now"] = closes_at + 50
        return found

    def moving_money(*args: Any, **kwargs: Any) -> Any:
        moving.append(True)
        return move(*args, **kwargs)

    in_this_thread(monkeypatch).setattr(store, "now_ms", lambda: clock["now"])
    in_this_thread(monkeypatch).setattr(store, slow, slow_read)
    in_this_thread(monkeypatch).setattr(store, "move_money", moving_money)
    # WHEN the bet is placed
    with pytest.raises(StateConflict) as refused:
        direct.bet(table, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    # THEN it is refused as too late, and nothing moved: no bet in the round, the balance whole
    assert refused.value.reason == "betting-closed" and "countdown has ended" in str(refused.value)
    assert store.round_bets(round_id, store.load_round(round_id).shards) == []
    assert store.balance_of(ana) == START


@pytest.mark.parametrize("left", [LAST_BET_MS + 1, LAST_BET_MS, 1])
def test_betting_closes_half_a_second_before_the_countdowns_end(left: int, direct: Direct,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Found three times by the simulator (worlds 11/6, 44/2 and 58/14, Deluxe Blackjack): a seat bet
    looked at the countdown a fraction of a second before its end, was held up before its
    transaction (a pause of its invocation, up to half a second in the simulator; on AWS, its
    request's way to DynamoDB and back, the SDK's retries of a throttled write) and was stored after
    the end, on a seat the dealer, dealing from the end, did not deal. Every card after that seat's
    went to the wrong hand, until a player's view showed the dealer a card or the round waited for a
    card the dealer never dealt. **Decision**: betting closes half a second before the countdown's
    end (``LAST_BET_MS``) where the dealer deals once it is over, so that whatever holds a bet up
    between its last look and its commit has that long; the players' screens count down to it
    (``bets_until``)."""
    # GIVEN a Deluxe Blackjack round taking bets, its countdown ending ``left`` ms from now
    table = direct.table("deluxe-blackjack", name=f"last-{left}")
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    round_id = direct.start(table)
    closes_at = store.load_round(round_id).closes_at
    in_this_thread(monkeypatch).setattr(store, "now_ms", lambda: closes_at - left)
    bet = [{"type": "seat", "seat": 1, "amount": 1000}]
    if left > LAST_BET_MS:
        # WHEN a bet comes more than half a second before the end, THEN it is taken
        direct.bet(table, ana, bet)
        assert [b.bet.amount for b in store.round_bets(round_id, store.load_round(round_id).shards)] == [1000]
        assert store.balance_of(ana) == START - 1000
        return
    # WHEN a bet comes in the last half second, THEN it is refused, saying why, and nothing moves
    with pytest.raises(StateConflict) as refused:
        direct.bet(table, ana, bet)
    assert refused.value.reason == "betting-closed" and "0.5 s before the countdown's end" in str(refused.value)
    assert store.round_bets(round_id, store.load_round(round_id).shards) == []
    assert store.balance_of(ana) == START
    # and the round's view says when betting closed
    assert queries.round_summary(store.load_round(round_id), Identity(ana, "player"))["bets_until"] \
        == closes_at - LAST_BET_MS


class Unreachable:
    """A client's DynamoDB out of reach for its first ``times`` transactions (botocore's
    ``before-send``, first of its handlers: the request reaches no stack; the SDK retries such an
    attempt as it retries a throttled one), then reached; each attempt the SDK makes is counted."""

    def __init__(self, client: Any, times: int) -> None:
        self.client, self.times, self.sent = client, times, 0
        client.meta.events.register_first("before-send.dynamodb.TransactWriteItems", self)

    def __call__(self, request: Any, **_: Any) -> None:
        self.sent += 1
        if self.sent <= self.times:
            raise EndpointConnectionError(endpoint_url=request.url)

    def close(self) -> None:
        self.client.meta.events.unregister("before-send.dynamodb.TransactWriteItems", self)


def test_a_bets_write_is_sent_once_and_one_that_fails_is_refused_not_stored_later(
        direct_on_stack: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """The half second before the countdown's end (decision 0077) covers a bet's transaction, not
    the SDK's retries of it: by default it retries a throttled DynamoDB write up to ten times, backing
    off from 50 ms, which could store a bet seconds after it looked at the clock, on a seat the dealer
    did not deal. A bet's transaction is sent once (``store.AT_ONCE``): if that fails, it is refused to
    the caller, whose retry (the same idempotency key) looks at the clock again."""
    direct = direct_on_stack
    # GIVEN the SDK's default client retries a transaction it could not send (the mechanism this
    # test relies on)
    plain = Unreachable(store.client(), times=2)
    try:
        store.write([store.versioned_put({"pk": f"TEST#{uuid.uuid4().hex}", "sk": "sdk-retries"}, None)])
    finally:
        plain.close()
    assert plain.sent == 3  # two not sent, the third stored
    # AND a Deluxe Blackjack round taking bets, the database out of reach of every transaction
    table = direct.table("deluxe-blackjack", name="unreachable")
    ana = direct.player("ana")
    tables.sit(table, 1, ana, "real")
    round_id = direct.start(table)
    closes_at = store.load_round(round_id).closes_at
    in_this_thread(monkeypatch).setattr(store, "now_ms", lambda: closes_at - 2000)
    unreachable = Unreachable(store.client(at_once=True), times=10)
    bet, key = [{"type": "seat", "seat": 1, "amount": 1000}], uuid.uuid4().hex
    try:
        # WHEN a player bets 2 s before the end, THEN the bets' transaction is tried once and fails
        with pytest.raises(EndpointConnectionError):
            direct.bet(table, ana, bet, key)
    finally:
        unreachable.close()
    assert unreachable.sent == 1
    assert store.round_bets(round_id, store.load_round(round_id).shards) == []
    assert store.balance_of(ana) == START
    # WHEN the player's screen retries with the same key in the last half second, THEN it is refused
    in_this_thread(monkeypatch).setattr(store, "now_ms", lambda: closes_at - LAST_BET_MS)
    with pytest.raises(StateConflict) as closed:
        direct.bet(table, ana, bet, key)
    assert closed.value.reason == "betting-closed"
    assert store.round_bets(round_id, store.load_round(round_id).shards) == []
    assert store.balance_of(ana) == START


def test_pok_deng_takes_bets_until_the_countdowns_end(direct: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pok Deng's dealer deals while the countdown runs, face down, and no bet decides where a card
    goes: the spec takes its bets until the countdown ends, and so does the table."""
    # GIVEN a Pok Deng round taking bets, its countdown ending 1 ms from now
    table = direct.table("pok-deng", name="last-pok-deng")
    ana = direct.player("ana")
    round_id = direct.start(table)
    closes_at = store.load_round(round_id).closes_at
    in_this_thread(monkeypatch).setattr(store, "now_ms", lambda: closes_at - 1)
    # WHEN a bet comes, THEN it is taken, and the round's view says betting closes at the end
    direct.bet(table, ana, [{"type": "player-1", "amount": 1000}])
    assert [b.bet.amount for b in store.round_bets(round_id, store.load_round(round_id).shards)] == [1000]
    assert queries.round_summary(store.load_round(round_id), Identity(ana, "player"))["bets_until"] == closes_at
