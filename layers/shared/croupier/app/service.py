"""The application's logic: tables, seats, shoes, rounds, bets, decisions, settlement.

Every function here is called by a thin handler (HTTP, table events or a workflow step). Each
loads what it needs, asks the engine (never deciding a game rule itself), and writes back with
conditions: round and table items on their version, bets on their status, money through
:func:`croupier.app.store.move_money`. A write that loses a race is retried from a fresh read.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from .. import betting
from ..errors import CroupierError, ShoeError
from ..games.base import Action, Bet, CardFor, DecisionFor, FollowWindow, InsuranceWindow, Settle
from ..rules import Rules, load_rules
from ..shoe import CardUse, Shoe
from . import store, workflow
from .config import settings
from .engine import apply_event, bet_from_item, bet_to_item, expectation_key, rebuild
from .errors import AppError, Funds, NotFound, StateConflict

T = TypeVar("T")
BLACKJACK = ("deluxe-blackjack", "blackjack")
MAX_BETS_PER_REQUEST = 20
ACTIVE = ("betting", "closing", "playing", "settling", "voiding")


# --- helpers ---------------------------------------------------------------------------------


def _retry(fn: Callable[[], T], attempts: int = 20) -> T:
    """Run a read-modify-conditional-write until it wins (or a domain error ends it)."""
    for _ in range(attempts):
        try:
            return fn()
        except store.Conflict:
            continue
    raise StateConflict("the table is busy; try again", reason="busy")


def load_table(table_id: str) -> dict[str, Any]:
    item = store.get(store.game_table(), store.table_key(table_id))
    if item is None:
        raise NotFound(f"no table {table_id!r}", reason="no-table")
    return item


def load_round(round_id: str) -> dict[str, Any]:
    item = store.get(store.game_table(), store.round_key(round_id))
    if item is None:
        raise NotFound(f"no round {round_id!r}", reason="no-round")
    return item


def table_rules(item: dict[str, Any]) -> Rules:
    return load_rules(item["game"], item.get("rules") or {})


def _timers(item: dict[str, Any]) -> Any:
    return table_rules(item).timers


# --- tables, seats and shoes -----------------------------------------------------------------


def create_table(game: str, rules: dict[str, Any], reader_id: str, table_id: str | None = None,
                 name: str | None = None) -> dict[str, Any]:
    load_rules(game, rules)  # validates (RulesError -> 400)
    table_id = table_id or f"t-{uuid.uuid4().hex[:10]}"
    item = {**store.table_key(table_id), "table_id": table_id, "game": game, "rules": rules,
            "reader_id": reader_id, "name": name or table_id, "seats": {}, "shoe": None, "round_id": None,
            "round_status": None, "rounds_played": 0, "version": 0, "created_at": store.now_ms()}
    try:
        store.put_new(store.game_table(), item)
    except store.Conflict as exc:
        raise StateConflict(f"table {table_id!r} exists already", reason="table-exists") from exc
    return item


def _table_idle(item: dict[str, Any]) -> bool:
    return item.get("round_id") is None or item.get("round_status") not in ACTIVE


def configure_table(table_id: str, rules: dict[str, Any] | None, reader_id: str | None) -> dict[str, Any]:
    def attempt() -> dict[str, Any]:
        item = load_table(table_id)
        if not _table_idle(item):
            raise StateConflict("a round is in play: configure the table between rounds", reason="round-in-play")
        if rules is not None:
            load_rules(item["game"], rules)
            item["rules"] = rules
        if reader_id is not None:
            item["reader_id"] = reader_id
        return store.put_versioned(store.game_table(), item, int(item["version"]))

    return _retry(attempt)


def sit(table_id: str, seat: int, player: str, account_kind: str) -> dict[str, Any]:
    def attempt() -> dict[str, Any]:
        item = load_table(table_id)
        if item["game"] not in BLACKJACK:
            raise AppError(f"{item['game']} has no seats", reason="no-seats")
        rules = table_rules(item)
        if not _table_idle(item) and item.get("round_status") != "betting":
            raise StateConflict("a round is being played: sit down when the next round opens", reason="round-in-play")
        seats = betting.seats_from_dict(item.get("seats") or {})
        seats = betting.sit(rules, seats, player, seat, account_kind)  # type: ignore[arg-type]
        item["seats"] = betting.seats_to_dict(seats)
        return store.put_versioned(store.game_table(), item, int(item["version"]))

    return _retry(attempt)


def leave(table_id: str, seat: int, player: str) -> dict[str, Any]:
    def attempt() -> dict[str, Any]:
        item = load_table(table_id)
        if not _table_idle(item) and item.get("round_status") != "betting":
            raise StateConflict("a round is being played: leave when it is over", reason="round-in-play")
        seats = betting.seats_from_dict(item.get("seats") or {})
        seats = betting.leave(seats, player, seat)
        item["seats"] = betting.seats_to_dict(seats)
        return store.put_versioned(store.game_table(), item, int(item["version"]))

    return _retry(attempt)


def new_shoe(table_id: str, shoe_id: str | None = None) -> dict[str, Any]:
    """The dealer shuffled and inserted the cut card: a new shoe (counts reset, round 0)."""

    def attempt() -> dict[str, Any]:
        item = load_table(table_id)
        if not _table_idle(item):
            raise StateConflict("a round is in play: shuffle between rounds", reason="round-in-play")
        per_round_burn = 1 if item["game"] == "pok-deng" else 0
        item["shoe"] = Shoe(shoe_id or f"s-{uuid.uuid4().hex[:10]}", per_round_burn=per_round_burn).to_dict()
        return store.put_versioned(store.game_table(), item, int(item["version"]))

    return _retry(attempt)


# --- rounds: start, bets, close --------------------------------------------------------------


def start_round(table_id: str) -> dict[str, Any]:
    """Open the next round of the table: a betting countdown and its workflow execution."""

    def attempt() -> dict[str, Any]:
        table = load_table(table_id)
        if not _table_idle(table):
            raise StateConflict(f"round {table['round_id']} is still in play", reason="round-in-play")
        if table.get("shoe") is None:
            raise StateConflict("no shoe: shuffle a new shoe first", reason="no-shoe")
        shoe = Shoe.from_dict(table["shoe"])
        try:
            number = shoe.start_round()
        except ShoeError as exc:
            raise StateConflict(str(exc), reason=exc.reason) from exc
        rules = table_rules(table)
        round_id = f"{table_id}-{shoe.shoe_id}-{number:03d}-{uuid.uuid4().hex[:6]}"
        seats = table.get("seats") or {}
        if table["game"] in BLACKJACK:
            seated = betting.seats_from_dict(seats)
            balances = {state.player: store.balance_of(state.player) for state in seated.values()}
            seats = betting.seats_to_dict(betting.seats_at_round_start(rules, seated, balances))  # type: ignore[arg-type]
        round_item = {
            **store.round_key(round_id), "round_id": round_id, "table_id": table_id, "game": table["game"],
            "rules": table.get("rules") or {}, "round_in_shoe": number, "shoe_id": shoe.shoe_id,
            "last_round": shoe.is_last_round, "status": "betting", "paused": False, "version": 0, "events": [],
            "engine_bets": [], "balances": {}, "refunds": [], "shards": settings().bet_shards,
            "created_at": store.now_ms(), "closes_at": store.now_ms() + rules.timers.countdown * 1000,
            "seats": seats, "expect_key": None, "expect_since": None, "history": [],
        }
        table.update(shoe=shoe.to_dict(), round_id=round_id, round_status="betting", seats=seats)
        _transact_versioned([(table, int(table["version"])), (round_item, None)])
        return round_item

    round_item = _retry(attempt)
    workflow.start_round(round_item["round_id"], table_id, _timers(round_item).countdown)
    return round_item


def _transact_versioned(items: Sequence[tuple[dict[str, Any], int | None]],
                        extra: Sequence[dict[str, Any]] = ()) -> None:
    """Write several game-table items at once: each conditioned on its version (or, with None, on
    not existing), plus ``extra`` transaction items."""
    name = settings().game_table
    ops: list[dict[str, Any]] = []
    for item, version in items:
        if version is None:
            ops.append({"Put": {"TableName": name, "Item": {**item, "version": 0},
                                "ConditionExpression": "attribute_not_exists(pk)"}})
        else:
            item["version"] = version + 1
            ops.append({"Put": {"TableName": name, "Item": item, "ConditionExpression": "version = :v",
                                "ExpressionAttributeValues": {":v": version}}})
    ops.extend(extra)
    try:
        store.client().transact_write_items(TransactItems=ops)
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "TransactionCanceledException":
            for item, version in items:  # undo the local version bump
                if version is not None:
                    item["version"] = version
            raise store.Conflict("changed meanwhile") from exc
        raise


def _bet_id(round_id: str, player: str, key: str, index: int) -> str:
    digest = hashlib.sha256(f"{round_id}|{player}|{key}|{index}".encode()).hexdigest()[:16]
    return f"b-{digest}"


def place_bets(table_id: str, player: str, account_kind: str, requests: Sequence[dict[str, Any]],
               idempotency_key: str) -> dict[str, Any]:
    """Several bets of one player in the table's open round: all accepted and debited together, or
    none. A retry with the same idempotency key moves nothing and answers the same bets."""
    if not requests:
        raise AppError("no bets in the request", reason="no-bets")
    if len(requests) > MAX_BETS_PER_REQUEST:
        raise AppError(f"at most {MAX_BETS_PER_REQUEST} bets per request", reason="too-many-bets")
    # Reliability fix (tests/reliability/test_faults_exactly_once.py, test_a_bet_retried_*): a
    # request accepted before (its first attempt died after its transaction) is answered again
    # from the round it went into, even once betting closed or the next round opened: it is never
    # refused as "betting closed" after its debit, nor placed (and debited) again in a new round.
    request_key = {"pk": f"BETREQUEST#{player}#{idempotency_key}", "sk": "BETS"}
    accepted_before = store.get(store.game_table(), request_key)
    if accepted_before is not None:
        round_id = accepted_before["round_id"]
        summary = store.get(store.game_table(), {"pk": f"ROUND#{round_id}#PLAYER#{player}", "sk": "BETS"}) or {}
        return {"round_id": round_id, "replayed": True,
                "bets": [b for b in summary.get("bets", []) if b.get("key") == idempotency_key]}
    table = load_table(table_id)
    round_id = table.get("round_id")
    if not round_id or table.get("round_status") != "betting":
        raise StateConflict("betting is closed: wait for the next round", reason="betting-closed")
    rules = table_rules(table)

    def attempt() -> dict[str, Any]:
        rnd = load_round(round_id)
        if rnd["status"] != "betting":
            raise StateConflict("betting is closed: wait for the next round", reason="betting-closed")
        summary_key = {"pk": f"ROUND#{round_id}#PLAYER#{player}", "sk": "BETS"}
        summary = store.get(store.game_table(), summary_key) or {**summary_key, "bets": [], "version": None,
                                                                   "keys": []}
        if idempotency_key in summary.get("keys", []):
            return {"round_id": round_id, "bets": [b for b in summary["bets"] if b.get("key") == idempotency_key],
                    "replayed": True}
        existing = [bet_from_item(b) for b in summary["bets"]]
        ctx = betting.RoundContext(round_in_shoe=int(rnd["round_in_shoe"]),
                                   seats=betting.seats_from_dict(rnd.get("seats") or {}))
        reqs = [betting.BetRequest(type=r["type"], amount=int(r["amount"]), seat=r.get("seat"), mode=r.get("mode"))
                for r in requests]
        balance = store.balance_of(player)
        placement = betting.place_bets(rnd["game"], rules, ctx, player, account_kind, existing, reqs, balance,
                                       new_id=lambda i: _bet_id(round_id, player, idempotency_key, i))
        legs, extra = [], []
        name = settings().game_table
        shards = int(rnd["shards"])
        by_id = {b["bet_id"]: b for b in summary["bets"]}
        for change in placement.changes:
            bet, debit = change.bet, change.debit
            shard = store.shard_of(bet.id, shards)
            previous = by_id.get(bet.id)
            item = {**store.bet_key(round_id, shard, bet.id), **bet_to_item(bet), "round_id": round_id,
                    "table_id": table_id, "game": rnd["game"], "shard": shard, "status": "open",
                    "taken": (int(previous["taken"]) if previous else 0) + debit,
                    "placed_at": previous["placed_at"] if previous else store.now_ms(),
                    "gsi1pk": f"PLAYER#{player}", "expires_at": store.now_ms() // 1000 + store.BET_RECORD_DAYS * 86400}
            item["gsi1sk"] = f"{item['placed_at']:013d}#{bet.id}"
            cond = ({"ConditionExpression": "attribute_not_exists(pk)"} if previous is None else
                    {"ConditionExpression": "amount = :a AND #s = :open",
                     "ExpressionAttributeNames": {"#s": "status"},
                     "ExpressionAttributeValues": {":a": int(previous["amount"]), ":open": "open"}})
            extra.append({"Put": {"TableName": name, "Item": item, **cond}})
            by_id[bet.id] = {**bet_to_item(bet), "taken": item["taken"], "placed_at": item["placed_at"],
                             "key": idempotency_key, "shard": shard}
            if debit:
                legs.append((f"bet:{bet.id}:stake:{idempotency_key}", -debit,
                             {"round_id": round_id, "bet_id": bet.id, "table_id": table_id}))
        new_summary = {**summary_key, "bets": list(by_id.values()), "keys": [*summary.get("keys", []), idempotency_key],
                       "round_id": round_id, "player": player}
        if summary.get("version") is None:
            new_summary["version"] = 0
            extra.append({"Put": {"TableName": name, "Item": new_summary,
                                  "ConditionExpression": "attribute_not_exists(pk)"}})
        else:
            new_summary["version"] = int(summary["version"]) + 1
            extra.append({"Put": {"TableName": name, "Item": new_summary, "ConditionExpression": "version = :v",
                                  "ExpressionAttributeValues": {":v": int(summary["version"])}}})
        extra.append({"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                              "Item": {**request_key, "round_id": round_id, "table_id": table_id, "at": store.now_ms(),
                                       "expires_at": store.now_ms() // 1000 + store.BET_RECORD_DAYS * 86400}}})
        extra.append({"ConditionCheck": {"TableName": name, "Key": store.round_key(round_id),
                                         "ConditionExpression": "#s = :betting",
                                         "ExpressionAttributeNames": {"#s": "status"},
                                         "ExpressionAttributeValues": {":betting": "betting"}}})
        try:
            store.move_money(player, legs, kind="bet", extra=extra)
        except store.InsufficientFunds as exc:
            raise Funds(f"insufficient funds: balance {exc.balance}, these bets need {exc.needed}") from exc
        accepted = [by_id[c.bet.id] for c in placement.changes]
        return {"round_id": round_id, "bets": accepted, "replayed": False}

    try:
        return _retry(attempt)
    except CroupierError:
        raise


def close_betting(round_id: str) -> dict[str, Any]:
    """End of the countdown: freeze the bets (a bet is in, or refunded), hand them to the engine."""

    def flip() -> dict[str, Any]:
        rnd = load_round(round_id)
        if rnd["status"] != "betting":
            return rnd
        rnd["status"] = "closing"
        return store.put_versioned(store.game_table(), rnd, int(rnd["version"]))

    rnd = _retry(flip)
    if rnd["status"] != "closing":
        return advance(round_id)
    bets = [bet_from_item(b) for b in store.round_bets(round_id, int(rnd["shards"])) if b["status"] == "open"]
    rules = load_rules(rnd["game"], rnd.get("rules") or {})
    refunds: list[str] = []
    engine_bets: list[Bet] = []
    seats_after = rnd.get("seats") or {}
    if rnd["game"] in BLACKJACK:
        closing = betting.close_betting(rnd["game"], rules, betting.seats_from_dict(seats_after), bets)
        engine_bets = list(closing.bets)
        refunds = [r.bet.id for r in closing.refunds]
        seats_after = betting.seats_to_dict(closing.seats)
    for bet_id in refunds:
        _refund_bet(round_id, bet_id, int(rnd["shards"]), reason="no seat bet")
    balances = {b.player: store.balance_of(b.player) for b in engine_bets}

    def write() -> dict[str, Any]:
        current = load_round(round_id)
        if current["status"] != "closing":
            return current
        current.update(status="playing", engine_bets=[bet_to_item(b) for b in engine_bets], balances=balances,
                       refunds=refunds, closed_at=store.now_ms(), seats=seats_after)
        table = load_table(current["table_id"])
        table["round_status"] = "playing"
        if rnd["game"] in BLACKJACK:
            table["seats"] = seats_after
        _transact_versioned([(current, int(current["version"])), (table, int(table["version"]))])
        return current

    _retry(write)
    return advance(round_id)


# --- what next -------------------------------------------------------------------------------


def _step(rnd: dict[str, Any], kind: str, key: str, timeout: int) -> dict[str, Any]:
    """What the workflow waits for: ``key`` names the expectation, ``seq`` (the round's event
    count) this occurrence of it: a hand decides again after a hit, under the same key."""
    return {"kind": kind, "key": key, "seq": len(rnd.get("events") or ()), "timeout": max(1, int(timeout)),
            "version": int(rnd["version"]), "shards": list(range(int(rnd["shards"])))}


def _stale(rnd: dict[str, Any], seq: int | None) -> bool:
    """A timer of an earlier occurrence of the expectation (something happened to the round since)."""
    return seq is not None and len(rnd.get("events") or ()) != seq


def advance(round_id: str) -> dict[str, Any]:
    """The workflow's one question: what does this round wait for now?"""

    def attempt() -> dict[str, Any]:
        rnd = load_round(round_id)
        timers = _timers(rnd)
        status = rnd["status"]
        if status in ("settled", "voided"):
            return _step(rnd, "done", status, 1)
        if status == "voiding":
            return _step(rnd, "void", "void", 1)
        if status == "settling":
            return _step(rnd, "settle", "settle", 1)
        if status in ("betting", "closing"):
            raise StateConflict(f"round {round_id} is still {status}", reason="not-dealing")
        if rnd.get("paused"):
            waited = (store.now_ms() - int(rnd.get("paused_at") or store.now_ms())) // 1000
            return _step(rnd, "paused", f"paused:{rnd.get('paused_at')}", timers.pause_void - waited)
        engine = rebuild(rnd)
        expected = engine.expected
        changed = False
        while isinstance(expected, InsuranceWindow | FollowWindow) and not expected.bets:
            engine.close_window()  # nobody can answer: the window closes at once
            rnd["events"].append({"close": True})
            changed = True
            expected = engine.expected
        key = expectation_key(expected)
        if isinstance(expected, Settle):
            rnd["status"] = "settling"
            rnd["settlement"] = engine.settle().to_dict(full=True)
            store.put_versioned(store.game_table(), rnd, int(rnd["version"]))
            return _step(rnd, "settle", "settle", 1)
        if rnd.get("expect_key") != key:
            rnd["expect_key"], rnd["expect_since"] = key, store.now_ms()
            changed = True
        if changed:
            rnd = store.put_versioned(store.game_table(), rnd, int(rnd["version"]))
        elapsed = (store.now_ms() - int(rnd["expect_since"])) // 1000
        if isinstance(expected, CardFor):
            return _step(rnd, "card", key, timers.pause_void - elapsed)
        if isinstance(expected, DecisionFor):
            return _step(rnd, "decision", key, timers.decision - elapsed)
        seconds = timers.insurance if isinstance(expected, InsuranceWindow) else timers.follow
        return _step(rnd, "window", key, seconds - elapsed)

    return _retry(attempt)


def register_wait(round_id: str, version: int, token: str) -> dict[str, Any]:
    """Keep the workflow's task token on the round; if the round moved on since the workflow
    asked, resume it at once (nothing waits in vain)."""
    try:
        store.game_table().update_item(
            Key=store.round_key(round_id),
            UpdateExpression="SET wait_token = :t, version = :next",
            ConditionExpression="version = :v",
            ExpressionAttributeValues={":t": token, ":v": version, ":next": version + 1},
        )
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        workflow.resume(token)
        return {"registered": False}
    return {"registered": True}


def _take_token(rnd: dict[str, Any]) -> str | None:
    """Take the waiting workflow's token off the round, to wake it once the round is written. The
    token stays on the round as ``woken_token``: a request whose first attempt died after its
    write, before the wake, wakes the workflow with it when it is retried (see ``_wake_again``).
    With no wait registered, the token to wake is that last one: if the request that took it died
    before the wake, this request makes the wake good (the dealer's next card after a decision
    whose function died); if it was used, it is ignored."""
    token = rnd.get("wait_token")
    rnd["wait_token"] = None
    if token:
        rnd["woken_token"] = token
    return token or rnd.get("woken_token")


def _wake_again(rnd: dict[str, Any]) -> None:
    """A request applied before is retried (a card delivered again; a decision, resume or void sent
    again): unless the workflow has registered a new wait since, wake it (again) with the token the
    first attempt took, so that the round does not stall until its timer. A token used already is
    ignored; a workflow woken for nothing asks "what next?" and waits again."""
    if rnd["status"] in ("playing", "voiding") and not rnd.get("wait_token"):
        workflow.resume(rnd.get("woken_token"))


def _mutate(round_id: str, change: Callable[[dict[str, Any]], T], *, resume: bool = True) -> T:
    """Apply ``change`` to the round item and write it on its version; then wake the workflow."""
    holder: dict[str, Any] = {}

    def attempt() -> T:
        rnd = load_round(round_id)
        out = change(rnd)  # before the token is taken: a refusal may wake the workflow (_wake_again)
        token = _take_token(rnd)
        store.put_versioned(store.game_table(), rnd, int(rnd["version"]))
        holder["token"] = token
        return out

    out = _retry(attempt)
    if resume:
        workflow.resume(holder.get("token"))
    return out


def _require_playing(rnd: dict[str, Any]) -> None:
    if rnd["status"] != "playing":
        raise StateConflict(f"round {rnd['round_id']} is {rnd['status']}", reason="round-not-playing")
    if rnd.get("paused"):
        raise StateConflict(f"round {rnd['round_id']} is paused: {rnd.get('pause_reason')}", reason="round-paused")


def _pause(rnd: dict[str, Any], reason: str) -> None:
    if not rnd.get("paused") and rnd["status"] in ("playing", "closing"):
        rnd.update(paused=True, pause_reason=reason, paused_at=store.now_ms())
        rnd.setdefault("history", []).append({"at": store.now_ms(), "pause": reason})


def decision_timeout(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    """The per-hand decision timer ran out: the hand is played automatically."""

    def change(rnd: dict[str, Any]) -> bool:
        if rnd["status"] != "playing" or rnd.get("paused") or _stale(rnd, seq):
            return False
        engine = rebuild(rnd)
        expected = engine.expected
        if not isinstance(expected, DecisionFor) or expectation_key(expected) != key:
            return False
        event = {"action": {"seat": expected.seat, "action": "timeout"}}
        apply_event(engine, event)
        rnd["events"].append(event)
        return True

    _mutate(round_id, change, resume=False)
    return advance(round_id)


def close_window(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    def change(rnd: dict[str, Any]) -> bool:
        if rnd["status"] != "playing" or rnd.get("paused") or _stale(rnd, seq):
            return False
        engine = rebuild(rnd)
        if expectation_key(engine.expected) != key:
            return False
        engine.close_window()
        rnd["events"].append({"close": True})
        return True

    _mutate(round_id, change, resume=False)
    return advance(round_id)


def card_overdue(round_id: str, key: str, seq: int | None = None) -> dict[str, Any]:
    # Reliability fix (test_a_card_applied_by_a_dealing_function_that_then_died_does_not_stall_the_round):
    # the timer pauses the round only if its engine still waits for that card. A dealing function
    # that applied the card and died before waking the workflow leaves the workflow on this timer
    # (``expect_key`` is only refreshed by ``advance``): the round goes on instead of being paused.
    def change(rnd: dict[str, Any]) -> None:
        if (rnd["status"] == "playing" and rnd.get("expect_key") == key and not rnd.get("paused")
                and not _stale(rnd, seq) and expectation_key(rebuild(rnd).expected) == key):
            _pause(rnd, "no card arrived in time")

    _mutate(round_id, change, resume=False)
    return advance(round_id)


def auto_void(round_id: str, key: str) -> dict[str, Any]:
    def change(rnd: dict[str, Any]) -> None:
        if rnd.get("paused") and f"paused:{rnd.get('paused_at')}" == key and rnd["status"] == "playing":
            rnd.update(status="voiding", void_reason="paused too long", paused=False)

    _mutate(round_id, change, resume=False)
    return advance(round_id)


def fault(round_id: str, error: Any) -> dict[str, Any]:
    """An internal error: pause the round (a supervisor resumes or voids it), never half settle."""
    cause = str(error)[:500] if error else "internal error"

    def change(rnd: dict[str, Any]) -> None:
        if rnd["status"] in ("playing", "closing", "settling"):
            _pause(rnd, f"internal error: {cause}")
        if rnd["status"] == "closing":
            rnd["status"] = "voiding"

    _mutate(round_id, change, resume=False)
    return advance(round_id)


# --- supervisor and dealer console -----------------------------------------------------------


def pause(round_id: str, reason: str) -> dict[str, Any]:
    def change(rnd: dict[str, Any]) -> dict[str, Any]:
        if rnd["status"] not in ("playing", "settling"):
            raise StateConflict(f"round {round_id} is {rnd['status']}: only a round in play pauses",
                                reason="not-pausable")
        if rnd["status"] == "settling":
            raise StateConflict("the round is being settled", reason="settling")
        _pause(rnd, reason)
        return rnd

    return _mutate(round_id, change)


def resume_round(round_id: str) -> dict[str, Any]:
    def change(rnd: dict[str, Any]) -> dict[str, Any]:
        if not rnd.get("paused"):
            _wake_again(rnd)  # a resume retried: its first attempt may have died before the wake
            raise StateConflict(f"round {round_id} is not paused", reason="not-paused")
        rnd.update(paused=False, pause_reason=None, paused_at=None, expect_key=None)
        rnd.setdefault("history", []).append({"at": store.now_ms(), "resume": True})
        return rnd

    return _mutate(round_id, change)


def void(round_id: str, reason: str) -> dict[str, Any]:
    def change(rnd: dict[str, Any]) -> dict[str, Any]:
        if rnd["status"] not in ("playing", "closing"):
            _wake_again(rnd)  # a void retried: its first attempt may have died before the wake
            raise StateConflict(f"round {round_id} is {rnd['status']}: it cannot be voided now", reason="not-voidable")
        rnd.update(status="voiding", void_reason=reason, paused=False)
        rnd.setdefault("history", []).append({"at": store.now_ms(), "void": reason})
        return rnd

    return _mutate(round_id, change)


# --- table events ----------------------------------------------------------------------------


def table_event(event_type: str, detail: dict[str, Any]) -> dict[str, Any]:
    """Apply one card-reader or dealer-console event. Returns what happened (for the logs)."""
    table_id = detail["table_id"]
    scan_id = detail.get("scan_id")
    if event_type == "shoe-shuffled":
        new_shoe(table_id, detail.get("shoe_id"))
        return {"applied": "shoe-shuffled"}
    if event_type == "scan-failed":
        return {"applied": "nothing", "why": "a failed scan changes nothing: the dealer rescans"}
    # Reliability fix (test_a_card_delivered_again_during_a_decision_or_into_the_next_round_changes_nothing):
    # a scan applied before is a duplicate delivery whatever the round expects now; without this
    # check a duplicate arriving when no card is expected was refused as unexpected and paused it.
    if scan_id and store.get(store.game_table(), store.scan_key(table_id, scan_id)):
        return _duplicate(table_id, scan_id)

    def attempt() -> dict[str, Any]:
        table = load_table(table_id)
        reader = detail.get("reader_id")  # a burn-done (the dealer console's) may name none; any named is the table's
        if table.get("reader_id") != reader and (event_type != "burn-done" or reader is not None):
            raise AppError(f"reader {detail.get('reader_id')!r} is not registered for table {table_id}",
                           reason="unknown-reader")
        if table.get("shoe") is None:
            raise StateConflict("no shoe at this table", reason="no-shoe")
        shoe = Shoe.from_dict(table["shoe"])
        rnd = load_round(table["round_id"]) if table.get("round_id") else None
        extra = []
        if scan_id:
            extra.append({"Put": {"TableName": settings().game_table,
                                  "Item": {**store.scan_key(table_id, scan_id), "at": store.now_ms(),
                                           "expires_at": store.now_ms() // 1000 + store.SCAN_MARKER_DAYS * 86400},
                                  "ConditionExpression": "attribute_not_exists(pk)"}})
        outcome: dict[str, Any]
        try:
            if event_type == "burn-done":
                shoe.confirm_burn()
                outcome = {"applied": "burn-done"}
            elif event_type == "cut-card":
                shoe.cut_card()
                outcome = {"applied": "cut-card", "last_round": shoe.last_round}
                if rnd is not None and rnd["status"] in ACTIVE:
                    rnd["last_round"] = shoe.is_last_round
            elif event_type == "card-scanned":
                use = shoe.scan(detail["card"])
                outcome = {"applied": str(use), "card": detail["card"]}
                if use is CardUse.ROUND:
                    outcome = _deal(rnd, detail["card"])
            else:
                raise AppError(f"unknown table event {event_type!r}", reason="unknown-event")
        except (ShoeError, CroupierError) as exc:
            if isinstance(exc, AppError):
                raise
            return _refuse_card(rnd, table_id, str(exc), extra)
        items: list[tuple[dict[str, Any], int | None]] = []
        table["shoe"] = shoe.to_dict()
        items.append((table, int(table["version"])))
        token = None
        if rnd is not None and outcome.get("dealt"):
            token = _take_token(rnd)
            items.append((rnd, int(rnd["version"])))
        elif rnd is not None and event_type == "cut-card" and rnd["status"] in ACTIVE:
            items.append((rnd, int(rnd["version"])))
        try:
            _transact_versioned(items, extra)
        except store.Conflict:
            if scan_id and store.get(store.game_table(), store.scan_key(table_id, scan_id)):
                return _duplicate(table_id, scan_id)
            raise
        workflow.resume(token)
        return outcome

    return _retry(attempt)


def _duplicate(table_id: str, scan_id: str) -> dict[str, Any]:
    """A scan applied before, delivered again: nothing is applied. The queue delivers an event
    again when the function that applied it died, possibly before it woke the workflow."""
    table = load_table(table_id)
    rnd = load_round(table["round_id"]) if table.get("round_id") else None
    if rnd is not None:
        _wake_again(rnd)
    return {"applied": "nothing", "why": f"scan {scan_id} was applied before (duplicate)"}


def _deal(rnd: dict[str, Any] | None, card: str) -> dict[str, Any]:
    if rnd is None or rnd["status"] != "playing":
        raise UnexpectedCardError("no round is being dealt at this table")
    if rnd.get("paused"):
        raise UnexpectedCardError(f"round {rnd['round_id']} is paused")
    engine = rebuild(rnd)
    engine.deal(card)  # UnexpectedCard when the engine expects no card
    rnd["events"].append({"card": card})
    return {"applied": "round-card", "card": card, "dealt": True, "round_id": rnd["round_id"]}


class UnexpectedCardError(CroupierError):
    reason = "unexpected-card"


def _refuse_card(rnd: dict[str, Any] | None, table_id: str, why: str, extra: list[dict[str, Any]]) -> dict[str, Any]:
    """A card the round cannot take: refused, and the round in play is paused for a supervisor."""
    if rnd is not None and rnd["status"] in ("playing",):
        round_id = rnd["round_id"]

        def change(current: dict[str, Any]) -> None:
            _pause(current, f"card refused: {why}")

        _mutate(round_id, change)
        return {"applied": "refused", "why": why, "paused": round_id}
    return {"applied": "refused", "why": why}


# --- decisions -------------------------------------------------------------------------------

SEATED = ("hit", "stand", "double", "split", "surrender", "insurance")
BEHIND = ("insurance", "follow-double", "follow-split")


def decide(round_id: str, player: str, seat: int, action: str, *, behind: bool = False, hand: int | None = None,
           preselect: bool = False, idempotency_key: str | None = None) -> dict[str, Any]:
    """A player's decision. Seated actions on the player's own seat; insurance and follow answers
    on the player's bet behind a seat (``behind``). Extra stakes (double, split, insurance,
    follow) are debited in the same transaction as the round's new state."""

    # Reliability fix (test_a_decision_that_died_after_it_was_applied_is_applied_once_when_retried):
    # the keys of applied decisions are kept on the round, written with the decision itself; a
    # retried request (its first attempt died after its write) is answered again, never applied a
    # second time (to the hand deciding by then: a second double, a second hit).
    done_key = f"{player}:{idempotency_key}" if idempotency_key else None

    def attempt() -> dict[str, Any]:
        rnd = load_round(round_id)
        done = (rnd.get("decision_keys") or {}).get(done_key) if done_key else None
        if done is not None:
            _wake_again(rnd)
            return {"round_id": round_id, **done, "replayed": True}
        _require_playing(rnd)
        bets = [bet_from_item(b) for b in rnd.get("engine_bets", [])]
        own_seat = any(b.type == "seat" and b.seat == seat and b.player == player for b in bets)
        own_behind = next((b for b in bets if b.type == "behind" and b.seat == seat and b.player == player), None)
        if behind:
            if own_behind is None:
                raise AppError(f"you have no bet behind seat {seat} in this round", reason="not-your-bet")
            if action not in BEHIND:
                raise AppError(f"a bet-behind answer is one of {', '.join(BEHIND)}", reason="bad-action")
            act = Action(seat, action, player, hand)
            bet_ref = own_behind
        else:
            if not own_seat:
                raise AppError(f"seat {seat} is not yours in this round", reason="not-your-seat")
            if action not in SEATED:
                raise AppError(f"a seated action is one of {', '.join(SEATED)}", reason="bad-action")
            act = Action(seat, action, None, hand)
            bet_ref = next(b for b in bets if b.type == "seat" and b.seat == seat)
        engine = rebuild(rnd)
        if preselect:
            event: dict[str, Any] = {"preselect": {"seat": seat, "action": action}}
        else:
            event = {"action": act.to_dict()}
        before = engine.balance_of(player)  # type: ignore[attr-defined]
        apply_event(engine, event)  # IllegalAction -> 409 with the engine's reason
        after = engine.balance_of(player)  # type: ignore[attr-defined]
        cost = (before - after) if before is not None and after is not None else 0
        rnd["events"].append(event)
        if done_key:
            rnd["decision_keys"] = {**(rnd.get("decision_keys") or {}), done_key: {"applied": event, "cost": cost}}
        token = _take_token(rnd)
        version = int(rnd["version"])
        rnd["version"] = version + 1
        name = settings().game_table
        round_put = {"Put": {"TableName": name, "Item": rnd, "ConditionExpression": "version = :v",
                             "ExpressionAttributeValues": {":v": version}}}
        if cost > 0:
            shard = store.shard_of(bet_ref.id, int(rnd["shards"]))
            bet_update = {"Update": {"TableName": name, "Key": store.bet_key(round_id, shard, bet_ref.id),
                                     "UpdateExpression": "ADD taken :c",
                                     "ConditionExpression": "#s = :open",
                                     "ExpressionAttributeNames": {"#s": "status"},
                                     "ExpressionAttributeValues": {":c": cost, ":open": "open"}}}
            op = f"bet:{bet_ref.id}:{action}:{len(rnd['events'])}"
            try:
                store.move_money(player, [(op, -cost, {"round_id": round_id, "bet_id": bet_ref.id, "action": action})],
                                 kind=action, extra=[round_put, bet_update])
            except store.InsufficientFunds as exc:
                raise Funds(f"insufficient funds for {action}: balance {exc.balance}, needed {exc.needed}") from exc
        else:
            try:
                store.client().transact_write_items(TransactItems=[round_put])
            except ClientError as exc:
                raise store.Conflict("round changed") from exc
        workflow.resume(token)
        return {"round_id": round_id, "applied": event, "cost": cost}

    return _retry(attempt)


# --- settlement and refunds ------------------------------------------------------------------


def _refund_bet(round_id: str, bet_id: str, shards: int, reason: str) -> None:
    shard = store.shard_of(bet_id, shards)
    item = store.get(store.game_table(), store.bet_key(round_id, shard, bet_id))
    if item is None or item["status"] != "open":
        return
    _finish_bet(item, "refund", int(item["taken"]), {"outcome": "refund", "net": 0, "paid": int(item["taken"]),
                                                       "reason": reason})


def _finish_update(item: dict[str, Any], kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """The transaction item that closes one open bet (the status condition: exactly once)."""
    return {"Update": {"TableName": settings().game_table, "Key": {"pk": item["pk"], "sk": item["sk"]},
                       "UpdateExpression": "SET #s = :done, #r = :result, finished_at = :at",
                       "ConditionExpression": "#s = :open",
                       "ExpressionAttributeNames": {"#s": "status", "#r": "result"},
                       "ExpressionAttributeValues": {":done": "refunded" if kind == "refund" else "settled",
                                                     ":open": "open", ":result": result, ":at": store.now_ms()}}}


Finishing = tuple[dict[str, Any], str, int, dict[str, Any]]
"""One bet to close: its item, ``"settle"`` or ``"refund"``, the amount credited, its result."""


def _credit(player: str, batch: Sequence[Finishing]) -> None:
    """Credit and close bets of one player, all settled or all refunded, in one transaction (their
    markers and status conditions make it exactly once)."""
    store.move_money(player, [(f"bet:{item['bet_id']}:{kind}", credit,
                               {"round_id": item["round_id"], "bet_id": item["bet_id"]})
                              for item, kind, credit, _ in batch],
                     kind=batch[0][1], extra=[_finish_update(item, kind, result) for item, kind, _, result in batch])


def _finish_bet(item: dict[str, Any], kind: str, credit: int, result: dict[str, Any]) -> None:
    """Credit one bet's payout or refund and close it, exactly once (status condition + op marker)."""
    try:
        _credit(item["player"], [(item, kind, credit, result)])
    except store.Conflict:
        fresh = store.get(store.game_table(), {"pk": item["pk"], "sk": item["sk"]})
        if fresh is None or fresh["status"] == "open":
            raise


CREDITS_PER_TRANSACTION = 32
"""Bets of one player closed in one transaction: three items each (ledger entry, marker, bet) and
the wallet: at most 100, DynamoDB's limit."""
_pool: dict[int, ThreadPoolExecutor] = {}
"""The settlement threads, by their number: made once per Lambda environment."""


def _finish_bets(work: Sequence[Finishing]) -> int:
    """Close a shard's bets: per player, in transactions of up to :data:`CREDITS_PER_TRANSACTION`
    bets (one bet at a time where a batch lost a race: a bet closed meanwhile by a duplicate run);
    different players' wallets in parallel, on ``settlement_workers`` threads. The first error
    is raised once every player is done: a retry of the shard finds only the bets still open."""
    by_player: dict[tuple[str, str], list[Finishing]] = {}  # (player, settle or refund)
    for entry in work:
        by_player.setdefault((entry[0]["player"], entry[1]), []).append(entry)

    def one_player(entries: list[Finishing]) -> None:
        for start in range(0, len(entries), CREDITS_PER_TRANSACTION):
            batch = entries[start:start + CREDITS_PER_TRANSACTION]
            try:
                _credit(batch[0][0]["player"], batch)
            except store.Conflict:
                for entry in batch:
                    _finish_bet(*entry)

    workers = settings().settlement_workers
    if workers <= 1 or len(by_player) <= 1:
        for entries in by_player.values():
            one_player(entries)
        return len(work)
    pool = _pool.get(workers) or _pool.setdefault(workers, ThreadPoolExecutor(workers, thread_name_prefix="settle"))
    # each task runs in a copy of this context (what this invocation's tracing and logging carry)
    futures = [pool.submit(contextvars.copy_context().run, one_player, entries) for entries in by_player.values()]
    errors = [f.exception() for f in futures]
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return len(work)


def settle_shard(round_id: str, shard: int) -> dict[str, Any]:
    rnd = load_round(round_id)
    if rnd["status"] not in ("settling", "settled"):
        raise StateConflict(f"round {round_id} is {rnd['status']}, not settling", reason="not-settling")
    open_items = [b for b in store.shard_bets(round_id, shard) if b["status"] == "open"]
    if not open_items:
        return {"done": 0}
    bets = [bet_from_item(b) for b in open_items]
    if rnd["game"] in BLACKJACK:
        results = {r["id"]: r for r in rnd["settlement"]["bets"]}
    else:
        engine = rebuild(rnd, bets)
        results = {r["id"]: r for r in engine.settle().to_dict(full=True)["bets"]}
    work: list[Finishing] = []
    for item in open_items:
        res = results.get(item["bet_id"])
        if res is None:  # not in the engine's round: refunded (for example a bet on an empty seat)
            work.append((item, "refund", int(item["taken"]), {"outcome": "refund", "net": 0,
                                                              "paid": int(item["taken"])}))
        else:
            if int(res["staked"]) != int(item["taken"]):
                raise AppError(f"bet {item['bet_id']}: the engine staked {res['staked']} but {item['taken']} was "
                               f"debited", reason="stake-mismatch")
            work.append((item, "settle", int(res["paid"]), res))
    return {"done": _finish_bets(work)}


def refund_shard(round_id: str, shard: int) -> dict[str, Any]:
    rnd = load_round(round_id)
    if rnd["status"] not in ("voiding", "voided"):
        raise StateConflict(f"round {round_id} is {rnd['status']}, not voiding", reason="not-voiding")
    work: list[Finishing] = [
        (item, "refund", int(item["taken"]), {"outcome": "refund", "net": 0, "paid": int(item["taken"]),
                                               "reason": "round voided"})
        for item in store.shard_bets(round_id, shard) if item["status"] == "open"]
    return {"done": _finish_bets(work)}


def _finish(round_id: str, from_status: str, to_status: str) -> dict[str, Any]:
    rnd = load_round(round_id)
    if rnd["status"] == to_status:
        return {"status": to_status}
    if rnd["status"] != from_status:
        raise StateConflict(f"round {round_id} is {rnd['status']}", reason="bad-status")
    bets = store.round_bets(round_id, int(rnd["shards"]))
    still_open = [b["bet_id"] for b in bets if b["status"] == "open"]
    if still_open:
        raise AppError(f"{len(still_open)} bet(s) still open: {', '.join(still_open[:5])}", reason="bets-open")
    house = sum(int(b["taken"]) - int((b.get("result") or {}).get("paid", 0)) for b in bets)

    def write() -> dict[str, Any]:
        current = load_round(round_id)
        if current["status"] == to_status:
            return current
        table = load_table(current["table_id"])
        current.update(status=to_status, finished_at=store.now_ms(), house_result=house, bet_count=len(bets),
                       wait_token=None, paused=False)
        if table.get("round_id") == round_id:
            shoe = Shoe.from_dict(table["shoe"]) if table.get("shoe") else None
            if shoe is not None:
                with contextlib.suppress(ShoeError):  # the shoe moved on already (a retried finish)
                    shoe.end_round()
                table["shoe"] = shoe.to_dict()
            table["round_status"] = to_status
            table["rounds_played"] = int(table.get("rounds_played", 0)) + 1
        _transact_versioned([(current, int(current["version"])), (table, int(table["version"]))])
        return current

    _retry(write)
    return {"status": to_status, "house_result": house, "bets": len(bets)}


def finish_settlement(round_id: str) -> dict[str, Any]:
    return _finish(round_id, "settling", "settled")


def finish_void(round_id: str) -> dict[str, Any]:
    return _finish(round_id, "voiding", "voided")
