"""Reconciliation of seamless tables: Croupier's bets, its wallet calls, and the operator's ledger.

Three layers, each checked against the next:

1. every seamless bet against its calls: its debits are ``accepted`` calls summing to what the bet
   took; a closed bet has exactly one credit call, of the amount it paid (a refund for a refunded
   bet), and an open bet none;
2. every call against the bets and its own life: an accepted debit belongs to a bet; a voided
   debit has its cancel; a call still to send is *pending* (retried if it has failed before); a
   refused credit or cancel is money the operator has not taken back or paid: a problem;
3. optionally, every call against the operator's own record, through its ``status`` call, or a
   report file of one operator's transactions (then that operator's calls only): an accepted
   debit, an acknowledged credit or cancel must be ``applied`` there, with the same amount; a
   voided debit whose cancel was acknowledged must be ``cancelled``; a refused debit must be
   ``unknown``. From a report file, a transaction of the operator that Croupier never made is a
   problem too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..wallet_contract import TransactionStatus, transaction_id
from . import operators, seamless, store
from .records import BetRecord, BetStatus

OperatorView = Callable[[dict[str, Any]], TransactionStatus | None]
"""What the operator holds for a call (None: it could not be asked)."""


@dataclass
class WalletCalls:
    calls: int = 0
    bets: int = 0
    debited: int = 0
    credited: int = 0
    in_play: int = 0
    asked: int = 0
    pending: list[str] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"seamless: {self.bets} bets, {self.calls} wallet calls (debited {self.debited}, credited "
                 f"{self.credited}, stakes in play {self.in_play}); {len(self.pending)} pending, "
                 f"{len(self.retried)} retried" + (f"; {self.asked} checked with the operators" if self.asked else "")]
        lines += [f"  pending: {p}" for p in self.pending[:20]]
        lines += [f"  retried: {r}" for r in self.retried[:20]]
        return "\n".join(lines)


Report = tuple[str, dict[str, dict[str, Any]]]
"""One operator's report: its id, and its transactions by id."""


def check(bets: list[BetRecord], calls: list[dict[str, Any]], operator_view: OperatorView | None = None,
          operator_report: Report | None = None) -> WalletCalls:
    out = WalletCalls(calls=len(calls))
    by_id = {c["transaction_id"]: c for c in calls}
    claimed: set[str] = set()
    for bet in bets:
        if not bet.operator:
            continue
        out.bets += 1
        _check_bet(bet, by_id, claimed, out)
    reporting, held_by_them = operator_report if operator_report is not None else (None, None)
    for call in calls:
        _check_call(call, by_id, claimed, out)
        report = held_by_them if call["operator"] == reporting else None
        if operator_view is not None or report is not None:
            _check_with_operator(call, by_id, operator_view, report, out)
    if held_by_them is not None:
        for txid, held in held_by_them.items():
            if by_id.get(txid, {}).get("operator") != reporting:
                out.problems.append(f"the operator holds {held.get('kind')} {txid} ({held.get('amount')}) that "
                                    f"Croupier never made")
    return out


def check_rounds(round_ids: list[str], operator_view: OperatorView | None = None) -> WalletCalls:
    """:func:`check` of some rounds' bets and calls only (a round's own reconciliation, without
    reading the whole store)."""
    bets = [b for r in round_ids for b in store.round_bets(r, store.load_round(r).shards)]
    calls = [c for r in round_ids for c in store.round_calls(r)]
    return check(bets, calls, operator_view)


def _check_bet(bet: BetRecord, by_id: dict[str, dict[str, Any]], claimed: set[str], out: WalletCalls) -> None:
    bet_id, taken = bet.bet_id, bet.taken
    debits = [by_id.get(t) for t in bet.debits]
    missing = [t for t, c in zip(bet.debits, debits, strict=True) if c is None]
    if missing:
        out.problems.append(f"bet {bet_id}: debits {missing} have no wallet call")
    found = [c for c in debits if c is not None]
    not_accepted = [c["transaction_id"] for c in found if c["status"] != "accepted"]
    if not_accepted:
        out.problems.append(f"bet {bet_id}: debits {not_accepted} are not accepted calls")
    claimed.update(c["transaction_id"] for c in found)
    debited = sum(int(c["amount"]) for c in found if c["status"] == "accepted")
    out.debited += debited
    if debited != taken:
        out.problems.append(f"bet {bet_id}: took {taken} but its accepted debits sum to {debited}")
    credits = {kind: by_id.get(transaction_id(f"bet:{bet_id}:{kind}")) for kind in ("settle", "refund")}
    made = {kind: c for kind, c in credits.items() if c is not None}
    claimed.update(c["transaction_id"] for c in made.values())
    if bet.is_open:
        out.in_play += taken
        if made:
            out.problems.append(f"bet {bet_id}: open but credited ({', '.join(made)})")
        return
    wanted = "refund" if bet.status == BetStatus.REFUNDED else "settle"
    if set(made) != {wanted}:
        out.problems.append(f"bet {bet_id}: {bet.status} with credit calls {sorted(made)} (must be {wanted} only)")
        return
    paid = -1 if bet.paid is None else bet.paid
    credit = made[wanted]
    out.credited += int(credit["amount"])
    if int(credit["amount"]) != paid:
        out.problems.append(f"bet {bet_id}: credit call of {credit['amount']} but the recorded payout is {paid}")


def _check_call(call: dict[str, Any], by_id: dict[str, dict[str, Any]], claimed: set[str], out: WalletCalls) -> None:
    txid, status, kind = call["transaction_id"], call["status"], call["call"]
    what = f"{kind} {txid} ({call.get('amount')} for {call.get('player')}, bet {call.get('bet_id')})"
    if int(call.get("attempts", 0)) > 1:
        out.retried.append(f"{what}: {call['attempts']} attempts, {status}")
    if status in ("pending", "sending"):
        out.pending.append(f"{what}: {status} since {call.get('created_at')}, {call.get('attempts', 0)} attempts")
    if kind == "debit" and status == "accepted" and txid not in claimed:
        out.problems.append(f"{what}: accepted, but no bet holds it")
    if kind == "debit" and status == "voided":
        cancel = by_id.get(str(call.get("cancelled_by")))
        if cancel is None:
            out.problems.append(f"{what}: voided without its cancel")
    if kind in ("credit", "cancel") and status == "refused":
        last = call.get("last") or {}
        out.problems.append(f"{what}: refused by the operator ({last.get('code')}: {last.get('message')}); "
                            f"the money is owed until an operator settles it by hand")
    if kind == "credit" and txid not in claimed:
        out.problems.append(f"{what}: no bet holds this credit")


def _expected(call: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> str | None:
    """What the operator must hold for this call now, or None while it cannot be known yet."""
    status = call["status"]
    if call["call"] == "debit":
        if status == "accepted":
            return "applied"
        if status == "refused":
            return "unknown"
        if status == "voided":
            cancel = by_id.get(str(call.get("cancelled_by")))
            return "cancelled" if cancel is not None and cancel["status"] == "acknowledged" else None
        return None
    return "applied" if status == "acknowledged" else None


def _check_with_operator(call: dict[str, Any], by_id: dict[str, dict[str, Any]], operator_view: OperatorView | None,
                         operator_report: dict[str, dict[str, Any]] | None, out: WalletCalls) -> None:
    expected = _expected(call, by_id)
    if expected is None:
        return
    txid = call["transaction_id"]
    if operator_report is not None:
        held = operator_report.get(txid)
        state = held.get("state", "applied") if held else "unknown"
        amount = held.get("amount") if held else None
    else:
        assert operator_view is not None
        answer = operator_view(call)
        if answer is None:
            out.problems.append(f"{call['call']} {txid}: the operator could not be asked")
            return
        state, amount = answer.state, answer.amount
    out.asked += 1
    if state != expected:
        out.problems.append(f"{call['call']} {txid} (bet {call.get('bet_id')}): Croupier says {call['status']}, so the "
                            f"operator should hold it {expected}, but it is {state}")
    elif state == "applied" and amount is not None and int(amount) != int(call["amount"]):
        out.problems.append(f"{call['call']} {txid}: {call['amount']} here, {amount} at the operator")


def ask_operator(call: dict[str, Any]) -> TransactionStatus | None:
    """The operator's ``status`` call for one of Croupier's calls."""
    operator = operators.load(call["operator"])
    outcome = seamless.send(operator, "status", {"transaction_id": call["transaction_id"]})
    if outcome.http_status != 200 or not outcome.answer or "state" not in outcome.answer:
        return None
    try:
        return TransactionStatus.model_validate(outcome.answer)
    except ValueError:
        return None
