"""Deluxe Blackjack and the classic no-hole-card table (``blackjack.md``, actions as ``replay.md``).

One engine, :class:`BlackjackRound`, plays both tables; every difference is a field of
:class:`~croupier.rules.BlackjackRules` (``hole_card``, ``short_balance``, ``dealer_bj_takes`` ...).

Hands are named ``"seat-3"`` (first hand of seat 3), ``"seat-3/1"`` (its second split hand) and
``"dealer"``. The Deluxe hole card is expected as ``CardFor("dealer", face_up=False)``.

Flow of a round
---------------
1. Initial deal: one card to each dealt seat from the lowest, the dealer's up card, the second card
   to each seat, then (hole-card table) the hole card.
2. Up card an ace: the insurance window (seat and bet-behind bets; ``close_window`` ends it).
   Hole-card table: then the peek; dealer BJ, or every dealt seat BJ, ends the round at once.
3. Seats act from the lowest, each hand in turn. A double or split opens a follow window for the
   bet-behind bets of that hand *before* the card(s) that follow it. After a split the second
   cards follow ``split_deal``: ``each-in-turn`` (Deluxe) deals hand 1 its card and plays it to
   the end before hand 2 gets its card; ``both-first`` (classic) deals hand 1, then hand 2 its
   card, then hand 1 is played, then hand 2. Split aces: one card each, then both stand.
4. The dealer reveals (hole card) or draws (classic) the second card and plays: hits 16 or less,
   stands on 17 or more (soft 17 per ``dealer_hits_soft_17``). When no hand is left that the
   dealer's total can decide, the hole-card dealer only reveals, and the classic dealer draws the
   second card only if the up card is an ace or a 10-value card and a BJ hand or an insurance bet
   waits for it.
5. :meth:`BlackjackRound.settle` (or the pure :func:`settle_bet` over :meth:`BlackjackRound.final_round`).

Decisions taken here where the spec leaves a point open (each also stated where it is applied)
-------------------------------------------------------------------------------------------------
- Doubling is on the first two cards of a hand, on both tables; doubling a split hand follows
  ``double_after_split`` (default True, so the Deluxe rule "first hand or split hands" holds).
- Classic table: a pair bet may be placed only by the player seated at that seat or by a player
  betting behind it (``variant == "classic"``); checked on dealt seats only.
- A player has at most one bet-behind bet per seat (answers are addressed by player and seat).
- Deluxe mirroring (``mirror_seat_bets``): a player's seat bets are level, or differ by one minor
  unit with the larger on the lower seat: the odd unit of an addition split between the seats
  (``blackjack.md`` **Decision**, as ``betting.py`` places it). Anything else is refused.
- The insurance window opens whenever the up card is an ace; a follow window opens whenever at
  least one bet-behind bet follows the hand, even if none can afford to answer Yes. Windows stay
  open until :meth:`close_window` (no automatic close).
- An unaffordable follow answer is accepted and logged, and counts as No. A second answer from
  the same bet in the same window is refused. A bet whose insurance would cost 0 (stake 1) is not
  offered insurance.
- Rounding: each bet's payout is summed exactly over its hands and insurance, then rounded down
  once (``common.md``: a player never receives a fraction).
- ``dealer_bj_takes == "original"``: with dealer BJ a bet loses only its original stake; every
  extra stake (double, split hand) comes back, whatever happened to the hand (busted included).
- Deluxe short balance: the score deciding hit (<= 11) or stand is the hand's best total, so an
  unaffordable split of two aces (soft 12) stands.
- Surrender is offered only on the first two cards before any other action of the seat (the
  *Hit* row's "or the player surrenders" is not read as surrender after a hit).
- A pre-selected action is applied at the first decision of the seat's turn (its first hand),
  logged as an ordinary action; it is dropped if not legal then, or if the turn never starts
  (a BJ). ``preselect(seat, None)`` clears it.
- ``timeout`` is legal at every decision. A seated action naming a ``hand`` other than the hand
  deciding is refused.
- With no dealt seat no card is expected at all and every bet is refunded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, NamedTuple

from ..cards import ALL_CARDS, BLACKJACK_VALUE, RED_SUITS, parse_card
from ..errors import BetRefused, IllegalAction, IncompleteRound, RulesError, UnexpectedCard
from ..rules import BlackjackRules, PairPaytable
from .base import (
    Action,
    Bet,
    BetResult,
    CardFor,
    DecisionFor,
    Expectation,
    FollowWindow,
    InsuranceWindow,
    Outcome,
    Settle,
    Settlement,
    check_bet_basics,
    check_unique_ids,
    exact_whole,
    ratio_parts,
    result,
    whole_result,
)

GAME_DELUXE = "deluxe-blackjack"
GAME_CLASSIC = "blackjack"
BET_TYPES = ("seat", "behind", "pair")
SEATED_ACTIONS = ("hit", "stand", "double", "split", "surrender", "insurance", "timeout")
BEHIND_ACTIONS = ("insurance", "follow-double", "follow-split")
PRESELECTABLE = ("hit", "stand", "double", "split", "surrender")

# --- pure helpers ----------------------------------------------------------------------------


def hand_value(cards: Iterable[str]) -> tuple[int, bool]:
    """``(total, soft)``: the best total (one ace counted as 11 when that does not bust) and
    whether an ace counts as 11 in it. A total over 21 is a bust."""
    hard = 0
    ace = False
    for card in cards:
        value = BLACKJACK_VALUE[card[0]]
        hard += value
        if value == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def is_blackjack(cards: Sequence[str], split: bool = False) -> bool:
    """An ace and a 10-value card as a hand's first two cards; a split hand is never BJ."""
    return not split and len(cards) == 2 and hand_value(cards)[0] == 21


def dealer_must_hit(cards: Sequence[str], rules: BlackjackRules) -> bool:
    """The dealer hits 16 or less and stands on 17 or more; soft 17 per ``dealer_hits_soft_17``."""
    total, soft = hand_value(cards)
    return total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17)


def is_ten_or_ace(card: str) -> bool:
    return card[0] in "ATJQK"


def pair_grade(first_two: Sequence[str], paytable: PairPaytable) -> tuple[str, Fraction] | None:
    """The winning grade of a pair bet on these two cards and its ratio, or None if it loses.
    ``same-rank`` table: any pair of the same rank. Perfect Pairs: ``perfect`` (same rank and
    suit), ``coloured`` (same rank and colour), ``mixed`` (same rank, different colours)."""
    a, b = first_two[0], first_two[1]
    if a[0] != b[0]:
        return None
    if paytable.same_rank is not None:
        return "same-rank", paytable.same_rank
    if a[1] == b[1]:
        grade, ratio = "perfect", paytable.perfect
    elif (a[1] in RED_SUITS) == (b[1] in RED_SUITS):
        grade, ratio = "coloured", paytable.coloured
    else:
        grade, ratio = "mixed", paytable.mixed
    assert ratio is not None  # the paytable model requires all three grades
    return grade, ratio


def _times(stake: int, ratio: Fraction) -> int | Fraction:
    """Exact winnings; an int whenever they are whole (fast path, same value)."""
    den = ratio.denominator
    if den == 1:
        return stake * ratio.numerator
    won = stake * ratio.numerator
    if won % den == 0:
        return won // den
    return Fraction(won, den)


def _half(stake: int) -> int | Fraction:
    return stake // 2 if stake % 2 == 0 else Fraction(stake, 2)


# --- the final state of a round (what settlement needs) ----------------------------------------


class FinalHand(NamedTuple):
    """One seat hand at the end of the round. ``stake`` is the seat bet's stake on it (doubled
    included); ``outcome`` its result against the dealer (see :func:`outcome_of`)."""

    name: str
    cards: tuple[str, ...]
    total: int
    soft: bool
    split: bool
    doubled: bool
    surrendered: bool
    stake: int
    outcome: str = ""

    @property
    def bust(self) -> bool:
        return self.total > 21

    @property
    def blackjack(self) -> bool:
        return not self.split and len(self.cards) == 2 and self.total == 21


class FinalSeat(NamedTuple):
    seat: int
    bet_id: str
    first_two: tuple[str, str]
    hands: tuple[FinalHand, ...]


def outcome_of(total: int, blackjack: bool, surrendered: bool, dealer_total: int, dealer_bj: bool) -> str:
    """``blackjack``, ``win``, ``lose``, ``push`` or ``surrender`` of one hand (``blackjack.md``,
    Result of a hand). BJ beats every other hand, a three-card 21 included; dealer BJ beats every
    hand but a BJ, which pushes."""
    if surrendered:
        return Outcome.SURRENDER
    if dealer_bj:
        return Outcome.PUSH if blackjack else Outcome.LOSE
    if total > 21:
        return Outcome.LOSE
    if blackjack:
        return Outcome.BLACKJACK
    if dealer_total > 21 or total > dealer_total:
        return Outcome.WIN
    return Outcome.PUSH if total == dealer_total else Outcome.LOSE


@dataclass(frozen=True, slots=True)
class FinalRound:
    """Everything settlement needs, as plain immutable data (picklable): the dealer's cards, the
    dealt seats' hands with their outcomes, and which bets bought insurance or followed a split
    or a double. Build one with :meth:`build` (or :meth:`BlackjackRound.final_round`)."""

    dealer: tuple[str, ...]
    seats: Mapping[int, FinalSeat]
    insured: frozenset[str]
    followed_split: frozenset[str]
    followed_double: frozenset[tuple[str, int]]
    dealer_total: int
    dealer_soft: bool
    dealer_bj: bool

    @classmethod
    def build(
        cls,
        dealer: Sequence[str],
        seats: Mapping[int, FinalSeat],
        insured: Iterable[str] = (),
        followed_split: Iterable[str] = (),
        followed_double: Iterable[tuple[str, int]] = (),
    ) -> FinalRound:
        """The final round from its parts; every hand's ``outcome`` is (re)computed here."""
        total, soft = hand_value(dealer)
        bj = len(dealer) == 2 and total == 21
        fixed = {
            n: s._replace(hands=tuple(
                h._replace(outcome=outcome_of(h.total, h.blackjack, h.surrendered, total, bj)) for h in s.hands
            ))
            for n, s in seats.items()
        }
        return cls(tuple(dealer), fixed, frozenset(insured), frozenset(followed_split), frozenset(followed_double),
                   total, soft, bj)

    def hands_dict(self) -> dict[str, Any]:
        """JSON-friendly: every seat hand and the dealer's."""
        out: dict[str, Any] = {
            "dealer": {
                "cards": list(self.dealer), "score": self.dealer_total, "soft": self.dealer_soft,
                "bust": self.dealer_total > 21, "bj": self.dealer_bj,
            }
        }
        seats = self.seats
        for number in sorted(seats):
            for index, hand in enumerate(seats[number].hands):
                total = hand.total
                out[hand.name] = {
                    "seat": number, "hand": index, "cards": list(hand.cards), "score": total,
                    "soft": hand.soft, "bust": total > 21,
                    "bj": not hand.split and total == 21 and len(hand.cards) == 2,
                    "doubled": hand.doubled, "surrendered": hand.surrendered, "stake": hand.stake,
                    "outcome": hand.outcome,
                }
        return out


def hand_outcome(hand: FinalHand, final: FinalRound) -> str:
    """The outcome of ``hand`` against the final round's dealer."""
    return outcome_of(hand.total, hand.blackjack, hand.surrendered, final.dealer_total, final.dealer_bj)


class _Pays(NamedTuple):
    """The payout ratios of a rules object as (numerator, denominator), read once per object."""

    win: tuple[int, int]
    blackjack: tuple[int, int]
    insurance: tuple[int, int]
    original_only: bool
    """``dealer_bj_takes == "original"``."""


_PAYS: dict[int, tuple[BlackjackRules, _Pays]] = {}


def _pays(rules: BlackjackRules) -> _Pays:
    cached = _PAYS.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    pays = _Pays(ratio_parts(rules.win_pays), ratio_parts(rules.blackjack_pays), ratio_parts(rules.insurance_pays),
                 rules.dealer_bj_takes == "original")
    if len(_PAYS) >= 64:
        _PAYS.clear()
    _PAYS[id(rules)] = (rules, pays)  # the reference keeps the id from being reused
    return pays


def _won(stake: int, ratio: tuple[int, int]) -> int | Fraction:
    """Exact winnings of ``stake`` at ``ratio`` (numerator, denominator); an int when whole."""
    won = stake * ratio[0]
    den = ratio[1]
    if den == 1 or won % den == 0:
        return won // den
    return Fraction(won, den)


def settle_bet(rules: BlackjackRules, final: FinalRound, bet: Bet) -> BetResult:
    """Settle one bet against the final round. Pure: bets can be settled in any order or in
    parallel chunks. A seat or bet-behind bet's net covers its double(s), its split hand and its
    insurance; ``outcome`` is the first hand's; per-hand detail is in ``detail["hands"]``.
    The exact payout is summed over the bet's hands and insurance and rounded down once."""
    amount = bet.amount
    seat = final.seats.get(bet.seat) if bet.seat is not None else None
    kind = bet.type
    if seat is None:
        return whole_result(bet.id, _REFUND, amount, amount, {"reason": f"seat {bet.seat} was not dealt"})
    if kind == "pair":
        cards = list(seat.first_two)
        grade = pair_grade(seat.first_two, rules.pair_paytable)
        if grade is None:
            return whole_result(bet.id, _LOSE, amount, 0, {"cards": cards})
        return result(bet, _WIN, amount, amount + _times(amount, grade[1]), cards=cards, pair=grade[0])
    hands = seat.hands
    followed: frozenset[tuple[str, int]] = _NONE_FOLLOWED
    if kind == "behind":
        if len(hands) > 1 and bet.id not in final.followed_split:
            hands = hands[:1]
        followed = final.followed_double
    elif kind != "seat":
        raise BetRefused(f"bet {bet.id}: unknown bet type {kind!r}", reason="unknown-bet-type")
    pays = _pays(rules)
    original_only = final.dealer_bj and pays.original_only
    staked = 0
    paid: int | Fraction = 0
    details: list[dict[str, Any]] = []
    for i, hand in enumerate(hands):
        if kind == "seat":
            stake = amount * 2 if hand.doubled else amount
        else:
            stake = amount * 2 if followed and (bet.id, i) in followed else amount
        outcome = hand.outcome
        detail: dict[str, Any] = {"hand": hand.name, "outcome": outcome, "stake": stake}
        if outcome == _WIN:
            paid += stake + _won(stake, pays.win)
        elif outcome == _LOSE:
            if original_only:
                returned = stake - amount if i == 0 else stake
                paid += returned
                detail["returned"] = returned
        elif outcome == _PUSH:
            paid += stake
        elif outcome == _BLACKJACK:
            paid += stake + _won(stake, pays.blackjack)
        else:
            paid += _half(stake)
        staked += stake
        details.append(detail)
    out: dict[str, Any] = {"hands": details}
    if bet.id in final.insured:
        cost = amount // 2
        staked += cost
        if final.dealer_bj:
            paid += cost + _won(cost, pays.insurance)
            out["insurance"] = _WIN
        else:
            out["insurance"] = _LOSE
        out["insurance_stake"] = cost
    if type(paid) is int:  # whole_result, inlined (the hot path)
        net = paid - staked
        return BetResult(bet.id, hands[0].outcome, net, staked, paid, exact_whole(net), out)
    return result(bet, hands[0].outcome, staked, paid, **out)


_WIN, _LOSE, _PUSH, _BLACKJACK, _REFUND = Outcome.WIN, Outcome.LOSE, Outcome.PUSH, Outcome.BLACKJACK, Outcome.REFUND
_NONE_FOLLOWED: frozenset[tuple[str, int]] = frozenset()


# --- bet validation --------------------------------------------------------------------------


def _mirrored(own: Sequence[Bet]) -> bool:
    """Deluxe mirroring holds for one player's seat bets: the same amount on each seat, except
    that an addition split between the seats (the balance did not cover it on each) leaves the
    odd minor unit on the lower seat (``blackjack.md`` **Decision**; ``betting.py`` does so). So
    the amounts differ by at most one unit, and no seat holds more than a lower-numbered one."""
    amounts = [b.amount for b in sorted(own, key=lambda b: b.seat or 0)]
    return amounts == sorted(amounts, reverse=True) and amounts[0] - amounts[-1] <= 1


def validate_bets(rules: BlackjackRules, bets: Sequence[Bet]) -> None:
    """Every table rule a set of accepted bets must satisfy (``blackjack.md``: Seats, Side bets
    and bet behind). Raises :class:`BetRefused` naming the bet and the rule."""
    if len({bet.id for bet in bets}) != len(bets):
        check_unique_ids(bets)
    limits: dict[str, Any] = rules.limits  # type: ignore[assignment]
    seats = rules.seats
    seat_bets: dict[int, Bet] = {}
    seats_of: dict[str, list[Bet]] = {}
    for bet in bets:
        seat = bet.seat
        amount = bet.amount
        limit = limits.get(bet.type)
        if not (limit is not None and type(amount) is int and limit.min <= amount <= limit.max and bet.mode is None
                and type(seat) is int and 1 <= seat <= seats):
            # Not the common case: the checks one by one, each naming what is wrong.
            check_bet_basics(bet, limits, BET_TYPES)
            if bet.mode is not None:
                raise BetRefused(f"bet {bet.id}: a blackjack bet carries no mode", reason="bad-bet")
            if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
                raise BetRefused(f"bet {bet.id}: a {bet.type} bet needs a seat from 1 to {seats}, not {seat!r}",
                                 reason="bad-seat")
        if bet.type == "seat":
            if seat in seat_bets:
                raise BetRefused(f"bet {bet.id}: seat {seat} already has a seat bet ({seat_bets[seat].id})",
                                 reason="seat-taken")
            seat_bets[seat] = bet
            seats_of.setdefault(bet.player, []).append(bet)
    for player, own in seats_of.items():
        if len(own) > rules.max_seats_per_player:
            many = "one seat" if rules.max_seats_per_player == 1 else f"{rules.max_seats_per_player} seats"
            raise BetRefused(
                f"player {player}: seat bets on seats {', '.join(str(b.seat) for b in own)}; a player may "
                f"occupy at most {many} at this table",
                reason="too-many-seats",
            )
        if rules.mirror_seat_bets and len(own) > 1 and not _mirrored(own):
            raise BetRefused(
                f"player {player}: the same amount must stand on each of their seats, give or take the odd minor "
                f"unit of a split addition on the lower seat ({', '.join(f'seat {b.seat}: {b.amount}' for b in own)})",
                reason="mirror-seat-bets",
            )
    behind: set[tuple[str, int]] = set()
    for bet in bets:
        if bet.type != "behind":
            continue
        seat = bet.seat
        assert seat is not None
        if bet.player in seats_of:
            if not rules.seated_may_bet_behind:
                raise BetRefused(f"bet {bet.id}: player {bet.player} is seated and may not bet behind at this table",
                                 reason="seated-bet-behind")
            holder = seat_bets.get(seat)
            if holder is not None and holder.player == bet.player:
                raise BetRefused(f"bet {bet.id}: player {bet.player} may not bet behind their own seat {seat}",
                                 reason="behind-own-seat")
        if (bet.player, seat) in behind:
            raise BetRefused(f"bet {bet.id}: player {bet.player} already bets behind seat {seat} "
                             f"(one bet-behind bet per player and seat)", reason="duplicate-behind")
        behind.add((bet.player, seat))
    if rules.variant == "classic":
        for bet in bets:
            if bet.type != "pair" or bet.seat not in seat_bets:
                continue
            if seat_bets[bet.seat].player != bet.player and (bet.player, bet.seat) not in behind:
                raise BetRefused(
                    f"bet {bet.id}: at this table a pair bet on seat {bet.seat} is only for the player seated "
                    f"there or a player betting behind it", reason="pair-not-allowed",
                )


# --- the engine ------------------------------------------------------------------------------

_VALID = frozenset(ALL_CARDS)
_DEAL, _INSURANCE, _PLAY, _DEALER, _DONE = range(5)
_PHASE_NAMES = ("dealing", "insurance", "decisions", "dealer", "complete")
_SETTLE = Settle()
_DOUBLE, _SPLIT, _SURRENDER = 1, 2, 4
_LEGAL_SETS: tuple[frozenset[str], ...] = tuple(
    frozenset(("hit", "stand", "timeout")
              + (("double",) if m & _DOUBLE else ())
              + (("split",) if m & _SPLIT else ())
              + (("surrender",) if m & _SURRENDER else ()))
    for m in range(8)
)
# Expectations are immutable: share them instead of building one per step (bounded: 7 seats).
_CARD_FOR: dict[tuple[str, bool], CardFor] = {}
_DECISIONS: dict[tuple[int, int, int], DecisionFor] = {}


def _card_for(name: str, face_up: bool = True) -> CardFor:
    found = _CARD_FOR.get((name, face_up))
    if found is None:
        found = _CARD_FOR[(name, face_up)] = CardFor(name, face_up)
    return found


def _decision(seat: int, hand: int, mask: int) -> DecisionFor:
    key = (seat, hand, mask)
    found = _DECISIONS.get(key)
    if found is None:
        found = _DECISIONS[key] = DecisionFor(seat, hand, _LEGAL_SETS[mask])
    return found


_SEAT_NAMES = {n: f"seat-{n}" for n in range(1, 8)}


class _Hand:
    __slots__ = ("aces", "auto", "card_for", "cards", "doubled", "hard", "index", "name", "owed", "soft", "split",
                 "split_aces", "stake", "stood", "surrendered", "total")

    def __init__(self, name: str, index: int, stake: int, split: bool = False) -> None:
        self.name = name
        self.index = index
        self.card_for = _card_for(name)
        self.cards: list[str] = []
        self.hard = self.aces = self.total = self.owed = 0
        self.soft = self.doubled = self.surrendered = self.stood = self.auto = self.split_aces = False
        self.stake = stake
        self.split = split

    def add(self, card: str) -> None:
        self.cards.append(card)
        value = BLACKJACK_VALUE[card[0]]
        hard = self.hard = self.hard + value
        if value == 1:
            self.aces += 1
        if self.aces and hard <= 11:
            self.total = hard + 10
            self.soft = True
        else:
            self.total = hard
            self.soft = False

    @property
    def blackjack(self) -> bool:
        return not self.split and len(self.cards) == 2 and self.total == 21

    def to_view(self) -> dict[str, Any]:
        return {
            "hand": self.name, "cards": list(self.cards), "score": self.total, "soft": self.soft,
            "bust": self.total > 21, "bj": self.blackjack, "doubled": self.doubled,
            "surrendered": self.surrendered, "stake": self.stake,
        }


class _Seat:
    __slots__ = ("acted", "amount", "behind", "bet", "first_two", "hands", "number", "player", "preselected",
                 "split", "turn_started")

    def __init__(self, bet: Bet, number: int) -> None:
        self.number = number
        self.bet = bet
        self.player = bet.player
        self.amount = bet.amount
        self.hands = [_Hand(_SEAT_NAMES.get(number) or f"seat-{number}", 0, bet.amount)]
        self.first_two: tuple[str, str] = ("", "")
        self.behind: list[_Behind] = []
        self.acted = self.split = self.turn_started = False
        self.preselected: str | None = None


class _Behind:
    __slots__ = ("bet", "doubled", "followed_split", "seat")

    def __init__(self, bet: Bet, seat: _Seat) -> None:
        self.bet = bet
        self.seat = seat
        self.followed_split = False
        self.doubled = [False, False]

    def follows(self, hand: int) -> bool:
        return hand == 0 or self.followed_split


class BlackjackRound:
    """One blackjack round, Deluxe (``rules.hole_card``) or classic. Driven by :meth:`deal`,
    :meth:`act`, :meth:`close_window` as :attr:`expected` says; then :meth:`settle`.

    ``balances``: each player's balance after the bets were placed (a player not named has an
    unlimited balance). Every extra stake (double, split, insurance, follow) is taken from it at
    the moment of the action; nothing comes back before settlement. ``validate=False`` skips the
    table-rule checks of the bets (for callers that checked them already)."""

    game: ClassVar[str] = GAME_DELUXE
    deals_during_betting: ClassVar[bool] = False

    def __init__(
        self,
        rules: BlackjackRules,
        bets: Sequence[Bet] = (),
        *,
        round_in_shoe: int = 1,
        balances: Mapping[str, int] | None = None,
        validate: bool = True,
    ) -> None:
        if not isinstance(rules, BlackjackRules):
            raise RulesError(f"a blackjack round needs blackjack rules, not {type(rules).__name__}")
        if validate:
            validate_bets(rules, bets)
        self.game = GAME_DELUXE if rules.variant == "deluxe" else GAME_CLASSIC  # type: ignore[misc]
        self.rules = rules
        self.bets = tuple(bets)
        self.round_in_shoe = round_in_shoe
        self.balances: dict[str, int] | None = dict(balances) if balances is not None else None
        """The balances the round started with (for :meth:`Transcript.of`)."""
        self._balance: dict[str, int] = dict(balances) if balances else {}
        self._convert_short = rules.short_balance == "hit-or-stand"
        self._both_first = rules.split_deal == "both-first"
        self._log: list[str | Action] = []

        seat_at: dict[int, _Seat] = {}
        for bet in self.bets:
            if bet.type == "seat" and bet.seat is not None and bet.seat not in seat_at:
                seat_at[bet.seat] = _Seat(bet, bet.seat)
        self._seats = [seat_at[n] for n in sorted(seat_at)]
        self._seat_at = seat_at
        self._behind: dict[tuple[str, int], _Behind] = {}
        self._insurable: list[Bet] = []
        for bet in self.bets:
            seat = seat_at.get(bet.seat)  # type: ignore[arg-type]
            if seat is None:
                continue
            if bet.type == "behind":
                entry = _Behind(bet, seat)
                seat.behind.append(entry)
                self._behind[(bet.player, seat.number)] = entry
                self._insurable.append(bet)
            elif bet.type == "seat" and seat.bet is bet:
                self._insurable.append(bet)
        self._dealer = _Hand("dealer", 0, 0)
        plan: list[tuple[_Hand, CardFor]] = []
        if self._seats:
            firsts = [(s.hands[0], s.hands[0].card_for) for s in self._seats]
            plan = [*firsts, (self._dealer, self._dealer.card_for), *firsts]
            if rules.hole_card:
                plan.append((self._dealer, _card_for("dealer", False)))
        self._plan = plan
        self._plan_at = 0
        self._phase = _DEAL
        self._turn = 0
        self._hand_i = 0
        self._follow: tuple[_Seat, int, str] | None = None
        self._answered: set[str] = set()
        self._insured: set[str] = set()
        self._peeked = False
        self._revealed = not rules.hole_card
        self._live = True
        self._target: _Hand = self._dealer
        self._expected: Expectation = _SETTLE
        self._advance()

    # --- protocol ----------------------------------------------------------------------------
    @property
    def expected(self) -> Expectation:
        return self._expected

    @property
    def log(self) -> list[str | Action]:
        return self._log

    @property
    def complete(self) -> bool:
        return self._phase == _DONE

    def balance_of(self, player: str) -> int | None:
        """The player's balance now (after the extra stakes taken so far); None if unlimited."""
        return self._balance.get(player)

    def deal(self, card: str) -> None:
        if type(card) is not str or card not in _VALID:  # parse_card explains what is wrong
            card = parse_card(card)
        if type(self._expected) is not CardFor:
            raise UnexpectedCard(f"no card is expected ({card}): {self._awaiting()}")
        hand = self._target
        hand.cards.append(card)  # _Hand.add, inlined: this is the engine's hottest path
        value = BLACKJACK_VALUE[card[0]]
        hard = hand.hard = hand.hard + value
        if value == 1:
            hand.aces += 1
        if hand.aces and hard <= 11:
            hand.total = hard + 10
            hand.soft = True
        else:
            hand.total = hard
            hand.soft = False
        self._log.append(card)
        if hand.owed:
            hand.owed -= 1
        if self._phase == _DEAL:
            self._plan_at += 1
            if self._plan_at < len(self._plan):
                self._target, self._expected = self._plan[self._plan_at]
                return
        self._advance()

    def act(self, action: Action) -> None:
        expected = self._expected
        kind = type(expected)
        if kind is DecisionFor:
            self._act_decision(expected, action)  # type: ignore[arg-type]
        elif kind is InsuranceWindow:
            if action.action != "insurance":
                who = f"seat {action.seat}" if action.player is None else f"player {action.player}"
                raise IllegalAction(
                    f"{who} cannot {action.action}: the insurance window is open; only insurance answers are "
                    f"taken until it closes", reason="insurance-window-open")
            self._buy_insurance(action)
        elif kind is FollowWindow:
            self._answer_follow(expected, action)  # type: ignore[arg-type]
        else:
            who = f"seat {action.seat}" if action.player is None else f"player {action.player}"
            raise IllegalAction(f"{who} cannot {_verb(action.action)}: {self._awaiting()}", reason="not-expected")
        self._advance()

    def close_window(self) -> None:
        if self._phase == _INSURANCE:
            self._after_insurance()
        elif self._follow is not None:
            self._follow = None
            self._answered = set()
        else:
            raise IllegalAction(f"no window is open: {self._awaiting()}", reason="no-window")
        self._advance()

    def preselect(self, seat: int, action: str | None) -> None:
        """Store an action for ``seat`` before its turn; when the turn starts it is applied if still
        legal (and logged as a normal action), otherwise dropped. ``None`` clears it."""
        entry = self._seat_at.get(seat)
        if entry is None:
            raise IllegalAction(f"seat {seat} is not dealt in this round", reason="no-such-seat")
        passed = self._phase == _PLAY and self._seats.index(entry) < self._turn
        if entry.turn_started or self._phase > _PLAY or passed:
            raise IllegalAction(f"seat {seat} cannot pre-select: its turn has already started", reason="turn-started")
        if action is not None and action not in PRESELECTABLE:
            raise IllegalAction(f"seat {seat} cannot pre-select {action!r}; pre-selectable actions are "
                                f"{', '.join(PRESELECTABLE)}", reason="unknown-action")
        entry.preselected = action

    def settle(self) -> Settlement:
        final = self.final_round()
        rules = self.rules
        return Settlement(tuple([settle_bet(rules, final, b) for b in self.bets]), final.hands_dict())

    def final_round(self) -> FinalRound:
        """The round's final state as immutable data, for :func:`settle_bet`."""
        if self._phase != _DONE:
            raise IncompleteRound(f"the round is not complete: {self._awaiting()}")
        dealer = self._dealer
        d_total = dealer.total
        d_bj = len(dealer.cards) == 2 and d_total == 21
        seats: dict[int, FinalSeat] = {}
        followed_split: list[str] = []
        followed_double: list[tuple[str, int]] = []
        for s in self._seats:
            hands = []
            for h in s.hands:
                total = h.total
                bj = not h.split and total == 21 and len(h.cards) == 2
                outcome = outcome_of(total, bj, h.surrendered, d_total, d_bj)
                hands.append(FinalHand(h.name, tuple(h.cards), total, h.soft, h.split, h.doubled, h.surrendered,
                                       h.stake, outcome))
            seats[s.number] = FinalSeat(s.number, s.bet.id, s.first_two, tuple(hands))
            for b in s.behind:
                if b.followed_split:
                    followed_split.append(b.bet.id)
                if b.doubled[0]:
                    followed_double.append((b.bet.id, 0))
                if b.doubled[1]:
                    followed_double.append((b.bet.id, 1))
        return FinalRound(tuple(dealer.cards), seats, frozenset(self._insured), frozenset(followed_split),
                          frozenset(followed_double), d_total, dealer.soft, d_bj)

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        """The round as a player may see it. The hole card is ``"??"`` until revealed (the dealer
        plays or the round ends), unless ``reveal_hidden``."""
        dealer = list(self._dealer.cards)
        hidden = self.rules.hole_card and not self._revealed and not reveal_hidden and len(dealer) >= 2
        if hidden:
            dealer = [dealer[0], "??", *dealer[2:]]
            total, soft = hand_value(self._dealer.cards[:1])
        else:
            total, soft = self._dealer.total, self._dealer.soft
        seats: dict[str, Any] = {}
        for s in self._seats:
            seats[str(s.number)] = {
                "player": s.player,
                "bet": s.bet.id,
                "hands": [h.to_view() for h in s.hands],
                "insured": s.bet.id in self._insured,
                "behind": [
                    {"bet": b.bet.id, "player": b.bet.player, "insured": b.bet.id in self._insured,
                     "followed_split": b.followed_split, "followed_double": list(b.doubled)}
                    for b in s.behind
                ],
            }
        return {
            "game": self.game,
            "phase": _PHASE_NAMES[self._phase],
            "dealer": {"cards": dealer, "score": total, "soft": soft, "peeked": self._peeked,
                       "revealed": not hidden},
            "seats": seats,
            "expected": _expected_view(self._expected),
        }

    # --- state machine -----------------------------------------------------------------------
    def _advance(self) -> None:
        """Move on to the next thing that needs outside input and cache it in ``_expected``."""
        while True:
            phase = self._phase
            if phase == _PLAY:
                if self._next_play():
                    return
                self._phase = _DEALER
                self._revealed = True
                self._live = any(
                    not (h.surrendered or h.total > 21 or h.blackjack) for s in self._seats for h in s.hands
                )
            elif phase == _DEAL:
                if self._plan_at < len(self._plan):
                    self._target, self._expected = self._plan[self._plan_at]
                    return
                if not self._seats:
                    self._phase = _DONE
                    continue
                for s in self._seats:
                    cards = s.hands[0].cards
                    s.first_two = (cards[0], cards[1])
                if self._dealer.cards[0][0] == "A":
                    self._phase = _INSURANCE
                    self._expected = InsuranceWindow(self._insurance_bets())
                    return
                self._after_insurance()
            elif phase == _INSURANCE:
                self._expected = InsuranceWindow(self._insurance_bets())
                return
            elif phase == _DEALER:
                if self._dealer_draws():
                    self._target = self._dealer
                    self._expected = self._dealer.card_for
                    return
                self._phase = _DONE
            else:
                self._revealed = True
                self._expected = _SETTLE
                return

    def _after_insurance(self) -> None:
        """The peek (hole-card table) and the early end; else the decisions begin."""
        if self.rules.hole_card:
            self._peeked = True
            if self._dealer.total == 21 or all(s.hands[0].blackjack for s in self._seats):
                self._phase = _DONE
                return
        self._phase = _PLAY

    def _next_play(self) -> bool:
        """Set ``_expected`` to the next card, window or decision of the decisions phase; False
        when every seat is done."""
        seats = self._seats
        while self._turn < len(seats):
            seat = seats[self._turn]
            follow = self._follow
            if follow is not None:
                self._expected = FollowWindow(seat.number, follow[1], follow[2], self._follow_bets())
                return True
            hand = seat.hands[self._hand_i]
            total = hand.total
            if len(hand.cards) < 2 or hand.owed or (hand.auto and total <= 11):
                self._target = hand
                self._expected = hand.card_for
                return True
            if seat.split and self._both_first:
                other = seat.hands[1]
                if len(other.cards) < 2:  # both-first: hand 2's second card before hand 1 plays
                    self._target = other
                    self._expected = other.card_for
                    return True
            if total >= 21 or hand.stood or hand.doubled or hand.surrendered or hand.split_aces or hand.auto:
                if self._hand_i + 1 < len(seat.hands):
                    self._hand_i += 1
                else:
                    self._turn += 1
                    self._hand_i = 0
                continue
            mask = self._legal_mask(seat, hand)
            if not seat.turn_started:
                seat.turn_started = True
                chosen = seat.preselected
                seat.preselected = None
                if chosen is not None and chosen in _LEGAL_SETS[mask]:
                    self._log.append(Action(seat.number, chosen))
                    self._apply(seat, hand, chosen)
                    continue
            self._expected = _decision(seat.number, self._hand_i, mask)
            return True
        return False

    def _dealer_draws(self) -> bool:
        dealer = self._dealer
        if len(dealer.cards) < 2 and not self.rules.hole_card:
            if self._live:
                return True
            waiting = bool(self._insured) or any(s.hands[0].blackjack for s in self._seats)
            return waiting and is_ten_or_ace(dealer.cards[0])
        if not self._live:
            return False
        return dealer.total < 17 or (dealer.total == 17 and dealer.soft and self.rules.dealer_hits_soft_17)

    # --- decisions ---------------------------------------------------------------------------
    def _affordable(self, player: str, cost: int) -> bool:
        balance = self._balance.get(player)
        return balance is None or balance >= cost

    def _debit(self, player: str, cost: int) -> None:
        if player in self._balance:
            self._balance[player] -= cost

    def _legal_mask(self, seat: _Seat, hand: _Hand) -> int:
        cards = hand.cards
        if len(cards) != 2:
            return 0
        rules = self.rules
        mask = 0
        short_ok = self._convert_short
        if (not hand.split or (rules.double_after_split and not hand.split_aces)) and (
                short_ok or self._affordable(seat.player, hand.stake)):
            mask = _DOUBLE
        if not seat.split:
            if BLACKJACK_VALUE[cards[0][0]] == BLACKJACK_VALUE[cards[1][0]] and (
                    short_ok or self._affordable(seat.player, seat.amount)):
                mask |= _SPLIT
            if rules.surrender and not seat.acted and not is_ten_or_ace(self._dealer.cards[0]):
                mask |= _SURRENDER
        return mask

    def _why_not(self, seat: _Seat, hand: _Hand, name: str) -> str:
        """Why a seated action is not legal now (only called when it is not)."""
        cards = hand.cards
        if name == "double":
            if len(cards) != 2:
                return "a hand can be doubled only on its first two cards"
            if hand.split and not self.rules.double_after_split:
                return "this table does not allow doubling after a split"
            if hand.split_aces:
                return "split aces cannot be doubled"
            return (f"player {seat.player}'s balance {self._balance.get(seat.player)} does not cover the extra "
                    f"stake {hand.stake}")
        if name == "split":
            if seat.split:
                return "a seat splits only once and split hands are not split again"
            if len(cards) != 2:
                return "only the first two cards can be split"
            if BLACKJACK_VALUE[cards[0][0]] != BLACKJACK_VALUE[cards[1][0]]:
                return f"{cards[0]} and {cards[1]} are not of the same value"
            return (f"player {seat.player}'s balance {self._balance.get(seat.player)} does not cover the stake "
                    f"{seat.amount} of a second hand")
        if name == "surrender":
            if not self.rules.surrender:
                return "this table offers no surrender"
            if seat.split:
                return "surrender is not possible after a split"
            if len(cards) != 2 or seat.acted:
                return "surrender is only possible on the first two cards before any other action"
            return f"surrender is not offered against the dealer's up card {self._dealer.cards[0]}"
        if name == "insurance":
            return "insurance is offered only in the insurance window, when the dealer's up card is an ace"
        if name in ("follow-double", "follow-split"):
            return "follow answers are given by bet-behind players (with 'player') in a follow window"
        return f"unknown action {name!r}; a seated player's actions are {', '.join(SEATED_ACTIONS)}"

    def _act_decision(self, expected: DecisionFor, action: Action) -> None:
        name = action.action
        if action.player is not None:
            raise IllegalAction(
                f"player {action.player} cannot {_verb(name)}: no window is open; seat {expected.seat} hand "
                f"{expected.hand} is deciding", reason="no-window")
        if action.seat != expected.seat:
            raise IllegalAction(f"not seat {action.seat}'s turn: seat {expected.seat} hand {expected.hand} is deciding",
                                reason="not-your-turn")
        if action.hand is not None and action.hand != expected.hand:
            raise IllegalAction(f"seat {action.seat} hand {action.hand} is not deciding: hand {expected.hand} is",
                                reason="not-your-turn")
        seat = self._seats[self._turn]
        hand = seat.hands[self._hand_i]
        if name not in expected.legal:
            raise IllegalAction(f"seat {action.seat} cannot {_verb(name)}: {self._why_not(seat, hand, name)}",
                                reason="not-legal")
        self._log.append(action)
        self._apply(seat, hand, name)

    def _apply(self, seat: _Seat, hand: _Hand, name: str) -> None:
        """Apply a legal seated action (already logged)."""
        seat.acted = True
        if name == "hit":
            hand.owed = 1
        elif name == "stand":
            hand.stood = True
        elif name == "timeout":
            hand.auto = True
        elif name == "surrender":
            hand.surrendered = True
        elif name == "double":
            if not self._affordable(seat.player, hand.stake):
                self._short(hand)
                return
            self._debit(seat.player, hand.stake)
            hand.stake *= 2
            hand.doubled = True
            hand.owed = 1
            if any(b.follows(hand.index) for b in seat.behind):
                self._follow = (seat, hand.index, "double")
                self._answered = set()
        elif name == "split":
            if not self._affordable(seat.player, seat.amount):
                self._short(hand)
                return
            self._debit(seat.player, seat.amount)
            first, second = hand.cards
            aces = first[0] == "A"
            one = _Hand(f"seat-{seat.number}", 0, seat.amount, split=True)
            two = _Hand(f"seat-{seat.number}/1", 1, seat.amount, split=True)
            one.add(first)
            two.add(second)
            one.split_aces = two.split_aces = aces
            seat.hands = [one, two]
            seat.split = True
            if seat.behind:
                self._follow = (seat, 0, "split")
                self._answered = set()

    @staticmethod
    def _short(hand: _Hand) -> None:
        """Deluxe: an unaffordable double or split becomes hit (score <= 11) or stand."""
        if hand.total <= 11:
            hand.owed = 1
        else:
            hand.stood = True

    # --- windows -----------------------------------------------------------------------------
    def _insurance_bets(self) -> tuple[str, ...]:
        out = []
        for bet in self._insurable:
            cost = bet.amount // 2
            if bet.id not in self._insured and cost >= 1 and self._affordable(bet.player, cost):
                out.append(bet.id)
        return tuple(out)

    def _buy_insurance(self, action: Action) -> None:
        if action.hand not in (None, 0):
            raise IllegalAction(f"insurance is on a seat's first hand, not hand {action.hand}", reason="bad-hand")
        if action.player is None:
            seat = self._seat_at.get(action.seat)
            if seat is None:
                raise IllegalAction(f"seat {action.seat} cannot buy insurance: it is not dealt in this round",
                                    reason="no-such-seat")
            bet, who = seat.bet, f"seat {action.seat}"
        else:
            behind = self._behind.get((action.player, action.seat))
            if behind is None:
                raise IllegalAction(f"player {action.player} cannot buy insurance: no bet behind seat {action.seat}",
                                    reason="no-such-bet")
            bet, who = behind.bet, f"player {action.player}"
        cost = bet.amount // 2
        if bet.id in self._insured:
            raise IllegalAction(f"{who} cannot buy insurance: bet {bet.id} is already insured",
                                reason="already-insured")
        if cost < 1:
            raise IllegalAction(f"{who} cannot buy insurance: bet {bet.id} of {bet.amount} is too small to insure",
                                reason="not-legal")
        if not self._affordable(bet.player, cost):
            raise IllegalAction(
                f"{who} cannot buy insurance: player {bet.player}'s balance {self._balance.get(bet.player)} does not "
                f"cover the insurance stake {cost} on bet {bet.id}", reason="insufficient-balance")
        self._debit(bet.player, cost)
        self._insured.add(bet.id)
        self._log.append(action)

    def _follow_bets(self) -> tuple[str, ...]:
        assert self._follow is not None
        seat, index, _ = self._follow
        out = []
        for b in seat.behind:
            if b.bet.id in self._answered or not b.follows(index):
                continue
            if self._affordable(b.bet.player, b.bet.amount):
                out.append(b.bet.id)
        return tuple(out)

    def _answer_follow(self, window: FollowWindow, action: Action) -> None:
        name = action.action
        want = f"follow-{window.what}"
        if action.player is None:
            raise IllegalAction(
                f"seat {action.seat} cannot {_verb(name)}: the follow window for seat {window.seat}'s {window.what} is "
                f"open; close it first", reason="follow-window-open")
        if name != want:
            raise IllegalAction(
                f"player {action.player} cannot {name}: the open window is for seat {window.seat}'s {window.what} "
                f"(answer {want})", reason="not-legal")
        if action.seat != window.seat:
            raise IllegalAction(
                f"player {action.player} cannot {name} on seat {action.seat}: the open window is for seat "
                f"{window.seat}", reason="not-legal")
        if action.hand is not None and action.hand != window.hand:
            raise IllegalAction(
                f"player {action.player} cannot {name} hand {action.hand}: seat {window.seat} hand {window.hand} "
                f"{'doubled' if window.what == 'double' else 'split'}", reason="not-legal")
        behind = self._behind.get((action.player, action.seat))
        if behind is None:
            raise IllegalAction(f"player {action.player} cannot {name}: no bet behind seat {action.seat}",
                                reason="no-such-bet")
        bet = behind.bet
        if not behind.follows(window.hand):
            raise IllegalAction(
                f"player {action.player} cannot {name}: bet {bet.id} did not follow the split, so it does not "
                f"follow seat {window.seat}'s second hand", reason="not-legal")
        if bet.id in self._answered:
            raise IllegalAction(f"player {action.player} cannot {name}: bet {bet.id} has already answered",
                                reason="already-answered")
        self._answered.add(bet.id)
        self._log.append(action)
        if not self._affordable(bet.player, bet.amount):
            return  # an unaffordable follow is a No (replay.md); the answer stays in the log
        self._debit(bet.player, bet.amount)
        if window.what == "split":
            behind.followed_split = True
        else:
            behind.doubled[window.hand] = True

    # --- descriptions ------------------------------------------------------------------------
    def _awaiting(self) -> str:
        expected = self._expected
        if isinstance(expected, CardFor):
            return f"the {expected.hand} hand waits for a card"
        if isinstance(expected, DecisionFor):
            return (f"seat {expected.seat} hand {expected.hand} waits for a decision "
                    f"({', '.join(sorted(expected.legal))})")
        if isinstance(expected, InsuranceWindow):
            return "the insurance window is open"
        if isinstance(expected, FollowWindow):
            return f"the follow window for seat {expected.seat}'s {expected.what} is open"
        return "the round is complete"


def _verb(action: str) -> str:
    return "buy insurance" if action == "insurance" else action


def _expected_view(expected: Expectation) -> dict[str, Any]:
    if isinstance(expected, CardFor):
        return {"kind": "card", "hand": expected.hand, "face_up": expected.face_up}
    if isinstance(expected, DecisionFor):
        return {"kind": "decision", "seat": expected.seat, "hand": expected.hand, "legal": sorted(expected.legal)}
    if isinstance(expected, InsuranceWindow):
        return {"kind": "insurance", "bets": list(expected.bets)}
    if isinstance(expected, FollowWindow):
        return {"kind": "follow", "seat": expected.seat, "hand": expected.hand, "what": expected.what,
                "bets": list(expected.bets)}
    return {"kind": "settle"}
