"""Pok Deng (pok-deng.md): scores, patterns, ranking, every payout rule, the round engine."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import pytest

from croupier.cards import ALL_CARDS
from croupier.errors import BetRefused, CardError, IllegalAction, IncompleteRound, UnexpectedCard
from croupier.games import new_round
from croupier.games.base import Action, Bet, CardFor, Settle
from croupier.games.pokdeng import (
    BET_TYPES,
    HAND_NAMES,
    PokDengHands,
    PokDengRound,
    hand_info,
    hand_rank,
    pattern,
    points,
    reservation,
    settle_bet,
    special_combination,
)
from croupier.rules import SPECIAL_COMBINATIONS, PokDengRules, load_rules
from croupier.transcript import Transcript, replay

PLAIN = PokDengRules(special_combinations=())
"""No special combinations: only pairs and flushes are special patterns."""
DEFAULT = PokDengRules()
"""The spec's five special combinations."""


def rules_with(*combos: str | dict[str, Any], **overrides: Any) -> PokDengRules:
    rules = load_rules("pok-deng", {"special_combinations": list(combos), **overrides})
    assert isinstance(rules, PokDengRules)
    return rules


def hands(player: str, banker: str, n: int = 1) -> PokDengHands:
    """Hand ``n`` is ``player`` (``"7S 5H"``), the other player hands a dull 2-3 offsuit."""
    dull = ("2C", "3D")
    players = [dull] * 5
    players[n - 1] = tuple(player.split())  # type: ignore[call-overload]
    return PokDengHands(tuple(players), tuple(banker.split()))  # type: ignore[arg-type]


def player_bet(amount: int = 1000, n: int = 1) -> Bet:
    return Bet("b1", "p1", f"player-{n}", amount)


def pair_bet(amount: int = 1000, n: int = 1) -> Bet:
    return Bet("b2", "p1", f"player-{n}-pair", amount)


def settle(player: str, banker: str, rules: PokDengRules = PLAIN, bet: Bet | None = None) -> tuple[str, int, int, int]:
    res = settle_bet(rules, hands(player, banker), bet or player_bet())
    return res.outcome, res.net, res.staked, res.paid


# --- cards and scores ------------------------------------------------------------------------


def test_points_are_the_sum_modulo_ten_with_ten_and_pictures_zero() -> None:
    assert points(["8S", "7H"]) == 5
    assert points(["TS", "KH"]) == 0
    assert points(["AS", "9H"]) == 0
    assert points(["AS", "8H"]) == 9
    assert points(["QS", "7D"]) == 7


def test_pattern_pair_flush_or_none() -> None:
    assert pattern(PLAIN, ["7S", "7H"]) == "pair"
    assert pattern(PLAIN, ["7S", "2S"]) == "flush"
    assert pattern(PLAIN, ["7S", "2H"]) is None


def test_pattern_names_the_combination_first_then_pair_then_flush() -> None:
    # Two identical cards from an 8-deck shoe: a pair and a flush -> "pair".
    assert pattern(PLAIN, ["7S", "7S"]) == "pair"
    assert pattern(DEFAULT, ["7S", "7S"]) == "pair"  # 4 points, no combination
    # K-K is a pair and court cards: the combination ranks it, so it names it.
    assert pattern(DEFAULT, ["KS", "KH"]) == "court-cards"
    assert pattern(PLAIN, ["KS", "KH"]) == "pair"
    # A-K suited is a flush and a lion flush.
    assert pattern(DEFAULT, ["AS", "KS"]) == "lion-flush"
    assert pattern(DEFAULT, ["AS", "KH"]) is None


def test_the_default_is_the_five_combinations_of_the_spec() -> None:
    assert [c.name for c in DEFAULT.special_combinations] == [
        "lion-flush", "special-pair", "court-cards", "ten-and-court", "flush-worth-0"]
    assert PLAIN.special_combinations == ()
    assert all(special_combination(PLAIN, [a, b]) is None for a, b in [("JS", "QH"), ("AS", "KS"), ("TS", "KD")])


@pytest.mark.parametrize(
    ("combo", "yes", "no"),
    [
        ("lion-flush", [("AS", "KS"), ("KD", "AD")], [("AS", "KH"), ("AS", "QS"), ("AS", "AS")]),
        ("special-pair", [("AS", "AH"), ("5D", "5C"), ("6S", "6S"), ("TH", "TD")],
         [("2S", "2H"), ("9S", "9H"), ("JS", "JH"), ("AS", "5H")]),
        ("court-cards", [("JS", "QH"), ("KD", "KC"), ("QS", "KS"), ("JH", "JH")], [("TS", "JH"), ("9S", "KH")]),
        ("ten-and-court", [("TS", "JH"), ("KD", "TC"), ("TS", "QS")], [("TS", "TH"), ("9S", "TH"), ("AS", "TH")]),
        ("flush-worth-0", [("AS", "9S"), ("2H", "8H"), ("7D", "3D"), ("4C", "6C")],
         [("AS", "9H"), ("TS", "KS"), ("2S", "7S"), ("4H", "6D")]),
    ],
)
def test_each_special_combination(combo: str, yes: list[tuple[str, str]], no: list[tuple[str, str]]) -> None:
    # Alone on the table, so no higher combination takes the hand first.
    rules = rules_with(combo)
    for cards in yes:
        assert special_combination(rules, cards) == combo, cards
        assert points(cards) < 8
    for cards in no:
        assert special_combination(rules, cards) is None, cards


def test_a_hand_that_fits_several_takes_the_highest() -> None:
    # 5-5 of one suit is a special pair and a flush worth 0; J-J a pair and court cards.
    assert special_combination(DEFAULT, ["5S", "5S"]) == "special-pair"
    assert special_combination(rules_with("flush-worth-0", "special-pair"), ["5S", "5S"]) == "flush-worth-0"
    # Special pair ranks above flush worth 0: stake 1000 reserves 2000; 2:1 win, paid 4000, net +2000.
    assert settle("5S 5S", "4H 6H", DEFAULT) == ("win", 2000, 2000, 4000)
    # With the order reversed the same two hands are both flush worth 0: a push.
    assert settle("5S 5S", "4H 6H", rules_with("flush-worth-0", "special-pair")) == ("push", 0, 2000, 2000)


def test_the_order_of_hands() -> None:
    order = [["9S", "KH"], ["8S", "KH"], ["AS", "KS"], ["AS", "AH"], ["JS", "QH"], ["TS", "KH"], ["4S", "6S"],
             ["7S", "KH"], ["6S", "KH"], ["5S", "KH"], ["4S", "KH"], ["3S", "KH"], ["2S", "KH"], ["AS", "KH"],
             ["4S", "6H"]]
    ranks = [hand_rank(DEFAULT, cards) for cards in order]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) == len(ranks)
    assert hand_rank(PLAIN, ["JS", "QH"]) == hand_rank(PLAIN, ["TS", "KH"])  # no combinations: a plain 0


@pytest.mark.parametrize("combo", ["special-pair", "court-cards", "ten-and-court", "flush-worth-0"])
def test_a_table_may_drop_any_combination(combo: str) -> None:
    kept = [c for c in SPECIAL_COMBINATIONS if c != combo]
    rules = rules_with(*kept)
    assert [c.name for c in rules.special_combinations] == kept
    example = {"special-pair": ["6S", "6H"], "court-cards": ["JS", "QH"], "ten-and-court": ["TS", "QH"],
               "flush-worth-0": ["3S", "7S"]}[combo]
    assert special_combination(DEFAULT, example) == combo
    assert special_combination(rules, example) is None


def test_hand_table_agrees_with_the_pure_functions_for_every_two_card_hand() -> None:
    for rules in (PLAIN, DEFAULT, rules_with("court-cards", "lion-flush")):
        for a, b in itertools.product(ALL_CARDS, repeat=2):
            info = hand_info(rules, [a, b])
            assert info.points == points([a, b])
            assert info.pattern == pattern(rules, [a, b])
            assert info.rank == hand_rank(rules, [a, b])
            assert info.combination == special_combination(rules, [a, b])
            assert info.zero_or_six == (info.combination is None and info.points in (0, 6))


# --- the five combinations, settled: stake 1000, so every Player bet reserves 2000 -----------
# (paid = 2000 + net: a 1:1 win pays 3000, 2:1 4000, a push 2000, a 1x loss 1000, a 2x loss 0)


@pytest.mark.parametrize(
    ("player", "combo"),
    [("AS KS", "lion-flush"), ("5S 5H", "special-pair"), ("JS QH", "court-cards"), ("TS QH", "ten-and-court"),
     ("4S 6S", "flush-worth-0")],
)
def test_each_combination_beats_seven_and_wins_two_to_one(player: str, combo: str) -> None:
    # The combination ranks above the Banker's plain 7 (7D KC: not a flush, pair or combination,
    # so no exception); the hand is a special pattern: 2:1, net +2000.
    assert special_combination(DEFAULT, player.split()) == combo
    assert settle(player, "7D KC", DEFAULT) == ("win", 2000, 2000, 4000)
    # The Banker holding it against a Player 7: the Banker wins with a special pattern, lose 2x.
    assert settle("7D KC", player, DEFAULT) == ("lose", -2000, 2000, 0)


@pytest.mark.parametrize("player", ["AS KS", "5S 5H", "JS QH", "TS QH", "4S 6S"])
def test_each_combination_loses_to_eight(player: str) -> None:
    # A plain 8 ranks above every combination: the Banker's 8 is no special pattern, lose 1x (-1000).
    assert settle(player, "8D KC", DEFAULT) == ("lose", -1000, 2000, 1000)
    # A flush 8 is a special pattern: lose 2x (-2000).
    assert settle(player, "8D KD", DEFAULT) == ("lose", -2000, 2000, 0)
    # The other way round: a Player plain 8 beats the Banker's combination; 8D KC is no special
    # pattern, so 1:1 (+1000); the combination is no "0 points", but that does not matter here.
    assert settle("8D KC", player, DEFAULT) == ("win", 1000, 2000, 3000)


def test_without_its_combination_the_hand_ranks_by_its_points() -> None:
    # No combinations: A-K suited is a flush worth 1; against a plain 7 it loses 1x (-1000).
    assert settle("AS KS", "7D KC", PLAIN) == ("lose", -1000, 2000, 1000)
    # J-Q offsuit is a plain 0 and loses to a 7.
    assert settle("JS QH", "7D KC", PLAIN) == ("lose", -1000, 2000, 1000)


def test_a_combination_against_a_higher_combination() -> None:
    # Lion flush (1st) against court cards (3rd): the Player wins with a special pattern, 2:1 (+2000).
    assert settle("AS KS", "JD QC", DEFAULT) == ("win", 2000, 2000, 4000)
    # Ten and court (4th) against a special pair (2nd): the Banker wins with one, lose 2x (-2000).
    assert settle("TD JC", "AH AD", DEFAULT) == ("lose", -2000, 2000, 0)
    # Flush worth 0 (5th) against ten and court (4th): lose 2x (-2000).
    assert settle("3H 7H", "TC KD", DEFAULT) == ("lose", -2000, 2000, 0)
    # Special pair (2nd) against flush worth 0 (5th): win 2:1 (+2000).
    assert settle("6S 6H", "2D 8D", DEFAULT) == ("win", 2000, 2000, 4000)


def test_the_same_combination_on_both_sides_pushes() -> None:
    # Court cards both (K-K is a pair too, and the suits differ): a push, the 2000 comes back.
    assert settle("JS QH", "KD KC", DEFAULT) == ("push", 0, 2000, 2000)
    # Flush worth 0 both, different points sums and suits: a push.
    assert settle("4S 6S", "AH 9H", DEFAULT) == ("push", 0, 2000, 2000)
    # Special pair both: aces against tens.
    assert settle("AS AH", "TD TC", DEFAULT) == ("push", 0, 2000, 2000)


def test_a_banker_combination_worth_0_is_not_the_0_of_exception_two() -> None:
    # Lion flush against the Banker's court cards (their cards add up to 0): exception 2 would pay
    # 1:1, but a combination ranks above 7, never as 0 points: 2:1 (+2000).
    assert settle("AS KS", "JD QC", DEFAULT) == ("win", 2000, 2000, 4000)
    # The same against ten and court and against flush worth 0: 2:1.
    assert settle("AS KS", "TD QC", DEFAULT) == ("win", 2000, 2000, 4000)
    assert settle("AS KS", "4D 6D", DEFAULT) == ("win", 2000, 2000, 4000)
    # Against a plain 0 (4-6 offsuit, no combination) exception 2 holds: 1:1 (+1000).
    assert settle("AS KS", "4D 6C", DEFAULT) == ("win", 1000, 2000, 3000)
    # Against a Banker pair 6 that is no special pair (3-3 ranks as 6): 1:1 (+1000).
    assert settle("AS KS", "3D 3C", DEFAULT) == ("win", 1000, 2000, 3000)
    # Without the combinations the Banker's J-Q is a plain 0: 1:1 for a flush 7 (+1000).
    assert settle("7S KS", "JD QC", PLAIN) == ("win", 1000, 2000, 3000)


def test_eight_or_nine_with_a_pair_or_flush_against_a_combination() -> None:
    # 9-9 is a pair worth 8: it ranks above the lion flush and exception 1 pays 2:1 (+2000).
    assert settle("9S 9H", "AD KD", DEFAULT) == ("win", 2000, 2000, 4000)
    # 4-4 is a pair worth 8, against court cards: 2:1.
    assert settle("4S 4H", "JD QC", DEFAULT) == ("win", 2000, 2000, 4000)
    # A flush 9 against a special pair: 2:1.
    assert settle("4S 5S", "AD AC", DEFAULT) == ("win", 2000, 2000, 4000)
    # A plain 8 against a lion flush: no special pattern, 1:1 (+1000).
    assert settle("8S KH", "AD KD", DEFAULT) == ("win", 1000, 2000, 3000)
    # The Banker's pair worth 8 against the Player's court cards: lose 2x (-2000).
    assert settle("JS QH", "4D 4C", DEFAULT) == ("lose", -2000, 2000, 0)


def test_the_bet_says_which_combination_decided_it() -> None:
    def why(player: str, banker: str, bet: Bet | None = None) -> tuple[str, str | None]:
        res = settle_bet(DEFAULT, hands(player, banker), bet or player_bet())
        return res.detail["reason"], res.detail.get("decided_by")

    assert why("JS QH", "7D KC") == ("won 2:1: court cards", "court-cards")
    assert why("7D KC", "AS KS") == ("lost 2x: the Banker's lion flush", "lion-flush")
    assert why("JS QH", "KD KC") == ("push: court cards each", "court-cards")
    assert why("AS KS", "4D 6C") == (
        "won 1:1: lion flush against the Banker's 0 (a Banker 0 or 6 pays a special pattern 1:1)", "lion-flush")
    assert why("9S 9H", "AD KD") == ("won 2:1: 8 with a pair", None)
    assert why("8S KH", "AD KD") == ("won 1:1: 8 against the Banker's lion flush", None)
    assert why("4D 2C", "7S KH") == ("lost 1x: 6 against the Banker's 7", None)
    assert why("4D 2C", "3S 3H") == ("push: 6 each", None)
    assert why("4D 2C", "3S 4S") == ("lost 2x: the Banker's flush (7)", None)
    assert why("6S 6H", "7D KC") == ("won 2:1: special pair", "special-pair")
    assert why("KS KH", "4D 2C", pair_bet()) == ("won 11:1: a pair", None)
    assert settle_bet(DEFAULT, hands("KS KH", "4D 2C"), pair_bet()).net == 11000  # court cards, still a pair


# --- Player N payouts ------------------------------------------------------------------------


def test_player_win_pays_one_to_one_and_returns_the_reservation() -> None:
    assert settle("7S KH", "4D AC") == ("win", 1000, 2000, 3000)


def test_player_win_with_flush_pays_two_to_one() -> None:
    assert settle("7S KS", "4D AC") == ("win", 2000, 2000, 4000)


def test_player_win_with_pair_pays_two_to_one() -> None:
    assert settle("2S 2H", "AD 2C") == ("win", 2000, 2000, 4000)  # 4 against 3


def test_exception_one_eight_or_nine_flush_or_pair_always_pays_two_to_one() -> None:
    assert settle("4S 5S", "3D 3C") == ("win", 2000, 2000, 4000)  # flush 9 against Banker pair 6
    assert settle("9S 9H", "TD KC") == ("win", 2000, 2000, 4000)  # pair 8 against Banker 0
    assert settle("8S KS", "5D AC") == ("win", 2000, 2000, 4000)  # flush 8 against Banker 6
    assert settle("8S KS", "5D AC", DEFAULT) == ("win", 2000, 2000, 4000)


def test_banker_wins_player_loses_one_times() -> None:
    assert settle("4D 2C", "7S KH") == ("lose", -1000, 2000, 1000)


def test_banker_wins_with_special_pattern_player_loses_two_times() -> None:
    assert settle("4D 2C", "7S KS") == ("lose", -2000, 2000, 0)  # Banker flush 7
    assert settle("4D 2C", "9S 9H") == ("lose", -2000, 2000, 0)  # Banker pair 8


def test_equal_points_push() -> None:
    assert settle("7S KH", "5D 2C") == ("push", 0, 2000, 2000)
    assert settle("7S KS", "5D 2C") == ("push", 0, 2000, 2000)  # a flush does not break the tie


def test_exception_two_banker_zero_or_six() -> None:
    # Flush 7 against a Banker 6 and a Banker 0: 1:1, not 2:1.
    assert settle("7S KS", "5D AC") == ("win", 1000, 2000, 3000)
    assert settle("7S KS", "TD KC") == ("win", 1000, 2000, 3000)
    # The same flush 7 against a Banker 5: 2:1.
    assert settle("7S KS", "4D AC") == ("win", 2000, 2000, 4000)


def test_player_win_rounds_down_with_exact_net_recorded() -> None:
    rules = rules_with(payouts={"win": "3:2"})
    res = settle_bet(rules, hands("7S KH", "4D AC"), player_bet(1001))
    assert (res.staked, res.paid, res.net) == (2002, 2002 + 1501, 1501)
    assert res.exact_net == Fraction(3003, 2)


def test_reservation_is_configurable_and_drives_staked_and_paid() -> None:
    rules = rules_with(reservation=3)
    assert settle("4D 2C", "7S KS", rules) == ("lose", -2000, 3000, 1000)
    assert reservation(rules, "player-2", 1000) == 3000
    assert reservation(rules, "player-2-pair", 1000) == 1000


def test_player_bet_settles_against_its_own_hand() -> None:
    h = hands("7S KH", "4D AC", n=4)  # hand 4 wins, the others (2-3, 5 points) tie the Banker's 5
    assert settle_bet(PLAIN, h, player_bet(n=4)).outcome == "win"
    assert settle_bet(PLAIN, h, player_bet(n=1)).outcome == "push"


# --- Pair bets -------------------------------------------------------------------------------


def test_pair_bet_pays_eleven_to_one_on_a_pair_and_reserves_only_its_stake() -> None:
    assert settle("9S 9H", "4D 2C", bet=pair_bet()) == ("win", 11000, 1000, 12000)


def test_pair_bet_wins_even_when_the_hand_loses() -> None:
    assert settle("2S 2H", "9D KC", bet=pair_bet())[:2] == ("win", 11000)


def test_pair_bet_loses_its_stake_without_a_pair() -> None:
    assert settle("7S KS", "4D 2C", bet=pair_bet()) == ("lose", -1000, 1000, 0)


def test_pair_bet_needs_same_rank_not_same_value() -> None:
    assert settle("TS KH", "4D 2C", bet=pair_bet())[0] == "lose"


def test_settle_bet_rejects_bad_cards() -> None:
    bad = PokDengHands((("7S", "XX"),) * 5, ("4D", "2C"))
    with pytest.raises(CardError, match="XX"):
        settle_bet(PLAIN, bad, player_bet())


# --- the round engine ------------------------------------------------------------------------

CARDS = ["AS", "2S", "3S", "4S", "5S", "6S", "AH", "2H", "3H", "4H", "5H", "6H"]


def dealt(bets: list[Bet], cards: list[str] = CARDS, rules: PokDengRules = PLAIN) -> PokDengRound:
    rnd = PokDengRound(rules, bets)
    for card in cards:
        rnd.deal(card)
    return rnd


def test_dealing_order_hands_one_to_five_then_banker_twice() -> None:
    rnd = PokDengRound(PLAIN, [])
    seen = []
    for card in CARDS:
        expected = rnd.expected
        assert isinstance(expected, CardFor)
        seen.append(expected.hand)
        rnd.deal(card)
    assert seen == list(HAND_NAMES) * 2
    assert isinstance(rnd.expected, Settle)
    h = rnd.hands()
    assert h.players[0] == ("AS", "AH") and h.players[4] == ("5S", "5H") and h.banker == ("6S", "6H")


def test_all_five_hands_are_dealt_without_bets() -> None:
    rnd = PokDengRound(PLAIN, [Bet("b", "p", "player-2", 1000)])
    for card in CARDS[:11]:
        rnd.deal(card)
    with pytest.raises(IncompleteRound, match="banker"):
        rnd.settle()
    rnd.deal(CARDS[11])
    assert len(rnd.settle().bets) == 1


def test_incomplete_round_names_the_waiting_hand() -> None:
    rnd = PokDengRound(PLAIN, [])
    for card in CARDS[:8]:
        rnd.deal(card)
    with pytest.raises(IncompleteRound, match="hand-3"):
        rnd.settle()


def test_a_thirteenth_card_is_refused() -> None:
    rnd = dealt([])
    with pytest.raises(UnexpectedCard):
        rnd.deal("7D")
    assert len(rnd.log) == 12


def test_a_bad_card_code_is_rejected_and_changes_nothing() -> None:
    rnd = PokDengRound(PLAIN, [])
    for bad in ("10S", "7X", "ZS", 7):
        with pytest.raises(CardError):
            rnd.deal(bad)  # type: ignore[arg-type]
    assert rnd.log == [] and rnd.expected == CardFor("hand-1", face_up=False)


def test_no_decisions_and_no_windows() -> None:
    rnd = dealt([])
    with pytest.raises(IllegalAction):
        rnd.act(Action(1, "hit"))
    with pytest.raises(IllegalAction):
        rnd.close_window()


def test_engine_settles_every_bet_like_settle_bet_and_the_roadmap_says_why() -> None:
    rng = random.Random(7)
    shoe = [c for c in ALL_CARDS for _ in range(8)]
    for rules in (PLAIN, DEFAULT):
        for _ in range(200):
            cards = rng.sample(shoe, 12)
            bets = [Bet(f"b{i}", "p", t, rng.randint(1, 50) * 100) for i, t in enumerate(BET_TYPES)]
            rnd = dealt(bets, cards, rules)
            settlement = rnd.settle()
            for bet, res in zip(bets, settlement.bets, strict=True):
                assert res == settle_bet(rules, rnd.hands(), bet)
                assert res.net == res.paid - res.staked
            for n in range(1, 6):
                entry = settlement.hands[f"hand-{n}"]
                assert entry["cards"] == [cards[n - 1], cards[n + 5]]
                assert entry["points"] == points(entry["cards"])
                assert entry["pattern"] == pattern(rules, entry["cards"])
                outcome = settlement.by_id()[f"b{n - 1}"].outcome
                assert entry["result"] == outcome


def test_roadmap_entry_per_hand() -> None:
    cards = ["7S", "2C", "9S", "JD", "4H", "5D", "KS", "3H", "9H", "QC", "AH", "AC"]
    rnd = dealt([], cards, DEFAULT)
    road = rnd.settle().hands
    # a flush 7 against the Banker's 6: exception 2, 1:1
    assert road["hand-1"] == {"cards": ["7S", "KS"], "points": 7, "pattern": "flush", "combination": None,
                              "result": "win", "decided_by": None,
                              "reason": "won 1:1: 7 against the Banker's 6"
                                        " (a Banker 0 or 6 pays a special pattern 1:1)"}
    assert road["hand-2"]["result"] == "lose" and road["hand-2"]["points"] == 5
    assert road["hand-3"]["pattern"] == "pair" and road["hand-3"]["points"] == 8
    assert road["hand-4"]["pattern"] == "court-cards" and road["hand-4"]["result"] == "win"
    assert road["hand-4"]["combination"] == "court-cards" and road["hand-4"]["points"] == 0
    assert road["hand-4"]["decided_by"] == "court-cards"
    assert road["hand-4"]["reason"] == ("won 1:1: court cards against the Banker's 6"
                                        " (a Banker 0 or 6 pays a special pattern 1:1)")
    assert road["hand-5"]["result"] == "lose"
    assert road["banker"] == {"cards": ["5D", "AC"], "points": 6, "pattern": None, "combination": None}


def test_view_hides_cards_until_the_deal_is_complete() -> None:
    rnd = PokDengRound(PLAIN, [])
    for card in CARDS[:7]:
        rnd.deal(card)
    assert rnd.view()["hand-1"] == {"cards": ["??", "??"]}
    assert rnd.view(reveal_hidden=True)["hand-1"]["cards"] == ["AS", "AH"]
    for card in CARDS[7:]:
        rnd.deal(card)
    assert rnd.view()["banker"]["cards"] == ["6S", "6H"] and rnd.view()["complete"] is True


# --- bet validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bet", "reason"),
    [
        (Bet("b", "p", "player-6", 1000), "unknown-bet-type"),
        (Bet("b", "p", "banker", 1000), "unknown-bet-type"),
        (Bet("b", "p", "player-1", 0), "bad-amount"),
        (Bet("b", "p", "player-1", True), "bad-amount"),
        (Bet("b", "p", "player-1", 99), "table-limit"),
        (Bet("b", "p", "player-1", 500_001), "table-limit"),
        (Bet("b", "p", "player-1-pair", 50_001), "table-limit"),
        (Bet("b", "p", "player-1", 1000, seat=1), "bad-bet"),
        (Bet("b", "p", "player-1", 1000, mode="commission"), "bad-bet"),
    ],
)
def test_invalid_bets_are_refused(bet: Bet, reason: str) -> None:
    with pytest.raises(BetRefused) as err:
        PokDengRound(PLAIN, [bet])
    assert err.value.reason == reason


def test_duplicate_bet_ids_are_refused() -> None:
    with pytest.raises(BetRefused) as err:
        PokDengRound(PLAIN, [Bet("b", "p", "player-1", 1000), Bet("b", "q", "player-2", 1000)])
    assert err.value.reason == "duplicate-bet-id"


def test_limits_come_from_the_rules() -> None:
    rules = rules_with(limits={"player-1": {"min": 5, "max": 10}})
    PokDengRound(rules, [Bet("b", "p", "player-1", 5)])
    with pytest.raises(BetRefused):
        PokDengRound(rules, [Bet("b", "p", "player-1", 11)])


# --- registry and replay ---------------------------------------------------------------------


def test_registry_builds_a_pok_deng_round() -> None:
    rnd = new_round("pok-deng", [Bet("b", "p", "player-1", 1000)])
    assert isinstance(rnd, PokDengRound) and rnd.game == "pok-deng"


def test_replay_of_a_pok_deng_transcript() -> None:
    transcript = Transcript.parse({
        "game": "pok-deng",
        "bets": [
            {"id": "lose2x", "player": "p1", "type": "player-1", "amount": 1000},
            {"id": "win", "player": "p1", "type": "player-2", "amount": 1000},
            {"id": "pair", "player": "p2", "type": "player-2-pair", "amount": 100},
        ],
        # hand 1: 2C 3D = 5; hand 2: 9S 9H = pair 8; Banker 7S KS = flush 7.
        "cards": ["2C", "9S", "AD", "AC", "AH", "7S", "3D", "9H", "2D", "2H", "3C", "KS"],
    })
    result = {b.id: (b.outcome, b.net) for b in replay(transcript).bets}
    assert result == {"lose2x": ("lose", -2000), "win": ("win", 2000), "pair": ("win", 1100)}


# --- special combinations as table rules -----------------------------------------------------


def test_a_combination_written_out_is_a_rule_over_ranks_and_suits() -> None:
    rules = rules_with({"name": "black-sevens", "ranks": ["7", "K"], "same_suit": True}, "court-cards")
    assert special_combination(rules, ["7S", "KS"]) == "black-sevens"
    assert special_combination(rules, ["KD", "7D"]) == "black-sevens"
    assert special_combination(rules, ["7S", "KH"]) is None
    # 7-K suited (7 points) now ranks above a plain 7 and above court cards: 2:1 (+2000)
    assert settle("7S KS", "JD QC", rules) == ("win", 2000, 2000, 4000)


@pytest.mark.parametrize(
    ("combos", "needle"),
    [
        ([{"name": "four-four", "ranks": ["4", "4"]}], "fits 4-4, a hand of 8 or 9 points"),
        (["court-cards", "court-cards"], "distinct names"),
        ([{"name": "bad", "ranks": ["Z", "4"]}], "ranks 'Z'"),
        ([{"name": "Court Cards", "ranks": ["J", "Q"]}], "special_combinations.0.name"),
        (["two-pictures"], "now lion-flush, special-pair, court-cards, ten-and-court, flush-worth-0"),
        (["three-kings"], "unknown special combination 'three-kings'"),
    ],
)
def test_bad_special_combinations_are_refused_clearly(combos: list[Any], needle: str) -> None:
    from croupier.errors import RulesError

    with pytest.raises(RulesError, match="special_combinations") as err:
        load_rules("pok-deng", {"special_combinations": combos})
    assert needle in str(err.value)
