"""Deluxe mirroring at the engine (blackjack.md, Seats): a player's two seat bets stand level,
except that an addition split between the seats leaves its odd minor unit on the lower seat
(the Decision). The engine accepts exactly what the betting phase produces."""

from __future__ import annotations

from typing import Any

import pytest

from croupier import betting
from croupier.betting import BetRequest, RoundContext, SeatState
from croupier.errors import BetRefused
from croupier.games.base import Action, Bet
from croupier.games.blackjack import BlackjackRound
from croupier.rules import BlackjackRules, load_rules
from croupier.transcript import Transcript, replay

D = "deluxe-blackjack"


def rules(**overrides: Any) -> BlackjackRules:
    loaded = load_rules(D, overrides)
    assert isinstance(loaded, BlackjackRules)
    return loaded


def seat(n: int, amount: int, player: str = "p1") -> Bet:
    return Bet(f"s{n}", player, "seat", amount, n)


def refused(bets: list[Bet], table: BlackjackRules | None = None) -> BetRefused:
    with pytest.raises(BetRefused) as err:
        BlackjackRound(table or rules(), bets)
    assert err.value.reason == "mirror-seat-bets", str(err.value)
    return err.value


def test_an_odd_unit_on_the_lower_seat_is_accepted() -> None:
    BlackjackRound(rules(), [seat(2, 501), seat(5, 500)])
    BlackjackRound(rules(), [seat(5, 500), seat(2, 501)])  # the order of the bets does not matter


def test_equal_amounts_are_accepted() -> None:
    BlackjackRound(rules(), [seat(2, 1000), seat(5, 1000)])


def test_the_odd_unit_on_the_higher_seat_is_refused() -> None:
    err = refused([seat(2, 500), seat(5, 501)])
    assert "seat 2: 500" in str(err) and "seat 5: 501" in str(err) and "lower seat" in str(err)


def test_a_difference_of_more_than_one_unit_is_refused() -> None:
    refused([seat(2, 502), seat(5, 500)])
    refused([seat(2, 1000), seat(5, 2000)])


def test_each_player_is_checked_on_their_own_seats() -> None:
    BlackjackRound(rules(), [seat(1, 1001, "p1"), seat(3, 1000, "p1"), seat(4, 5000, "p2"), seat(6, 5000, "p2")])
    refused([seat(1, 1001, "p1"), seat(3, 1000, "p1"), seat(4, 5000, "p2"), seat(6, 5001, "p2")])


def test_without_mirroring_any_amounts_stand() -> None:
    BlackjackRound(rules(mirror_seat_bets=False), [seat(2, 500), seat(5, 5000)])


def test_the_betting_phases_split_addition_is_accepted_and_replays() -> None:
    """blackjack.md's example: 1001 split over two seats when the balance does not cover it on
    each: 501 on the lower seat, 500 on the other. The round is dealt, played and replayed."""
    table = rules()
    seats = {2: SeatState("p1"), 5: SeatState("p1")}
    placement = betting.place_bets(D, table, RoundContext(1, seats), "p1", "real", [],
                                   [BetRequest("seat", 1001, 5)], 1500)
    bets = [change.bet for change in placement.changes]
    assert sorted((b.seat, b.amount) for b in bets) == [(2, 501), (5, 500)]
    engine = BlackjackRound(table, bets)
    for card in ("TS", "9H", "7C", "8D", "7S", "KC"):  # seat 2: T 8, seat 5: 9 7, dealer 7 K
        engine.deal(card)
    engine.act(Action(2, "stand"))
    engine.act(Action(5, "stand"))
    settlement = engine.settle()
    seat_of = {b.id: b.seat for b in bets}
    assert {seat_of[r.id]: (r.outcome, r.net) for r in settlement.bets} == {2: ("win", 501), 5: ("lose", -500)}
    again = replay(Transcript.of(engine))
    assert again.to_dict(full=True) == settlement.to_dict(full=True)
