"""Writes sized to their purpose: a round item carries what the round needs (the id of its rules,
not the rules; one task token at a time), and the live function receives only the records whose
changes are events."""

from __future__ import annotations

from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer

from croupier.app import store
from croupier.local.meter import item_size
from tests.support.harness import Harness, wait_for

pytestmark = pytest.mark.integration

BACCARAT_BETS = {"ana": [{"type": "player", "amount": 1000}], "ben": [{"type": "banker", "amount": 500}]}
TOKENS = ("wait_token", "woken_token", "countdown_token")


def stored(round_id: str) -> dict[str, Any]:
    """The round item as stored: DynamoDB's typed attributes (as the meter sizes them)."""
    item = store.game_table().get_item(Key=store.round_key(round_id), ConsistentRead=True)["Item"]
    return {name: TypeSerializer().serialize(value) for name, value in item.items()}


def test_a_round_item_names_its_rules_and_every_round_under_the_same_rules_shares_them(h: Harness) -> None:
    # GIVEN a Baccarat table whose Player pair pays 25:1, where a round is played
    table = h.open_table(h.table("slim"), "baccarat", 21, cut_at=300)
    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"payouts": {"player_pair": "25:1"}}})
    first = h.round(table, BACCARAT_BETS)
    # WHEN a second round is played under the same rules, and a third after the table's pair pays 20:1
    second = h.round(table, BACCARAT_BETS)
    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"payouts": {"player_pair": "20:1"}}})
    third = h.round(table, BACCARAT_BETS)
    assert {r["status"] for r in (first, second, third)} == {"settled"}
    items = [stored(r["round_id"]) for r in (first, second, third)]
    # THEN no round item carries its rules, only their id: the first two share theirs, the third has its own
    assert all("rules" not in item and item["rules_id"]["S"] for item in items)
    assert items[0]["rules_id"] == items[1]["rules_id"] != items[2]["rules_id"]
    # AND the rules stored under each id are the rules in full that its rounds were played under
    kept = [store.get(store.game_table(), store.rules_key(item["rules_id"]["S"])) for item in items]
    assert kept[0] is not None and kept[2] is not None
    assert kept[0]["rules"]["payouts"]["player_pair"] == "25:1" and kept[2]["rules"]["payouts"]["player_pair"] == "20:1"
    assert set(kept[0]["rules"]) >= {"limits", "payouts", "timers"}
    assert store.round_rules(store.load_round(first["round_id"])) == kept[0]["rules"]
    # AND a settled Baccarat round of two bets fits in one write unit (1 KB), where its rules alone were 0.6 KB
    assert item_size(items[0]) <= 1024, item_size(items[0])
    # AND it keeps no token it no longer needs: its countdown's is gone, one wake's at most is left
    for item in items:
        assert "countdown_token" not in item
        held = {name: item[name] for name in TOKENS if name in item and "NULL" not in item[name]}
        assert len(held) <= 1, held
    h.audit_ok()  # the rounds replay from their stored rules


def test_the_live_function_receives_only_the_records_whose_changes_are_events(h: Harness) -> None:
    # GIVEN the records the live function receives from the game table's stream, seen as they arrive
    received: list[tuple[str, str]] = []

    def watch(function: str, event: Any, seconds: float) -> None:
        if function.endswith("-live") and isinstance(event, dict):
            received.extend((r["dynamodb"]["Keys"]["pk"]["S"], r["dynamodb"]["Keys"]["sk"]["S"])
                            for r in event.get("Records", []))

    h.stack.observers.append(watch)
    try:
        # WHEN a Baccarat round is played (each scan also moves the device log's head; each
        # player's bets have their summary item)
        table = h.open_table(h.table("filtered"), "baccarat", 22, cut_at=300)
        final = h.round(table, BACCARAT_BETS)
        assert final["status"] == "settled"
        wait_for(lambda: any(pk.startswith("ROUND#") and sk == "META" for pk, sk in received))
    finally:
        h.stack.observers.remove(watch)
    # THEN it received the round, its bets, the table and the log's entries ...
    kinds = {(pk.split("#")[0], sk.split("#")[0]) for pk, sk in received}
    assert {("ROUND", "META"), ("ROUND", "BET"), ("TABLE", "META"), ("LOG", "E")} <= kinds, kinds
    # ... and never the log's head, a player's bet summary or a round's rules, which are no events
    assert not {sk for _, sk in received} & {"HEAD", "BETS", "RULES"}, kinds
    assert store.log_head(table.table_id)["count"] > 0
    assert store.player_round(final["round_id"], h.players["ana"].subject) is not None
