"""The one small vocabulary every game engine speaks.

A round engine is built from the table's rules and the bets accepted at the close of betting.
It then answers ``expected`` — what it waits for next — and is driven by exactly three verbs:

- :meth:`RoundEngine.deal` a card (only when a :class:`CardFor` is expected),
- :meth:`RoundEngine.act` a decision (a seated player's action, insurance, a follow answer),
- :meth:`RoundEngine.close_window` when a timed window (insurance, follow) runs out,

and finally :meth:`RoundEngine.settle`, legal once :class:`Settle` is expected. ``log`` holds the
cards and actions applied so far, so a round can always be written out as a transcript and
rebuilt by replaying it (:func:`croupier.transcript.replay`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Protocol, runtime_checkable

from ..errors import BetRefused

# --- what a round expects next ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardFor:
    """The next card goes to ``hand`` (``"player"``, ``"banker"``, ``"hand-3"``, ``"seat-2"``,
    ``"seat-2/1"`` for a second split hand, ``"dealer"``). ``face_up`` is False for a hidden card
    (the Deluxe hole card) and for burned cards."""

    hand: str
    face_up: bool = True
    kind: ClassVar[str] = "card"


@dataclass(frozen=True, slots=True)
class DecisionFor:
    """A seated player's decision on ``seat``'s hand ``hand`` (0, or 1 for a second split hand)."""

    seat: int
    hand: int
    legal: frozenset[str]
    kind: ClassVar[str] = "decision"


@dataclass(frozen=True, slots=True)
class InsuranceWindow:
    """Insurance is on offer (the dealer's up card is an ace). ``bets`` lists the ids of the
    seat and bet-behind bets that may still buy it. The window ends with ``close_window``."""

    bets: tuple[str, ...]
    kind: ClassVar[str] = "insurance"


@dataclass(frozen=True, slots=True)
class FollowWindow:
    """The seated player on ``seat`` doubled or split (``what``); bet-behind players on that seat
    may follow. ``bets`` are the ids of the bet-behind bets that may answer Yes."""

    seat: int
    hand: int
    what: str  # "double" | "split"
    bets: tuple[str, ...]
    kind: ClassVar[str] = "follow"


@dataclass(frozen=True, slots=True)
class Settle:
    """Every card and decision is in: the round can be settled."""

    kind: ClassVar[str] = "settle"


Expectation = CardFor | DecisionFor | InsuranceWindow | FollowWindow | Settle


# --- bets and their results ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bet:
    """One accepted bet. ``amount`` is in minor units. ``seat`` for blackjack bets; ``mode`` for a
    Baccarat Banker bet (``"commission"`` or ``"no-commission"``)."""

    id: str
    player: str
    type: str
    amount: int
    seat: int | None = None
    mode: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "player": self.player, "type": self.type, "amount": self.amount}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.mode is not None:
            out["mode"] = self.mode
        return out


@dataclass(frozen=True, slots=True)
class Action:
    """A decision. ``player`` is set for a bet-behind player's answer (insurance, follows); a
    seated player's action names only the seat. ``hand`` picks a split hand for follow-double."""

    seat: int
    action: str
    player: str | None = None
    hand: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.player is not None:
            out["player"] = self.player
        out["seat"] = self.seat
        out["action"] = self.action
        if self.hand is not None:
            out["hand"] = self.hand
        return out


class Outcome:
    WIN = "win"
    BLACKJACK = "blackjack"
    LOSE = "lose"
    PUSH = "push"
    SURRENDER = "surrender"
    REFUND = "refund"


@dataclass(slots=True)
class BetResult:
    """How one bet ended. ``staked`` is everything the bet took from the wallet over the round
    (doubles, split hands, insurance bought on it, a Pok Deng reservation); ``paid`` is what
    settlement credits back (rounded down); ``net = paid - staked``. ``exact_net`` is the exact
    figure before rounding, kept for the record.

    Treat it as read-only. It is not frozen only because settlement builds one per bet and a
    frozen dataclass costs several times as much to build (nobody hashes a result)."""

    id: str
    outcome: str
    net: int
    staked: int
    paid: int
    exact_net: Fraction
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "outcome": self.outcome, "net": self.net}
        if full:
            out.update(staked=self.staked, paid=self.paid, exact_net=str(self.exact_net))
        out.update(self.detail)
        return out


@dataclass(frozen=True, slots=True)
class Settlement:
    bets: tuple[BetResult, ...]
    hands: dict[str, Any]

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        return {"bets": [b.to_dict(full=full) for b in self.bets], "hands": self.hands}

    def by_id(self) -> dict[str, BetResult]:
        return {b.id: b for b in self.bets}


def result(bet: Bet, outcome: str, staked: int, paid_exact: Fraction | int, **detail: Any) -> BetResult:
    """Build a :class:`BetResult`, rounding what is paid down to the minor unit."""
    if isinstance(paid_exact, int):  # whole payouts: skip Fraction arithmetic (hot path of settlement)
        net = int(paid_exact) - staked
        return BetResult(bet.id, outcome, net, staked, net + staked, _whole(net), detail)
    paid = paid_exact.numerator // paid_exact.denominator
    return BetResult(bet.id, outcome, paid - staked, staked, paid, paid_exact - staked, detail)


def paid_result(bet_id: str, outcome: str, staked: int, whole: int, stake: int, num: int, den: int,
                detail: dict[str, Any]) -> BetResult:
    """:func:`result` for a payout of ``whole + stake * num / den`` (a ratio in lowest terms, as
    :func:`ratio_parts` gives it), without Fraction arithmetic unless the payout has a fraction
    of a minor unit. The same figures as ``result(bet, outcome, staked, whole + stake * ratio)``."""
    if den == 1:
        net = whole + stake * num - staked
        return BetResult(bet_id, outcome, net, staked, net + staked, _whole(net), detail)
    extra, rest = divmod(stake * num, den)
    paid = whole + extra
    net = paid - staked
    if rest:
        return BetResult(bet_id, outcome, net, staked, paid, Fraction((whole - staked) * den + stake * num, den),
                         detail)
    return BetResult(bet_id, outcome, net, staked, paid, _whole(net), detail)


def whole_result(bet_id: str, outcome: str, staked: int, paid: int, detail: dict[str, Any]) -> BetResult:
    """:func:`result` for a whole payout (``paid`` in minor units)."""
    net = paid - staked
    return BetResult(bet_id, outcome, net, staked, paid, _whole(net), detail)


def ratio_parts(ratio: Fraction | int) -> tuple[int, int]:
    """A payout ratio as ``(numerator, denominator)`` in lowest terms, for :func:`paid_result`."""
    if isinstance(ratio, int):
        return ratio, 1
    return ratio.numerator, ratio.denominator


class _Wholes(dict[int, Fraction]):
    """``Fraction(n)`` for an int, shared (Fractions are immutable): most nets repeat round after
    round. Bounded: cleared when it holds 4,096 figures."""

    def __missing__(self, n: int) -> Fraction:
        if len(self) >= 4096:
            self.clear()
        value = self[n] = Fraction(n)
        return value


exact_whole = _whole = _Wholes().__getitem__
"""``exact_whole(n) == Fraction(n)``, from a cache (a dict lookup: the hot path of settlement)."""


# --- the engine protocol ---------------------------------------------------------------------


@runtime_checkable
class RoundEngine(Protocol):
    game: ClassVar[str]
    deals_during_betting: ClassVar[bool]
    """True when the dealer deals the round's cards while bets are still open (Pok Deng: face
    down, revealed after the close); False when the first card comes once betting has ended."""

    @property
    def expected(self) -> Expectation: ...

    @property
    def log(self) -> list[str | Action]: ...

    def deal(self, card: str) -> None: ...

    def act(self, action: Action) -> None: ...

    def close_window(self) -> None: ...

    def settle(self) -> Settlement: ...

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]: ...


# --- helpers shared by the engines -----------------------------------------------------------


def check_bet_basics(bet: Bet, limits: Mapping[Any, Any], known_types: frozenset[str] | tuple[str, ...]) -> None:
    """Type known, amount a positive integer within the table's limits for that type."""
    if bet.type not in known_types:
        raise BetRefused(
            f"bet {bet.id}: unknown bet type {bet.type!r}; this game takes {', '.join(sorted(known_types))}",
            reason="unknown-bet-type",
        )
    if isinstance(bet.amount, bool) or not isinstance(bet.amount, int) or bet.amount <= 0:
        raise BetRefused(f"bet {bet.id}: amount must be a positive whole number of minor units", reason="bad-amount")
    limit = limits.get(bet.type)
    if limit is not None and not limit.min <= bet.amount <= limit.max:
        raise BetRefused(
            f"bet {bet.id}: {bet.type} amount {bet.amount} is outside the table limits {limit.min} to {limit.max}",
            reason="table-limit",
        )


def check_unique_ids(bets: Any) -> None:
    seen: set[str] = set()
    for bet in bets:
        if bet.id in seen:
            raise BetRefused(f"bet id {bet.id!r} appears twice", reason="duplicate-bet-id")
        seen.add(bet.id)
