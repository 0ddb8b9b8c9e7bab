"""Writes that lose a race are redone from a fresh read, with a random backoff between attempts; a
domain error ends them at once. The store's own calls are replaced by fakes here (no DynamoDB):
what is checked is what each attempt reads and writes, and when it stops."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tenacity import RetryCallState

from croupier.app import rounds, store
from croupier.app.errors import StateConflict
from croupier.app.records import LogEntry, Marker
from tests.support.patching import in_this_thread

REAL_BACKOFF = store.backoff


class Waits:
    """The real backoff's waits, recorded per attempt, without sleeping them."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, float]] = []

    def __call__(self, state: RetryCallState) -> float:
        self.seen.append((state.attempt_number, REAL_BACKOFF(state)))
        return 0.0


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    recorded = Waits()
    in_this_thread(monkeypatch).setattr(store, "backoff", recorded)
    return recorded


def flaky(results: list[Any]) -> tuple[Any, list[int]]:
    """A function that raises or returns the next of ``results`` at each call, and its call count."""
    calls: list[int] = []

    def fn() -> Any:
        calls.append(1)
        result = results[len(calls) - 1]
        if isinstance(result, Exception):
            raise result
        return result

    return fn, calls


# --- the backoff -----------------------------------------------------------------------------


def _state(attempt: int) -> RetryCallState:
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    state.attempt_number = attempt
    return state


@pytest.mark.parametrize("attempt", [1, 2, 3, 5, 8, 19])
def test_the_backoff_is_random_and_bounded(attempt: int) -> None:
    bound = min(0.25, 0.01 * 2 ** (attempt - 1))
    drawn = [REAL_BACKOFF(_state(attempt)) for _ in range(200)]
    assert all(0 <= wait <= bound for wait in drawn)
    assert len(set(drawn)) > 100  # jitter: writers who collided do not retry in step
    assert max(drawn) > bound / 2


# --- rounds.retry: a round's or table's read-modify-conditional-write -----------------------------


def test_a_lost_race_is_redone_until_it_wins(waits: Waits) -> None:
    fn, calls = flaky([store.Conflict("moved"), store.Conflict("moved"), "written"])
    assert rounds.retry(fn) == "written"
    assert len(calls) == 3
    assert [attempt for attempt, _ in waits.seen] == [1, 2]  # a backoff before each new attempt


def test_a_domain_error_stops_at_once(waits: Waits) -> None:
    fn, calls = flaky([StateConflict("betting is closed", reason="betting-closed")])
    with pytest.raises(StateConflict, match="betting is closed"):
        rounds.retry(fn)
    assert len(calls) == 1 and waits.seen == []


def test_a_race_lost_every_time_is_busy(waits: Waits) -> None:
    fn, calls = flaky([store.Conflict("moved")] * 5)
    with pytest.raises(StateConflict) as refused:
        rounds.retry(fn, attempts=5)
    assert refused.value.reason == "busy"
    assert len(calls) == 5


# --- store.put_versioned: a table or a round on its version ----------------------------------


class Versioned:
    """A table whose puts raise the next of ``outcomes`` (None: written)."""

    def __init__(self, outcomes: list[Exception | None]) -> None:
        self.outcomes, self.puts = outcomes, 0

    def put_item(self, **params: Any) -> None:
        self.puts += 1
        outcome = self.outcomes[self.puts - 1]
        if outcome is not None:
            raise outcome


def _refused(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": code}}, "PutItem")


def test_a_versioned_write_refused_by_a_transaction_in_flight_is_redone_from_a_fresh_read(waits: Waits) -> None:
    # GIVEN a round's write refused once because a transaction was in flight on it (the SDK does
    # not retry that), then written
    table, reads = Versioned([_refused("TransactionConflictException"), None]), []

    def write() -> dict[str, Any]:
        reads.append(1)  # the read of a read-modify-write
        return store.put_versioned(table, {"pk": "ROUND#r", "sk": "META"}, 3)
    # WHEN it is written as every round is, until it wins
    written = rounds.retry(write)
    # THEN it was read and written again after one backoff, at its version
    assert written["version"] == 4 and table.puts == 2 and len(reads) == 2 and len(waits.seen) == 1


def test_a_versioned_write_refused_otherwise_is_not_retried_here(waits: Waits) -> None:
    table = Versioned([_refused("ValidationException")])
    with pytest.raises(ClientError, match="ValidationException"):
        rounds.retry(lambda: store.put_versioned(table, {"pk": "ROUND#r", "sk": "META"}, 3))
    assert table.puts == 1 and waits.seen == []


# --- store.move_money: the wallet's version ----------------------------------------------------


def _canceled(reasons: list[str]) -> ClientError:
    return ClientError({"Error": {"Code": "TransactionCanceledException", "Message": "canceled"},
                        "CancellationReasons": [{"Code": code} for code in reasons]}, "TransactWriteItems")


class Wallets:
    """The wallet table as move_money sees it: each read of the wallet returns the next state; each
    transaction raises the next error or succeeds."""

    def __init__(self, states: list[dict[str, Any] | None], outcomes: list[Exception | None]) -> None:
        self.states, self.outcomes = states, outcomes
        self.reads = 0
        self.transactions: list[list[dict[str, Any]]] = []
        self.markers: dict[str, dict[str, Any]] = {}

    def get(self, table: Any, key: dict[str, str], *, consistent: bool = True) -> dict[str, Any] | None:
        if key["sk"] == "BALANCE":
            self.reads += 1
            return self.states[min(self.reads, len(self.states)) - 1]
        return self.markers.get(key["sk"])

    def transact_write_items(self, TransactItems: list[dict[str, Any]]) -> None:
        self.transactions.append(TransactItems)
        outcome = self.outcomes[len(self.transactions) - 1]
        if outcome is not None:
            raise outcome


@pytest.fixture
def wallets(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(states: list[dict[str, Any] | None], outcomes: list[Exception | None]) -> Wallets:
        fake = Wallets(states, outcomes)
        patch = in_this_thread(monkeypatch)  # a local stack's threads, if any, keep the store's own
        patch.setattr(store, "settings", lambda: SimpleNamespace(wallet_table="wallets", game_table="game"))
        patch.setattr(store, "wallet_table", lambda: "wallets")
        patch.setattr(store, "get", fake.get)
        patch.setattr(store, "client", lambda at_once=False: fake)
        return fake
    return install


def _wallet_put(items: list[dict[str, Any]]) -> dict[str, Any]:
    return next(i["Put"] for i in items if i.get("Put", {}).get("Item", {}).get("sk") == "BALANCE")


def test_money_moved_meanwhile_is_moved_again_from_a_fresh_read(wallets: Any, waits: Waits) -> None:
    # the first attempt reads version 4; another movement wins the race (version 5, +50) and the
    # wallet's condition fails: the second attempt reads again and writes on version 5
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 100, "version": 4},
                    {"pk": "WALLET#p", "sk": "BALANCE", "balance": 150, "version": 5}],
                   [_canceled(["None", "None", "ConditionalCheckFailed"]), None])
    markers = store.move_money("p", [("bet:b1:stake:k", -30, {})], kind="bet")
    assert fake.reads == 2 and len(fake.transactions) == 2 and len(waits.seen) == 1
    first, second = (_wallet_put(t) for t in fake.transactions)
    assert (first["ExpressionAttributeValues"], first["Item"]["balance"]) == ({":v": 4}, 70)
    assert (second["ExpressionAttributeValues"], second["Item"]["balance"]) == ({":v": 5}, 120)
    assert [(m.seq, m.amount, m.balance_after) for m in markers] == [(6, -30, 120)]
    entry = next(i["Put"]["Item"] for i in fake.transactions[1] if i["Put"]["Item"]["sk"].startswith("LEDGER#"))
    assert (entry["balance_before"], entry["balance_after"], entry["sk"]) == (150, 120, "LEDGER#000000000006")


def test_insufficient_funds_stops_at_once(wallets: Any, waits: Waits) -> None:
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 10, "version": 1}], [])
    with pytest.raises(store.InsufficientFunds, match="has 10 but 30 is needed"):
        store.move_money("p", [("bet:b1:stake:k", -30, {})], kind="bet")
    assert fake.reads == 1 and fake.transactions == [] and waits.seen == []


def test_a_bet_changed_meanwhile_stops_at_once(wallets: Any, waits: Waits) -> None:
    extra = [{"ConditionCheck": {"TableName": "game", "Key": {"pk": "BET", "sk": "b1"},
                                 "ConditionExpression": "#s = :open"}}]
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 100, "version": 1}],
                   [_canceled(["None", "None", "None", "ConditionalCheckFailed"])])
    with pytest.raises(store.Conflict, match="the bet changed meanwhile"):
        store.move_money("p", [("settle:b1", 60, {})], kind="settlement", extra=extra)
    assert len(fake.transactions) == 1 and waits.seen == []


def test_a_movement_made_before_is_answered_not_repeated(wallets: Any, waits: Waits) -> None:
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 160, "version": 2}],
                   [_canceled(["None", "ConditionalCheckFailed", "None"])])
    fake.markers["OP#settle:b1"] = {"pk": "WALLET#p", "sk": "OP#settle:b1", "seq": 2, "amount": 60,
                                    "balance_after": 160, "at": 1_700_000_000_000}
    assert store.move_money("p", [("settle:b1", 60, {})], kind="settlement") == [
        Marker("p", "settle:b1", 2, 60, 160, 1_700_000_000_000)]  # the stored marker, nothing moved
    assert len(fake.transactions) == 1 and waits.seen == []


def test_another_storage_error_is_not_retried_here(wallets: Any, waits: Waits) -> None:
    throttled = ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                            "TransactWriteItems")
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 100, "version": 1}], [throttled])
    with pytest.raises(ClientError, match="slow down"):
        store.move_money("p", [("deposit:k", 10, {})], kind="deposit")
    assert len(fake.transactions) == 1 and waits.seen == []


def test_a_wallet_that_always_moves_is_busy(wallets: Any, waits: Waits) -> None:
    moved = _canceled(["None", "None", "ConditionalCheckFailed"])
    fake = wallets([{"pk": "WALLET#p", "sk": "BALANCE", "balance": 100, "version": v} for v in range(1, 5)],
                   [moved] * 4)
    with pytest.raises(store.Conflict, match="wallet p is busy"):
        store.move_money("p", [("deposit:k", 10, {})], kind="deposit", attempts=4)
    assert fake.reads == 4 and len(fake.transactions) == 4


# --- store.record_device_event: the device log's next position -----------------------------------


@pytest.fixture
def device_log(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    log: dict[str, Any] = {"count": [0], "writes": [], "conflicts": 0, "marker": None}

    def write(ops: list[dict[str, Any]]) -> None:
        log["writes"].append(ops)
        if log["conflicts"]:
            log["conflicts"] -= 1
            log["count"][0] += 1  # another event of the table took that position first
            raise store.Conflict("changed meanwhile")

    patch = in_this_thread(monkeypatch)  # a local stack's threads, if any, keep the store's own
    patch.setattr(store, "settings", lambda: SimpleNamespace(game_table="game"))
    patch.setattr(store, "log_head", lambda table_id: {"count": log["count"][0]} if log["count"][0] else {})
    patch.setattr(store, "once_marker", lambda table_id, key: log["marker"])
    patch.setattr(store, "write", write)
    return log


SCAN = LogEntry(table_id="t1", n=0, key="scan-1", kind="card-scanned", at=1000, card="TD")


def _entry_position(ops: list[dict[str, Any]]) -> int:
    return int(ops[1]["Put"]["Item"]["n"])


def test_a_device_event_that_lost_its_position_takes_the_next(device_log: dict[str, Any], waits: Waits) -> None:
    device_log["conflicts"] = 2
    assert store.record_device_event(SCAN) == 3
    assert [_entry_position(ops) for ops in device_log["writes"]] == [1, 2, 3]
    assert len(waits.seen) == 2


def test_a_device_event_recorded_before_is_a_duplicate_at_once(device_log: dict[str, Any], waits: Waits) -> None:
    device_log["conflicts"], device_log["marker"] = 1, {"n": 7}
    assert store.record_device_event(SCAN) is None
    assert len(device_log["writes"]) == 1 and waits.seen == []


def test_a_device_log_that_always_moves_is_busy(device_log: dict[str, Any], waits: Waits) -> None:
    device_log["conflicts"] = 100
    with pytest.raises(store.Conflict, match="the device log of table t1 is busy"):
        store.record_device_event(SCAN)
    assert len(device_log["writes"]) == 20
