"""Baccarat and No-Commission Baccarat (``baccarat.md``).

Four cards Player, Banker, Player, Banker; naturals stand; the Player's and the Banker's third
card follow the tableau. The pure functions (:func:`points`, :func:`player_draws`,
:func:`banker_draws`, :func:`settle_bet`) serve the engine, the exact RTP report and the
simulator alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ..cards import ALL_CARDS, BACCARAT_VALUE, parse_card
from ..errors import BetRefused, IllegalAction, IncompleteRound, UnexpectedCard
from ..rules import BaccaratRules, Limit
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
    exact_whole,
    paid_result,
    ratio_parts,
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


# --- settlement ------------------------------------------------------------------------------

Parts = tuple[int, int]
"""A payout ratio as (numerator, denominator) in lowest terms."""


class _Plan(NamedTuple):
    """What settlement and bet validation read from a rules object, read once per rules object:
    payout ratios as integer parts, the offered bet types and the limits."""

    player: Parts
    banker: Parts
    no_commission: Parts
    no_commission_six: Parts
    tie: Parts
    player_pair: Parts
    banker_pair: Parts
    side: dict[str, tuple[Parts, Parts | None]]
    """Offered side bet -> (its ratio, Lucky 6's three-card ratio or None)."""
    accepted: dict[tuple[str, str | None], tuple[int, int, int]]
    """(bet type, mode) of an offered bet with table limits -> (minimum, maximum, last round of a
    shoe it is offered in, :data:`EVERY_ROUND` for every round)."""
    totals: bool
    """A Player/Banker limit is configured: bets are summed per player."""


_PLANS: dict[int, tuple[BaccaratRules, _Plan]] = {}


EVERY_ROUND = 1 << 62
"""No round limit (a shoe has at most a few hundred rounds)."""


def _accepted(rules: BaccaratRules) -> dict[tuple[str, str | None], tuple[int, int, int]]:
    out: dict[tuple[str, str | None], tuple[int, int, int]] = {}
    for kind in (*BET_TYPES[:5], *rules.side_bets):
        limit: Limit | None = rules.limits.get(kind)
        if limit is None:
            continue
        side = rules.side_bets.get(kind)  # type: ignore[call-overload]
        last = EVERY_ROUND if side is None or side.max_round is None else side.max_round
        modes: tuple[str | None, ...] = (None,)
        if kind == "banker":
            modes = (*rules.modes, None) if "commission" in rules.modes else tuple(rules.modes)
        for mode in modes:
            out[(kind, mode)] = (limit.min, limit.max, last)
    return out


def _plan(rules: BaccaratRules) -> _Plan:
    cached = _PLANS.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    pay = rules.payouts
    side: dict[str, tuple[Parts, Parts | None]] = {
        str(name): (ratio_parts(bet.pays), None if bet.pays_three_cards is None else ratio_parts(bet.pays_three_cards))
        for name, bet in rules.side_bets.items()
    }
    plan = _Plan(
        ratio_parts(pay.player), ratio_parts(pay.banker), ratio_parts(pay.banker_no_commission),
        ratio_parts(pay.banker_no_commission_six), ratio_parts(pay.tie), ratio_parts(pay.player_pair),
        ratio_parts(pay.banker_pair), side, _accepted(rules),
        rules.player_limit is not None or rules.banker_limit is not None,
    )
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(rules)] = (rules, plan)  # the reference keeps the id from being reused
    return plan


_WIN, _LOSE, _PUSH = Outcome.WIN, Outcome.LOSE, Outcome.PUSH


def _settle_bets(rules: BaccaratRules, player: Sequence[str], banker: Sequence[str], p_points: int, b_points: int,
                 bets: Iterable[Bet]) -> list[BetResult]:
    """Settle bets against the final hands (``p_points``, ``b_points``: their points). Exact, then
    rounded down."""
    plan = _plan(rules)
    winner = "player" if p_points > b_points else "banker" if b_points > p_points else "tie"
    cards_used = len(player) + len(banker)
    whole = exact_whole
    out: list[BetResult] = []
    for bet in bets:
        stake = bet.amount
        kind = bet.type
        ratio: Parts | None
        if kind == "player" or kind == "banker":
            if winner == "tie":
                out.append(BetResult(bet.id, _PUSH, 0, stake, stake, whole(0), {}))
                continue
            if winner != kind:
                ratio = None
            elif kind == "player":
                ratio = plan.player
            elif bet.mode == "no-commission":
                ratio = plan.no_commission_six if b_points == 6 else plan.no_commission
            else:
                ratio = plan.banker
        elif kind == "tie":
            ratio = plan.tie if winner == "tie" else None
        elif kind == "player-pair":
            ratio = plan.player_pair if player[0][0] == player[1][0] else None
        elif kind == "banker-pair":
            ratio = plan.banker_pair if banker[0][0] == banker[1][0] else None
        elif kind == "lucky-6":
            pays, three = plan.side[kind]  # KeyError for a side bet the table does not offer
            if winner == "banker" and b_points == 6:
                ratio = three if len(banker) == 3 and three is not None else pays
            else:
                ratio = None
        elif kind == "big":
            pays = plan.side[kind][0]
            ratio = pays if cards_used >= 5 else None
        elif kind == "small":
            pays = plan.side[kind][0]
            ratio = pays if cards_used == 4 else None
        else:
            raise BetRefused(f"bet {bet.id}: unknown bet type {kind!r}", reason="unknown-bet-type")
        if ratio is None:
            out.append(BetResult(bet.id, _LOSE, -stake, stake, 0, whole(-stake), {}))
        elif ratio[1] == 1:
            won = stake * ratio[0]
            out.append(BetResult(bet.id, _WIN, won, stake, stake + won, whole(won), {}))
        else:
            out.append(paid_result(bet.id, _WIN, stake, stake, stake, ratio[0], ratio[1], {}))
    return out


def settle_bet(rules: BaccaratRules, coup: Coup, bet: Bet) -> BetResult:
    """Settle one bet against the final hands. Exact, then rounded down."""
    return _settle_bets(rules, coup.player, coup.banker, coup.player_points, coup.banker_points, (bet,))[0]


def _plainly_valid(plan: _Plan, bets: Sequence[Bet], round_in_shoe: int) -> bool:
    """True when every bet passes every check of :func:`validate_bets` in its common form (the
    fast path); False says nothing: the full checks then run and name what is wrong."""
    if plan.totals or len({bet.id for bet in bets}) != len(bets):
        return False
    accepted = plan.accepted
    for bet in bets:
        bounds = accepted.get((bet.type, bet.mode))
        amount = bet.amount
        if (bounds is None or type(amount) is not int or not bounds[0] <= amount <= bounds[1]
                or round_in_shoe > bounds[2] or bet.seat is not None):
            return False
    return True


def validate_bets(rules: BaccaratRules, bets: Sequence[Bet], round_in_shoe: int) -> None:
    """Every rule a set of accepted bets must satisfy (``baccarat.md``)."""
    if _plainly_valid(_plan(rules), bets, round_in_shoe):
        return
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


_PLAYER_CARD = CardFor("player")
_BANKER_CARD = CardFor("banker")
_SETTLE = Settle()
_VALID = frozenset(ALL_CARDS)
_VALUE = BACCARAT_VALUE

# The tableau as tables, built from the functions above: what the round expects after the first
# four cards (Player's two-card points, Banker's), and after the Player's third card (Banker's
# two-card points, the third card's points). A Banker's third card, or a sixth card, ends it.
_AFTER_FOUR: tuple[tuple[Expectation, ...], ...] = tuple(
    tuple(
        _SETTLE if is_natural(p2, b2) else _PLAYER_CARD if player_draws(p2)
        else _BANKER_CARD if banker_draws(b2, None) else _SETTLE
        for b2 in range(10)
    )
    for p2 in range(10)
)
_AFTER_PLAYER_THIRD: tuple[tuple[Expectation, ...], ...] = tuple(
    tuple(_BANKER_CARD if banker_draws(b2, third) else _SETTLE for third in range(10)) for b2 in range(10)
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
        self._expected: Expectation = _PLAYER_CARD
        self._b2 = 0

    @property
    def log(self) -> list[str | Action]:
        return self._log

    @property
    def expected(self) -> Expectation:
        return self._expected

    def deal(self, card: str) -> None:
        if type(card) is not str or card not in _VALID:  # parse_card explains what is wrong
            card = parse_card(card)
        expected = self._expected
        if expected is _PLAYER_CARD:
            self.player.append(card)
        elif expected is _BANKER_CARD:
            self.banker.append(card)
        else:
            raise UnexpectedCard(f"no card is expected: the round is complete (card {card})")
        log = self._log
        log.append(card)
        n = len(log)
        if n < 4:
            self._expected = _BANKER_CARD if n % 2 else _PLAYER_CARD
        elif n == 4:
            p, b = self.player, self.banker
            self._b2 = (_VALUE[b[0][0]] + _VALUE[b[1][0]]) % 10
            self._expected = _AFTER_FOUR[(_VALUE[p[0][0]] + _VALUE[p[1][0]]) % 10][self._b2]
        elif n == 5 and expected is _PLAYER_CARD:
            self._expected = _AFTER_PLAYER_THIRD[self._b2][_VALUE[card[0]]]
        else:
            self._expected = _SETTLE

    def act(self, action: Action) -> None:
        raise IllegalAction("baccarat takes no decisions after the bets", reason="no-decisions")

    def close_window(self) -> None:
        raise IllegalAction("baccarat has no decision windows", reason="no-window")

    def coup(self) -> Coup:
        return Coup(tuple(self.player), tuple(self.banker))

    def settle(self) -> Settlement:
        expected = self._expected
        if expected is not _SETTLE:
            raise IncompleteRound(f"the round is not complete: the {expected.hand} hand waits for a card")  # type: ignore[union-attr]
        player, banker = self.player, self.banker
        p_points = sum([_VALUE[c[0]] for c in player]) % 10
        b_points = sum([_VALUE[c[0]] for c in banker]) % 10
        results = _settle_bets(self.rules, player, banker, p_points, b_points, self.bets)
        hands = {  # Coup.to_dict, without building the Coup
            "player": {"cards": list(player), "points": p_points},
            "banker": {"cards": list(banker), "points": b_points},
            "winner": "player" if p_points > b_points else "banker" if b_points > p_points else "tie",
        }
        return Settlement(tuple(results), hands)

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {
            "player": {"cards": list(self.player), "points": points(self.player)},
            "banker": {"cards": list(self.banker), "points": points(self.banker)},
        }
