"""Settlement and refunds: each bet closed exactly once, with its credit, in one transaction.

A round's bets are spread over shards. The close of betting notes how many bets each shard holds
(``bet_shards``); the workflow settles (or, for a void, refunds) the shards that hold bets, grouped
so that one task closes up to :data:`BETS_PER_TASK` bets (:func:`shard_groups`), one Map iteration
per group, then finishes the round. Within a task, each player's bets close in batches of up to
:data:`CREDITS_PER_TRANSACTION`, different players' wallets in parallel. Every credit goes
through the wallet that took the bet (:mod:`croupier.app.wallets`) with the bet's status change
``open -> settled | refunded`` in the same transaction: a retried or duplicated run closes nothing
twice.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..errors import ShoeError
from ..shoe import Shoe
from . import alerts, store, wallets
from .config import settings
from .engine import rebuild
from .errors import AppError, StateConflict
from .lobby import append_result
from .records import BetRecord, RoundRecord, RoundStatus
from .rounds import BLACKJACK, retry

BETS_PER_TASK = 500
"""Bets one settlement task closes at most: a round of a few bets is settled by one task, a round
of 10,000 bets by one task per shard (a shard is never split)."""


def shard_counts(bet_ids: Iterable[str], shards: int) -> dict[str, int]:
    """How many of these bets each shard holds (keys are shard numbers as text: a DynamoDB map)."""
    counts: dict[str, int] = {}
    for bet_id in bet_ids:
        shard = str(store.shard_of(bet_id, shards))
        counts[shard] = counts.get(shard, 0) + 1
    return counts


def shard_groups(rnd: RoundRecord) -> list[list[int]]:
    """The settlement tasks of a round: groups of the shards that hold its bets, each group of at
    most :data:`BETS_PER_TASK` bets (or one shard). A round voided before its bets were counted
    (while betting) has every shard looked at, one task each."""
    counts = rnd.bet_shards
    if counts is None:
        return [[shard] for shard in range(rnd.shards)]
    groups: list[list[int]] = []
    load = 0
    for shard, n in sorted((int(k), int(v)) for k, v in counts.items() if int(v) > 0):
        if not groups or load + n > BETS_PER_TASK:
            groups.append([])
            load = 0
        groups[-1].append(shard)
        load += n
    return groups


def refund_bet(round_id: str, bet_id: str, shards: int, reason: str) -> None:
    bet = store.bet_record(round_id, store.shard_of(bet_id, shards), bet_id)
    if bet is None or not bet.is_open:
        return
    _finish_bet(bet, "refund", bet.taken, _refunded(bet, reason))


def _refunded(bet: BetRecord, reason: str | None = None) -> dict[str, Any]:
    """A refund's result: the bet's stake back, nothing won or lost."""
    return {"outcome": "refund", "net": 0, "paid": bet.taken, **({"reason": reason} if reason else {})}


Finishing = wallets.Finishing


def _credit(player: str, batch: Sequence[Finishing]) -> None:
    """Credit and close bets of one player, all settled or all refunded, in one transaction (their
    markers and status conditions make it exactly once), by the wallet that took them: an
    operator's credits are written to the outbox in that transaction, and sent after it."""
    wallets.of_bet(batch[0][0]).credit(player, batch, [store.close_bet(bet, kind, result)
                                                       for bet, kind, _, result in batch])


def _finish_bet(bet: BetRecord, kind: str, credit: int, result: dict[str, Any]) -> None:
    """Credit one bet's payout or refund and close it, exactly once (status condition + op marker)."""
    try:
        _credit(bet.player, [(bet, kind, credit, result)])
    except store.Conflict:
        fresh = store.bet_record(bet.round_id, bet.shard, bet.bet_id)
        if fresh is None or fresh.is_open:
            raise


CREDITS_PER_TRANSACTION = 32
"""Bets of one player closed in one transaction: three items each (ledger entry, marker, bet) and
the wallet, or two (the bet, its outbox call) in seamless mode: at most 100, DynamoDB's limit."""
_pool: dict[int, ThreadPoolExecutor] = {}
"""The settlement threads, by their number: made once per Lambda environment."""


def _finish_bets(work: Sequence[Finishing]) -> int:
    """Close a shard's bets: per player, in transactions of up to :data:`CREDITS_PER_TRANSACTION`
    bets (one bet at a time where a batch lost a race: a bet closed meanwhile by a duplicate run);
    different players' wallets in parallel, on ``settlement_workers`` threads. The first error
    is raised once every player is done: a retry of the shard finds only the bets still open."""
    by_player: dict[tuple[str, str], list[Finishing]] = {}  # (player, settle or refund)
    for entry in work:
        by_player.setdefault((entry[0].player, entry[1]), []).append(entry)

    def one_player(entries: list[Finishing]) -> None:
        for start in range(0, len(entries), CREDITS_PER_TRANSACTION):
            batch = entries[start:start + CREDITS_PER_TRANSACTION]
            try:
                _credit(batch[0][0].player, batch)
            except store.Conflict:
                for entry in batch:
                    _finish_bet(*entry)

    workers = settings().settlement_workers
    if workers <= 1 or len(by_player) <= 1:
        for entries in by_player.values():
            one_player(entries)
        return len(work)
    pool = _pool.get(workers) or _pool.setdefault(workers, ThreadPoolExecutor(workers, thread_name_prefix="settle"))
    # each task runs in a copy of this context (what this invocation's tracing and logging carry)
    futures = [pool.submit(contextvars.copy_context().run, one_player, entries) for entries in by_player.values()]
    errors = [f.exception() for f in futures]
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return len(work)


def _open_bets(round_id: str, shards: Sequence[int]) -> list[BetRecord]:
    return [b for shard in shards for b in store.shard_bets(round_id, shard) if b.is_open]


def settle_shards(round_id: str, shards: Sequence[int]) -> dict[str, Any]:
    """Settle the open bets of these shards of a settling round (one task of the workflow's Map)."""
    rnd = store.load_round(round_id)
    if rnd.status not in (RoundStatus.SETTLING, RoundStatus.SETTLED):
        raise StateConflict(f"round {round_id} is {rnd.status}, not settling", reason="not-settling")
    open_bets = _open_bets(round_id, shards)
    if not open_bets:
        return {"done": 0}
    if rnd.game in BLACKJACK:
        results = {r["id"]: r for r in (rnd.settlement or {}).get("bets", [])}
    else:
        engine = rebuild(rnd, [b.bet for b in open_bets])
        results = {r["id"]: r for r in engine.settle().to_dict(full=True)["bets"]}
    work: list[Finishing] = []
    for bet in open_bets:
        res = results.get(bet.bet_id)
        if res is None:  # not in the engine's round: refunded (for example a bet on an empty seat)
            work.append((bet, "refund", bet.taken, _refunded(bet)))
        else:
            if int(res["staked"]) != bet.taken:
                raise AppError(f"bet {bet.bet_id}: the engine staked {res['staked']} but {bet.taken} was "
                               f"debited", reason="stake-mismatch")
            work.append((bet, "settle", int(res["paid"]), res))
    return {"done": _finish_bets(work)}


def refund_shards(round_id: str, shards: Sequence[int]) -> dict[str, Any]:
    """Refund the open bets of these shards of a voiding round (one task of the workflow's Map)."""
    rnd = store.load_round(round_id)
    if rnd.status not in (RoundStatus.VOIDING, RoundStatus.VOIDED):
        raise StateConflict(f"round {round_id} is {rnd.status}, not voiding", reason="not-voiding")
    work: list[Finishing] = [(bet, "refund", bet.taken, _refunded(bet, "round voided"))
                             for bet in _open_bets(round_id, shards)]
    return {"done": _finish_bets(work)}


def _finish(round_id: str, from_status: RoundStatus, to_status: RoundStatus) -> dict[str, Any]:
    """Close the round once every bet is closed; what it answers names the table, whose device
    log the caller drains next (:func:`croupier.app.tasks.run_settlement_task`)."""
    rnd = store.load_round(round_id)
    if rnd.status == to_status:
        return {"status": to_status, "table_id": rnd.table_id}
    if rnd.status != from_status:
        raise StateConflict(f"round {round_id} is {rnd.status}", reason="bad-status")
    bets = store.round_bets(round_id, rnd.shards)
    still_open = [b.bet_id for b in bets if b.is_open]
    if still_open:
        raise AppError(f"{len(still_open)} bet(s) still open: {', '.join(still_open[:5])}", reason="bets-open")
    house = sum(b.taken - (b.paid or 0) for b in bets)

    def write() -> RoundRecord:
        current = store.load_round(round_id)
        if current.status == to_status:
            return current
        table = store.load_table(current.table_id)
        current.status, current.finished_at, current.house_result, current.bet_count = (
            to_status, store.now_ms(), house, len(bets))
        current.wait_token, current.paused = None, False
        # the countdown's token is spent once betting closed; the workflow takes it off when it
        # waits again, and a round that never waited (every card in before it looked) loses it here
        current.countdown_token = None
        if table.round_id == round_id:
            shoe = Shoe.from_dict(table.shoe) if table.shoe else None
            if shoe is not None:
                with contextlib.suppress(ShoeError):  # the shoe moved on already (a retried finish)
                    shoe.end_round()
                table.shoe = shoe.to_dict()
            table.round_status = to_status
            table.rounds_played += 1
        result = append_result(current) if to_status == RoundStatus.SETTLED else None  # the shoe's roads
        store.write_versioned([(current, current.version), (table, table.version)],
                              [result] if result else [])
        alerts.count("RoundsSettled" if to_status == RoundStatus.SETTLED else "RoundsVoided")
        return current

    retry(write)
    return {"status": to_status, "table_id": rnd.table_id, "house_result": house, "bets": len(bets)}


def finish_settlement(round_id: str) -> dict[str, Any]:
    return _finish(round_id, RoundStatus.SETTLING, RoundStatus.SETTLED)


def finish_void(round_id: str) -> dict[str, Any]:
    return _finish(round_id, RoundStatus.VOIDING, RoundStatus.VOIDED)
