"""A table's help, from its rules as the server holds them (``GET /tables/{id}/help``).

- ``drawing`` (Baccarat): the tableau as data, read from the engine's own functions
  (:func:`~croupier.games.baccarat.player_draws`, :func:`~croupier.games.baccarat.banker_draws`):
  whether the Player draws on each two-card total, whether the Banker draws on each total when the
  Player stood, and the Banker's table, two-card total by the Player's third card's points.
- ``rtp``: each bet type's exact return to player under the table's rules (``croupier.rtp``), so
  a change of a paytable changes it at the next read.

How long the exact calculation takes is measured by ``make bench`` (sections ``rtp`` and ``help``):
Baccarat's first rule set in a process enumerates the shoe's coup classes once (independent of the
payouts), any other then takes a fraction of that; Pok Deng's takes a fraction of a second;
blackjack's Pair and insurance are closed formulas, its main bet (``seat`` and ``behind``, basic
strategy by combinatorial analysis) takes seconds. So the figures are computed when asked, and kept in the
process by the hash of the table's effective rules (:data:`_CACHE`): a figure is a pure function
of the rules, so a hash never goes stale, a table whose rules change gets new figures at its next
read without any invalidation, and tables sharing rules share them. Blackjack's main bet is not
computed on a request (seconds, against a target well under one): it is listed in
``not_computed`` with its reason, and the CLI (``croupier rtp``) gives it.
"""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from typing import Any

from pydantic import Field

from ..games import baccarat as _baccarat
from ..rules import BaccaratRules, BlackjackRules, PokDengRules, Rules
from .records import TableRecord
from .responses import _Out
from .rounds import table_rules

BLACKJACK_MAIN_BETS = ("seat", "behind")
"""Blackjack's bets whose exact figure takes seconds: not computed on a request."""

_CACHE: dict[str, dict[str, Fraction]] = {}
"""Rules hash -> each computed bet type's exact RTP."""
_CACHE_SIZE = 256


class BetRtp(_Out):
    bet: str = Field(description="the bet type (Baccarat's 'banker-no-commission': the Banker bet in that mode)")
    rtp: float = Field(description="return to player per unit staked, 6 decimals (0.989421 is 98.9421%)")
    exact: str = Field(description="the exact figure as a fraction, 'numerator/denominator'")


class NotComputed(_Out):
    bet: str
    reason: str = Field(description="why its figure is not given here", examples=["too-slow-for-a-request"])


class BankerRow(_Out):
    banker: int = Field(ge=0, le=7, description="the Banker's two-card total")
    draws: list[bool] = Field(min_length=10, max_length=10,
                              description="by the Player's third card's points, 0 to 9: the Banker draws")


class Drawing(_Out):
    natural: list[int] = Field(description="two-card totals that are naturals: both hands stand")
    player_draws: list[bool] = Field(description="by the Player's two-card total, 0 to 7: the Player draws")
    banker_draws_player_stood: list[bool] = Field(
        description="by the Banker's two-card total, 0 to 7, when the Player stood: the Banker draws")
    banker: list[BankerRow] = Field(description="when the Player drew: the Banker's table")


class TableHelp(_Out):
    table_id: str
    game: str
    rules_hash: str = Field(description="sha256 of the table's effective rules: the figures are those rules'")
    rtp: list[BetRtp] = Field(description="each bet type's exact RTP under the table's rules")
    not_computed: list[NotComputed] = Field(description="bet types whose figure is not computed on a request")
    drawing: Drawing | None = Field(description="Baccarat's drawing rules, from the engine; null for other games")


def rules_hash(game: str, rules: Rules) -> str:
    text = json.dumps({"game": game, "rules": rules.model_dump(mode="json", by_alias=True)}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def drawing() -> dict[str, Any]:
    """Baccarat's tableau, from the engine's functions."""
    draws = _baccarat.banker_draws
    return {
        "natural": [total for total in range(10) if _baccarat.is_natural(total, 0)],
        "player_draws": [_baccarat.player_draws(total) for total in range(8)],
        "banker_draws_player_stood": [draws(total, None) for total in range(8)],
        "banker": [{"banker": total, "draws": [draws(total, third) for third in range(10)]} for total in range(8)],
    }


def exact_rtp(game: str, rules: Rules) -> dict[str, Fraction]:
    """Each bet type's exact RTP that can be computed on a request (kept by rules hash)."""
    key = rules_hash(game, rules)
    found = _CACHE.get(key)
    if found is not None:
        return found
    figures: dict[str, Fraction]
    if isinstance(rules, BaccaratRules):
        from ..rtp import baccarat

        figures = baccarat.analyse(rules)
    elif isinstance(rules, PokDengRules):
        from ..rtp import pokdeng

        figures = pokdeng.analyse(rules)
    else:
        assert isinstance(rules, BlackjackRules)
        from ..rtp import blackjack

        figures = {"pair": blackjack.pair_rtp(rules), "insurance": blackjack.insurance_rtp(rules)}
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = figures
    return figures


def table_help(table: TableRecord) -> dict[str, Any]:
    """The help's figures for a stored table."""
    rules = table_rules(table)
    game = table.game
    figures = exact_rtp(game, rules)
    not_computed = ([{"bet": bet, "reason": "too-slow-for-a-request"} for bet in BLACKJACK_MAIN_BETS]
                    if isinstance(rules, BlackjackRules) else [])
    return {
        "table_id": table.table_id, "game": game, "rules_hash": rules_hash(game, rules),
        "rtp": [{"bet": bet, "rtp": float(round(value, 6)), "exact": f"{value.numerator}/{value.denominator}"}
                for bet, value in figures.items()],
        "not_computed": not_computed,
        "drawing": drawing() if isinstance(rules, BaccaratRules) else None,
    }
