"""Table rules as data: one validated configuration per game, with the spec's defaults.

Every rule that varies by table (limits, paytables, timers, rule variants) is a field here, never
an ``if`` in an engine keyed on the table. ``load_rules(game, overrides)`` merges a partial
override (the transcript's ``rules``, an operator's table configuration) into the game's defaults
and validates the result; unknown names are an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import RulesError
from .money import Ratio

GAMES = ("deluxe-blackjack", "blackjack", "baccarat", "pok-deng")
Game = Literal["deluxe-blackjack", "blackjack", "baccarat", "pok-deng"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Limit(_Model):
    """Minimum and maximum stake of one bet type, in minor units."""

    min: int = Field(ge=1)
    max: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Limit:
        if self.max < self.min:
            raise ValueError(f"limit max {self.max} is below min {self.min}")
        return self


class Timers(_Model):
    """Seconds. Tests and the local demo shorten them through the table configuration."""

    countdown: int = Field(default=15, ge=0, le=600)
    decision: int = Field(default=15, ge=1, le=600)
    follow: int = Field(default=5, ge=1, le=600)
    insurance: int = Field(default=5, ge=1, le=600)
    pause_void: int = Field(default=600, ge=1, le=86_400)
    """A paused round is voided automatically after this long (``common.md``)."""
    early_card: int = Field(default=1, ge=0, le=10)
    """A round's first card that comes at most this long before the countdown's end closes
    betting at once: the dealer starts when the screen shows zero, and the screen's clock and the
    server's are a fraction of a second apart. A card that comes earlier pauses the round."""


# --- blackjack -------------------------------------------------------------------------------


class PairPaytable(_Model):
    """Either ``same-rank`` alone (any pair of the same rank) or the three Perfect Pairs grades."""

    same_rank: Ratio | None = Field(default=None, alias="same-rank")
    mixed: Ratio | None = None
    coloured: Ratio | None = None
    perfect: Ratio | None = None

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    @model_validator(mode="after")
    def _one_kind(self) -> PairPaytable:
        graded = (self.mixed, self.coloured, self.perfect)
        if self.same_rank is not None and any(g is not None for g in graded):
            raise ValueError("a pair paytable is either 'same-rank' or 'mixed'/'coloured'/'perfect', not both")
        if self.same_rank is None and any(g is None for g in graded):
            raise ValueError("a Perfect Pairs paytable needs all of 'mixed', 'coloured' and 'perfect'")
        return self


class BlackjackRules(_Model):
    """The rules of a blackjack table, Deluxe or classic (``blackjack.md``). Among them, the order
    in which split hands are dealt, ``split_deal``: ``each-in-turn`` (Deluxe) deals the first split
    hand its second card and plays it to the end, then deals the second hand its second card and
    plays it; ``both-first`` (classic, seed 004) deals each split hand its second card at once
    (hand 1, then hand 2), then the player plays hand 1, then hand 2. Split aces get one card each
    and stand either way."""

    variant: Literal["deluxe", "classic"]
    seats: int = Field(default=7, ge=1, le=7)
    max_seats_per_player: int = Field(ge=1, le=7)
    hole_card: bool
    """Deluxe: the dealer's second card is dealt face down before the players act (peek)."""
    dealer_bj_takes: Literal["all", "original"] = "all"
    """No-hole-card table, dealer BJ: a hand loses its doubles and splits too (``all``) or only the
    original seat bet (``original``)."""
    split_deal: Literal["each-in-turn", "both-first"]
    """The order of the split hands' second cards: ``each-in-turn`` (Deluxe) or ``both-first``
    (classic); see the class docstring."""
    double_after_split: bool = True
    surrender: bool = True
    dealer_hits_soft_17: bool = False
    short_balance: Literal["hit-or-stand", "illegal"]
    """An unaffordable double or split: Deluxe turns it into hit (score <= 11) or stand."""
    seated_may_bet_behind: bool
    """Deluxe: a seated player may bet behind other seats (never their own); classic: never."""
    mirror_seat_bets: bool
    """Deluxe: the same amount stands on each of a player's seats."""
    idle_seat_rounds: int = Field(default=0, ge=0)
    """Rounds a seat that was dealt is kept (not dealt) while its player places no seat bet, before
    it is freed: Deluxe 1, classic 0 (``blackjack.md`` Seats; used by ``betting.py``)."""
    blackjack_pays: Ratio = Fraction(3, 2)
    win_pays: Ratio = Fraction(1)
    insurance_pays: Ratio = Fraction(2)
    pair_paytable: PairPaytable = PairPaytable.model_validate({"same-rank": "11:1"})
    limits: dict[Literal["seat", "behind", "pair"], Limit] = {
        "seat": Limit(min=100, max=500_000),
        "behind": Limit(min=100, max=250_000),
        "pair": Limit(min=100, max=50_000),
    }
    timers: Timers = Timers()


PERFECT_PAIRS: dict[str, Any] = {"pair_paytable": {"same-rank": None, "mixed": "6:1", "coloured": "12:1",
                                                  "perfect": "25:1"}}
"""The Perfect Pairs paytable of ``blackjack.md`` (in place of "any pair pays 11:1"), as rule overrides."""


# --- baccarat --------------------------------------------------------------------------------


class SideBet(_Model):
    pays: Ratio
    pays_three_cards: Ratio | None = None
    """Lucky 6: the payout when the Banker's winning 6 has three cards."""
    max_round: int | None = Field(default=None, ge=1)
    """The last round of a shoe in which the bet is offered; None: every round."""


class BaccaratPayouts(_Model):
    player: Ratio = Fraction(1)
    banker: Ratio = Fraction(19, 20)
    banker_no_commission: Ratio = Fraction(1)
    banker_no_commission_six: Ratio = Fraction(1, 2)
    tie: Ratio = Fraction(8)
    player_pair: Ratio = Fraction(11)
    banker_pair: Ratio = Fraction(11)


BaccaratBetType = Literal["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small"]
"""The bet types of a baccarat table: the keys of its limits."""


class BaccaratRules(_Model):
    modes: tuple[Literal["commission", "no-commission"], ...] = ("commission", "no-commission")
    payouts: BaccaratPayouts = BaccaratPayouts()
    side_bets: dict[Literal["lucky-6", "big", "small"], SideBet] = {
        "lucky-6": SideBet(pays=Fraction(12), pays_three_cards=Fraction(20)),
        "big": SideBet(pays=Fraction(27, 50), max_round=60),
        "small": SideBet(pays=Fraction(3, 2), max_round=60),
    }
    """The side bets the table offers. In overrides, a side bet given as ``null`` is not offered
    (``{"side_bets": {"big": null, "small": null}}``): overrides merge into the defaults, so leaving
    one out keeps it."""
    player_limit: int | None = Field(default=None, ge=0)
    """Largest allowed excess of a player's Player total over their Banker total in one round."""
    banker_limit: int | None = Field(default=None, ge=0)
    """Largest allowed excess of a player's Banker total over their Player total in one round."""
    limits: dict[BaccaratBetType, Limit] = {
        "player": Limit(min=100, max=1_000_000),
        "banker": Limit(min=100, max=1_000_000),
        "tie": Limit(min=100, max=100_000),
        "player-pair": Limit(min=100, max=50_000),
        "banker-pair": Limit(min=100, max=50_000),
        "lucky-6": Limit(min=100, max=50_000),
        "big": Limit(min=100, max=100_000),
        "small": Limit(min=100, max=100_000),
    }
    timers: Timers = Timers()

    @field_validator("side_bets", mode="before")
    @classmethod
    def _not_offered(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {name: bet for name, bet in value.items() if bet is not None}
        return value

    @model_validator(mode="after")
    def _checks(self) -> BaccaratRules:
        if not self.modes:
            raise ValueError("a baccarat table offers at least one mode")
        if "lucky-6" in self.side_bets and self.side_bets["lucky-6"].pays_three_cards is None:
            raise ValueError("side bet 'lucky-6' needs 'pays_three_cards'")
        return self


# --- pok deng --------------------------------------------------------------------------------

_POK_DENG_VALUE = {r: (1 if r == "A" else 0 if r in "TJQK" else int(r)) for r in "A23456789TJQK"}


class SpecialCombination(_Model):
    """One Pok Deng special combination (``pok-deng.md``, *Cards and scores*): a named rule over
    the two cards' ranks and suits. A hand fits when one card's rank is in ``ranks[0]`` and the
    other's in ``ranks[1]`` (either card either way), and, where given, both cards have the same
    rank (``same_rank``), the same suit (``same_suit``) and the hand scores ``points``. Ranks are
    written ``A23456789TJQK``."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    """Lower case words joined by ``-``: ``court-cards``. Shown to people with spaces."""
    ranks: tuple[str, str]
    same_rank: bool | None = None
    same_suit: bool | None = None
    points: int | None = Field(default=None, ge=0, le=9)

    @model_validator(mode="after")
    def _valid_ranks(self) -> SpecialCombination:
        for text in self.ranks:
            bad = sorted(set(text) - set(_POK_DENG_VALUE))
            if not text or bad or len(set(text)) != len(text):
                raise ValueError(f"special combination {self.name!r}: ranks {text!r} must be distinct ranks from "
                                 f"A23456789TJQK")
        if not any(self.fits(a + "S", b + t) for a in self.ranks[0] for b in self.ranks[1] for t in "SH"):
            raise ValueError(f"special combination {self.name!r} fits no two-card hand")
        return self

    @property
    def label(self) -> str:
        """The name as people read it: ``court cards``."""
        return self.name.replace("-", " ")

    def fits(self, first: str, second: str) -> bool:
        """Whether the two cards (``"KS"``, ``"QH"``) make this combination."""
        r1, r2 = first[0], second[0]
        a, b = self.ranks
        if not ((r1 in a and r2 in b) or (r2 in a and r1 in b)):
            return False
        if self.same_rank is not None and (r1 == r2) != self.same_rank:
            return False
        if self.same_suit is not None and (first[1] == second[1]) != self.same_suit:
            return False
        return self.points is None or (_POK_DENG_VALUE[r1] + _POK_DENG_VALUE[r2]) % 10 == self.points


DEFAULT_SPECIAL_COMBINATIONS: tuple[SpecialCombination, ...] = (
    SpecialCombination(name="lion-flush", ranks=("A", "K"), same_suit=True),
    SpecialCombination(name="special-pair", ranks=("A56T", "A56T"), same_rank=True),
    SpecialCombination(name="court-cards", ranks=("JQK", "JQK")),
    SpecialCombination(name="ten-and-court", ranks=("T", "JQK")),
    SpecialCombination(name="flush-worth-0", ranks=("A23456789", "A23456789"), same_suit=True, points=0),
)
"""The spec's five special combinations, highest first (``pok-deng.md``): lion flush (an Ace and
a King of one suit), special pair (a pair of Aces, 5s, 6s or 10s), court cards (two of J, Q, K),
ten and court (a 10 and a J, Q or K), flush worth 0 (two suited cards, neither a 10 nor a picture,
worth 0 points). A table's list may leave any of them out, reorder them or add its own."""

SPECIAL_COMBINATIONS = tuple(c.name for c in DEFAULT_SPECIAL_COMBINATIONS)
"""The default combinations' names, highest first."""

_RETIRED_COMBINATIONS = {
    "two-pictures": "'court-cards' (any two of J, Q, K)",
    "pictures-and-ten": "'court-cards' with 'ten-and-court' (a 10-10 pair is part of 'special-pair')",
    "consecutive": "nothing: consecutive ranks are not a special combination",
}
"""Candidate names from before the spec named the five combinations, and what took their place."""


def _combination_by_name(item: Any) -> Any:
    """A list item of ``special_combinations``: a default's name stands for that combination."""
    if not isinstance(item, str):
        return item
    for combo in DEFAULT_SPECIAL_COMBINATIONS:
        if combo.name == item:
            return combo
    names = ", ".join(SPECIAL_COMBINATIONS)
    if item in _RETIRED_COMBINATIONS:
        raise ValueError(f"{item!r} is no longer a special combination: the special combinations are now {names} "
                         f"(highest first); the nearest to {item!r} is {_RETIRED_COMBINATIONS[item]}")
    raise ValueError(f"unknown special combination {item!r}; the special combinations are {names}, or a "
                     f"combination written out as {{\"name\", \"ranks\", \"same_rank\", \"same_suit\", \"points\"}}")


class PokDengPayouts(_Model):
    win: Ratio = Fraction(1)
    win_special: Ratio = Fraction(2)
    lose: int = Field(default=1, ge=1)
    lose_special: int = Field(default=2, ge=1)
    pair: Ratio = Fraction(11)


PokDengBetType = Literal["player-1", "player-2", "player-3", "player-4", "player-5",
                         "player-1-pair", "player-2-pair", "player-3-pair", "player-4-pair", "player-5-pair"]
"""The bet types of a Pok Deng table (Player N and its Pair): the keys of its limits."""


class PokDengRules(_Model):
    payouts: PokDengPayouts = PokDengPayouts()
    special_combinations: tuple[SpecialCombination, ...] = Field(default=DEFAULT_SPECIAL_COMBINATIONS, max_length=20)
    """The table's special combinations, highest first: each ranks below 8 and above 7, a hand
    takes the highest it fits. A list item is a combination written out, or a default's name
    (``"court-cards"``). The default is the spec's five; ``[]`` plays without any."""
    reservation: int = Field(default=2, ge=1)
    """A Player N bet reserves this many times its stake (it can lose 2x)."""
    limits: dict[PokDengBetType, Limit] = {
        kind: Limit(min=100, max=50_000) if kind.endswith("-pair") else Limit(min=100, max=500_000)
        for kind in get_args(PokDengBetType)
    }
    timers: Timers = Timers()

    @field_validator("special_combinations", mode="before")
    @classmethod
    def _named_combinations(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [_combination_by_name(item) for item in value]
        return value

    @field_validator("special_combinations", mode="after")
    @classmethod
    def _ranked_combinations(cls, value: tuple[SpecialCombination, ...]) -> tuple[SpecialCombination, ...]:
        names = [c.name for c in value]
        if len(set(names)) != len(names):
            raise ValueError(f"special combinations must have distinct names: {', '.join(names)}")
        for combo in value:
            high = next((f"{a}-{b}" for a in combo.ranks[0] for b in combo.ranks[1] for t in "SH"
                         if combo.fits(a + "S", b + t) and (_POK_DENG_VALUE[a] + _POK_DENG_VALUE[b]) % 10 >= 8), None)
            if high is not None:
                raise ValueError(f"special combination {combo.name!r} fits {high}, a hand of 8 or 9 points; a special "
                                 f"combination ranks below 8, so it may hold only hands of 0 to 7 points")
        return value

    @model_validator(mode="after")
    def _reservation_covers_loss(self) -> PokDengRules:
        if self.reservation < max(self.payouts.lose, self.payouts.lose_special):
            raise ValueError("the reservation must cover the largest possible loss")
        return self


Rules = BlackjackRules | BaccaratRules | PokDengRules

_DEFAULTS: dict[str, dict[str, Any]] = {
    "deluxe-blackjack": {
        "variant": "deluxe",
        "max_seats_per_player": 2,
        "hole_card": True,
        "short_balance": "hit-or-stand",
        "split_deal": "each-in-turn",
        "seated_may_bet_behind": True,
        "mirror_seat_bets": True,
        "idle_seat_rounds": 1,
    },
    "blackjack": {
        "variant": "classic",
        "max_seats_per_player": 1,
        "hole_card": False,
        "short_balance": "illegal",
        "split_deal": "both-first",
        "seated_may_bet_behind": False,
        "mirror_seat_bets": False,
    },
    "baccarat": {},
    "pok-deng": {},
}
_MODELS: dict[str, type[BlackjackRules] | type[BaccaratRules] | type[PokDengRules]] = {
    "deluxe-blackjack": BlackjackRules,
    "blackjack": BlackjackRules,
    "baccarat": BaccaratRules,
    "pok-deng": PokDengRules,
}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def as_overrides(rules: Rules) -> dict[str, Any]:
    """Rules in full, as overrides of their game's defaults that give them back
    (``load_rules(game, as_overrides(rules)) == rules``): a round's rules, stored as it was played.
    A default side bet the table does not offer is written ``null`` (left out, the merge would
    offer it again)."""
    out = rules.model_dump(mode="json", by_alias=True)
    if isinstance(rules, BaccaratRules):
        default = BaccaratRules.model_fields["side_bets"].default
        out["side_bets"] = {**{name: None for name in default if name not in rules.side_bets}, **out["side_bets"]}
    return out


def default_rules(game: str) -> Rules:
    return load_rules(game, {})


def load_rules(game: str, overrides: dict[str, Any] | None = None) -> Rules:
    """The game's default table rules with ``overrides`` merged in (nested dicts merge). The same
    game and overrides give the same (frozen) rules, validated once per process: a round's rules
    are read at every step of it."""
    return rules_from_text(game, overrides_text(overrides or {}))


def overrides_text(overrides: Mapping[str, Any]) -> str:
    """Overrides as JSON text, keys sorted and no spaces: the same overrides, the same text."""
    return json.dumps(overrides, sort_keys=True, separators=(",", ":"), default=str)


def rules_from_text(game: str, overrides: str) -> Rules:
    """:func:`load_rules` of overrides given as :func:`overrides_text` gives them (a round's stored
    rules, read once per process: validating them again at every step of the round is skipped)."""
    if game not in _MODELS:
        raise RulesError(f"unknown game {game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    return _validated_rules(game, overrides)


@lru_cache(maxsize=256)
def _validated_rules(game: str, overrides_json: str) -> Rules:
    model = _MODELS[game]
    base = model.model_validate(_DEFAULTS[game]).model_dump(mode="json", by_alias=True)
    merged = _merge(base, json.loads(overrides_json))
    try:
        return model.model_validate(merged)
    except ValidationError as exc:
        raise RulesError(f"rules for {game}: {describe_validation_error(exc)}") from exc


def describe_validation_error(exc: ValidationError) -> str:
    """One readable line from a pydantic error: ``field.path: what is wrong; ...``."""
    parts = []
    for err in exc.errors():
        loc = err["loc"]
        msg = err["msg"]
        if loc and loc[-1] == "[key]":  # a key of a dict of known names (a limit for a bet type the game lacks)
            loc, msg = loc[:-1], f"unknown name ({msg})"
        where = ".".join(str(p) for p in loc) or "input"
        if err["type"] == "extra_forbidden":
            msg = "unknown name"
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)
