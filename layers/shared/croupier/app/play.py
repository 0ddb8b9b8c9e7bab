"""What a table's page needs to know of its game, from the table's rules as the server holds them
(the game's defaults with the table's overrides): the page knows no rule of its own.

``play(rules)`` answers, for ``GET /tables`` and ``GET /tables/{id}`` (``play``):

- ``kind``: how the felt is laid out (``blackjack``, ``baccarat``, ``pok-deng``);
- ``bet_types``: the bets the table offers, in the felt's order, each with its limits, whether it
  goes on a seat (blackjack), the modes it is placed in (Baccarat's Banker) and what it reserves of
  the wallet for each unit staked (Pok Deng's Player bets: ``reservation``; every other bet 1);
- ``hands``: the hands of the felt, in order (blackjack: the dealer, then the seats);
- ``seats``, ``mirror_seat_bets``, ``seated_may_bet_behind`` (blackjack);
- ``rules``: every rule of the table, as the rules model writes them (ratios as ``"a:b"``), for the
  table's help.
"""

from __future__ import annotations

from typing import Any

from ..games import baccarat as _baccarat
from ..games import pokdeng as _pokdeng
from ..rules import BaccaratRules, BlackjackRules, PokDengRules, Rules

BLACKJACK_BETS = ("seat", "behind", "pair")


def play(rules: Rules) -> dict[str, Any]:
    limits: dict[str, dict[str, int]] = {str(kind): {"min": limit.min, "max": limit.max}
                                         for kind, limit in rules.limits.items()}
    out: dict[str, Any] = {"rules": rules.model_dump(mode="json", by_alias=True)}

    def bet(kind: str, *, seat: bool = False, modes: list[str] | None = None, reserves: int = 1) -> dict[str, Any]:
        return {"type": kind, **limits[kind], "seat": seat, "modes": modes, "reserves": reserves}

    if isinstance(rules, BlackjackRules):
        out.update(kind="blackjack", seats=rules.seats, mirror_seat_bets=rules.mirror_seat_bets,
                   seated_may_bet_behind=rules.seated_may_bet_behind,
                   hands=["dealer", *(f"seat-{n}" for n in range(1, rules.seats + 1))],
                   bet_types=[bet(kind, seat=True) for kind in BLACKJACK_BETS if kind in limits])
    elif isinstance(rules, BaccaratRules):
        offered = [*_baccarat.BET_TYPES[:5], *(k for k in _baccarat.BET_TYPES[5:] if k in rules.side_bets)]
        out.update(kind="baccarat", seats=None, mirror_seat_bets=None, seated_may_bet_behind=None,
                   hands=["player", "banker"],
                   bet_types=[bet(kind, modes=list(rules.modes) if kind == "banker" else None)
                              for kind in offered if kind in limits])
    else:
        assert isinstance(rules, PokDengRules)
        out.update(kind="pok-deng", seats=None, mirror_seat_bets=None, seated_may_bet_behind=None,
                   hands=list(_pokdeng.HAND_NAMES),
                   bet_types=[bet(kind, reserves=_pokdeng.reservation(rules, kind, 1))
                              for kind in _pokdeng.BET_TYPES if kind in limits])
    return out
