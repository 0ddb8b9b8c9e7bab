"""The wallet port: where a round's money is, behind one interface (:class:`Wallet`).

- :class:`Internal`: Croupier's own wallets. A taking or a credit is one DynamoDB transaction: the
  balance on its version, a ledger entry and an exactly-once marker per movement, and the caller's
  change (the bets, the round) with it (``store.move_money``).
- :class:`Seamless`: an operator's wallet, over HTTP (:mod:`.seamless`). A taking is confirmed by
  the operator first, then written with the caller's change (or voided, if that write fails); a
  credit is written to the outbox in the transaction that closes its bet, and sent after it.

The wallet is chosen once per round: :func:`of` gives the wallet a round opened with (the round
copies its table's, and a table's wallet changes only between rounds), :func:`of_bet` the one that
took a bet (the operator is stamped on the bet when it is placed). The callers decide what to take
and what to credit; the wallet decides how the money moves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, ClassVar

from . import operators, seamless, store
from .errors import Funds
from .records import BetRecord, RoundRecord, TableRecord

Finishing = tuple[BetRecord, str, int, dict[str, Any]]
"""One bet to close: the bet, ``"settle"`` or ``"refund"``, the amount credited, its result."""

Changes = Callable[[Mapping[str, Sequence[str]]], list[dict[str, Any]]]
"""The caller's change, written in the transaction that takes the money: given the operator's
transaction ids of the taking, by bet (none for Croupier's own wallets), its transaction items."""


@dataclass(frozen=True)
class Stake:
    """Money taken from a player for one bet."""

    op: str
    """What takes it, unique for every taking (``bet:{bet}:stake:{key}``, ``bet:{bet}:double:{n}``):
    the ledger's exactly-once marker."""
    amount: int
    """What is taken, in minor units (more than 0)."""
    bet_id: str
    reason: str
    """The operator's word for it: ``stake``, ``reservation``, ``double``, ``split``, ``follow``..."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """What the ledger entry says besides (the round, the bet, the table, the action)."""


class Wallet(ABC):
    mode: ClassVar[str]

    @abstractmethod
    def funds(self, player: str) -> int:
        """What the engines are told the player can stake."""

    @abstractmethod
    def balance(self, player: str) -> dict[str, Any]:
        """The player's balance, as the table's wallet view shows it."""

    @abstractmethod
    def stamp(self, bet: BetRecord, *, raised: bool) -> BetRecord:
        """The bet being written (``raised``: a bet placed before, raised), marked with what this
        wallet needs to credit it later."""

    @abstractmethod
    def take(self, player: str, table_id: str, round_id: str, stakes: Sequence[Stake], *, kind: str,
             changes: Changes, what: str, at_once: bool = False) -> None:
        """Take ``stakes`` from ``player`` with the caller's ``changes``, all or nothing. Raises
        :class:`~.errors.Funds` when the player has not enough (``what`` says for what),
        ``store.Conflict`` when a condition of the change failed (nothing is taken). ``at_once``: the
        transaction is sent once, without the SDK's retries (``store.AT_ONCE``: ``changes`` look at
        the clock)."""

    @abstractmethod
    def credit(self, player: str, batch: Sequence[Finishing], closes: Sequence[dict[str, Any]]) -> None:
        """Credit ``player`` the bets of ``batch`` (all settled or all refunded) in the transaction
        whose ``closes`` close them: exactly once, as their conditions make it."""


class Internal(Wallet):
    """Croupier's own wallets."""

    mode = "internal"

    def funds(self, player: str) -> int:
        return store.balance_of(player)

    def balance(self, player: str) -> dict[str, Any]:
        return {"mode": self.mode, "balance": store.balance_of(player)}

    def stamp(self, bet: BetRecord, *, raised: bool) -> BetRecord:
        return bet

    def take(self, player: str, table_id: str, round_id: str, stakes: Sequence[Stake], *, kind: str,
             changes: Changes, what: str, at_once: bool = False) -> None:
        try:
            store.move_money(player, [(s.op, -s.amount, dict(s.details)) for s in stakes], kind=kind,
                             extra=lambda: changes({}),  # made once the wallet is read, before the transaction
                             at_once=at_once)
        except store.InsufficientFunds as exc:
            raise Funds(f"insufficient funds for {what}: balance {exc.balance}, needed {exc.needed}") from exc

    def credit(self, player: str, batch: Sequence[Finishing], closes: Sequence[dict[str, Any]]) -> None:
        store.move_money(player, [(f"bet:{bet.bet_id}:{kind}", credit, {"round_id": bet.round_id, "bet_id": bet.bet_id})
                                  for bet, kind, credit, _ in batch],
                         kind=batch[0][1], extra=closes)


@dataclass(frozen=True)
class Seamless(Wallet):
    """An operator's wallet: its debit is the funds check, so the engines are told
    :data:`~.seamless.UNBOUNDED`."""

    operator: str
    mode = "seamless"

    @cached_property
    def currency(self) -> str:
        return operators.load(self.operator).currency

    def funds(self, player: str) -> int:
        return seamless.UNBOUNDED

    def balance(self, player: str) -> dict[str, Any]:
        balance, currency = seamless.balance(self.operator, player)
        return {"mode": self.mode, "operator": self.operator, "balance": balance, "currency": currency}

    def stamp(self, bet: BetRecord, *, raised: bool) -> BetRecord:
        # A raised bet keeps the debits that took it so far: they are on the stored bet (the bet
        # is written whole again, on the condition that its amount is still the one read)
        stored = store.bet_record(bet.round_id, bet.shard, bet.bet_id) if raised else None
        return replace(bet, operator=self.operator, currency=self.currency, debits=stored.debits if stored else ())

    def take(self, player: str, table_id: str, round_id: str, stakes: Sequence[Stake], *, kind: str,
             changes: Changes, what: str, at_once: bool = False) -> None:
        debited = seamless.debit(self.operator, [seamless.Debit(s.op, player, s.amount, table_id, round_id, s.bet_id,
                                                                s.reason) for s in stakes])
        by_bet: dict[str, list[str]] = {}
        for stake, txid in zip(stakes, debited, strict=True):
            by_bet.setdefault(stake.bet_id, []).append(txid)
        try:
            store.write([*changes(by_bet), *seamless.accepted(debited)], at_once=at_once)
        except BaseException:
            seamless.void(debited)  # the change was refused (betting closed, a race lost): not taken
            raise

    def credit(self, player: str, batch: Sequence[Finishing], closes: Sequence[dict[str, Any]]) -> None:
        calls = [seamless.credit_call(bet, kind, credit, result) for bet, kind, credit, result in batch]
        store.write([*closes, *(op for _, op in calls)])
        seamless.enqueue([(txid, 0) for txid, _ in calls])


def of(item: TableRecord | RoundRecord) -> Wallet:
    """The wallet a round opened with, or a table's (between rounds: the one its next round takes)."""
    operator = seamless.operator_of(item)
    return INTERNAL if operator is None else Seamless(operator)


def of_bet(bet: BetRecord) -> Wallet:
    """The wallet that took a bet: the one that credits it."""
    return INTERNAL if not bet.operator else Seamless(bet.operator)


INTERNAL = Internal()
