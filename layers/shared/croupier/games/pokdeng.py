"""Pok Deng (``pok-deng.md``).

Five Player hands (``hand-1`` ... ``hand-5``) each play against one Banker hand; two cards each,
nobody draws. Dealing order: first card to hands 1 to 5 then the Banker, second card in the same
order. All five hands are always dealt. The per-round burn card is the shoe's business
(``shoe.py``): the engine sees only the twelve round cards.

Scores and patterns
    A hand's points are the sum of its two cards modulo 10 (ace 1, 2-9 face value, 10/J/Q/K 0).
    A hand is a **pair** (same rank), a **flush** (same suit) or a configured **special
    combination** (``rules.special_combinations``; candidates in ``rules.py``). Any of the three is a
    "special pattern". :func:`pattern` names one of them, in this precedence: ``pair``, then
    ``flush``, then the first matching special combination in the table's list. The label never
    changes a result: ranking asks :func:`special_combination` itself, payouts ask whether the hand
    is any special pattern and whether it is a pair or a flush.

Ranking (:func:`hand_rank`)
    ``2 * points``, except that a special combination ranks between 7 and 8 (``15``): it beats 7
    and loses to 8. **Decision:** a special combination hand that scores 8 or 9 ranks by its points
    (it would otherwise lose its natural 8 or 9); so two special combinations below 8 points push,
    and a special combination with 8 points pushes against a plain 8. Equal ranks push
    (``pok-deng.md`` **Decision**).

Payouts (``rules.payouts``; :func:`settle_bet`)
    Player N, hand N ranks higher: ``win`` (1:1), or ``win_special`` (2:1) when hand N is a special
    pattern, with the exceptions in order of precedence: (1) hand N with 8 or 9 points that is a
    flush or a pair always wins ``win_special``; (2) otherwise, when the Banker has 0 or 6 points,
    a win pays ``win`` even with a special pattern. The Banker ranks higher: the bet loses
    ``lose`` (1x) times its stake, ``lose_special`` (2x) when the Banker is a special pattern.
    The exceptions speak only of a Player win; a Banker win is never softened by them.
    Player N Pair wins ``pair`` (11:1) when hand N is a pair (same rank), else loses its stake.

Reservation
    A Player N bet takes ``rules.reservation * stake`` from the wallet when it is confirmed (the
    bet can lose 2x); its :class:`~croupier.games.base.BetResult` has that as ``staked`` and what
    comes back as ``paid``: stake 1000 reserves 2000 and gets back 3000 after a 1:1 win, 4000 after
    2:1, 2000 on a push, 1000 after a 1x loss, 0 after a 2x loss. A Pair bet reserves its stake.

Roadmap (``pok-deng.md`` **Decision**)
    The settlement's ``hands`` give, per hand, its cards, points, pattern, special combination and
    (for hands 1 to 5) its result against the Banker: everything a client needs to draw a roadmap.

Hidden cards
    **Decision:** the dealer deals face down and reveals the hands after the deal (``pok-deng.md``),
    so every card is announced with ``face_up=False`` and :meth:`PokDengRound.view` shows no card
    until all twelve are in (``reveal_hidden=True`` shows them, for the dealer console).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ..cards import ALL_CARDS, BACCARAT_VALUE, RANKS, parse_card, parse_cards
from ..errors import BetRefused, CardError, IllegalAction, IncompleteRound, UnexpectedCard
from ..rules import PokDengRules
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

HANDS = 5
PLAYER_BETS = tuple(f"player-{n}" for n in range(1, HANDS + 1))
PAIR_BETS = tuple(f"player-{n}-pair" for n in range(1, HANDS + 1))
BET_TYPES = PLAYER_BETS + PAIR_BETS
HAND_NAMES = (*(f"hand-{n}" for n in range(1, HANDS + 1)), "banker")
ROUND_CARDS = 2 * len(HAND_NAMES)

SPECIAL_RANK = 15
"""Rank of a special combination below 8 points: between 7 (14) and 8 (16)."""

_PICTURES = frozenset("JQK")
_TEN_VALUE = frozenset("TJQK")
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_VALID = frozenset(ALL_CARDS)


# --- pure scoring ----------------------------------------------------------------------------


def points(cards: Iterable[str]) -> int:
    """Sum of the cards' points modulo 10 (8 + 7 scores 5)."""
    return sum(BACCARAT_VALUE[c[0]] for c in cards) % 10


def _matches(name: str, r1: str, r2: str) -> bool:
    if name == "two-pictures":
        return r1 in _PICTURES and r2 in _PICTURES
    if name == "consecutive":
        return abs(_RANK_INDEX[r1] - _RANK_INDEX[r2]) == 1
    if name == "pictures-and-ten":
        return r1 in _TEN_VALUE and r2 in _TEN_VALUE
    raise ValueError(f"unknown special combination {name!r}")


def special_combination(rules: PokDengRules, cards: Sequence[str]) -> str | None:
    """The first of the table's special combinations that the two-card hand makes, or None."""
    r1, r2 = cards[0][0], cards[1][0]
    for name in rules.special_combinations:
        if _matches(name, r1, r2):
            return name
    return None


def is_pair(cards: Sequence[str]) -> bool:
    return cards[0][0] == cards[1][0]


def is_flush(cards: Sequence[str]) -> bool:
    return cards[0][1] == cards[1][1]


def pattern(rules: PokDengRules, cards: Sequence[str]) -> str | None:
    """``"pair"``, ``"flush"``, a special combination's name, or None — in that precedence."""
    if is_pair(cards):
        return "pair"
    if is_flush(cards):
        return "flush"
    return special_combination(rules, cards)


def hand_rank(rules: PokDengRules, cards: Sequence[str]) -> int:
    """A comparable rank: ``2 * points``; a special combination below 8 points ranks 15."""
    p = points(cards)
    if p < 8 and special_combination(rules, cards) is not None:
        return SPECIAL_RANK
    return 2 * p


# --- precomputed hand facts (the hot path) ---------------------------------------------------


class HandInfo(NamedTuple):
    """Everything settlement needs about one two-card hand."""

    points: int
    rank: int
    pattern: str | None
    combination: str | None
    special: bool
    """Any special pattern: pair, flush or special combination."""
    pair: bool
    always_special: bool
    """8 or 9 points with a flush or a pair: wins 2:1 whatever the Banker has (exception 1)."""


def _info(combos: tuple[str, ...], c1: str, c2: str) -> HandInfo:
    r1, r2 = c1[0], c2[0]
    p = (BACCARAT_VALUE[r1] + BACCARAT_VALUE[r2]) % 10
    pair = r1 == r2
    flush = c1[1] == c2[1]
    combo = next((name for name in combos if _matches(name, r1, r2)), None)
    label = "pair" if pair else "flush" if flush else combo
    rank = SPECIAL_RANK if combo is not None and p < 8 else 2 * p
    return HandInfo(p, rank, label, combo, label is not None, pair, p >= 8 and (pair or flush))


_TABLES: dict[tuple[str, ...], dict[tuple[str, str], HandInfo]] = {}


def hand_table(rules: PokDengRules) -> dict[tuple[str, str], HandInfo]:
    """Every ordered two-card hand -> :class:`HandInfo` under the table's special combinations
    (2,704 entries, built once per set of combinations and shared: do not change it)."""
    combos = tuple(rules.special_combinations)
    table = _TABLES.get(combos)
    if table is None:
        table = {(a, b): _info(combos, a, b) for a in ALL_CARDS for b in ALL_CARDS}
        _TABLES[combos] = table
    return table


def hand_info(rules: PokDengRules, cards: Sequence[str]) -> HandInfo:
    return hand_table(rules)[cards[0], cards[1]]


# --- settlement ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PokDengHands:
    """The final hands of a round: ``players[0]`` is hand 1 ... ``players[4]`` hand 5."""

    players: tuple[tuple[str, str], ...]
    banker: tuple[str, str]

    def to_dict(self, rules: PokDengRules | None = None) -> dict[str, Any]:
        """The roadmap entry: per hand its cards, points, pattern and special combination, and for
        hands 1 to 5 the result against the Banker (``win``, ``lose``, ``push``). Without ``rules``
        no special combination is configured."""
        table = hand_table(rules if rules is not None else _NO_COMBOS)
        return _roadmap(table, self.players, self.banker)


_NO_COMBOS = PokDengRules()


def _roadmap(
    table: dict[tuple[str, str], HandInfo], players: Sequence[tuple[str, str]], banker_cards: tuple[str, str]
) -> dict[str, Any]:
    banker = table[banker_cards]
    out: dict[str, Any] = {}
    for name, cards in zip(HAND_NAMES, players, strict=False):
        info = table[cards]
        out[name] = {
            "cards": list(cards),
            "points": info.points,
            "pattern": info.pattern,
            "combination": info.combination,
            "result": "win" if info.rank > banker.rank else "lose" if info.rank < banker.rank else "push",
        }
    out["banker"] = {
        "cards": list(banker_cards),
        "points": banker.points,
        "pattern": banker.pattern,
        "combination": banker.combination,
    }
    return out


class _Plan(NamedTuple):
    """The table's payouts, read once per rules object; ratios as (numerator, denominator)."""

    table: dict[tuple[str, str], HandInfo]
    reservation: int
    win: tuple[int, int]
    win_special: tuple[int, int]
    lose: int
    lose_special: int
    pair: tuple[int, int]


_PLANS: dict[int, tuple[PokDengRules, _Plan]] = {}


def _plan(rules: PokDengRules) -> _Plan:
    cached = _PLANS.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    pay = rules.payouts
    plan = _Plan(hand_table(rules), rules.reservation, ratio_parts(pay.win), ratio_parts(pay.win_special), pay.lose,
                 pay.lose_special, ratio_parts(pay.pair))
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(rules)] = (rules, plan)  # the reference keeps the id from being reused
    return plan


_WIN, _LOSE, _PUSH = Outcome.WIN, Outcome.LOSE, Outcome.PUSH


_SLOTS: dict[str, tuple[int, bool]] = {
    **{t: (i, False) for i, t in enumerate(PLAYER_BETS)},
    **{t: (i, True) for i, t in enumerate(PAIR_BETS)},
}
"""Bet type -> (index of its hand, whether it is a Pair bet)."""

_SLOT_INDEX: dict[str, int] = {t: i for i, t in enumerate(BET_TYPES)}
"""Bet type -> 0 to 4 for Player 1 to 5, 5 to 9 for Player 1 Pair to Player 5 Pair."""


def _slot(bet_type: str) -> tuple[int, bool]:
    slot = _SLOTS.get(bet_type)
    if slot is None:
        raise BetRefused(f"unknown pok deng bet type {bet_type!r}; bets are {', '.join(BET_TYPES)}",
                         reason="unknown-bet-type")
    return slot


Terms = tuple[str, int, int, int]
"""How a bet of one type settles in one round: ``(outcome, staked, paid_num, paid_den)`` per
unit of stake. A bet of ``stake`` takes ``stake * staked`` from the wallet and is paid exactly
``stake * paid_num / paid_den`` (then rounded down)."""


def _player_terms(plan: _Plan, player: HandInfo, banker: HandInfo) -> Terms:
    reserved = plan.reservation
    if player.rank > banker.rank:
        if player.always_special:
            num, den = plan.win_special
        elif banker.points == 0 or banker.points == 6:
            num, den = plan.win
        else:
            num, den = plan.win_special if player.special else plan.win
        return _WIN, reserved, reserved * den + num, den
    if player.rank < banker.rank:
        lost = plan.lose_special if banker.special else plan.lose
        return _LOSE, reserved, reserved - lost, 1
    return _PUSH, reserved, reserved, 1


def _pair_terms(plan: _Plan, player: HandInfo) -> Terms:
    if player.pair:
        num, den = plan.pair
        return _WIN, 1, den + num, den
    return _LOSE, 1, 0, 1


def _result(bet_id: str, terms: Terms, stake: int) -> BetResult:
    outcome, per_unit, num, den = terms
    staked = stake * per_unit
    if den == 1:
        net = stake * num - staked
        return BetResult(bet_id, outcome, net, staked, net + staked, exact_whole(net), {})
    return paid_result(bet_id, outcome, staked, 0, stake, num, den, {})


def settle_bet(rules: PokDengRules, hands: PokDengHands, bet: Bet) -> BetResult:
    """Settle one bet against the final hands. Exact, then rounded down."""
    plan = _plan(rules)
    index, pair_bet = _slot(bet.type)
    player, banker = hands.players[index], hands.banker
    try:
        info, banker_info = plan.table[player[0], player[1]], plan.table[banker[0], banker[1]]
    except (KeyError, IndexError, TypeError):
        parse_cards((*player, *banker))  # names the bad card
        raise CardError(f"bet {bet.id}: hand {index + 1} and the Banker need two cards each") from None
    terms = _pair_terms(plan, info) if pair_bet else _player_terms(plan, info, banker_info)
    return _result(bet.id, terms, bet.amount)


def reservation(rules: PokDengRules, bet_type: str, amount: int) -> int:
    """What a bet takes from the wallet when confirmed: ``rules.reservation * amount`` for a
    Player N bet, the stake for a Pair bet."""
    _, pair_bet = _slot(bet_type)
    return amount if pair_bet else rules.reservation * amount


def validate_bets(rules: PokDengRules, bets: Sequence[Bet]) -> None:
    """Every rule a set of accepted bets must satisfy: known type, amount within the table's
    limits, no seat and no mode, unique ids."""
    limits: dict[str, Any] = rules.limits  # type: ignore[assignment]
    if len({bet.id for bet in bets}) != len(bets):
        check_unique_ids(bets)
    for bet in bets:
        # The common case in one test; anything else goes through the shared checks for its message.
        limit = limits.get(bet.type)
        amount = bet.amount
        if (limit is not None and type(amount) is int and limit.min <= amount <= limit.max and bet.type in _SLOTS
                and bet.seat is None and bet.mode is None):
            continue
        check_bet_basics(bet, limits, BET_TYPES)
        if bet.seat is not None:
            raise BetRefused(f"bet {bet.id}: pok deng bets take no seat", reason="bad-bet")
        if bet.mode is not None:
            raise BetRefused(f"bet {bet.id}: pok deng bets take no mode", reason="bad-bet")


# --- the round -------------------------------------------------------------------------------

_EXPECT = tuple(CardFor(name, face_up=False) for name in HAND_NAMES)
_SETTLE = Settle()


class PokDengRound:
    """One Pok Deng round: twelve cards in dealing order, then settle."""

    game: ClassVar[str] = "pok-deng"
    deals_during_betting: ClassVar[bool] = True

    def __init__(
        self,
        rules: PokDengRules,
        bets: Sequence[Bet] = (),
        *,
        round_in_shoe: int = 1,
        balances: Mapping[str, int] | None = None,
        validate: bool = True,
    ) -> None:
        """``balances`` is accepted for the common engine signature; Pok Deng takes no stake
        after the bets, so it is not used."""
        if validate:
            validate_bets(rules, bets)
        self.rules = rules
        self.bets = tuple(bets)
        self.round_in_shoe = round_in_shoe
        self.cards: list[str] = []
        self._log: list[str | Action] = []

    @property
    def log(self) -> list[str | Action]:
        return self._log

    @property
    def expected(self) -> Expectation:
        n = len(self.cards)
        return _EXPECT[n % 6] if n < ROUND_CARDS else _SETTLE

    def deal(self, card: str) -> None:
        if type(card) is not str or card not in _VALID:  # parse_card explains what is wrong
            card = parse_card(card)
        if len(self.cards) >= ROUND_CARDS:
            raise UnexpectedCard(f"no card is expected: the round is complete (card {card})")
        self.cards.append(card)
        self._log.append(card)

    def act(self, action: Action) -> None:
        raise IllegalAction("pok deng takes no decisions after the bets", reason="no-decisions")

    def close_window(self) -> None:
        raise IllegalAction("pok deng has no decision windows", reason="no-window")

    def hands(self) -> PokDengHands:
        """The final hands; raises :class:`IncompleteRound` before the twelfth card."""
        n = len(self.cards)
        if n < ROUND_CARDS:
            raise IncompleteRound(f"the round is not complete: the {HAND_NAMES[n % 6]} hand waits for a card")
        c = self.cards
        return PokDengHands(tuple((c[i], c[i + 6]) for i in range(HANDS)), (c[5], c[11]))

    def settle(self) -> Settlement:
        c = self.cards
        if len(c) < ROUND_CARDS:
            self.hands()  # raises IncompleteRound, naming the hand that waits
        plan = _plan(self.rules)
        table = plan.table
        players = [(c[0], c[6]), (c[1], c[7]), (c[2], c[8]), (c[3], c[9]), (c[4], c[10])]
        banker_cards = (c[5], c[11])
        infos = [table[h] for h in players]
        banker = table[banker_cards]
        terms: list[Terms | None] = [None] * len(BET_TYPES)
        whole = exact_whole
        results = []
        for bet in self.bets:
            slot = _SLOT_INDEX.get(bet.type)
            if slot is None:
                _slot(bet.type)  # raises, naming the bet type
                continue
            t = terms[slot]
            if t is None:
                t = terms[slot] = (_player_terms(plan, infos[slot], banker) if slot < HANDS
                                   else _pair_terms(plan, infos[slot - HANDS]))
            outcome, per_unit, num, den = t
            stake = bet.amount
            staked = stake * per_unit
            if den == 1:  # _result, inlined: the hot path
                net = stake * num - staked
                results.append(BetResult(bet.id, outcome, net, staked, net + staked, whole(net), {}))
            else:
                results.append(paid_result(bet.id, outcome, staked, 0, stake, num, den, {}))
        return Settlement(tuple(results), _roadmap(table, players, banker_cards))

    def view(self, *, reveal_hidden: bool = False) -> dict[str, Any]:
        """Each hand's cards and points so far; before the deal is complete (the reveal) the
        cards are hidden unless ``reveal_hidden``."""
        shown = reveal_hidden or len(self.cards) >= ROUND_CARDS
        out: dict[str, Any] = {"complete": len(self.cards) >= ROUND_CARDS}
        for i, name in enumerate(HAND_NAMES):
            cards = self.cards[i::6]
            if shown:
                entry: dict[str, Any] = {"cards": list(cards), "points": points(cards)}
                if len(cards) == 2:
                    entry["pattern"] = pattern(self.rules, cards)
            else:
                entry = {"cards": ["??"] * len(cards)}
            out[name] = entry
        return out
