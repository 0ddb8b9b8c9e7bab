"""The audit of a whole store: money is never lost, doubled or stolen.

Checks, over every wallet and every round of the two tables:
1. every wallet's balance equals the sum of its ledger, and its ledger is an unbroken chain
   (each entry's balance before is the previous entry's balance after);
2. every bet of every finished round was settled or refunded exactly once (one status, one
   money movement marker, the credit equal to the recorded payout);
3. wallets plus the house result equal deposits minus withdrawals;
4. every settled round's transcript replays (pure engine) to the same nets;
5. against the table: every card of every round is an entry of its table's device log, taken
   into that round, in the log's order; every entry the log took into a round is in that round;
   every entry before a table's cursor was used, refused or told about (none was skipped); and
   every scan id was recorded once;
6. seamless tables (:mod:`croupier.app.reconcile`): every bet against its calls to the operator's
   wallet, every call against its bet, and, when asked, against the operator's own record. Their
   money is the operator's: it is not part of check 3.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..transcript import Transcript, replay
from . import clock, keys, reconcile, store
from .engine import rebuild
from .records import (
    FINISHED,
    BetRecord,
    BetStatus,
    LedgerEntry,
    LogEntry,
    Marker,
    RoundRecord,
    RoundStatus,
    TableRecord,
    WalletBalance,
)

UNREADABLE = (KeyError, TypeError, ValueError, ArithmeticError)
"""What reading an item the application never writes raises."""


@dataclass
class AuditReport:
    wallets: int = 0
    ledger_entries: int = 0
    rounds: int = 0
    bets: int = 0
    deposits: int = 0
    withdrawals: int = 0
    balances: int = 0
    house: int = 0
    in_play: int = 0
    problems: list[str] = field(default_factory=list)
    seamless: reconcile.WalletCalls | None = None
    looks: int = 1
    """How many times the store was read (more than one: the first look found a change in flight)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        head = (f"{self.wallets} wallets, {self.ledger_entries} ledger entries, {self.rounds} rounds, "
                f"{self.bets} bets; deposits {self.deposits}, withdrawals {self.withdrawals}, wallets {self.balances}, "
                f"house {self.house:+d}, stakes in play {self.in_play}")
        if self.seamless is not None and (self.seamless.calls or self.seamless.bets):
            head += "\n" + self.seamless.summary()
        if self.ok:
            if self.looks > 1:
                head += f"\n{self.looks} looks: the first {self.looks - 1} found changes in flight"
            return f"{head}\naudit: OK"
        if self.looks > 1:
            head += f"\nfound in each of {self.looks} looks:"
        return head + "\n" + "\n".join(f"  - {p}" for p in self.problems) + f"\naudit: FAILED ({len(self.problems)})"


LOOKS = 3
"""Audits of a store in use, at most, before its problems are reported (see :func:`run_audit`)."""
LOOK_PAUSE_SECONDS = 1.0


def run_audit(operator_view: reconcile.OperatorView | None = None,
              operator_report: reconcile.Report | None = None, *, looks: int = LOOKS,
              pause: float = LOOK_PAUSE_SECONDS) -> AuditReport:
    """The audit; seamless calls are checked against the operators' records too when
    ``operator_view`` (their status call) or ``operator_report`` (one operator's id and its
    transactions) is given.

    The audit reads the wallets, then the rounds: on a store in use, a bet closed between the two
    reads looks unpaid (its round's record says refunded, the wallet read before it says not yet).
    So a look that finds problems is followed by another, ``pause`` seconds later, up to ``looks``
    in all: the store is reported clean once a look finds nothing, and a problem is reported only
    when every look found one (a real one stays; what was in flight has landed by then)."""
    report = _look(operator_view, operator_report)
    for look in range(2, looks + 1):
        if report.ok:
            break
        clock.sleep(pause)
        report = _look(operator_view, operator_report)
        report.looks = look
    return report


def _look(operator_view: reconcile.OperatorView | None, operator_report: reconcile.Report | None) -> AuditReport:
    report = AuditReport()
    wallet_items = store.scan_all(store.wallet_table())
    game_items = store.scan_all(store.game_table())
    ledgers: dict[str, list[LedgerEntry]] = defaultdict(list)
    markers: set[tuple[str, str]] = set()
    wallets: dict[str, WalletBalance] = {}
    calls = [i for i in wallet_items if keys.kind_of(i) == "call"]
    for item in wallet_items:
        kind = keys.kind_of(item)
        try:
            if kind == "wallet":
                wallet = WalletBalance.from_item(item)
                wallets[wallet.player] = wallet
            elif kind == "ledger-entry":
                entry = LedgerEntry.from_item(item)
                ledgers[entry.player].append(entry)
            elif kind == "marker":
                marker = Marker.from_item(item)
                markers.add((marker.player, marker.op))
        except UNREADABLE as exc:  # an item the application never writes
            report.problems.append(_unreadable(kind, item, exc))
    report.wallets = len(wallets)
    credits_by_bet: dict[str, list[int]] = defaultdict(list)
    debits_by_bet: dict[str, int] = defaultdict(int)
    for player, entries in ledgers.items():
        entries.sort(key=lambda e: e.seq)
        report.ledger_entries += len(entries)
        running = 0
        for entry in entries:
            sk = keys.ledger_key(player, entry.seq)["sk"]
            if entry.balance_before != running:
                report.problems.append(f"wallet {player}: ledger entry {sk} starts at "
                                       f"{entry.balance_before}, the previous entry ended at {running}")
            running = entry.balance_before + entry.amount
            if running != entry.balance_after:
                report.problems.append(f"wallet {player}: ledger entry {sk} does not add up")
            if (player, entry.op) not in markers:
                report.problems.append(f"wallet {player}: ledger entry {sk} has no operation marker")
            kind, amount, bet_id = entry.kind, entry.amount, entry.details.get("bet_id")
            if kind == "deposit":
                report.deposits += amount
            elif kind == "withdrawal":
                report.withdrawals -= amount
            elif bet_id:
                if amount <= 0 and kind not in ("settle", "refund"):
                    debits_by_bet[bet_id] += -amount
                else:
                    credits_by_bet[bet_id].append(amount)
        balance = wallets[player].balance if player in wallets else 0
        if balance != running:
            report.problems.append(f"wallet {player}: balance {balance} but its ledger sums to {running}")
    for player, wallet in wallets.items():
        if player not in ledgers and wallet.balance != 0:
            report.problems.append(f"wallet {player}: balance {wallet.balance} without any ledger entry")
        report.balances += wallet.balance
    tables: dict[str, TableRecord] = {}
    rounds: dict[str, RoundRecord] = {}
    every_bet: list[BetRecord] = []
    for item in game_items:
        kind = keys.kind_of(item)
        if kind == "table" and (table := _read(TableRecord, item, report.problems)) is not None:
            tables[table.table_id] = table
        elif kind == "round" and (rnd := _read(RoundRecord, item, report.problems)) is not None:
            rounds[rnd.round_id] = rnd
        elif kind == "bet" and (bet := _read(BetRecord, item, report.problems)) is not None:
            every_bet.append(bet)
    bets = [b for b in every_bet if not b.operator]  # seamless bets: check 6
    report.rounds, report.bets = len(rounds), len(every_bet)
    by_round: dict[str, list[BetRecord]] = defaultdict(list)
    for bet in bets:
        by_round[bet.round_id].append(bet)
        bet_id, taken = bet.bet_id, bet.taken
        if debits_by_bet[bet_id] != taken:
            report.problems.append(f"bet {bet_id}: {taken} recorded as taken but the ledger debited "
                                   f"{debits_by_bet[bet_id]}")
        credits = credits_by_bet.get(bet_id, [])
        held_by = rounds.get(bet.round_id)
        if bet.is_open:
            report.in_play += taken
            if held_by is not None and held_by.status in FINISHED:
                report.problems.append(f"bet {bet_id}: round {bet.round_id} is {held_by.status} but the bet is open")
            if credits:
                report.problems.append(f"bet {bet_id}: open but credited {credits}")
            continue
        if len(credits) != 1:
            report.problems.append(f"bet {bet_id}: {bet.status} with {len(credits)} credits (must be exactly one)")
            continue
        paid = -1 if bet.paid is None else bet.paid
        if credits[0] != paid:
            report.problems.append(f"bet {bet_id}: credited {credits[0]} but the recorded payout is {paid}")
        report.house += taken - credits[0]
    if report.balances + report.house + report.in_play != report.deposits - report.withdrawals:
        report.problems.append(
            f"wallets {report.balances} + house {report.house} + stakes in play {report.in_play} = "
            f"{report.balances + report.house + report.in_play}, but deposits minus withdrawals = "
            f"{report.deposits - report.withdrawals}")
    report.seamless = reconcile.check(every_bet, calls, operator_view, operator_report)
    report.problems.extend(report.seamless.problems)
    for bet in every_bet:
        if bet.operator:
            by_round[bet.round_id].append(bet)
    for round_id, settled in rounds.items():
        if settled.status != RoundStatus.SETTLED:
            continue
        problem = _replay_problem(settled, by_round.get(round_id, []))
        if problem:
            report.problems.append(f"round {round_id}: {problem}")
    report.problems.extend(_device_log_problems(game_items, tables, rounds))
    return report


def _unreadable(kind: str | None, item: dict[str, Any], exc: Exception) -> str:
    return f"{kind} {item.get('pk')}/{item.get('sk')} cannot be read: {exc!r}"


Readable = TypeVar("Readable", TableRecord, RoundRecord, BetRecord, LogEntry)


def _read(record: type[Readable], item: dict[str, Any], problems: list[str]) -> Readable | None:
    """The typed record of a game-table item, or None when it cannot be read (a problem, and the
    rest is audited); an item that holds attributes its record does not know (kept and written
    back) is named."""
    try:
        read = record.from_item(item)
    except UNREADABLE as exc:
        problems.append(_unreadable(keys.kind_of(item), item, exc))
        return None
    if read.extra:
        kind = str(keys.kind_of(item)).replace("-", " ")
        problems.append(f"{_name(read)}: attributes no {kind} has: {', '.join(sorted(read.extra))}")
    return read


def _name(record: TableRecord | RoundRecord | BetRecord | LogEntry) -> str:
    if isinstance(record, TableRecord):
        return f"table {record.table_id}"
    if isinstance(record, RoundRecord):
        return f"round {record.round_id}"
    if isinstance(record, BetRecord):
        return f"bet {record.bet_id}"
    return f"table {record.table_id}: log entry #{record.n}"


def _device_log_problems(game_items: list[dict[str, Any]], tables: dict[str, TableRecord],
                         rounds: dict[str, RoundRecord]) -> list[str]:
    """Check 5: the rounds' cards against the tables' device logs."""
    problems: list[str] = []
    logs: dict[str, dict[int, LogEntry]] = defaultdict(dict)
    for item in game_items:
        if keys.kind_of(item) == "log-entry" and (entry := _read(LogEntry, item, problems)) is not None:
            logs[entry.table_id][entry.n] = entry
    for table_id, entries in logs.items():
        scans: dict[str, int] = {}
        for n, entry in sorted(entries.items()):
            if entry.scan_id:
                if entry.scan_id in scans:
                    problems.append(f"table {table_id}: scan {entry.scan_id} recorded twice "
                                    f"(#{scans[entry.scan_id]} and #{n})")
                scans[entry.scan_id] = n
            if n <= (tables[table_id].log_taken if table_id in tables else 0) and entry.waits:
                problems.append(f"table {table_id}: log entry #{n} is behind the cursor but {entry.state}")
            if entry.use == "round":
                holder = rounds.get(str(entry.round_id))
                if holder is None or not any(e.get("n") == n for e in holder.events):
                    problems.append(f"table {table_id}: log entry #{n} was taken into round {entry.round_id}, "
                                    f"which does not hold it")
    for round_id, rnd in rounds.items():
        cards = [e for e in rnd.events if "card" in e]
        positions: list[Any] = [e.get("n") for e in cards]
        if any(p is None for p in positions):
            problems.append(f"round {round_id}: a card without its device-log position")
            continue
        if positions != sorted(positions):
            problems.append(f"round {round_id}: its cards are not in the order of the device log: {positions}")
        log = logs.get(rnd.table_id, {})
        for event in cards:
            found = log.get(int(event["n"]))
            if found is None or found.card != event["card"] or found.round_id != round_id:
                problems.append(f"round {round_id}: card #{event['n']} is not the device log's entry #{event['n']}")
    return problems


def transcript_of(rnd: RoundRecord, bets: Sequence[BetRecord]) -> Transcript:
    """The public transcript (replay.md) of a stored round: its bets, cards and actions, as the
    engine logged them (pre-selections and timeouts included)."""
    settled = None if rnd.engine_bets else [
        b.bet for b in sorted(bets, key=lambda b: b.bet_id) if b.status == BetStatus.SETTLED]
    engine = rebuild(rnd, settled)
    return Transcript.of(engine, rules=store.round_rules(rnd), balances=rnd.balances or None)


def _replay_problem(rnd: RoundRecord, bets: Sequence[BetRecord]) -> str | None:
    try:
        settlement = replay(transcript_of(rnd, bets))
    except Exception as exc:
        return f"its transcript does not replay: {exc}"
    nets = {r.id: r.net for r in settlement.bets}
    for bet in bets:
        if bet.status != BetStatus.SETTLED:
            continue
        recorded = (bet.result or {}).get("net")
        if bet.bet_id in nets and nets[bet.bet_id] != recorded:
            return f"bet {bet.bet_id} was settled at {recorded} but replays to {nets[bet.bet_id]}"
    return None

