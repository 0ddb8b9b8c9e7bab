"""The basic strategy lookup (croupier.strategy) and its agreement with the exact analysis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croupier import strategy
from croupier.cards import ALL_CARDS, BLACKJACK_VALUE, rank
from croupier.errors import CardError
from croupier.rtp import blackjack as bj
from croupier.rules import BlackjackRules, load_rules

ALL = frozenset({"hit", "stand", "double", "split", "surrender"})
FIRST = frozenset({"hit", "stand", "double", "split"})  # surrender only where the engine offers it


def rules(game: str, **overrides: object) -> BlackjackRules:
    loaded = load_rules(game, dict(overrides))
    assert isinstance(loaded, BlackjackRules)
    return loaded


DELUXE = rules("deluxe-blackjack")
CLASSIC = rules("blackjack")


def act(table: BlackjackRules, cards: str, up: str, legal: frozenset[str] = ALL, split_hand: bool = False) -> str:
    """``act(DELUXE, "TS 6H", "KD")``."""
    return strategy.basic_action(table, cards.split(), up, legal, split_hand)


@pytest.mark.parametrize("table", [DELUXE, CLASSIC], ids=["deluxe", "classic"])
def test_spot_checks_both_tables(table: BlackjackRules) -> None:
    assert act(table, "TS 6H", "KD") == "hit"  # 16 vs 10, two cards (no surrender against a ten)
    assert act(table, "9S 7H", "QC") == "hit"
    assert act(table, "TS 6H", "9D") == "surrender"  # 16 vs 9: late surrender
    assert act(table, "5S 6H", "6D") == "double"  # 11 vs 6
    assert act(table, "TS KH", "6D") == "stand"  # 10,10: stand, never split
    assert act(table, "TS KH", "AD") == "stand"
    for up in ("2C", "6C", "7C", "9C"):
        assert act(table, "AS AH", up) == "split"
        assert act(table, "8S 8H", up) == "split"
    assert act(table, "9S 9H", "7D") == "stand" and act(table, "9S 9H", "8D") == "split"
    assert act(table, "AS 7H", "2D") == "stand" and act(table, "AS 7H", "6D") == "double"
    assert act(table, "AS 7H", "9D") == "hit"
    assert act(table, "TS 2H", "3D") == "hit" and act(table, "TS 2H", "4D") == "stand"
    assert act(table, "5S 5H", "9D") == "double" and act(table, "5S 5H", "TD") == "hit"


def test_peek_table_against_ten_and_ace() -> None:
    assert act(DELUXE, "8S 8H", "TD") == "split"
    assert act(DELUXE, "8S 8H", "AD") == "split"
    assert act(DELUXE, "AS AH", "AD") == "split"
    assert act(DELUXE, "6S 5H", "TD") == "double"  # 11 vs 10 (S17, 8 decks, peek)
    assert act(DELUXE, "6S 5H", "AD") == "hit"  # 11 vs ace: hit with 8 decks, S17


def test_no_hole_card_table_against_ten_and_ace() -> None:
    """Dealer BJ takes doubles and splits: do not invest more against a ten or an ace."""
    assert act(CLASSIC, "8S 8H", "TD") == "hit"
    assert act(CLASSIC, "8S 8H", "AD") == "hit"
    assert act(CLASSIC, "AS AH", "AD") == "hit"
    assert act(CLASSIC, "6S 5H", "TD") == "hit"
    # with "original bet only" the classic table plays the peek strategy
    original = rules("blackjack", dealer_bj_takes="original")
    assert act(original, "8S 8H", "TD") == "split" and act(original, "6S 5H", "TD") == "double"


def test_three_or_more_cards_are_total_dependent() -> None:
    assert act(DELUXE, "TS 6H", "KD") == "hit"
    assert act(DELUXE, "TS 3H 3C", "KD") == "stand"  # 16 vs 10 with three cards
    assert act(DELUXE, "5S 4H 3C 4D", "KD") == "stand"
    assert act(DELUXE, "TS 2H 4C", "7D") == "hit"
    assert act(DELUXE, "AS 2H 4C", "9D") == "hit"  # soft 17
    assert act(DELUXE, "AS 2H 5C", "8D") == "stand" and act(DELUXE, "AS 2H 5C", "9D") == "hit"  # soft 18
    assert act(DELUXE, "4S 2H 5C", "6D", frozenset({"hit", "stand"})) == "hit"  # 11, no double
    assert act(DELUXE, "TS 5H 6C", "6D") == "stand"  # 21 stands


def test_split_hands() -> None:
    assert act(DELUXE, "AS KD", "6D", frozenset({"hit", "stand"}), split_hand=True) == "stand"  # split aces
    assert act(DELUXE, "8S 3D", "6D", FIRST - {"split"}, split_hand=True) == "double"  # double after split
    no_das = rules("deluxe-blackjack", double_after_split=False)
    assert act(no_das, "8S 3D", "6D", frozenset({"hit", "stand"}), split_hand=True) == "hit"
    assert "double" not in strategy.ranking(no_das, ["8S", "3D"], "6D", split_hand=True)
    # the other split ten is gone: 12 vs 4 hits as a split hand, stands as a first hand
    assert act(DELUXE, "TS 2D", "4D", split_hand=True) == "hit"
    assert act(DELUXE, "TS 2D", "4D") == "stand"


def test_illegal_options_fall_back_to_the_next_best() -> None:
    hit_stand = frozenset({"hit", "stand"})
    assert act(DELUXE, "5S 6H", "6D", hit_stand) == "hit"  # 11 vs 6, double refused
    assert act(DELUXE, "AS 7H", "4D", hit_stand) == "stand"  # soft 18 vs 4: double, else stand
    assert act(DELUXE, "AS 6H", "4D", hit_stand) == "hit"  # soft 17 vs 4: double, else hit
    assert act(DELUXE, "8S 8H", "TD", hit_stand) == "hit"  # split refused
    assert act(DELUXE, "TS 6H", "9D", FIRST) == "hit"  # surrender not offered
    assert act(DELUXE, "AS AH", "7D", FIRST - {"split"}) == "hit"  # soft 12
    assert act(DELUXE, "AS AH", "6D", FIRST - {"split"}) == "double"  # soft 12 vs 6: double is next
    assert act(DELUXE, "TS 6H", "9D", frozenset({"stand", "timeout"})) == "stand"
    with pytest.raises(ValueError, match="no basic-strategy action"):
        act(DELUXE, "TS 6H", "9D", frozenset({"timeout"}))


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="at least two cards"):
        act(DELUXE, "TS", "9D")
    with pytest.raises(CardError):
        act(DELUXE, "TS 1H", "9D")


def test_never_insure() -> None:
    assert strategy.take_insurance(DELUXE, ["AS", "KD"]) is False
    assert strategy.take_insurance(CLASSIC) is False


@pytest.mark.parametrize("game", ["deluxe-blackjack", "blackjack"])
def test_written_tables_are_the_analysis(game: str) -> None:
    """The written tables are exactly what the analysis derives today."""
    derived = strategy.lookup_from_analysis(bj.analyse(rules(game)).strategy)
    assert strategy.render(derived) == strategy.WRITTEN[game].lstrip("\n")
    assert strategy.parse(strategy.WRITTEN[game]) == derived
    assert strategy.strategy_for(rules(game)) == derived


@pytest.mark.parametrize("game", ["deluxe-blackjack", "blackjack"])
def test_first_option_is_the_best(game: str) -> None:
    table = bj.analyse(rules(game)).strategy
    for key, ranked in table.two_card.items():
        values = [value for _name, value in ranked]
        assert values == sorted(values, reverse=True), key
        up = key[2]
        names = {name for name, _ in ranked}
        assert ("surrender" in names) == (up not in (1, 10)), key
        assert ("split" in names) == (key[0] == key[1]), key


def test_every_reachable_total_has_an_entry() -> None:
    for game in ("deluxe-blackjack", "blackjack"):
        lookup = strategy.strategy_for(rules(game))
        for up in range(1, 11):
            for total in range(6, 21):
                assert (total, False, up) in lookup.multi_card, (game, total, up)
            for total in range(13, 21):
                assert (total, True, up) in lookup.multi_card, (game, "soft", total, up)


legal_sets = st.sets(st.sampled_from(sorted(ALL)), min_size=1).map(lambda s: frozenset(s | {"stand"}))


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.sampled_from(ALL_CARDS), min_size=2, max_size=6),
    up=st.sampled_from(ALL_CARDS),
    legal=legal_sets,
    split_hand=st.booleans(),
    classic=st.booleans(),
)
def test_always_a_legal_action(cards: list[str], up: str, legal: frozenset[str], split_hand: bool,
                               classic: bool) -> None:
    table = CLASSIC if classic else DELUXE
    action = strategy.basic_action(table, cards, up, legal, split_hand)
    assert action in legal and action in strategy.ACTIONS
    hard = sum(BLACKJACK_VALUE[rank(c)] for c in cards)
    if hard >= 21 or (hard == 11 and any(rank(c) == "A" for c in cards)):
        assert action == "stand"  # 21 (or bust) stands
