"""Baccarat and No-Commission Baccarat (baccarat.md): one test per rule, the engine vocabulary, and a
property test over shuffled 8-deck shoes that checks every round against a reference written from
the spec, and that its transcript replays to the same settlement (replay.md)."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.errors import BetRefused, CardError, IllegalAction, IncompleteRound, UnexpectedCard
from croupier.games import new_round
from croupier.games.baccarat import BaccaratRound, points
from croupier.games.base import Action, Bet, CardFor, RoundEngine, Settle, Settlement
from croupier.rules import BaccaratRules, SideBet, load_rules
from croupier.transcript import Transcript, replay

# --- the spec, written down independently of the engine --------------------------------------

# baccarat.md "Cards and scores": Ace = 1; 2 to 9 face value; 10, J, Q, K = 0.
SPEC_VALUE = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 0, "J": 0, "Q": 0, "K": 0}

# baccarat.md tableau, row by row: Banker's two-card score -> (draws when the Player's third card
# is ..., stands when it is ...).
SPEC_TABLEAU: dict[int, tuple[set[int], set[int]]] = {
    0: (set(range(10)), set()),
    1: (set(range(10)), set()),
    2: (set(range(10)), set()),
    3: ({0, 1, 2, 3, 4, 5, 6, 7, 9}, {8}),
    4: ({2, 3, 4, 5, 6, 7}, {0, 1, 8, 9}),
    5: ({4, 5, 6, 7}, {0, 1, 2, 3, 8, 9}),
    6: ({6, 7}, {0, 1, 2, 3, 4, 5, 8, 9}),
    7: (set(), set(range(10))),
}

# Ranks by point value, for building hands: value 0 uses every 10-value rank in turn.
ZERO_RANKS = "TJQK"


def card_of(value: int, suit: str = "C") -> str:
    """A card of the given baccarat point value (0 -> a ten)."""
    rank = "T" if value == 0 else "A" if value == 1 else str(value)
    return rank + suit


def two_cards(score: int, suit: str) -> tuple[str, str]:
    """Two cards scoring ``score``, no pair (so pair bets stay out of the way)."""
    if score == 0:
        return ("K" + suit, "Q" + suit)
    return (card_of(score, suit), "T" + suit)


def pb(player: tuple[str, str], banker: tuple[str, str], *more: str) -> list[str]:
    """Cards in dealing order P, B, P, B (then any third cards)."""
    return [player[0], banker[0], player[1], banker[1], *more]


def engine(bets: list[Bet] | None = None, rules: BaccaratRules | None = None, round_in_shoe: int = 1) -> BaccaratRound:
    return BaccaratRound(rules or BaccaratRules(), bets or [], round_in_shoe=round_in_shoe)


def play(cards: list[str], bets: list[Bet] | None = None, rules: BaccaratRules | None = None) -> Settlement:
    """Deal exactly ``cards``; the round must then wait for nothing but settlement."""
    eng = engine(bets, rules)
    for card in cards:
        assert isinstance(eng.expected, CardFor), f"no card expected before {card}"
        eng.deal(card)
    assert isinstance(eng.expected, Settle)
    return eng.settle()


def net(cards: list[str], bet: Bet, rules: BaccaratRules | None = None) -> tuple[str, int]:
    res = play(cards, [bet], rules).bets[0]
    return res.outcome, res.net


def bet(kind: str, amount: int = 1000, mode: str | None = None, bet_id: str = "b1", player: str = "p1") -> Bet:
    return Bet(bet_id, player, kind, amount, mode=mode)


def baccarat_rules(**overrides: Any) -> BaccaratRules:
    rules = load_rules("baccarat", overrides)
    assert isinstance(rules, BaccaratRules)
    return rules


# Hands used by the payout tests (each checked against the spec in its own test below).
PLAYER_NATURAL_9 = ["4S", "2H", "5D", "3C"]  # P 4+5=9, B 2+3=5: natural, Player wins, 4 cards
BANKER_7_STANDS = ["2S", "4H", "4D", "3C"]  # P 6 stands, B 7 stands: Banker wins with 7, 4 cards
BANKER_SIX_TWO_CARDS = ["TS", "3H", "5D", "3C", "TH"]  # P 5 draws a 0 -> 5; B 6 stands on a 0: Banker 6-5, 5 cards
BANKER_SIX_THREE_CARDS = ["TS", "TH", "4D", "2C", "AH", "4S"]  # P 4 draws A -> 5; B 2 draws 4 -> 6: Banker 6-5
TIE_SEVENS = ["4S", "2H", "3D", "5C"]  # P 7, B 7: both stand, tie, 4 cards
TIE_SIXES = ["TS", "TH", "6D", "6C"]  # P 6, B 6: both stand, tie (banker score 6)


# --- dealing -----------------------------------------------------------------------------------


def test_dealing_order_is_player_banker_player_banker() -> None:
    eng = engine()
    seen = []
    for card in ["2S", "3H", "4D", "5C"]:
        seen.append(eng.expected)
        eng.deal(card)
    assert seen == [CardFor("player"), CardFor("banker"), CardFor("player"), CardFor("banker")]
    assert eng.view() == {
        "player": {"cards": ["2S", "4D"], "points": 6},
        "banker": {"cards": ["3H", "5C"], "points": 8},
    }


@pytest.mark.parametrize(
    ("player", "banker"),
    [(8, 0), (9, 0), (0, 8), (0, 9), (5, 8), (8, 5), (9, 8), (8, 9), (8, 8), (9, 9), (6, 9), (9, 7)],
)
def test_natural_8_or_9_on_either_hand_both_stand(player: int, banker: int) -> None:
    eng = engine()
    for card in pb(two_cards(player, "S"), two_cards(banker, "H")):
        eng.deal(card)
    # Without the natural rule a Player on 0-5 or a Banker on 0-5 would draw.
    assert eng.expected == Settle()
    with pytest.raises(UnexpectedCard):
        eng.deal("2D")


@pytest.mark.parametrize("player", range(8))
def test_player_draws_on_0_to_5_and_stands_on_6_7(player: int) -> None:
    eng = engine()
    for card in pb(two_cards(player, "S"), two_cards(7, "H")):  # Banker 7 never draws
        eng.deal(card)
    if player <= 5:
        assert eng.expected == CardFor("player")
        eng.deal("2D")
        assert eng.expected == Settle()  # the Banker on 7 stands whatever the third card
    else:
        assert eng.expected == Settle()


@pytest.mark.parametrize("player", [6, 7])
@pytest.mark.parametrize("banker", range(8))
def test_banker_when_player_stood_draws_on_0_to_5_stands_on_6_7(player: int, banker: int) -> None:
    eng = engine()
    for card in pb(two_cards(player, "S"), two_cards(banker, "H")):
        eng.deal(card)
    if banker <= 5:
        assert eng.expected == CardFor("banker")
        eng.deal("9D")
        assert eng.expected == Settle()
    else:
        assert eng.expected == Settle()


def test_the_spec_tableau_rows_as_transcribed_cover_every_third_card_once() -> None:
    for draws, stands in SPEC_TABLEAU.values():
        assert draws | stands == set(range(10)) and not draws & stands


@pytest.mark.parametrize("third", range(10))
@pytest.mark.parametrize("banker", range(8))
def test_banker_tableau_when_player_drew(banker: int, third: int) -> None:
    draws = third in SPEC_TABLEAU[banker][0]
    # A 10, J, Q or K is a third card of 0: try each of them.
    for third_card in [r + "D" for r in ZERO_RANKS] if third == 0 else [card_of(third, "D")]:
        eng = engine()
        for card in pb(("2S", "3S"), two_cards(banker, "H"), third_card):  # Player 5 drew
            eng.deal(card)
        assert eng.expected == (CardFor("banker") if draws else Settle()), (banker, third_card)
        if draws:
            eng.deal("9C")
            assert eng.expected == Settle()
            assert len(eng.banker) == 3


# --- scores --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", list(SPEC_VALUE))
def test_card_values_ace_1_two_to_nine_face_ten_and_pictures_0(rank: str) -> None:
    assert points([rank + "S"]) == SPEC_VALUE[rank]
    assert points([rank + "H", "9S"]) == (SPEC_VALUE[rank] + 9) % 10
    # Through a round: Player rank + 9S against a Banker K-Q (0); the engine reports the same score.
    player = (rank + "H", "9S")
    eng = engine()
    for card in pb(player, ("KC", "QC")):
        eng.deal(card)
    assert eng.view()["player"]["points"] == (SPEC_VALUE[rank] + 9) % 10


def test_score_is_the_sum_modulo_10() -> None:
    assert points(["8S", "9H"]) == 7
    assert points(["KS", "QH", "TD"]) == 0
    assert points(["9S", "9H", "9D"]) == 7
    assert points(["AS", "9H"]) == 0
    # 8 + 9 = 17 scores 7: it beats a Banker 6 (both stand on two cards).
    res = play(pb(("8S", "9H"), ("3D", "3C")))
    assert res.hands["player"]["points"] == 7 and res.hands["winner"] == "player"


def test_closer_to_9_wins_and_equal_scores_tie() -> None:
    assert play(PLAYER_NATURAL_9).hands["winner"] == "player"
    assert play(BANKER_7_STANDS).hands["winner"] == "banker"
    assert play(TIE_SEVENS).hands["winner"] == "tie"


# --- payouts -------------------------------------------------------------------------------------


def test_player_bet_pays_1_to_1_and_loses_its_stake() -> None:
    assert net(PLAYER_NATURAL_9, bet("player", 1000)) == ("win", 1000)
    assert net(BANKER_7_STANDS, bet("player", 1000)) == ("lose", -1000)


@pytest.mark.parametrize("cards", [TIE_SEVENS, TIE_SIXES])
@pytest.mark.parametrize(("kind", "mode"), [("player", None), ("banker", "commission"), ("banker", "no-commission")])
def test_tie_pushes_player_and_banker_bets(cards: list[str], kind: str, mode: str | None) -> None:
    res = play(cards, [bet(kind, 1001, mode)]).bets[0]
    assert (res.outcome, res.net, res.staked, res.paid) == ("push", 0, 1001, 1001)


@pytest.mark.parametrize(("stake", "expected"), [(1000, 950), (1001, 950), (20, 19), (100_000, 95_000), (39, 37)])
def test_commission_banker_pays_0_95_to_1_rounded_down(stake: int, expected: int) -> None:
    # Exactly stake * 19/20, then the payout is rounded down (common.md): 1001 -> 950.95 -> 950.
    rules = baccarat_rules(limits={"banker": {"min": 1, "max": 1_000_000}})
    assert expected == (stake * 19) // 20
    res = play(BANKER_7_STANDS, [bet("banker", stake, "commission")], rules).bets[0]
    assert (res.outcome, res.net) == ("win", expected)
    assert res.paid == stake + expected
    assert res.exact_net == Fraction(stake * 19, 20)


def test_banker_bet_without_a_mode_is_a_commission_bet() -> None:
    assert net(BANKER_7_STANDS, bet("banker", 1001)) == ("win", 950)
    assert net(PLAYER_NATURAL_9, bet("banker", 1001)) == ("lose", -1001)


def test_no_commission_banker_pays_1_to_1_on_a_win_other_than_six() -> None:
    assert net(BANKER_7_STANDS, bet("banker", 1001, "no-commission")) == ("win", 1001)
    assert net(PLAYER_NATURAL_9, bet("banker", 1001, "no-commission")) == ("lose", -1001)


@pytest.mark.parametrize("cards", [BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS])
def test_no_commission_banker_pays_1_to_2_on_a_winning_six(cards: list[str]) -> None:
    hands = play(cards).hands
    assert hands["winner"] == "banker" and hands["banker"]["points"] == 6
    assert net(cards, bet("banker", 1000, "no-commission")) == ("win", 500)
    assert net(cards, bet("banker", 1001, "no-commission")) == ("win", 500)  # 500.5 rounded down
    # The commission mode pays its usual 0.95 on a six.
    assert net(cards, bet("banker", 1000, "commission")) == ("win", 950)


def test_tie_bet_pays_8_to_1_and_loses_otherwise() -> None:
    assert net(TIE_SEVENS, bet("tie", 1000)) == ("win", 8000)
    assert net(PLAYER_NATURAL_9, bet("tie", 1000)) == ("lose", -1000)
    assert net(BANKER_7_STANDS, bet("tie", 1000)) == ("lose", -1000)


def test_player_pair_and_banker_pair_pay_11_to_1_on_a_pair_of_the_same_rank() -> None:
    # Player 4S 4D (8, natural) vs Banker KH QC (0): a Player pair; K-Q is not a pair.
    cards = pb(("4S", "4D"), ("KH", "QC"))
    assert net(cards, bet("player-pair", 1000)) == ("win", 11_000)
    assert net(cards, bet("banker-pair", 1000)) == ("lose", -1000)
    # Player TS KS (0) vs Banker 9H 9C (8): a ten and a king are not a pair, two nines are.
    cards = pb(("TS", "KS"), ("9H", "9C"))
    assert net(cards, bet("player-pair", 1000)) == ("lose", -1000)
    assert net(cards, bet("banker-pair", 1000)) == ("win", 11_000)
    # The very same card twice (8 decks) is a pair too.
    assert net(pb(("4S", "4S"), ("KH", "QC")), bet("player-pair", 100)) == ("win", 1100)


def test_pairs_count_only_the_first_two_cards() -> None:
    # Player 2S 3D (5) draws 3H: its cards hold two threes, but the first two are no pair.
    cards = pb(("2S", "3D"), ("TH", "7C"), "3H")
    assert net(cards, bet("player-pair", 1000)) == ("lose", -1000)
    # Player 2S 3D (5) draws 4H; Banker 5H 5C (0) always draws, 9D: its first two cards are a pair.
    cards = pb(("2S", "3D"), ("5H", "5C"), "4H", "9D")
    assert net(cards, bet("banker-pair", 1000)) == ("win", 11_000)


def test_lucky_6_pays_12_to_1_with_two_cards_and_20_to_1_with_three() -> None:
    assert net(BANKER_SIX_TWO_CARDS, bet("lucky-6", 1000)) == ("win", 12_000)
    assert net(BANKER_SIX_THREE_CARDS, bet("lucky-6", 1000)) == ("win", 20_000)
    # It needs the Banker to WIN with 6: a tie on six, a Banker 7 or a Player win lose.
    assert net(TIE_SIXES, bet("lucky-6", 1000)) == ("lose", -1000)
    assert net(BANKER_7_STANDS, bet("lucky-6", 1000)) == ("lose", -1000)
    assert net(PLAYER_NATURAL_9, bet("lucky-6", 1000)) == ("lose", -1000)


def test_big_wins_on_5_or_6_cards_small_on_exactly_4() -> None:
    four, five, six = BANKER_7_STANDS, BANKER_SIX_TWO_CARDS, BANKER_SIX_THREE_CARDS
    assert (len(four), len(five), len(six)) == (4, 5, 6)
    # Big 0.54:1 (1001 -> 540.54 -> 540), Small 1.5:1 (1001 -> 1501.5 -> 1501).
    assert net(four, bet("big", 1001)) == ("lose", -1001)
    assert net(five, bet("big", 1001)) == ("win", 540)
    assert net(six, bet("big", 1001)) == ("win", 540)
    assert net(four, bet("small", 1001)) == ("win", 1501)
    assert net(five, bet("small", 1001)) == ("lose", -1001)
    assert net(six, bet("small", 1001)) == ("lose", -1001)
    # A tie on four cards is still Small.
    assert net(TIE_SEVENS, bet("small", 1000)) == ("win", 1500)


def test_paytable_is_table_configuration() -> None:
    rules = baccarat_rules(payouts={"tie": "9:1", "player_pair": "25:1"}, side_bets={"small": {"pays": "2:1"}})
    assert net(TIE_SEVENS, bet("tie", 1000), rules) == ("win", 9000)
    assert net(pb(("4S", "4D"), ("KH", "QC")), bet("player-pair", 100), rules) == ("win", 2500)
    assert net(TIE_SEVENS, bet("small", 1000), rules) == ("win", 2000)


# --- bets a table refuses --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["big", "small"])
def test_side_bet_past_its_max_round_is_refused(kind: str) -> None:
    engine([bet(kind)], round_in_shoe=60)  # round 60 is the last in which Big and Small are offered
    with pytest.raises(BetRefused) as err:
        engine([bet(kind)], round_in_shoe=61)
    assert err.value.reason == "max-round"
    assert kind in str(err.value) and "60" in str(err.value) and "61" in str(err.value)


def test_bets_without_a_round_limit_are_offered_in_every_round() -> None:
    bets = [bet(k, bet_id=k) for k in ("player", "banker", "tie", "player-pair", "banker-pair", "lucky-6")]
    assert engine(bets, round_in_shoe=500).bets == tuple(bets)


def test_max_round_is_table_configuration() -> None:
    rules = baccarat_rules(side_bets={"lucky-6": {"max_round": 3}, "big": {"max_round": None}})
    engine([bet("lucky-6")], rules, round_in_shoe=3)
    with pytest.raises(BetRefused, match="lucky-6"):
        engine([bet("lucky-6")], rules, round_in_shoe=4)
    engine([bet("big")], rules, round_in_shoe=1000)


def test_banker_limit_caps_banker_total_over_player_total() -> None:
    rules = baccarat_rules(banker_limit=1000)
    engine([bet("banker", 1000)], rules)
    with pytest.raises(BetRefused) as err:
        engine([bet("banker", 1001)], rules)
    assert err.value.reason == "banker-limit"
    # A Player bet raises the allowed Banker bet by the same amount.
    engine([bet("player", 500, bet_id="p"), bet("banker", 1500, bet_id="b")], rules)
    with pytest.raises(BetRefused, match="banker limit"):
        engine([bet("player", 500, bet_id="p"), bet("banker", 1501, bet_id="b")], rules)
    # Two Banker bets of one player add up.
    with pytest.raises(BetRefused):
        engine([bet("banker", 600, bet_id="b1"), bet("banker", 600, "no-commission", bet_id="b2")], rules)


def test_player_limit_caps_player_total_over_banker_total() -> None:
    rules = baccarat_rules(player_limit=2000)
    engine([bet("player", 2000)], rules)
    with pytest.raises(BetRefused) as err:
        engine([bet("player", 2001)], rules)
    assert err.value.reason == "player-limit"
    engine([bet("banker", 300, bet_id="b"), bet("player", 2300, bet_id="p")], rules)
    with pytest.raises(BetRefused, match="player limit"):
        engine([bet("banker", 300, bet_id="b"), bet("player", 2301, bet_id="p")], rules)


def test_player_banker_limit_is_per_player_and_ignores_other_bets() -> None:
    rules = baccarat_rules(player_limit=1000, banker_limit=1000)
    # p2's Banker bet does not cover p1's Player bet.
    with pytest.raises(BetRefused, match="p1"):
        engine([bet("banker", 5000, bet_id="x", player="p2"), bet("player", 5000, bet_id="y", player="p1"),
                bet("player", 4000, bet_id="z", player="p2")], rules)
    # A tie or side bet is not part of either total.
    engine([bet("tie", 50_000, bet_id="t"), bet("player", 1000, bet_id="p"), bet("lucky-6", 5000, bet_id="l")],
           rules)


def test_player_banker_limit_comes_on_top_of_the_table_limits() -> None:
    rules = baccarat_rules(banker_limit=10_000_000, limits={"banker": {"max": 5000}})
    with pytest.raises(BetRefused) as err:
        engine([bet("banker", 5001)], rules)
    assert err.value.reason == "table-limit"


def test_default_table_has_no_player_banker_limit() -> None:
    engine([bet("banker", 1_000_000, bet_id="b"), bet("tie", 100, bet_id="t")])


@pytest.mark.parametrize("kind", ["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small"])
def test_table_limits_min_and_max_per_bet_type(kind: str) -> None:
    rules = baccarat_rules(limits={kind: {"min": 500, "max": 2000}})
    engine([bet(kind, 500)], rules)
    engine([bet(kind, 2000)], rules)
    for amount in (499, 2001):
        with pytest.raises(BetRefused) as err:
            engine([bet(kind, amount)], rules)
        assert err.value.reason == "table-limit"
        assert str(amount) in str(err.value) and "500" in str(err.value) and "2000" in str(err.value)


@pytest.mark.parametrize("amount", [0, -100])
def test_amount_must_be_positive(amount: int) -> None:
    with pytest.raises(BetRefused, match="amount"):
        engine([bet("player", amount)], baccarat_rules(limits={"player": {"min": 1, "max": 10}}))


@pytest.mark.parametrize("kind", ["player", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small"])
@pytest.mark.parametrize("mode", ["commission", "no-commission"])
def test_mode_only_on_a_banker_bet(kind: str, mode: str) -> None:
    with pytest.raises(BetRefused, match="only a banker bet carries a mode"):
        engine([bet(kind, mode=mode)])
    engine([bet("banker", mode=mode)])


def test_table_offering_one_mode_refuses_the_other() -> None:
    rules = baccarat_rules(modes=["commission"])
    engine([bet("banker", mode="commission")], rules)
    engine([bet("banker")], rules)
    with pytest.raises(BetRefused) as err:
        engine([bet("banker", mode="no-commission")], rules)
    assert err.value.reason == "bad-mode" and "no-commission" in str(err.value)
    only_nc = baccarat_rules(modes=["no-commission"])
    with pytest.raises(BetRefused):
        engine([bet("banker")], only_nc)  # no mode means commission


def test_unknown_bet_type_is_refused_naming_it() -> None:
    for kind in ("dragon", "seat", "player-1", "Player", ""):
        with pytest.raises(BetRefused) as err:
            engine([bet(kind)])
        assert err.value.reason == "unknown-bet-type"
        assert repr(kind) in str(err.value)


def test_side_bet_the_table_does_not_offer_is_refused() -> None:
    rules = BaccaratRules(side_bets={"big": SideBet(pays=Fraction(27, 50))})
    engine([bet("big")], rules)
    with pytest.raises(BetRefused, match="lucky-6"):
        engine([bet("lucky-6")], rules)


def test_baccarat_bets_take_no_seat_and_ids_are_unique() -> None:
    with pytest.raises(BetRefused, match="seat"):
        engine([Bet("b1", "p1", "player", 1000, seat=1)])
    with pytest.raises(BetRefused, match="b1"):
        engine([bet("player"), bet("banker")])


# --- the engine vocabulary -------------------------------------------------------------------


def test_engine_speaks_the_round_engine_vocabulary() -> None:
    eng = new_round("baccarat", [bet("player")])
    assert isinstance(eng, BaccaratRound) and isinstance(eng, RoundEngine)
    assert eng.game == "baccarat"
    expectations = []
    for card in BANKER_SIX_THREE_CARDS:
        expectations.append(eng.expected)
        eng.deal(card)
    assert expectations == [CardFor("player"), CardFor("banker"), CardFor("player"), CardFor("banker"),
                            CardFor("player"), CardFor("banker")]
    assert eng.expected == Settle()
    assert eng.log == BANKER_SIX_THREE_CARDS
    assert [b.id for b in eng.settle().bets] == ["b1"]


def test_a_card_after_the_round_is_complete_raises_unexpected_card() -> None:
    eng = engine()
    for card in PLAYER_NATURAL_9:
        eng.deal(card)
    with pytest.raises(UnexpectedCard):
        eng.deal("2C")
    assert eng.log == PLAYER_NATURAL_9  # the refused card changed nothing
    assert eng.expected == Settle()


def test_act_and_close_window_raise_illegal_action() -> None:
    eng = engine([bet("player")])
    with pytest.raises(IllegalAction):
        eng.act(Action(1, "hit"))
    with pytest.raises(IllegalAction):
        eng.close_window()
    assert eng.expected == CardFor("player")


def test_settle_before_the_round_is_complete_names_the_waiting_hand() -> None:
    eng = engine([bet("player")])
    for card in ["2S", "3H", "4D"]:
        eng.deal(card)
    with pytest.raises(IncompleteRound, match="banker"):
        eng.settle()
    eng.deal("4C")  # P 6, B 7: both stand
    eng.settle()


def test_a_bad_card_code_raises_and_changes_nothing() -> None:
    eng = engine()
    for code in ("10S", "1S", "as", "AX", ""):
        with pytest.raises(CardError):
            eng.deal(code)
    assert eng.log == [] and eng.expected == CardFor("player")


# --- property: random shoes ------------------------------------------------------------------

# baccarat.md paytable: the largest win of each bet type, per unit staked.
MAX_RATIO = {
    "player": Fraction(1), "banker": Fraction(1), "tie": Fraction(8), "player-pair": Fraction(11),
    "banker-pair": Fraction(11), "lucky-6": Fraction(20), "big": Fraction(54, 100), "small": Fraction(3, 2),
}
SHOE = [r + s for r in SPEC_VALUE for s in "SHDC"] * 8


def spec_score(cards: list[str]) -> int:
    return sum(SPEC_VALUE[c[0]] for c in cards) % 10


def spec_coup(shoe: list[str]) -> tuple[list[str], list[str]]:
    """Deal one round from the front of ``shoe`` by the rules of baccarat.md (consumes the cards)."""
    p1, b1, p2, b2 = shoe.pop(), shoe.pop(), shoe.pop(), shoe.pop()
    player, banker = [p1, p2], [b1, b2]
    player_score, banker_score = spec_score(player), spec_score(banker)
    if player_score >= 8 or banker_score >= 8:
        return player, banker
    third = None
    if player_score <= 5:
        player.append(shoe.pop())
        third = SPEC_VALUE[player[2][0]]
    if (banker_score <= 5) if third is None else (third in SPEC_TABLEAU[banker_score][0]):
        banker.append(shoe.pop())
    return player, banker


def spec_net(b: Bet, player: list[str], banker: list[str]) -> int:
    """What the bet does to its player's balance, by the paytable of baccarat.md, rounded down."""
    p, k = spec_score(player), spec_score(banker)
    winner = "player" if p > k else "banker" if k > p else "tie"
    stake = b.amount
    ratio: Fraction | None  # None: the stake is returned (push); otherwise a win at this ratio
    if b.type in ("player", "banker"):
        if winner == "tie":
            return 0
        if winner != b.type:
            return -stake
        if b.type == "player":
            ratio = Fraction(1)
        elif b.mode == "no-commission":
            ratio = Fraction(1, 2) if k == 6 else Fraction(1)
        else:
            ratio = Fraction(95, 100)
    elif b.type == "tie":
        ratio = Fraction(8) if winner == "tie" else None
    elif b.type in ("player-pair", "banker-pair"):
        hand = player if b.type == "player-pair" else banker
        ratio = Fraction(11) if hand[0][0] == hand[1][0] else None
    elif b.type == "lucky-6":
        ratio = (Fraction(12) if len(banker) == 2 else Fraction(20)) if winner == "banker" and k == 6 else None
    elif b.type == "big":
        ratio = Fraction(54, 100) if len(player) + len(banker) >= 5 else None
    else:
        ratio = Fraction(3, 2) if len(player) + len(banker) == 4 else None
    if ratio is None:
        return -stake
    won = stake * ratio
    return won.numerator // won.denominator


bet_strategy = st.builds(
    lambda kind, amount, mode, player: (kind, amount, mode if kind == "banker" else None, player),
    st.sampled_from(list(MAX_RATIO)),
    st.integers(100, 50_000),
    st.sampled_from([None, "commission", "no-commission"]),
    st.sampled_from(["p1", "p2", "p3"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    round_specs=st.lists(st.tuples(st.integers(1, 80), st.lists(bet_strategy, max_size=8)), min_size=1, max_size=12),
)
def test_random_shoes_settle_like_the_spec_and_replay_identically(
    seed: int, round_specs: list[tuple[int, list[tuple[str, int, str | None, str]]]]
) -> None:
    shoe = list(SHOE)
    random.Random(seed).shuffle(shoe)
    reference = list(reversed(shoe))  # spec_coup pops from the end: the same order as dealt
    for round_in_shoe, specs in round_specs:
        bets = [
            Bet(f"b{i}", player, kind, amount, mode=mode)
            for i, (kind, amount, mode, player) in enumerate(specs)
            if not (kind in ("big", "small") and round_in_shoe > 60)
        ]
        eng = new_round("baccarat", bets, round_in_shoe=round_in_shoe)
        dealt = 0
        while isinstance(eng.expected, CardFor):
            eng.deal(shoe[dealt])
            dealt += 1
        assert 4 <= dealt <= 6
        shoe = shoe[dealt:]
        settlement = eng.settle()
        player, banker = spec_coup(reference)
        assert settlement.hands["player"]["cards"] == player
        assert settlement.hands["banker"]["cards"] == banker
        assert dealt == len(player) + len(banker)
        # Every bet settled exactly once, in input order, within the paytable, and as the spec says.
        assert [r.id for r in settlement.bets] == [b.id for b in bets]
        for b, res in zip(bets, settlement.bets, strict=True):
            assert -b.amount <= res.net <= b.amount * MAX_RATIO[b.type]
            assert res.net == spec_net(b, player, banker), (b, player, banker)
            assert res.staked == b.amount and res.paid == b.amount + res.net
        again = replay(Transcript.of(eng))
        assert again.to_dict(full=True) == settlement.to_dict(full=True)
