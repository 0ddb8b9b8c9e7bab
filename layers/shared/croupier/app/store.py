"""DynamoDB access: every request made to the two tables, with its conditions and expressions, by
intent (no other module of the application asks DynamoDB: ``tests/unit/test_keys.py``), and the one
way money moves. Every key is built by :mod:`croupier.app.keys`.

Two tables (``template.yaml``):

``GameTable`` (``pk``, ``sk``; GSI ``by-player`` on ``gsi1pk``/``gsi1sk``)

=========================================  =================  ======================================
pk                                         sk                 what
=========================================  =================  ======================================
``TABLE#{table}``                          ``META``           game, rules, reader, seats, shoe, round
``ROUND#{round}``                          ``META``           status, version, engine events, bets
                                                              the engine needs, wait token, the id
                                                              of its rules
``ROUND#RULES#{digest}``                   ``RULES``          a round's rules in full, shared by
                                                              every round played under them
``ROUND#{round}#SHARD#{n}``                ``BET#{bet}``      one bet (sharded: bursts spread over
                                                              ``BET_SHARDS`` partitions); GSI
                                                              ``PLAYER#{player}`` / ``{time}#{bet}``
``ROUND#{round}#PLAYER#{player}``          ``BETS``           a player's bets in the round and the
                                                              idempotency keys of their requests
``BETREQUEST#{player}#{key}``              ``BETS``           a bet request accepted (its round)
``LOG#{table}``                            ``HEAD``           the table's device log: entries so far
``LOG#{table}``                            ``E#{n}``          entry ``n`` of the device log: a scan,
                                                              a failed scan, the cut card, a
                                                              shuffle, a burn; what became of it
``ONCE#{table}#{key}``                     ``ONCE``           a device event recorded (scan id or
                                                              event id): its log position (TTL)
=========================================  =================  ======================================

``WalletTable``: ``WALLET#{player}`` / ``BALANCE`` (balance, version), ``LEDGER#{seq}`` (one entry
per money movement, with the balance after it) and ``OP#{op}`` (the marker that makes a money
movement happen once); and, for tables in seamless mode, ``CALL#{transaction}`` / ``CALL``: one
call to an operator's wallet (debit, credit or cancel), its request, every attempt's answer and its
state. A call that still needs work carries ``due_pk``/``next_at`` (GSI ``due``: the outbox's
sweeper finds it there); every call carries ``round_pk`` (GSI ``by-round``: a round's calls).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any, TypeVar, cast

from botocore.exceptions import ClientError
from tenacity import RetryCallState, RetryError, Retrying, retry_if_exception_type, stop_after_attempt

from ..rules import overrides_text
from . import aws, clock
from .aws import boto3
from .config import forget_settings, settings
from .errors import NotFound
from .keys import (
    DUE,
    LEDGER,
    LOG_ENTRY,
    bet_key,
    bet_request_key,
    call_key,
    connection_key,
    ledger_key,
    log_entry_key,
    log_entry_sk,
    log_head_key,
    log_pk,
    marker_key,
    once_key,
    player_round_key,
    results_key,
    round_key,
    round_pk,
    rules_key,
    shard_pk,
    slots_key,
    table_key,
    waiting_key,
    waiting_pk,
    wallet_key,
    wallet_pk,
    watch_key,
    watch_pk,
)
from .records import (
    OUTCOME,
    BetRecord,
    BetStatus,
    Connection,
    LedgerEntry,
    LogEntry,
    Marker,
    RoundRecord,
    RoundStatus,
    TableRecord,
    WalletBalance,
    Watcher,
    WholeRecord,
)

BET_RECORD_DAYS = 400
"""Bet records are kept at least 12 months (regulators ask for 12 on request): 400 days."""
ONCE_MARKER_DAYS = 7
"""A device event is recognised as a duplicate for a week (the queue keeps events a day)."""
LOG_BATCH = 40
"""Device-log entries taken in one transaction (each is one item; DynamoDB allows 100)."""


class Conflict(Exception):
    """A conditional write lost a race (or the item moved on): the caller reloads or refuses."""


class InsufficientFunds(Exception):
    def __init__(self, player: str, balance: int, needed: int) -> None:
        super().__init__(f"player {player} has {balance} but {needed} is needed")
        self.player, self.balance, self.needed = player, balance, needed


T = TypeVar("T")


def backoff(state: RetryCallState) -> float:
    """The wait before attempt n + 1 of a write that lost a race: a random time (full jitter) between 0
    and 10 ms * 2^(n-1), at most 250 ms, so that writers who collided do not collide again in step.
    Drawn by the clock in use (:func:`clock.jitter`): a simulation's from its seed, and never from
    the ``random`` module's shared generator."""
    return clock.jitter(min(0.25, 0.01 * 2 ** (state.attempt_number - 1)))


def until_it_wins(attempt: Callable[[], T], *, lost: type[Exception], attempts: int,
                  busy: Callable[[], Exception]) -> T:
    """Run ``attempt`` (a fresh read, then a write conditioned on it) again while it raises
    ``lost`` (the write lost a race), at most ``attempts`` times with :func:`backoff` between;
    then raise ``busy()``. Any other exception (a domain error) ends it at once."""
    retrying = Retrying(retry=retry_if_exception_type(lost), stop=stop_after_attempt(attempts), wait=backoff,
                        sleep=clock.sleep, reraise=False)
    try:
        return retrying(attempt)
    except RetryError:
        raise busy() from None


class _Moved(Exception):
    """Inside this module: the item a write was conditioned on moved meanwhile; read it again."""


_local = threading.local()


def _resource() -> Any:
    """One boto3 resource per thread (resources are not thread-safe; the local stack and Lambda
    containers may call from several threads); a stand-in's own where one stands in for boto3
    (:func:`croupier.app.aws.standing_in`)."""
    sdk = aws.stand_in()
    if sdk is not None:
        return sdk.resource("dynamodb")
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
    if aws.stand_in() is not None:
        return resource.Table(name)
    tables: dict[str, Any] = _local.tables
    table = tables.get(name)
    if table is None:
        table = tables[name] = resource.Table(name)
    return table


_generation = [0]

AT_ONCE: dict[str, Any] = {"connect_timeout": 0.25, "retries": {"mode": "standard", "total_max_attempts": 1}}
"""The configuration (botocore's ``Config``) of a client for a write that is checked against the
clock right before it is sent (a bet, against the end of betting: ``records.LAST_BET_MS``, half a
second before the countdown's): one attempt, never retried by the SDK, sent within a quarter of a
second or not at all. The SDK's own retries of a throttled write (in its default mode, up to ten
attempts for DynamoDB, 50 ms apart and doubling) and its default connect timeout (a minute) could
store it seconds after the moment it was checked against; this way it is stored within one
request's time or refused, and its caller's retry (a player's screen retries with the same
idempotency key) looks at the clock again. The answer is waited for as long as the SDK waits by
default: once the request is sent, how long its answer takes does not move the write's commit."""


def client(*, at_once: bool = False) -> Any:
    """The DynamoDB client of this thread's resource (it takes and gives Python values); with
    ``at_once``, the one configured :data:`AT_ONCE`. A stand-in's is its own (it retries nothing)."""
    if not at_once or aws.stand_in() is not None:
        return _resource().meta.client
    resource = getattr(_local, "at_once", None)
    if resource is None or getattr(_local, "at_once_generation", None) != _generation[0]:
        from botocore.config import Config  # with the first bet: botocore's loads much a cold start need not

        resource = _local.at_once = boto3.resource("dynamodb", config=Config(**AT_ONCE))
        _local.at_once_generation = _generation[0]
    return resource.meta.client


def game_table() -> Any:
    return _table(settings().game_table)


def wallet_table() -> Any:
    return _table(settings().wallet_table)


def generation() -> int:
    """Bumped by :func:`reset_clients`: whoever caches a client keys it on this."""
    return _generation[0]


def reset_clients() -> None:
    """Forget cached clients, and what was read through them (tests start a fresh mock per test)."""
    _generation[0] += 1
    forget_settings()
    _rules.clear()


def plain(value: Any) -> Any:
    """DynamoDB numbers come back as Decimal: every number we store is an integer."""
    if isinstance(value, Decimal):
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def plain_image(image: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A stream record's image (an item in DynamoDB's typed form) as :func:`plain` gives a read
    item: strings, flags, nulls, maps and lists as they are, numbers as integers, in one pass
    (what the stream's deserializer and :func:`plain` give together: ``tests/unit/test_store_plain.py``).
    The kinds no item of ours holds (binaries, sets) go through the deserializer."""
    return {name: _plain_typed(value) for name, value in image.items()}


def _plain_typed(value: Mapping[str, Any]) -> Any:
    ((kind, content),) = value.items()
    if kind == "S" or kind == "BOOL":
        return content
    if kind == "N":
        try:
            return int(content)
        except ValueError:  # an exponent or a fraction: as plain reads the Decimal
            return int(Decimal(content))
    if kind == "M":
        return {key: _plain_typed(inner) for key, inner in content.items()}
    if kind == "L":
        return [_plain_typed(inner) for inner in content]
    if kind == "NULL":
        return None
    from boto3.dynamodb.types import TypeDeserializer  # here: boto3 is imported when first needed (croupier.app.aws)

    return plain(TypeDeserializer().deserialize(cast(Any, value)))


def now_ms() -> int:
    return clock.now_ms()


# --- where a bet is kept (every key: croupier.app.keys) -----------------------------------------


def shard_of(bet_id: str, shards: int) -> int:
    return int(hashlib.sha256(bet_id.encode()).hexdigest()[:8], 16) % shards


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
    ``expected_version``. Returns the written item. Refused because a transaction was in flight on
    the item (which the SDK does not retry), it is a :class:`Conflict` too: nothing was written,
    and the caller's read-modify-write is redone from a fresh read, as after a lost race."""
    item = dict(item)
    item["version"] = expected_version + 1
    try:
        table.put_item(Item=item, ConditionExpression="version = :v",
                       ExpressionAttributeValues={":v": expected_version})
    except ClientError as exc:
        code = exc.response["Error"]["Code"]
        if code == "ConditionalCheckFailedException":
            raise Conflict(f"{item['pk']} changed meanwhile (version {expected_version} is stale)") from exc
        if code == "TransactionConflictException":
            raise Conflict(f"{item['pk']} is being written by a transaction in flight") from exc
        raise
    return item


def query_all(table: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Every item a query matches, page after page (boto3's paginator), with plain values.
    ``kwargs`` as for ``Table.query``: the resource's client takes and gives Python values."""
    for page in table.meta.client.get_paginator("query").paginate(TableName=table.name, **kwargs):
        for item in page.get("Items", []):
            yield plain(item)


def scan_all(table: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Every item of a table (``kwargs``: a filter), page after page, read consistently: for the
    audit and the tests, never on a request's path."""
    items: list[dict[str, Any]] = []
    kwargs = {"ConsistentRead": True, **kwargs}
    while True:
        page = table.scan(**kwargs)
        items.extend(plain(i) for i in page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def write(ops: Sequence[dict[str, Any]], *, at_once: bool = False) -> None:
    """One DynamoDB transaction; any condition failing is a :class:`Conflict` (nothing written).
    ``at_once``: sent once, without the SDK's retries (:data:`AT_ONCE`)."""
    try:
        client(at_once=at_once).transact_write_items(TransactItems=list(ops))
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "TransactionCanceledException":
            raise Conflict("changed meanwhile") from exc
        raise


Versioned = dict[str, Any] | WholeRecord
"""What is written whole on its version: a table, a round, or an item read as a dictionary (a
player's summary of a round)."""


def versioned_put(item: Versioned, version: int | None) -> dict[str, Any]:
    """The transaction item writing a game-table item on its version (``None``: it must not exist
    yet, and starts at version 0). Sets the item's new version."""
    new = 0 if version is None else version + 1
    if isinstance(item, dict):
        item["version"] = new
        written = item
    else:
        item.version = new
        written = item.item()
    if version is None:
        return {"Put": {"TableName": settings().game_table, "Item": written,
                        "ConditionExpression": "attribute_not_exists(pk)"}}
    return {"Put": {"TableName": settings().game_table, "Item": written, "ConditionExpression": "version = :v",
                    "ExpressionAttributeValues": {":v": version}}}


def write_versioned(items: Sequence[tuple[Versioned, int | None]], extra: Sequence[dict[str, Any]] = ()) -> None:
    """Write game-table items at once, each on its version (or, with ``None``, new), with ``extra``
    transaction items. On a :class:`Conflict` the items keep the versions they were read with."""
    ops = [versioned_put(item, version) for item, version in items]
    try:
        write([*ops, *extra])
    except Conflict:
        for item, version in items:
            if version is None:
                continue
            if isinstance(item, dict):
                item["version"] = version
            else:
                item.version = version
        raise


# --- tables and rounds -----------------------------------------------------------------------


def find_table(table_id: str) -> TableRecord | None:
    item = get(game_table(), table_key(table_id))
    return None if item is None else TableRecord.from_item(item)


def load_table(table_id: str) -> TableRecord:
    table = find_table(table_id)
    if table is None:
        raise NotFound(f"no table {table_id!r}", reason="no-table")
    return table


def new_table(table: TableRecord) -> None:
    """Write a table that must not exist yet (a :class:`Conflict` if it does)."""
    put_new(game_table(), table.item())


def find_round(round_id: str, *, consistent: bool = True) -> RoundRecord | None:
    item = get(game_table(), round_key(round_id), consistent=consistent)
    return None if item is None else RoundRecord.from_item(item)


def load_round(round_id: str) -> RoundRecord:
    rnd = find_round(round_id)
    if rnd is None:
        raise NotFound(f"no round {round_id!r}", reason="no-round")
    return rnd


Whole = TypeVar("Whole", RoundRecord, TableRecord)


def save(record: Whole) -> Whole:
    """Write a table or a round on the version it was read with; it then has the version written."""
    put_versioned(game_table(), record.item(), record.version)
    record.version += 1
    return record


# --- a round's rules: stored once, read once per execution environment ------------------------

def _one_environment() -> str | None:
    return None


container: Callable[[], str | None] = _one_environment
"""Which function's execution environment runs this code: on AWS a process is one. The local
stack runs every function in one process and names the function acting here, so that what one
function has read is not known to another (on AWS each has its own memory, and reads for itself)."""
_rules: dict[tuple[str | None, int, str], str] = {}
"""The rules read or written, as :func:`rules_text` gives them, by environment, by SDK in use (a
simulation's store beside the local stack's, in a test session) and by digest."""


def keep_rules(rules: dict[str, Any]) -> str:
    """Store a round's rules in full under their digest, which the round item carries instead
    (``rules_id``): a round is written a dozen times, its rules once. Rules with that digest
    stored already stay as they are (the same rules); returns the digest."""
    text = overrides_text(rules)
    rules_id = hashlib.sha256(text.encode()).hexdigest()[:32]
    seen = (container(), aws.sdk_in_use(), rules_id)
    if seen not in _rules:
        try:
            game_table().put_item(Item={**rules_key(rules_id), "rules": rules},
                                  ConditionExpression="attribute_not_exists(pk)")
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
        _rules[seen] = overrides_text(plain(rules))
    return rules_id


def rules_text(item: RoundRecord | TableRecord) -> str:
    """The rules of a round (its ``rules_id``'s, read once and kept: they never change), or the
    rules it carries itself (a table's overrides; a round written before its rules were stored
    apart), as JSON text with its keys sorted (:func:`croupier.rules.overrides_text`): what
    :func:`croupier.rules.rules_from_text` validates once per process."""
    if isinstance(item, TableRecord) or not item.rules_id:
        return overrides_text(dict(item.rules or {}))
    rules_id, round_id = item.rules_id, item.round_id
    seen = (container(), aws.sdk_in_use(), str(rules_id))
    if seen not in _rules:
        found = get(game_table(), rules_key(str(rules_id)))
        if found is None:
            raise LookupError(f"round {round_id}: its rules {rules_id} are not stored")
        _rules[seen] = overrides_text(found["rules"])
    return _rules[seen]


def round_rules(item: RoundRecord | TableRecord) -> dict[str, Any]:
    """The rules of a round or a table (:func:`rules_text`), the caller's own copy."""
    return cast(dict[str, Any], json.loads(rules_text(item)))


def register_wait(round_id: str, version: int, token: str, at: int) -> bool:
    """Keep the workflow's task token on the round if the round is still at ``version`` (nothing
    happened since the workflow asked what it waits for); False otherwise. The tokens spent before
    go: the workflow waiting again has taken its last wake (``woken_token``) and its countdown
    (``countdown_token``), and a round item carries no more than one token from here on."""
    try:
        game_table().update_item(
            Key=round_key(round_id),
            UpdateExpression="SET wait_token = :t, wait_registered_at = :at, version = :next "
                             "REMOVE woken_token, countdown_token",
            ConditionExpression="version = :v",
            ExpressionAttributeValues={":t": token, ":v": version, ":next": version + 1, ":at": at},
        )
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


def register_countdown(round_id: str, token: str) -> bool:
    """Keep the betting countdown's task token on the round while it still takes bets (a new
    version: a writer that read the round before cannot put it back without the token)."""
    try:
        game_table().update_item(
            Key=round_key(round_id), UpdateExpression="SET countdown_token = :t, version = version + :one",
            ConditionExpression="#s = :betting", ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues={":t": token, ":betting": RoundStatus.BETTING, ":one": 1})
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


# --- bets ------------------------------------------------------------------------------------


def shard_bets(round_id: str, shard: int) -> list[BetRecord]:
    return [BetRecord.from_item(item) for item in query_all(
        game_table(), KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": shard_pk(round_id, shard)},
        ConsistentRead=True)]


def round_bets(round_id: str, shards: int) -> list[BetRecord]:
    return [bet for shard in range(shards) for bet in shard_bets(round_id, shard)]


def bet_record(round_id: str, shard: int, bet_id: str) -> BetRecord | None:
    item = get(game_table(), bet_key(round_id, shard, bet_id))
    return None if item is None else BetRecord.from_item(item)


def player_round(round_id: str, player: str) -> dict[str, Any] | None:
    """A player's bets in a round (``bets``) and the idempotency keys of their requests (``keys``)."""
    return get(game_table(), player_round_key(round_id, player))


def bet_request(player: str, key: str) -> dict[str, Any] | None:
    """The bet request of ``player`` with idempotency key ``key``, if one was accepted (its round)."""
    return get(game_table(), bet_request_key(player, key))


def bet_put(bet: BetRecord, previous_amount: int | None) -> dict[str, Any]:
    """The transaction item placing a bet: new, or (``previous_amount``) raised from that amount
    while it is still open."""
    cond: dict[str, Any] = ({"ConditionExpression": "attribute_not_exists(pk)"} if previous_amount is None else
                            {"ConditionExpression": "amount = :a AND #s = :open",
                             "ExpressionAttributeNames": {"#s": "status"},
                             "ExpressionAttributeValues": {":a": previous_amount, ":open": BetStatus.OPEN}})
    return {"Put": {"TableName": settings().game_table, "Item": bet.item(), **cond}}


def bet_request_put(player: str, key: str, round_id: str, table_id: str) -> dict[str, Any]:
    """The transaction item recording that a bet request was accepted (once per key)."""
    at = now_ms()
    return {"Put": {"TableName": settings().game_table, "ConditionExpression": "attribute_not_exists(pk)",
                    "Item": {**bet_request_key(player, key), "round_id": round_id, "table_id": table_id, "at": at,
                             "expires_at": at // 1000 + BET_RECORD_DAYS * 86400}}}


def still_betting(round_id: str) -> dict[str, Any]:
    """The transaction item that holds only while the round takes bets (open and not paused)."""
    condition = "#s = :betting AND (attribute_not_exists(paused) OR paused = :no)"
    return {"ConditionCheck": {"TableName": settings().game_table, "Key": round_key(round_id),
                               "ConditionExpression": condition,
                               "ExpressionAttributeNames": {"#s": "status"},
                               "ExpressionAttributeValues": {":betting": RoundStatus.BETTING, ":no": False}}}


def player_round_unchanged(summary: dict[str, Any] | None, round_id: str, player: str) -> dict[str, Any]:
    """The transaction item that holds only while a player's bets in the round are as read."""
    key = player_round_key(round_id, player)
    if summary is None:
        return {"ConditionCheck": {"TableName": settings().game_table, "Key": key,
                                   "ConditionExpression": "attribute_not_exists(pk)"}}
    return {"ConditionCheck": {"TableName": settings().game_table, "Key": key, "ConditionExpression": "version = :v",
                               "ExpressionAttributeValues": {":v": int(summary["version"])}}}


def add_taken(round_id: str, shard: int, bet_id: str, cost: int, debits: Sequence[str] = ()) -> dict[str, Any]:
    """The transaction item adding an extra stake (double, split, insurance, follow) to an open bet
    (with, in seamless mode, the operator's transaction ids that took it)."""
    update = "ADD taken :c"
    values: dict[str, Any] = {":c": cost, ":open": BetStatus.OPEN}
    if debits:
        update += " SET debits = list_append(if_not_exists(debits, :none), :d)"
        values.update({":none": [], ":d": list(debits)})
    return {"Update": {"TableName": settings().game_table, "Key": bet_key(round_id, shard, bet_id),
                       "UpdateExpression": update, "ConditionExpression": "#s = :open",
                       "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": values}}


def close_bet(bet: BetRecord, kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """The transaction item that closes one open bet, settled or refunded (its status condition
    makes it happen once)."""
    return {"Update": {"TableName": settings().game_table, "Key": bet.key(),
                       "UpdateExpression": "SET #s = :done, #r = :result, finished_at = :at",
                       "ConditionExpression": "#s = :open",
                       "ExpressionAttributeNames": {"#s": "status", "#r": "result"},
                       "ExpressionAttributeValues": {
                           ":done": BetStatus.REFUNDED if kind == "refund" else BetStatus.SETTLED,
                           ":open": BetStatus.OPEN, ":result": result, ":at": now_ms()}}}


# --- the device log ----------------------------------------------------------------------------


def log_head(table_id: str) -> dict[str, Any]:
    """The device log's head: its length ``count`` and, per card reader, the number ``seqs`` of the
    last of its events placed in the log (an empty head for a table that has logged nothing)."""
    return get(game_table(), log_head_key(table_id)) or {}


def log_count(table_id: str) -> int:
    return int(log_head(table_id).get("count", 0))


def once_marker(table_id: str, key: str) -> dict[str, Any] | None:
    """The marker of a device event recorded before (its log position ``n``; 0 while it waits for
    an earlier event of its reader), if any."""
    return get(game_table(), once_key(table_id, key))


def waiting_events(table_id: str) -> list[dict[str, Any]]:
    """The reader events recorded but not yet in the log, each waiting for an earlier one of its
    reader, in each reader's order."""
    return list(query_all(game_table(), KeyConditionExpression="pk = :p",
                          ExpressionAttributeValues={":p": waiting_pk(table_id)}, ConsistentRead=True))


def record_device_event(entry: LogEntry, seq: tuple[str, int] | None = None) -> int | None:
    """Record ``entry`` of a table's device (not placed yet: its ``n`` is 0) exactly once per its
    ``key`` (a scan id, or the bus event's id). Returns its log position, 0 when it waits for an
    earlier event of its reader, or None when the key was recorded before (a duplicate).

    ``seq``: ``(reader, number)`` of a card reader's event. A reader numbers its events 1, 2, 3 …
    and the log takes them in that order, whatever order they arrive in: the next number goes into
    the log at once, with every later one that was waiting for it; a later one waits (recorded,
    with its once-only marker) until the numbers before it have come; a number already placed,
    under another key, goes into the log marked ``out_of_sequence`` (the dealing refuses it). An
    event without ``seq`` (the dealer console's) is appended as it arrives."""
    name, table_id = settings().game_table, entry.table_id
    written: list[dict[str, Any]] = []  # the head this call wrote, once it placed its event

    def attempt() -> int | None:
        head = log_head(table_id)
        placed = dict(head.get("seqs") or {})
        recorded = entry
        if seq is not None:
            reader, number = seq
            last = int(placed.get(reader, 0))
            if number > last + 1:
                return _wait(entry, reader, number)
            if number <= last:
                recorded = replace(entry, out_of_sequence=f"reader {reader}'s event #{number} comes after its #{last}")
            else:
                placed[reader] = number
        n = _append(head, placed, [
            {"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                     "Item": {**once_key(table_id, entry.key), "n": int(head.get("count", 0)) + 1, "at": entry.at,
                              "expires_at": entry.at // 1000 + ONCE_MARKER_DAYS * 86400}}}], recorded)
        if n:
            written.append({"count": n, "seqs": placed})
        return n

    n = until_it_wins(attempt, lost=_Moved, attempts=20,
                      busy=lambda: Conflict(f"the device log of table {table_id} is busy"))
    if seq is not None:
        _take_waiting(table_id, seq[0], written[0] if written else None)
    return n


def _append(head: dict[str, Any], placed: dict[str, int], extra: list[dict[str, Any]], entry: LogEntry) -> int | None:
    """Append ``entry`` at the log's next position, on the head as read, with ``extra`` in the same
    transaction; None when its key's once-only marker was there first."""
    name, table_id = settings().game_table, entry.table_id
    before = int(head.get("count", 0))
    n = before + 1
    condition = ({"ConditionExpression": "attribute_not_exists(pk)"} if not head else
                 {"ConditionExpression": "#c = :before", "ExpressionAttributeNames": {"#c": "count"},
                  "ExpressionAttributeValues": {":before": before}})
    new_head: dict[str, Any] = {**log_head_key(table_id), "count": n}
    if placed:
        new_head["seqs"] = placed
    try:
        write([*extra,
               {"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                        "Item": replace(entry, n=n).item()}},
               {"Put": {"TableName": name, "Item": new_head, **condition}}])
    except Conflict:
        if once_marker(table_id, entry.key) is not None and not any("Delete" in op for op in extra):
            return None
        raise _Moved from None  # another event of the table took position n first: the next one
    return n


def _wait(entry: LogEntry, reader: str, number: int) -> int | None:
    """Keep a reader's event that came before an earlier one of its reader, on condition that the
    earlier ones are still missing (else the caller reads the head again and appends it)."""
    name, table_id, key = settings().game_table, entry.table_id, entry.key
    event = {k: v for k, v in entry.attributes().items() if k not in ("n", "key")}  # what it is, not where
    try:
        write([
            {"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                     "Item": {**once_key(table_id, key), "n": 0, "seq": number, "at": entry.at,
                              "expires_at": entry.at // 1000 + ONCE_MARKER_DAYS * 86400}}},
            {"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                     "Item": {**waiting_key(table_id, reader, number), "entry": event, "key": key}}},
            {"ConditionCheck": {"TableName": name, "Key": log_head_key(table_id),
                                "ConditionExpression": "attribute_not_exists(pk) OR attribute_not_exists(seqs.#r) "
                                                       "OR seqs.#r < :before",
                                "ExpressionAttributeNames": {"#r": reader},
                                "ExpressionAttributeValues": {":before": number - 1}}}])
    except Conflict:
        if once_marker(table_id, key) is not None:
            return None
        raise _Moved from None  # the events before it came meanwhile: it goes into the log now
    return 0


def _take_waiting(table_id: str, reader: str, written: dict[str, Any] | None = None) -> None:
    """Move the reader's events that wait for the number after its last placed one into the log, in
    order, each in one transaction with its marker (whoever comes first moves each one; the others
    find it gone). Called after every event of the reader, whatever became of it: a caller that
    died between placing a number and moving the ones after it leaves them to the next event (or
    the next delivery of the same one).

    ``written``: the head the caller just wrote, taken for the first pass instead of reading it
    (the common case, a scan in its reader's order, then costs one read: is the next one waiting?).
    Had the log moved since, the move is refused on the head's count, and the log read again."""
    name = settings().game_table
    for _ in range(LOG_BATCH * 20):  # a bound, never reached: each pass moves one event, or returns
        head, written = written if written is not None else log_head(table_id), None
        placed = dict(head.get("seqs") or {})
        number = int(placed.get(reader, 0)) + 1
        waiting = get(game_table(), waiting_key(table_id, reader, number))
        if waiting is None:
            return
        placed[reader] = number
        n = int(head.get("count", 0)) + 1
        with contextlib.suppress(_Moved):  # another caller moved it, or the log moved: read it all again
            _append(head, placed, [
                {"Delete": {"TableName": name, "Key": waiting_key(table_id, reader, number),
                            "ConditionExpression": "attribute_exists(pk)"}},
                {"Update": {"TableName": name, "Key": once_key(table_id, str(waiting["key"])),
                            "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": n}}}],
                LogEntry.recorded(table_id, {**plain(waiting["entry"]), "n": 0, "key": str(waiting["key"])}))


def log_after(table_id: str, n: int, limit: int = LOG_BATCH) -> list[LogEntry]:
    """The device log's entries after position ``n``, in order (at most ``limit``)."""
    page = game_table().query(
        KeyConditionExpression="pk = :p AND sk BETWEEN :from AND :to", ConsistentRead=True, Limit=limit,
        ExpressionAttributeValues={":p": log_pk(table_id), ":from": log_entry_sk(n + 1), ":to": log_entry_sk(99999999)})
    return [LogEntry.from_item(plain(item)) for item in page.get("Items", [])]


def log_entries(table_id: str) -> list[LogEntry]:
    """The whole device log of a table, in order."""
    return [LogEntry.from_item(item) for item in query_all(
        game_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :e)",
        ExpressionAttributeValues={":p": log_pk(table_id), ":e": LOG_ENTRY}, ConsistentRead=True)]


def log_entry(table_id: str, n: int) -> LogEntry | None:
    item = get(game_table(), log_entry_key(table_id, n))
    return None if item is None else LogEntry.from_item(item)


def log_entry_update(table_id: str, n: int, fields: dict[str, Any]) -> dict[str, Any]:
    """The transaction item recording what became of entry ``n`` of a table's device log (only
    what :data:`~croupier.app.records.OUTCOME` names)."""
    unknown = sorted(set(fields) - set(OUTCOME))
    if unknown:
        raise ValueError(f"a device-log entry's outcome has no {', '.join(unknown)}")
    names = {f"#f{i}": name for i, name in enumerate(fields)}
    values = {f":v{i}": value for i, value in enumerate(fields.values())}
    return {"Update": {"TableName": settings().game_table, "Key": log_entry_key(table_id, n),
                       "UpdateExpression": "SET " + ", ".join(f"#f{i} = :v{i}" for i in range(len(fields))),
                       "ConditionExpression": "attribute_exists(pk)",
                       "ExpressionAttributeNames": names, "ExpressionAttributeValues": values}}


# --- money -----------------------------------------------------------------------------------


CALL_HISTORY = 40
"""Attempts of one wallet call kept in full on its item (later ones update ``last`` and the count:
an outage of hours must not grow the item past DynamoDB's 400 KB)."""


def call_item(transaction: str, call: str, operator: str, request: dict[str, Any], status: str,
              due_at: int) -> dict[str, Any]:
    """A wallet call to record: ``sending`` (a debit on its way), or ``pending`` (a credit or a
    cancel in the outbox), due for the outbox at ``due_at``."""
    now = now_ms()
    return {**call_key(transaction), "transaction_id": transaction, "call": call, "operator": operator,
            "player": request.get("player"), "amount": int(request.get("amount", 0)),
            "round_id": request.get("round_id"), "bet_id": request.get("bet_id"),
            "round_pk": round_pk(str(request.get("round_id"))), "request": request, "status": status, "attempts": 0,
            "history": [], "created_at": now, "updated_at": now, "due_pk": DUE, "next_at": due_at,
            "expires_at": now // 1000 + BET_RECORD_DAYS * 86400}


def call_put(item: dict[str, Any]) -> dict[str, Any]:
    """The transaction item recording a new wallet call (its id is new: a movement is called once)."""
    return {"Put": {"TableName": settings().wallet_table, "Item": item,
                    "ConditionExpression": "attribute_not_exists(pk)"}}


def load_call(transaction: str) -> dict[str, Any] | None:
    return get(wallet_table(), call_key(transaction))


def call_settled(transaction: str, from_status: str, to_status: str, fields: dict[str, Any] | None = None,
                 ) -> dict[str, Any]:
    """The transaction item moving a call from one state to a final one (it leaves the outbox)."""
    names = {"#s": "status"}
    values: dict[str, Any] = {":from": from_status, ":to": to_status, ":at": now_ms()}
    sets = ["#s = :to", "updated_at = :at"]
    for i, (name, value) in enumerate((fields or {}).items()):
        names[f"#f{i}"] = name
        values[f":f{i}"] = value
        sets.append(f"#f{i} = :f{i}")
    return {"Update": {"TableName": settings().wallet_table, "Key": call_key(transaction),
                       "UpdateExpression": f"SET {', '.join(sets)} REMOVE due_pk, next_at",
                       "ConditionExpression": "#s = :from", "ExpressionAttributeNames": names,
                       "ExpressionAttributeValues": values}}


def call_attempted(item: dict[str, Any], attempt: dict[str, Any], *, final: str | None = None,
                   next_at: int | None = None) -> None:
    """Record one attempt of a call (its answer), and either its final state or when it is due
    again. Conditioned on the state and the attempts it was read with: a duplicate delivery that
    finished the call first is not undone, nor is an attempt a duplicate recorded first counted twice."""
    values: dict[str, Any] = {":from": item["status"], ":one": 1, ":last": attempt, ":at": now_ms(),
                              ":made": int(item.get("attempts", 0))}
    sets = ["attempts = attempts + :one", "#l = :last", "updated_at = :at"]
    if len(item.get("history") or []) < CALL_HISTORY:
        sets.append("history = list_append(history, :h)")
        values[":h"] = [attempt]
    remove = ""
    if final is not None:
        sets.append("#s = :to")
        values[":to"] = final
        remove = " REMOVE due_pk, next_at"
    elif next_at is not None:
        sets.append("next_at = :next")
        values[":next"] = next_at
    try:
        wallet_table().update_item(Key=call_key(item["transaction_id"]),
                                   UpdateExpression=f"SET {', '.join(sets)}{remove}",
                                   ConditionExpression="#s = :from AND attempts = :made",
                                   ExpressionAttributeNames={"#s": "status", "#l": "last"},
                                   ExpressionAttributeValues=values)
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            raise Conflict(f"wallet call {item['transaction_id']} moved on meanwhile") from exc
        raise


def call_woken(call: dict[str, Any]) -> bool:
    """Make a call that waits out its backoff due now (its operator's wallet is back), once: only if
    it is still pending, with the attempts and the time it was read with (the due index may lag).
    False if it moved on meanwhile: an attempt made, or another wake first."""
    try:
        wallet_table().update_item(Key=call_key(call["transaction_id"]), UpdateExpression="SET next_at = :now",
                                   ConditionExpression="#s = :pending AND attempts = :made AND next_at = :was",
                                   ExpressionAttributeNames={"#s": "status"},
                                   ExpressionAttributeValues={":now": now_ms(), ":pending": "pending",
                                                              ":made": int(call.get("attempts", 0)),
                                                              ":was": int(call["next_at"])})
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return False
        raise
    return True


def due_calls(until: int, limit: int = 200) -> list[dict[str, Any]]:
    """Wallet calls due for the outbox by ``until`` (oldest first)."""
    page = wallet_table().query(IndexName="due", KeyConditionExpression="due_pk = :d AND next_at <= :t",
                                ExpressionAttributeValues={":d": DUE, ":t": until}, Limit=limit)
    return [plain(i) for i in page.get("Items", [])]


def round_calls(round_id: str) -> list[dict[str, Any]]:
    """Every wallet call of a round (the index is eventually consistent: a reconciliation)."""
    return list(query_all(wallet_table(), IndexName="by-round", KeyConditionExpression="round_pk = :r",
                          ExpressionAttributeValues={":r": round_pk(round_id)}))


def wallet_of(player: str) -> WalletBalance | None:
    item = get(wallet_table(), wallet_key(player))
    return WalletBalance.from_item(item) if item else None


def balance_of(player: str) -> int:
    wallet = wallet_of(player)
    return wallet.balance if wallet else 0


def move_money(
    player: str,
    legs: Sequence[tuple[str, int, dict[str, Any]]],
    *,
    kind: str,
    extra: Sequence[dict[str, Any]] | Callable[[], Sequence[dict[str, Any]]] = (),
    attempts: int = 12,
    at_once: bool = False,
) -> list[Marker]:
    """Move money on one wallet, exactly once, in one DynamoDB transaction.

    ``legs`` are ``(op_id, amount, details)``: a negative amount is a debit. Each leg writes an
    ``OP#{op_id}`` marker (which must not exist: the movement happens once), a ledger entry with
    the balance after it, and the wallet's new balance conditioned on its version (no overdraft,
    no lost update). ``extra`` are more transaction items (a bet's put or status update) that must
    succeed together, or a function that gives them, called in each attempt once the wallet is
    read, right before its transaction (it may refuse by raising: nothing moves). Returns each
    leg's marker (:class:`~croupier.app.records.Marker`: its ledger entry's number and the balance
    after it). If every marker exists already the movement happened
    before: the stored markers are returned and nothing moves (an idempotent retry). The markers
    are read only when the transaction says one exists: a first attempt costs one read and one
    transaction. ``at_once``: each transaction is sent once, without the SDK's retries
    (:data:`AT_ONCE`: ``extra`` checked against the clock).
    """
    table = settings().wallet_table

    def attempt() -> list[Marker]:
        wallet = wallet_of(player)
        balance = wallet.balance if wallet else 0
        version = wallet.version if wallet else 0
        total = sum(amount for _, amount, _ in legs)
        items: list[dict[str, Any]] = []
        markers: list[Marker] = []
        running, seq, at = balance, version, now_ms()
        for op, amount, details in legs:
            entry = LedgerEntry(player, seq + 1, op, amount, running, running + amount, kind, at, details)
            running, seq = entry.balance_after, entry.seq
            markers.append(Marker(player, op, seq, amount, running, at))
            items.append({"Put": {"TableName": table, "Item": entry.item(),
                                  "ConditionExpression": "attribute_not_exists(sk)"}})
            items.append({"Put": {"TableName": table, "ConditionExpression": "attribute_not_exists(sk)",
                                  "Item": markers[-1].item()}})
        moved = WalletBalance(player, running, seq, at).item()
        if wallet:
            items.append({"Put": {"TableName": table, "Item": moved, "ConditionExpression": "version = :v",
                                  "ExpressionAttributeValues": {":v": version}}})
        else:
            items.append({"Put": {"TableName": table, "Item": moved,
                                  "ConditionExpression": "attribute_not_exists(pk)"}})
        more = extra() if callable(extra) else extra
        items.extend(more)
        if balance + total < 0:
            done = _markers(player, legs)
            if done is not None:
                return done
            raise InsufficientFunds(player, balance, -total)
        try:
            client(at_once=at_once).transact_write_items(TransactItems=items)
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            reasons = [r.get("Code", "None") for r in exc.response.get("CancellationReasons", [])]
            marker_failed = any(code == "ConditionalCheckFailed" for code in reasons[1:2 * len(legs):2])
            if marker_failed:
                done = _markers(player, legs)
                if done is not None:
                    return done
            extra_failed = any(code == "ConditionalCheckFailed" for code in reasons[len(items) - len(more):])
            if extra_failed:
                raise Conflict("the bet changed meanwhile; nothing was moved") from exc
            raise _Moved from exc  # the wallet moved meanwhile: read again
        return markers

    return until_it_wins(attempt, lost=_Moved, attempts=attempts,
                         busy=lambda: Conflict(f"wallet {player} is busy; try again"))


def _markers(player: str, legs: Sequence[tuple[str, int, dict[str, Any]]]) -> list[Marker] | None:
    """The stored markers of a movement that happened before (all of its legs), or None if none
    of them exists. Part of one existing is a conflict: never repeat a part of a movement."""
    done = [marker_of(player, op) for op, _, _ in legs]
    if all(done):
        return [d for d in done if d is not None]
    if any(done):
        raise Conflict(f"part of a money movement for {player} happened already: refusing to repeat it")
    return None


# --- a shoe's results (the lobby's roads) -------------------------------------------------------


def shoe_result_op(table_id: str, shoe_id: str, round_id: str, game: str, result: dict[str, Any]) -> dict[str, Any]:
    """The transaction item appending a settled round's result to its shoe's results, once (a
    settlement retried finds its round there already)."""
    return {"Update": {
        "TableName": settings().game_table, "Key": results_key(table_id, shoe_id),
        "UpdateExpression": "SET results = list_append(if_not_exists(results, :none), :one), "
                            "round_ids = list_append(if_not_exists(round_ids, :none), :id), game = :game",
        "ConditionExpression": "attribute_not_exists(round_ids) OR NOT contains(round_ids, :rid)",
        "ExpressionAttributeValues": {":none": [], ":one": [result], ":id": [round_id], ":rid": round_id,
                                      ":game": game}}}


# --- the views' reads ----------------------------------------------------------------------------


def index_page(partition: str, limit: int, start: dict[str, Any] | None, *, newest_first: bool = True,
               sort_between: tuple[str, str] | None = None, where: dict[str, str] | None = None,
               ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """One page of a partition of the ``by-player`` index (a player's bets, a table's rounds):
    newest first unless told, its sort keys ``sort_between`` two (inclusive), only the items whose
    attributes equal ``where``'s (read, then left out: the page may hold fewer than ``limit``).
    Its items, and the key the next page starts from (None: this was the last)."""
    values: dict[str, Any] = {":p": partition}
    condition = "gsi1pk = :p"
    if sort_between is not None:
        condition += " AND gsi1sk BETWEEN :from AND :to"
        values[":from"], values[":to"] = sort_between
    kwargs: dict[str, Any] = {"IndexName": "by-player", "KeyConditionExpression": condition,
                              "ExpressionAttributeValues": values, "ScanIndexForward": not newest_first,
                              "Limit": limit}
    if where:
        names = {f"#w{i}": name for i, name in enumerate(where)}
        kwargs["FilterExpression"] = " AND ".join(f"#w{i} = :w{i}" for i in range(len(where)))
        kwargs["ExpressionAttributeNames"] = names
        values.update({f":w{i}": value for i, value in enumerate(where.values())})
    if start:
        kwargs["ExclusiveStartKey"] = start
    page = game_table().query(**kwargs)
    return [plain(i) for i in page.get("Items", [])], page.get("LastEvaluatedKey")


def latest_ledger_entries(player: str, most: int) -> list[LedgerEntry]:
    """A wallet's last ``most`` ledger entries, newest first, read consistently: the balance shown
    beside them is (an eventually consistent read may miss the movement that balance shows)."""
    page = wallet_table().query(KeyConditionExpression="pk = :p AND begins_with(sk, :l)", ScanIndexForward=False,
                                Limit=most, ExpressionAttributeValues={":p": wallet_pk(player), ":l": LEDGER},
                                ConsistentRead=True)
    return [LedgerEntry.from_item(plain(i)) for i in page.get("Items", [])]


def marker_of(player: str, op: str) -> Marker | None:
    item = get(wallet_table(), marker_key(player, op))
    return Marker.from_item(item) if item else None


def ledger_entry(player: str, seq: int) -> LedgerEntry | None:
    item = get(wallet_table(), ledger_key(player, seq))
    return LedgerEntry.from_item(item) if item else None


def markers_from(marker: dict[str, str]) -> list[Marker]:
    """The once-only markers of a wallet whose operation begins as ``marker``'s (a key of
    :func:`~croupier.app.keys.marker_key`: a bet's movements, ``bet:{bet}:``), read consistently: a
    round's record lists every movement of its bets."""
    return [Marker.from_item(item) for item in query_all(
        wallet_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :op)",
        ExpressionAttributeValues={":p": marker["pk"], ":op": marker["sk"]}, ConsistentRead=True)]


# --- the screens: connections and their watches --------------------------------------------------


def put_connection(connection: Connection) -> None:
    """Keep a WebSocket connection (a new one, or one connecting again with the same id)."""
    game_table().put_item(Item=connection.item())


def connection_of(connection_id: str) -> Connection | None:
    item = get(game_table(), connection_key(connection_id))
    return Connection.from_item(item) if item else None


def extend_token(key: dict[str, str], until: int, *, if_there: bool = False) -> bool:
    """Set the token expiry of a connection, or of a watch of it; with ``if_there``, only if the
    item is still there (False: it was not)."""
    try:
        game_table().update_item(Key=key, UpdateExpression="SET token_expires_at = :u",
                                 ExpressionAttributeValues={":u": until},
                                 **({"ConditionExpression": "attribute_exists(pk)"} if if_there else {}))
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


def count_message(connection_id: str, second: int, most: int) -> bool:
    """Count one message of a connection in ``second``: False if it sent ``most`` in that second
    already, or the connection is not there. The first of a second starts its count again."""
    key, names = connection_key(connection_id), {"#w": "msg_second"}
    try:
        game_table().update_item(Key=key, UpdateExpression="SET #w = :s, msg_count = :one",
                                 ConditionExpression="attribute_exists(pk) AND (attribute_not_exists(#w) OR #w <> :s)",
                                 ExpressionAttributeNames=names, ExpressionAttributeValues={":s": second, ":one": 1})
        return True
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
    try:
        game_table().update_item(Key=key, UpdateExpression="ADD msg_count :one",
                                 ConditionExpression="#w = :s AND msg_count < :max", ExpressionAttributeNames=names,
                                 ExpressionAttributeValues={":s": second, ":one": 1, ":max": most})
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


def watch_ops(table: str, slot: int, room: int | None, watcher: Watcher, audience: Sequence[dict[str, str]],
              *, most_tables: int, slot_name: str, in_order: bool) -> list[dict[str, Any]]:
    """The transaction adding a table to a connection's watches: the watch (new), its audience's
    items, one more in its slot's count (if the slot has fewer than ``room``: None, no limit) and
    the table on the connection's list (and the slot it joined, ``in_order``), only if the
    connection is there, does not list the table yet and lists fewer than ``most_tables``."""
    name, connection_id = settings().game_table, watcher.connection_id
    count: dict[str, Any] = {"TableName": name, "Key": slots_key(table), "UpdateExpression": "ADD #s :one",
                             "ExpressionAttributeNames": {"#s": slot_name}, "ExpressionAttributeValues": {":one": 1}}
    if room is not None:
        count["ConditionExpression"] = "attribute_not_exists(#s) OR #s < :room"
        count["ExpressionAttributeValues"][":room"] = room
    listed: dict[str, Any] = {
        "TableName": name, "Key": connection_key(connection_id),
        "UpdateExpression": "SET tables = list_append(tables, :t)" + (", slot_at.#t = :slot" if in_order else ""),
        "ConditionExpression": "attribute_exists(pk) AND NOT contains(tables, :name) AND size(tables) < :max",
        "ExpressionAttributeValues": {":t": [table], ":name": table, ":max": most_tables,
                                      **({":slot": slot} if in_order else {})},
        **({"ExpressionAttributeNames": {"#t": table}} if in_order else {})}
    return [{"Put": {"TableName": name, "ConditionExpression": "attribute_not_exists(pk)",
                     "Item": {**watch_key(table, slot, connection_id), **watcher.attributes()}}},
            *({"Put": {"TableName": name, "Item": {**key, **watcher.attributes()}}} for key in audience),
            {"Update": count}, {"Update": listed}]


def unwatch_ops(table: str, slot: int, connection_id: str, audience: Sequence[dict[str, str]],
                slot_name: str) -> list[dict[str, Any]]:
    """The transaction taking a watch away with its audience's items and one off its slot's count,
    only if the watch is still there (two removals of it count it down once)."""
    name = settings().game_table
    return [{"Delete": {"TableName": name, "Key": watch_key(table, slot, connection_id),
                        "ConditionExpression": "attribute_exists(pk)"}},
            *({"Delete": {"TableName": name, "Key": key}} for key in audience),
            {"Update": {"TableName": name, "Key": slots_key(table), "UpdateExpression": "ADD #s :minus",
                        "ExpressionAttributeNames": {"#s": slot_name}, "ExpressionAttributeValues": {":minus": -1}}}]


def forget_connection(connection_id: str) -> None:
    game_table().delete_item(Key=connection_key(connection_id))


def set_watched(connection_id: str, tables: list[str], slot_at: dict[str, int] | None) -> None:
    """The tables a connection watches now (and the slot it joined in each, for a connection that
    keeps them)."""
    game_table().update_item(
        Key=connection_key(connection_id),
        UpdateExpression="SET tables = :t" + (", slot_at = :j" if slot_at is not None else ""),
        ExpressionAttributeValues={":t": tables, **({":j": slot_at} if slot_at is not None else {})})


def watches(watched: str, prefix: str, *, consistent: bool = False) -> Iterator[Watcher]:
    """The watchers of ``watched`` (a table, or every table) whose watch items' sort keys begin
    with ``prefix`` (a slot's, the staff's, one player's)."""
    return map(Watcher.from_item, query_all(game_table(), KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                                            ExpressionAttributeValues={":p": watch_pk(watched), ":s": prefix},
                                            **({"ConsistentRead": True} if consistent else {})))
