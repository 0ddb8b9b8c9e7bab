"""Exact RTP of every Baccarat bet type over a full 8-deck shoe (``baccarat.md``).

The report enumerates every round that can be dealt from a fresh 416-card shoe, with exact
removal of the cards already dealt:

1. the first four cards (Player, Banker, Player, Banker) **by rank** — 13 ranks, 32 cards each,
   because the pair bets need ranks (10, J, Q and K are different ranks);
2. the third cards **by point value** (10 values; value 0 holds the 10s and the pictures), which is
   all the tableau and the main bets look at.

Each dealt round weighs the number of ordered card sequences that produce it, over a common
denominator of ``416 * 415 * 414 * 413 * 412 * 411`` (a round of fewer than six cards counts every
continuation of the unused positions). The drawing rules are the engine's own tableau functions
(:func:`~croupier.games.baccarat.is_natural`, :func:`~croupier.games.baccarat.player_draws`,
:func:`~croupier.games.baccarat.banker_draws`, :func:`~croupier.games.baccarat.points`).

Rounds are grouped into *classes*: everything :func:`~croupier.games.baccarat.settle_bet` reads
(each hand's points and card count, and whether each hand's first two cards are a pair). Each
class keeps one real card sequence of its own as a representative, and every bet is settled by the
engine's :func:`~croupier.games.baccarat.settle_bet` on that representative, so the report and the
engine cannot disagree about a payout. Everything is exact (integers and fractions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from ..cards import BACCARAT_VALUE, DECKS, RANKS, SUITS
from ..games.baccarat import Coup, banker_draws, is_natural, player_draws, points, settle_bet
from ..games.base import Bet
from ..rules import BaccaratRules

PER_RANK = len(SUITS) * DECKS
"""Cards of one rank in the shoe (32)."""
SHOE_CARDS = len(RANKS) * PER_RANK
"""Cards in the shoe (416)."""
TOTAL_WEIGHT = (
    SHOE_CARDS * (SHOE_CARDS - 1) * (SHOE_CARDS - 2) * (SHOE_CARDS - 3) * (SHOE_CARDS - 4) * (SHOE_CARDS - 5)
)
"""The common denominator: ordered sequences of six cards from the shoe."""

BET_NAMES = (
    "player",
    "banker",
    "banker-no-commission",
    "tie",
    "player-pair",
    "banker-pair",
    "lucky-6",
    "big",
    "small",
)
"""Every bet type of the report, in its order. ``banker`` is the Banker bet with commission."""

PUBLISHED: dict[str, Fraction] = {"banker": Fraction("0.9894")}
"""The provider's published figure: the maximum RTP, 98.94%, is the Banker bet with commission."""

# Representative rank of each point value, for the third cards (value 0: a ten).
_VALUE_RANK = {value: next(r for r in RANKS if BACCARAT_VALUE[r] == value) for value in range(10)}
# Cards of each point value in a full shoe: value 0 holds four ranks (10, J, Q, K).
_VALUE_COUNT = tuple(sum(PER_RANK for r in RANKS if BACCARAT_VALUE[r] == value) for value in range(10))

ClassKey = tuple[bool, bool, int, int, int, int]
"""(player pair, banker pair, player points, banker points, player cards, banker cards)."""


@dataclass(frozen=True, slots=True)
class CoupClass:
    """All dealt rounds that settle alike: ``weight`` ordered card sequences (over
    :data:`TOTAL_WEIGHT`), represented by one real round ``coup`` of the class."""

    key: ClassKey
    coup: Coup
    weight: int


def class_key(coup: Coup) -> ClassKey:
    """Everything :func:`settle_bet` reads from the final hands."""
    return (
        coup.player[0][0] == coup.player[1][0],
        coup.banker[0][0] == coup.banker[1][0],
        coup.player_points,
        coup.banker_points,
        len(coup.player),
        len(coup.banker),
    )


# A third-card subtree: (player points, banker points, player cards, banker cards) ->
# (weight, the Player's third-card value or None, the Banker's third-card value or None).
_Subtree = dict[tuple[int, int, int, int], tuple[int, int | None, int | None]]


def _third_cards(player2: int, banker2: int, removed: tuple[int, ...]) -> _Subtree:
    """The rounds after the first four cards, by the points of the third cards. ``removed`` is the
    sorted point values of the four cards dealt. Weights count the ordered continuations of
    positions 5 and 6 (an unused position counts every card left)."""
    left = list(_VALUE_COUNT)
    for value in removed:
        left[value] -= 1
    fifth, sixth = SHOE_CARDS - 4, SHOE_CARDS - 5
    out: _Subtree = {}

    def add(key: tuple[int, int, int, int], weight: int, p3: int | None, b3: int | None) -> None:
        old = out.get(key)
        out[key] = (weight, p3, b3) if old is None else (old[0] + weight, old[1], old[2])

    if is_natural(player2, banker2):
        add((player2, banker2, 2, 2), fifth * sixth, None, None)
        return out
    if not player_draws(player2):
        if not banker_draws(banker2, None):
            add((player2, banker2, 2, 2), fifth * sixth, None, None)
            return out
        for b3 in range(10):
            if left[b3]:
                add((player2, (banker2 + b3) % 10, 2, 3), left[b3] * sixth, None, b3)
        return out
    for p3 in range(10):
        count3 = left[p3]
        if not count3:
            continue
        player3 = (player2 + p3) % 10
        if not banker_draws(banker2, p3):
            add((player3, banker2, 3, 2), count3 * sixth, p3, None)
            continue
        left[p3] -= 1
        for b3 in range(10):
            if left[b3]:
                add((player3, (banker2 + b3) % 10, 3, 3), count3 * left[b3], p3, b3)
        left[p3] += 1
    return out


@lru_cache(maxsize=1)
def coup_distribution() -> tuple[CoupClass, ...]:
    """Every class of dealt rounds with its exact weight; the weights add up to
    :data:`TOTAL_WEIGHT`. Independent of the table's payouts, so it is computed once."""
    # First four cards by rank, in dealing order Player, Banker, Player, Banker; grouped by their
    # point values and the two pair flags (all the third cards and the settlement depend on).
    four_weight: dict[tuple[int, int, int, int, bool, bool], int] = {}
    four_ranks: dict[tuple[int, int, int, int, bool, bool], tuple[str, ...]] = {}
    for ranks in product(RANKS, repeat=4):
        weight = 1
        for i, r in enumerate(ranks):
            weight *= PER_RANK - ranks[:i].count(r)
        p1, b1, p2, b2 = ranks
        key = (BACCARAT_VALUE[p1], BACCARAT_VALUE[b1], BACCARAT_VALUE[p2], BACCARAT_VALUE[b2], p1 == p2, b1 == b2)
        four_weight[key] = four_weight.get(key, 0) + weight
        four_ranks.setdefault(key, ranks)
    weights: dict[ClassKey, int] = {}
    reps: dict[ClassKey, Coup] = {}
    subtrees: dict[tuple[int, int, tuple[int, ...]], _Subtree] = {}
    for key, weight4 in four_weight.items():
        vp1, vb1, vp2, vb2, ppair, bpair = key
        p1, b1, p2, b2 = four_ranks[key]
        player_cards = (p1 + "S", p2 + "S")
        banker_cards = (b1 + "S", b2 + "S")
        memo = (points(player_cards), points(banker_cards), tuple(sorted((vp1, vb1, vp2, vb2))))
        subtree = subtrees.get(memo)
        if subtree is None:
            subtree = subtrees[memo] = _third_cards(*memo)
        for (pp, bp, pn, bn), (weight, p3, b3) in subtree.items():
            ckey: ClassKey = (ppair, bpair, pp, bp, pn, bn)
            weights[ckey] = weights.get(ckey, 0) + weight4 * weight
            if ckey not in reps:
                player = player_cards + ((_VALUE_RANK[p3] + "H",) if p3 is not None else ())
                banker = banker_cards + ((_VALUE_RANK[b3] + "D",) if b3 is not None else ())
                reps[ckey] = Coup(player, banker)
    out = []
    for ckey, weight in sorted(weights.items()):
        coup = reps[ckey]
        if class_key(coup) != ckey:  # the representative must settle as its class
            raise AssertionError(f"baccarat RTP: representative {coup} does not match its class {ckey}")
        out.append(CoupClass(ckey, coup, weight))
    return tuple(out)


def report_bets(rules: BaccaratRules) -> dict[str, Bet]:
    """The bet types the table offers, each as a one-unit bet: ``banker`` (with commission) and
    ``banker-no-commission`` as the table's modes allow, side bets as configured."""
    bets = {"player": Bet("player", "rtp", "player", 1)}
    if "commission" in rules.modes:
        bets["banker"] = Bet("banker", "rtp", "banker", 1, mode="commission")
    if "no-commission" in rules.modes:
        bets["banker-no-commission"] = Bet("banker-no-commission", "rtp", "banker", 1, mode="no-commission")
    for kind in ("tie", "player-pair", "banker-pair"):
        bets[kind] = Bet(kind, "rtp", kind, 1)
    for kind in ("lucky-6", "big", "small"):
        if kind in rules.side_bets:
            bets[kind] = Bet(kind, "rtp", kind, 1)
    return bets


def expected_net(rules: BaccaratRules, bets: Mapping[str, Bet]) -> dict[str, Fraction]:
    """Exact expected net result of each bet (in units of its stake), settled by the engine."""
    sums = {name: Fraction(0) for name in bets}
    for cls in coup_distribution():
        for name, bet in bets.items():
            sums[name] += cls.weight * settle_bet(rules, cls.coup, bet).exact_net
    return {name: sums[name] / (TOTAL_WEIGHT * bets[name].amount) for name in bets}


def analyse(rules: BaccaratRules) -> dict[str, Fraction]:
    """Exact RTP (return per unit staked, stake included) of every bet type the table offers:
    ``player``, ``banker`` (with commission), ``banker-no-commission``, ``tie``, ``player-pair``,
    ``banker-pair``, and the configured side bets ``lucky-6``, ``big``, ``small``."""
    return {name: 1 + net for name, net in expected_net(rules, report_bets(rules)).items()}


def outcome_probabilities() -> dict[str, Fraction]:
    """Exact probabilities of the round's results: ``player``, ``banker``, ``tie`` wins, a
    ``natural``, and a round of exactly ``four-cards``, ``five-cards``, ``six-cards``."""
    counts = dict.fromkeys(("player", "banker", "tie", "natural", "four-cards", "five-cards", "six-cards"), 0)
    for cls in coup_distribution():
        _, _, pp, bp, pn, bn = cls.key
        counts["player" if pp > bp else "banker" if bp > pp else "tie"] += cls.weight
        counts[{4: "four-cards", 5: "five-cards", 6: "six-cards"}[pn + bn]] += cls.weight
        if pn == bn == 2 and is_natural(pp, bp):  # with two cards each, the final points are the first two's
            counts["natural"] += cls.weight
    return {name: Fraction(count, TOTAL_WEIGHT) for name, count in counts.items()}
