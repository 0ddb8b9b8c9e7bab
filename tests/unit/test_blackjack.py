"""The blackjack engine against every rule and Decision of blackjack.md (both tables) and the
action semantics of replay.md."""

from __future__ import annotations

import json
import pickle
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from croupier.errors import BetRefused, CardError, IllegalAction, IncompleteRound, RulesError, UnexpectedCard
from croupier.games import new_round
from croupier.games.base import (
    Action,
    Bet,
    BetResult,
    CardFor,
    DecisionFor,
    FollowWindow,
    InsuranceWindow,
    RoundEngine,
    Settle,
)
from croupier.games.blackjack import (
    BlackjackRound,
    FinalRound,
    dealer_must_hit,
    hand_outcome,
    hand_value,
    is_blackjack,
    pair_grade,
    settle_bet,
)
from croupier.rules import BlackjackRules, load_rules
from croupier.transcript import Transcript, replay

D = "deluxe-blackjack"
C = "blackjack"


# --- helpers ---------------------------------------------------------------------------------


def rules(game: str = D, **overrides: Any) -> BlackjackRules:
    loaded = load_rules(game, overrides)
    assert isinstance(loaded, BlackjackRules)
    return loaded


def seat(n: int, amount: int = 1000, player: str | None = None, bet_id: str | None = None) -> Bet:
    return Bet(bet_id or f"s{n}", player or f"p{n}", "seat", amount, n)


def behind(n: int, player: str, amount: int = 500, bet_id: str | None = None) -> Bet:
    return Bet(bet_id or f"b{n}{player}", player, "behind", amount, n)


def pair(n: int, player: str, amount: int = 100, bet_id: str | None = None) -> Bet:
    return Bet(bet_id or f"pr{n}{player}", player, "pair", amount, n)


def new(game: str, bets: list[Bet], balances: dict[str, int] | None = None, **overrides: Any) -> BlackjackRound:
    return BlackjackRound(rules(game, **overrides), bets, balances=balances)


def feed(eng: BlackjackRound, *steps: str) -> BlackjackRound:
    """Steps: a card ("TD"), a seated action ("1:hit", "1:double/1"), a bet-behind answer
    ("p2@1:follow-split"), or "close" (a window runs out)."""
    for step in steps:
        if step == "close":
            eng.close_window()
        elif ":" in step:
            who, name = step.split(":")
            hand = None
            if "/" in name:
                name, h = name.split("/")
                hand = int(h)
            if "@" in who:
                player, number = who.split("@")
                eng.act(Action(int(number), name, player, hand))
            else:
                eng.act(Action(int(who), name, None, hand))
        else:
            eng.deal(step)
    return eng


def results(eng: BlackjackRound) -> dict[str, BetResult]:
    assert isinstance(eng.expected, Settle), eng.expected
    return eng.settle().by_id()


def net(eng: BlackjackRound) -> dict[str, tuple[str, int]]:
    return {k: (v.outcome, v.net) for k, v in results(eng).items()}


def decision(eng: BlackjackRound) -> DecisionFor:
    expected = eng.expected
    assert isinstance(expected, DecisionFor), expected
    return expected


# --- the engine speaks the protocol ----------------------------------------------------------


def test_engine_satisfies_round_engine_protocol_and_registry() -> None:
    eng = new_round(D, [seat(1)])
    assert isinstance(eng, BlackjackRound)
    assert isinstance(eng, RoundEngine)
    assert eng.game == "deluxe-blackjack"
    assert new_round(C, [seat(1)]).game == "blackjack"
    assert BlackjackRound.game == "deluxe-blackjack"


def test_engine_refuses_rules_of_another_game() -> None:
    with pytest.raises(RulesError):
        BlackjackRound(load_rules("baccarat"), [seat(1)])  # type: ignore[arg-type]


# --- cards and scores ------------------------------------------------------------------------


def test_ace_counts_eleven_unless_that_busts() -> None:
    assert hand_value(["AS", "6H"]) == (17, True)
    assert hand_value(["AS", "6H", "9C"]) == (16, False)
    assert hand_value(["AS", "AD"]) == (12, True)
    assert hand_value(["AS", "AD", "9C"]) == (21, True)


def test_face_cards_count_ten_and_over_21_is_bust() -> None:
    assert hand_value(["KS", "QH"]) == (20, False)
    assert hand_value(["JS", "TH", "2D"]) == (22, False)


def test_blackjack_is_ace_and_ten_value_as_first_two_cards() -> None:
    assert is_blackjack(["AS", "KD"])
    assert is_blackjack(["TC", "AH"])
    assert not is_blackjack(["7S", "7D", "7C"])
    assert not is_blackjack(["AS", "KD"], split=True)


def test_blackjack_beats_a_three_card_21() -> None:
    # seat 1 BJ; seat 2 plays on; the dealer 9+5 draws a 7: a three-card 21
    eng = feed(new(D, [seat(1), seat(2)]), "AS", "TC", "9H", "KD", "8C", "5D", "2:stand", "7S")
    assert eng.settle().hands["dealer"]["score"] == 21
    assert net(eng) == {"s1": ("blackjack", 1500), "s2": ("lose", -1000)}


def test_split_hand_with_ace_and_ten_is_a_plain_21_never_blackjack() -> None:
    eng = feed(new(D, [seat(1)]), "AS", "9H", "AD", "TC", "1:split", "KC", "5H")
    # the dealer's 19 stands; the split 21 wins 1:1, not 3:2
    assert eng.settle().hands["seat-1"]["bj"] is False
    res = results(eng)["s1"]
    assert res.detail["hands"][0] == {"hand": "seat-1", "outcome": "win", "stake": 1000}
    assert res.net == 0  # +1000 on A+K, -1000 on A+5 (16 against 19)


# --- seats and bets --------------------------------------------------------------------------


def test_deluxe_player_may_occupy_two_seats_not_three() -> None:
    new(D, [seat(1, player="p"), seat(2, player="p")])
    with pytest.raises(BetRefused, match="at most 2 seats"):
        new(D, [seat(1, player="p"), seat(2, player="p"), seat(3, player="p")])


def test_classic_player_may_occupy_one_seat_only() -> None:
    with pytest.raises(BetRefused, match="at most one seat") as info:
        new(C, [seat(1, player="p"), seat(2, player="p")])
    assert info.value.reason == "too-many-seats"


def test_one_seat_bet_per_seat() -> None:
    with pytest.raises(BetRefused, match="seat 3 already has a seat bet"):
        new(D, [seat(3, bet_id="x"), seat(3, player="q", bet_id="y")])


def test_seat_numbers_run_from_one_to_the_tables_seats() -> None:
    for bad in (0, 8):
        with pytest.raises(BetRefused, match="seat from 1 to 7"):
            new(D, [seat(bad)])
    with pytest.raises(BetRefused, match="seat from 1 to 5"):
        new(D, [seat(6)], seats=5)
    with pytest.raises(BetRefused, match="needs a seat"):
        new(D, [Bet("x", "p", "behind", 500)])


def test_deluxe_same_amount_on_each_of_a_players_seats() -> None:
    with pytest.raises(BetRefused, match="same amount") as info:
        new(D, [seat(1, 1000, "p"), seat(2, 2000, "p")])
    assert info.value.reason == "mirror-seat-bets"
    new(D, [seat(1, 1000, "p"), seat(2, 1000, "p")])


def test_bet_basics_limits_types_ids_and_mode() -> None:
    with pytest.raises(BetRefused, match="outside the table limits"):
        new(D, [seat(1, 50)])
    with pytest.raises(BetRefused, match="outside the table limits"):
        new(D, [seat(1), pair(1, "q", 60_000)])
    with pytest.raises(BetRefused, match="unknown bet type"):
        new(D, [Bet("x", "p", "tie", 100, 1)])
    with pytest.raises(BetRefused, match="appears twice"):
        new(D, [seat(1, bet_id="x"), seat(2, bet_id="x")])
    with pytest.raises(BetRefused, match="no mode"):
        new(D, [Bet("x", "p", "seat", 1000, 1, "commission")])


def test_deluxe_seated_player_may_bet_behind_another_seat() -> None:
    eng = new(D, [seat(1, player="p"), seat(2, player="q"), behind(2, "p")])
    assert [b.id for b in eng.bets] == ["s1", "s2", "b2p"]


def test_deluxe_seated_player_may_never_bet_behind_own_seat() -> None:
    with pytest.raises(BetRefused, match="own seat 1") as info:
        new(D, [seat(1, player="p"), behind(1, "p")])
    assert info.value.reason == "behind-own-seat"


def test_classic_seated_player_may_not_bet_behind_anyone() -> None:
    with pytest.raises(BetRefused, match="may not bet behind"):
        new(C, [seat(1, player="p"), seat(2, player="q"), behind(2, "p")])
    new(C, [seat(1, player="p"), seat(2, player="q"), behind(2, "r")])


def test_one_behind_bet_per_player_and_seat() -> None:
    with pytest.raises(BetRefused, match="already bets behind seat 1"):
        new(D, [seat(1), behind(1, "q", bet_id="x"), behind(1, "q", bet_id="y")])


def test_classic_pair_bet_only_by_seated_player_or_a_player_betting_behind() -> None:
    new(C, [seat(1, player="p"), pair(1, "p"), behind(1, "q"), pair(1, "q")])
    with pytest.raises(BetRefused, match="only for the player seated there") as info:
        new(C, [seat(1, player="p"), pair(1, "r")])
    assert info.value.reason == "pair-not-allowed"


def test_deluxe_anyone_may_place_pair_bets_on_any_occupied_seat() -> None:
    eng = new(D, [seat(1, player="p"), seat(2, player="q"), pair(1, "r"), pair(2, "r"), pair(2, "p")])
    assert len(eng.bets) == 5


def test_bets_on_a_seat_without_seat_bet_are_refunded() -> None:
    bets = [seat(1), behind(4, "q"), pair(4, "r"), behind(1, "q")]
    eng = feed(new(D, bets), "TS", "9H", "8D", "7C", "1:stand", "4C")
    res = results(eng)
    for bet_id in ("b4q", "pr4r"):
        assert (res[bet_id].outcome, res[bet_id].net, res[bet_id].staked) == ("refund", 0, res[bet_id].paid)
    assert "seat-4" not in eng.settle().hands
    assert (res["s1"].net, res["b1q"].net) == (-1000, -500)  # 18 against the dealer's 9 + 7 + 4


def test_no_dealt_seat_expects_no_card_and_refunds_every_bet() -> None:
    eng = new(D, [behind(2, "q"), pair(3, "r")])
    assert isinstance(eng.expected, Settle)
    with pytest.raises(UnexpectedCard):
        eng.deal("AS")
    assert net(eng) == {"b2q": ("refund", 0), "pr3r": ("refund", 0)}


def test_validate_false_skips_the_table_rule_checks() -> None:
    bets = [seat(1, player="p"), seat(2, player="p"), seat(3, player="p")]
    with pytest.raises(BetRefused):
        BlackjackRound(rules(C), bets)
    eng = BlackjackRound(rules(C), bets, validate=False)
    assert eng.expected == CardFor("seat-1")


# --- dealing ---------------------------------------------------------------------------------


def _cards_expected(eng: BlackjackRound, cards: list[str]) -> list[CardFor]:
    seen = []
    for card in cards:
        expected = eng.expected
        assert isinstance(expected, CardFor)
        seen.append(expected)
        eng.deal(card)
    return seen


def test_deluxe_dealing_order_with_face_down_hole_card() -> None:
    eng = new(D, [seat(5), seat(2)])
    seen = _cards_expected(eng, ["9S", "8S", "5H", "9D", "8D", "QC"])
    assert seen == [CardFor("seat-2"), CardFor("seat-5"), CardFor("dealer"), CardFor("seat-2"), CardFor("seat-5"),
                    CardFor("dealer", face_up=False)]
    assert eng.expected == DecisionFor(2, 0, frozenset({"hit", "stand", "double", "split", "surrender", "timeout"}))


def test_classic_dealer_gets_one_card_before_players_and_the_second_after() -> None:
    eng = new(C, [seat(5), seat(2)])
    seen = _cards_expected(eng, ["9S", "8S", "5H", "9D", "8D"])
    assert seen == [CardFor("seat-2"), CardFor("seat-5"), CardFor("dealer"), CardFor("seat-2"), CardFor("seat-5")]
    feed(eng, "2:stand", "5:stand")
    assert eng.expected == CardFor("dealer")
    feed(eng, "QC")  # 15: hits again
    assert eng.expected == CardFor("dealer")
    feed(eng, "2C")
    assert isinstance(eng.expected, Settle)
    assert eng.settle().hands["dealer"]["cards"] == ["5H", "QC", "2C"]


def test_a_card_is_refused_when_none_is_expected() -> None:
    eng = feed(new(D, [seat(1)]), "9S", "8H", "9D", "7C")
    with pytest.raises(UnexpectedCard, match="seat 1 hand 0 waits for a decision"):
        eng.deal("2C")
    assert len(eng.log) == 4
    with pytest.raises(CardError):
        eng.deal("1S")


# --- dealer blackjack and the early end ------------------------------------------------------


def test_deluxe_ace_up_insurance_window_comes_before_the_peek() -> None:
    eng = feed(new(D, [seat(1)]), "9S", "AH", "8D", "KC")
    assert eng.expected == InsuranceWindow(("s1",))
    assert eng.view()["dealer"]["cards"] == ["AH", "??"]
    feed(eng, "close")
    assert isinstance(eng.expected, Settle)  # the peek found BJ: round over at once
    assert net(eng) == {"s1": ("lose", -1000)}


def test_deluxe_ten_value_up_card_peeks_at_once() -> None:
    eng = feed(new(D, [seat(1)]), "9S", "KH", "8D", "AC")
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("lose", -1000)}
    eng = feed(new(D, [seat(1)]), "9S", "KH", "8D", "7C")
    assert decision(eng).seat == 1  # no BJ: no window, decisions start


def test_deluxe_round_ends_when_every_dealt_seat_has_blackjack() -> None:
    eng = feed(new(D, [seat(1), seat(2)]), "AS", "KD", "5H", "QC", "AH", "9D")
    assert isinstance(eng.expected, Settle)  # dealer 14 draws nothing
    assert eng.settle().hands["dealer"]["cards"] == ["5H", "9D"]
    assert net(eng) == {"s1": ("blackjack", 1500), "s2": ("blackjack", 1500)}


def test_dealer_blackjack_against_blackjack_is_a_push() -> None:
    eng = feed(new(D, [seat(1)]), "AS", "AH", "KD", "QC", "close")
    assert net(eng) == {"s1": ("push", 0)}


def test_classic_dealer_blackjack_takes_doubles_and_splits_by_default() -> None:
    # split 8-8: hand 1 gets 3C and hand 2 7H at once; hand 1 doubles (9S), hand 2 stands; dealer AS
    steps = ("8S", "TH", "8D", "1:split", "3C", "7H", "1:double", "9S", "1:stand", "AS")
    eng = feed(new(C, [seat(1)]), *steps)
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.staked) == ("lose", -3000, 3000)


def test_classic_dealer_blackjack_original_bet_only_returns_extra_stakes() -> None:
    steps = ("8S", "TH", "8D", "1:split", "3C", "7H", "1:double", "9S", "1:stand", "AS")
    eng = feed(new(C, [seat(1), behind(1, "q")], dealer_bj_takes="original"), "8S", "TH", "8D", "1:split",
               "q@1:follow-split", "close", *steps[4:7], "q@1:follow-double", "close", *steps[7:])
    res = results(eng)
    assert (res["s1"].outcome, res["s1"].net, res["s1"].staked, res["s1"].paid) == ("lose", -1000, 3000, 2000)
    assert [h.get("returned") for h in res["s1"].detail["hands"]] == [1000, 1000]
    assert (res["b1q"].net, res["b1q"].staked) == (-500, 1500)


# --- decisions of a seated player ------------------------------------------------------------


def test_seats_act_one_at_a_time_from_the_lowest_seat() -> None:
    eng = feed(new(D, [seat(5), seat(2)]), "9S", "8S", "5H", "9D", "8D", "7C")
    assert decision(eng).seat == 2
    with pytest.raises(IllegalAction, match="not seat 5's turn: seat 2 hand 0 is deciding") as info:
        feed(eng, "5:stand")
    assert info.value.reason == "not-your-turn"
    feed(eng, "2:stand")
    assert decision(eng).seat == 5


def test_hit_until_21_then_stand_is_automatic() -> None:
    eng = feed(new(D, [seat(1)]), "5S", "9H", "6D", "8C", "1:hit")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "TC")  # 21: no decision asked, the dealer's 17 stands
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("win", 1000)}


def test_blackjack_hand_stands_automatically() -> None:
    eng = feed(new(D, [seat(1), seat(2)]), "AS", "9S", "9H", "KD", "8D", "7C")
    assert decision(eng).seat == 2


def test_a_bust_hand_ends_and_loses() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "6D", "7C", "1:hit", "KC")
    assert isinstance(eng.expected, Settle)  # nothing left for the dealer to decide: reveal only
    assert eng.settle().hands["dealer"]["cards"] == ["9H", "7C"]
    assert net(eng) == {"s1": ("lose", -1000)}


def test_double_gets_exactly_one_card_then_stands() -> None:
    eng = feed(new(D, [seat(1)]), "5S", "9H", "6D", "7C", "1:double")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "2C")  # 13 after the double: stands anyway
    assert eng.expected == CardFor("dealer")
    feed(eng, "TD")
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.staked) == ("win", 2000, 2000)
    assert eng.settle().hands["seat-1"]["doubled"] is True


def test_double_only_on_the_first_two_cards() -> None:
    eng = feed(new(D, [seat(1)]), "2S", "9H", "3D", "7C", "1:hit", "4C")
    assert "double" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="seat 1 cannot double: a hand can be doubled only on its first two"):
        feed(eng, "1:double")


def test_double_after_split_allowed_except_split_aces() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split", "3C")
    assert "double" in decision(eng).legal
    feed(eng, "1:double", "TC")
    assert eng.expected == CardFor("seat-1/1")
    eng = feed(new(D, [seat(1)]), "AS", "9H", "AD", "7C", "1:split", "2C")
    assert eng.expected == CardFor("seat-1/1")  # split aces: one card each, no decision


def test_classic_double_after_split_follows_the_table_setting() -> None:
    eng = feed(new(C, [seat(1)], double_after_split=False), "8S", "9H", "8D", "1:split", "3C", "7C")
    assert decision(eng).legal == frozenset({"hit", "stand", "timeout"})
    with pytest.raises(IllegalAction, match="does not allow doubling after a split"):
        feed(eng, "1:double")


def test_split_pairs_of_the_same_value_ten_and_king_included() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "KD", "7C")
    assert "split" in decision(eng).legal
    eng = feed(new(D, [seat(1)]), "9S", "9H", "8D", "7C")
    assert "split" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="9S and 8D are not of the same value"):
        feed(eng, "1:split")


def test_first_split_hand_is_played_to_the_end_before_the_second_gets_its_card() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "2C")
    assert eng.expected == DecisionFor(1, 0, frozenset({"hit", "stand", "double", "timeout"}))
    feed(eng, "1:hit", "5C")
    assert decision(eng).hand == 0
    feed(eng, "1:stand")
    assert eng.expected == CardFor("seat-1/1")
    feed(eng, "TC")
    assert eng.expected == DecisionFor(1, 1, frozenset({"hit", "stand", "double", "timeout"}))
    feed(eng, "1:stand", "KD")  # dealer 16 + K
    assert [h["cards"] for k, h in eng.settle().hands.items() if k != "dealer"] == [["8S", "2C", "5C"], ["8D", "TC"]]
    res = results(eng)["s1"]
    assert (res.net, res.staked, res.outcome) == (2000, 2000, "win")


def test_split_aces_get_one_card_each_and_stand() -> None:
    eng = feed(new(D, [seat(1)]), "AS", "9H", "AD", "7C", "1:split", "5C", "6C")
    assert eng.expected == CardFor("dealer")  # no decision on either ace
    feed(eng, "2D")  # dealer 18
    assert net(eng) == {"s1": ("lose", -2000)}


def test_no_resplit_one_split_per_seat() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split", "8C")
    assert "split" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="splits only once"):
        feed(eng, "1:split")


def test_surrender_returns_half_the_seat_bet() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "6D", "7C", "1:surrender")
    assert isinstance(eng.expected, Settle)
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.paid) == ("surrender", -500, 500)


def test_surrender_not_offered_against_ace_up_card() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "AH", "6D", "7C", "close")
    assert "surrender" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="not offered against the dealer's up card AH"):
        feed(eng, "1:surrender")


def test_surrender_not_offered_against_ten_value_up_card() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "QH", "6D", "7C")
    assert "surrender" not in decision(eng).legal
    eng = feed(new(C, [seat(1)]), "TS", "TH", "6D")
    assert "surrender" not in decision(eng).legal
    eng = feed(new(C, [seat(1)]), "TS", "9H", "6D")
    assert "surrender" in decision(eng).legal


def test_surrender_only_on_first_two_cards_before_any_other_action() -> None:
    eng = feed(new(D, [seat(1)]), "2S", "9H", "3D", "7C", "1:hit", "4C")
    assert "surrender" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="only possible on the first two cards"):
        feed(eng, "1:surrender")


def test_surrender_never_after_a_split() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split", "2C")
    assert "surrender" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="not possible after a split"):
        feed(eng, "1:surrender")


def test_surrender_follows_the_table_setting() -> None:
    eng = feed(new(D, [seat(1)], surrender=False), "TS", "9H", "6D", "7C")
    assert "surrender" not in decision(eng).legal
    with pytest.raises(IllegalAction, match="offers no surrender"):
        feed(eng, "1:surrender")


def test_insurance_pays_2_to_1_when_the_dealer_has_blackjack() -> None:
    eng = feed(new(D, [seat(1)], balances={"p1": 10_000}), "9S", "AH", "8D", "KC", "1:insurance")
    assert eng.balance_of("p1") == 9500
    assert eng.expected == InsuranceWindow(())
    feed(eng, "close")
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.staked, res.paid) == ("lose", 0, 1500, 1500)
    assert (res.detail["insurance"], res.detail["insurance_stake"]) == ("win", 500)


def test_insurance_loses_when_the_dealer_has_no_blackjack_whatever_the_hand() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "AH", "9D", "7C", "1:insurance", "close", "1:stand")
    res = results(eng)["s1"]  # 19 beats soft 18: +1000, insurance -500
    assert (res.outcome, res.net, res.detail["insurance"]) == ("win", 500, "lose")


def test_insurance_allowed_even_on_a_blackjack_hand() -> None:
    eng = feed(new(D, [seat(1)]), "AS", "AH", "KD", "QC", "1:insurance", "close")
    res = results(eng)["s1"]
    assert (res.outcome, res.net) == ("push", 1000)


def test_classic_insurance_paid_when_the_dealers_second_card_makes_blackjack() -> None:
    eng = feed(new(C, [seat(1)]), "9S", "AH", "8D")
    assert eng.expected == InsuranceWindow(("s1",))
    feed(eng, "1:insurance", "close", "1:stand", "KC")
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.paid, res.detail["insurance"]) == ("lose", 0, 1500, "win")


def test_insurance_only_in_the_insurance_window() -> None:
    eng = feed(new(D, [seat(1)]), "9S", "8H", "8D", "7C")
    with pytest.raises(IllegalAction, match="only in the insurance window"):
        feed(eng, "1:insurance")
    eng = feed(new(D, [seat(1)]), "9S", "AH", "8D", "7C")
    with pytest.raises(IllegalAction, match="insurance window is open") as info:
        feed(eng, "1:stand")
    assert info.value.reason == "insurance-window-open"


def test_unaffordable_insurance_is_illegal() -> None:
    eng = feed(new(D, [seat(1)], balances={"p1": 499}), "9S", "AH", "8D", "7C")
    assert eng.expected == InsuranceWindow(())
    with pytest.raises(IllegalAction, match="balance 499 does not cover the insurance stake 500") as info:
        feed(eng, "1:insurance")
    assert info.value.reason == "insufficient-balance"
    assert eng.balance_of("p1") == 499
    assert eng.log == ["9S", "AH", "8D", "7C"]


def test_insurance_bought_once_per_bet_and_only_for_a_dealt_seat_or_own_behind_bet() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "9S", "AH", "8D", "7C", "1:insurance")
    assert eng.expected == InsuranceWindow(("b1q",))
    with pytest.raises(IllegalAction, match="already insured"):
        feed(eng, "1:insurance")
    with pytest.raises(IllegalAction, match="seat 2 cannot buy insurance: it is not dealt"):
        feed(eng, "2:insurance")
    with pytest.raises(IllegalAction, match="player r cannot buy insurance: no bet behind seat 1"):
        feed(eng, "r@1:insurance")


def test_deluxe_short_balance_double_becomes_hit_at_11_or_less() -> None:
    eng = feed(new(D, [seat(1)], balances={"p1": 999}), "5S", "9H", "6D", "7C")
    assert "double" in decision(eng).legal
    feed(eng, "1:double")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "2C")  # 13: a plain hit, so the player decides again
    assert decision(eng).legal == frozenset({"hit", "stand", "timeout"})
    assert Action(1, "double") in eng.log
    feed(eng, "1:stand", "TD")
    res = results(eng)["s1"]
    assert (res.staked, res.net) == (1000, 1000)
    assert eng.balance_of("p1") == 999


def test_deluxe_short_balance_double_or_split_becomes_stand_above_11() -> None:
    eng = feed(new(D, [seat(1)], balances={"p1": 0}), "8S", "9H", "8D", "7C", "1:split")
    assert eng.expected == CardFor("dealer")  # 16: stands
    eng = feed(new(D, [seat(1)], balances={"p1": 0}), "5S", "9H", "5D", "7C", "1:split")
    assert eng.expected == CardFor("seat-1")  # 10: hits
    eng = feed(new(D, [seat(1)], balances={"p1": 0}), "AS", "9H", "AD", "7C", "1:split")
    assert eng.expected == CardFor("dealer")  # soft 12 is more than 11: stands


def test_classic_short_balance_double_or_split_is_illegal() -> None:
    eng = feed(new(C, [seat(1)], balances={"p1": 999}), "5S", "9H", "5D")
    assert decision(eng).legal == frozenset({"hit", "stand", "surrender", "timeout"})
    with pytest.raises(IllegalAction, match="balance 999 does not cover the extra stake 1000"):
        feed(eng, "1:double")
    with pytest.raises(IllegalAction, match="does not cover the stake 1000 of a second hand"):
        feed(eng, "1:split")


def test_timeout_autoplays_hit_while_11_or_less_then_stand() -> None:
    eng = feed(new(D, [seat(1)]), "2S", "9H", "3D", "7C", "1:timeout")
    for card in ("4C", "2H"):  # 5 -> 9 -> 11
        assert eng.expected == CardFor("seat-1")
        feed(eng, card)
    assert eng.expected == CardFor("seat-1")
    feed(eng, "9D")  # 20: stands by itself
    assert eng.expected == CardFor("dealer")
    assert [e for e in eng.log if isinstance(e, Action)] == [Action(1, "timeout")]


def test_timeout_counts_an_ace_as_eleven_and_never_busts() -> None:
    eng = feed(new(D, [seat(1)]), "AS", "9H", "4D", "7C", "1:timeout")  # soft 15: stands
    assert eng.expected == CardFor("dealer")
    eng = feed(new(D, [seat(1)]), "6S", "9H", "5D", "7C", "1:timeout", "AC")  # 11 + A = 12, no bust
    assert eng.expected == CardFor("dealer")
    assert eng.view()["seats"]["1"]["hands"][0]["score"] == 12


def test_timeout_on_a_split_hand_leaves_the_other_hand_its_own_turn() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split", "2C", "1:timeout", "3C")
    assert eng.expected == CardFor("seat-1/1")
    feed(eng, "3D")
    assert decision(eng).hand == 1


def test_preselected_action_is_applied_when_the_turn_starts_and_logged() -> None:
    eng = new(D, [seat(1), seat(2)])
    eng.preselect(2, "stand")
    feed(eng, "TS", "9S", "9H", "8D", "8S", "7C", "1:stand")
    assert eng.expected == CardFor("dealer")
    assert eng.log[-1] == Action(2, "stand")


def test_preselected_action_is_dropped_when_not_legal_at_the_turn() -> None:
    eng = new(D, [seat(1), seat(2)])
    eng.preselect(1, "surrender")
    eng.preselect(2, "split")
    feed(eng, "TS", "9S", "AH", "8D", "8S", "7C", "close")
    assert decision(eng).seat == 1  # surrender against an ace: dropped
    feed(eng, "1:stand")
    assert decision(eng).seat == 2  # 9 and 8 cannot split: dropped
    assert [e for e in eng.log if isinstance(e, Action)] == [Action(1, "stand")]


def test_preselection_can_be_changed_or_cleared_but_not_after_the_turn_started() -> None:
    eng = new(D, [seat(1), seat(2)])
    eng.preselect(2, "hit")
    eng.preselect(2, None)
    feed(eng, "TS", "9S", "9H", "8D", "8S", "7C")
    with pytest.raises(IllegalAction, match="turn has already started"):
        eng.preselect(1, "stand")
    eng.preselect(2, "double")
    feed(eng, "1:stand")
    assert eng.expected == CardFor("seat-2")  # the double was applied
    with pytest.raises(IllegalAction, match="not dealt"):
        eng.preselect(4, "hit")
    with pytest.raises(IllegalAction, match="pre-select 'insurance'"):
        BlackjackRound(rules(D), [seat(1)]).preselect(1, "insurance")


# --- decisions of a bet-behind player --------------------------------------------------------


def test_bet_behind_wins_and_loses_exactly_as_the_hand_3_to_2_on_blackjack() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q", 501), seat(2), behind(2, "r")]), "AS", "TS", "9H", "KD", "8D", "7C",
               "2:stand", "2D")
    assert net(eng) == {"s1": ("blackjack", 1500), "b1q": ("blackjack", 751), "s2": ("push", 0), "b2r": ("push", 0)}


def test_bet_behind_follows_a_surrender() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q", 501)]), "TS", "9H", "6D", "7C", "1:surrender")
    assert net(eng) == {"s1": ("surrender", -500), "b1q": ("surrender", -251)}


def test_follow_double_window_opens_before_the_double_card() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "5S", "9H", "6D", "7C", "1:double")
    assert eng.expected == FollowWindow(1, 0, "double", ("b1q",))
    feed(eng, "q@1:follow-double")
    assert eng.expected == FollowWindow(1, 0, "double", ())
    feed(eng, "close")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "9C", "TD")  # 20 against a busted dealer
    assert net(eng) == {"s1": ("win", 2000), "b1q": ("win", 1000)}


def test_follow_double_no_is_the_default_and_the_card_is_a_plain_hit() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "5S", "9H", "6D", "7C", "1:double", "close", "9C", "TD")
    res = results(eng)["b1q"]
    assert (res.net, res.staked) == (500, 500)
    assert res.detail["hands"] == [{"hand": "seat-1", "outcome": "win", "stake": 500}]


def test_follow_split_no_follows_the_first_hand_only() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "8S", "9H", "8D", "7C", "1:split", "close", "TS", "1:stand",
               "5C", "1:stand", "2D")  # 18 wins, 13 loses against 18? dealer 16+2 = 18: push and lose
    res = results(eng)
    assert [h["outcome"] for h in res["s1"].detail["hands"]] == ["push", "lose"]
    assert (res["s1"].net, res["b1q"].net, res["b1q"].outcome) == (-1000, 0, "push")


def test_follow_split_yes_follows_both_hands_with_an_equal_stake() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "8S", "9H", "8D", "7C", "1:split", "q@1:follow-split", "close",
               "TS", "1:stand", "5C", "1:stand", "2D")
    res = results(eng)["b1q"]
    assert (res.net, res.staked, [h["outcome"] for h in res.detail["hands"]]) == (-500, 1000, ["push", "lose"])


def test_follow_double_on_the_second_split_hand_only_for_bets_that_followed_the_split() -> None:
    bets = [seat(1), behind(1, "q"), behind(1, "r")]
    eng = feed(new(D, bets), "8S", "9H", "8D", "7C", "1:split", "q@1:follow-split", "close", "TS", "1:stand",
               "3C", "1:double")
    assert eng.expected == FollowWindow(1, 1, "double", ("b1q",))
    with pytest.raises(IllegalAction, match="did not follow the split"):
        feed(eng, "r@1:follow-double")
    feed(eng, "q@1:follow-double/1", "close", "TC", "2D")
    res = results(eng)["b1q"]
    assert [h["stake"] for h in res.detail["hands"]] == [500, 1000]
    eng = feed(new(D, bets), "8S", "9H", "8D", "7C", "1:split", "close", "TS", "1:stand", "3C", "1:double")
    assert eng.expected == CardFor("seat-1/1")  # nobody follows the second hand: no window


def test_unaffordable_follow_is_a_no_and_stays_in_the_log() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")], balances={"q": 499}), "5S", "9H", "6D", "7C", "1:double")
    assert eng.expected == FollowWindow(1, 0, "double", ())
    feed(eng, "q@1:follow-double", "close", "9C", "TD")
    assert Action(1, "follow-double", "q") in eng.log
    assert eng.balance_of("q") == 499
    assert results(eng)["b1q"].staked == 500


def test_follow_answers_errors() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q"), seat(2, player="z")]), "5S", "9S", "9H", "6D", "8S", "7C",
               "1:double")
    cases = [
        ("1:hit", "follow window for seat 1's double is open"),
        ("q@1:follow-split", "answer follow-double"),
        ("q@2:follow-double", "open window is for seat 1"),
        ("x@1:follow-double", "no bet behind seat 1"),
        ("q@1:follow-double/1", "seat 1 hand 0 doubled"),
    ]
    for step, message in cases:
        with pytest.raises(IllegalAction, match=message):
            feed(eng, step)
    feed(eng, "q@1:follow-double")
    with pytest.raises(IllegalAction, match="already answered"):
        feed(eng, "q@1:follow-double")


def test_bet_behind_insurance_is_independent_of_the_seated_player() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q", 501)]), "9S", "AH", "8D", "KC")
    assert eng.expected == InsuranceWindow(("s1", "b1q"))
    feed(eng, "q@1:insurance", "close")
    res = results(eng)
    assert (res["s1"].net, res["b1q"].net, res["b1q"].detail["insurance_stake"]) == (-1000, -1, 250)


# --- the order of the split hands' cards (split_deal) ----------------------------------------


def expectations(eng: BlackjackRound, *steps: str) -> list[Any]:
    """What the engine expects after each of ``steps``, fed one at a time."""
    out = []
    for step in steps:
        feed(eng, step)
        out.append(eng.expected)
    return out


HIT_STAND_DOUBLE = frozenset({"hit", "stand", "double", "timeout"})
HIT_STAND = frozenset({"hit", "stand", "timeout"})


def test_split_deal_defaults_each_table_its_order() -> None:
    assert rules(D).split_deal == "each-in-turn"
    assert rules(C).split_deal == "both-first"


def test_classic_split_deals_both_second_cards_then_plays_hand_1_then_hand_2() -> None:
    eng = feed(new(C, [seat(1)]), "8S", "9H", "8D", "1:split")
    assert eng.expected == CardFor("seat-1")
    assert expectations(eng, "2C", "TC") == [CardFor("seat-1/1"), DecisionFor(1, 0, HIT_STAND_DOUBLE)]
    feed(eng, "1:hit", "5C")  # 8 2 5
    assert decision(eng).hand == 0
    feed(eng, "1:stand")
    assert eng.expected == DecisionFor(1, 1, HIT_STAND_DOUBLE)  # hand 2 has its two cards already
    feed(eng, "1:stand", "7D", "TD")  # dealer 9 7 draws a ten: bust
    hands = eng.settle().hands
    assert (hands["seat-1"]["cards"], hands["seat-1/1"]["cards"]) == (["8S", "2C", "5C"], ["8D", "TC"])
    assert [e for e in eng.log if isinstance(e, str)] == ["8S", "9H", "8D", "2C", "TC", "5C", "7D", "TD"]
    res = results(eng)["s1"]
    assert (res.net, res.staked, res.outcome) == (2000, 2000, "win")


def test_deluxe_split_still_plays_hand_1_to_the_end_before_hand_2_gets_its_card() -> None:
    eng = feed(new(D, [seat(1)]), "8S", "9H", "8D", "7C", "1:split")
    assert expectations(eng, "2C", "1:hit", "5C", "1:stand", "TC") == [
        DecisionFor(1, 0, HIT_STAND_DOUBLE), CardFor("seat-1"), DecisionFor(1, 0, HIT_STAND),
        CardFor("seat-1/1"), DecisionFor(1, 1, HIT_STAND_DOUBLE)]


def test_split_deal_is_a_table_rule_overridable_both_ways() -> None:
    classic = feed(new(C, [seat(1)], split_deal="each-in-turn"), "8S", "9H", "8D", "1:split", "2C")
    assert classic.expected == DecisionFor(1, 0, HIT_STAND_DOUBLE)  # the Deluxe order at a classic table
    feed(classic, "1:stand")
    assert classic.expected == CardFor("seat-1/1")
    deluxe = feed(new(D, [seat(1)], split_deal="both-first"), "8S", "9H", "8D", "7C", "1:split", "2C")
    assert deluxe.expected == CardFor("seat-1/1")  # the classic order at a Deluxe table
    feed(deluxe, "TC")
    assert deluxe.expected == DecisionFor(1, 0, HIT_STAND_DOUBLE)
    with pytest.raises(RulesError, match="split_deal"):
        rules(C, split_deal="hand-2-first")


@pytest.mark.parametrize("game", [D, C])
def test_split_aces_get_one_card_each_and_stand_in_either_order(game: str) -> None:
    initial = ("AS", "9H", "AD", "7C") if game == D else ("AS", "9H", "AD")
    for order in ("each-in-turn", "both-first"):
        eng = feed(new(game, [seat(1)], split_deal=order), *initial, "1:split")
        assert eng.expected == CardFor("seat-1")
        assert expectations(eng, "5C", "6C") == [CardFor("seat-1/1"), CardFor("dealer")]  # no decision on either
        hands = eng.view()["seats"]["1"]["hands"]
        assert [h["cards"] for h in hands] == [["AS", "5C"], ["AD", "6C"]]


def test_classic_follow_split_window_comes_first_then_both_second_cards() -> None:
    eng = feed(new(C, [seat(1), behind(1, "q")]), "8S", "9H", "8D", "1:split")
    assert eng.expected == FollowWindow(1, 0, "split", ("b1q",))
    assert expectations(eng, "q@1:follow-split", "close", "3C", "7H") == [
        FollowWindow(1, 0, "split", ()), CardFor("seat-1"), CardFor("seat-1/1"), DecisionFor(1, 0, HIT_STAND_DOUBLE)]


def test_classic_double_after_split_in_the_both_first_order_with_follow_doubles() -> None:
    eng = feed(new(C, [seat(1), behind(1, "q")]), "8S", "9H", "8D", "1:split", "q@1:follow-split", "close",
               "3C", "2H", "1:double")  # hand 1: 8 3 doubles; hand 2 (8 2) already has its card
    assert eng.expected == FollowWindow(1, 0, "double", ("b1q",))
    assert expectations(eng, "q@1:follow-double", "close", "TS") == [
        FollowWindow(1, 0, "double", ()), CardFor("seat-1"), DecisionFor(1, 1, HIT_STAND_DOUBLE)]
    feed(eng, "1:double")
    assert eng.expected == FollowWindow(1, 1, "double", ("b1q",))  # q followed the split: hand 2 too
    assert expectations(eng, "close", "9D", "8C") == [CardFor("seat-1/1"), CardFor("dealer"), Settle()]
    hands = eng.settle().hands
    assert (hands["seat-1"]["cards"], hands["seat-1/1"]["cards"]) == (["8S", "3C", "TS"], ["8D", "2H", "9D"])
    res = results(eng)
    assert (res["s1"].net, res["s1"].staked) == (4000, 4000)  # 21 and 19 against 17, both doubled
    assert (res["b1q"].net, res["b1q"].staked) == (1500, 1500)  # hand 1 followed doubled, hand 2 not


def test_classic_timeout_on_split_hand_1_after_both_second_cards() -> None:
    eng = feed(new(C, [seat(1)]), "8S", "9H", "8D", "1:split", "2C", "3D", "1:timeout")
    assert eng.expected == CardFor("seat-1")  # 8 2 = 10: auto-play hits
    feed(eng, "4C")  # 14: stands
    assert decision(eng).hand == 1
    assert [h["cards"] for h in eng.view()["seats"]["1"]["hands"]] == [["8S", "2C", "4C"], ["8D", "3D"]]


def test_classic_preselected_split_deals_both_second_cards_first() -> None:
    eng = new(C, [seat(1), seat(2)])
    eng.preselect(2, "split")
    feed(eng, "TS", "8S", "9H", "9D", "8D", "1:stand")
    assert eng.expected == CardFor("seat-2")
    assert expectations(eng, "2C", "3C") == [CardFor("seat-2/1"), DecisionFor(2, 0, HIT_STAND_DOUBLE)]
    assert Action(2, "split") in eng.log


def test_view_between_the_two_second_cards_of_a_classic_split() -> None:
    eng = feed(new(C, [seat(1)]), "8S", "9H", "8D", "1:split", "2C")
    view = eng.view()
    assert [h["cards"] for h in view["seats"]["1"]["hands"]] == [["8S", "2C"], ["8D"]]
    assert view["expected"] == {"kind": "card", "hand": "seat-1/1", "face_up": True}
    assert view["phase"] == "decisions"


def test_deluxe_short_balance_conversion_in_the_both_first_order() -> None:
    # the balance covers the split only: each double after it becomes a hit (11 or less)
    eng = feed(new(D, [seat(1)], balances={"p1": 1000}, split_deal="both-first"), "8S", "9H", "8D", "7C",
               "1:split", "3C", "2H", "1:double")
    assert eng.expected == CardFor("seat-1")
    feed(eng, "TS")  # 21
    assert decision(eng).hand == 1
    feed(eng, "1:double", "5D")  # a hit: 8 2 5
    assert decision(eng) == DecisionFor(1, 1, HIT_STAND)
    feed(eng, "1:stand", "KD")  # dealer 16 + K: bust
    res = results(eng)["s1"]
    assert (res.net, res.staked) == (2000, 2000)
    assert eng.balance_of("p1") == 0


def test_classic_split_round_replays_from_its_log() -> None:
    balances = {"p1": 5000, "q": 2000}
    eng = feed(new(C, [seat(1), behind(1, "q")], balances=balances), "8S", "9H", "8D", "1:split",
               "q@1:follow-split", "close", "3C", "2H", "1:double", "q@1:follow-double", "close", "TS",
               "1:hit", "5D", "1:stand", "7C", "KD")
    again = replay(Transcript.of(eng, balances=balances))
    assert again.to_dict(full=True) == eng.settle().to_dict(full=True)
    assert [e for e in eng.log if isinstance(e, str)] == ["8S", "9H", "8D", "3C", "2H", "TS", "5D", "7C", "KD"]


# --- the dealer ------------------------------------------------------------------------------


def test_dealer_hits_16_and_stands_on_17() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D", "7C", "1:stand")
    assert eng.expected == CardFor("dealer")
    feed(eng, "AD")  # 17
    assert isinstance(eng.expected, Settle)


def test_dealer_stands_on_soft_17_by_default() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "6H", "9D", "AC", "1:stand")
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("win", 1000)}


def test_dealer_hits_soft_17_when_the_table_says_so() -> None:
    eng = feed(new(D, [seat(1)], dealer_hits_soft_17=True), "TS", "6H", "9D", "AC", "1:stand")
    assert eng.expected == CardFor("dealer")
    assert dealer_must_hit(["6H", "AC"], rules(D, dealer_hits_soft_17=True))
    assert not dealer_must_hit(["6H", "AC"], rules(D))
    assert not dealer_must_hit(["6H", "AC", "TD"], rules(D, dealer_hits_soft_17=True))  # hard 17


def test_deluxe_dealer_only_reveals_when_no_hand_is_left_to_decide() -> None:
    eng = feed(new(D, [seat(1), seat(2)]), "TS", "AD", "2H", "6D", "KS", "7C")
    assert eng.view()["dealer"]["cards"] == ["2H", "??"]
    feed(eng, "1:hit", "KC")
    assert isinstance(eng.expected, Settle)  # seat 1 bust, seat 2 BJ: the dealer's 9 draws nothing
    assert eng.view()["dealer"]["cards"] == ["2H", "7C"]


def test_classic_dealer_draws_nothing_when_every_hand_is_bust_or_surrendered() -> None:
    eng = feed(new(C, [seat(1), seat(2)]), "TS", "TD", "9H", "6D", "6S", "1:hit", "KC", "2:surrender")
    assert isinstance(eng.expected, Settle)
    assert eng.settle().hands["dealer"]["cards"] == ["9H"]


def test_classic_dealer_draws_the_second_card_for_a_waiting_blackjack_only_with_ace_or_ten_up() -> None:
    eng = feed(new(C, [seat(1)]), "AS", "KH", "QD")
    assert eng.expected == CardFor("dealer")
    feed(eng, "AC")
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("push", 0)}
    eng = feed(new(C, [seat(1)]), "AS", "5H", "QD")
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("blackjack", 1500)}


def test_classic_dealer_draws_the_second_card_for_a_waiting_insurance_bet() -> None:
    eng = feed(new(C, [seat(1)]), "TS", "AH", "6D", "1:insurance", "close", "1:hit", "KC")
    assert eng.expected == CardFor("dealer")
    feed(eng, "KD")
    assert isinstance(eng.expected, Settle)
    assert net(eng) == {"s1": ("lose", 0)}  # hand -1000; insurance 500 pays 2:1: +1000


# --- settlement and money --------------------------------------------------------------------


def test_blackjack_on_1001_wins_1501() -> None:
    eng = feed(new(D, [seat(1, 1001)]), "AS", "9H", "KD", "7C")
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.paid, res.exact_net) == ("blackjack", 1501, 2502, Fraction(3003, 2))


def test_surrender_of_1001_returns_500() -> None:
    eng = feed(new(D, [seat(1, 1001)]), "TS", "9H", "6D", "7C", "1:surrender")
    res = results(eng)["s1"]
    assert (res.outcome, res.net, res.paid, res.exact_net) == ("surrender", -501, 500, Fraction(-1001, 2))


def test_insuring_1001_costs_500() -> None:
    eng = feed(new(D, [seat(1, 1001)], balances={"p1": 500}), "TS", "AH", "9D", "KC", "1:insurance")
    assert eng.balance_of("p1") == 0
    feed(eng, "close")
    res = results(eng)["s1"]
    assert (res.staked, res.paid, res.net, res.detail["insurance_stake"]) == (1501, 1500, -1, 500)


def test_seat_bet_net_covers_its_double_its_split_hand_and_its_insurance() -> None:
    eng = feed(new(D, [seat(1)], balances={"p1": 5000}), "8S", "AH", "8D", "7C", "1:insurance", "close",
               "1:split", "3C", "1:double", "KC", "9S", "1:stand")
    res = results(eng)["s1"]  # dealer soft 18 stands: 21 wins 2000, 17 loses 1000, insurance lost 500
    assert (res.staked, res.net, res.outcome) == (3500, 500, "win")
    assert eng.balance_of("p1") == 2500


def test_pair_bet_same_rank_pays_11_to_1() -> None:
    eng = feed(new(D, [seat(1), pair(1, "q"), pair(1, "r", bet_id="x")]), "KS", "9H", "KD", "7C", "1:stand", "2D")
    assert results(eng)["pr1q"].net == 1100
    eng = feed(new(D, [seat(1), pair(1, "q")]), "KS", "9H", "QD", "7C", "1:stand", "2D")
    assert (results(eng)["pr1q"].outcome, results(eng)["pr1q"].net) == ("lose", -100)


def test_pair_bet_settles_on_the_first_two_cards_even_after_a_split() -> None:
    eng = feed(new(D, [seat(1), pair(1, "q")]), "8S", "9H", "8D", "7C", "1:split", "TS", "1:stand", "9C",
               "1:stand", "2D")
    assert results(eng)["pr1q"].detail == {"cards": ["8S", "8D"], "pair": "same-rank"}


def test_perfect_pairs_paytable_grades() -> None:
    table = {"pair_paytable": {"same-rank": None, "mixed": "6:1", "coloured": "12:1", "perfect": "25:1"}}
    paytable = rules(D, **table).pair_paytable
    assert pair_grade(["8S", "8S"], paytable) == ("perfect", Fraction(25))
    assert pair_grade(["8S", "8C"], paytable) == ("coloured", Fraction(12))
    assert pair_grade(["8H", "8D"], paytable) == ("coloured", Fraction(12))
    assert pair_grade(["8S", "8H"], paytable) == ("mixed", Fraction(6))
    assert pair_grade(["8S", "9S"], paytable) is None
    eng = feed(new(D, [seat(1), pair(1, "q")], **table), "8S", "9H", "8H", "7C", "1:stand", "2D")
    assert (results(eng)["pr1q"].net, results(eng)["pr1q"].detail["pair"]) == (600, "mixed")


def test_settle_before_the_end_names_what_is_awaited() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H")
    with pytest.raises(IncompleteRound, match="the seat-1 hand waits for a card"):
        eng.settle()
    feed(eng, "6D", "7C")
    with pytest.raises(IncompleteRound, match=r"seat 1 hand 0 waits for a decision \(double, hit"):
        eng.settle()


def test_settlement_hands_are_json_friendly_and_complete() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "8S", "9H", "8D", "7C", "1:split", "close", "3C", "1:double",
               "close", "KC", "9S", "1:stand", "TD")
    settlement = eng.settle()
    text = json.dumps(settlement.to_dict(full=True))
    hands = json.loads(text)["hands"]
    assert set(hands) == {"dealer", "seat-1", "seat-1/1"}
    assert hands["seat-1"] == {"seat": 1, "hand": 0, "cards": ["8S", "3C", "KC"], "score": 21, "soft": False,
                               "bust": False, "bj": False, "doubled": True, "surrendered": False, "stake": 2000,
                               "outcome": "win"}
    assert hands["dealer"] == {"cards": ["9H", "7C", "TD"], "score": 26, "soft": False, "bust": True, "bj": False}


def test_settle_bet_is_pure_and_order_free() -> None:
    bets = [seat(1), behind(1, "q"), pair(1, "r"), seat(3), behind(6, "q")]
    eng = feed(new(D, bets), "8S", "TS", "9H", "8D", "TD", "7C", "1:split", "q@1:follow-split", "close", "3C",
               "1:double", "close", "KC", "9S", "1:stand", "3:stand", "TC")
    final = eng.final_round()
    whole = eng.settle().bets
    shuffled = list(bets)
    random.Random(4).shuffle(shuffled)
    alone = {b.id: settle_bet(eng.rules, final, b) for b in shuffled}
    assert tuple(alone[b.id] for b in bets) == whole
    rebuilt = FinalRound.build(final.dealer, final.seats, final.insured, final.followed_split, final.followed_double)
    assert rebuilt == final
    shipped = pickle.loads(pickle.dumps(final))  # a chunk of bets can be settled in another process
    assert [settle_bet(eng.rules, shipped, b) for b in bets] == list(whole)
    assert [hand_outcome(h, final) for h in final.seats[1].hands] == [h.outcome for h in final.seats[1].hands]


# --- what a player sees ----------------------------------------------------------------------


def test_view_hides_the_hole_card_until_revealed() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D", "QC")
    shown = json.dumps(eng.view())
    assert "QC" not in shown
    assert eng.view()["dealer"] == {"cards": ["9H", "??"], "score": 9, "soft": False, "peeked": True,
                                    "revealed": False}
    assert eng.view(reveal_hidden=True)["dealer"]["cards"] == ["9H", "QC"]
    feed(eng, "1:stand")
    assert eng.view()["dealer"]["cards"] == ["9H", "QC"]


def test_view_names_what_is_expected() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D")
    assert eng.view()["expected"] == {"kind": "card", "hand": "dealer", "face_up": False}
    feed(eng, "QC")
    assert eng.view()["expected"]["kind"] == "decision"
    assert eng.view()["phase"] == "decisions"


# --- every other illegal action --------------------------------------------------------------


def test_unknown_action_is_refused() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D", "QC")
    with pytest.raises(IllegalAction, match="unknown action 'fold'"):
        feed(eng, "1:fold")
    with pytest.raises(IllegalAction, match="follow answers are given by bet-behind players"):
        feed(eng, "1:follow-double")


def test_bet_behind_answer_without_a_window_is_refused() -> None:
    eng = feed(new(D, [seat(1), behind(1, "q")]), "TS", "9H", "8D", "QC")
    with pytest.raises(IllegalAction, match="no window is open") as info:
        feed(eng, "q@1:follow-double")
    assert info.value.reason == "no-window"


def test_action_for_the_wrong_hand_is_refused() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D", "QC")
    with pytest.raises(IllegalAction, match="hand 1 is not deciding"):
        feed(eng, "1:stand/1")


def test_actions_while_a_card_is_awaited_or_after_the_end_are_refused() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H")
    with pytest.raises(IllegalAction, match="seat 1 cannot hit: the seat-1 hand waits for a card"):
        feed(eng, "1:hit")
    feed(eng, "8D", "QC", "1:stand")
    with pytest.raises(IllegalAction, match="the round is complete"):
        feed(eng, "1:hit")
    with pytest.raises(UnexpectedCard, match="the round is complete"):
        feed(eng, "2C")


def test_close_window_without_a_window_is_refused() -> None:
    eng = feed(new(D, [seat(1)]), "TS", "9H", "8D", "QC")
    with pytest.raises(IllegalAction, match="no window is open"):
        eng.close_window()


def test_a_refused_action_changes_nothing() -> None:
    eng = feed(new(C, [seat(1)], balances={"p1": 999}), "5S", "9H", "5D")
    before = (eng.expected, list(eng.log), eng.view())
    for step in ("1:double", "1:split", "2:hit", "1:insurance", "q@1:follow-split", "1:fold"):
        with pytest.raises(IllegalAction):
            feed(eng, step)
    assert (eng.expected, list(eng.log), eng.view()) == before


# --- transcripts -----------------------------------------------------------------------------


# replay.md's example
REPLAY_EXAMPLE = json.loads((Path(__file__).parents[1] / "data" / "replay-md-example.json").read_text())


def test_replay_md_example() -> None:
    settlement = replay(Transcript.parse(REPLAY_EXAMPLE))
    assert [b.to_dict() for b in settlement.bets] == [
        {"id": "b1", "outcome": "win", "net": 2000, "hands": [
            {"hand": "seat-1", "outcome": "win", "stake": 1000},
            {"hand": "seat-1/1", "outcome": "win", "stake": 1000}]},
        {"id": "b2", "outcome": "win", "net": 1000, "hands": [
            {"hand": "seat-1", "outcome": "win", "stake": 500}, {"hand": "seat-1/1", "outcome": "win", "stake": 500}]},
        {"id": "b3", "outcome": "win", "net": 1100, "cards": ["8S", "8C"], "pair": "same-rank"},
    ]
    assert settlement.hands["dealer"]["score"] == 26


def test_replay_errors_name_the_waiting_hand_and_the_illegal_action() -> None:
    short = dict(REPLAY_EXAMPLE, cards=REPLAY_EXAMPLE["cards"][:5])
    with pytest.raises(IncompleteRound, match="the seat-1/1 hand waits for a card"):
        replay(Transcript.parse(short))
    bad = dict(REPLAY_EXAMPLE, actions=[{"seat": 1, "action": "insurance"}, *REPLAY_EXAMPLE["actions"][1:]])
    with pytest.raises(IllegalAction, match="seat 1 cannot buy insurance: insurance is offered only"):
        replay(Transcript.parse(bad))
    classic = dict(REPLAY_EXAMPLE, game="blackjack", balances={"p1": 500})
    with pytest.raises(IllegalAction, match="seat 1 cannot split: player p1's balance 500"):
        replay(Transcript.parse(classic))


def test_the_engines_log_replays_to_the_same_settlement() -> None:
    balances = {"p1": 3000, "q": 600}
    eng = feed(new(D, [seat(1), behind(1, "q"), pair(1, "r")], balances=balances), "8S", "AH", "8D", "7C",
               "1:insurance", "q@1:insurance", "close", "1:split", "q@1:follow-split", "close", "3C", "1:double",
               "close", "KC", "9S", "1:timeout")
    again = replay(Transcript.of(eng, balances=balances))
    assert again.to_dict(full=True) == eng.settle().to_dict(full=True)
    assert Action(1, "follow-split", "q") in eng.log  # unaffordable after insurance: a No, kept in the log
    assert results(eng)["b1q"].staked == 750
