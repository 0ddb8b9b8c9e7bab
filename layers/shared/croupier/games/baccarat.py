"""Baccarat and No-Commission Baccarat (``baccarat.md``).

Four cards Player, Banker, Player, Banker; naturals stand; the Player's and the Banker's third
card follow the tableau. The pure functions (:func:`points`, :func:`player_draws`,
:func:`banker_draws`, :func:`settle_bet`) serve the engine, the exact RTP report and the
simulator alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ..cards import BACCARAT_VALUE, parse_card
from ..errors import BetRefused, IllegalAction, IncompleteRound, UnexpectedCard
from ..rules import BaccaratRules
from .base import (
    Action,
    Bet,
    BetResult,
    CardFor,
    Expectation,
    Outcome,
    Settle,
    Settlement,
    check_bet_basics,
    check_unique_ids,
    result,
)

BET_TYPES = ("player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small")
MODES = ("commission", "no-commission")

# Banker's two-card score -> the Player's third-card points on which the Banker draws.
_BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}


def points(cards: Iterable[str]) -> int:
    return sum(BACCARAT_VALUE[c[0]] for c in cards) % 10


def is_natural(player2: int, banker2: int) -> bool:
    return player2 >= 8 or banker2 >= 8


def player_draws(player2: int) -> bool:
    """After no natural: the Player draws on 0-5, stands on 6-7."""
    return player2 <= 5


def banker_draws(banker2: int, player_third: int | None) -> bool:
    """After no natural. ``player_third`` is the Player's third card's points, None if it stood."""
    if player_third is None:
        return banker2 <= 5
    return player_third in _BANKER_DRAWS_ON.get(banker2, frozenset())


@dataclass(frozen=True, slots=True)
class Coup:
    """The final hands of a baccarat round, as far as settlement needs them."""

    player: tuple[str, ...]
    banker: tuple[str, ...]

    @property
    def player_points(self) -> int:
        return points(self.player)

    @property
    def banker_points(self) -> int:
        return points(self.banker)

    @property
    def winner(self) -> str:
        p, b = self.player_points, self.banker_points
        return "player" if p > b else "banker" if b > p else "tie"

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": {"cards": list(self.player), "points": self.player_points},
            "banker": {"cards": list(self.banker), "points": self.banker_points},
            "winner": self.winner,
        }


def _same_rank(cards: Sequence[str]) -> bool:
    return cards[0][0] == cards[1][0]


def settle_bet(rules: BaccaratRules, coup: Coup, bet: Bet) -> BetResult:
    """Settle one bet against the final hands. Exact, then rounded down."""
    pay = rules.payouts
    stake = bet.amount
    winner = coup.winner
    kind = bet.type

    def win(ratio: Fraction) -> BetResult:
        return result(bet, Outcome.WIN, stake, stake + stake * ratio)

    def lose() -> BetResult:
        return result(bet, Outcome.LOSE, stake, 0)

    if kind in ("player", "banker"):
        if winner == "tie":
            return result(bet, Outcome.PUSH, stake, stake)
        if winner != kind:
            return lose()
        if kind == "player":
            return win(pay.player)
        if bet.mode == "no-commission":
            six = coup.banker_points == 6
            return win(pay.banker_no_commission_six if six else pay.banker_no_commission)
        return win(pay.banker)
    if kind == "tie":
        return win(pay.tie) if winner == "tie" else lose()
    if kind == "player-pair":
        return win(pay.player_pair) if _same_rank(coup.player) else lose()
    if kind == "banker-pair":
        return win(pay.banker_pair) if _same_rank(coup.banker) else lose()
    side = rules.side_bets[kind]  # type: ignore[index]
    cards_used = len(coup.player) + len(coup.banker)
    if kind == "lucky-6":
        if winner == "banker" and coup.banker_points == 6:
            three = len(coup.banker) == 3 and side.pays_three_cards is not None
            return win(side.pays_three_cards if three else side.pays)  # type: ignore[arg-type]
        return lose()
    if kind == "big":
        return win(side.pays) if cards_used >= 5 else lose()
    if kind == "small":
        return win(side.pays) if cards_used == 4 else lose()
    raise BetRefused(f"bet {bet.id}: unknown bet type {kind!r}", reason="unknown-bet-type")


def validate_bets(rules: BaccaratRules, bets: Sequence[Bet], round_in_shoe: int) -> None:
    """Every rule a set of accepted bets must satisfy (``baccarat.md``)."""
    check_unique_ids(bets)
    offered = set(BET_TYPES[:5]) | set(rules.side_bets)
    totals: dict[str, list[int]] = {}
    for bet in bets:
        check_bet_basics(bet, rules.limits, tuple(offered) if bet.type in BET_TYPES else BET_TYPES)
        if bet.type not in offered:
            raise BetRefused(f"bet {bet.id}: this table does not offer {bet.type!r}", reason="not-offered")
        if bet.seat is not None:
            raise BetRefused(f"bet {bet.id}: baccarat bets take no seat", reason="bad-bet")
        if bet.type == "banker":
            mode = bet.mode or "commission"
            if mode not in rules.modes:
                raise BetRefused(f"bet {bet.id}: this table does not offer the {mode!r} mode", reason="bad-mode")
        elif bet.mode is not None:
            raise BetRefused(f"bet {bet.id}: only a banker bet carries a mode", reason="bad-bet")
        side = rules.side_bets.get(bet.type)  # type: ignore[call-overload]
        if side is not None and side.max_round is not None and round_in_shoe > side.max_round:
            raise BetRefused(
                f"bet {bet.id}: {bet.type} is offered only in rounds 1 to {side.max_round} of a shoe "
                f"(this is round {round_in_shoe})",
                reason="max-round",
            )
        pair = totals.setdefault(bet.player, [0, 0])
        if bet.type == "player":
            pair[0] += bet.amount
        elif bet.type == "banker":
            pair[1] += bet.amount
    for player, (p_total, b_total) in totals.items():
        if rules.banker_limit is not None and b_total > p_total + rules.banker_limit:
            raise BetRefused(
                f"player {player}: Banker total {b_total} exceeds Player total {p_total} by more than the "
                f"banker limit {rules.banker_limit}",
                reason="banker-limit",
            )
        if rules.player_limit is not None and p_total > b_total + rules.player_limit:
            raise BetRefused(
                f"player {player}: Player total {p_total} exceeds Banker total {b_total} by more than the "
                f"player limit {rules.player_limit}",
                reason="player-limit",
            )


class BaccaratRound:
    """One baccarat round: knows which hand the next card goes to, and settles."""

    game: ClassVar[str] = "baccarat"

    def __init__(
        self,
        rules: BaccaratRules,
        bets: Sequence[Bet] = (),
        *,
        round_in_shoe: int = 1,
        balances: Mapping[str, int] | None = None,
        validate: bool = True,
    ) -> None:
        if validate:
            validate_bets(rules, bets, round_in_shoe)
        self.rules = rules
        self.bets = tuple(bets)
        self.round_in_shoe = round_in_shoe
        self.player: list[str] = []
        self.banker: list[str] = []
        self._log: list[str | Action] = []

    @property
    def log(self) -> list[str | Action]:
        return self._log

    @property
    def expected(self) -> Expectation:
        p, b = self.player, self.banker
        n = len(p) + len(b)
        if n < 4:
            return CardFor("player" if n % 2 == 0 else "banker")
        p2, b2 = points(p[:2]), points(b[:2])
        if is_natural(p2, b2):
            return Settle()
        if len(p) == 2 and len(b) == 2 and player_draws(p2):
            return CardFor("player")
        if len(b) == 2:
            third = None if len(p) == 2 else BACCARAT_VALUE[p[2][0]]
            if banker_draws(b2, third):
                return CardFor("banker")
        return Settle()

    def deal(self, card: str) -> None:
        card = parse_card(card)
        expected = self.expected
        if not isinstance(expected, CardFor):
            raise UnexpectedCard(f"no card is expected: the round is complete (card {card})")
        (self.player if expected.hand == "player" else self.banker).append(card)
        self._log.append(card)

    def act(self, action: Action) -> None:
        raise IllegalAction("baccarat takes no decisions after the bets", reason="no-decisions")

    def close_window(self) -> None:
        raise IllegalAction("baccarat has no decision windows", reason="no-window")

    def coup(self) -> Coup:
        return Coup(tuple(self.player), tuple(self.banker))

    def settle(self) -> Settlement:
        expected = self.expected
        if isinstance(expected, CardFor):
            raise IncompleteRound(f"the round is not complete: the {expected.hand} hand waits for a card")
        coup = self.coup()
        return Settlement(tuple(settle_bet(self.rules, coup, b) for b in self.bets), coup.to_dict())

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {
            "player": {"cards": list(self.player), "points": points(self.player)},
            "banker": {"cards": list(self.banker), "points": points(self.banker)},
        }
