"""DynamoDB access: keys, items and the one way money moves.

Two tables (``template.yaml``):

``GameTable`` (``pk``, ``sk``; GSI ``by-player`` on ``gsi1pk``/``gsi1sk``)

=========================================  =================  ======================================
pk                                         sk                 what
=========================================  =================  ======================================
``TABLE#{table}``                          ``META``           game, rules, reader, seats, shoe, round
``ROUND#{round}``                          ``META``           status, version, engine events, bets
                                                              the engine needs, wait token
``ROUND#{round}#SHARD#{n}``                ``BET#{bet}``      one bet (sharded: bursts spread over
                                                              ``BET_SHARDS`` partitions); GSI
                                                              ``PLAYER#{player}`` / ``{time}#{bet}``
``SCAN#{table}#{scan}``                    ``SCAN``           a card-reader scan already applied
                                                              (TTL ``expires_at``)
=========================================  =================  ======================================

``WalletTable``: ``WALLET#{player}`` / ``BALANCE`` (balance, version), ``LEDGER#{seq}`` (one entry
per money movement, with the balance after it) and ``OP#{op}`` (the marker that makes a money
movement happen once).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import boto3
from botocore.exceptions import ClientError

from .config import settings

BET_RECORD_DAYS = 400
"""Bet records are kept at least 12 months (regulators ask for 12 on request): 400 days."""
SCAN_MARKER_DAYS = 7


class Conflict(Exception):
    """A conditional write lost a race (or the item moved on): the caller reloads or refuses."""


class InsufficientFunds(Exception):
    def __init__(self, player: str, balance: int, needed: int) -> None:
        super().__init__(f"player {player} has {balance} but {needed} is needed")
        self.player, self.balance, self.needed = player, balance, needed


_local = threading.local()


def _resource() -> Any:
    """One boto3 resource per thread (resources are not thread-safe; the local stack and Lambda
    containers may call from several threads)."""
    resource = getattr(_local, "resource", None)
    if resource is None or getattr(_local, "generation", None) != _generation[0]:
        resource = _local.resource = boto3.resource("dynamodb")
        _local.tables = {}
        _local.generation = _generation[0]
    return resource


def _table(name: str) -> Any:
    """The thread's ``Table`` object for ``name``, made once (boto3 builds a resource class on
    every ``Table()`` call: milliseconds each, on every request)."""
    resource = _resource()
    tables: dict[str, Any] = _local.tables
    table = tables.get(name)
    if table is None:
        table = tables[name] = resource.Table(name)
    return table


_generation = [0]


def client() -> Any:
    return _resource().meta.client


def game_table() -> Any:
    return _table(settings().game_table)


def wallet_table() -> Any:
    return _table(settings().wallet_table)


def generation() -> int:
    """Bumped by :func:`reset_clients`: whoever caches a client keys it on this."""
    return _generation[0]


def reset_clients() -> None:
    """Forget cached clients (tests start a fresh mock per test)."""
    _generation[0] += 1
    settings.cache_clear()


def plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal: every number we store is an integer."""
    if isinstance(value, Decimal):
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def now_ms() -> int:
    return int(time.time() * 1000)


# --- keys ------------------------------------------------------------------------------------


def table_key(table_id: str) -> dict[str, str]:
    return {"pk": f"TABLE#{table_id}", "sk": "META"}


def round_key(round_id: str) -> dict[str, str]:
    return {"pk": f"ROUND#{round_id}", "sk": "META"}


def shard_of(bet_id: str, shards: int) -> int:
    return int(hashlib.sha256(bet_id.encode()).hexdigest()[:8], 16) % shards


def shard_pk(round_id: str, shard: int) -> str:
    return f"ROUND#{round_id}#SHARD#{shard:03d}"


def bet_key(round_id: str, shard: int, bet_id: str) -> dict[str, str]:
    return {"pk": shard_pk(round_id, shard), "sk": f"BET#{bet_id}"}


def scan_key(table_id: str, scan_id: str) -> dict[str, str]:
    return {"pk": f"SCAN#{table_id}#{scan_id}", "sk": "SCAN"}


def wallet_key(player: str) -> dict[str, str]:
    return {"pk": f"WALLET#{player}", "sk": "BALANCE"}


# --- plain reads and writes ------------------------------------------------------------------


def get(table: Any, key: dict[str, str], *, consistent: bool = True) -> dict[str, Any] | None:
    item = table.get_item(Key=key, ConsistentRead=consistent).get("Item")
    return plain(item) if item is not None else None


def put_new(table: Any, item: dict[str, Any]) -> None:
    """Create an item that must not exist yet."""
    try:
        table.put_item(Item=item, ConditionExpression="attribute_not_exists(pk)")
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            raise Conflict(f"{item['pk']} exists already") from exc
        raise


def put_versioned(table: Any, item: dict[str, Any], expected_version: int) -> dict[str, Any]:
    """Write ``item`` with ``version = expected_version + 1`` if the stored version is still
    ``expected_version``. Returns the written item."""
    item = dict(item)
    item["version"] = expected_version + 1
    try:
        table.put_item(Item=item, ConditionExpression="version = :v",
                       ExpressionAttributeValues={":v": expected_version})
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            raise Conflict(f"{item['pk']} changed meanwhile (version {expected_version} is stale)") from exc
        raise
    return item


def query_all(table: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    while True:
        page = table.query(**kwargs)
        for item in page.get("Items", []):
            yield plain(item)
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def shard_bets(round_id: str, shard: int) -> list[dict[str, Any]]:
    return list(query_all(game_table(), KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": shard_pk(round_id, shard)}, ConsistentRead=True))


def round_bets(round_id: str, shards: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shard in range(shards):
        out.extend(shard_bets(round_id, shard))
    return out


def mark_scan(table_id: str, scan_id: str) -> bool:
    """Record a scan id; False if it was recorded before (a duplicate delivery)."""
    try:
        put_new(game_table(), {**scan_key(table_id, scan_id), "at": now_ms(),
                               "expires_at": int(time.time()) + SCAN_MARKER_DAYS * 86400})
    except Conflict:
        return False
    return True


# --- money -----------------------------------------------------------------------------------


def balance_of(player: str) -> int:
    item = get(wallet_table(), wallet_key(player))
    return int(item["balance"]) if item else 0


def move_money(
    player: str,
    legs: Sequence[tuple[str, int, dict[str, Any]]],
    *,
    kind: str,
    extra: Sequence[dict[str, Any]] = (),
    attempts: int = 12,
) -> list[dict[str, Any]]:
    """Move money on one wallet, exactly once, in one DynamoDB transaction.

    ``legs`` are ``(op_id, amount, details)``: a negative amount is a debit. Each leg writes an
    ``OP#{op_id}`` marker (which must not exist: the movement happens once), a ledger entry with
    the balance after it, and the wallet's new balance conditioned on its version (no overdraft,
    no lost update). ``extra`` are more transaction items (a bet's put or status update) that must
    succeed together. If every marker exists already the movement happened before: the stored
    markers are returned and nothing moves (an idempotent retry). The markers are read only when
    the transaction says one exists: a first attempt costs one read and one transaction.
    """
    table = settings().wallet_table
    for _ in range(attempts):
        wallet = get(wallet_table(), wallet_key(player))
        balance = int(wallet["balance"]) if wallet else 0
        version = int(wallet["version"]) if wallet else 0
        total = sum(amount for _, amount, _ in legs)
        items: list[dict[str, Any]] = []
        entries: list[dict[str, Any]] = []
        running, seq, at = balance, version, now_ms()
        for op, amount, details in legs:
            running += amount
            seq += 1
            entry = {"pk": f"WALLET#{player}", "sk": f"LEDGER#{seq:012d}", "op": op, "amount": amount,
                     "balance_before": running - amount, "balance_after": running, "kind": kind, "at": at, **details}
            entries.append(entry)
            items.append({"Put": {"TableName": table, "Item": entry,
                                  "ConditionExpression": "attribute_not_exists(sk)"}})
            items.append({"Put": {"TableName": table, "ConditionExpression": "attribute_not_exists(sk)",
                                  "Item": {"pk": f"WALLET#{player}", "sk": f"OP#{op}", "seq": seq, "amount": amount,
                                           "balance_after": running, "at": at}}})
        wallet_item = {**wallet_key(player), "balance": running, "version": seq, "player": player,
                       "updated_at": at}
        if wallet:
            wallet_item = {**wallet, **wallet_item}
            items.append({"Put": {"TableName": table, "Item": wallet_item, "ConditionExpression": "version = :v",
                                  "ExpressionAttributeValues": {":v": version}}})
        else:
            items.append({"Put": {"TableName": table, "Item": wallet_item,
                                  "ConditionExpression": "attribute_not_exists(pk)"}})
        items.extend(extra)
        if balance + total < 0:
            done = _markers(player, legs)
            if done is not None:
                return done
            raise InsufficientFunds(player, balance, -total)
        try:
            client().transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
            marker_failed = any(code == "ConditionalCheckFailed" for code in reasons[1:2 * len(legs):2])
            if marker_failed:
                done = _markers(player, legs)
                if done is not None:
                    return done
            extra_failed = any(code == "ConditionalCheckFailed" for code in reasons[len(items) - len(extra):])
            if extra_failed:
                raise Conflict("the bet changed meanwhile; nothing was moved") from exc
            continue  # the wallet moved meanwhile: read again
        return entries
    raise Conflict(f"wallet {player} is busy; try again")


def _markers(player: str, legs: Sequence[tuple[str, int, dict[str, Any]]]) -> list[dict[str, Any]] | None:
    """The stored markers of a movement that happened before (all of its legs), or None if none
    of them exists. Part of one existing is a conflict: never repeat a part of a movement."""
    done = [get(wallet_table(), {"pk": f"WALLET#{player}", "sk": f"OP#{op}"}) for op, _, _ in legs]
    if all(done):
        return [d for d in done if d is not None]
    if any(done):
        raise Conflict(f"part of a money movement for {player} happened already: refusing to repeat it")
    return None
