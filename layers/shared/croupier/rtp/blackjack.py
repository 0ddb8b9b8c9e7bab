"""Exact return to player of the blackjack bets, and the basic strategy it implies (``blackjack.md``).

Main bet (``seat``; ``behind`` follows the same hand and has the same figure): one hand played
heads-up against the dealer from a fresh 8-deck shoe, by combinatorial analysis (no sampling).

1. Every initial deal (dealer up card, player's two cards) is weighed by its exact probability.
2. For each deal the player's options — stand, hit, double, split, surrender, as the table's rules
   allow — are valued by recursion over the cards drawn, memoised on the hand's *composition*
   (the multiset of its cards by value). The cards a hand can draw next are drawn from the shoe
   minus the up card and every card of the hand, exactly. The dealer's final-result
   probabilities (17..21, bust, blackjack) come from a forward pass over the dealer's drawing
   tree with exact removal of the dealer's own cards (:func:`dealer_probabilities`), for the
   shoe minus the up card and every card of the hand: exactly for removals of up to
   :data:`EXACT_REMOVAL` cards, and by a second-order extrapolation in the removed cards beyond
   (hands of five cards or more), which moves the RTP by about 2e-10 against the fully exact
   computation.
3. **Dealer blackjack.** Hole card with peek (Deluxe), or no hole card with "original bet only":
   with dealer BJ the round costs exactly the original bet whatever the player did, so the
   player's options are valued on the rounds *without* dealer BJ (the no-BJ part of each value:
   a dealer outcome other than BJ; a bust weighted by the probability that the hole card, drawn
   from what is left, does not make BJ), and the BJ rounds add ``-P(dealer BJ)`` once (a push
   for a player BJ). This is exactly the conditioning on the peek — comparing options on the
   unnormalised no-BJ values picks the same option as comparing the conditional ones. So for the
   main bet the no-hole-card "original bet only" table is the peek game. No hole card with "dealer
   BJ takes all" (the classic default): a hand's stand value counts the dealer's BJ as the loss of
   the hand's whole stake (a doubled stake doubled; each split hand its own stake).
4. **Strategy.** Every composition takes its best option: ``seat_optimal`` is the RTP of the
   fully *composition-dependent* optimal strategy. The shipped basic strategy
   (:class:`StrategyTable`, played by ``croupier.strategy.basic_action``) is *composition
   dependent on the first decision* (the two cards and the up card) and on the two cards of a
   split hand, and *total-dependent* for hands of three or more cards: per total (soft or hard)
   and up card, the action that is best summed over all compositions of that total, each weighted
   by how often the optimal strategy reaches it. Why: with 8 decks, composition matters only
   where a few cards are known. Between two-card hands of one total it changes nothing here (the
   tests check it), but two cards against three differ (16 vs 10: hit with two cards, stand with
   three or more), and so do split hands (12 vs 4 hits as a split 10,2: the other ten is gone).
   A player or a simulator can follow the table from the cards alone. ``seat`` is the exact RTP of
   *that* strategy, so a simulator playing it converges to ``seat``; it is about 0.001 points
   below ``seat_optimal``.
5. **Splits** (once, no re-split; split aces one card each; double after split per the rules):
   each split hand is valued from the shoe minus the up card, both split cards and its own cards;
   the other split hand's later cards are ignored, so the split value is twice one hand's value.
   This is the standard approximation of combinatorial analysers (published per-hand tables use
   it too). Its effect is not measured here; it is of second order in card removal (the other
   hand's unseen cards shift the probabilities only through the dependence of its drawing on
   what it drew), and expected to be far below 0.001 points.
   The order of the split hands' second cards (``split_deal``: each in turn, or both first) does
   not enter: for a strategy that plays split hand 1 without looking at hand 2's second card
   (this one does: each hand from its own cards and the up card), every order of dealing the
   undealt cards is equally likely, so moving hand 2's second card ahead of hand 1's draws gives
   every hand and the dealer the same cards with the same probability (the tests enumerate a
   small shoe exactly). A player who does look at that card could do slightly better.

Approximations, then: the split one, the extrapolation of the dealer's probabilities for
removals beyond :data:`EXACT_REMOVAL` cards (``exact=True`` turns it off), and floating-point
arithmetic (statistics, not money). Other seats' cards are unseen random cards and do not change
the expectation of one hand.

Checked against published combinatorial tables (see the tests): the dealer's probabilities for
1- and 2-deck shoes, and per-hand stand/hit/double values for 8 decks (no hole card, H17) and
for 1 and 5 decks (peek, S17), to the 6 decimals published.

Pair side bet and insurance are exact fractions: the pair bet from the ranks and suits of the
shoe; insurance (2:1) per insurance bet, always taken, wins when the hole card is 10-value:
``3 * 128/415`` averaged over all deals (the player's own cards, averaged over all deals, do not
change it). Basic strategy never takes insurance (92.53% RTP).
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from ..cards import BLACKJACK_VALUE, DECKS, RANKS, RED_SUITS, SUITS
from ..rules import PERFECT_PAIRS as PERFECT_PAIRS
from ..rules import BlackjackRules, load_rules

Counts = tuple[int, ...]
"""Cards by blackjack value: index 0 is the ace, 1..8 are 2..9, 9 is every 10-value card."""

ACE, TEN = 0, 9
_NV = 10


def shoe_of(decks: int) -> Counts:
    """A full shoe of ``decks`` decks by value (ace first, ten-value last)."""
    return tuple(decks * len(SUITS) * sum(1 for r in RANKS if BLACKJACK_VALUE[r] == i + 1) for i in range(_NV))


SHOE: Counts = shoe_of(DECKS)
"""The full 8-deck shoe by value: 32 of each of A..9, 128 ten-value cards."""
SHOE_CARDS = sum(SHOE)

OUTCOMES = ("17", "18", "19", "20", "21", "bust", "blackjack")
"""The dealer's final results, in the order of :func:`dealer_probabilities`' values."""
_BUST, _BJ = 5, 6

PUBLISHED: dict[str, float] = {"deluxe": 0.9953, "classic": 0.9939}
"""The provider's published maximum RTP of the main bet (``blackjack.md``)."""

# --- the dealer ------------------------------------------------------------------------------

_Transition = tuple[int, int, int]
"""(card value index, how many of that value the dealer already drew, child state or -1-outcome)."""
_Graph = tuple[tuple[int, tuple[_Transition, ...]], ...]
"""States in drawing order: (cards the dealer drew after the up card, transitions)."""


@cache
def _dealer_graph(up: int, hits_soft_17: bool) -> _Graph:
    """The dealer's drawing tree after up card ``up``, its states merged by the cards drawn."""
    root: Counts = (0,) * _NV
    index: dict[Counts, int] = {root: 0}
    info: list[tuple[int, bool, int]] = [(up + 1, up == ACE, 1)]  # hard total, holds an ace, cards
    order: list[Counts] = [root]
    graph: list[tuple[int, tuple[_Transition, ...]]] = []
    position = 0
    while position < len(order):  # breadth first: a state comes after every state it follows from
        drawn = order[position]
        hard, ace, n = info[position]
        moves: list[_Transition] = []
        for i in range(_NV):
            hard2, ace2, n2 = hard + i + 1, ace or i == ACE, n + 1
            soft = ace2 and hard2 + 10 <= 21
            total = hard2 + 10 if soft else hard2
            if total > 21:
                moves.append((i, drawn[i], -1 - _BUST))
            elif total >= 17 and not (hits_soft_17 and soft and total == 17):
                outcome = _BJ if n2 == 2 and total == 21 else total - 17
                moves.append((i, drawn[i], -1 - outcome))
            else:
                drawn2 = (*drawn[:i], drawn[i] + 1, *drawn[i + 1:])
                child = index.get(drawn2)
                if child is None:
                    child = index[drawn2] = len(order)
                    order.append(drawn2)
                    info.append((hard2, ace2, n2))
                moves.append((i, drawn[i], child))
        graph.append((sum(drawn), tuple(moves)))
        position += 1
    return tuple(graph)


_DEALER_CACHE: dict[tuple[int, bool, Counts], tuple[float, ...]] = {}


def _dealer(up: int, hits_soft_17: bool, avail: Counts) -> tuple[float, ...]:
    """Probabilities of :data:`OUTCOMES` for up card ``up`` drawing from ``avail`` (cached)."""
    key = (up, hits_soft_17, avail)
    found = _DEALER_CACHE.get(key)
    if found is not None:
        return found
    graph = _dealer_graph(up, hits_soft_17)
    total = sum(avail)
    mass = [0.0] * len(graph)
    mass[0] = 1.0
    out = [0.0] * len(OUTCOMES)
    for state, (drawn, moves) in enumerate(graph):
        m = mass[state]
        if m == 0.0:
            continue
        share = m / (total - drawn)
        for i, already, child in moves:
            left = avail[i] - already
            if left > 0:
                if child >= 0:
                    mass[child] += share * left
                else:
                    out[-1 - child] += share * left
    result = tuple(out)
    _DEALER_CACHE[key] = result
    return result


def dealer_probabilities(up: int, shoe: Counts | None = None, *, hits_soft_17: bool = False) -> dict[str, float]:
    """The dealer's final result for up card value ``up`` (1 = ace .. 10), drawing from ``shoe``
    (counts by value, the up card already removed; default: a full 8-deck shoe minus the up card).
    Keys are :data:`OUTCOMES`; "blackjack" is a two-card 21 (no peek: unconditioned)."""
    if not 1 <= up <= _NV:
        raise ValueError(f"up card value {up} is not 1..10")
    if shoe is None:
        shoe = _minus(SHOE, up - 1)
    if len(shoe) != _NV or min(shoe) < 0:
        raise ValueError("a shoe is 10 non-negative counts by value (ace first, ten-value last)")
    return dict(zip(OUTCOMES, _dealer(up - 1, hits_soft_17, tuple(shoe)), strict=True))


def _minus(counts: Counts, i: int, n: int = 1) -> Counts:
    return (*counts[:i], counts[i] - n, *counts[i + 1:])


def _plus(counts: Counts, i: int) -> Counts:
    return (*counts[:i], counts[i] + 1, *counts[i + 1:])


def _hand(*cards: int) -> Counts:
    hand = (0,) * _NV
    for i in cards:
        hand = _plus(hand, i)
    return hand


# --- the player ------------------------------------------------------------------------------

EXACT_REMOVAL = 4
"""The dealer's probabilities are computed exactly for every removal of up to this many cards
(the hand's cards, and the other split card). For a deeper removal — hands of five cards or more
(four after a split), rare and low-weighted — they are extrapolated to second order in the
removed cards from exact values (Newton's forward differences around the removal's two highest
cards, every difference exact): ``f(P + m) = f(P) + sum_j m_j D_j + sum_j C(m_j, 2) D_jj +
sum_{j<k} m_j m_k D_jk``. Measured against the fully exact computation (``exact=True``): a hand's
value moves by less than 1e-7, the main bet's RTP by about 2e-10; the analysis is about four times
faster."""


@dataclass(frozen=True, slots=True)
class _Values:
    """What the value of a hand (stand, hit, double) depends on."""

    hits_soft_17: bool
    all_lost: bool  # no hole card and dealer BJ takes doubles and splits
    win_pays: float


@dataclass(frozen=True, slots=True)
class _Params:
    """What of :class:`BlackjackRules` the main bet's expectation depends on."""

    values: _Values
    das: bool
    surrender: bool
    bj_pays: float


def _params(rules: BlackjackRules) -> _Params:
    return _Params(
        values=_Values(
            hits_soft_17=rules.dealer_hits_soft_17,
            all_lost=not rules.hole_card and rules.dealer_bj_takes == "all",
            win_pays=float(rules.win_pays),
        ),
        das=rules.double_after_split,
        surrender=rules.surrender,
        bj_pays=float(rules.blackjack_pays),
    )


def rules_key(rules: BlackjackRules) -> Hashable:
    """The part of ``rules`` the main bet and its strategy depend on: equal keys, equal figures
    (the "original bet only" no-hole-card table has the key of the peek table; ``split_deal``
    is not part of it, see the module's point 5)."""
    return _params(rules)


_NEG = float("-inf")
_Key = tuple[Counts, int]
"""A hand by the shoe left after its cards, and the other split card (-1: not a split hand)."""


def _hard(hand: Sequence[int]) -> int:
    """Hard total of a hand given by counts per value."""
    return sum((i + 1) * n for i, n in enumerate(hand))


def _best_total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


class _UpCard:
    """The values of the player's hands against one up card, memoised on the hand's composition.

    A hand is ``(avail, hard, ace, extra)``: the shoe left after the up card, the hand's cards and
    (split hands) the other split card ``extra``; the hand's hard total; whether it holds an ace.
    Values are per unit of the hand's stake: where dealer BJ is settled apart (peek, or "original
    bet only"), the value of the rounds without dealer BJ only."""

    def __init__(self, values: _Values, up: int, shoe: Counts = SHOE, exact_removal: int | None = EXACT_REMOVAL):
        self.v = values
        self.up = up
        self.base = _minus(shoe, up)
        self.n_base = sum(self.base)
        self.exact_removal = exact_removal
        self.bj_card = TEN if up == ACE else ACE if up == TEN else -1
        self._stand: dict[tuple[Counts, int], float] = {}
        self._hs: dict[_Key, tuple[float, float]] = {}
        self._extrapolated: dict[Counts, tuple[float, ...]] = {}
        self._differences: dict[tuple[Counts, tuple[int, ...]], tuple[float, ...]] = {}

    # the dealer

    def dealer(self, avail: Counts) -> tuple[float, ...]:
        """The dealer's final-result probabilities drawing from ``avail`` (see EXACT_REMOVAL)."""
        h17 = self.v.hits_soft_17
        if self.exact_removal is None or self.n_base - sum(avail) <= self.exact_removal:
            return _dealer(self.up, h17, avail)
        found = self._extrapolated.get(avail)
        if found is None:
            removed = [b - a for b, a in zip(self.base, avail, strict=True)]
            point = list(self.base)
            keep = self.exact_removal - 2
            for i in range(_NV - 1, -1, -1):  # the expansion point: the removal's highest cards
                take = min(removed[i], keep)
                point[i] -= take
                removed[i] -= take
                keep -= take
            at = tuple(point)
            out = list(_dealer(self.up, h17, at))
            extra = [j for j in range(_NV) if removed[j]]
            for n, j in enumerate(extra):
                m = removed[j]
                terms = [(m, self._difference(at, (j,)))]
                if m > 1:
                    terms.append((m * (m - 1) // 2, self._difference(at, (j, j))))
                terms += [(m * removed[k], self._difference(at, (j, k))) for k in extra[n + 1 :]]
                for weight, diff in terms:
                    out = [x + weight * d for x, d in zip(out, diff, strict=True)]
            found = self._extrapolated[avail] = tuple(out)
        return found

    def _difference(self, point: Counts, cards: tuple[int, ...]) -> tuple[float, ...]:
        """Forward difference of the dealer's probabilities at ``point`` for removing ``cards``
        (one card: first difference; two: second difference)."""
        key = (point, cards)
        found = self._differences.get(key)
        if found is None:
            h17 = self.v.hits_soft_17
            f = _dealer(self.up, h17, point)
            if len(cards) == 1:
                g = _dealer(self.up, h17, _minus(point, cards[0]))
                found = tuple(b - a for a, b in zip(f, g, strict=True))
            else:
                j, k = cards
                fj, fk = _dealer(self.up, h17, _minus(point, j)), _dealer(self.up, h17, _minus(point, k))
                fjk = _dealer(self.up, h17, _minus(_minus(point, j), k))
                found = tuple(d - b - c + a for a, b, c, d in zip(f, fj, fk, fjk, strict=True))
            self._differences[key] = found
        return found

    def p_bj(self, avail: Counts) -> float:
        """Probability that the hole card makes dealer BJ, drawn from ``avail``."""
        return 0.0 if self.bj_card < 0 else avail[self.bj_card] / sum(avail)

    def _bust_values(self, avail: Counts, n: int) -> list[float]:
        """Value of busting with each next card drawn from ``avail`` (``n`` cards)."""
        if self.v.all_lost or self.bj_card < 0:
            return [-1.0] * _NV
        bj = self.bj_card
        return [(avail[bj] - (i == bj)) / (n - 1) - 1.0 for i in range(_NV)]

    def stand(self, avail: Counts, total: int) -> float:
        key = (avail, total)
        value = self._stand.get(key)
        if value is None:
            d = self.dealer(avail)
            if total < 17:
                win, lose = d[_BUST], d[0] + d[1] + d[2] + d[3] + d[4]
            else:
                k = total - 17
                win, lose = d[_BUST] + sum(d[:k]), sum(d[k + 1 : _BUST])
            value = self.v.win_pays * win - lose - (d[_BJ] if self.v.all_lost else 0.0)
            self._stand[key] = value
        return value

    # hit and stand, optimally

    def hs(self, avail: Counts, hard: int, ace: bool, extra: int) -> tuple[float, float]:
        """(stand, hit) of a hand that may only hit or stand; hit is -inf at 21 (automatic stand)."""
        key = (avail, extra)
        found = self._hs.get(key)
        if found is not None:
            return found
        total = _best_total(hard, ace)
        stand = self.stand(avail, total)
        hit = _NEG
        if total < 21:
            n = sum(avail)
            busts = self._bust_values(avail, n)
            acc = 0.0
            for i in range(_NV):
                left = avail[i]
                if not left:
                    continue
                hard2 = hard + i + 1
                if hard2 > 21:
                    acc += left * busts[i]
                else:
                    s, h = self.hs((*avail[:i], left - 1, *avail[i + 1 :]), hard2, ace or i == ACE, extra)
                    acc += left * (s if s > h else h)
            hit = acc / n
        found = self._hs[key] = (stand, hit)
        return found

    def double(self, avail: Counts, hard: int, ace: bool) -> float:
        """Twice the value of exactly one more card, then stand."""
        n = sum(avail)
        busts = self._bust_values(avail, n)
        acc = 0.0
        for i in range(_NV):
            left = avail[i]
            if not left:
                continue
            hard2 = hard + i + 1
            if hard2 > 21:
                acc += left * busts[i]
            else:
                acc += left * self.stand((*avail[:i], left - 1, *avail[i + 1 :]), _best_total(hard2, ace or i == ACE))
        return 2.0 * acc / n

    def split_hand(self, pair: int, second: int, das: bool) -> dict[str, float]:
        """Options of the split hand (pair card, second card); the other pair card is gone."""
        avail = _minus(_minus(self.base, pair, 2), second)
        hard, ace = pair + second + 2, ACE in (pair, second)
        stand, hit = self.hs(avail, hard, ace, pair)
        if pair == ACE or hit == _NEG:  # split aces: one card and stand; 21: automatic stand
            return {"stand": stand}
        options = {"stand": stand, "hit": hit}
        if das:
            options["double"] = self.double(avail, hard, ace)
        return options

    def split(self, pair: int, das: bool, choose: Mapping[int, str] | None = None,
              policy: _Policy | None = None) -> float:
        """Both split hands: twice one hand's value, played optimally or as ``choose`` (second
        card -> first action) and then ``policy`` say."""
        avail = _minus(self.base, pair, 2)
        acc = 0.0
        for second in range(_NV):
            left = avail[second]
            if not left:
                continue
            options = self.split_hand(pair, second, das)
            if choose is None or policy is None:
                value = max(options.values())
            elif choose[second] == "hit":
                value = policy.hit(_minus(avail, second), pair + second + 2, ACE in (pair, second), pair)
            else:
                value = options[choose[second]]
            acc += left * value
        return 2.0 * acc / sum(avail)

    def initial(self, a: int, b: int, p: _Params) -> dict[str, float]:
        """Options of the first two cards a, b; where dealer BJ costs the original bet whatever
        the player does, the value of the rounds without it."""
        avail = _minus(_minus(self.base, a), b)
        hard, ace = a + b + 2, ACE in (a, b)
        stand, hit = self.hs(avail, hard, ace, -1)
        options = {"stand": stand, "hit": hit, "double": self.double(avail, hard, ace)}
        if a == b:
            options["split"] = self.split(a, p.das)
        if p.surrender and self.up not in (ACE, TEN):
            options["surrender"] = -0.5 if self.v.all_lost else -0.5 * (1.0 - self.p_bj(avail))
        return options


_CONTEXTS: dict[tuple[_Values, int, Counts, bool], _UpCard] = {}


def _context(values: _Values, up: int, exact: bool, shoe: Counts = SHOE) -> _UpCard:
    """The memoised hand values against one up card, shared by every rule set with the same
    :class:`_Values` (hand values do not depend on DAS, surrender or the BJ payout)."""
    key = (values, up, shoe, exact)
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _CONTEXTS[key] = _UpCard(values, up, shoe, None if exact else EXACT_REMOVAL)
    return ctx


def hand_options(
    rules: BlackjackRules, up: int, first: int, second: int, *, decks: int = DECKS, exact: bool = False
) -> dict[str, float]:
    """Expected net of each option of a hand's first two cards (values 1 = ace .. 10) against up
    card ``up``, per initial bet, from a fresh shoe of ``decks`` decks, the hand played optimally
    (composition-dependent) after the first decision. Where dealer BJ costs the original bet
    whatever the player does (peek, or "original bet only"), the values are given no dealer BJ,
    as combinatorial tables publish them; with "dealer BJ takes all" they count it. A blackjack
    has the one option "stand"."""
    p = _params(rules)
    ctx = _context(p.values, up - 1, exact, shoe_of(decks))
    a, b = sorted((first - 1, second - 1))
    pbj = ctx.p_bj(_minus(_minus(ctx.base, a), b))
    conditional = not p.values.all_lost
    if (a, b) == (ACE, TEN):
        return {"stand": p.bj_pays * (1.0 if conditional else 1.0 - pbj)}
    options = ctx.initial(a, b, p)
    return {name: value / (1.0 - pbj) for name, value in options.items()} if conditional else options


class _Policy:
    """The shipped strategy after the first decision: hit or stand by (total, soft)."""

    def __init__(self, ctx: _UpCard, table: Mapping[tuple[int, bool], str]) -> None:
        self.ctx = ctx
        self.table = table
        self._memo: dict[_Key, float] = {}

    def hit(self, avail: Counts, hard: int, ace: bool, extra: int) -> float:
        """Value of hitting and then following the table."""
        n = sum(avail)
        busts = self.ctx._bust_values(avail, n)
        acc = 0.0
        for i in range(_NV):
            left = avail[i]
            if not left:
                continue
            hard2 = hard + i + 1
            if hard2 > 21:
                acc += left * busts[i]
            else:
                acc += left * self.value((*avail[:i], left - 1, *avail[i + 1 :]), hard2, ace or i == ACE, extra)
        return acc / n

    def value(self, avail: Counts, hard: int, ace: bool, extra: int) -> float:
        key = (avail, extra)
        value = self._memo.get(key)
        if value is None:
            total = _best_total(hard, ace)
            soft = total != hard
            if total >= 21 or self.table[(total, soft)] == "stand":
                value = self.ctx.stand(avail, total)
            else:
                value = self.hit(avail, hard, ace, extra)
            self._memo[key] = value
        return value


# --- the analysis ----------------------------------------------------------------------------


@dataclass(frozen=True)
class StrategyTable:
    """The basic strategy of one rule set, derived by :func:`analyse`. Card values 1 (ace) .. 10.

    - ``two_card[(low, high, up)]``: the first two cards of a hand (not a split hand), every
      option the rules give, best first, with its expected net per initial bet of the round
      (dealer-BJ rounds included);
    - ``split_hand[(pair, second, up)]``: the two cards of a split hand, options best first;
    - ``multi_card[(total, soft, up)]``: three or more cards, ``("hit", "stand")`` or
      ``("stand", "hit")``.
    """

    two_card: Mapping[tuple[int, int, int], tuple[tuple[str, float], ...]]
    split_hand: Mapping[tuple[int, int, int], tuple[str, ...]]
    multi_card: Mapping[tuple[int, bool, int], tuple[str, ...]]


@dataclass(frozen=True)
class BlackjackRtp:
    """RTP of the blackjack bets per unit staked (0.9953 is 99.53%)."""

    variant: str
    seat: float
    """Main bet with the shipped basic strategy (:class:`StrategyTable`), per initial bet."""
    seat_optimal: float
    """Main bet with the fully composition-dependent optimal strategy."""
    pair: Fraction
    insurance: Fraction
    strategy: StrategyTable
    frequencies: Mapping[str, float]
    """Per round: player BJ, dealer BJ, and how often the basic strategy's first decision is each
    option (``double``, ``split``, ``surrender``, ``hit``, ``stand``)."""
    seconds: float
    """CPU seconds the analysis took (less when another rule set already valued the same hands)."""

    @property
    def bets(self) -> dict[str, float]:
        """RTP per transcript bet type; ``behind`` follows the seat's hand, so equals ``seat``."""
        return {"seat": self.seat, "behind": self.seat, "pair": float(self.pair), "insurance": float(self.insurance)}


def pair_rtp(rules: BlackjackRules) -> Fraction:
    """Exact RTP of the Pair side bet on a seat's first two cards, from a fresh 8-deck shoe."""
    per_card = DECKS  # copies of one rank-and-suit
    cards = SHOE_CARDS
    same_colour_suits = len(RED_SUITS) - 1  # other suits of the first card's colour
    other_colour_suits = len(SUITS) - len(RED_SUITS)
    perfect = Fraction(per_card - 1, cards - 1)
    coloured = Fraction(same_colour_suits * per_card, cards - 1)
    mixed = Fraction(other_colour_suits * per_card, cards - 1)
    table = rules.pair_paytable
    if table.same_rank is not None:
        return (1 + table.same_rank) * (perfect + coloured + mixed)
    assert table.mixed is not None and table.coloured is not None and table.perfect is not None
    return (1 + table.perfect) * perfect + (1 + table.coloured) * coloured + (1 + table.mixed) * mixed


def insurance_rtp(rules: BlackjackRules) -> Fraction:
    """Exact RTP of an insurance bet (always taken): it wins when the hole card is 10-value."""
    return (1 + rules.insurance_pays) * Fraction(SHOE[TEN], SHOE_CARDS - 1)


def _deal_weights(up: int) -> dict[tuple[int, int], float]:
    """P(up card ``up`` and player's two cards {a, b}, a <= b), for every a, b."""
    base = _minus(SHOE, up)
    n = sum(base)
    p_up = SHOE[up] / SHOE_CARDS
    out: dict[tuple[int, int], float] = {}
    for a in range(_NV):
        for b in range(a, _NV):
            ways = base[a] * (base[a] - 1) if a == b else 2 * base[a] * base[b]
            out[(a, b)] = p_up * ways / (n * (n - 1))
    return out


_ANALYSES: dict[tuple[_Params, bool], tuple[float, float, StrategyTable, dict[str, float], float]] = {}


def analyse(rules: BlackjackRules, *, exact: bool = False) -> BlackjackRtp:
    """The RTP of every blackjack bet type under ``rules`` (cached per rule set). ``exact``: the
    dealer's probabilities exact for every removal too (see :data:`EXACT_REMOVAL`; slower)."""
    key = (_params(rules), exact)
    found = _ANALYSES.get(key)
    if found is None:
        started = time.process_time()
        seat, optimal, strategy, freq = _main_bet(key[0], exact)
        found = _ANALYSES[key] = (seat, optimal, strategy, freq, time.process_time() - started)
    seat, optimal, strategy, freq, seconds = found
    return BlackjackRtp(
        variant=rules.variant,
        seat=seat,
        seat_optimal=optimal,
        pair=pair_rtp(rules),
        insurance=insurance_rtp(rules),
        strategy=strategy,
        frequencies=freq,
        seconds=seconds,
    )


def _main_bet(p: _Params, exact: bool) -> tuple[float, float, StrategyTable, dict[str, float]]:
    """(RTP with the shipped strategy, RTP with the optimal strategy, the strategy, frequencies)."""
    conditional = not p.values.all_lost
    optimal = seat = 1.0
    two_card: dict[tuple[int, int, int], tuple[tuple[str, float], ...]] = {}
    split_table: dict[tuple[int, int, int], tuple[str, ...]] = {}
    multi: dict[tuple[int, bool, int], tuple[str, ...]] = {}
    freq = dict.fromkeys(("player-blackjack", "dealer-blackjack", "stand", "hit", "double", "split", "surrender"), 0.0)
    for up in range(_NV):
        ctx = _context(p.values, up, exact)
        chosen: dict[tuple[int, int], tuple[float, str, float]] = {}  # weight, action, value
        split_first: dict[int, dict[int, str]] = {}  # pair -> second card -> first action
        for (a, b), weight in _deal_weights(up).items():
            avail = _minus(_minus(ctx.base, a), b)
            pbj = ctx.p_bj(avail)
            freq["dealer-blackjack"] += weight * pbj
            if (a, b) == (ACE, TEN):  # player BJ: a push against dealer BJ
                value = (1.0 - pbj) * p.bj_pays
                optimal += weight * value
                seat += weight * value
                freq["player-blackjack"] += weight
                continue
            # where dealer BJ costs the original bet whatever the player does, it is settled here
            shift = -pbj if conditional else 0.0
            options = ctx.initial(a, b, p)
            ranked = sorted(options.items(), key=lambda kv: -kv[1])
            two_card[(a + 1, b + 1, up + 1)] = tuple((name, value + shift) for name, value in ranked)
            best_name, best = ranked[0]
            optimal += weight * (best + shift)
            freq[best_name] += weight
            chosen[(a, b)] = (weight, best_name, best)
            if a == b and a != ACE:
                split_first[a] = {}
                for second in range(_NV):
                    split_options = ctx.split_hand(a, second, p.das)
                    order = tuple(sorted(split_options, key=lambda name: -split_options[name]))
                    split_table[(a + 1, second + 1, up + 1)] = order
                    split_first[a][second] = order[0]
        table = _total_dependent(ctx, chosen, split_first)
        for (total, soft), action in table.items():
            multi[(total, soft, up + 1)] = (action, "stand" if action == "hit" else "hit")
        # the shipped strategy's own RTP: the first decision as two_card, split hands as
        # split_table, three or more cards as the total-dependent table
        policy = _Policy(ctx, table)
        for (a, b), (weight, action, best) in chosen.items():
            avail = _minus(_minus(ctx.base, a), b)
            shift = -ctx.p_bj(avail) if conditional else 0.0
            if action == "hit":
                value = policy.hit(avail, a + b + 2, ACE in (a, b), -1)
            elif action == "split" and a != ACE:
                value = ctx.split(a, p.das, split_first[a], policy)
            else:
                value = best
            seat += weight * (value + shift)
    strategy = StrategyTable(two_card=two_card, split_hand=split_table, multi_card=multi)
    return seat, optimal, strategy, freq


def _total_dependent(
    ctx: _UpCard,
    chosen: Mapping[tuple[int, int], tuple[float, str, float]],
    split_first: Mapping[int, Mapping[int, str]],
) -> dict[tuple[int, bool], str]:
    """Hit or stand per (total, soft) for hands of three or more cards against ``ctx.up``: the
    action with the larger value summed over every composition of that total, each weighted by
    the probability that the optimal strategy reaches it (split hands included)."""
    Level = dict[_Key, tuple[int, bool, float]]  # hand -> (hard total, holds an ace, reach)

    def spread(avail: Counts, hard: int, ace: bool, extra: int, reach: float, into: Level) -> None:
        n = sum(avail)
        for i in range(_NV):
            left = avail[i]
            if left and hard + i + 1 <= 21:
                key = ((*avail[:i], left - 1, *avail[i + 1 :]), extra)
                before = into.get(key)
                into[key] = (hard + i + 1, ace or i == ACE, reach * left / n + (before[2] if before else 0.0))

    level: Level = {}
    for (a, b), (weight, action, _value) in chosen.items():
        if action == "hit":
            spread(_minus(_minus(ctx.base, a), b), a + b + 2, ACE in (a, b), -1, weight, level)
        elif action == "split" and a != ACE:
            avail = _minus(ctx.base, a, 2)
            n = sum(avail)
            for second, first in split_first[a].items():
                if avail[second] and first == "hit":
                    reach = 2.0 * weight * avail[second] / n
                    spread(_minus(avail, second), a + second + 2, ACE in (a, second), a, reach, level)
    score: dict[tuple[int, bool], float] = {}
    while level:
        deeper: Level = {}
        for (avail, extra), (hard, ace, reach) in level.items():
            total = _best_total(hard, ace)
            if total >= 21:
                continue
            stand, hit = ctx.hs(avail, hard, ace, extra)
            key = (total, total != hard)
            score[key] = score.get(key, 0.0) + reach * (hit - stand)
            if hit > stand:
                spread(avail, hard, ace, extra, reach, deeper)
        level = deeper
    # totals the optimal strategy never reaches with three or more cards (soft 13 = A,A,A: aces
    # are split): every such composition the analysis valued counts alike
    unreached: dict[tuple[int, bool], float] = {}
    for (avail, extra), (stand, hit) in ctx._hs.items():
        hand = [b - a for b, a in zip(ctx.base, avail, strict=True)]
        if extra >= 0:
            hand[extra] -= 1
        if hit == _NEG or sum(hand) < 3:
            continue
        hard = _hard(hand)
        total = _best_total(hard, hand[ACE] > 0)
        key = (total, total != hard)
        if key not in score:
            unreached[key] = unreached.get(key, 0.0) + hit - stand
    score.update(unreached)
    return {key: ("hit" if value > 0 else "stand") for key, value in score.items()}


# --- the variants and the report -------------------------------------------------------------


@dataclass(frozen=True)
class VariantRow:
    """One rule set of a table, its RTP beside the table's published figure (for its defaults)."""

    game: str
    label: str
    overrides: Mapping[str, object]
    rtp: BlackjackRtp
    published: float

    @property
    def difference(self) -> float:
        """Our main-bet figure minus the published one, in percentage points."""
        return 100.0 * (self.rtp.seat - self.published)


VARIANTS: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("deluxe-blackjack", "defaults: peek, S17, DAS, surrender vs 2-9", {}),
    ("deluxe-blackjack", "no double after split", {"double_after_split": False}),
    ("blackjack", "defaults: no hole card, dealer BJ takes all, DAS", {}),
    ("blackjack", "dealer BJ takes the original bet only", {"dealer_bj_takes": "original"}),
    ("blackjack", "no double after split", {"double_after_split": False}),
    ("blackjack", "original bet only, no double after split",
     {"dealer_bj_takes": "original", "double_after_split": False}),
    ("blackjack", "split hands' cards each in turn (Deluxe order)", {"split_deal": "each-in-turn"}),
)
"""The open rule variants of each table (``dealer_bj_takes``, ``double_after_split``,
``split_deal``); the first row of each game is its defaults, the rule set the published figure is
for."""


def analyse_variants() -> tuple[VariantRow, ...]:
    """Every row of :data:`VARIANTS`, analysed (the hand values are shared between rows)."""
    rows = []
    for game, label, overrides in VARIANTS:
        rules = load_rules(game, dict(overrides))
        assert isinstance(rules, BlackjackRules)
        rows.append(VariantRow(game, label, overrides, analyse(rules), PUBLISHED[rules.variant]))
    return tuple(rows)


def format_report(rows: tuple[VariantRow, ...] | None = None, main: BlackjackRtp | None = None) -> str:
    """The variants beside the published figures, then the side bets (both pair paytables, and
    ``main``'s own pair paytable when given), as text."""
    rows = analyse_variants() if rows is None else rows
    lines = [
        "Blackjack, 8 decks, main bet (seat; bet behind alike): RTP per initial bet, exact combinatorial analysis.",
        "Basic strategy: composition-dependent first decision, total-dependent with 3+ cards;",
        "in brackets the fully composition-dependent optimum. The published figure is for each table's defaults.",
        "",
        f"{'game':<17} {'rules':<48} {'RTP':>8} {'(optimal)':>11} {'published':>9} {'diff':>7}",
    ]
    for row in rows:
        lines.append(
            f"{row.game:<17} {row.label:<48} {100 * row.rtp.seat:>7.3f}% ({100 * row.rtp.seat_optimal:>7.3f}%)"
            f" {100 * row.published:>8.2f}% {row.difference:>+7.3f}"
        )
    if any("split_deal" in row.overrides for row in rows):
        lines.append("(the order of the split hands' cards does not change these figures: each split hand is "
                     "played from its own cards)")
    same_rank = load_rules("deluxe-blackjack", {})
    perfect = load_rules("deluxe-blackjack", PERFECT_PAIRS)
    assert isinstance(same_rank, BlackjackRules) and isinstance(perfect, BlackjackRules)
    lines += [
        "",
        f"pair, same rank 11:1:                      {_percent(pair_rtp(same_rank))}",
        f"pair, Perfect Pairs 6:1 / 12:1 / 25:1:     {_percent(pair_rtp(perfect))}",
        f"insurance 2:1 (basic strategy: never):     {_percent(insurance_rtp(same_rank))}",
    ]
    if main is not None:
        lines += [
            f"this table's pair paytable:                {_percent(main.pair)}",
            f"this table's insurance:                    {_percent(main.insurance)}",
        ]
    return "\n".join(lines)


def _percent(value: Fraction) -> str:
    return f"{100 * float(value):.4f}% (exactly {value})"
