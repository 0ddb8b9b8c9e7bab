"""Exact Pok Deng RTP (pok-deng.md): the enumeration, a brute force over card pairs, the engine."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from croupier.cards import ALL_CARDS, BACCARAT_VALUE, DECKS, RANKS
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


def _spec_net(specials: tuple[str, ...], player: tuple[str, str, bool], banker: tuple[str, str, bool]) -> int:
    def facts(hand: tuple[str, str, bool]) -> tuple[int, int, bool, bool, bool]:
        r1, r2, flush = hand
        pts = (BACCARAT_VALUE[r1] + BACCARAT_VALUE[r2]) % 10
        pair = r1 == r2
        combo = (
            ("two-pictures" in specials and r1 in "JQK" and r2 in "JQK")
            or ("pictures-and-ten" in specials and r1 in "TJQK" and r2 in "TJQK")
            or ("consecutive" in specials and abs(RANKS.index(r1) - RANKS.index(r2)) == 1)
        )
        # A special combination ranks between 7 and 8; one with 8 or 9 points keeps its points.
        rank = 2 * pts if pts >= 8 or not combo else 15
        return pts, rank, pair, flush, pair or flush or combo

    p_pts, p_rank, p_pair, p_flush, p_special = facts(player)
    b_pts, b_rank, _, _, b_special = facts(banker)
    if p_rank > b_rank:
        if p_pts >= 8 and (p_pair or p_flush):
            return 2
        if b_pts in (0, 6):
            return 1
        return 2 if p_special else 1
    if p_rank < b_rank:
        return -2 if b_special else -1
    return 0


def _spec_rtp(dist: Counter[Pair], specials: tuple[str, ...]) -> Fraction:
    total = sum(w * _spec_net(specials, p, b) for (p, b), w in dist.items())
    return 1 + Fraction(total, rtp.TOTAL_WEIGHT)


@pytest.fixture(scope="module")
def default_candidates() -> tuple[rtp.Candidate, ...]:
    return rtp.candidates(_rules())


def test_every_bet_type_is_reported_and_the_hands_are_symmetric() -> None:
    figures = rtp.analyse(_rules())
    assert tuple(figures) == rtp.BET_NAMES
    assert set(figures) == set(BET_TYPES)
    assert len({figures[f"player-{n}"] for n in range(1, 6)}) == 1
    assert all(figures[f"player-{n}-pair"] == Fraction(12 * 31, 415) for n in range(1, 6))


def test_default_rules_match_the_spec_reading_on_the_brute_force(brute_force: Counter[Pair]) -> None:
    figures = rtp.analyse(_rules())
    assert figures["player-1"] == _spec_rtp(brute_force, ())
    assert abs(figures["player-1"] - Fraction("0.969475")) < Fraction(1, 10**6)


def test_every_candidate_matches_the_spec_reading_on_the_brute_force(
    brute_force: Counter[Pair], default_candidates: tuple[rtp.Candidate, ...]
) -> None:
    table = default_candidates
    assert len(table) == 2 ** len(SPECIAL_COMBINATIONS)
    assert len({c.special_combinations for c in table}) == len(table)
    for cand in table:
        expected = _spec_rtp(brute_force, cand.special_combinations)
        assert cand.rtp == expected, cand.special_combinations
        assert cand.rtp_reserved == 1 + (expected - 1) / 2
        assert cand.distance == expected - Fraction("0.9875")


def test_the_candidates_follow_the_configured_rules() -> None:
    rules = _rules({"special_combinations": ["consecutive"]})
    configured = rtp.analyse(rules)["player-3"]
    by_set = {c.special_combinations: c.rtp for c in rtp.candidates(rules)}
    assert by_set[("consecutive",)] == configured
    assert by_set[()] == rtp.analyse(_rules())["player-1"]
    # two pictures are also two ten-value cards: adding them to pictures-and-ten changes nothing
    assert by_set[("two-pictures", "pictures-and-ten")] == by_set[("pictures-and-ten",)]
    assert by_set[("pictures-and-ten",)] != by_set[()]


def test_no_candidate_reproduces_98_75_per_unit_staked(default_candidates: tuple[rtp.Candidate, ...]) -> None:
    # pok-deng.md: our reading does not reproduce the published figure, whatever the combinations.
    assert all(c.distance < Fraction(-1, 100) for c in default_candidates)


def test_return_per_unit_reserved_halves_the_edge_of_player_bets() -> None:
    rules = _rules()
    staked = rtp.analyse(rules)
    reserved = rtp.analyse_reserved(rules, staked)
    assert reserved == rtp.analyse_reserved(rules)
    assert 1 - reserved["player-2"] == (1 - staked["player-2"]) / 2
    assert reserved["player-2-pair"] == staked["player-2-pair"]


def test_even_payouts_make_the_player_bet_fair() -> None:
    # Hand N and the Banker's hand are exchangeable: with every win and loss at 1x, RTP is exactly 1.
    rules = _rules({"payouts": {"win_special": "1:1", "lose_special": 1}, "reservation": 1,
                    "special_combinations": ["consecutive"]})
    assert rtp.analyse(rules)["player-4"] == 1


def test_a_richer_special_payout_raises_the_rtp() -> None:
    base = rtp.analyse(_rules())["player-1"]
    richer = rtp.analyse(_rules({"payouts": {"win_special": "3:1"}}))["player-1"]
    assert richer > base


# --- the report settles like the engine does on real rounds ---


def test_random_rounds_settle_like_their_class_representative() -> None:
    rules = _rules({"special_combinations": list(SPECIAL_COMBINATIONS)})
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
