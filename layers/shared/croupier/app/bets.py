"""The betting phase: bets placed while the countdown runs, and the close of betting.

Betting ends half a second before the countdown's end (``closes_at``; the dealer deals from it; Pok
Deng: at the end) by the server's clock (:func:`croupier.app.records.bets_until`): a bet that arrives after that is
refused even if the workflow's close step is late, and the close is run by the workflow when its
countdown ends or by the dealing function when a card comes (:mod:`croupier.app.dealing`); the
other finds it done.

The stakes are taken by the round's wallet (:mod:`croupier.app.wallets`) in the write of the bets:
Croupier's own in the same transaction; an operator's before it, its debit cancelled if the bets'
write then fails (betting closed meanwhile).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import betting
from ..games.base import Bet
from . import alerts, keys, store, wallets, workflow
from .errors import AppError, StateConflict
from .records import BetRecord, BetStatus, RoundRecord, RoundStatus, bet_from_item, bet_to_item, bets_until, last_bet_ms
from .rounds import BLACKJACK, retry, table_rules
from .settlement import refund_bet, shard_counts

POK_DENG = "pok-deng"

MAX_BETS_PER_REQUEST = 20


def _bet_id(round_id: str, player: str, key: str, index: int) -> str:
    digest = hashlib.sha256(f"{round_id}|{player}|{key}|{index}".encode()).hexdigest()[:16]
    return f"b-{digest}"


def _taking_bets(rnd: RoundRecord) -> None:
    """Refuse unless the round takes bets: its status, its pause, and the countdown by the clock
    now. A bet reads this at its start and again as late as it can, right before its transaction:
    one checked in time but held up among its reads (or its operator's debit) would be stored after
    the end, on a seat the dealer, dealing from the end, did not deal. Betting closes half a second
    before the end (:data:`croupier.app.records.LAST_BET_MS`), so that a hold-up between the last
    look and the transaction's commit has that long: DynamoDB's conditions have no clock
    (``tests/reliability/test_races.py`` says more)."""
    if rnd.status != RoundStatus.BETTING:
        why = "betting is closed: wait for the next round"
    elif rnd.paused:
        why = "the round is paused: betting is closed"
    elif (now := store.now_ms()) >= rnd.closes_at:
        why = "betting is closed: the countdown has ended"
    elif now >= bets_until(rnd.closes_at, rnd.game):
        why = (f"betting is closed: it closes {last_bet_ms(rnd.game) / 1000:g} s before the countdown's end, "
               "when the dealer starts dealing")
    else:
        return
    raise StateConflict(why, reason="betting-closed")


def place_bets(table_id: str, player: str, account_kind: str, requests: Sequence[dict[str, Any]],
               idempotency_key: str) -> dict[str, Any]:
    """Several bets of one player in the table's open round: all accepted and debited together, or
    none. A retry with the same idempotency key moves nothing and answers the same bets."""
    if not requests:
        raise AppError("no bets in the request", reason="no-bets")
    if len(requests) > MAX_BETS_PER_REQUEST:
        raise AppError(f"at most {MAX_BETS_PER_REQUEST} bets per request", reason="too-many-bets")
    # A request accepted before (its first attempt died after its transaction) is answered again
    # from the round it went into, even once betting closed or the next round opened: it is never
    # refused as "betting closed" after its debit, nor placed (and debited) again in a new round.
    accepted_before = store.bet_request(player, idempotency_key)
    if accepted_before is not None:
        round_id = accepted_before["round_id"]
        summary = store.player_round(round_id, player) or {}
        return {"round_id": round_id, "replayed": True,
                "bets": [b for b in summary.get("bets", []) if b.get("key") == idempotency_key]}
    table = store.load_table(table_id)
    round_id = table.round_id
    if not round_id or table.round_status != RoundStatus.BETTING:
        raise StateConflict("betting is closed: wait for the next round", reason="betting-closed")
    rules = table_rules(table)

    def attempt() -> dict[str, Any]:
        rnd = store.load_round(round_id)
        wallet = wallets.of(rnd)
        _taking_bets(rnd)
        summary = store.player_round(round_id, player)
        if summary and idempotency_key in summary.get("keys", []):
            return {"round_id": round_id, "bets": [b for b in summary["bets"] if b.get("key") == idempotency_key],
                    "replayed": True}
        existing = [bet_from_item(b) for b in (summary or {}).get("bets", [])]
        ctx = betting.RoundContext(round_in_shoe=rnd.round_in_shoe,
                                   seats=betting.seats_from_dict(rnd.seats))
        reqs = [betting.BetRequest(type=r["type"], amount=int(r["amount"]), seat=r.get("seat"), mode=r.get("mode"))
                for r in requests]
        placement = betting.place_bets(rnd.game, rules, ctx, player, account_kind, existing, reqs,
                                       wallet.funds(player),
                                       new_id=lambda i: _bet_id(round_id, player, idempotency_key, i))
        stakes: list[wallets.Stake] = []
        written: list[tuple[BetRecord, int | None]] = []  # each bet, and its amount before
        shards = rnd.shards
        by_id = {b["bet_id"]: b for b in (summary or {}).get("bets", [])}
        for change in placement.changes:
            bet, debit = change.bet, change.debit
            shard = store.shard_of(bet.id, shards)
            previous = by_id.get(bet.id)
            now = store.now_ms()
            record = wallet.stamp(BetRecord(
                round_id=round_id, shard=shard, bet=bet, table_id=table_id, game=rnd.game, status=BetStatus.OPEN,
                taken=(int(previous["taken"]) if previous else 0) + debit,
                placed_at=int(previous["placed_at"]) if previous else now,
                expires_at=now // 1000 + store.BET_RECORD_DAYS * 86400), raised=previous is not None)
            written.append((record, int(previous["amount"]) if previous else None))
            by_id[bet.id] = {**bet_to_item(bet), "taken": record.taken, "placed_at": record.placed_at,
                             "key": idempotency_key, "shard": shard}
            if debit:
                stakes.append(wallets.Stake(f"bet:{bet.id}:stake:{idempotency_key}", debit, bet.id,
                                            "reservation" if rnd.game == POK_DENG else "stake",
                                            {"round_id": round_id, "bet_id": bet.id, "table_id": table_id}))
        new_summary = {**keys.player_round_key(round_id, player), "bets": list(by_id.values()),
                       "keys": [*(summary or {}).get("keys", []), idempotency_key],
                       "round_id": round_id, "player": player}

        def changes(debited: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
            """The bets (with the operator's debits of them), the player's summary and the request,
            on the condition that the round still takes bets; made right before they are written."""
            _taking_bets(rnd)
            return [*(store.bet_put(replace(bet, debits=(*bet.debits, *debited.get(bet.bet_id, ()))), previous_amount)
                      for bet, previous_amount in written),
                    store.versioned_put(new_summary, int(summary["version"]) if summary else None),
                    store.bet_request_put(player, idempotency_key, round_id, table_id),
                    store.still_betting(round_id)]

        _taking_bets(rnd)  # the reads above took time: again before the money moves (the operator's debit)
        # sent once: the SDK retrying a throttled write could store the bets after betting closed
        wallet.take(player, table_id, round_id, stakes, kind="bet", changes=changes, what="these bets", at_once=True)
        accepted = [by_id[c.bet.id] for c in placement.changes]
        alerts.count("BetsPlaced", len(accepted))
        return {"round_id": round_id, "bets": accepted, "replayed": False}

    return retry(attempt)


def close_betting(round_id: str) -> RoundRecord:
    """The end of the countdown: freeze the bets (each is in the round, or refunded) and hand them
    to the engine. Idempotent: a round closed already is returned as it is; a close that died half
    way (status ``closing``) is finished by whoever comes next."""
    def flip() -> RoundRecord:
        rnd = store.load_round(round_id)
        if rnd.status != RoundStatus.BETTING:
            return rnd
        rnd.status = RoundStatus.CLOSING
        return store.save(rnd)

    rnd = retry(flip)
    if rnd.status != RoundStatus.CLOSING:
        return rnd
    bets = [b.bet for b in store.round_bets(round_id, rnd.shards) if b.is_open]
    rules = table_rules(rnd)
    refunds: list[str] = []
    engine_bets: list[Bet] = []
    seats_after = rnd.seats
    if rnd.game in BLACKJACK:
        closing = betting.close_betting(rnd.game, rules, betting.seats_from_dict(seats_after), bets)
        engine_bets = list(closing.bets)
        refunds = [r.bet.id for r in closing.refunds]
        seats_after = betting.seats_to_dict(closing.seats)
    for bet_id in refunds:
        refund_bet(round_id, bet_id, rnd.shards, reason="no seat bet")
    wallet = wallets.of(rnd)
    balances = {player: wallet.funds(player)
                for player in sorted({b.player for b in engine_bets})}  # one read per player, not per bet
    # where the round's bets are: settlement visits these shards only (no bet is placed after the
    # close: every placement is conditioned on the round still taking bets)
    bet_shards = shard_counts((b.id for b in bets), rnd.shards)

    def write() -> RoundRecord:
        current = store.load_round(round_id)
        if current.status != RoundStatus.CLOSING:
            return current
        current.status, current.closed_at = RoundStatus.PLAYING, store.now_ms()
        current.engine_bets, current.balances = [bet_to_item(b) for b in engine_bets], balances
        current.refunds, current.seats, current.bet_shards = refunds, seats_after, bet_shards
        table = store.load_table(current.table_id)
        table.round_status = RoundStatus.PLAYING
        if current.game in BLACKJACK:
            table.seats = seats_after
        store.write_versioned([(current, current.version), (table, table.version)])
        return current

    closed = retry(write)
    # the workflow's countdown ends with the close: now, if a card closed betting before its time
    workflow.resume(closed.countdown_token)
    return closed
