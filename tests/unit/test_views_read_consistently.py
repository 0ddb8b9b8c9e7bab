"""What the players and the operators are shown of money is read strongly consistently: DynamoDB's
eventually consistent reads may miss a write made a moment before, and a wallet whose balance shows
a movement its ledger does not list, or a round's record missing a movement, is a dispute waiting.

Each test runs on a store of its own (``own_memory``) whose eventually consistent reads see the
tables as they were a second before (``FakeDynamo.stale_reads_within``): what moto, and DynamoDB
most of the time, would hide."""

from __future__ import annotations

from croupier.app import keys, queries, store
from croupier.sim.memory import InMemory


def stale(memory: InMemory) -> None:
    memory.dynamo.stale_reads_within(lambda table: 1.0, 1.0)


def test_a_wallet_view_lists_every_movement_its_balance_shows(own_memory: InMemory) -> None:
    # GIVEN eventually consistent reads a second behind
    stale(own_memory)
    # WHEN a player deposits twice and views the wallet at once
    queries.move("p-1", 500, "deposit", "first", None)
    queries.move("p-1", 200, "deposit", "second", None)
    view = queries.wallet_view("p-1")
    # THEN the ledger lists both movements the balance shows, newest first
    assert view["balance"] == 700
    assert [(e["amount"], e["balance_after"]) for e in view["ledger"]] == [(200, 700), (500, 500)]


def test_a_rounds_record_finds_every_movement_of_its_bets(own_memory: InMemory) -> None:
    # GIVEN eventually consistent reads a second behind, and a wallet with money
    stale(own_memory)
    queries.move("p-2", 1000, "deposit", "first", None)
    # WHEN a bet's stake is taken and its win credited, and its movements looked up at once
    store.move_money("p-2", [("bet:b-1:stake", -100, {"bet_id": "b-1"})], kind="stake")
    store.move_money("p-2", [("bet:b-1:settle", 250, {"bet_id": "b-1"})], kind="settle")
    found = store.markers_from(keys.marker_key("p-2", "bet:b-1:"))
    # THEN both are found, as the record of the round lists them
    assert sorted(marker.balance_after for marker in found) == [900, 1150]
