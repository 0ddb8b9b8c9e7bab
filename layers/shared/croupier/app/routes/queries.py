"""The query function's routes: every read-only view, as the caller may see it."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from .. import dealing, lobby, queries, store
from .. import help as help_figures
from .. import player_rounds as player_search
from ..api import READ_ERRORS, PlayerId, RoundId, TableId, caller, doc
from ..help import TableHelp
from ..player_rounds import PlayerRounds
from ..responses import (
    BetRecord,
    Lobby,
    RoundRecord,
    RoundView,
    TableLog,
    TableRounds,
    TableSummary,
    TableWalletView,
    WalletView,
    out,
)

router = Router()


@router.get("/tables", summary="The lobby: every table, its round, limits, free seats and roads (paged)",
            **doc("listTables", "tables", Lobby, (400, *READ_ERRORS)))
def list_tables(limit: Annotated[int, Query(ge=1, le=100, description="tables per page")] = 20,
                cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                ) -> dict[str, Any]:
    return out(Lobby, lobby.lobby(caller(router), limit, cursor))


@router.get("/tables/<table_id>", summary="A table: game, rules, seats, shoe, current round, limits, roads",
            **doc("getTable", "tables", TableSummary, READ_ERRORS))
def get_table(table_id: TableId) -> dict[str, Any]:
    return out(TableSummary, lobby.table_summary(store.load_table(table_id), caller(router)))


@router.get("/tables/<table_id>/rounds", summary="A table's rounds, newest first, with their results (paged)",
            **doc("getTableRounds", "tables", TableRounds, (400, *READ_ERRORS)))
def table_rounds(table_id: TableId,
                 limit: Annotated[int, Query(ge=1, le=100, description="rounds per page")] = 20,
                 cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                 shoe: Annotated[str | None, Query(max_length=40, description="only this shoe's rounds")] = None,
                 ) -> dict[str, Any]:
    caller(router)
    return out(TableRounds, lobby.table_rounds(table_id, limit, cursor, shoe))


@router.get("/tables/<table_id>/log", summary="The table's device log: every scan and console event, in order",
            **doc("getTableLog", "tables", TableLog, READ_ERRORS))
def table_log(table_id: TableId) -> dict[str, Any]:
    caller(router).require("operator", "dealer", "supervisor").require_table(table_id)
    table = store.load_table(table_id)  # 404 for a table that does not exist
    return out(TableLog, {"table_id": table_id, "entries": dealing.device_log(table_id, table.round_id)})


@router.get("/rounds/<round_id>", summary="A round as the caller may see it (hidden cards stay hidden)",
            **doc("getRound", "rounds", RoundView, READ_ERRORS))
def get_round(round_id: RoundId) -> dict[str, Any]:
    return out(RoundView, queries.round_view(round_id, caller(router)))


@router.get("/rounds/<round_id>/transcript",
            summary="A settled round's record for a dispute: its transcript (for croupier replay), bets, ledger "
                    "(supervisor, operator)",
            **doc("getRoundTranscript", "rounds", RoundRecord, (409, *READ_ERRORS)))
def round_transcript(round_id: RoundId) -> dict[str, Any]:
    caller(router).require("supervisor", "operator")
    return out(RoundRecord, queries.round_record(round_id))


@router.get("/players/<player_id>/bets", summary="A player's bet record, newest first, paged",
            **doc("getBetRecord", "bets", BetRecord, (400, *READ_ERRORS)))
def bet_record(player_id: PlayerId,
               limit: Annotated[int, Query(ge=1, le=100, description="bets per page")] = 20,
               cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
               ) -> dict[str, Any]:
    caller(router).require_self(player_id)
    return out(BetRecord, queries.bet_record(player_id, limit, cursor))


@router.get("/wallets/<player_id>", summary="A wallet's balance and latest ledger entries",
            **doc("getWallet", "wallets", WalletView, READ_ERRORS))
def wallet(player_id: PlayerId) -> dict[str, Any]:
    caller(router).require_self(player_id)
    return out(WalletView, queries.wallet_view(player_id))


@router.get("/tables/<table_id>/wallets/<player_id>",
            summary="A player's balance in the table's wallet: Croupier's own, or the operator's (seamless)",
            **doc("getTableWallet", "wallets", TableWalletView, (409, *READ_ERRORS, 503)))
def table_wallet(table_id: TableId, player_id: PlayerId) -> dict[str, Any]:
    caller(router).require_self(player_id)
    return out(TableWalletView, queries.table_wallet(store.load_table(table_id), player_id))


@router.get("/tables/<table_id>/help",
            summary="A table's help figures from its rules: each bet's exact RTP, Baccarat's drawing rules",
            **doc("getTableHelp", "tables", TableHelp, READ_ERRORS))
def table_help(table_id: TableId) -> dict[str, Any]:
    caller(router)
    return out(TableHelp, help_figures.table_help(store.load_table(table_id)))


@router.get("/players/<player_id>/rounds",
            summary="The rounds a player bet in, newest first, with their bets (supervisor, operator)",
            **doc("getPlayerRounds", "rounds", PlayerRounds, (400, *READ_ERRORS)))
def player_rounds(player_id: PlayerId,
                  limit: Annotated[int, Query(ge=1, le=100, description="bets per page")] = 50,
                  cursor: Annotated[str | None, Query(max_length=512, description="the previous page's cursor")] = None,
                  table: Annotated[str | None, Query(max_length=40, pattern=r"^[A-Za-z0-9_-]+$",
                                                     description="only this table's rounds")] = None,
                  since: Annotated[int | None, Query(ge=0, lt=10**13, description="bets placed from, ms")] = None,
                  until: Annotated[int | None, Query(ge=0, lt=10**13, description="bets placed until, ms")] = None,
                  ) -> dict[str, Any]:
    caller(router).require("supervisor", "operator")
    return out(PlayerRounds, player_search.player_rounds(player_id, limit, cursor, table, since, until))
