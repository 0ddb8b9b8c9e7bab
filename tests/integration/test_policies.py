"""Least privilege, both ways, on a round of each game (the whole suite's calls are checked at the
end of the session as well: tests/conftest.py). The roles are the ones SAM generates from
template.yaml (aws-sam-translator), with the local stack's names; the calls are the functions' own,
recorded on the stack (croupier.local.iam)."""

from __future__ import annotations

from collections import Counter

import pytest

from croupier.local import iam
from croupier.local.stack import LOCAL_OPERATOR, LocalStack
from tests.support.harness import TIMERS, Harness, nets

pytestmark = pytest.mark.integration

FUNCTIONS = ("BetsFunction", "DecisionsFunction", "TablesFunction", "WalletFunction", "QueryFunction",
             "DealingFunction", "OutboxFunction", "RoundFunction", "SettlementFunction", "LiveFunction",
             "PushFunction", "ConnectionsFunction")
SCREEN_KEYS = ("CONN#c-1", "WATCH#bac-1", "WATCH#*")
"""Partition keys of screen items: a connection, a table's watchers and slot counts."""
WRITES = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")


@pytest.fixture(scope="module")
def roles(stack: LocalStack) -> dict[str, list[iam.Statement]]:
    return stack.roles()


def arn(stack: LocalStack, table: str) -> str:
    return f"arn:aws:dynamodb:us-east-1:123456789012:table/{stack.outputs[table]}"


def refused(roles: dict[str, list[iam.Statement]], *calls: iam.Call) -> set[iam.Call]:
    return {call for call, _ in iam.check(set(calls), roles, functions=[]).refused}


def test_a_round_of_each_game_makes_only_calls_its_roles_grant(stack: LocalStack, h: Harness,
                                                                roles: dict[str, list[iam.Statement]]) -> None:
    assert stack.recorder is not None
    mark = stack.recorder.snapshot()
    bac = h.open_table(h.table("iam-bac"), "baccarat", 11, cut_at=300)
    bac.shoe.prepare(["9S", "8H", "KD", "KC"])
    final = h.round(bac, {"ana": [{"type": "player", "amount": 100}], "ben": [{"type": "banker", "amount": 100}]})
    assert final["status"] == "settled", final.get("void_reason")
    h.fund_at_operator()
    seamless = h.open_table(h.table("iam-sw"), "baccarat", 12, cut_at=300,
                            wallet={"mode": "seamless", "operator": LOCAL_OPERATOR})
    assert h.round(seamless, {"dev": [{"type": "player", "amount": 100}]})["status"] == "settled"
    pd = h.open_table(h.table("iam-pd"), "pok-deng", 13, cut_at=300)
    assert h.round(pd, {"eli": [{"type": "player-1", "amount": 100}]}, per_round_burn=1)["status"] == "settled"
    slow = {"timers": {**TIMERS, "decision": 4}}
    bj = h.open_table(h.table("iam-bj"), "blackjack", 14, cut_at=300, rules=slow)
    h.players["fay"].call("PUT", f"/tables/{bj.table_id}/seats/2")
    bj.shoe.prepare(["TS", "7H", "9D", "KC", "QH"])
    final = h.round(bj, {"fay": [{"type": "seat", "seat": 2, "amount": 200}]}, plan={2: ["stand"]})
    assert nets(h, "fay", final["round_id"]) == {"seat2": 200}
    h.players["ana"].get(f"/players/{h.players['ana'].subject}/bets")
    h.close()  # the screens' disconnects

    calls: Counter[iam.Call] = stack.recorder.since(mark)
    made = {call.function for call in calls}
    # every function took part (else this test proves nothing about it)
    assert made >= set(FUNCTIONS) - {"WalletFunction"}, sorted(set(FUNCTIONS) - made)
    verdict = iam.check(calls, roles, functions=[])
    assert not verdict.refused, "\n".join(f"{call.describe()}: {why or 'not granted'}" for call, why in verdict.refused)


def test_no_function_may_delete_batch_write_or_scan_the_wallet_ledger(stack: LocalStack,
                                                                     roles: dict[str, list[iam.Statement]]) -> None:
    wallet = arn(stack, "wallet_table")
    attempts = [iam.Call(function, action, wallet, keys)
                for function in FUNCTIONS
                for action, keys in (("dynamodb:DeleteItem", ("WALLET#p-1",)),
                                     ("dynamodb:BatchWriteItem", ("WALLET#p-1",)), ("dynamodb:Scan", ()),
                                     ("dynamodb:PartiQLDelete", ("WALLET#p-1",)))]
    assert refused(roles, *attempts) == set(attempts)


def test_screen_items_are_written_only_by_the_screens_functions(stack: LocalStack,
                                                                roles: dict[str, list[iam.Statement]]) -> None:
    game = arn(stack, "game_table")
    others = [iam.Call(function, action, game, (key,))
              for function in FUNCTIONS if function not in ("PushFunction", "ConnectionsFunction")
              for action in WRITES for key in SCREEN_KEYS]
    assert refused(roles, *others) == set(others)
    # the screens' functions write screen items, and nothing else of the game table
    game_items = ("ROUND#r-1", "ROUND#r-1#SHARD#0", "ROUND#r-1#PLAYER#p-1", "TABLE#bac-1", "LOG#bac-1",
                  "BETREQUEST#p-1#k")
    theirs = [iam.Call(function, action, game, (key,)) for function in ("PushFunction", "ConnectionsFunction")
              for action in WRITES for key in game_items]
    assert refused(roles, *theirs) == set(theirs)
    mixed = iam.Call("ConnectionsFunction", "dynamodb:BatchWriteItem", game, ("CONN#c-1", "ROUND#r-1"))
    scan = iam.Call("ConnectionsFunction", "dynamodb:Scan", game, ())
    assert refused(roles, mixed, scan) == {mixed, scan}
    assert not refused(roles, iam.Call("ConnectionsFunction", "dynamodb:PutItem", game, ("CONN#c-1",)))


def test_the_card_path_cannot_touch_bets_it_does_not_settle(stack: LocalStack,
                                                            roles: dict[str, list[iam.Statement]]) -> None:
    """A card may close betting, and the close refunds a blackjack bet without its seat bet: the
    dealing function reads and closes the round's bets (its shards). It never reads or writes a
    player's bet list or bet requests, a screen, the bet record index, nor deletes anything."""
    game = arn(stack, "game_table")
    theirs = [iam.Call("DealingFunction", action, game, (key,))
              for action in ("dynamodb:GetItem", "dynamodb:Query", *WRITES)
              for key in ("ROUND#r-1#PLAYER#p-1", "BETREQUEST#p-1#k", *SCREEN_KEYS)]
    deletes = [iam.Call("DealingFunction", action, game, (key,))
               for action in ("dynamodb:DeleteItem", "dynamodb:BatchWriteItem")
               for key in ("ROUND#r-1#SHARD#000", "ROUND#r-1", "TABLE#bac-1", "LOG#bac-1")]
    by_player = iam.Call("DealingFunction", "dynamodb:Query", f"{game}/index/by-player", ("PLAYER#p-1",))
    idempotency = iam.Call("DealingFunction", "dynamodb:PutItem", arn(stack, "wallet_table").replace(
        stack.outputs["wallet_table"], "local-croupier-idempotency"), ("croupier.bets#k",))
    assert refused(roles, *theirs, *deletes, by_player, idempotency) == {*theirs, *deletes, by_player, idempotency}
    # what the close needs is granted (else the test above would prove nothing)
    closing = [iam.Call("DealingFunction", "dynamodb:Query", game, ("ROUND#r-1#SHARD#000",)),
               iam.Call("DealingFunction", "dynamodb:UpdateItem", game, ("ROUND#r-1#SHARD#000",))]
    assert not refused(roles, *closing)
