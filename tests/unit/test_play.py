"""What a table's page is told of its game (``play``) comes from the table's rules: change a rule and
what the page is told changes with it."""

from __future__ import annotations

from croupier.app.play import play
from croupier.rules import load_rules


def test_pok_deng_player_bets_reserve_the_tables_reservation_and_pairs_their_stake() -> None:
    told = play(load_rules("pok-deng", {"reservation": 3}))
    reserves = {b["type"]: b["reserves"] for b in told["bet_types"]}
    assert reserves["player-1"] == 3 and reserves["player-5"] == 3
    assert reserves["player-1-pair"] == 1
    assert told["kind"] == "pok-deng" and told["hands"][-1] == "banker" and len(told["hands"]) == 6
    assert play(load_rules("pok-deng"))["bet_types"][0]["reserves"] == load_rules("pok-deng").reservation


def test_baccarat_offers_its_side_bets_and_banker_modes_as_the_table_says() -> None:
    rules = load_rules("baccarat", {"modes": ["commission"]})
    told = play(rules)
    types = [b["type"] for b in told["bet_types"]]
    assert types[:5] == ["player", "banker", "tie", "player-pair", "banker-pair"]
    assert set(types[5:]) == set(rules.side_bets)
    banker = next(b for b in told["bet_types"] if b["type"] == "banker")
    assert banker["modes"] == ["commission"] and banker["seat"] is False
    assert all(b["modes"] is None for b in told["bet_types"] if b["type"] != "banker")
    tie = next(b for b in told["bet_types"] if b["type"] == "tie")
    assert (tie["min"], tie["max"]) == (rules.limits["tie"].min, rules.limits["tie"].max)


def test_blackjack_seats_mirroring_and_seat_bets_follow_the_rules() -> None:
    deluxe, classic = play(load_rules("deluxe-blackjack")), play(load_rules("blackjack", {"seats": 5}))
    assert deluxe["mirror_seat_bets"] is load_rules("deluxe-blackjack").mirror_seat_bets
    assert classic["mirror_seat_bets"] is False and classic["seats"] == 5
    assert classic["hands"] == ["dealer", "seat-1", "seat-2", "seat-3", "seat-4", "seat-5"]
    assert all(b["seat"] for b in classic["bet_types"])
    assert classic["rules"]["pair_paytable"]["same-rank"] == "11:1"
