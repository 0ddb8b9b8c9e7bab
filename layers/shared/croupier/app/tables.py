"""Tables: created and configured by an operator; seats taken and left by players.

A seat taken or left while the round's countdown runs counts for that round: the round keeps its
own copy of the seats (the close of betting decides who is dealt from it), so a change during
betting is written to the table and to the round together, or refused. A seat whose player has a
seat bet in the round cannot be left until the round is over.
"""

from __future__ import annotations

import uuid
from typing import Any

from .. import betting
from ..rules import load_rules
from . import seamless, store
from .errors import AppError, StateConflict
from .records import RoundStatus, TableRecord, bets_until
from .rounds import BLACKJACK, retry, table_rules


def create_table(game: str, rules: dict[str, Any], reader_id: str, table_id: str | None = None,
                 name: str | None = None, wallet: dict[str, Any] | None = None) -> TableRecord:
    load_rules(game, rules)  # validates (RulesError -> 400)
    table_id = table_id or f"t-{uuid.uuid4().hex[:10]}"
    table = TableRecord(table_id=table_id, game=game, reader_id=reader_id, name=name or table_id,
                        created_at=store.now_ms(), rules=rules,
                        wallet=seamless.checked_wallet(wallet or {"mode": "internal"}))
    try:
        store.new_table(table)
    except store.Conflict as exc:
        raise StateConflict(f"table {table_id!r} exists already", reason="table-exists") from exc
    return table


def configure_table(table_id: str, rules: dict[str, Any] | None, reader_id: str | None,
                    wallet: dict[str, Any] | None = None) -> TableRecord:
    """Change a table's rules, card reader or wallet mode between rounds (a round keeps the wallet
    it opened with: its bets name the operator that took them)."""
    checked = seamless.checked_wallet(wallet) if wallet is not None else None

    def attempt() -> TableRecord:
        table = store.load_table(table_id)
        if not table.idle:
            raise StateConflict("a round is in play: configure the table between rounds", reason="round-in-play")
        if rules is not None:
            load_rules(table.game, rules)
            table.rules = rules
        if reader_id is not None:
            table.reader_id = reader_id
        if checked is not None:
            table.wallet = checked
        return store.save(table)

    return retry(attempt)


def _seat_change(table_id: str, player: str, seat: int,
                 change: Any, *, leaving: bool) -> TableRecord:
    """Apply ``change(rules, seats) -> seats`` to the table's seats, and to the round's too while
    its countdown runs (both written together, on their versions)."""

    def attempt() -> TableRecord:
        table = store.load_table(table_id)
        if table.game not in BLACKJACK:
            raise AppError(f"{table.game} has no seats", reason="no-seats")
        rules = table_rules(table)
        seats = betting.seats_to_dict(change(rules, betting.seats_from_dict(table.seats)))
        if table.idle:
            table.seats = seats
            return store.save(table)
        rnd = store.load_round(table.round_id) if table.round_id else None
        if (rnd is None or rnd.status != RoundStatus.BETTING or rnd.paused
                or store.now_ms() >= bets_until(rnd.closes_at, rnd.game)):
            when = "leave when it is over" if leaving else "sit down when the next round opens"
            raise StateConflict(f"a round is being played: {when}", reason="round-in-play")
        summary = store.player_round(rnd.round_id, player)
        if leaving and any(b.get("type") == "seat" and b.get("seat") == seat for b in (summary or {}).get("bets", [])):
            raise StateConflict(f"your bet stands on seat {seat} in this round: leave when the round is over",
                                reason="seat-bet-placed")
        rnd.seats = betting.seats_to_dict(change(rules, betting.seats_from_dict(rnd.seats)))
        table.seats = seats
        # the player's bets in the round as read: a bet placed meanwhile makes this write lose
        store.write_versioned([(table, table.version), (rnd, rnd.version)],
                              [store.player_round_unchanged(summary, rnd.round_id, player)])
        return table

    return retry(attempt)


def sit(table_id: str, seat: int, player: str, account_kind: str) -> TableRecord:
    return _seat_change(table_id, player, seat,
                        lambda rules, seats: betting.sit(rules, seats, player, seat, account_kind), leaving=False)


def leave(table_id: str, seat: int, player: str) -> TableRecord:
    return _seat_change(table_id, player, seat, lambda rules, seats: betting.leave(seats, player, seat), leaving=True)
