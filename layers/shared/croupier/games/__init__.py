"""The four game engines behind one vocabulary (see :mod:`croupier.games.base`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any, cast

from ..errors import RulesError
from ..rules import GAMES, Rules, load_rules
from .base import Bet, RoundEngine

# game -> (module, engine class). Imported lazily so that start-up stays small.
_ENGINES = {
    "deluxe-blackjack": ("croupier.games.blackjack", "BlackjackRound"),
    "blackjack": ("croupier.games.blackjack", "BlackjackRound"),
    "baccarat": ("croupier.games.baccarat", "BaccaratRound"),
    "pok-deng": ("croupier.games.pokdeng", "PokDengRound"),
}


def engine_class(game: str) -> Any:
    if game not in _ENGINES:
        raise RulesError(f"unknown game {game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    module, name = _ENGINES[game]
    return getattr(import_module(module), name)


def new_round(
    game: str,
    bets: Sequence[Bet],
    *,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    round_in_shoe: int = 1,
    balances: Mapping[str, int] | None = None,
    validate: bool = True,
) -> RoundEngine:
    """A fresh round of ``game`` with these accepted bets. ``rules`` (already validated) wins over
    ``overrides`` (merged into the game's defaults)."""
    table_rules = rules if rules is not None else load_rules(game, dict(overrides or {}))
    cls = engine_class(game)
    engine = cls(table_rules, bets, round_in_shoe=round_in_shoe, balances=balances, validate=validate)
    return cast(RoundEngine, engine)
