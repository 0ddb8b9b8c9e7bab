"""Exact Baccarat RTP (baccarat.md): the enumeration, the engine, and well-known 8-deck figures."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from fractions import Fraction
from itertools import product

import pytest

from croupier.cards import ALL_CARDS, BACCARAT_VALUE, DECKS
from croupier.games.baccarat import BaccaratRound, Coup, settle_bet
from croupier.games.base import CardFor, Settle
from croupier.rtp import baccarat as rtp
from croupier.rules import BaccaratRules, load_rules


def _rules(overrides: dict[str, object] | None = None) -> BaccaratRules:
    rules = load_rules("baccarat", overrides or {})
    assert isinstance(rules, BaccaratRules)
    return rules


@pytest.fixture(scope="module")
def default_rtp() -> dict[str, Fraction]:
    return rtp.analyse(_rules())


def test_weights_cover_every_six_card_sequence_of_the_shoe() -> None:
    assert rtp.TOTAL_WEIGHT == 416 * 415 * 414 * 413 * 412 * 411
    assert sum(c.weight for c in rtp.coup_distribution()) == rtp.TOTAL_WEIGHT
    assert len({c.key for c in rtp.coup_distribution()}) == len(rtp.coup_distribution())


def test_outcome_counts_are_the_known_exact_8_deck_counts() -> None:
    # The classic exact 8-deck combinatorial counts (out of 4,998,398,275,503,360 sequences).
    probs = rtp.outcome_probabilities()
    assert probs["banker"] * rtp.TOTAL_WEIGHT == 2_292_252_566_437_888
    assert probs["player"] * rtp.TOTAL_WEIGHT == 2_230_518_282_592_256
    assert probs["tie"] * rtp.TOTAL_WEIGHT == 475_627_426_473_216
    assert probs["four-cards"] + probs["five-cards"] + probs["six-cards"] == 1


def test_every_bet_type_is_reported_in_order(default_rtp: dict[str, Fraction]) -> None:
    assert tuple(default_rtp) == rtp.BET_NAMES
    assert all(isinstance(v, Fraction) for v in default_rtp.values())


def test_banker_with_commission_reproduces_the_published_98_94(default_rtp: dict[str, Fraction]) -> None:
    banker = default_rtp["banker"]
    assert abs(banker - Fraction("0.989421")) < Fraction(1, 10**6)
    assert round(banker, 4) == rtp.PUBLISHED["banker"] == Fraction("0.9894")
    assert banker == max(default_rtp.values())  # the best bet in the game


def test_main_bets_match_known_8_deck_figures(default_rtp: dict[str, Fraction]) -> None:
    # House edges: Player 1.2351%, Tie 8:1 14.3596%, No-Commission (Banker 6 pays 1:2) 1.4581%.
    assert abs(default_rtp["player"] - Fraction("0.987649")) < Fraction(1, 10**6)
    assert abs(default_rtp["tie"] - Fraction("0.856404")) < Fraction(1, 10**6)
    assert abs(default_rtp["banker-no-commission"] - Fraction("0.985419")) < Fraction(1, 10**6)
    probs = rtp.outcome_probabilities()
    assert default_rtp["player"] == 2 * probs["player"] + probs["tie"]
    assert default_rtp["tie"] == 9 * probs["tie"]


def test_pair_bets_are_exactly_12_times_31_over_415(default_rtp: dict[str, Fraction]) -> None:
    # The second card matches the first's rank with probability 31/415, whatever else is dealt.
    assert default_rtp["player-pair"] == Fraction(12 * 31, 415)
    assert default_rtp["banker-pair"] == Fraction(12 * 31, 415)


def test_big_and_small_follow_the_card_count(default_rtp: dict[str, Fraction]) -> None:
    four = rtp.outcome_probabilities()["four-cards"]
    assert default_rtp["small"] == Fraction(5, 2) * four
    assert default_rtp["big"] == Fraction(154, 100) * (1 - four)
    assert abs(default_rtp["small"] - Fraction("0.947171")) < Fraction(1, 10**6)
    assert abs(default_rtp["big"] - Fraction("0.956543")) < Fraction(1, 10**6)


# --- an independent, simpler enumeration over point values, with the tableau copied from the spec ---

_SPEC_BANKER_DRAWS = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: set(range(10)) - {8},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def _brute_force_by_values() -> Counter[tuple[int, int, int, int]]:
    """(player points, banker points, player cards, banker cards) -> ordered six-card sequences."""
    full = [Counter(BACCARAT_VALUE[c[0]] for c in ALL_CARDS)[v] * DECKS for v in range(10)]
    out: Counter[tuple[int, int, int, int]] = Counter()
    for p1, b1, p2, b2 in product(range(10), repeat=4):
        left = list(full)
        weight = 1
        for v in (p1, b1, p2, b2):
            weight *= left[v]
            left[v] -= 1
        if not weight:
            continue
        player, banker = (p1 + p2) % 10, (b1 + b2) % 10
        if player >= 8 or banker >= 8 or (player >= 6 and banker >= 6):
            out[player, banker, 2, 2] += weight * 412 * 411
        elif player >= 6:
            for b3 in range(10):
                out[player, (banker + b3) % 10, 2, 3] += weight * left[b3] * 411
        else:
            for p3 in range(10):
                w3 = weight * left[p3]
                if not w3:
                    continue
                if p3 not in _SPEC_BANKER_DRAWS[banker]:
                    out[(player + p3) % 10, banker, 3, 2] += w3 * 411
                    continue
                left[p3] -= 1
                for b3 in range(10):
                    out[(player + p3) % 10, (banker + b3) % 10, 3, 3] += w3 * left[b3]
                left[p3] += 1
    return out


def test_an_independent_enumeration_by_values_agrees_exactly(default_rtp: dict[str, Fraction]) -> None:
    brute = _brute_force_by_values()
    mine: Counter[tuple[int, int, int, int]] = Counter()
    for cls in rtp.coup_distribution():
        mine[cls.key[2:]] += cls.weight
    assert brute == mine
    # RTP from the spec's payout table, computed on the independent distribution.
    total = rtp.TOTAL_WEIGHT
    ret: defaultdict[str, Fraction] = defaultdict(Fraction)
    for (p, b, pn, bn), w in brute.items():
        ret["player"] += w * (2 if p > b else 1 if p == b else 0)
        ret["tie"] += w * (9 if p == b else 0)
        if b > p:
            ret["banker"] += w * Fraction(39, 20)
            ret["banker-no-commission"] += w * (Fraction(3, 2) if b == 6 else 2)
            ret["lucky-6"] += w * (0 if b != 6 else 13 if bn == 2 else 21)
        else:
            ret["banker"] += w if p == b else 0
            ret["banker-no-commission"] += w if p == b else 0
        ret["big"] += w * (Fraction(154, 100) if pn + bn >= 5 else 0)
        ret["small"] += w * (Fraction(5, 2) if pn + bn == 4 else 0)
    for name, value in ret.items():
        assert default_rtp[name] == value / total, name


# --- the representatives are real rounds, and settle like every round of their class ---


def _deal(cards: list[str]) -> BaccaratRound:
    game = BaccaratRound(_rules(), ())
    for card in cards:
        assert isinstance(game.expected, CardFor)
        game.deal(card)
    return game


def test_every_class_representative_is_a_round_the_engine_deals() -> None:
    for cls in rtp.coup_distribution():
        c = cls.coup
        order = [c.player[0], c.banker[0], c.player[1], c.banker[1], *c.player[2:], *c.banker[2:]]
        game = _deal(order)
        assert isinstance(game.expected, Settle), cls.key
        assert game.coup() == c
        assert rtp.class_key(game.coup()) == cls.key


def test_random_rounds_settle_exactly_like_their_class_representative() -> None:
    rules = _rules()
    reps = {cls.key: cls.coup for cls in rtp.coup_distribution()}
    bets = list(rtp.report_bets(rules).values())
    rng = random.Random(20240611)
    shoe = [c for c in ALL_CARDS for _ in range(DECKS)]
    for _ in range(400):
        rng.shuffle(shoe)
        cards = iter(shoe)
        game = BaccaratRound(rules, ())
        while isinstance(game.expected, CardFor):
            game.deal(next(cards))
        coup = game.coup()
        rep = reps[rtp.class_key(coup)]
        for bet in bets:
            assert settle_bet(rules, coup, bet).exact_net == settle_bet(rules, rep, bet).exact_net


# --- the report follows the table's configuration ---


def test_payout_overrides_change_the_figures_exactly(default_rtp: dict[str, Fraction]) -> None:
    changed = rtp.analyse(_rules({"payouts": {"tie": "9:1"}, "side_bets": {"lucky-6": {"pays": "20:1"}}}))
    assert changed["tie"] == 10 * rtp.outcome_probabilities()["tie"]
    assert changed["lucky-6"] > default_rtp["lucky-6"]
    assert changed["banker"] == default_rtp["banker"]


def test_only_offered_bets_are_reported() -> None:
    base = _rules()
    rules = base.model_copy(update={"modes": ("no-commission",), "side_bets": {"big": base.side_bets["big"]}})
    assert set(rtp.analyse(rules)) == {"player", "banker-no-commission", "tie", "player-pair", "banker-pair", "big"}


def test_the_representative_of_a_natural_is_a_two_card_coup() -> None:
    naturals = [c for c in rtp.coup_distribution() if c.key[4:] == (2, 2) and max(c.key[2:4]) >= 8]
    assert naturals and all(isinstance(c.coup, Coup) and len(c.coup.player) == 2 for c in naturals)
    assert sum(c.weight for c in naturals) == rtp.outcome_probabilities()["natural"] * rtp.TOTAL_WEIGHT
