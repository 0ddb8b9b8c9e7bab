"""Exact Pok Deng RTP (pok-deng.md): the enumeration, a brute force over card pairs, the engine."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from croupier.cards import ALL_CARDS, DECKS, RANKS
from croupier.games.base import Bet
from croupier.games.pokdeng import BET_TYPES, PokDengRound, hand_info, settle_bet
from croupier.rtp import pokdeng as rtp
from croupier.rules import SPECIAL_COMBINATIONS, PokDengRules, load_rules

Pair = tuple[tuple[str, str, bool], tuple[str, str, bool]]


def _rules(overrides: dict[str, object] | None = None) -> PokDengRules:
    rules = load_rules("pok-deng", overrides or {})
    assert isinstance(rules, PokDengRules)
    return rules


def _hand_class(a: str, b: str) -> tuple[str, str, bool]:
    low, high = sorted((a[0], b[0]), key=RANKS.index)
    return low, high, a[1] == b[1]


@pytest.fixture(scope="module")
def brute_force() -> Counter[Pair]:
    """Every unordered hand N (a multiset of two physical cards) and every unordered Banker hand
    from what is left, each weighted by its ordered draws: the simplest possible enumeration."""
    hands = [(a, b) for i, a in enumerate(ALL_CARDS) for b in ALL_CARDS[i:]]
    classes = sorted({_hand_class(a, b) for a, b in hands})
    index = {cls: i for i, cls in enumerate(classes)}
    bankers = [(c, d, index[_hand_class(c, d)]) for c, d in hands]
    rows = [[0] * len(classes) for _ in classes]
    for a, b in hands:
        p_weight = DECKS * (DECKS - 1) if a == b else 2 * DECKS * DECKS
        row = rows[index[_hand_class(a, b)]]
        for c, d, j in bankers:
            left_c = DECKS - (a == c) - (b == c)
            if c == d:
                row[j] += p_weight * left_c * (left_c - 1)
            else:
                row[j] += p_weight * 2 * left_c * (DECKS - (a == d) - (b == d))
    return Counter(
        {(p, b): rows[i][j] for i, p in enumerate(classes) for j, b in enumerate(classes) if rows[i][j]}
    )


def test_the_enumeration_equals_a_brute_force_over_card_pairs(brute_force: Counter[Pair]) -> None:
    assert rtp.TOTAL_WEIGHT == 416 * 415 * 414 * 413
    mine = rtp.hand_distribution()
    assert sum(mine.values()) == rtp.TOTAL_WEIGHT
    assert len(mine) == 182 * 182  # 91 rank pairs, suited or not (a pair can be suited: 8 decks)
    assert Counter(mine) == brute_force


# --- the payout rules, read from pok-deng.md independently of the engine ---
# A second implementation, on purpose shaped unlike the engine: the spec's table of special
# combinations written out as the rank pairs it lists, the order of hands as the spec's list of
# names, and the payout table read line by line.

_SPEC_TABLE: dict[str, tuple[set[frozenset[str]], bool]] = {
    # name: (the unordered rank pairs it lists, whether both cards must share a suit)
    "lion flush": ({frozenset("AK")}, True),
    "special pair": ({frozenset("A"), frozenset("5"), frozenset("6"), frozenset("T")}, False),
    "court cards": ({frozenset(p) for p in ("J", "Q", "K", "JQ", "JK", "QK")}, False),
    "ten and court": ({frozenset(p) for p in ("TJ", "TQ", "TK")}, False),
    # the spec's list is A-9, 2-8, 3-7, 4-6; its definition ("two cards of one suit, neither a 10 or
    # a picture, whose points are 0") also holds a suited 5-5, which matters only on a table that
    # drops the special pair (it ranks higher and holds 5-5 first)
    "flush worth 0": ({frozenset(p) for p in ("A9", "28", "37", "46", "5")}, True),
}
_SPEC_ORDER = ["9", "8", "lion flush", "special pair", "court cards", "ten and court", "flush worth 0",
               "7", "6", "5", "4", "3", "2", "1", "0"]
_VALUE = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0, **{str(n): n for n in range(2, 10)}}


def _spec_hand(specials: tuple[str, ...], hand: tuple[str, str, bool]) -> tuple[str, int, bool, bool]:
    """(the hand's place in the spec's order, its points, is it a pair, is it a flush)."""
    r1, r2, flush = hand
    total = (_VALUE[r1] + _VALUE[r2]) % 10
    fits = [name for name, (pairs, suited) in _SPEC_TABLE.items()
            if name in specials and frozenset((r1, r2)) in pairs and (flush or not suited)]
    # the highest it fits, by the spec's order of hands
    name = min(fits, key=_SPEC_ORDER.index) if fits else str(total)
    return name, total, r1 == r2, flush


def _spec_net(specials: tuple[str, ...], player: tuple[str, str, bool], banker: tuple[str, str, bool]) -> int:
    p_name, p_pts, p_pair, p_flush = _spec_hand(specials, player)
    b_name, _, b_pair, b_flush = _spec_hand(specials, banker)
    p_special = p_pair or p_flush or p_name in _SPEC_TABLE
    b_special = b_pair or b_flush or b_name in _SPEC_TABLE
    if _SPEC_ORDER.index(p_name) == _SPEC_ORDER.index(b_name):
        return 0  # the same rank: a push
    if _SPEC_ORDER.index(p_name) < _SPEC_ORDER.index(b_name):  # Player N wins
        if p_pts in (8, 9) and (p_pair or p_flush):
            return 2  # exception 1
        if b_name in ("0", "6"):
            return 1  # exception 2: the Banker ranks as 0 or 6 points (a combination never does)
        return 2 if p_special else 1
    return -2 if b_special else -1  # the Banker wins


SPEC_NAMES = dict(zip(SPECIAL_COMBINATIONS, _SPEC_TABLE, strict=True))
"""The rules' names -> the spec's."""


def _spec_rtp(dist: Counter[Pair], specials: tuple[str, ...]) -> Fraction:
    """Player N per unit of the stake, from the brute-force distribution."""
    total = sum(w * _spec_net(specials, p, b) for (p, b), w in dist.items())
    return 1 + Fraction(total, rtp.TOTAL_WEIGHT)


def test_the_two_readings_agree_on_every_pair_of_hands() -> None:
    classes = sorted({hand for pair in rtp.hand_distribution() for hand in pair})
    rules = _rules()
    specials = tuple(_SPEC_TABLE)
    for p in classes:
        for b in classes:
            player, banker = rtp.class_cards(p), rtp.class_cards(b, ("C", "D"))
            net = settle_bet(rules, rtp.hands_for("player-1", player, banker), Bet("x", "p", "player-1", 1)).exact_net
            assert net == _spec_net(specials, p, b), (player, banker)


def test_every_bet_type_is_reported_and_the_hands_are_symmetric() -> None:
    figures = rtp.analyse(_rules())
    assert tuple(figures) == rtp.BET_NAMES
    assert set(figures) == set(BET_TYPES)
    assert len({figures[f"player-{n}"] for n in range(1, 6)}) == 1
    assert all(figures[f"player-{n}-pair"] == Fraction(12 * 31, 415) for n in range(1, 6))


def test_the_default_rules_reproduce_the_published_98_75_per_amount_put_down(brute_force: Counter[Pair]) -> None:
    rules = _rules()
    staked = rtp.analyse(rules)
    put_down = rtp.analyse_put_down(rules, staked)
    assert staked["player-1"] == _spec_rtp(brute_force, tuple(_SPEC_TABLE))
    assert put_down["player-1"] == 1 + (staked["player-1"] - 1) / 2
    # 98.7499...%: 98.75% at the published precision, and not merely near it
    assert round(100 * put_down["player-1"], 2) == Fraction("98.75") == 100 * rtp.PUBLISHED_MAXIMUM
    assert abs(put_down["player-1"] - rtp.PUBLISHED_MAXIMUM) < Fraction(1, 10**6)
    # per unit of the stake it is not the published figure
    assert round(100 * staked["player-1"], 2) == Fraction("97.50")


def test_without_special_combinations_the_figure_is_not_reproduced(brute_force: Counter[Pair]) -> None:
    figures = rtp.analyse(_rules({"special_combinations": []}))
    assert figures["player-1"] == _spec_rtp(brute_force, ())
    assert abs(figures["player-1"] - Fraction("0.969475")) < Fraction(1, 10**6)
    assert round(100 * rtp.analyse_put_down(_rules({"special_combinations": []}), figures)["player-1"], 2) != Fraction(
        "98.75")


def test_dropping_each_combination_matches_the_spec_reading(brute_force: Counter[Pair]) -> None:
    variants = rtp.without_each(_rules())
    assert [v.dropped for v in variants] == [(), *((n,) for n in SPECIAL_COMBINATIONS), SPECIAL_COMBINATIONS]
    for variant in variants:
        kept = tuple(SPEC_NAMES[n] for n in variant.special_combinations)
        expected = _spec_rtp(brute_force, kept)
        assert variant.rtp == expected, variant.dropped
        assert variant.rtp_put_down == 1 + (expected - 1) / 2
        assert variant.distance == variant.rtp_put_down - Fraction("0.9875")
    # every combination counts: dropping any one moves the figure away from 98.75%
    assert all(abs(v.distance) > Fraction(1, 10**4) for v in variants[1:])


def test_return_per_amount_put_down_halves_the_edge_of_player_bets() -> None:
    rules = _rules()
    staked = rtp.analyse(rules)
    put_down = rtp.analyse_put_down(rules, staked)
    assert put_down == rtp.analyse_put_down(rules)
    assert 1 - put_down["player-2"] == (1 - staked["player-2"]) / 2
    assert put_down["player-2-pair"] == staked["player-2-pair"]


def test_even_payouts_make_the_player_bet_fair() -> None:
    # Hand N and the Banker's hand are exchangeable: with every win and loss at 1x, RTP is exactly 1.
    rules = _rules({"payouts": {"win_special": "1:1", "lose_special": 1}, "reservation": 1})
    assert rtp.analyse(rules)["player-4"] == 1


def test_a_richer_special_payout_raises_the_rtp() -> None:
    base = rtp.analyse(_rules())["player-1"]
    richer = rtp.analyse(_rules({"payouts": {"win_special": "3:1"}}))["player-1"]
    assert richer > base


# --- the report settles like the engine does on real rounds ---


def test_random_rounds_settle_like_their_class_representative() -> None:
    rules = _rules()
    reps = {(c.player, c.banker): (c.player_cards, c.banker_cards) for c in rtp.settlement_classes(rules)}
    rng = random.Random(97)
    shoe = [c for c in ALL_CARDS for _ in range(DECKS)]
    bets = [Bet(t, "p", t, 100) for t in BET_TYPES]
    for _ in range(300):
        rng.shuffle(shoe)
        game = PokDengRound(rules, bets)
        for card in shoe[:12]:
            game.deal(card)
        hands = game.hands()
        settled = game.settle().by_id()
        for n, player in enumerate(hands.players, start=1):
            p_cards, b_cards = reps[hand_info(rules, player), hand_info(rules, hands.banker)]
            for name in (f"player-{n}", f"player-{n}-pair"):
                bet = Bet(name, "p", name, 100)
                assert settle_bet(rules, rtp.hands_for(name, p_cards, b_cards), bet) == settled[name]
