"""Read models for the API, and the operator's wallet movements."""

from __future__ import annotations

import base64
import json
from typing import Any

from . import store
from .engine import rebuild
from .errors import AppError, Funds, NotFound, StateConflict
from .identity import Identity

STAFF = ("operator", "dealer", "supervisor")


def table_view(item: dict[str, Any], who: Identity) -> dict[str, Any]:
    """A table as the caller may see it: the id of its card reader only for the staff."""
    shoe = item.get("shoe") or None
    return {
        "table_id": item["table_id"], "name": item.get("name"), "game": item["game"], "rules": item.get("rules") or {},
        **({"reader_id": item.get("reader_id")} if who.role in STAFF else {}), "seats": item.get("seats") or {},
        "shoe": None if shoe is None else {k: shoe[k] for k in ("shoe_id", "phase", "round_in_shoe", "cut_card_out",
                                                                   "last_round", "cards_drawn", "burn_remaining")},
        "round_id": item.get("round_id"), "round_status": item.get("round_status"),
        "rounds_played": int(item.get("rounds_played", 0)),
    }


def round_summary(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item.get(k) for k in ("round_id", "table_id", "game", "round_in_shoe", "status", "paused",
                                      "pause_reason", "void_reason", "last_round", "created_at", "closes_at",
                                      "house_result")}


def round_view(round_id: str, who: Identity) -> dict[str, Any]:
    item = store.get(store.game_table(), store.round_key(round_id))
    if item is None:
        raise NotFound(f"no round {round_id!r}", reason="no-round")
    out = round_summary(item)
    out["seq"] = len(item.get("events") or [])  # the round's event count: its pushed events continue from here
    finished = item["status"] in ("settling", "settled")  # the dealer has played: every card is face up
    if item["status"] not in ("betting", "closing"):
        engine = rebuild(item)
        out["hands"] = engine.view(reveal_hidden=finished)  # a hidden card stays hidden, for everyone
        expected = engine.expected
        out["expected"] = {"kind": expected.kind, **{k: v for k, v in vars_of(expected).items() if k != "legal"}}
        if hasattr(expected, "legal"):
            out["expected"]["legal"] = sorted(expected.legal)
    if item.get("settlement") and finished:
        out["result"] = item["settlement"].get("hands")
    if who.role in STAFF:  # the dealer's console shows the decisions and window closes as they happen
        out["actions"] = [event for event in item.get("events", []) if "card" not in event]
    if item.get("blocked") and who.role in STAFF:
        out["blocked"] = item["blocked"]  # the card that paused the round, waiting for the supervisor's word
    out["bets"] = player_bets(item, who.subject) if who.role == "player" else []
    return out


def player_bets(item: dict[str, Any], player: str) -> list[dict[str, Any]]:
    """The caller's own bets in this round, with their results once settled."""
    summary = store.get(store.game_table(), {"pk": f"ROUND#{item['round_id']}#PLAYER#{player}", "sk": "BETS"})
    out = []
    for bet in (summary or {}).get("bets", []):
        stored = store.get(store.game_table(), store.bet_key(item["round_id"], int(bet["shard"]), bet["bet_id"]))
        if stored:
            out.append({k: stored.get(k) for k in ("bet_id", "type", "seat", "mode", "amount", "taken", "status",
                                                    "result") if stored.get(k) is not None})
    return out


def vars_of(obj: Any) -> dict[str, Any]:
    out = {}
    for name in getattr(obj, "__slots__", ()):
        value = getattr(obj, name)
        out[name] = list(value) if isinstance(value, tuple | frozenset) else value
    return out


def _encode(key: dict[str, Any] | None) -> str | None:
    return base64.urlsafe_b64encode(json.dumps(store.plain(key)).encode()).decode() if key else None


_CURSOR_KEYS = frozenset({"pk", "sk", "gsi1pk", "gsi1sk"})
"""What a query of the ``by-player`` index answers as ``LastEvaluatedKey``: the item's key and its index key."""


def _decode(cursor: str | None, player: str) -> dict[str, Any] | None:
    return decode_cursor(cursor, _player_partition(player))


def decode_cursor(cursor: str | None, partition: str) -> dict[str, Any] | None:
    """The ``ExclusiveStartKey`` of a cursor this API gave out for a query of the ``by-player``
    index on ``partition``: anything else (other attributes, not strings, another partition) is
    refused, never sent to DynamoDB."""
    if not cursor:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except ValueError as exc:
        raise AppError("cursor is not one this API gave out", reason="bad-cursor") from exc
    if (not isinstance(data, dict) or data.keys() != _CURSOR_KEYS
            or not all(isinstance(value, str) and value for value in data.values())
            or data["gsi1pk"] != partition):
        raise AppError("cursor is not one this API gave out", reason="bad-cursor")
    return data


def encode_cursor(key: dict[str, Any] | None) -> str | None:
    return _encode(key)


def _player_partition(player: str) -> str:
    return f"PLAYER#{player}"


def bet_record(player: str, limit: int, cursor: str | None) -> dict[str, Any]:
    """The player's bet record, newest first, paged: per bet the table, game, round, time, amounts,
    outcome and payout, the balance after its settlement (from the ledger), and per round its cards
    and hands and the decisions taken."""
    kwargs: dict[str, Any] = {"IndexName": "by-player", "KeyConditionExpression": "gsi1pk = :p",
                              "ExpressionAttributeValues": {":p": _player_partition(player)},
                              "ScanIndexForward": False, "Limit": limit}
    start = _decode(cursor, player)
    if start:
        kwargs["ExclusiveStartKey"] = start
    page = store.game_table().query(**kwargs)
    items = [store.plain(i) for i in page.get("Items", [])]
    fields = ("bet_id", "round_id", "table_id", "game", "type", "seat", "mode", "amount", "taken", "status",
              "placed_at", "result")
    bets, rounds = [], {}
    for item in items:
        entry = {k: item.get(k) for k in fields if item.get(k) is not None}
        kind = {"settled": "settle", "refunded": "refund"}.get(item["status"])
        if kind:
            key = {"pk": f"WALLET#{player}", "sk": f"OP#bet:{item['bet_id']}:{kind}"}
            marker = store.get(store.wallet_table(), key)
            if marker:
                entry["balance_after"] = int(marker["balance_after"])
        bets.append(entry)
        if item["round_id"] not in rounds:
            rounds[item["round_id"]] = _round_record(item["round_id"])
    return {"bets": bets, "rounds": rounds, "cursor": _encode(page.get("LastEvaluatedKey"))}


def _round_record(round_id: str) -> dict[str, Any]:
    rnd = store.get(store.game_table(), store.round_key(round_id), consistent=False)
    if rnd is None:
        return {}
    out: dict[str, Any] = {"status": rnd["status"], "round_in_shoe": rnd.get("round_in_shoe"),
                           "created_at": rnd.get("created_at")}
    if rnd["status"] == "settled":
        out["hands"] = (rnd.get("settlement") or {}).get("hands")
        out["decisions"] = [e["action"] for e in rnd.get("events", []) if "action" in e]
    elif rnd["status"] == "voided":
        out["void_reason"] = rnd.get("void_reason")
    return out


def wallet_view(player: str, entries: int = 20) -> dict[str, Any]:
    item = store.get(store.wallet_table(), store.wallet_key(player))
    ledger = list(store.wallet_table().query(
        KeyConditionExpression="pk = :p AND begins_with(sk, :l)", ScanIndexForward=False, Limit=entries,
        ExpressionAttributeValues={":p": f"WALLET#{player}", ":l": "LEDGER#"}).get("Items", []))
    return {"player": player, "balance": int(item["balance"]) if item else 0,
            "ledger": [{k: v for k, v in store.plain(e).items() if k not in ("pk", "sk")} for e in ledger]}


def move(player: str, amount: int, kind: str, key: str, reference: str | None) -> dict[str, Any]:
    try:
        entries = store.move_money(player, [(f"{kind}:{key}", amount, {"reference": reference or ""})], kind=kind)
    except store.InsufficientFunds as exc:
        raise Funds(f"cannot withdraw {exc.needed}: the balance is {exc.balance}") from exc
    except store.Conflict as exc:  # it kept losing its race with other movements of this wallet: nothing moved
        raise StateConflict(f"the wallet of {player} is busy; try again", reason="busy") from exc
    return {"player": player, "amount": amount, "balance": int(entries[-1]["balance_after"])}
