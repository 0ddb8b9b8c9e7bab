"""The small modules under every engine: card codes (common.md "Cards"), the shoe (common.md "Shoe"),
exact money (common.md "Money") and table rules as data (defaults of each game's spec)."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from pydantic import BaseModel, ValidationError

from croupier.cards import (
    ALL_CARDS,
    BACCARAT_VALUE,
    BLACKJACK_VALUE,
    BURN_VALUE,
    check_copies,
    colour,
    parse_card,
    parse_cards,
    rank,
    suit,
)
from croupier.errors import BetRefused, CardError, RulesError, ShoeError
from croupier.games.baccarat import validate_bets
from croupier.games.base import Bet
from croupier.money import Ratio, floor_amount, format_ratio, fraction_text, parse_ratio, winnings
from croupier.rules import (
    GAMES,
    BaccaratRules,
    BlackjackRules,
    Limit,
    PairPaytable,
    PokDengRules,
    as_overrides,
    default_rules,
    load_rules,
)
from croupier.shoe import CardUse, Shoe, ShoePhase
from croupier.sim.house import house_apart, house_rules

# common.md: ranks A 2 3 4 5 6 7 8 9 T J Q K, suits S H D C.
SPEC_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
SPEC_SUITS = ["S", "H", "D", "C"]
SPEC_CODES = [r + s for r in SPEC_RANKS for s in SPEC_SUITS]
# common.md "Burn": Ace = 1, 2 to 9 = face value, 10/J/Q/K = 10.
SPEC_BURN = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 10, "J": 10, "Q": 10, "K": 10}


# --- cards ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", SPEC_CODES)
def test_every_valid_code_parses_unchanged(code: str) -> None:
    assert parse_card(code) == code
    assert rank(code) == code[0] and suit(code) == code[1]
    assert colour(code) == ("red" if code[1] in "HD" else "black")


def test_all_cards_is_the_52_codes_of_one_deck() -> None:
    assert sorted(ALL_CARDS) == sorted(SPEC_CODES)
    assert len(set(ALL_CARDS)) == 52
    assert parse_cards(["TD", "AS", "KC"]) == ["TD", "AS", "KC"]


@pytest.mark.parametrize("code", ["1S", "0H", "ZS", "XD", "tS", "aS", "kH", "*C"])
def test_bad_rank_is_refused_naming_the_rank(code: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(code)
    assert err.value.reason == "bad-card"
    assert "rank" in str(err.value) and repr(code[0]) in str(err.value)


@pytest.mark.parametrize("code", ["AX", "Ts", "Kh", "2d", "9c", "QZ", "A "])
def test_bad_suit_is_refused_naming_the_suit(code: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(code)
    assert "suit" in str(err.value) and repr(code[1]) in str(err.value)


@pytest.mark.parametrize("code", ["", "A", "10S", "ASD", " AS", "AS ", "TDTD", "ASS"])
def test_wrong_length_is_refused(code: str) -> None:
    with pytest.raises(CardError, match="two characters"):
        parse_card(code)


@pytest.mark.parametrize(("value", "type_name"), [(None, "NoneType"), (10, "int"), (b"AS", "bytes"),
                                                  (["A", "S"], "list"), (("A", "S"), "tuple"), (1.5, "float")])
def test_a_card_that_is_not_a_string_is_refused_naming_its_type(value: object, type_name: str) -> None:
    with pytest.raises(CardError) as err:
        parse_card(value)
    assert type_name in str(err.value)


def test_nothing_guesses_a_card() -> None:
    for almost in ("10D", "td", "D T", "TD\n", "\u0422D"):  # Cyrillic Te looks like T
        with pytest.raises(CardError):
            parse_card(almost)


def test_parse_cards_stops_at_the_first_bad_code() -> None:
    with pytest.raises(CardError, match="'XX'"):
        parse_cards(["AS", "XX", "KD"])


def test_check_copies_allows_eight_and_refuses_a_ninth() -> None:
    check_copies(list(SPEC_CODES) * 8)  # a whole 8-deck shoe
    with pytest.raises(CardError) as err:
        check_copies(["2C", "QH", *["QH"] * 8])
    assert err.value.reason == "ninth-copy"
    assert "QH" in str(err.value) and "9" in str(err.value)
    check_copies(["QH", "QH"], decks=2)
    with pytest.raises(CardError):
        check_copies(["QH"] * 3, decks=2)


def test_point_values_per_game() -> None:
    for r in SPEC_RANKS:
        face = SPEC_BURN[r]
        assert BURN_VALUE[r] == face
        assert BLACKJACK_VALUE[r] == face  # ace counted as 1 here; the hand makes it 11 when it can
        assert BACCARAT_VALUE[r] == (0 if face == 10 else face)


# --- shoe ----------------------------------------------------------------------------------------


def burned_shoe(indicator: str = "AS", **kwargs: int) -> Shoe:
    """A shoe whose burn is done: the first card shown, then its burn count scanned (using 2S...)."""
    shoe = Shoe("s1", **kwargs)
    assert shoe.scan(indicator) is CardUse.BURN_INDICATOR
    for _ in range(SPEC_BURN[indicator[0]]):
        assert shoe.scan("5D") is CardUse.BURNED
    assert shoe.phase is ShoePhase.READY
    return shoe


def test_a_new_shoe_waits_for_the_first_card_and_deals_no_round() -> None:
    shoe = Shoe("s1")
    assert (shoe.phase, shoe.round_in_shoe, shoe.cards_drawn, shoe.counts) == (ShoePhase.SHUFFLED, 0, 0, {})
    assert shoe.cards_left == 416
    with pytest.raises(ShoeError) as err:
        shoe.start_round()
    assert err.value.reason == "shoe-not-ready"


@pytest.mark.parametrize("rank_", SPEC_RANKS)
def test_the_first_card_burns_its_value_scanned_face_down(rank_: str) -> None:
    shoe = Shoe("s1")
    assert shoe.scan(rank_ + "H") is CardUse.BURN_INDICATOR
    assert shoe.burn_indicator == rank_ + "H"
    burn = SPEC_BURN[rank_]
    for i in range(burn):
        with pytest.raises(ShoeError):  # no round before the burn is complete
            shoe.start_round()
        assert shoe.phase is ShoePhase.BURNING
        assert shoe.scan(SPEC_CODES[i]) is CardUse.BURNED
    assert shoe.phase is ShoePhase.READY
    assert shoe.cards_drawn == 1 + burn and shoe.cards_left == 416 - 1 - burn
    assert shoe.start_round() == 1
    assert shoe.scan("9S") is CardUse.ROUND  # the next card is a round card, not another burned one


@pytest.mark.parametrize("rank_", SPEC_RANKS)
def test_the_burn_may_be_confirmed_by_the_dealer_console(rank_: str) -> None:
    shoe = Shoe("s1")
    shoe.scan(rank_ + "C")
    if SPEC_BURN[rank_] > 1:
        shoe.scan("2D")  # one scanned, the rest confirmed
    with pytest.raises(ShoeError):
        shoe.start_round()
    shoe.confirm_burn()
    assert shoe.phase is ShoePhase.READY
    assert shoe.cards_drawn == 1 + SPEC_BURN[rank_]  # every burned card counts as drawn
    assert shoe.start_round() == 1


def test_confirm_burn_without_a_burn_under_way_is_an_error() -> None:
    with pytest.raises(ShoeError):
        Shoe("s1").confirm_burn()
    shoe = burned_shoe()
    with pytest.raises(ShoeError) as err:
        shoe.confirm_burn()
    assert err.value.reason == "no-burn"


def test_cards_between_rounds_are_refused() -> None:
    shoe = burned_shoe()
    with pytest.raises(ShoeError) as err:
        shoe.scan("2C")
    assert err.value.reason == "no-round"
    assert shoe.cards_drawn == 2  # the refused card was not counted


def test_rounds_are_numbered_within_the_shoe() -> None:
    shoe = burned_shoe()
    for n in (1, 2, 3):
        assert shoe.start_round() == n
        with pytest.raises(ShoeError):  # one round at a time
            shoe.start_round()
        shoe.scan("7H")
        shoe.end_round()
        assert shoe.phase is ShoePhase.READY and not shoe.is_last_round


def test_cut_card_mid_round_makes_this_round_the_last() -> None:
    shoe = burned_shoe()
    shoe.start_round()
    shoe.end_round()
    shoe.start_round()
    shoe.scan("2H")
    shoe.cut_card()
    assert shoe.is_last_round and shoe.last_round == 2
    for card in ("3H", "4H", "5H"):  # the round is completed with the cards after the cut card
        assert shoe.scan(card) is CardUse.ROUND
    shoe.end_round()
    assert shoe.phase is ShoePhase.CLOSED


def test_cut_card_between_rounds_makes_the_next_round_the_last() -> None:
    shoe = burned_shoe()
    shoe.start_round()
    shoe.end_round()
    shoe.cut_card()
    assert not shoe.is_last_round and shoe.last_round == 2
    assert shoe.phase is ShoePhase.READY
    assert shoe.start_round() == 2
    assert shoe.is_last_round
    shoe.scan("2H")
    shoe.end_round()
    assert shoe.phase is ShoePhase.CLOSED


def test_cut_card_before_the_first_round_makes_round_1_the_last() -> None:
    shoe = burned_shoe()
    shoe.cut_card()
    assert shoe.start_round() == 1 and shoe.is_last_round
    shoe.end_round()
    assert shoe.phase is ShoePhase.CLOSED


def test_the_cut_card_comes_out_once_and_not_before_the_first_card() -> None:
    with pytest.raises(ShoeError):
        Shoe("s1").cut_card()
    shoe = burned_shoe()
    shoe.cut_card()
    with pytest.raises(ShoeError, match="already"):
        shoe.cut_card()


def test_a_closed_shoe_starts_no_round_and_takes_no_card_until_the_next_shuffle() -> None:
    shoe = burned_shoe()
    shoe.start_round()
    shoe.cut_card()
    shoe.end_round()
    assert shoe.phase is ShoePhase.CLOSED
    with pytest.raises(ShoeError) as err:
        shoe.start_round()
    assert err.value.reason == "shoe-not-ready"
    with pytest.raises(ShoeError) as err:
        shoe.scan("2C")
    assert err.value.reason == "shoe-closed"
    with pytest.raises(ShoeError):
        shoe.end_round()
    with pytest.raises(ShoeError):
        shoe.cut_card()
    # The next shuffle is a new shoe: counts reset, round number 0, the burn again first.
    fresh = Shoe("s2")
    assert fresh.round_in_shoe == 0 and fresh.counts == {} and fresh.phase is ShoePhase.SHUFFLED


def test_end_round_without_an_open_round_is_an_error() -> None:
    with pytest.raises(ShoeError):
        burned_shoe().end_round()


def test_pok_deng_burns_one_card_face_down_at_the_start_of_every_round() -> None:
    shoe = burned_shoe(per_round_burn=1)
    for n in (1, 2):
        drawn = shoe.cards_drawn
        assert shoe.start_round() == n
        assert shoe.phase is ShoePhase.ROUND_BURN
        assert shoe.scan("8C") is CardUse.BURNED
        assert shoe.phase is ShoePhase.IN_ROUND
        assert shoe.scan("8D") is CardUse.ROUND
        assert shoe.cards_drawn == drawn + 2
        shoe.end_round()
    # The per-round burn may also be confirmed by the console.
    shoe.start_round()
    shoe.confirm_burn()
    assert shoe.phase is ShoePhase.IN_ROUND
    assert shoe.scan("8H") is CardUse.ROUND


def test_other_games_burn_nothing_per_round() -> None:
    shoe = burned_shoe()
    shoe.start_round()
    assert shoe.phase is ShoePhase.IN_ROUND
    assert shoe.scan("8C") is CardUse.ROUND


def test_pok_deng_cut_card_during_the_round_burn_makes_this_round_the_last() -> None:
    shoe = burned_shoe(per_round_burn=1)
    shoe.start_round()
    shoe.cut_card()
    assert shoe.is_last_round
    shoe.scan("2C")
    shoe.scan("3C")
    shoe.end_round()
    assert shoe.phase is ShoePhase.CLOSED


def test_a_ninth_copy_is_refused_and_changes_nothing() -> None:
    shoe = Shoe("s1")
    shoe.scan("TS")  # burns 10
    for _ in range(7):
        shoe.scan("TS")
    before = shoe.to_dict()
    with pytest.raises(ShoeError) as err:
        shoe.scan("TS")
    assert err.value.reason == "ninth-copy"
    assert "TS" in str(err.value)
    assert shoe.to_dict() == before
    assert shoe.counts["TS"] == 8 and shoe.burn_remaining == 3
    shoe.scan("TH")  # a different card is still fine


def test_a_bad_card_code_changes_nothing() -> None:
    shoe = Shoe("s1")
    with pytest.raises(CardError):
        shoe.scan("10S")
    assert shoe.phase is ShoePhase.SHUFFLED and shoe.cards_drawn == 0


def test_a_shoe_has_no_more_cards_than_its_decks() -> None:
    shoe = Shoe("one-deck", decks=1)
    shoe.scan("KS")
    shoe.confirm_burn()  # 11 cards out
    shoe.start_round()
    others = [c for c in SPEC_CODES if c != "KS"]
    for card in others[:41]:
        shoe.scan(card)
    assert shoe.cards_left == 0
    with pytest.raises(ShoeError) as err:
        shoe.scan(others[41])
    assert err.value.reason == "shoe-empty"


def test_to_dict_and_from_dict_round_trip_in_every_phase() -> None:
    shoe = Shoe("s1", per_round_burn=1)
    snapshots = [shoe.to_dict()]
    shoe.scan("3H")
    snapshots.append(shoe.to_dict())  # burning
    shoe.scan("4H")
    shoe.scan("5H")
    shoe.scan("6H")
    snapshots.append(shoe.to_dict())  # ready
    shoe.start_round()
    snapshots.append(shoe.to_dict())  # round burn
    shoe.scan("7H")
    shoe.scan("8H")
    shoe.cut_card()
    snapshots.append(shoe.to_dict())  # in round, last
    shoe.end_round()
    snapshots.append(shoe.to_dict())  # closed
    phases = [s["phase"] for s in snapshots]
    assert phases == ["shuffled", "burning", "ready", "round-burn", "in-round", "closed"]
    for snap in snapshots:
        through_json = json.loads(json.dumps(snap))
        again = Shoe.from_dict(through_json)
        assert again.to_dict() == snap
        assert again.phase is ShoePhase(snap["phase"])


def test_a_restored_shoe_goes_on_exactly_like_the_original() -> None:
    shoe = Shoe("s1")
    shoe.scan("2C")
    shoe.scan("2C")
    copy = Shoe.from_dict(json.loads(json.dumps(shoe.to_dict())))
    assert copy == shoe
    for s in (shoe, copy):
        s.scan("2C")
        s.start_round()
        for _ in range(5):
            s.scan("2C")
        with pytest.raises(ShoeError):  # the restored counts still stop the ninth copy
            s.scan("2C")
    assert copy.to_dict() == shoe.to_dict()


# --- money ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3:2", Fraction(3, 2)), ("0.95:1", Fraction(19, 20)), ("1:2", Fraction(1, 2)), ("11:1", Fraction(11)),
     ("0.54:1", Fraction(27, 50)), ("1.5:1", Fraction(3, 2)), ("8:1", Fraction(8)), ("0:1", Fraction(0)),
     ("0.1:1", Fraction(1, 10)), ("6:4", Fraction(3, 2)), (" 3 : 2 ", Fraction(3, 2))],
)
def test_ratio_parsing_is_exact(text: str, expected: Fraction) -> None:
    value = parse_ratio(text)
    assert value == expected and isinstance(value, Fraction)


def test_ratio_from_int_or_fraction() -> None:
    assert parse_ratio(2) == Fraction(2)
    assert parse_ratio(Fraction(19, 20)) == Fraction(19, 20)


@pytest.mark.parametrize("bad", ["3/2", "3:", ":2", "-1:2", "1:-2", "1:0", "abc", "", "1e2:1", "3:2:1", "0,95:1",
                                 ".5:1", "1:2x", -1, 1.5, 0.95, True, None, [3, 2]])
def test_bad_ratios_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_ratio(bad)  # type: ignore[arg-type]


def test_a_ratio_that_divides_by_zero_says_so() -> None:
    with pytest.raises(ValueError, match="zero"):
        parse_ratio("3:0")
    with pytest.raises(ValueError, match="A:B"):
        parse_ratio("3-2")


def test_format_ratio_and_the_pydantic_field_round_trip() -> None:
    assert format_ratio(Fraction(19, 20)) == "19:20"
    assert format_ratio(Fraction(11)) == "11:1"

    class Pays(BaseModel):
        pays: Ratio

    model = Pays.model_validate({"pays": "0.95:1"})
    assert model.pays == Fraction(19, 20)
    assert model.model_dump(mode="json") == {"pays": "19:20"}
    assert Pays.model_validate(model.model_dump(mode="json")) == model
    with pytest.raises(ValidationError):
        Pays.model_validate({"pays": 0.95})


@pytest.mark.parametrize(
    ("exact", "floored"),
    [(Fraction(95095, 100), 950), (Fraction(3003, 2), 1501), (Fraction(1001, 2), 500), (Fraction(999, 1000), 0),
     (Fraction(1000), 1000), (1501, 1501), (0, 0), (Fraction(-1, 2), -1), (Fraction(-1001, 2), -501)],
)
def test_floor_rounds_down_to_the_minor_unit(exact: Fraction | int, floored: int) -> None:
    value = floor_amount(exact)
    assert value == floored and type(value) is int


def test_common_md_money_examples() -> None:
    # A 1001 blackjack wins 1501 (3:2, rounded down).
    assert floor_amount(winnings(1001, parse_ratio("3:2"))) == 1501
    assert winnings(1001, parse_ratio("3:2")) == Fraction(3003, 2)
    # A surrendered 1001 returns 500 (net -501); insuring 1001 costs 500.
    returned = floor_amount(Fraction(1001, 2))
    assert (returned, returned - 1001) == (500, -501)
    # The 5% commission: 1001 banker win pays 950.95 -> 950.
    assert floor_amount(winnings(1001, parse_ratio("0.95:1"))) == 950
    assert fraction_text(Fraction(3003, 2)) == "3003/2" and fraction_text(Fraction(1501)) == "1501"


# --- rules ---------------------------------------------------------------------------------------


def test_deluxe_blackjack_defaults() -> None:
    rules = default_rules("deluxe-blackjack")
    assert isinstance(rules, BlackjackRules)
    assert rules.variant == "deluxe" and rules.hole_card is True
    assert rules.max_seats_per_player == 2 and rules.seats == 7
    assert rules.short_balance == "hit-or-stand"
    assert rules.split_deal == "each-in-turn"
    assert rules.seated_may_bet_behind is True and rules.mirror_seat_bets is True
    assert rules.idle_seat_rounds == 1
    assert rules.blackjack_pays == Fraction(3, 2) and rules.win_pays == 1 and rules.insurance_pays == 2
    assert rules.pair_paytable.same_rank == 11 and rules.pair_paytable.perfect is None
    assert rules.dealer_hits_soft_17 is False and rules.surrender is True and rules.double_after_split is True


def test_classic_blackjack_defaults() -> None:
    rules = default_rules("blackjack")
    assert isinstance(rules, BlackjackRules)
    assert rules.variant == "classic" and rules.hole_card is False
    assert rules.max_seats_per_player == 1
    assert rules.short_balance == "illegal"
    assert rules.split_deal == "both-first"
    assert rules.seated_may_bet_behind is False and rules.mirror_seat_bets is False
    assert rules.dealer_bj_takes == "all"
    assert rules.blackjack_pays == Fraction(3, 2) and rules.pair_paytable.same_rank == 11


def test_timer_defaults_from_common_and_blackjack_md() -> None:
    for game in ("deluxe-blackjack", "blackjack", "baccarat", "pok-deng"):
        timers = default_rules(game).timers
        assert timers.countdown == 15 and timers.pause_void == 600
    timers = default_rules("blackjack").timers
    assert (timers.decision, timers.follow) == (15, 5)


def test_baccarat_defaults() -> None:
    rules = default_rules("baccarat")
    assert isinstance(rules, BaccaratRules)
    pay = rules.payouts
    assert (pay.player, pay.banker, pay.banker_no_commission, pay.banker_no_commission_six) == (
        1, Fraction(95, 100), 1, Fraction(1, 2))
    assert (pay.tie, pay.player_pair, pay.banker_pair) == (8, 11, 11)
    assert set(rules.modes) == {"commission", "no-commission"}
    lucky, big, small = rules.side_bets["lucky-6"], rules.side_bets["big"], rules.side_bets["small"]
    assert (lucky.pays, lucky.pays_three_cards, lucky.max_round) == (12, 20, None)
    assert (big.pays, big.max_round) == (Fraction(54, 100), 60)
    assert (small.pays, small.max_round) == (Fraction(3, 2), 60)
    assert rules.player_limit is None and rules.banker_limit is None


def test_pok_deng_defaults() -> None:
    rules = default_rules("pok-deng")
    assert isinstance(rules, PokDengRules)
    pay = rules.payouts
    assert (pay.win, pay.win_special, pay.lose, pay.lose_special, pay.pair) == (1, 2, 1, 2, 11)
    assert [c.name for c in rules.special_combinations] == ["lion-flush", "special-pair", "court-cards",
                                                          "ten-and-court", "flush-worth-0"]
    assert rules.reservation == 2
    assert set(rules.limits) == {f"player-{n}" for n in range(1, 6)} | {f"player-{n}-pair" for n in range(1, 6)}


@pytest.mark.parametrize("game", ["deluxe-blackjack", "blackjack", "baccarat", "pok-deng"])
def test_default_rules_are_load_rules_without_overrides(game: str) -> None:
    assert default_rules(game) == load_rules(game, {}) == load_rules(game, None) == load_rules(game)


def test_overrides_merge_into_the_defaults() -> None:
    rules = load_rules("baccarat", {"payouts": {"tie": "9:1"}, "side_bets": {"big": {"max_round": 40}},
                                    "timers": {"countdown": 5}})
    assert isinstance(rules, BaccaratRules)
    assert rules.payouts.tie == 9
    assert rules.payouts.banker == Fraction(19, 20) and rules.payouts.player_pair == 11  # untouched siblings
    assert rules.side_bets["big"].max_round == 40 and rules.side_bets["big"].pays == Fraction(27, 50)
    assert rules.side_bets["small"].max_round == 60
    assert rules.timers.countdown == 5 and rules.timers.decision == 15
    assert rules.limits["player"] == default_rules("baccarat").limits["player"]  # type: ignore[union-attr]


def test_a_side_bet_given_null_is_not_offered() -> None:
    # GIVEN a baccarat table configured without Big and Small
    rules = load_rules("baccarat", {"side_bets": {"big": None, "small": None}})
    assert isinstance(rules, BaccaratRules)
    # THEN it offers Lucky 6 alone, and a bet on Big is refused, saying so
    assert list(rules.side_bets) == ["lucky-6"]
    with pytest.raises(BetRefused, match="this table does not offer 'big'") as refused:
        validate_bets(rules, [Bet("b1", "p1", "big", 1000)], 1)
    assert refused.value.reason == "not-offered"
    validate_bets(rules, [Bet("b1", "p1", "lucky-6", 1000)], 1)
    # an empty object, or a side bet left out, still merges into the defaults: all three offered
    assert list(load_rules("baccarat", {"side_bets": {}}).side_bets) == ["lucky-6", "big", "small"]  # type: ignore[union-attr]


@pytest.mark.parametrize("game", GAMES)
def test_rules_as_overrides_give_the_same_rules_back(game: str) -> None:
    """What a round stores of its rules (``as_overrides``) loads as the rules it played: a side bet
    the table took away stays away (left out of the overrides, the merge would offer it again)."""
    drawn = [house_apart(game, house_rules(game, random.Random(seed)), random.Random(-seed)) for seed in range(60)]
    if game == "baccarat":
        # side bets taken away: none to all; the others' last rounds in a shoe drawn
        assert {sum(side is None for side in d.get("side_bets", {}).values()) for d in drawn} == {0, 1, 2, 3}
        assert {"max_round"} in [set(side or {}) for d in drawn for side in d.get("side_bets", {}).values()]
    for overrides in [{}, *drawn]:
        rules = load_rules(game, overrides)
        assert load_rules(game, as_overrides(rules)) == rules, overrides


def test_blackjack_overrides_keep_the_table_variant() -> None:
    rules = load_rules("deluxe-blackjack", {"dealer_hits_soft_17": True, "blackjack_pays": "6:5",
                                            "limits": {"pair": {"max": 1000}}})
    assert isinstance(rules, BlackjackRules)
    assert rules.dealer_hits_soft_17 is True and rules.blackjack_pays == Fraction(6, 5)
    assert rules.variant == "deluxe" and rules.max_seats_per_player == 2
    assert rules.limits["pair"].max == 1000 and rules.limits["pair"].min == 100
    assert rules.limits["seat"] == default_rules("deluxe-blackjack").limits["seat"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("game", "overrides", "name"),
    [("baccarat", {"foo": 1}, "foo"), ("baccarat", {"payouts": {"dragon": "1:1"}}, "payouts.dragon"),
     ("baccarat", {"side_bets": {"dragon-7": {"pays": "40:1"}}}, "dragon-7"),
     ("pok-deng", {"payout": {"win": "1:1"}}, "payout"), ("blackjack", {"soft17": True}, "soft17"),
     ("deluxe-blackjack", {"timers": {"countdwn": 5}}, "timers.countdwn")],
)
def test_unknown_rule_names_are_an_error_naming_them(game: str, overrides: dict[str, object], name: str) -> None:
    with pytest.raises(RulesError) as err:
        load_rules(game, overrides)
    assert err.value.reason == "bad-rules"
    assert name in str(err.value) and game in str(err.value)
    assert "\n" not in str(err.value)


def test_unknown_game_is_an_error_listing_the_games() -> None:
    with pytest.raises(RulesError) as err:
        load_rules("roulette")
    assert err.value.reason == "unknown-game"
    assert "roulette" in str(err.value)
    for game in ("deluxe-blackjack", "blackjack", "baccarat", "pok-deng"):
        assert game in str(err.value)


def test_bad_rule_values_are_an_error_naming_the_field() -> None:
    for overrides, where in [({"payouts": {"tie": "eight"}}, "payouts.tie"), ({"modes": []}, "mode"),
                             ({"player_limit": -1}, "player_limit"), ({"timers": {"countdown": 601}}, "countdown")]:
        with pytest.raises(RulesError, match=where):
            load_rules("baccarat", overrides)
    with pytest.raises(RulesError, match="reservation"):
        load_rules("pok-deng", {"reservation": 1})  # cannot cover a 2x loss


def test_pair_paytable_same_rank_or_perfect_pairs() -> None:
    assert PairPaytable.model_validate({"same-rank": "11:1"}).same_rank == 11
    graded = PairPaytable.model_validate({"mixed": "6:1", "coloured": "12:1", "perfect": "25:1"})
    assert (graded.mixed, graded.coloured, graded.perfect, graded.same_rank) == (6, 12, 25, None)
    with pytest.raises(ValidationError, match="not both"):
        PairPaytable.model_validate({"same-rank": "11:1", "mixed": "6:1", "coloured": "12:1", "perfect": "25:1"})
    with pytest.raises(ValidationError, match="needs all"):
        PairPaytable.model_validate({"mixed": "6:1", "coloured": "12:1"})
    with pytest.raises(ValidationError):
        PairPaytable.model_validate({})


def test_perfect_pairs_through_table_rules() -> None:
    rules = load_rules("deluxe-blackjack", {"pair_paytable": {"same-rank": None, "mixed": "6:1", "coloured": "12:1",
                                                              "perfect": "25:1"}})
    assert isinstance(rules, BlackjackRules)
    assert rules.pair_paytable.perfect == 25 and rules.pair_paytable.same_rank is None
    with pytest.raises(RulesError, match="not both"):
        load_rules("deluxe-blackjack", {"pair_paytable": {"mixed": "6:1", "coloured": "12:1", "perfect": "25:1"}})


def test_limit_min_at_most_max() -> None:
    assert Limit(min=100, max=100).max == 100
    with pytest.raises(ValidationError, match="below min"):
        Limit(min=101, max=100)
    with pytest.raises(ValidationError):
        Limit(min=0, max=100)
    with pytest.raises(RulesError, match="below min"):
        load_rules("baccarat", {"limits": {"tie": {"min": 500, "max": 100}}})
    with pytest.raises(RulesError, match="below min"):
        load_rules("blackjack", {"limits": {"seat": {"min": 600_000}}})  # over the default max 500000


def test_rules_are_frozen() -> None:
    rules = default_rules("baccarat")
    with pytest.raises(ValidationError):
        rules.player_limit = 5  # type: ignore[misc, union-attr]
