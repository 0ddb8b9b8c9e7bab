"""Roads (scoreboards) of a shoe: what a live Baccarat or Pok Deng screen draws of the shoe so far.

Pure: no I/O. A roads value is immutable and grows one settled round at a time
(``roads = roads.add(result)``); :meth:`BaccaratRoads.of` builds it from a shoe's results in
order. ``to_dict()`` is plain JSON data (README, *Roads*, gives its shape).

Baccarat
    The input of a round is a :class:`BaccaratResult` (winner, pairs, points, natural);
    :func:`baccarat_result` reads it from the ``hands`` of the engine's settlement.

    **Bead plate**: every round in order, 6 rows a column, top to bottom, then the next column.

    **Big road**: one entry per Banker or Player win; a tie takes no cell but is counted on the
    entry before it (:attr:`BaccaratRoads.leading_ties` counts ties before any entry). A new
    logical column starts when the winner changes. Every entry has its *logical* column and row
    (the derived roads read those) and its *drawn* cell: a column goes down the 6 rows, and when
    the cell below is the bottom edge or already taken (by an earlier column's tail) it turns right
    and goes on to the right along that row ("dragon tail"); once turned it stays on that row.
    A new column starts one drawn column to the right of where the previous one started (further
    right, in the rare case that cell is taken by a tail).

    **Derived roads** (:data:`DERIVED_ROADS`): big eye boy (offset 1), small road (2), cockroach
    pig (3). Each Big Road entry after the start gives one red or blue mark
    (:func:`derived_colour`): an entry opening column ``c`` compares the lengths of columns
    ``c - 1`` and ``c - 1 - offset`` (equal: red); an entry at row ``r > 0`` of column ``c`` looks
    at column ``c - offset``: red when it has an entry at row ``r`` or has none at row ``r - 1``
    either ("straight"), blue when its last entry is at row ``r - 1``. So big eye boy starts at the
    entry at column 2 row 2 (counting from 1), or at column 3 row 1 if that does not exist; the
    small road at column 3 row 2 or column 4 row 1; the cockroach pig at column 4 row 2 or column 5
    row 1. The marks are laid out like the Big Road: a new column when the colour changes, 6 rows,
    the same dragon tail.

    **Ask Banker / Ask Player** (:meth:`BaccaratRoads.ask`): the mark each derived road would add
    if the next round were a Banker (Player) win, or None if it would add none.

Pok Deng
    The input of a round is a :class:`PokDengResult`: per hand (Player 1 to 5) its cards, points,
    pattern, special combination and result against the Banker, as the engine's roadmap entry
    (``settle().hands``) gives them, and the rate a Player N bet on that hand settled at
    (computed by the engine's own :func:`~croupier.games.pokdeng.settle_bet`): ``double`` when it
    is the special rate (2:1 win, 2x loss by default), with the engine's ``reason`` (``"won 2:1:
    court cards"``) and ``decided_by``, the special combination that decided it (the hand's on a
    win, the Banker's on a loss, the one both hold on a push; None when points decided).
    :func:`pokdeng_result` reads it. The statistics count, per hand and for the Banker, each
    pattern and each special combination.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal, cast

from .games import baccarat as _baccarat
from .games import pokdeng as _pokdeng
from .games.base import Bet
from .rules import PokDengRules

ROWS = 6
"""Rows of every road's grid."""

Winner = Literal["banker", "player", "tie"]
Side = Literal["banker", "player"]
Colour = Literal["red", "blue"]
HandResult = Literal["win", "lose", "push"]

WINNERS: tuple[Winner, ...] = ("banker", "player", "tie")
DERIVED_ROADS: dict[str, int] = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
"""Each derived road and its column offset."""

Cell = tuple[int, int]
"""A drawn cell: (column, row), both from 0; row 0 is the top."""


# --- the layout shared by the big road and the derived roads --------------------------------


@dataclass(frozen=True, slots=True)
class _Grid:
    """Where the next mark of a road is drawn: marks of one kind go down a column of :data:`ROWS`
    cells, a new kind opens a new column, and a column that meets the bottom or a taken cell turns
    right (the dragon tail) and stays on that row."""

    taken: frozenset[Cell] = frozenset()
    last: Cell | None = None
    kind: str | None = None
    start: int = -1
    """The drawn column where the current logical column started."""
    turned: bool = False
    logical: Cell = (-1, -1)
    """The logical (column, row) of the last mark."""

    def place(self, kind: str) -> tuple[_Grid, Cell, Cell]:
        """Put a mark of ``kind``: the new grid, the mark's logical cell and its drawn cell."""
        last = self.last
        if last is None or kind != self.kind:
            column = self.start + 1
            while (column, 0) in self.taken:
                column += 1
            cell = (column, 0)
            logical = (self.logical[0] + 1, 0)
            grid = _Grid(self.taken | {cell}, cell, kind, column, False, logical)
            return grid, logical, cell
        column, row = last
        below = (column, row + 1)
        turned = self.turned or row + 1 >= ROWS or below in self.taken
        cell = (column + 1, row) if turned else below
        logical = (self.logical[0], self.logical[1] + 1)
        return _Grid(self.taken | {cell}, cell, kind, self.start, turned, logical), logical, cell

    @property
    def width(self) -> int:
        """Drawn columns used."""
        return 1 + max((c for c, _ in self.taken), default=-1)


# --- Baccarat --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BaccaratResult:
    """One round's result as the roads need it. ``natural``: either hand had 8 or 9 with its
    first two cards (the round ended there)."""

    winner: Winner
    player_points: int
    banker_points: int
    player_pair: bool = False
    banker_pair: bool = False
    natural: bool = False

    def __post_init__(self) -> None:
        for name in ("player_points", "banker_points"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= 9:
                raise ValueError(f"{name} must be a whole number from 0 to 9, not {value!r}")
        p, b = self.player_points, self.banker_points
        expected = "player" if p > b else "banker" if b > p else "tie"
        if self.winner != expected:
            raise ValueError(f"winner {self.winner!r} does not match the points {p} (player) and {b} (banker)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BaccaratResult:
        """The result :meth:`to_dict` gave (a shoe's stored results)."""
        return cls(data["winner"], int(data["player_points"]), int(data["banker_points"]), bool(data["player_pair"]),
                   bool(data["banker_pair"]), bool(data["natural"]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "player_points": self.player_points,
            "banker_points": self.banker_points,
            "natural": self.natural,
        }


def _pair(cards: Sequence[str]) -> bool:
    """The first two cards have the same rank (the Player Pair / Banker Pair bet's condition)."""
    return len(cards) >= 2 and cards[0][0] == cards[1][0]


def baccarat_result(hands: Mapping[str, Any]) -> BaccaratResult:
    """The roads' input from the ``hands`` of a Baccarat settlement (``{"player": {"cards",
    "points"}, "banker": {...}, "winner"}``)."""
    player, banker = hands["player"], hands["banker"]
    p_cards, b_cards = list(player["cards"]), list(banker["cards"])
    natural = _baccarat.is_natural(_baccarat.points(p_cards[:2]), _baccarat.points(b_cards[:2]))
    return BaccaratResult(
        winner=hands["winner"],
        player_points=player["points"],
        banker_points=banker["points"],
        player_pair=_pair(p_cards),
        banker_pair=_pair(b_cards),
        natural=natural,
    )


@dataclass(frozen=True, slots=True)
class Bead:
    """One round on the bead plate."""

    round: int
    """The round's number in the shoe, from 1."""
    column: int
    row: int
    result: BaccaratResult

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "column": self.column, "row": self.row, **self.result.to_dict()}


@dataclass(frozen=True, slots=True)
class BigRoadEntry:
    """One Banker or Player win on the Big Road."""

    round: int
    winner: Side
    player_pair: bool
    banker_pair: bool
    ties: int
    """Ties dealt after this round and before the next Banker or Player win."""
    logical_column: int
    logical_row: int
    column: int
    """The drawn cell (with the dragon tail)."""
    row: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "winner": self.winner,
            "ties": self.ties,
            "player_pair": self.player_pair,
            "banker_pair": self.banker_pair,
            "logical_column": self.logical_column,
            "logical_row": self.logical_row,
            "column": self.column,
            "row": self.row,
        }


@dataclass(frozen=True, slots=True)
class DerivedEntry:
    """One mark of a derived road."""

    round: int
    """The round of the Big Road entry this mark derives from."""
    colour: Colour
    logical_column: int
    logical_row: int
    column: int
    row: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "colour": self.colour,
            "logical_column": self.logical_column,
            "logical_row": self.logical_row,
            "column": self.column,
            "row": self.row,
        }


def derived_colour(columns: Sequence[int], column: int, row: int, offset: int) -> Colour | None:
    """The mark a derived road with ``offset`` gives the Big Road entry at logical ``column``,
    ``row`` (both from 0), ``columns`` being the lengths of the Big Road's logical columns to the
    left of it (at least). None when the road gives no mark (it has not started)."""
    if row == 0:
        if column - 1 - offset < 0:
            return None
        return "red" if columns[column - 1] == columns[column - 1 - offset] else "blue"
    if column - offset < 0:
        return None
    return "blue" if columns[column - offset] == row else "red"


@dataclass(frozen=True, slots=True)
class DerivedRoad:
    """A derived road: its marks in order, each with its logical and drawn cell."""

    offset: int
    entries: tuple[DerivedEntry, ...] = ()
    _grid: _Grid = field(default_factory=_Grid, repr=False, compare=False)

    def add(self, round_number: int, colour: Colour) -> DerivedRoad:
        grid, (lc, lr), (c, r) = self._grid.place(colour)
        entry = DerivedEntry(round_number, colour, lc, lr, c, r)
        return DerivedRoad(self.offset, (*self.entries, entry), grid)

    @property
    def colours(self) -> tuple[Colour, ...]:
        return tuple(e.colour for e in self.entries)

    @property
    def width(self) -> int:
        return self._grid.width

    def to_dict(self) -> dict[str, Any]:
        return {"offset": self.offset, "columns": self.width, "entries": [e.to_dict() for e in self.entries]}


def _empty_derived() -> tuple[DerivedRoad, ...]:
    return tuple(DerivedRoad(offset) for offset in DERIVED_ROADS.values())


@dataclass(frozen=True, slots=True)
class BaccaratRoads:
    """Every road of one Baccarat shoe so far. ``BaccaratRoads()`` is a new shoe's."""

    results: tuple[BaccaratResult, ...] = ()
    leading_ties: int = 0
    """Ties before the first Banker or Player win."""
    big_road: tuple[BigRoadEntry, ...] = ()
    derived: tuple[DerivedRoad, ...] = field(default_factory=_empty_derived)
    """Big eye boy, small road, cockroach pig (the order of :data:`DERIVED_ROADS`)."""
    columns: tuple[int, ...] = ()
    """The lengths of the Big Road's logical columns."""
    _grid: _Grid = field(default_factory=_Grid, repr=False, compare=False)

    @classmethod
    def of(cls, results: Iterable[BaccaratResult]) -> BaccaratRoads:
        roads = cls()
        for result in results:
            roads = roads.add(result)
        return roads

    def add(self, result: BaccaratResult) -> BaccaratRoads:
        """The roads after one more settled round."""
        results = (*self.results, result)
        number = len(results)
        if result.winner == "tie":
            if not self.big_road:
                return replace(self, results=results, leading_ties=self.leading_ties + 1)
            last = self.big_road[-1]
            big_road = (*self.big_road[:-1], replace(last, ties=last.ties + 1))
            return replace(self, results=results, big_road=big_road)
        grid, (lc, lr), (c, r) = self._grid.place(result.winner)
        entry = BigRoadEntry(number, result.winner, result.player_pair, result.banker_pair, 0, lc, lr, c, r)
        columns = (*self.columns, 1) if lr == 0 else (*self.columns[:-1], self.columns[-1] + 1)
        derived = tuple(
            road if (colour := derived_colour(columns, lc, lr, road.offset)) is None else road.add(number, colour)
            for road in self.derived
        )
        return BaccaratRoads(results, self.leading_ties, (*self.big_road, entry), derived, columns, grid)

    # --- views ---------------------------------------------------------------------------------

    @property
    def bead_plate(self) -> tuple[Bead, ...]:
        return tuple(Bead(i + 1, i // ROWS, i % ROWS, result) for i, result in enumerate(self.results))

    @property
    def big_eye_boy(self) -> DerivedRoad:
        return self.derived[0]

    @property
    def small_road(self) -> DerivedRoad:
        return self.derived[1]

    @property
    def cockroach_pig(self) -> DerivedRoad:
        return self.derived[2]

    def road(self, name: str) -> DerivedRoad:
        """A derived road by its name in :data:`DERIVED_ROADS`."""
        return self.derived[list(DERIVED_ROADS).index(name)]

    @property
    def big_road_width(self) -> int:
        return self._grid.width

    def ask(self, winner: Side) -> dict[str, Colour | None]:
        """What each derived road would add if the next round were a ``winner`` win."""
        if winner not in ("banker", "player"):
            raise ValueError(f"ask takes 'banker' or 'player', not {winner!r}")
        if not self.big_road:
            return dict.fromkeys(DERIVED_ROADS)
        last = self.big_road[-1]
        if last.winner == winner:
            column, row = last.logical_column, last.logical_row + 1
            columns = (*self.columns[:-1], self.columns[-1] + 1)
        else:
            column, row = last.logical_column + 1, 0
            columns = (*self.columns, 1)
        return {name: derived_colour(columns, column, row, offset) for name, offset in DERIVED_ROADS.items()}

    def statistics(self) -> dict[str, int]:
        results = self.results
        return {
            "rounds": len(results),
            "banker": sum(r.winner == "banker" for r in results),
            "player": sum(r.winner == "player" for r in results),
            "tie": sum(r.winner == "tie" for r in results),
            "player_pair": sum(r.player_pair for r in results),
            "banker_pair": sum(r.banker_pair for r in results),
            "natural": sum(r.natural for r in results),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "baccarat",
            "rounds": len(self.results),
            "bead_plate": {"rows": ROWS, "columns": -(-len(self.results) // ROWS),
                           "entries": [bead.to_dict() for bead in self.bead_plate]},
            "big_road": {"rows": ROWS, "columns": self.big_road_width, "leading_ties": self.leading_ties,
                         "entries": [entry.to_dict() for entry in self.big_road]},
            **{name: {"rows": ROWS, **road.to_dict()} for name, road in zip(DERIVED_ROADS, self.derived, strict=True)},
            "ask": {"banker": self.ask("banker"), "player": self.ask("player")},
            "statistics": self.statistics(),
        }


# --- Pok Deng --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PokDengHand:
    """One Player hand of a round against the Banker."""

    hand: str
    """``"hand-1"`` to ``"hand-5"``."""
    cards: tuple[str, ...]
    points: int
    pattern: str | None
    """``"pair"``, ``"flush"``, a special combination's name, or None (the engine's precedence)."""
    combination: str | None
    result: HandResult
    rate: Fraction
    """What a Player N bet on this hand won (lost: negative) per unit of stake."""
    double: bool
    """The bet settled at the special rate: ``win_special`` on a win, ``lose_special`` on a loss
    (2:1 and 2x by default)."""
    decided_by: str | None = None
    """The special combination that decided the result, or None (points decided it)."""
    reason: str | None = None
    """How a Player N bet on the hand settled, in words (``"won 2:1: court cards"``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "points": self.points,
            "pattern": self.pattern,
            "combination": self.combination,
            "result": self.result,
            "rate": str(self.rate),
            "double": self.double,
            "decided_by": self.decided_by,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class PokDengBanker:
    cards: tuple[str, ...]
    points: int
    pattern: str | None
    combination: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"cards": list(self.cards), "points": self.points, "pattern": self.pattern,
                "combination": self.combination}


@dataclass(frozen=True, slots=True)
class PokDengResult:
    """One Pok Deng round as the roadmap needs it."""

    hands: tuple[PokDengHand, ...]
    """Hands 1 to 5, in order."""
    banker: PokDengBanker

    def to_dict(self) -> dict[str, Any]:
        return {**{hand.hand: hand.to_dict() for hand in self.hands}, "banker": self.banker.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PokDengResult:
        """The result :meth:`to_dict` gave (a shoe's stored results)."""
        hands = tuple(PokDengHand(name, tuple(h["cards"]), int(h["points"]), h.get("pattern"), h.get("combination"),
                                  h["result"], Fraction(str(h["rate"])), bool(h["double"]), h.get("decided_by"),
                                  h.get("reason"))
                      for name, h in sorted((k, v) for k, v in data.items() if k.startswith("hand-")))
        b = data["banker"]
        return cls(hands, PokDengBanker(tuple(b["cards"]), int(b["points"]), b.get("pattern"), b.get("combination")))


_DEFAULT_POKDENG = PokDengRules()


def pokdeng_result(hands: Mapping[str, Any], rules: PokDengRules | None = None) -> PokDengResult:
    """The roadmap's input from the ``hands`` of a Pok Deng settlement (the engine's roadmap
    entry: per hand its cards, points, pattern, combination and result). ``rules`` are the
    table's (the rates of a Player N bet); without them, the default rules."""
    rules = rules if rules is not None else _DEFAULT_POKDENG
    names = _pokdeng.HAND_NAMES[:-1]
    banker_cards = cast(tuple[str, str], tuple(hands["banker"]["cards"]))
    settled = _pokdeng.PokDengHands(tuple(cast(tuple[str, str], tuple(hands[n]["cards"])) for n in names),
                                    banker_cards)
    pay = rules.payouts
    out = []
    for number, name in enumerate(names, start=1):
        entry = hands[name]
        bet = _pokdeng.settle_bet(rules, settled, Bet("roadmap", "roadmap", f"player-{number}", 1))
        rate = bet.exact_net
        result = cast(HandResult, entry["result"])
        if bet.outcome != result:
            raise ValueError(f"{name}: the hands say {result!r}, the engine settles {bet.outcome!r}")
        double = ((result == "win" and rate == pay.win_special != pay.win)
                  or (result == "lose" and -rate == pay.lose_special != pay.lose))
        out.append(PokDengHand(name, tuple(entry["cards"]), entry["points"], entry["pattern"], entry["combination"],
                               result, rate, double, bet.detail.get("decided_by"), bet.detail.get("reason")))
    banker = hands["banker"]
    return PokDengResult(tuple(out), PokDengBanker(banker_cards, banker["points"], banker["pattern"],
                                                   banker["combination"]))


@dataclass(frozen=True, slots=True)
class PokDengRoads:
    """The roadmap of one Pok Deng shoe so far: every round's hands in order. ``PokDengRoads()``
    is a new shoe's."""

    results: tuple[PokDengResult, ...] = ()

    @classmethod
    def of(cls, results: Iterable[PokDengResult]) -> PokDengRoads:
        return cls(tuple(results))

    def add(self, result: PokDengResult) -> PokDengRoads:
        return PokDengRoads((*self.results, result))

    def statistics(self) -> dict[str, Any]:
        """Per hand: wins, losses, pushes, doubles, its patterns and its special combinations (how
        many times it held each), and how many of its results each combination decided; the
        Banker's patterns and special combinations."""
        out: dict[str, Any] = {}
        for index, name in enumerate(_pokdeng.HAND_NAMES[:-1]):
            hands = [r.hands[index] for r in self.results]
            out[name] = {
                "win": sum(h.result == "win" for h in hands),
                "lose": sum(h.result == "lose" for h in hands),
                "push": sum(h.result == "push" for h in hands),
                "double": sum(h.double for h in hands),
                "patterns": _count(h.pattern for h in hands),
                "combinations": _count(h.combination for h in hands),
                "decided_by": _count(h.decided_by for h in hands),
            }
        out["banker"] = {"patterns": _count(r.banker.pattern for r in self.results),
                         "combinations": _count(r.banker.combination for r in self.results)}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "pok-deng",
            "rounds": len(self.results),
            "entries": [{"round": i + 1, **result.to_dict()} for i, result in enumerate(self.results)],
            "statistics": self.statistics(),
        }


def _count(labels: Iterable[str | None]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for label in labels:
        if label is not None:
            counts[label] = counts.get(label, 0) + 1
    return counts
