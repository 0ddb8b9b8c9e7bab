"""The betting phase (betting.py): seats, bet requests all or nothing, the close of the countdown."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from croupier import betting
from croupier.betting import BetRequest, RoundContext, SeatState
from croupier.errors import BetRefused, RulesError
from croupier.games.base import Bet
from croupier.rules import BaccaratRules, BlackjackRules, PokDengRules, Rules, load_rules

DELUXE = load_rules("deluxe-blackjack")
CLASSIC = load_rules("blackjack")
BACCARAT = load_rules("baccarat")
POKDENG = load_rules("pok-deng")
assert isinstance(DELUXE, BlackjackRules) and isinstance(CLASSIC, BlackjackRules)
assert isinstance(BACCARAT, BaccaratRules) and isinstance(POKDENG, PokDengRules)
GAME = {id(DELUXE): "deluxe-blackjack", id(CLASSIC): "blackjack", id(BACCARAT): "baccarat", id(POKDENG): "pok-deng"}
RICH = 10_000_000


def seatmap(**who: Any) -> dict[int, SeatState]:
    """``seatmap(s1="p1", s3=("p2", 1))``: seat 1 held by p1, seat 3 by p2 with grace 1."""
    out = {}
    for key, value in who.items():
        player, grace = value if isinstance(value, tuple) else (value, 0)
        out[int(key[1:])] = SeatState(player, "real", grace)
    return out


def place(rules: Rules, requests: list[BetRequest], *, player: str = "p1", kind: str = "real",
          existing: list[Bet] | None = None, seats: dict[int, SeatState] | None = None, balance: int = RICH,
          round_in_shoe: int = 1, game: str | None = None) -> betting.Placement:
    ctx = RoundContext(round_in_shoe, seats or {})
    return betting.place_bets(game or GAME[id(rules)], rules, ctx, player, kind, existing or [], requests, balance)


def refused(reason: str, rules: Rules, requests: list[BetRequest], **kw: Any) -> BetRefused:
    """The request is refused with ``reason`` and none of the inputs changed."""
    snapshot = copy.deepcopy((requests, kw))
    with pytest.raises(BetRefused) as err:
        place(rules, requests, **kw)
    assert err.value.reason == reason, str(err.value)
    assert (requests, kw) == snapshot
    return err.value


def seat(amount: int, n: int) -> BetRequest:
    return BetRequest("seat", amount, n)


def amounts(placement: betting.Placement) -> dict[str, tuple[int, int, int]]:
    """bet id -> (new total, previous, debit)."""
    return {c.bet.id: (c.bet.amount, c.previous, c.debit) for c in placement.changes}


# --- seats -----------------------------------------------------------------------------------


def test_sit_takes_an_empty_seat_and_leaves_the_input_alone() -> None:
    seats = seatmap(s1="p2")
    after = betting.sit(DELUXE, seats, "p1", 3, "real")
    assert after == {1: SeatState("p2"), 3: SeatState("p1", "real", 0)}
    assert seats == seatmap(s1="p2")


def test_sit_refuses_an_occupied_seat() -> None:
    with pytest.raises(BetRefused) as err:
        betting.sit(DELUXE, seatmap(s1="p2"), "p1", 1, "real")
    assert err.value.reason == "seat-taken"


def test_sitting_again_on_ones_own_seat_changes_nothing() -> None:
    seats = seatmap(s1="p1")
    assert betting.sit(DELUXE, seats, "p1", 1, "real") == seats


def test_deluxe_player_may_occupy_two_seats_but_not_three() -> None:
    seats = betting.sit(DELUXE, seatmap(s1="p1"), "p1", 4, "real")
    assert sorted(n for n, s in seats.items() if s.player == "p1") == [1, 4]
    with pytest.raises(BetRefused) as err:
        betting.sit(DELUXE, seats, "p1", 6, "real")
    assert err.value.reason == "too-many-seats"


def test_classic_player_may_occupy_one_seat() -> None:
    with pytest.raises(BetRefused) as err:
        betting.sit(CLASSIC, seatmap(s1="p1"), "p1", 2, "real")
    assert err.value.reason == "too-many-seats"


@pytest.mark.parametrize("kind", ["trial", "fun"])
def test_trial_and_fun_accounts_may_not_occupy_seats(kind: str) -> None:
    with pytest.raises(BetRefused) as err:
        betting.sit(DELUXE, {}, "p1", 1, kind)
    assert err.value.reason == "account-may-not-sit"


def test_unknown_account_kind_is_refused() -> None:
    with pytest.raises(BetRefused) as err:
        betting.sit(DELUXE, {}, "p1", 1, "vip")
    assert err.value.reason == "bad-account-kind"


@pytest.mark.parametrize("number", [0, 8, -1, True, "1"])
def test_sit_refuses_a_seat_that_does_not_exist(number: Any) -> None:
    with pytest.raises(BetRefused) as err:
        betting.sit(DELUXE, {}, "p1", number, "real")
    assert err.value.reason == "bad-seat"


def test_only_blackjack_tables_have_seats() -> None:
    with pytest.raises(RulesError):
        betting.sit(BACCARAT, {}, "p1", 1, "real")  # type: ignore[arg-type]


def test_leave_frees_the_seat() -> None:
    assert betting.leave(seatmap(s1="p1", s2="p2"), "p1", 1) == seatmap(s2="p2")


def test_leave_refuses_a_seat_the_player_does_not_hold() -> None:
    for seats in ({}, seatmap(s1="p2")):
        with pytest.raises(BetRefused) as err:
            betting.leave(seats, "p1", 1)
        assert err.value.reason == "not-your-seat"


def test_seat_map_round_trips_through_storage() -> None:
    seats = {2: SeatState("p1", "real", 1), 5: SeatState("p2")}
    assert betting.seats_from_dict(betting.seats_to_dict(seats)) == seats


# --- requests in general ---------------------------------------------------------------------


def test_empty_request_is_refused() -> None:
    refused("empty-request", BACCARAT, [])


@pytest.mark.parametrize("amount", [0, -100, True, 1.5, "100"])
def test_amount_must_be_a_positive_whole_number(amount: Any) -> None:
    refused("bad-amount", BACCARAT, [BetRequest("player", amount)])


@pytest.mark.parametrize("rules", [DELUXE, CLASSIC, BACCARAT, POKDENG])
def test_unknown_bet_type_is_refused(rules: Rules) -> None:
    refused("unknown-bet-type", rules, [BetRequest("jackpot", 1000, 1)], seats=seatmap(s1="p1"))


def test_rules_of_another_game_are_an_error() -> None:
    with pytest.raises(RulesError):
        place(BACCARAT, [BetRequest("player", 1000)], game="pok-deng")
    with pytest.raises(RulesError):
        place(BACCARAT, [BetRequest("player", 1000)], game="roulette")


def test_a_new_bet_is_written_with_its_debit() -> None:
    p = place(BACCARAT, [BetRequest("player", 1000), BetRequest("tie", 200)], balance=5000)
    assert amounts(p) == {"p1:player": (1000, 0, 1000), "p1:tie": (200, 0, 200)}
    assert p.debit == 1200 and p.balance_after == 3800
    assert all(c.is_new for c in p.changes)


def test_new_bet_ids_can_come_from_the_caller() -> None:
    ctx = RoundContext()
    p = betting.place_bets("baccarat", BACCARAT, ctx, "p1", "real", [], [BetRequest("player", 1000),
                           BetRequest("tie", 200)], RICH, new_id=lambda i: f"r1-key-{i}")
    assert [c.bet.id for c in p.changes] == ["r1-key-0", "r1-key-1"]


def test_an_addition_updates_the_existing_bet_with_the_extra_debit() -> None:
    existing = [Bet("b7", "p1", "player", 1000)]
    p = place(BACCARAT, [BetRequest("player", 500)], existing=existing)
    (change,) = p.changes
    assert change.bet == Bet("b7", "p1", "player", 1500) and change.previous == 1000 and change.debit == 500
    assert not change.is_new and change.added == 500
    assert existing == [Bet("b7", "p1", "player", 1000)]


def test_two_items_of_one_bet_in_a_request_add_up() -> None:
    p = place(BACCARAT, [BetRequest("player", 500), BetRequest("player", 700)])
    assert amounts(p) == {"p1:player": (1200, 0, 1200)}


def test_table_limits_apply_to_the_total_after_the_addition() -> None:
    existing = [Bet("b", "p1", "tie", 99_950)]
    refused("table-limit", BACCARAT, [BetRequest("tie", 100)], existing=existing)
    # An addition below the minimum is fine when the total is within the limits.
    assert amounts(place(BACCARAT, [BetRequest("tie", 50)], existing=existing))["b"] == (100_000, 99_950, 50)


def test_a_bet_below_the_table_minimum_is_refused() -> None:
    refused("table-limit", BACCARAT, [BetRequest("player", 99)])


def test_the_balance_must_cover_the_whole_debit() -> None:
    refused("insufficient-balance", BACCARAT, [BetRequest("player", 1000), BetRequest("tie", 100)], balance=1099)
    assert place(BACCARAT, [BetRequest("player", 1000), BetRequest("tie", 100)], balance=1100).debit == 1100


def test_a_request_is_all_or_nothing() -> None:
    refused("table-limit", BACCARAT, [BetRequest("player", 1000), BetRequest("tie", 100_001)])


def test_existing_bets_of_another_player_are_a_programming_error() -> None:
    with pytest.raises(ValueError):
        place(BACCARAT, [BetRequest("player", 1000)], existing=[Bet("b", "p2", "player", 1000)])


# --- baccarat --------------------------------------------------------------------------------


def test_baccarat_side_bet_past_max_round_is_refused() -> None:
    assert place(BACCARAT, [BetRequest("big", 1000)], round_in_shoe=60).debit == 1000
    err = refused("max-round", BACCARAT, [BetRequest("big", 1000)], round_in_shoe=61)
    assert "1 to 60" in str(err)
    assert place(BACCARAT, [BetRequest("lucky-6", 1000)], round_in_shoe=200).debit == 1000


def test_baccarat_side_bet_the_table_does_not_offer_is_refused() -> None:
    rules = BACCARAT.model_copy(update={"side_bets": {k: v for k, v in BACCARAT.side_bets.items() if k != "big"}})
    refused("not-offered", rules, [BetRequest("big", 1000)], game="baccarat")


def test_baccarat_banker_limit() -> None:
    rules = BACCARAT.model_copy(update={"banker_limit": 5000})
    assert place(rules, [BetRequest("banker", 5000)], game="baccarat").debit == 5000
    refused("banker-limit", rules, [BetRequest("banker", 5001)], game="baccarat")
    # A bet on Player raises the allowed Banker bet by the same amount, in the same request or earlier.
    assert place(rules, [BetRequest("banker", 8000), BetRequest("player", 3000)], game="baccarat").debit == 11_000
    existing = [Bet("b", "p1", "player", 3000)]
    assert place(rules, [BetRequest("banker", 8000)], existing=existing, game="baccarat").debit == 8000


def test_baccarat_player_limit() -> None:
    rules = BACCARAT.model_copy(update={"player_limit": 1000})
    refused("player-limit", rules, [BetRequest("player", 1500)], game="baccarat",
            existing=[Bet("b", "p1", "banker", 400, mode="commission")])
    assert place(rules, [BetRequest("player", 1400)], existing=[Bet("b", "p1", "banker", 400)],
                 game="baccarat").debit == 1400


def test_baccarat_banker_mode_is_recorded_and_must_be_offered() -> None:
    (change,) = place(BACCARAT, [BetRequest("banker", 1000)]).changes
    assert change.bet.mode == "commission"
    (change,) = place(BACCARAT, [BetRequest("banker", 1000, mode="no-commission")]).changes
    assert change.bet.mode == "no-commission"
    rules = BACCARAT.model_copy(update={"modes": ("commission",)})
    refused("bad-mode", rules, [BetRequest("banker", 1000, mode="no-commission")], game="baccarat")


def test_baccarat_banker_bet_cannot_change_mode() -> None:
    existing = [Bet("b", "p1", "banker", 1000, mode="no-commission")]
    refused("mode-mismatch", BACCARAT, [BetRequest("banker", 1000)], existing=existing)
    assert place(BACCARAT, [BetRequest("banker", 1000, mode="no-commission")], existing=existing).debit == 1000


def test_baccarat_only_banker_carries_a_mode_and_nothing_takes_a_seat() -> None:
    refused("bad-bet", BACCARAT, [BetRequest("player", 1000, mode="commission")])
    refused("bad-bet", BACCARAT, [BetRequest("player", 1000, seat=1)])


# --- pok deng --------------------------------------------------------------------------------


def test_pokdeng_player_bet_debits_the_reservation() -> None:
    p = place(POKDENG, [BetRequest("player-3", 1000)], balance=2000)
    assert amounts(p) == {"p1:player-3": (1000, 0, 2000)} and p.balance_after == 0


def test_pokdeng_reservation_comes_from_the_rules() -> None:
    rules = load_rules("pok-deng", {"reservation": 3})
    assert place(rules, [BetRequest("player-1", 1000)], game="pok-deng").debit == 3000
    assert betting.debit_of(rules, "player-1", 1000) == 3000 and betting.debit_of(rules, "player-1-pair", 10) == 10


def test_pokdeng_pair_bet_debits_only_its_stake() -> None:
    assert place(POKDENG, [BetRequest("player-2-pair", 1000)]).debit == 1000


def test_pokdeng_balance_must_cover_twice_the_stake() -> None:
    refused("insufficient-balance", POKDENG, [BetRequest("player-1", 1000)], balance=1999)


def test_pokdeng_addition_reserves_twice_the_addition() -> None:
    existing = [Bet("b", "p1", "player-1", 1000)]
    assert amounts(place(POKDENG, [BetRequest("player-1", 500)], existing=existing)) == {"b": (1500, 1000, 1000)}


def test_pokdeng_bets_take_no_seat_and_no_mode() -> None:
    refused("bad-bet", POKDENG, [BetRequest("player-1", 1000, seat=1)])
    refused("bad-bet", POKDENG, [BetRequest("player-1", 1000, mode="commission")])


def test_pokdeng_limits() -> None:
    refused("table-limit", POKDENG, [BetRequest("player-1-pair", 50_001)])


# --- blackjack: seat bets --------------------------------------------------------------------


def test_seat_bet_only_by_the_player_seated_there() -> None:
    refused("not-your-seat", CLASSIC, [seat(1000, 1)], seats=seatmap(s1="p2"))
    refused("not-your-seat", CLASSIC, [seat(1000, 1)], seats={})
    assert amounts(place(CLASSIC, [seat(1000, 1)], seats=seatmap(s1="p1"))) == {"p1:seat:1": (1000, 0, 1000)}


def test_seat_bet_refused_for_trial_and_fun_accounts() -> None:
    refused("account-may-not-sit", DELUXE, [seat(1000, 1)], kind="trial", seats=seatmap(s1="p1"))


@pytest.mark.parametrize("number", [None, 0, 8, True])
def test_blackjack_bets_need_a_real_seat_number(number: Any) -> None:
    refused("bad-seat", DELUXE, [BetRequest("pair", 1000, number)], seats=seatmap(s1="p2"))


def test_blackjack_bets_carry_no_mode() -> None:
    refused("bad-bet", DELUXE, [BetRequest("behind", 1000, 1, mode="commission")], seats=seatmap(s1="p2"))


def test_seat_bet_limits() -> None:
    refused("table-limit", CLASSIC, [seat(500_001, 1)], seats=seatmap(s1="p1"))
    refused("table-limit", CLASSIC, [seat(99, 1)], seats=seatmap(s1="p1"))


# --- blackjack: bet behind -------------------------------------------------------------------


def test_bet_behind_needs_an_occupied_seat() -> None:
    refused("seat-empty", DELUXE, [BetRequest("behind", 1000, 3)], seats=seatmap(s1="p2"))


def test_bet_behind_by_anyone_not_seated_including_trial_accounts() -> None:
    p = place(CLASSIC, [BetRequest("behind", 1000, 1), BetRequest("behind", 500, 2)], kind="fun",
              seats=seatmap(s1="p2", s2="p3"))
    assert amounts(p) == {"p1:behind:1": (1000, 0, 1000), "p1:behind:2": (500, 0, 500)}


def test_deluxe_seated_player_may_bet_behind_other_seats() -> None:
    assert place(DELUXE, [BetRequest("behind", 1000, 2)], seats=seatmap(s1="p1", s2="p2")).debit == 1000


def test_deluxe_never_behind_ones_own_seat() -> None:
    refused("behind-own-seat", DELUXE, [BetRequest("behind", 1000, 1)], seats=seatmap(s1="p1"))


def test_deluxe_no_seat_bet_on_a_seat_one_bets_behind() -> None:
    # p1 bet behind seat 1 while p2 sat there; p2 left and p1 took the seat.
    existing = [Bet("b", "p1", "behind", 1000, 1)]
    refused("behind-own-seat", DELUXE, [seat(1000, 1)], existing=existing, seats=seatmap(s1="p1"))


def test_classic_seated_player_may_not_bet_behind() -> None:
    refused("seated-bet-behind", CLASSIC, [BetRequest("behind", 1000, 2)], seats=seatmap(s1="p1", s2="p2"))


def test_classic_player_with_bet_behind_bets_may_not_place_a_seat_bet() -> None:
    existing = [Bet("b", "p1", "behind", 1000, 2)]
    refused("seated-bet-behind", CLASSIC, [seat(1000, 1)], existing=existing, seats=seatmap(s1="p1", s2="p2"))


# --- blackjack: pair bets --------------------------------------------------------------------


def test_deluxe_pair_bets_by_anyone_on_any_occupied_seats() -> None:
    seats = seatmap(s1="p2", s3="p3", s5="p1")
    p = place(DELUXE, [BetRequest("pair", 100, n) for n in (1, 3, 5)], kind="trial", seats=seats)
    assert len(p.changes) == 3 and p.debit == 300


def test_pair_bet_on_an_empty_seat_is_refused() -> None:
    refused("seat-empty", DELUXE, [BetRequest("pair", 100, 4)], seats=seatmap(s1="p2"))


def test_classic_pair_bet_needs_the_seated_players_confirmed_seat_bet() -> None:
    seats = seatmap(s1="p1")
    refused("pair-before-seat-bet", CLASSIC, [BetRequest("pair", 100, 1)], seats=seats)
    assert place(CLASSIC, [BetRequest("pair", 100, 1)], seats=seats,
                 existing=[Bet("s", "p1", "seat", 1000, 1)]).debit == 100
    # In the same request, the seat bet is confirmed together with the pair bet.
    assert place(CLASSIC, [BetRequest("pair", 100, 1), seat(1000, 1)], seats=seats).debit == 1100


def test_classic_pair_bet_by_a_player_betting_behind_that_seat() -> None:
    seats = seatmap(s1="p2")
    assert place(CLASSIC, [BetRequest("pair", 100, 1)], seats=seats,
                 existing=[Bet("b", "p1", "behind", 1000, 1)]).debit == 100
    assert place(CLASSIC, [BetRequest("behind", 1000, 1), BetRequest("pair", 100, 1)], seats=seats).debit == 1100


def test_classic_pair_bet_refused_for_anyone_else() -> None:
    seats = seatmap(s1="p2", s2="p3")
    refused("pair-not-allowed", CLASSIC, [BetRequest("pair", 100, 1)], seats=seats)
    refused("pair-not-allowed", CLASSIC, [BetRequest("pair", 100, 1)], seats=seats,
            existing=[Bet("b", "p1", "behind", 1000, 2)])


# --- blackjack: Deluxe mirroring -------------------------------------------------------------

TWO = seatmap(s2="p1", s5="p1")


def test_mirroring_a_first_seat_bet_stands_on_both_seats() -> None:
    p = place(DELUXE, [seat(1000, 5)], seats=TWO)
    assert amounts(p) == {"p1:seat:5": (1000, 0, 1000), "p1:seat:2": (1000, 0, 1000)} and p.debit == 2000
    assert p.notes == ()


def test_mirroring_an_addition_adds_the_same_to_the_other_seat() -> None:
    existing = [Bet("a", "p1", "seat", 1000, 2), Bet("b", "p1", "seat", 1000, 5)]
    p = place(DELUXE, [seat(500, 2)], seats=TWO, existing=existing)
    assert amounts(p) == {"a": (1500, 1000, 500), "b": (1500, 1000, 500)}


def test_mirroring_splits_the_amount_when_the_balance_is_short() -> None:
    p = place(DELUXE, [seat(1001, 5)], seats=TWO, balance=1500)
    assert amounts(p) == {"p1:seat:2": (501, 0, 501), "p1:seat:5": (500, 0, 500)}  # odd unit: lower seat
    assert p.debit == 1001 and p.balance_after == 499 and "split" in p.notes[0]


def test_mirroring_split_levels_seats_after_an_earlier_odd_unit() -> None:
    existing = [Bet("a", "p1", "seat", 501, 2), Bet("b", "p1", "seat", 500, 5)]
    p = place(DELUXE, [seat(1001, 2)], seats=TWO, existing=existing, balance=1500)
    assert amounts(p) == {"a": (1001, 501, 500), "b": (1001, 500, 501)}


def test_mirroring_split_refused_when_half_is_below_the_minimum() -> None:
    err = refused("split-below-minimum", DELUXE, [seat(199, 2)], seats=TWO, balance=300)
    assert "minimum" in str(err)
    assert place(DELUXE, [seat(200, 2)], seats=TWO, balance=300).debit == 200


def test_mirroring_refused_when_the_balance_does_not_cover_the_amount() -> None:
    refused("insufficient-balance", DELUXE, [seat(1000, 2)], seats=TWO, balance=999)


def test_mirroring_decides_on_the_balance_left_after_the_other_bets() -> None:
    seats = {**TWO, 3: SeatState("p2")}
    one = place(DELUXE, [seat(1000, 2), BetRequest("behind", 500, 3)], seats=seats, balance=2000)
    other = place(DELUXE, [BetRequest("behind", 500, 3), seat(1000, 2)], seats=seats, balance=2000)
    assert amounts(one) == amounts(other) == {
        "p1:behind:3": (500, 0, 500), "p1:seat:2": (500, 0, 500), "p1:seat:5": (500, 0, 500)}


def test_mirroring_a_new_second_seat_is_brought_level() -> None:
    existing = [Bet("a", "p1", "seat", 1000, 2)]
    assert amounts(place(DELUXE, [seat(1000, 5)], seats=TWO, existing=existing)) == {"p1:seat:5": (1000, 0, 1000)}
    refused("mirror-seat-bets", DELUXE, [seat(600, 5)], seats=TWO, existing=existing)
    # An addition to the first seat raises the new one to the same total.
    p = place(DELUXE, [seat(500, 2)], seats=TWO, existing=existing)
    assert amounts(p) == {"a": (1500, 1000, 500), "p1:seat:5": (1500, 0, 1500)}


def test_mirroring_respects_the_seat_maximum() -> None:
    existing = [Bet("a", "p1", "seat", 400_000, 2), Bet("b", "p1", "seat", 400_000, 5)]
    refused("table-limit", DELUXE, [seat(100_001, 2)], seats=TWO, existing=existing)


def test_no_mirroring_with_one_seat_or_at_the_classic_table() -> None:
    assert place(DELUXE, [seat(1000, 2)], seats=seatmap(s2="p1")).debit == 1000
    rules = DELUXE.model_copy(update={"mirror_seat_bets": False})
    assert amounts(place(rules, [seat(1000, 2)], seats=TWO, game="deluxe-blackjack")) == {
        "p1:seat:2": (1000, 0, 1000)}


# --- closing the countdown -------------------------------------------------------------------


def bj_bets() -> list[Bet]:
    return [
        Bet("s1", "p1", "seat", 1000, 1),
        Bet("bh1", "p3", "behind", 500, 1),
        Bet("pr1", "p3", "pair", 100, 1),
        Bet("bh2", "p3", "behind", 500, 2),
        Bet("pr2", "p4", "pair", 100, 2),
    ]


def test_close_deals_seats_with_a_seat_bet_and_passes_their_bets_on() -> None:
    closing = betting.close_betting("deluxe-blackjack", DELUXE, seatmap(s1="p1"), bj_bets()[:3])
    assert [b.id for b in closing.bets] == ["s1", "bh1", "pr1"]
    assert closing.refunds == () and closing.dealt == (1,)
    assert closing.seats == {1: SeatState("p1", "real", DELUXE.idle_seat_rounds)}


def test_close_deluxe_keeps_a_seat_dealt_last_round_for_one_round_without_dealing_it() -> None:
    seats = seatmap(s1="p1", s2=("p2", 1))
    closing = betting.close_betting("deluxe-blackjack", DELUXE, seats, bj_bets())
    assert closing.kept == (2,) and closing.dealt == (1,) and closing.freed == ()
    assert {r.bet.id: (r.amount, r.reason) for r in closing.refunds} == {
        "bh2": (500, "seat-not-dealt"), "pr2": (100, "seat-not-dealt")}
    assert [b.id for b in closing.bets] == ["s1", "bh1", "pr1"]
    assert closing.seats[2] == SeatState("p2", "real", 0)
    # The round after, still no seat bet: the seat is lost.
    again = betting.close_betting("deluxe-blackjack", DELUXE, closing.seats, [])
    assert again.freed == (2,) and again.kept == (1,) and again.seats == {1: SeatState("p1", "real", 0)}


def test_close_deluxe_kept_seat_with_a_seat_bet_is_dealt_again() -> None:
    closing = betting.close_betting("deluxe-blackjack", DELUXE, seatmap(s2=("p2", 0)),
                                    [Bet("s", "p2", "seat", 1000, 2)])
    assert closing.dealt == (2,) and closing.seats[2].grace == 1


def test_close_classic_seated_player_who_does_nothing_leaves() -> None:
    closing = betting.close_betting("blackjack", CLASSIC, seatmap(s1="p1", s2=("p2", 0)), bj_bets())
    assert closing.freed == (2,) and 2 not in closing.seats and closing.kept == ()
    assert closing.seats[1].grace == 0
    assert sorted(r.bet.id for r in closing.refunds) == ["bh2", "pr2"]


def test_close_frees_a_seat_taken_this_round_without_a_seat_bet() -> None:
    closing = betting.close_betting("deluxe-blackjack", DELUXE, seatmap(s3="p1"), [Bet("p", "p2", "pair", 100, 3)])
    assert closing.freed == (3,) and closing.bets == () and closing.refunds[0].bet.id == "p"


def test_close_refunds_a_seat_bet_on_a_seat_its_player_no_longer_holds() -> None:
    bets = [Bet("s", "p1", "seat", 1000, 1), Bet("bh", "p2", "behind", 500, 1)]
    closing = betting.close_betting("deluxe-blackjack", DELUXE, {}, bets)
    assert {r.bet.id: r.reason for r in closing.refunds} == {"s": "seat-not-held", "bh": "seat-not-dealt"}
    assert closing.bets == ()


@pytest.mark.parametrize("rules", [BACCARAT, POKDENG])
def test_close_passes_baccarat_and_pokdeng_bets_through(rules: Rules) -> None:
    bets = [Bet("a", "p1", "player" if rules is BACCARAT else "player-1", 1000)]
    closing = betting.close_betting(GAME[id(rules)], rules, {}, bets)
    assert closing.bets == tuple(bets) and closing.refunds == ()


def test_the_engine_accepts_what_close_betting_gives_it() -> None:
    from croupier.games import new_round

    seats = seatmap(s1="p1", s2="p2", s4=("p5", 1))
    bets: list[Bet] = []
    for player, reqs, kind in [
        ("p1", [seat(1000, 1), BetRequest("pair", 100, 1)], "real"),
        ("p2", [seat(1000, 2), BetRequest("behind", 1000, 1)], "real"),
        ("p3", [BetRequest("behind", 500, 1), BetRequest("pair", 100, 2), BetRequest("behind", 500, 4)], "trial"),
    ]:
        placement = place(DELUXE, reqs, player=player, kind=kind, seats=seats)
        bets += [c.bet for c in placement.changes]
    closing = betting.close_betting("deluxe-blackjack", DELUXE, seats, bets)
    assert [r.bet.id for r in closing.refunds] == ["p3:behind:4"]
    engine = new_round("deluxe-blackjack", closing.bets, rules=DELUXE)
    assert engine.expected.kind == "card"


# --- start of a round ------------------------------------------------------------------------


def test_seated_player_who_cannot_cover_the_minimum_loses_the_seat() -> None:
    seats = seatmap(s1="p1", s2="p2")
    assert betting.seats_at_round_start(CLASSIC, seats, {"p1": 99, "p2": 100}) == seatmap(s2="p2")


def test_deluxe_player_who_covers_one_minimum_keeps_the_lower_seat() -> None:
    seats = seatmap(s2="p1", s5="p1")
    assert betting.seats_at_round_start(DELUXE, seats, {"p1": 199}) == seatmap(s2="p1")
    assert betting.seats_at_round_start(DELUXE, seats, {"p1": 200}) == seats
    assert betting.seats_at_round_start(DELUXE, seats, {"p1": 0}) == {}


def test_round_start_needs_every_seated_players_balance() -> None:
    with pytest.raises(ValueError):
        betting.seats_at_round_start(DELUXE, seatmap(s1="p1"), {})
