"""The supervisor's search by player (``GET /players/{id}/rounds``, staff only): the rounds a
player bet in, newest first, each with its table, status and the player's bets in it.

Read through the ``by-player`` index, as the player's bet record is (``gsi1pk = PLAYER#{id}``,
``gsi1sk = {placed at, ms, 13 digits}#{bet}``): a time range is a condition on the sort key, a
table a filter. A page holds up to ``limit`` bets; a round whose bets fall on two pages appears on
both (the page merges them by round id). Bets are kept for the bet record's retention
(``BET_RECORD_DAYS``), so the search reaches as far back as the bet record does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from . import keys, store
from .queries import decode_cursor, encode_cursor
from .responses import _Out

Status = Literal["betting", "closing", "playing", "settling", "settled", "voiding", "voided"]


class PlayerBet(_Out):
    bet_id: str
    type: str
    seat: int | None = None
    mode: str | None = None
    amount: int
    status: str
    placed_at: int
    net: int | None = Field(default=None, description="the bet's result once settled (minor units)")


class PlayerRound(_Out):
    round_id: str
    table_id: str
    game: str
    round_in_shoe: int | None
    status: Status | None = Field(description="the round's status (null if the round is no longer stored)")
    created_at: int | None
    bets: list[PlayerBet] = Field(description="the player's bets in the round on this page")


class PlayerRounds(_Out):
    player: str
    rounds: list[PlayerRound] = Field(description="newest bet first")
    cursor: str | None = Field(description="the next page's cursor, or null on the last page")


def _sort_key(ms: int, last: bool) -> str:
    return f"{ms:013d}#" + ("\uffff" if last else "")


def player_rounds(player: str, limit: int, cursor: str | None, table_id: str | None = None,
                  since: int | None = None, until: int | None = None) -> dict[str, Any]:
    partition = keys.player_index(player)
    between = None
    if since is not None or until is not None:
        between = (_sort_key(since or 0, last=False), _sort_key(until if until is not None else 10**13 - 1, last=True))
    items, last = store.index_page(partition, limit, decode_cursor(cursor, partition), sort_between=between,
                                   where={"table_id": table_id} if table_id else None)
    rounds: dict[str, dict[str, Any]] = {}
    for item in items:
        entry = rounds.get(item["round_id"])
        if entry is None:
            rnd = store.get(store.game_table(), keys.round_key(item["round_id"]), consistent=False) or {}
            entry = rounds[item["round_id"]] = {
                "round_id": item["round_id"], "table_id": item["table_id"], "game": item["game"],
                "round_in_shoe": rnd.get("round_in_shoe"), "status": rnd.get("status"),
                "created_at": rnd.get("created_at"), "bets": []}
        result = item.get("result") or {}
        entry["bets"].append({
            **{k: item[k] for k in ("bet_id", "type", "seat", "mode", "amount", "status", "placed_at")
               if item.get(k) is not None},
            **({"net": int(result["net"])} if result.get("net") is not None else {})})
    return {"player": player, "rounds": list(rounds.values()), "cursor": encode_cursor(last)}
