"""Baccarat and No-Commission Baccarat (``baccarat.md``).

Four cards Player, Banker, Player, Banker; naturals stand; the Player's and the Banker's third
card follow the tableau. The pure functions (:func:`points`, :func:`player_draws`,
:func:`banker_draws`, :func:`settle_bet`) serve the engine, the exact RTP report and the
simulator alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

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

Spec = tuple[str, int, int, int]
"""How one bet settles against one coup: (outcome, paid per unit of stake as ``num / den``, den,
the winning ratio's numerator). A loss pays 0/1, a push 1/1, a win of ``n/d`` pays ``(n + d)/d``."""

CoupKey = tuple[int, int, int, int, bool, bool]
"""Everything settlement reads from the final hands: Player points, Banker points, Player cards,
Banker cards, Player pair, Banker pair."""

Offered = tuple[dict[str, tuple[int, int]], dict[tuple[str, str], tuple[int, int]]]
"""The bets offered in one round of a shoe, with their (minimum, maximum): a bet without a mode by
its type; a Banker bet with a mode by (type, mode)."""

CoupSpecs = tuple[str, dict[str, Spec], dict[tuple[str, str], Spec], dict[str, Spec]]
"""The winner of a coup; the :data:`Spec` of a bet without a mode, by bet type; of a Banker bet
with a mode, by (bet type, mode); of a validated bet, by its mode if it has one, else by its type
(a mode only on a Banker bet: modes and bet types never share a name)."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """What settlement and bet validation read from a rules object, read once per rules object:
    payout ratios as integer parts, the offered bet types and the limits. (A slotted class: its
    attributes read faster than a named tuple's fields.)"""

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
    rounds: dict[int, Offered]
    """Filled as rounds are validated: round of a shoe -> :data:`Offered` in that round."""
    totals: bool
    """A Player/Banker limit is configured: bets are summed per player."""
    coups: dict[CoupKey, CoupSpecs]
    """Filled as coups are settled: how every bet the table settles settles on that coup."""


_PLANS: dict[int, tuple[BaccaratRules, _Plan]] = {}


EVERY_ROUND = 1 << 62
"""No round limit (a shoe has at most a few hundred rounds)."""


def _accepted(rules: BaccaratRules) -> dict[tuple[str, str | None], tuple[int, int, int]]:
    out: dict[tuple[str, str | None], tuple[int, int, int]] = {}
    for kind in (*BET_TYPES[:5], *rules.side_bets):
        limit: Limit | None = rules.limits.get(kind)  # type: ignore[call-overload]
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
    accepted = _accepted(rules)
    plan = _Plan(
        ratio_parts(pay.player), ratio_parts(pay.banker), ratio_parts(pay.banker_no_commission),
        ratio_parts(pay.banker_no_commission_six), ratio_parts(pay.tie), ratio_parts(pay.player_pair),
        ratio_parts(pay.banker_pair), side, accepted, {},
        rules.player_limit is not None or rules.banker_limit is not None, {},
    )
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(rules)] = (rules, plan)  # the reference keeps the id from being reused
    return plan


_WIN, _LOSE, _PUSH = Outcome.WIN, Outcome.LOSE, Outcome.PUSH
_PUSHED: Parts = (0, 0)
"""What :func:`_ratio` returns for a Player or Banker bet on a tie."""


def _winner(p_points: int, b_points: int) -> str:
    return "player" if p_points > b_points else "banker" if b_points > p_points else "tie"


def _ratio(plan: _Plan, bet: Bet, winner: str, b_points: int, banker_cards: int, cards_used: int,
           player_pair: Callable[[], bool], banker_pair: Callable[[], bool]) -> Parts | None:
    """What ``bet`` wins on these final hands: its payout ratio, None when it loses, :data:`_PUSHED`
    when it pushes. ``player_pair``/``banker_pair`` are called only when a pair bet asks."""
    kind = bet.type
    if kind == "player" or kind == "banker":
        if winner == "tie":
            return _PUSHED
        if winner != kind:
            return None
        if kind == "player":
            return plan.player
        if bet.mode == "no-commission":
            return plan.no_commission_six if b_points == 6 else plan.no_commission
        return plan.banker
    if kind == "tie":
        return plan.tie if winner == "tie" else None
    if kind == "player-pair":
        return plan.player_pair if player_pair() else None
    if kind == "banker-pair":
        return plan.banker_pair if banker_pair() else None
    if kind == "lucky-6":
        pays, three = plan.side[kind]  # KeyError for a side bet the table does not offer
        if winner == "banker" and b_points == 6:
            return three if banker_cards == 3 and three is not None else pays
        return None
    if kind == "big":
        pays = plan.side[kind][0]
        return pays if cards_used >= 5 else None
    if kind == "small":
        pays = plan.side[kind][0]
        return pays if cards_used == 4 else None
    raise BetRefused(f"bet {bet.id}: unknown bet type {kind!r}", reason="unknown-bet-type")


def _result(bet: Bet, ratio: Parts | None) -> BetResult:
    """The result of ``bet`` settled at ``ratio`` (as :func:`_ratio` gives it), for any stake."""
    stake = bet.amount
    if ratio is _PUSHED:
        return BetResult(bet.id, _PUSH, 0, stake, stake, exact_whole(0), {})
    if ratio is None:
        return BetResult(bet.id, _LOSE, -stake, stake, 0, exact_whole(-stake), {})
    if ratio[1] == 1:
        won = stake * ratio[0]
        return BetResult(bet.id, _WIN, won, stake, stake + won, exact_whole(won), {})
    return paid_result(bet.id, _WIN, stake, stake, stake, ratio[0], ratio[1], {})


def _spec(ratio: Parts | None) -> Spec:
    if ratio is _PUSHED:
        return (_PUSH, 1, 1, 0)
    if ratio is None:
        return (_LOSE, 0, 1, 0)
    return (_WIN, ratio[0] + ratio[1], ratio[1], ratio[0])


def _coup_specs(plan: _Plan, key: CoupKey) -> CoupSpecs:
    """How every bet the table settles, without a mode or a Banker bet with either mode, settles
    on the coup ``key``: computed once per coup and rules object, then read from ``plan.coups``."""
    p_points, b_points, player_cards, banker_cards, player_pair, banker_pair = key
    winner = _winner(p_points, b_points)

    def spec(kind: str, mode: str | None) -> Spec:
        return _spec(_ratio(plan, Bet("", "", kind, 0, None, mode), winner, b_points, banker_cards,
                            player_cards + banker_cards, lambda: player_pair, lambda: banker_pair))

    kinds = (*BET_TYPES[:5], *(kind for kind in BET_TYPES[5:] if kind in plan.side))
    by_type = {kind: spec(kind, None) for kind in kinds}
    by_mode = {("banker", mode): spec("banker", mode) for mode in MODES}
    entry = (winner, by_type, by_mode, {**by_type, **{mode: by_mode[("banker", mode)] for mode in MODES}})
    if len(plan.coups) >= 4096:
        plan.coups.clear()
    plan.coups[key] = entry
    return entry


def _coup_key(player: Sequence[str], banker: Sequence[str], p_points: int, b_points: int) -> CoupKey:
    """The :data:`CoupKey` of final hands of at least two cards each."""
    return (p_points, b_points, len(player), len(banker), player[0][0] == player[1][0], banker[0][0] == banker[1][0])


def _settle_bets(rules: BaccaratRules, player: Sequence[str], banker: Sequence[str], p_points: int, b_points: int,
                 bets: Sequence[Bet], plan: _Plan | None = None) -> list[BetResult]:
    """Settle bets against the final hands (``p_points``, ``b_points``: their points). Exact, then
    rounded down."""
    if plan is None:
        plan = _plan(rules)
    if len(player) >= 2 and len(banker) >= 2:
        key = _coup_key(player, banker, p_points, b_points)
        winner, by_type, by_mode, _ = plan.coups.get(key) or _coup_specs(plan, key)
        try:
            return _settle_usual(plan, player, banker, b_points, bets, winner, by_type, by_mode)
        except TypeError:  # an unhashable bet type or mode, or a stake that is no number
            pass
    return _settle_plain(plan, player, banker, p_points, b_points, bets)


def _settle_usual(plan: _Plan, player: Sequence[str], banker: Sequence[str], b_points: int, bets: Sequence[Bet],
                  winner: str, by_type: dict[str, Spec], by_mode: dict[tuple[str, str], Spec]) -> list[BetResult]:
    """:func:`_settle_plain`, the usual bets read from the coup's :data:`Spec` tables."""
    whole = exact_whole
    out: list[BetResult] = []
    append = out.append
    for bet in bets:
        stake = bet.amount
        mode = bet.mode
        spec = by_type.get(bet.type) if mode is None else by_mode.get((bet.type, mode))
        if spec is None or type(stake) is not int:  # anything unusual: settled as the rules say
            append(_result(bet, _ratio(plan, bet, winner, b_points, len(banker), len(player) + len(banker),
                                       lambda: player[0][0] == player[1][0],
                                       lambda: banker[0][0] == banker[1][0])))
            continue
        outcome, num, den, won = spec
        if den == 1:
            paid = stake * num
            net = paid - stake
            append(BetResult(bet.id, outcome, net, stake, paid, whole(net), {}))
        else:
            paid, rest = divmod(stake * num, den)
            net = paid - stake
            append(BetResult(bet.id, outcome, net, stake, paid, Fraction(stake * won, den) if rest else whole(net),
                             {}))
    return out


def _settle_plain(plan: _Plan, player: Sequence[str], banker: Sequence[str], p_points: int, b_points: int,
                  bets: Sequence[Bet]) -> list[BetResult]:
    """Settle bets against the final hands, one bet at a time, as the rules say."""
    winner = _winner(p_points, b_points)
    cards_used = len(player) + len(banker)
    return [
        _result(bet, _ratio(plan, bet, winner, b_points, len(banker), cards_used,
                            lambda: player[0][0] == player[1][0], lambda: banker[0][0] == banker[1][0]))
        for bet in bets
    ]


def settle_bet(rules: BaccaratRules, coup: Coup, bet: Bet) -> BetResult:
    """Settle one bet against the final hands. Exact, then rounded down."""
    return _settle_bets(rules, coup.player, coup.banker, coup.player_points, coup.banker_points, (bet,))[0]


def _offered(plan: _Plan, round_in_shoe: int) -> Offered:
    """The bets offered in round ``round_in_shoe`` of a shoe (computed once, then read from
    ``plan.rounds``)."""
    by_type: dict[str, tuple[int, int]] = {}
    by_mode: dict[tuple[str, str], tuple[int, int]] = {}
    for (kind, mode), (low, high, last) in plan.accepted.items():
        if round_in_shoe <= last:
            if mode is None:
                by_type[kind] = (low, high)
            else:
                by_mode[(kind, mode)] = (low, high)
    if len(plan.rounds) >= 1024:
        plan.rounds.clear()
    entry = plan.rounds[round_in_shoe] = (by_type, by_mode)
    return entry


def _plainly_valid(plan: _Plan, bets: Sequence[Bet], round_in_shoe: int) -> bool:
    """True when every bet passes every check of :func:`validate_bets` in its common form (the
    fast path); False says nothing: the full checks then run and name what is wrong."""
    if plan.totals:
        return False
    if type(round_in_shoe) is not int:
        return _plainly_valid_in_order(plan, bets, round_in_shoe)
    by_type, by_mode = plan.rounds.get(round_in_shoe) or _offered(plan, round_in_shoe)
    ids: dict[str, Bet] = {}  # the ids seen (a dict fills faster than a set)
    try:
        for bet in bets:
            ids[bet.id] = bet
            mode = bet.mode
            try:
                low, high = by_type[bet.type] if mode is None else by_mode[bet.type, mode]
            except KeyError:  # not offered (in this round), or no limits
                return False
            amount = bet.amount
            if type(amount) is not int or not low <= amount <= high or bet.seat is not None:
                return False
    except TypeError:  # an unhashable field: the checks in their documented order
        return _plainly_valid_in_order(plan, bets, round_in_shoe)
    return len(ids) == len(bets)


def _plainly_valid_in_order(plan: _Plan, bets: Sequence[Bet], round_in_shoe: int) -> bool:
    """:func:`_plainly_valid` one check after the other, the ids first, as odd bets (an unhashable
    field) or an odd round number must meet them."""
    if len({bet.id for bet in bets}) != len(bets):
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
    _check_bets(rules, bets, round_in_shoe)


def _check_bets(rules: BaccaratRules, bets: Sequence[Bet], round_in_shoe: int) -> None:
    """The full checks of :func:`validate_bets`, naming the first thing wrong."""
    check_unique_ids(bets)
    offered = set(BET_TYPES[:5]) | set(rules.side_bets)
    totals: dict[str, list[int]] = {}
    for bet in bets:
        check_bet_basics(bet, rules.limits, BET_TYPES)
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
_POINTS: dict[str, int] = {card: BACCARAT_VALUE[card[0]] for card in ALL_CARDS}
"""Every valid card -> its points."""

# The tableau as tables, built from the functions above: what the round expects after the first
# four cards (the Player's two cards' sum of points, 0 to 18, and the Banker's), and after the
# Player's third card (the Banker's two cards' sum, the third card's points). A Banker's third
# card, or a sixth card, ends it.
_AFTER_FOUR: tuple[tuple[Expectation, ...], ...] = tuple(
    tuple(
        _SETTLE if is_natural(p_sum % 10, b_sum % 10) else _PLAYER_CARD if player_draws(p_sum % 10)
        else _BANKER_CARD if banker_draws(b_sum % 10, None) else _SETTLE
        for b_sum in range(19)
    )
    for p_sum in range(19)
)
_AFTER_PLAYER_THIRD: tuple[tuple[Expectation, ...], ...] = tuple(
    tuple(_BANKER_CARD if banker_draws(b_sum % 10, third) else _SETTLE for third in range(10)) for b_sum in range(19)
)
_NEW_RESULT = BetResult.__new__
_INIT_RESULT = BetResult.__init__
"""``BetResult(...)`` in its two steps, as ``type.__call__`` takes them (BetResult has no
``__new__`` of its own): called from Python code, the dataclass's ``__init__`` runs without the
interpreter's detour through C, about a tenth cheaper. The hot loop of :meth:`BaccaratRound.settle`."""
_FIRST_FOUR = (_BANKER_CARD, _PLAYER_CARD, _BANKER_CARD)
"""What the round expects after its first, second and third card."""


class BaccaratRound:
    """One baccarat round: knows which hand the next card goes to, and settles."""

    game: ClassVar[str] = "baccarat"
    deals_during_betting: ClassVar[bool] = False
    _p_sum: int
    _b_sum: int
    """The sums of the points of the Player's and the Banker's cards, from the fourth card on."""

    def __init__(
        self,
        rules: BaccaratRules,
        bets: Sequence[Bet] = (),
        *,
        round_in_shoe: int = 1,
        balances: Mapping[str, int] | None = None,
        validate: bool = True,
    ) -> None:
        cached = _PLANS.get(id(rules))  # _plan(rules), inline
        plan = self._plan = cached[1] if cached is not None and cached[0] is rules else _plan(rules)
        self._validated = validate  # the bets passed validation, each with a whole-number stake
        if validate and not _plainly_valid(plan, bets, round_in_shoe):
            _check_bets(rules, bets, round_in_shoe)
            self._validated = all(type(bet.amount) is int for bet in bets)
        self.rules = rules
        self.bets = tuple(bets)
        self.round_in_shoe = round_in_shoe
        self.player: list[str] = []
        self.banker: list[str] = []
        self._log: list[str | Action] = []
        self._expected: Expectation = _PLAYER_CARD

    @property
    def log(self) -> list[str | Action]:
        return self._log

    @property
    def expected(self) -> Expectation:
        return self._expected

    def deal(self, card: str) -> None:
        if type(card) is not str or card not in _POINTS:  # parse_card explains what is wrong
            card = parse_card(card)
        log = self._log
        n = len(log)
        if n < 3:  # Player, Banker, Player
            (self.banker if n == 1 else self.player).append(card)
            log.append(card)
            self._expected = _FIRST_FOUR[n]
            return
        expected = self._expected
        if expected is _BANKER_CARD:
            self.banker.append(card)
        elif expected is _PLAYER_CARD:
            self.player.append(card)
        else:
            raise UnexpectedCard(f"no card is expected: the round is complete (card {card})")
        log.append(card)
        if n == 3:
            self._p_sum = p_sum = _POINTS[log[0]] + _POINTS[log[2]]  # type: ignore[index]
            self._b_sum = b_sum = _POINTS[log[1]] + _POINTS[card]  # type: ignore[index]
            self._expected = _AFTER_FOUR[p_sum][b_sum]
        elif expected is _PLAYER_CARD:
            value = _POINTS[card]
            self._p_sum += value
            self._expected = _AFTER_PLAYER_THIRD[self._b_sum][value]
        else:
            self._b_sum += _POINTS[card]
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
        p_points = self._p_sum % 10
        b_points = self._b_sum % 10
        plan = self._plan
        key = (p_points, b_points, len(player), len(banker), player[0][0] == player[1][0], banker[0][0] == banker[1][0])
        coup = plan.coups.get(key) or _coup_specs(plan, key)
        if self._validated:  # _settle_usual without the checks validation made
            specs = coup[3]
            whole = exact_whole
            new_result, init_result = _NEW_RESULT, _INIT_RESULT
            results: list[BetResult] = []
            append = results.append
            for bet in self.bets:
                stake = bet.amount
                outcome, num, den, won = specs[bet.mode or bet.type]
                result = new_result(BetResult)
                if num == 0:  # the bet loses
                    net = -stake
                    init_result(result, bet.id, outcome, net, stake, 0, whole(net), {})
                elif den == 1:
                    paid = stake * num
                    net = paid - stake
                    init_result(result, bet.id, outcome, net, stake, paid, whole(net), {})
                else:
                    paid, rest = divmod(stake * num, den)
                    net = paid - stake
                    init_result(result, bet.id, outcome, net, stake, paid,
                                Fraction(stake * won, den) if rest else whole(net), {})
                append(result)
        else:
            results = _settle_bets(self.rules, player, banker, p_points, b_points, self.bets, plan)
        hands = {  # Coup.to_dict, without building the Coup
            "player": {"cards": player.copy(), "points": p_points},
            "banker": {"cards": banker.copy(), "points": b_points},
            "winner": coup[0],
        }
        return Settlement(tuple(results), hands)

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        return {
            "player": {"cards": list(self.player), "points": points(self.player)},
            "banker": {"cards": list(self.banker), "points": points(self.banker)},
        }
