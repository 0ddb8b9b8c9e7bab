"""Roads (croupier.roads): one test per rule, hand-drawn examples, the adapters, and a differential
test of the big road and the derived roads against an independent public implementation.

The hand-drawn grids are written as they appear on screen: row 0 at the top, one character a cell
(``.`` empty), cells separated by a space. Big Road cells are ``B``/``P``; derived road marks are
``r`` (red) and ``b`` (blue)."""

from __future__ import annotations

import json
import random
import textwrap
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croupier.cards import ALL_CARDS, BURN_VALUE, DECKS
from croupier.games.baccarat import BaccaratRound
from croupier.games.pokdeng import PokDengRound
from croupier.roads import (
    DERIVED_ROADS,
    ROWS,
    BaccaratResult,
    BaccaratRoads,
    PokDengRoads,
    baccarat_result,
    derived_colour,
    pokdeng_result,
)
from croupier.rules import BaccaratRules, PokDengRules

# --- helpers ---------------------------------------------------------------------------------

RESULT = {
    "B": BaccaratResult("banker", 2, 7),
    "P": BaccaratResult("player", 7, 2),
    "T": BaccaratResult("tie", 4, 4),
}


def roads_of(sequence: str) -> BaccaratRoads:
    """The roads of a shoe written as ``B``/``P``/``T`` (spaces ignored)."""
    return BaccaratRoads.of(RESULT[c] for c in sequence.replace(" ", ""))


def render(cells: Iterable[tuple[int, int, str]]) -> str:
    cells = list(cells)
    if not cells:
        return ""
    width = 1 + max(c for c, _, _ in cells)
    height = 1 + max(r for _, r, _ in cells)
    grid = [["."] * width for _ in range(height)]
    for column, row, mark in cells:
        assert grid[row][column] == ".", f"two marks in cell ({column}, {row})"
        grid[row][column] = mark
    return "\n".join(" ".join(line) for line in grid)


def art(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def big_road_art(roads: BaccaratRoads) -> str:
    return render((e.column, e.row, e.winner[0].upper()) for e in roads.big_road)


def derived_art(roads: BaccaratRoads, name: str) -> str:
    return render((e.column, e.row, e.colour[0]) for e in roads.road(name).entries)


def colours(roads: BaccaratRoads, name: str) -> str:
    return "".join(e.colour[0] for e in roads.road(name).entries)


# --- bead plate ------------------------------------------------------------------------------


def test_bead_plate_every_round_in_order_six_rows_a_column() -> None:
    roads = roads_of("BPTBBPP")
    beads = roads.bead_plate
    assert [(b.round, b.column, b.row, b.result.winner[0].upper()) for b in beads] == [
        (1, 0, 0, "B"), (2, 0, 1, "P"), (3, 0, 2, "T"), (4, 0, 3, "B"), (5, 0, 4, "B"), (6, 0, 5, "P"), (7, 1, 0, "P"),
    ]
    assert roads.to_dict()["bead_plate"]["columns"] == 2


def test_bead_carries_winner_pairs_points_and_natural() -> None:
    result = BaccaratResult("player", 9, 3, player_pair=True, banker_pair=False, natural=True)
    bead = BaccaratRoads().add(result).to_dict()["bead_plate"]["entries"][0]
    assert bead == {"round": 1, "column": 0, "row": 0, "winner": "player", "player_pair": True, "banker_pair": False,
                    "player_points": 9, "banker_points": 3, "natural": True}


# --- big road --------------------------------------------------------------------------------


def test_a_tie_takes_no_cell_and_is_counted_on_the_entry_before_it() -> None:
    roads = roads_of("BTTP")
    assert [(e.winner, e.ties, e.column, e.row) for e in roads.big_road] == [("banker", 2, 0, 0), ("player", 0, 1, 0)]


def test_ties_before_any_result_are_a_leading_count() -> None:
    roads = roads_of("TT")
    assert roads.big_road == () and roads.leading_ties == 2
    roads = roads_of("TTBT")
    assert roads.leading_ties == 2 and roads.big_road[0].ties == 1


def test_a_tie_between_two_wins_of_one_side_keeps_the_column() -> None:
    roads = roads_of("BTB")
    assert [(e.logical_column, e.logical_row) for e in roads.big_road] == [(0, 0), (0, 1)]


def test_pairs_are_marked_on_the_entry() -> None:
    roads = BaccaratRoads().add(BaccaratResult("banker", 1, 5, player_pair=True)).add(
        BaccaratResult("banker", 1, 5, banker_pair=True))
    assert [(e.player_pair, e.banker_pair) for e in roads.big_road] == [(True, False), (False, True)]


def test_a_new_column_when_the_winner_changes() -> None:
    roads = roads_of("BBPB")
    assert [(e.logical_column, e.logical_row) for e in roads.big_road] == [(0, 0), (0, 1), (1, 0), (2, 0)]
    assert roads.columns == (2, 1, 1)


def test_a_column_longer_than_six_turns_right_along_the_bottom() -> None:
    roads = roads_of("B" * 8)
    assert [(e.logical_row, e.column, e.row) for e in roads.big_road][5:] == [(5, 0, 5), (6, 1, 5), (7, 2, 5)]


def test_a_column_whose_cell_below_is_taken_turns_right_on_the_lowest_free_row_and_stays_there() -> None:
    # Banker's tail takes (1, 5): Player turns right at row 4 and stays on row 4 after (2, 5) is free.
    roads = roads_of("B" * 7 + "P" * 8)
    player = [(e.column, e.row) for e in roads.big_road if e.winner == "player"]
    assert player == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_new_column_whose_top_cell_is_taken_starts_further_right() -> None:
    # Nested tails on rows 5, 4, 3, 2, 1, 0: the seventh column cannot start at drawn column 6.
    roads = roads_of("B" * 7 + "P" * 6 + "B" * 5 + "P" * 4 + "B" * 3 + "P" * 2 + "B")
    assert roads.columns == (7, 6, 5, 4, 3, 2, 1)
    last = roads.big_road[-1]
    assert (last.logical_column, last.logical_row, last.column, last.row) == (6, 0, 7, 0)
    assert [(e.column, e.row) for e in roads.big_road if e.logical_column == 5] == [(5, 0), (6, 0)]


def test_every_entry_has_its_logical_and_its_drawn_cell() -> None:
    entry = roads_of("B" * 7).big_road[6]
    assert (entry.logical_column, entry.logical_row, entry.column, entry.row) == (0, 6, 1, 5)
    assert entry.to_dict() == {"round": 7, "winner": "banker", "ties": 0, "player_pair": False, "banker_pair": False,
                               "logical_column": 0, "logical_row": 6, "column": 1, "row": 5}


# --- derived roads: the rules ----------------------------------------------------------------


def test_new_column_red_when_the_two_columns_before_it_offset_apart_have_equal_lengths() -> None:
    assert derived_colour((2, 3, 2, 1), 3, 0, 1) == "blue"  # columns 2 and 1: 2 vs 3
    assert derived_colour((2, 3, 2, 1), 3, 0, 2) == "red"  # columns 2 and 0: 2 vs 2
    assert derived_colour((2, 3, 2, 1, 1), 4, 0, 3) == "blue"  # columns 3 and 0: 1 vs 2


def test_continuing_red_when_the_column_offset_to_the_left_has_an_entry_at_the_same_row() -> None:
    assert derived_colour((3, 2), 1, 1, 1) == "red"
    assert derived_colour((3, 2), 1, 2, 1) == "red"


def test_continuing_blue_when_the_column_offset_to_the_left_ends_on_the_row_above() -> None:
    assert derived_colour((2, 3), 1, 2, 1) == "blue"


def test_continuing_red_when_the_column_offset_to_the_left_is_shorter_still_straight() -> None:
    assert derived_colour((1, 3), 1, 2, 1) == "red"
    assert derived_colour((2, 1, 7), 2, 6, 2) == "red"


def test_no_mark_before_the_road_starts() -> None:
    for offset in (1, 2, 3):
        assert derived_colour((5,) * 5, offset, 0, offset) is None  # opening column `offset`
        assert derived_colour((5,) * 5, offset - 1, 1, offset) is None  # continuing column `offset - 1`
        assert derived_colour((5,) * 5, offset, 1, offset) is not None


@pytest.mark.parametrize(("name", "second_row", "first_row"), [
    ("big_eye_boy", "BBP P", "BPB"),
    ("small_road", "BPB B", "BPBP"),
    ("cockroach_pig", "BPBP P", "BPBPB"),
])
def test_each_derived_road_starts_at_row_2_of_its_column_or_else_row_1_of_the_next(
        name: str, second_row: str, first_row: str) -> None:
    offset = DERIVED_ROADS[name]
    before = roads_of(second_row[:-1])
    assert before.road(name).entries == ()
    started = roads_of(second_row).road(name).entries
    assert len(started) == 1 and started[0].round == len(second_row.replace(" ", ""))
    entry = roads_of(second_row).big_road[-1]
    assert (entry.logical_column, entry.logical_row) == (offset, 1)
    assert roads_of(first_row[:-1]).road(name).entries == ()
    started = roads_of(first_row).road(name).entries
    assert len(started) == 1
    entry = roads_of(first_row).big_road[-1]
    assert (entry.logical_column, entry.logical_row) == (offset + 1, 0)


def test_ties_add_no_derived_mark() -> None:
    before = roads_of("BPBPBBPP")
    after = before.add(RESULT["T"])
    assert after.derived == before.derived


def test_derived_roads_are_laid_out_like_the_big_road_with_the_dragon_tail() -> None:
    roads = roads_of("BP" * 6)  # twelve columns of one: every derived mark red
    assert derived_art(roads, "big_eye_boy") == art("""
        r . . . .
        r . . . .
        r . . . .
        r . . . .
        r . . . .
        r r r r r
    """)
    assert [len(roads.road(n).entries) for n in DERIVED_ROADS] == [10, 9, 8]


def test_ask_banker_and_ask_player_are_what_the_next_win_would_add() -> None:
    roads = roads_of("BPBPBPBPBPBP")
    assert roads.ask("banker") == {"big_eye_boy": "red", "small_road": "red", "cockroach_pig": "red"}
    assert roads.ask("player") == {"big_eye_boy": "blue", "small_road": "blue", "cockroach_pig": "blue"}
    assert BaccaratRoads().ask("banker") == {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}
    assert roads_of("BP").ask("player") == {"big_eye_boy": "blue", "small_road": None, "cockroach_pig": None}
    with pytest.raises(ValueError, match="banker"):
        roads.ask("tie")  # type: ignore[arg-type]


@given(st.text(alphabet="BPT", max_size=90))
def test_the_asks_are_what_adding_that_win_then_adds(sequence: str) -> None:
    roads = roads_of(sequence)
    for side in ("banker", "player"):
        after = roads.add(RESULT[side[0].upper()])
        added = {name: after.road(name).colours[len(roads.road(name).entries):] for name in DERIVED_ROADS}
        asked = roads.ask(side)  # type: ignore[arg-type]
        assert added == {name: () if colour is None else (colour,) for name, colour in asked.items()}


def test_statistics_count_each_winner_pairs_and_naturals() -> None:
    roads = roads_of("BBPTT").add(BaccaratResult("banker", 0, 9, player_pair=True, banker_pair=True, natural=True))
    assert roads.statistics() == {"rounds": 6, "banker": 3, "player": 1, "tie": 2, "player_pair": 1, "banker_pair": 1,
                                  "natural": 1}


def test_add_returns_a_new_value_and_leaves_the_old_one_unchanged() -> None:
    before = roads_of("BBPP")
    snapshot = before.to_dict()
    after = before.add(RESULT["P"])
    assert before.to_dict() == snapshot and len(after.results) == 5
    assert after == roads_of("BBPPP")


def test_to_dict_is_json_with_every_road() -> None:
    roads = roads_of("TBBPTTPPBPBBB")
    data = json.loads(json.dumps(roads.to_dict()))
    assert list(data) == ["game", "rounds", "bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig",
                          "ask", "statistics"]
    assert data["big_road"]["leading_ties"] == 1 and data["big_road"]["columns"] == 5
    assert data["big_eye_boy"]["offset"] == 1 and data["big_eye_boy"]["rows"] == ROWS
    assert data["big_eye_boy"]["entries"][0] == {"round": 7, "colour": "red", "logical_column": 0, "logical_row": 0,
                                                 "column": 0, "row": 0}
    assert data["ask"]["player"] == {"big_eye_boy": "blue", "small_road": "blue", "cockroach_pig": "red"}


# --- hand-drawn examples ---------------------------------------------------------------------


def test_drawn_example_ties_pairs_and_all_three_derived_roads() -> None:
    # T | B B | P (T T) P P | B | P | B B B  -> column lengths 2, 3, 1, 1, 3
    roads = roads_of("T BB P TT PP B P BBB")
    assert big_road_art(roads) == art("""
        B P B P B
        B P . . B
        . P . . B
    """)
    assert roads.leading_ties == 1
    assert [e.ties for e in roads.big_road] == [0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
    assert colours(roads, "big_eye_boy") == "rbbbrbr"
    assert derived_art(roads, "big_eye_boy") == art("""
        r b r b r
        . b . . .
        . b . . .
    """)
    assert derived_art(roads, "small_road") == art("""
        b r
        b .
        b .
    """)
    assert derived_art(roads, "cockroach_pig") == art("""
        b r
        . r
    """)
    assert roads.ask("banker") == {"big_eye_boy": "red", "small_road": "red", "cockroach_pig": "blue"}
    assert roads.ask("player") == {"big_eye_boy": "blue", "small_road": "blue", "cockroach_pig": "red"}
    assert roads.statistics()["banker"] == 6 and roads.statistics()["tie"] == 3


def test_drawn_example_a_dragon_under_a_dragon() -> None:
    roads = roads_of("B" * 7 + "P" * 9 + "BB" + "P")
    assert big_road_art(roads) == art("""
        B P B P . .
        B P B . . .
        B P . . . .
        B P . . . .
        B P P P P P
        B B . . . .
    """)
    assert roads.columns == (7, 9, 2, 1)
    # column 1 against column 0 (7 long): red down to row 7, blue at row 8 (0-based 7), then straight
    assert colours(roads, "big_eye_boy") == "rrrrrrbrbrb"
    assert derived_art(roads, "big_eye_boy") == art("""
        r b r b r b
        r . . . . .
        r . . . . .
        r . . . . .
        r . . . . .
        r . . . . .
    """)
    assert derived_art(roads, "small_road") == "r b"
    assert roads.cockroach_pig.entries == ()


def test_drawn_example_derived_road_tails_one_under_the_other() -> None:
    # nine columns of one, then lengths 2, 1, 2, 1, 2
    roads = roads_of("BPBPBPBPB" + "PP" + "B" + "PP" + "B" + "PP")
    assert big_road_art(roads) == art("""
        B P B P B P B P B P B P B P
        . . . . . . . . . P . P . P
    """)
    assert derived_art(roads, "big_eye_boy") == art("""
        r b . .
        r b . .
        r b . .
        r b . .
        r b b b
        r r r .
    """)
    assert derived_art(roads, "small_road") == art("""
        r b r
        r b r
        r . r
        r . r
        r . r
        r r .
    """)
    assert derived_art(roads, "cockroach_pig") == art("""
        r b r b
        r b . b
        r . . b
        r . . b
        r . . .
        r . . .
    """)
    assert roads.ask("banker") == {"big_eye_boy": "blue", "small_road": "red", "cockroach_pig": "blue"}
    assert roads.ask("player") == {"big_eye_boy": "red", "small_road": "blue", "cockroach_pig": "red"}


# --- the Baccarat adapter --------------------------------------------------------------------


def settle_baccarat(cards: str) -> dict[str, Any]:
    engine = BaccaratRound(BaccaratRules(), ())
    for card in cards.split():
        engine.deal(card)
    return engine.settle().hands


def test_baccarat_result_from_the_settlement_hands() -> None:
    # Player 8 8 (6), Banker 3 3 (6): no natural, both stand, a tie with both pairs
    tie = baccarat_result(settle_baccarat("8S 3H 8D 3C"))
    assert tie == BaccaratResult("tie", 6, 6, player_pair=True, banker_pair=True, natural=False)
    # Player 4 5 (9): a natural
    natural = baccarat_result(settle_baccarat("4S 2H 5D 3C"))
    assert natural == BaccaratResult("player", 9, 5, natural=True)
    # Player A 3 (4) draws a 6 (0); Banker K 6 (6) draws on a 6, a 9 (5)
    drawn = baccarat_result(settle_baccarat("AS KH 3D 6C 6H 9S"))
    assert drawn == BaccaratResult("banker", 0, 5)


def test_a_baccarat_result_must_agree_with_its_points() -> None:
    with pytest.raises(ValueError, match="does not match"):
        BaccaratResult("banker", 7, 2)
    with pytest.raises(ValueError, match="0 to 9"):
        BaccaratResult("player", 10, 2)


# --- Pok Deng --------------------------------------------------------------------------------


def settle_pokdeng(hands: list[str], banker: str, rules: PokDengRules | None = None) -> dict[str, Any]:
    """Hands 1 to 5 (``"7S 5H"`` each) and the Banker's, dealt in the table's order."""
    engine = PokDengRound(rules or PokDengRules(), ())
    pairs = [h.split() for h in hands] + [banker.split()]
    for card in [p[0] for p in pairs] + [p[1] for p in pairs]:
        engine.deal(card)
    return engine.settle().hands


def test_pokdeng_roadmap_per_hand_result_points_pattern_and_rate() -> None:
    hands = settle_pokdeng(["7S 2S", "9H KD", "4C 4D", "5H 2C", "3S 3H"], "6C TD")  # Banker 6 points
    result = pokdeng_result(hands)
    row = {h.hand: (h.result, h.points, h.pattern, str(h.rate), h.double) for h in result.hands}
    assert row == {
        "hand-1": ("win", 9, "flush", "2", True),  # 8 or 9 with a flush: 2:1 even against a 6
        "hand-2": ("win", 9, None, "1", False),
        "hand-3": ("win", 8, "pair", "2", True),  # 8 or 9 with a pair: 2:1 even against a 6
        "hand-4": ("win", 7, None, "1", False),
        "hand-5": ("push", 6, "pair", "0", False),
    }
    assert result.banker.points == 6 and result.banker.pattern is None


def test_pokdeng_banker_six_or_zero_pays_a_special_pattern_win_only_one_to_one() -> None:
    hands = settle_pokdeng(["7S AS", "2C 3D", "2C 3D", "2C 3D", "2C 3D"], "6C TD")  # flush 8 against 6
    first = pokdeng_result(hands).hands[0]
    assert (first.result, first.rate, first.double) == ("win", 2, True)  # exception 1 comes first
    hands = settle_pokdeng(["5S 2S", "2C 3D", "2C 3D", "2C 3D", "2C 3D"], "6C TD")  # flush 7 against 6
    first = pokdeng_result(hands).hands[0]
    assert (first.result, first.rate, first.double) == ("win", 1, False)
    hands = settle_pokdeng(["5S 2S", "2C 3D", "2C 3D", "2C 3D", "2C 3D"], "5C TD")  # flush 7 against 5
    first = pokdeng_result(hands).hands[0]
    assert (first.result, first.rate, first.double) == ("win", 2, True)


def test_pokdeng_banker_winning_with_a_special_pattern_costs_double() -> None:
    hands = settle_pokdeng(["5S 2D", "9S TD", "2C 3D", "2C 3D", "2C 3D"], "4C 4D")  # Banker pair 8
    result = pokdeng_result(hands)
    assert (result.hands[0].result, result.hands[0].rate, result.hands[0].double) == ("lose", -2, True)
    assert (result.hands[1].result, result.hands[1].rate) == ("win", 1)
    assert result.banker.pattern == "pair"
    push = pokdeng_result(settle_pokdeng(["5S 2D"] + ["2C 3D"] * 4, "4C 3H"))  # 7 against 7
    assert (push.hands[0].result, push.hands[0].rate, push.hands[0].double) == ("push", 0, False)


def test_pokdeng_special_combinations_follow_the_table_rules() -> None:
    # K-Q court cards against the Banker's 7: a combination ranks above 7 and wins 2:1.
    hands = settle_pokdeng(["KS QD", "2C 3D", "2C 3D", "2C 3D", "2C 3D"], "7C TD")
    first = pokdeng_result(hands).hands[0]
    assert (first.pattern, first.combination, first.result, first.rate, first.double) == (
        "court-cards", "court-cards", "win", 2, True)
    assert (first.decided_by, first.reason) == ("court-cards", "won 2:1: court cards")
    # The table drops court cards: K-Q is a plain 0 and loses 1x to the 7.
    rules = PokDengRules(special_combinations=())
    first = pokdeng_result(settle_pokdeng(["KS QD", "2C 3D", "2C 3D", "2C 3D", "2C 3D"], "7C TD", rules),
                           rules).hands[0]
    assert (first.pattern, first.combination, first.result, first.rate, first.double) == (
        None, None, "lose", -1, False)
    assert (first.decided_by, first.reason) == (None, "lost 1x: 0 against the Banker's 7")


def test_pokdeng_statistics_count_each_combination_per_hand() -> None:
    # hand 1: lion flush, wins 2:1 against the Banker's 5 (A-4: no combination), then court cards
    # against the Banker's special pair (aces), lose 2x; hand 2 ten and court twice.
    first = pokdeng_result(settle_pokdeng(["AS KS", "TH JH", "2C 3D", "2C 3D", "2C 3D"], "AC 4D"))
    second = pokdeng_result(settle_pokdeng(["JS QH", "TC KD", "2C 3D", "2C 3D", "2C 3D"], "AD AH"))
    stats = PokDengRoads.of([first, second]).statistics()
    assert stats["hand-1"]["combinations"] == {"lion-flush": 1, "court-cards": 1}
    assert stats["hand-1"]["decided_by"] == {"lion-flush": 1, "special-pair": 1}
    assert stats["hand-1"]["patterns"] == {"lion-flush": 1, "court-cards": 1}
    assert (stats["hand-1"]["win"], stats["hand-1"]["lose"], stats["hand-1"]["double"]) == (1, 1, 2)
    assert stats["hand-2"]["combinations"] == {"ten-and-court": 2}
    assert stats["hand-3"]["combinations"] == {} and stats["hand-3"]["decided_by"] == {"special-pair": 1}
    assert stats["banker"] == {"patterns": {"special-pair": 1}, "combinations": {"special-pair": 1}}
    entry = PokDengRoads.of([first, second]).to_dict()["entries"][1]["hand-1"]
    assert (entry["combination"], entry["decided_by"], entry["reason"]) == (
        "court-cards", "special-pair", "lost 2x: the Banker's special pair")


def test_pokdeng_entry_is_the_engines_roadmap_entry_plus_the_rate() -> None:
    rng = random.Random(7)
    for _ in range(50):
        cards = rng.sample(list(ALL_CARDS) * DECKS, 12)
        engine = PokDengRound(PokDengRules(), ())
        for card in cards:
            engine.deal(card)
        hands = engine.settle().hands
        entry = pokdeng_result(hands).to_dict()
        for name, fields in hands.items():
            assert {k: entry[name][k] for k in fields} == fields


def test_pokdeng_roads_shape_and_statistics() -> None:
    first = pokdeng_result(settle_pokdeng(["7S 2S", "9H KD", "4C 4D", "5H 2C", "3S 3H"], "6C TD"))
    second = pokdeng_result(settle_pokdeng(["5S 2D", "9S TD", "2C 3D", "2C 3D", "2C 3D"], "4C 4D"))
    roads = PokDengRoads().add(first).add(second)
    assert roads == PokDengRoads.of([first, second])
    data = json.loads(json.dumps(roads.to_dict()))
    assert data["game"] == "pok-deng" and data["rounds"] == 2
    assert data["entries"][0]["round"] == 1
    assert data["entries"][0]["hand-1"] == {"cards": ["7S", "2S"], "points": 9, "pattern": "flush",
                                            "combination": None, "result": "win", "rate": "2", "double": True,
                                            "decided_by": None, "reason": "won 2:1: 9 with a flush"}
    assert data["entries"][1]["banker"] == {"cards": ["4C", "4D"], "points": 8, "pattern": "pair",
                                            "combination": None}
    assert data["statistics"]["hand-1"] == {"win": 1, "lose": 1, "push": 0, "double": 2, "patterns": {"flush": 1},
                                            "combinations": {}, "decided_by": {}}
    assert data["statistics"]["hand-5"] == {"win": 0, "lose": 1, "push": 1, "double": 1, "patterns": {"pair": 1},
                                            "combinations": {}, "decided_by": {}}
    assert data["statistics"]["banker"] == {"patterns": {"pair": 1}, "combinations": {}}
    assert Fraction(data["entries"][1]["hand-1"]["rate"]) == -2


# --- the differential test -------------------------------------------------------------------

REFERENCE = Path(__file__).parents[1] / "data" / "roads-baccarat-engine-1.1.5.json"
"""Inputs and outputs of baccarat-engine 1.1.5 (npm, https://github.com/jconradi/baccarat-engine),
run outside this repository; the file's "source" says exactly how. Its derived roads as published
leave out the marks of entries below the first row of column ``offset`` (they never compare with
column 0: ``if (compareColumn <= 0) continue``, an off-by-one that the public C# port
FreemindTrader/BaccaratEngine.net documents and fixes); "fixed" has that one comparison as ``< 0``.
Its big road drops a dragon tail back down once the cell below is free again, and lets a column
run into a tail of its own colour below it; ours turns right on the lowest free row and stays
there (README, *Roads*)."""


def _reference() -> list[dict[str, Any]]:
    shoes: list[dict[str, Any]] = json.loads(REFERENCE.read_text())["shoes"]
    return shoes


def _letters(roads: BaccaratRoads, name: str) -> str:
    return "".join("R" if e.colour == "red" else "B" for e in roads.road(name).entries)


def test_differential_the_reference_holds_three_hundred_shoes() -> None:
    shoes = _reference()
    assert len(shoes) == 300
    assert sum(s["kind"] == "dealt" for s in shoes) == 200


def test_differential_derived_roads_equal_the_reference_on_every_shoe() -> None:
    for shoe in _reference():
        roads = roads_of(shoe["shoe"])
        ours = {name: _letters(roads, name) for name in DERIVED_ROADS}
        assert ours == shoe["fixed"], (shoe["kind"], shoe["seed"])
        entry_of = {e.round: e for e in roads.big_road}
        as_published = {
            name: "".join("R" if m.colour == "red" else "B" for m in roads.road(name).entries
                          if not (entry_of[m.round].logical_row > 0 and entry_of[m.round].logical_column == offset))
            for name, offset in DERIVED_ROADS.items()
        }
        assert as_published == shoe["published"], (shoe["kind"], shoe["seed"])


def test_differential_big_road_logical_columns_and_ties_equal_the_reference() -> None:
    for shoe in _reference():
        roads = roads_of(shoe["shoe"])
        ties = [e.ties for e in roads.big_road]
        if ties:
            ties[0] += roads.leading_ties  # the reference counts leading ties on the first entry
        assert [e.logical_column for e in roads.big_road] == shoe["big_road"]["logical_column"]
        assert "".join(map(str, ties)) == shoe["big_road"]["ties"]


def _first_early_turn(roads: BaccaratRoads) -> int | None:
    """The first entry drawn to the right of the one before it in its column above the bottom row
    (its cell below was taken), or None."""
    entries = roads.big_road
    for i in range(1, len(entries)):
        before, entry = entries[i - 1], entries[i]
        if entry.logical_column == before.logical_column and before.row < ROWS - 1 and entry.row == before.row:
            return i
    return None


def test_differential_drawn_big_road_equals_the_reference_until_a_tail_meets_another() -> None:
    exact = 0
    for shoe in _reference():
        roads = roads_of(shoe["shoe"])
        theirs = list(zip(shoe["big_road"]["column"], map(int, shoe["big_road"]["row"]), strict=True))
        ours = [(e.column, e.row) for e in roads.big_road]
        first = _first_early_turn(roads)
        if first is None:
            assert ours == theirs, (shoe["kind"], shoe["seed"])
            exact += 1
        else:
            assert ours[:first] == theirs[:first], (shoe["kind"], shoe["seed"])
    assert exact == 241


def _dealt_shoe(seed: int) -> str:
    """The reference's "dealt" shoes: eight decks shuffled with random.Random(seed), the burn, the
    cut card 14 to 26 cards from the end, rounds until the one in which the cut card comes out."""
    rng = random.Random(seed)
    cards = list(ALL_CARDS) * DECKS
    rng.shuffle(cards)
    cut = len(cards) - rng.randint(14, 26)
    position = 1 + BURN_VALUE[cards[0][0]]
    letters = []
    rules = BaccaratRules()
    while True:
        last = position >= cut
        engine = BaccaratRound(rules, ())
        while engine.expected.kind == "card":
            engine.deal(cards[position])
            position += 1
            last = last or position > cut
        letters.append(engine.settle().hands["winner"][0].upper())
        if last:
            return "".join(letters)


def test_differential_dealt_shoes_are_the_engines() -> None:
    for shoe in _reference():
        if shoe["kind"] == "dealt":
            assert _dealt_shoe(shoe["seed"]) == shoe["shoe"], shoe["seed"]


def test_a_stored_result_reads_back_as_it_was() -> None:
    """A shoe's results are stored as ``to_dict()`` and read back with ``from_dict`` (the lobby's roads)."""
    from croupier import roads
    from croupier.games import new_round
    from croupier.rules import load_rules

    bac = roads.BaccaratResult("banker", 3, 7, player_pair=True, natural=False)
    assert roads.BaccaratResult.from_dict(bac.to_dict()) == bac
    rules = load_rules("pok-deng", {"special_combinations": ["court-cards"]})
    engine = new_round("pok-deng", [], rules=rules)
    for card in ["KS", "QS", "2H", "3H", "9C", "5D", "KH", "4S", "7H", "4D", "AC", "5S"]:
        engine.deal(card)
    result = roads.pokdeng_result(engine.settle().hands, rules)
    assert roads.PokDengResult.from_dict(result.to_dict()) == result
