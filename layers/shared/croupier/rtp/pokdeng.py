"""Exact RTP of every Pok Deng bet type over a full 8-deck shoe (``pok-deng.md``).

**What is enumerated.** A Player N bet depends on two hands only: hand N and the Banker's. The
twelve round cards (and the burn cards before them) are dealt from a well-shuffled shoe, so the
four cards of hand N and the Banker are distributed like the first four cards of a fresh 416-card
shoe, whatever N is and whatever the other hands receive. The report therefore enumerates every
ordered draw of four cards — hand N's two, then the Banker's two — with exact removal, by rank
(13 ranks: pairs and special combinations need ranks) and by suit pattern (flushes need suits;
only which of the four cards share a suit matters, so the 15 ways four cards can share suits are
enumerated, each counted with its number of suit assignments). The weights add up to
``416 * 415 * 414 * 413``.

**All five hands are symmetric.** By the argument above, Player 1 to Player 5 have the same
distribution and so the same RTP, as do Player 1 Pair to Player 5 Pair. The report still settles
every bet name with the engine, each with its hand in its own position.

**Settlement is the engine's.** Hands are grouped by :func:`~croupier.games.pokdeng.hand_info`
(everything the engine knows about a two-card hand under the table's special combinations), and
each pair of groups is settled by :func:`~croupier.games.pokdeng.settle_bet` on a representative
pair of real hands, so the report and the engine cannot disagree about a payout.

**Two denominators.** A bet on Player N is two equal stakes put down together, front and back
(``pok-deng.md``, *Published maximum RTP*): a bet of 100 puts down 200, which is exactly its 2x
reservation. The return **per unit of the stake** is ``1 + E[net] / stake``; the return **per
amount put down** is ``1 + E[net] / (reservation * stake)`` (:func:`analyse_put_down`), the
published figure's measure: its house edge is half the edge per unit of the stake. A Pair bet puts
down its stake, so both figures are the same for it. **Decision:** with a reservation other than
2 (a table's configuration) the amount put down is still what the bet takes from the balance.

**The published figure.** With the spec's five special combinations and its exceptions, Player N
returns 98.7499% per amount put down: 98.75% as published. :func:`without_each` gives the effect
of dropping each combination.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from types import MappingProxyType

from ..cards import DECKS, RANKS, SUITS
from ..games.base import Bet
from ..games.pokdeng import PAIR_BETS, PLAYER_BETS, HandInfo, PokDengHands, hand_info, settle_bet
from ..rules import PokDengRules

PER_CARD = DECKS
"""Copies of each card (rank and suit) in the shoe (8)."""
SHOE_CARDS = len(RANKS) * len(SUITS) * PER_CARD
TOTAL_WEIGHT = SHOE_CARDS * (SHOE_CARDS - 1) * (SHOE_CARDS - 2) * (SHOE_CARDS - 3)
"""The common denominator: ordered draws of four cards from the shoe."""

BET_NAMES = (*PLAYER_BETS, *PAIR_BETS)
"""``player-1`` ... ``player-5``, ``player-1-pair`` ... ``player-5-pair``."""

PUBLISHED_MAXIMUM = Fraction("0.9875")
"""The provider's published maximum RTP: the Player N bets, per amount put down (both stakes)."""
PUBLISHED: dict[str, Fraction] = {name: PUBLISHED_MAXIMUM for name in PLAYER_BETS}
"""Bet -> its published RTP per amount put down."""

HandClass = tuple[str, str, bool]
"""A two-card hand up to card order and suit names: (lower rank, higher rank, same suit)."""

_PLAYER_SUITS = ("S", "H")
_BANKER_SUITS = ("C", "D")
_FILLER = ("2D", "7C")
"""The cards of the hands a bet does not look at (any real hand would do)."""


def class_cards(hand: HandClass, suits: tuple[str, str] = _PLAYER_SUITS) -> tuple[str, str]:
    """A real hand of the class: ``suits[0]`` for the first card, the second card suited or not."""
    low, high, suited = hand
    return low + suits[0], high + (suits[0] if suited else suits[1])


def _suit_patterns() -> dict[tuple[int, int, int, int], int]:
    """Which of four cards share a suit (block ids in first-seen order) -> suit assignments."""
    out: dict[tuple[int, int, int, int], int] = {}
    for s1, s2, s3, s4 in product(range(len(SUITS)), repeat=4):
        first: dict[int, int] = {}
        key = (first.setdefault(s1, 0), first.setdefault(s2, len(first)), first.setdefault(s3, len(first)),
               first.setdefault(s4, len(first)))
        out[key] = out.get(key, 0) + 1
    return out


@lru_cache(maxsize=1)
def hand_distribution() -> Mapping[tuple[HandClass, HandClass], int]:
    """(hand N, Banker) -> the number of ordered four-card draws that deal them; the counts add
    up to :data:`TOTAL_WEIGHT`. Independent of the table's rules, so computed once."""
    patterns = _suit_patterns()
    # For each way the four ranks coincide, and each way the four suits coincide: the number of
    # ordered card draws (exact removal: a card already drawn leaves one copy fewer), split by
    # whether each hand is suited.
    by_rank_shape: dict[tuple[int, ...], dict[tuple[bool, bool], int]] = {}
    for rank_shape in product(range(4), repeat=4):
        if any(rank_shape[i] > max(rank_shape[:i], default=-1) + 1 for i in range(4)):
            continue  # not in first-seen order
        table: dict[tuple[bool, bool], int] = {}
        for suit_shape, assignments in patterns.items():
            weight = assignments
            for i in range(4):
                same = sum(1 for j in range(i) if rank_shape[j] == rank_shape[i] and suit_shape[j] == suit_shape[i])
                weight *= PER_CARD - same
            suited = (suit_shape[0] == suit_shape[1], suit_shape[2] == suit_shape[3])
            table[suited] = table.get(suited, 0) + weight
        by_rank_shape[rank_shape] = table
    order = {r: i for i, r in enumerate(RANKS)}
    out: dict[tuple[HandClass, HandClass], int] = {}
    for ranks in product(RANKS, repeat=4):
        first: dict[str, int] = {}
        shape = tuple(first.setdefault(r, len(first)) for r in ranks)
        p_low, p_high = sorted(ranks[:2], key=order.__getitem__)
        b_low, b_high = sorted(ranks[2:], key=order.__getitem__)
        for (p_suited, b_suited), weight in by_rank_shape[shape].items():
            key = ((p_low, p_high, p_suited), (b_low, b_high, b_suited))
            out[key] = out.get(key, 0) + weight
    return MappingProxyType(out)


@dataclass(frozen=True, slots=True)
class HandsClass:
    """All (hand N, Banker) deals that the engine cannot tell apart under a table's rules."""

    player: HandInfo
    banker: HandInfo
    player_cards: tuple[str, str]
    banker_cards: tuple[str, str]
    weight: int


@lru_cache(maxsize=1)
def _matrix() -> tuple[tuple[HandClass, ...], tuple[tuple[int, ...], ...]]:
    """:func:`hand_distribution` as the list of hand classes and a matrix ``[hand N][Banker]``."""
    dist = hand_distribution()
    classes = tuple(sorted({hand for pair in dist for hand in pair}))
    rows = tuple(tuple(dist.get((p, b), 0) for b in classes) for p in classes)
    return classes, rows


def settlement_classes(rules: PokDengRules) -> tuple[HandsClass, ...]:
    """The deals of :func:`hand_distribution` grouped by the engine's :class:`HandInfo` of both
    hands, each group with one real representative pair of hands."""
    classes, rows = _matrix()
    # Number the distinct HandInfo of each side, and keep a real hand of each.
    def numbered(suits: tuple[str, str]) -> tuple[list[int], list[HandInfo], list[tuple[str, str]]]:
        ids: dict[HandInfo, int] = {}
        infos: list[HandInfo] = []
        cards: list[tuple[str, str]] = []
        out = []
        for hand in classes:
            hand_cards = class_cards(hand, suits)
            info = hand_info(rules, hand_cards)
            if info not in ids:
                ids[info] = len(infos)
                infos.append(info)
                cards.append(hand_cards)
            out.append(ids[info])
        return out, infos, cards

    p_ids, p_infos, p_cards = numbered(_PLAYER_SUITS)
    b_ids, b_infos, b_cards = numbered(_BANKER_SUITS)
    weights = [[0] * len(b_infos) for _ in p_infos]
    for p_id, row in zip(p_ids, rows, strict=True):
        acc = weights[p_id]
        for b_id, weight in zip(b_ids, row, strict=True):
            acc[b_id] += weight
    return tuple(
        HandsClass(p_infos[i], b_infos[j], p_cards[i], b_cards[j], w)
        for i, row_w in enumerate(weights)
        for j, w in enumerate(row_w)
        if w
    )


def hands_for(bet_type: str, player_cards: tuple[str, str], banker_cards: tuple[str, str]) -> PokDengHands:
    """The round's hands with ``player_cards`` in the position of ``bet_type``'s hand."""
    index = int(bet_type.split("-")[1]) - 1
    players = tuple(player_cards if i == index else _FILLER for i in range(len(PLAYER_BETS)))
    return PokDengHands(players=players, banker=banker_cards)


def expected_net(rules: PokDengRules, bet_names: Iterable[str] = BET_NAMES) -> dict[str, Fraction]:
    """Exact expected net result of each bet per unit staked (``E[net] / stake``), settled by the
    engine's :func:`settle_bet` on every class of deals."""
    classes = settlement_classes(rules)
    out: dict[str, Fraction] = {}
    for name in bet_names:
        bet = Bet(name, "rtp", name, 1)
        total = Fraction(0)
        for cls in classes:
            total += cls.weight * settle_bet(rules, hands_for(name, cls.player_cards, cls.banker_cards), bet).exact_net
        out[name] = total / TOTAL_WEIGHT
    return out


def analyse(rules: PokDengRules) -> dict[str, Fraction]:
    """Exact RTP per unit staked of every bet type: ``player-1`` ... ``player-5`` (all equal: the
    hands are symmetric) and ``player-1-pair`` ... ``player-5-pair``, under the table's
    ``special_combinations`` and payouts."""
    return {name: 1 + net for name, net in expected_net(rules).items()}


def put_down(rules: PokDengRules, bet_name: str) -> int:
    """What a bet puts down per unit of its stake: a Player N bet its front and back stakes (the
    reservation, 2), a Pair bet its stake."""
    return 1 if bet_name.endswith("-pair") else rules.reservation


def analyse_put_down(rules: PokDengRules, rtp: dict[str, Fraction] | None = None) -> dict[str, Fraction]:
    """The same returns per amount **put down** (:func:`put_down`): the published figure's
    measure. ``rtp`` may pass :func:`analyse`'s result to save the work."""
    figures = analyse(rules) if rtp is None else rtp
    return {name: 1 + (value - 1) / put_down(rules, name) for name, value in figures.items()}


@dataclass(frozen=True, slots=True)
class Variant:
    """Player N's RTP under a table's rules with one special combination dropped (or all)."""

    dropped: tuple[str, ...]
    """The combinations left out; the table's own rules when empty."""
    special_combinations: tuple[str, ...]
    """What the table keeps, highest first."""
    rtp: Fraction
    """Player N, per unit of the stake."""
    rtp_put_down: Fraction
    """Player N, per amount put down."""

    @property
    def distance(self) -> Fraction:
        """``rtp_put_down - 98.75%`` (negative: below the published figure)."""
        return self.rtp_put_down - PUBLISHED_MAXIMUM


def without_each(rules: PokDengRules) -> tuple[Variant, ...]:
    """Player N under the table's rules, then with each of its special combinations dropped in
    turn, then with none of them; the table's other rules unchanged."""
    combos = rules.special_combinations
    drops: list[tuple[str, ...]] = [()] + [(c.name,) for c in combos]
    if len(combos) > 1:
        drops.append(tuple(c.name for c in combos))
    out = []
    for dropped in drops:
        kept = tuple(c for c in combos if c.name not in dropped)
        variant = rules.model_copy(update={"special_combinations": kept})
        net = expected_net(variant, PLAYER_BETS[:1])[PLAYER_BETS[0]]
        out.append(Variant(dropped, tuple(c.name for c in kept), 1 + net, 1 + net / put_down(variant, PLAYER_BETS[0])))
    return tuple(out)
