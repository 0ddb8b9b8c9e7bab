"""The lobby and the tables' history: every table at a glance, a table's past rounds, its roads.

- ``GET /tables``: every table (paged): game, status, the countdown's end, limits, free seats, the
  current shoe and its roads.
- ``GET /tables/{id}/rounds``: a table's rounds, newest first (paged; ``shoe`` to keep to one
  shoe), each with its result as players see it.
- Roads: each settled Baccarat or Pok Deng round appends its result to its shoe's results
  (``SHOE#{table}#{shoe}`` / ``RESULTS``, in the finish's transaction, once); the roads are the
  pure :mod:`croupier.roads` of those results, computed when read. :mod:`croupier.roads` is imported
  by the first call that computes roads (a settlement's finish, the lobby's and the screens'
  roads), not by every function that imports this module: the round function and the card path
  import it and never compute one (``docs/deploying.md``, *The card path's cold start*).

Tables are listed through the ``by-player`` index (``gsi1pk = TABLES``), a table's rounds through
the same index (``gsi1pk = ROUNDS#{table}``, ``gsi1sk = {opened at}#{round}``).
"""

from __future__ import annotations

from typing import Any

from ..rules import PokDengRules
from . import keys, store
from .identity import Identity
from .play import play
from .queries import decode_cursor, encode_cursor, table_view
from .records import RoundRecord, RoundStatus, TableRecord, bets_until
from .rounds import BLACKJACK, table_rules

ROAD_GAMES = ("baccarat", "pok-deng")


def result_of(rnd: RoundRecord) -> dict[str, Any] | None:
    """A settled round's result as its roads read it (None for a game without roads)."""
    hands = (rnd.settlement or {}).get("hands")
    if rnd.game not in ROAD_GAMES or not hands:
        return None
    from .. import roads

    if rnd.game == "baccarat":
        return roads.baccarat_result(hands).to_dict()
    rules = table_rules(rnd)
    assert isinstance(rules, PokDengRules)
    return roads.pokdeng_result(hands, rules).to_dict()


def append_result(rnd: RoundRecord) -> dict[str, Any] | None:
    """The transaction item appending a settled round's result to its shoe's results, once."""
    result = result_of(rnd)
    if result is None:
        return None
    return store.shoe_result_op(rnd.table_id, rnd.shoe_id, rnd.round_id, rnd.game,
                                {**result, "round_in_shoe": rnd.round_in_shoe})


def shoe_roads(game: str, table_id: str, shoe_id: str | None) -> dict[str, Any] | None:
    """The roads of a shoe so far (None for a game without roads, or no shoe)."""
    if game not in ROAD_GAMES or not shoe_id:
        return None
    results = (store.get(store.game_table(), keys.results_key(table_id, shoe_id)) or {}).get("results") or []
    from .. import roads

    if game == "baccarat":
        return roads.BaccaratRoads.of(roads.BaccaratResult.from_dict(r) for r in results).to_dict()
    return roads.PokDengRoads.of(roads.PokDengResult.from_dict(r) for r in results).to_dict()


def table_summary(table: TableRecord, who: Identity) -> dict[str, Any]:
    """One table of the lobby: the table as the caller may see it, the round in play (its status
    and the countdown's end), the limits, the free seats and the current shoe's roads."""
    out = table_view(table, who)
    rules = table_rules(table)
    out["limits"] = {kind: {"min": limit.min, "max": limit.max} for kind, limit in rules.limits.items()}
    closes_at = out["closes_at"] = table.closes_at if table.round_status == RoundStatus.BETTING else None
    out["bets_until"] = None if closes_at is None else bets_until(closes_at, table.game)
    if table.game in BLACKJACK:
        taken = {int(seat) for seat in table.seats}
        out["free_seats"] = [seat for seat in range(1, rules.seats + 1) if seat not in taken]  # type: ignore[union-attr]
    out["roads"] = shoe_roads(table.game, table.table_id, (table.shoe or {}).get("shoe_id"))
    out["play"] = play(rules)
    return out


def lobby(who: Identity, limit: int, cursor: str | None) -> dict[str, Any]:
    page = _page(keys.TABLES, limit, cursor, newest_first=False)
    return {"tables": [table_summary(TableRecord.from_item(item), who) for item in page["items"]],
            "cursor": page["cursor"]}


def table_rounds(table_id: str, limit: int, cursor: str | None, shoe_id: str | None = None) -> dict[str, Any]:
    """A table's rounds, newest first, each as players see it once it is over."""
    store.load_table(table_id)  # 404 for a table that does not exist
    page = _page(keys.rounds_index(table_id), limit, cursor, newest_first=True,
                 shoe_id=shoe_id)
    lines = [_round_line(RoundRecord.from_item(item)) for item in page["items"]]
    return {"table_id": table_id, "rounds": lines, "cursor": page["cursor"]}


def _round_line(rnd: RoundRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"round_id": rnd.round_id, "shoe_id": rnd.shoe_id, "round_in_shoe": rnd.round_in_shoe,
                           "status": rnd.status, "created_at": rnd.created_at, "finished_at": rnd.finished_at,
                           "last_round": rnd.last_round}
    if rnd.status == RoundStatus.SETTLED:
        out["result"] = (rnd.settlement or {}).get("hands")
    elif rnd.status == RoundStatus.VOIDED:
        out["void_reason"] = rnd.void_reason
    return out


def _page(partition: str, limit: int, cursor: str | None, *, newest_first: bool,
          shoe_id: str | None = None) -> dict[str, Any]:
    items, last = store.index_page(partition, limit, decode_cursor(cursor, partition), newest_first=newest_first,
                                   where={"shoe_id": shoe_id} if shoe_id else None)
    return {"items": items, "cursor": encode_cursor(last)}
