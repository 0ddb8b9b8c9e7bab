"""The wallet port (:mod:`croupier.app.wallets`): Croupier's own wallets and an operator's behind
one interface, chosen once per round.

- The wallet is the round's (or, for a bet, the one that took it), never decided again by the
  code that moves the money: only the port and the seamless client reach an operator's wallet or
  move a round's money.
- Croupier's own wallet takes a stake with the caller's change, all or nothing: a refused change
  takes nothing, a short balance is a clear refusal, and a credit closes its bet exactly once.

The tests move money for bets that are not there: each on a store of its own (``own_memory``),
which no audit of the session's store reads. The operator's side of the same interface runs
against the reference operator wallet in ``tests/reliability/test_seamless_wallet.py`` (debits
voided when the bets' write fails, credits through the outbox).
"""

from __future__ import annotations

import ast
import contextlib
from dataclasses import replace
from typing import Any

import pytest

from croupier.app import store, wallets
from croupier.app.config import settings
from croupier.app.errors import Funds
from croupier.app.records import BetRecord, BetStatus, TableRecord
from croupier.games.base import Bet
from croupier.local.stack import project_root
from croupier.sim.memory import InMemory
from tests.support.pyparse import parse_files
from tests.support.records import a_round

APP = project_root() / "layers" / "shared" / "croupier" / "app"
SEAMLESS_CALLS = {"debit", "balance", "accepted", "void", "credit_call", "enqueue", "operator_of", "UNBOUNDED"}
"""What only the port calls of the seamless client to move or check a round's money."""
PORT = {"wallets.py", "seamless.py"}
CASHIER = {"queries.py"}
"""Deposits and withdrawals: Croupier's own wallet moved by its cashier, outside any round."""


def _funded(player: str, amount: int) -> None:
    store.move_money(player, [(f"deposit:{player}", amount, {})], kind="deposit")


def _marker(name: str) -> dict[str, Any]:
    """A change the taking writes with it: an item that must not exist yet."""
    return {"Put": {"TableName": settings().game_table, "Item": {"pk": f"TEST#{name}", "sk": "MARK"},
                    "ConditionExpression": "attribute_not_exists(pk)"}}


def test_the_wallet_is_the_one_the_round_opened_with() -> None:
    # GIVEN rounds (or tables) naming their wallets, and bets naming the operator that took them
    # THEN each is served by that wallet, and a round without one by Croupier's own
    assert wallets.of(a_round(wallet={"mode": "internal"})) is wallets.INTERNAL
    assert wallets.of(a_round()) is wallets.INTERNAL
    seamless = wallets.of(a_round(wallet={"mode": "seamless", "operator": "op-1"}))
    assert isinstance(seamless, wallets.Seamless) and seamless.operator == "op-1"
    table = TableRecord(table_id="t1", game="baccarat", reader_id="r1", name="t1", created_at=0,
                        wallet={"mode": "seamless", "operator": "op-3"})
    assert wallets.of(table) == wallets.Seamless("op-3") and wallets.of(replace(table, wallet=None)) is wallets.INTERNAL
    ours = BetRecord(round_id="r", shard=0, bet=Bet("b", "ana", "player", 100), table_id="t", game="baccarat",
                     status=BetStatus.OPEN, taken=100, placed_at=1, expires_at=2)
    assert wallets.of_bet(ours) is wallets.INTERNAL
    assert wallets.of_bet(replace(ours, operator="op-2", currency="EUR")) == wallets.Seamless("op-2")


def test_an_operators_wallet_leaves_the_funds_check_to_the_operator() -> None:
    # the engines are told an unbounded balance: the operator's debit is the check
    assert wallets.Seamless("op-1").funds("anyone") >= 10**15


def test_only_the_port_reaches_an_operators_wallet_or_moves_a_rounds_money() -> None:
    # GIVEN every module of the application
    trees = parse_files(sorted(APP.glob("*.py")))
    # WHEN the seamless client's money calls and the internal wallet's movements are looked for
    found = []
    for path, tree in trees.items():
        name = path.name
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
                continue
            if node.value.id == "seamless" and node.attr in SEAMLESS_CALLS and name not in PORT:
                found.append(f"{name}:{node.lineno} seamless.{node.attr}")
            if node.value.id == "store" and node.attr == "move_money" and name not in PORT | CASHIER:
                found.append(f"{name}:{node.lineno} store.move_money")
    # THEN only the port (and the cashier, for its deposits) does it
    assert found == [], "the wallet is chosen once, by croupier.app.wallets; these choose it again: " + ", ".join(found)


def test_croupiers_wallet_takes_a_stake_with_the_change_or_not_at_all(own_memory: InMemory) -> None:
    # GIVEN a player with 500
    _funded("p-take", 500)
    stake = wallets.Stake("bet:b1:stake:k1", 200, "b1", "stake", {"round_id": "r1", "bet_id": "b1"})
    # WHEN 200 is taken with a change that is written
    wallets.INTERNAL.take("p-take", "t1", "r1", [stake], kind="bet", what="these bets",
                          changes=lambda debited: [_marker("take-1")])
    # THEN the balance is 300, the change is there and the operator's transaction ids were none
    assert store.balance_of("p-take") == 300
    assert store.get(store.game_table(), {"pk": "TEST#take-1", "sk": "MARK"}) is not None
    # WHEN another stake's change is refused (its item exists already)
    again = wallets.Stake("bet:b2:stake:k2", 100, "b2", "stake", {"round_id": "r1", "bet_id": "b2"})
    with pytest.raises(store.Conflict):
        wallets.INTERNAL.take("p-take", "t1", "r1", [again], kind="bet", what="these bets",
                              changes=lambda debited: [_marker("take-1")])
    # THEN nothing was taken
    assert store.balance_of("p-take") == 300


def test_croupiers_wallet_refuses_a_stake_beyond_the_balance_and_says_so(own_memory: InMemory) -> None:
    # GIVEN a player with 100
    _funded("p-short", 100)
    stake = wallets.Stake("bet:b3:double:4", 150, "b3", "double", {"round_id": "r1", "bet_id": "b3"})
    # WHEN 150 is taken for a double
    with pytest.raises(Funds) as refused:
        wallets.INTERNAL.take("p-short", "t1", "r1", [stake], kind="double", what="double",
                              changes=lambda debited: [_marker("short")])
    # THEN the refusal says for what, the balance and the need; nothing moved or was written
    assert str(refused.value) == "insufficient funds for double: balance 100, needed 150"
    assert store.balance_of("p-short") == 100
    assert store.get(store.game_table(), {"pk": "TEST#short", "sk": "MARK"}) is None


def test_croupiers_wallet_credits_a_bet_once(own_memory: InMemory) -> None:
    # GIVEN a player with nothing, and a bet closed by the credit
    _funded("p-credit", 0)
    bet = BetRecord(round_id="r1", shard=0, bet=Bet("b4", "p-credit", "player", 250), table_id="t", game="baccarat",
                    status=BetStatus.OPEN, taken=250, placed_at=1, expires_at=2)
    batch: list[wallets.Finishing] = [(bet, "settle", 250, {"paid": 250})]
    # WHEN it is credited, then credited again (a retried settlement: its marker exists)
    wallets.INTERNAL.credit("p-credit", batch, [_marker("credit")])
    with contextlib.suppress(store.Conflict):
        wallets.INTERNAL.credit("p-credit", batch, [_marker("credit")])
    # THEN the player was paid once
    assert store.balance_of("p-credit") == 250
