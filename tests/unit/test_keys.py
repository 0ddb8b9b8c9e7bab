"""Every key of the two tables is spelled in one module, ``croupier.app.keys``: what an item is, and
whose, is read back from its key by the same module that wrote it. Every request to the tables,
its conditions and expressions, is made in one module too, ``croupier.app.store``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from croupier.app import keys
from croupier.local.stack import project_root
from tests.support.pyparse import parse_files

ROOT = project_root()
SOURCES = [*(ROOT / "layers" / "shared" / "croupier").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]
KEYS_MODULE = ROOT / "layers" / "shared" / "croupier" / "app" / "keys.py"
PREFIX = re.compile(r"^(ROUND|ROUNDS|TABLE|WALLET|LEDGER|OP|BET|BETREQUEST|WATCH|CONN|SHOE|PLAYER|LOG|ONCE|E|CALL|P|S|"
                    r"WAITING)#")
"""How every key of the tables begins (a string that begins so is a key, or a key's prefix)."""


def test_no_module_but_keys_spells_a_key() -> None:
    # GIVEN every module of the package and of the functions
    trees = parse_files(sorted(path for path in SOURCES if path != KEYS_MODULE))
    # WHEN their strings (and the literal parts of their f-strings) are read
    spelled = [f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
               for path, tree in trees.items() for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and PREFIX.match(node.value)]
    # THEN none begins like a key: each is built by croupier.app.keys
    assert spelled == [], "keys spelled outside croupier.app.keys: " + ", ".join(spelled)


STORE_MODULE = ROOT / "layers" / "shared" / "croupier" / "app" / "store.py"
APPLICATION = sorted(path for path in (ROOT / "layers" / "shared" / "croupier" / "app").rglob("*.py")
                     if path != STORE_MODULE)
REQUESTS = frozenset({"put_item", "update_item", "delete_item", "get_item", "query", "scan", "batch_get_item",
                      "batch_write_item", "transact_write_items", "transact_get_items"})
"""What DynamoDB is asked: called (by keyword alone, as boto3 takes it) anywhere but the store, it
is a request made outside the store."""
REQUEST_PARTS = frozenset({"ConditionExpression", "UpdateExpression", "KeyConditionExpression", "FilterExpression",
                           "ProjectionExpression", "Put", "Update", "Delete", "ConditionCheck"})
"""The parts of a request or of a transaction's item: spelled anywhere but the store, it is a
condition or an expression written outside it."""


def test_no_module_of_the_application_but_the_store_asks_dynamodb() -> None:
    # GIVEN the application's modules but the store
    trees = parse_files(APPLICATION)
    # WHEN their calls and their strings are read
    found = [f"{path.relative_to(ROOT)}:{node.lineno} {name}"
             for path, tree in trees.items() for node in ast.walk(tree)
             for name in _request(node) if name]
    # THEN none calls DynamoDB or spells a condition, an expression or a transaction's item
    assert found == [], "DynamoDB asked outside croupier.app.store: " + ", ".join(found)


def _request(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REQUESTS \
            and not node.args:
        return [f".{node.func.attr}(...)"]
    if isinstance(node, ast.keyword) and node.arg in REQUEST_PARTS:
        return [f"{node.arg}="]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in REQUEST_PARTS:
        return [repr(node.value)]
    return []


def test_the_store_check_finds_a_request_made_elsewhere(tmp_path: Path) -> None:
    module = tmp_path / "elsewhere.py"
    module.write_text("def f(t, shoe):\n    t.update_item(Key={}, UpdateExpression='SET a = :a')\n"
                      "    shoe.scan('AS')\n    return {'Update': {}}\n")
    tree = parse_files([module])[module]
    assert sorted(name for node in ast.walk(tree) for name in _request(node)) == [
        "'Update'", ".update_item(...)", "UpdateExpression="]


@pytest.mark.parametrize(("key", "kind"), [
    (keys.table_key("t1"), "table"),
    (keys.round_key("r1"), "round"),
    (keys.bet_key("r1", 7, "b1"), "bet"),
    (keys.log_entry_key("t1", 12), "log-entry"),
    (keys.call_key("tx1"), "call"),
    (keys.wallet_key("p1"), "wallet"),
    (keys.ledger_key("p1", 3), "ledger-entry"),
    (keys.marker_key("p1", "bet:b1:settle"), "marker"),
    (keys.player_round_key("r1", "p1"), None),
    (keys.rules_key("abc"), None),
    (keys.log_head_key("t1"), None),
    (keys.once_key("t1", "scan-1"), None),
    (keys.connection_key("c1"), None),
    (keys.watch_key("t1", 2, "c1"), None),
    (keys.results_key("t1", "s1"), None),
])
def test_what_an_item_is_is_read_from_its_key(key: dict[str, str], kind: str | None) -> None:
    assert keys.kind_of(key) == kind


def test_whose_an_item_is_is_read_back_from_its_key() -> None:
    # a round's id with the separators a key uses, and a player's
    round_id, player = "t-1-s-2-003-ab#cd", "p#1"
    assert keys.round_of(keys.round_key(round_id)["pk"]) == round_id
    assert keys.round_of(keys.bet_key(round_id, 15, "b1")["pk"]) == round_id
    assert keys.bet_of(keys.bet_key(round_id, 15, "b-9")["sk"]) == "b-9"
    assert keys.player_of(keys.ledger_key(player, 4)["pk"]) == player
    assert keys.op_of(keys.marker_key(player, "bet:b1:refund")["sk"]) == "bet:b1:refund"
    assert keys.table_of_log(keys.log_entry_key("t-7", 1)["pk"]) == "t-7"


def test_numbered_keys_sort_in_their_numbers_order() -> None:
    # a query reads a log, a ledger or a slot's watchers in key order: it must be the numbers' order
    assert sorted([keys.log_entry_sk(n) for n in (10, 9, 100)]) == [keys.log_entry_sk(n) for n in (9, 10, 100)]
    assert sorted([keys.ledger_key("p", n)["sk"] for n in (10, 9)]) == [keys.ledger_key("p", n)["sk"] for n in (9, 10)]
    assert keys.watch_key("t", 3, "c")["sk"].startswith(keys.watch_slot(3))


def test_the_keys_module_is_plain_python() -> None:
    # no AWS in it: the in-memory store, the local stack and the tests read the same keys
    tree = ast.parse(Path(keys.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "collections.abc", "typing"}, imported
