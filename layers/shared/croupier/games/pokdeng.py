"""Pok Deng (``pok-deng.md``).

Five Player hands (``hand-1`` ... ``hand-5``) each play against one Banker hand; two cards each,
nobody draws. Dealing order: first card to hands 1 to 5 then the Banker, second card in the same
order. All five hands are always dealt. The per-round burn card is the shoe's business
(``shoe.py``): the engine sees only the twelve round cards.

Scores and patterns
    A hand's points are the sum of its two cards modulo 10 (ace 1, 2-9 face value, 10/J/Q/K 0).
    A hand is a **pair** (same rank), a **flush** (same suit) or one of the table's **special
    combinations** (``rules.special_combinations``: named two-card rules over ranks and suits,
    highest first; the default is the spec's five, lion flush, special pair, court cards, ten and
    court, flush worth 0, in ``rules.py``). A hand that fits several takes the highest. Any of the
    three is a "special pattern". :func:`pattern` names the hand: its special combination, else
    ``pair``, else ``flush`` (**Decision**: the combination first, since it is what ranks the
    hand; a court-cards K-K is still a pair for the Pair bet).

Ranking (:func:`hand_rank`)
    9, 8, then the special combinations in the table's order, then 7 down to 0: ``100 * points``,
    a combination at position ``i`` of the list ``799 - i``. Two hands of the same rank (the same
    points, or the same combination) push, whatever the suits. A combination never holds a hand
    of 8 or 9 points (the rules refuse one that could), so no 8 or 9 is ever demoted.

Payouts (``rules.payouts``; :func:`settle_bet`)
    Player N, hand N ranks higher: ``win`` (1:1), or ``win_special`` (2:1) when hand N is a special
    pattern, with the exceptions in order of precedence: (1) hand N with 8 or 9 points that is a
    flush or a pair always wins ``win_special``; (2) otherwise, when the Banker's hand ranks as 0
    or 6 points, a win pays ``win`` even with a special pattern; a Banker special combination ranks
    above 7, so it never counts as 0 points here, though its cards add up to 0. The Banker ranks higher: the bet loses
    ``lose`` (1x) times its stake, ``lose_special`` (2x) when the Banker is a special pattern.
    The exceptions speak only of a Player win; a Banker win is never softened by them.
    Player N Pair wins ``pair`` (11:1) when hand N is a pair (same rank), else loses its stake.
    Every result says why in its detail: ``reason`` (``"won 2:1: court cards"``, ``"lost 2x: the
    Banker's lion flush"``) and, for Player N, ``decided_by`` (the deciding combination or None).

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
from fractions import Fraction
from typing import Any, ClassVar, NamedTuple

from ..cards import ALL_CARDS, BACCARAT_VALUE, parse_card, parse_cards
from ..errors import BetRefused, CardError, IllegalAction, IncompleteRound, UnexpectedCard
from ..rules import PokDengRules, SpecialCombination
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

_VALID = frozenset(ALL_CARDS)


# --- pure scoring ----------------------------------------------------------------------------


def points(cards: Iterable[str]) -> int:
    """Sum of the cards' points modulo 10 (8 + 7 scores 5)."""
    return sum(BACCARAT_VALUE[c[0]] for c in cards) % 10


def _combination(combos: Sequence[SpecialCombination], c1: str, c2: str) -> tuple[int, SpecialCombination] | None:
    """The highest of ``combos`` (highest first) that the two cards fit, with its position."""
    for position, combo in enumerate(combos):
        if combo.fits(c1, c2):
            return position, combo
    return None


def special_combination(rules: PokDengRules, cards: Sequence[str]) -> str | None:
    """The name of the highest of the table's special combinations that the two-card hand fits,
    or None."""
    found = _combination(rules.special_combinations, cards[0], cards[1])
    return None if found is None else found[1].name


def is_pair(cards: Sequence[str]) -> bool:
    return cards[0][0] == cards[1][0]


def is_flush(cards: Sequence[str]) -> bool:
    return cards[0][1] == cards[1][1]


def pattern(rules: PokDengRules, cards: Sequence[str]) -> str | None:
    """The special combination's name, else ``"pair"``, else ``"flush"``, else None."""
    combo = special_combination(rules, cards)
    if combo is not None:
        return combo
    if is_pair(cards):
        return "pair"
    if is_flush(cards):
        return "flush"
    return None


_COMBINATION_TOP = 799
"""Rank of the highest special combination; the one at position ``i`` of the table's list ranks
``799 - i``: all between 7 points (700) and 8 (800)."""


def hand_rank(rules: PokDengRules, cards: Sequence[str]) -> int:
    """A comparable rank: ``100 * points``; a special combination ranks between 7 and 8 points,
    the table's first (highest) combination above its second, and so on."""
    found = _combination(rules.special_combinations, cards[0], cards[1])
    if found is not None:
        return _COMBINATION_TOP - found[0]
    return 100 * points(cards)


def describe(rules: PokDengRules, cards: Sequence[str]) -> str:
    """The hand as a person reads it: its combination (``court cards``) or its points (``7``)."""
    name = special_combination(rules, cards)
    return _label(name) if name is not None else str(points(cards))


def _label(name: str) -> str:
    return name.replace("-", " ")


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
    zero_or_six: bool
    """Ranks as 0 or 6 points (exception 2): a special combination never does, whatever its points."""
    flush: bool = False


def _info(combos: tuple[SpecialCombination, ...], c1: str, c2: str) -> HandInfo:
    r1, r2 = c1[0], c2[0]
    p = (BACCARAT_VALUE[r1] + BACCARAT_VALUE[r2]) % 10
    pair = r1 == r2
    flush = c1[1] == c2[1]
    found = _combination(combos, c1, c2)
    combo = None if found is None else found[1].name
    label = combo if combo is not None else "pair" if pair else "flush" if flush else None
    rank = 100 * p if found is None else _COMBINATION_TOP - found[0]
    return HandInfo(p, rank, label, combo, label is not None, pair, p >= 8 and (pair or flush),
                    combo is None and p in (0, 6), flush)


_TABLES: dict[tuple[SpecialCombination, ...], dict[tuple[str, str], HandInfo]] = {}


def hand_table(rules: PokDengRules) -> dict[tuple[str, str], HandInfo]:
    """Every ordered two-card hand -> :class:`HandInfo` under the table's special combinations
    (2,704 entries, built once per list of combinations and shared: do not change it)."""
    combos = tuple(rules.special_combinations)
    table = _TABLES.get(combos)
    if table is None:
        table = {(a, b): _info(combos, a, b) for a in ALL_CARDS for b in ALL_CARDS}
        if len(_TABLES) >= 64:
            _TABLES.clear()
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
        the default table's (the spec's five special combinations)."""
        return _roadmap(_plan(rules if rules is not None else _DEFAULT_RULES), self.players, self.banker)


_DEFAULT_RULES = PokDengRules()


def _roadmap(
    plan: _Plan, players: Sequence[tuple[str, str]], banker_cards: tuple[str, str],
    terms: Sequence[Terms | None] = (),
) -> dict[str, Any]:
    """Per hand its cards, points, pattern and combination; for hands 1 to 5 also its result
    against the Banker, the combination that ``decided_by`` it and the ``reason`` a Player N bet
    on it settled as (``terms``: the Player N terms already worked out, by hand, or None)."""
    table = plan.table
    banker = table[banker_cards]
    out: dict[str, Any] = {}
    for index, (name, cards) in enumerate(zip(HAND_NAMES, players, strict=False)):
        info = table[cards]
        known = terms[index] if index < len(terms) else None
        detail = (known if known is not None else _player_terms(plan, info, banker))[4]
        out[name] = {
            "cards": list(cards),
            "points": info.points,
            "pattern": info.pattern,
            "combination": info.combination,
            "result": "win" if info.rank > banker.rank else "lose" if info.rank < banker.rank else "push",
            "decided_by": detail["decided_by"],
            "reason": detail["reason"],
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
    texts: tuple[str, str, str, str, str]
    """How people read the rates: win, win_special, lose, lose_special, pair (``"2:1"``, ``"2x"``)."""


_PLANS: dict[int, tuple[PokDengRules, _Plan]] = {}


def _plan(rules: PokDengRules) -> _Plan:
    cached = _PLANS.get(id(rules))
    if cached is not None and cached[0] is rules:
        return cached[1]
    pay = rules.payouts
    texts = (_ratio_text(pay.win), _ratio_text(pay.win_special), f"{pay.lose}x", f"{pay.lose_special}x",
             _ratio_text(pay.pair))
    plan = _Plan(hand_table(rules), rules.reservation, ratio_parts(pay.win), ratio_parts(pay.win_special), pay.lose,
                 pay.lose_special, ratio_parts(pay.pair), texts)
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


Terms = tuple[str, int, int, int, dict[str, Any]]
"""How a bet of one type settles in one round: ``(outcome, staked, paid_num, paid_den, detail)``
per unit of stake. A bet of ``stake`` takes ``stake * staked`` from the wallet and is paid exactly
``stake * paid_num / paid_den`` (then rounded down). ``detail`` says why, for the bet's record:
``reason`` (``"won 2:1: court cards"``) and, for a Player N bet, ``decided_by``: the special
combination that decided it (the winner's; on a push the one both hands hold), or None."""


def _ratio_text(ratio: Fraction) -> str:
    """2 -> ``2:1``; 19/20 -> ``19:20``."""
    return f"{ratio.numerator}:{ratio.denominator}"


def _why(info: HandInfo) -> str:
    """A hand as the reason of a settlement reads it: ``court cards``, ``7``."""
    return _label(info.combination) if info.combination is not None else str(info.points)


def _player_terms(plan: _Plan, player: HandInfo, banker: HandInfo) -> Terms:
    reserved = plan.reservation
    win_text, special_text, lose_text, lose_special_text, _ = plan.texts
    if player.rank > banker.rank:
        if player.always_special:
            (num, den), text = plan.win_special, special_text
            reason = f"won {text}: {player.points} with a {'pair' if player.pair else 'flush'}"
        elif banker.zero_or_six:
            (num, den), text = plan.win, win_text
            reason = f"won {text}: {_why(player)} against the Banker's {banker.points}"
            if player.special:
                reason += " (a Banker 0 or 6 pays a special pattern 1:1)"
        elif player.special:
            (num, den), text = plan.win_special, special_text
            reason = f"won {text}: {_label(player.pattern or '')}"
        else:
            (num, den), text = plan.win, win_text
            reason = f"won {text}: {_why(player)} against the Banker's {_why(banker)}"
        return _WIN, reserved, reserved * den + num, den, {"reason": reason, "decided_by": player.combination}
    if player.rank < banker.rank:
        if banker.special:
            lost = plan.lose_special
            reason = f"lost {lose_special_text}: the Banker's {_label(banker.pattern or '')}"
            if banker.combination is None:
                reason += f" ({banker.points})"
        else:
            lost = plan.lose
            reason = f"lost {lose_text}: {_why(player)} against the Banker's {_why(banker)}"
        return _LOSE, reserved, reserved - lost, 1, {"reason": reason, "decided_by": banker.combination}
    both = f"{_label(player.combination)} each" if player.combination is not None else f"{player.points} each"
    return _PUSH, reserved, reserved, 1, {"reason": f"push: {both}", "decided_by": player.combination}


def _pair_terms(plan: _Plan, player: HandInfo) -> Terms:
    if player.pair:
        num, den = plan.pair
        return _WIN, 1, den + num, den, {"reason": f"won {plan.texts[4]}: a pair"}
    return _LOSE, 1, 0, 1, {"reason": "lost: not a pair"}


def _result(bet_id: str, terms: Terms, stake: int) -> BetResult:
    outcome, per_unit, num, den, detail = terms
    staked = stake * per_unit
    if den == 1:
        net = stake * num - staked
        return BetResult(bet_id, outcome, net, staked, net + staked, exact_whole(net), dict(detail))
    return paid_result(bet_id, outcome, staked, 0, stake, num, den, dict(detail))


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
            outcome, per_unit, num, den, detail = t
            stake = bet.amount
            staked = stake * per_unit
            if den == 1:  # _result, inlined: the hot path
                net = stake * num - staked
                results.append(BetResult(bet.id, outcome, net, staked, net + staked, whole(net), dict(detail)))
            else:
                results.append(paid_result(bet.id, outcome, staked, 0, stake, num, den, dict(detail)))
        return Settlement(tuple(results), _roadmap(plan, players, banker_cards, terms))

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
