"""House rules for a simulated table: the table rules an operator may set (``croupier.rules``), each
drawn from a generator of the world's own, so that a world with them plays every game's variants
through the whole application, not only its defaults.

What is drawn, by game (each value as likely as the others):

- both blackjack tables: the dealer hits soft 17 or not, surrender offered or not, double after
  split or not, a blackjack paying 3:2 or 6:5, the Pair bet's paytable (any pair 11:1, or Perfect
  Pairs), the split hands' second cards each in turn or both first, a double or split the balance
  does not cover made a hit or a stand, or refused (``short_balance``); the classic table, what a
  dealer's blackjack takes (every bet, or the original only); Deluxe, one table in four, no bet
  behind another seat from a seated player;
- baccarat: the modes offered (commission, no-commission, or both); each Banker bet is then placed
  in one of the table's modes, drawn by the world; the side bets offered (all three, none, or some
  of them: a player's bet on one the table does not offer is refused);
- Pok Deng: the special combinations (the spec's five, none, or some of them in their order), and
  what a Player N bet loses to the Banker's special hand (2x, or 3x with a reservation of 3x);
- apart (:func:`house_apart`, from a generator of their own, so that adding them left the tables
  drawn before as they were): a baccarat table's Tie paying 8:1 or 9:1, and each side bet offered
  either in every round of a shoe, up to its default's last round (60), or only in its first 3 to
  20 (``max_round``), which a simulated shoe reaches: a bet on it later in the shoe is refused; a
  Pok Deng table's win with a special pattern paying 2:1 or 3:1 and its Pair 11:1 or 10:1, its
  special combinations in another order one time in four and, one time in four, one of the
  operator's own (:data:`OWN_COMBINATIONS`) among them; a blackjack table's rounds an idle seat is
  kept (``idle_seat_rounds``, 0 to 3, where the games' defaults are 0 and 1);
- every game, half the time: narrower stakes (a minimum of 1 to 5 units, a maximum of 10 to 40) on
  one or two of its bet types, which refuse some of the players' bets (1 to 50 units); baccarat,
  three times in ten, a limit on how far a player's Banker and Player totals may differ.
"""

from __future__ import annotations

import random
from typing import Any

from ..rules import PERFECT_PAIRS, SPECIAL_COMBINATIONS, default_rules

MODES = (("commission",), ("no-commission",), ("commission", "no-commission"))
"""The modes a baccarat table may offer."""


def house_rules(game: str, rng: random.Random) -> dict[str, Any]:
    """One table's rule overrides (``load_rules(game, ...)`` takes them), drawn from ``rng``."""
    drawn = _game_rules(game, rng)
    if rng.random() < 0.5:  # narrower stakes on one or two bet types, within the players' (1 to 50 units)
        kinds = sorted(default_rules(game).limits)  # the game's bet types
        drawn["limits"] = {kind: {"min": 100 * rng.randint(1, 5), "max": 100 * rng.randint(10, 40)}
                           for kind in rng.sample(kinds, rng.randint(1, 2))}
    if game == "baccarat" and rng.random() < 0.3:  # how far a player's Banker and Player totals may differ
        drawn[rng.choice(("banker_limit", "player_limit"))] = 100 * rng.randint(5, 40)
    return drawn


OWN_COMBINATIONS: tuple[dict[str, Any], ...] = (
    {"name": "sevens", "ranks": ["7", "7"], "same_rank": True},
    {"name": "ace-and-two", "ranks": ["A", "2"]},
)
"""Special combinations of an operator's own that a Pok Deng table may add to its list (a pair of
7s, worth 4 points; an Ace and a 2, worth 3): combinations written out, not the spec's."""


def house_apart(game: str, overrides: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``overrides`` (a table's house rules) with the rules drawn apart from them, from ``rng``
    (the module's docstring lists them, by game)."""
    if game == "baccarat":
        return _baccarat_apart(overrides, rng)
    if game == "pok-deng":
        return _pok_deng_apart(overrides, rng)
    return overrides | {"idle_seat_rounds": rng.randint(0, 3)}


def _baccarat_apart(overrides: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    side_bets = dict(overrides.get("side_bets", {}))
    for name in sorted(default_rules("baccarat").side_bets):  # type: ignore[union-attr]
        if name in side_bets:  # taken away (null)
            continue
        last = rng.choice(("every round", "default", "early"))
        if last != "default":
            side_bets[name] = {"max_round": None if last == "every round" else rng.randint(3, 20)}
    drawn = overrides | {"payouts": {"tie": rng.choice(("8:1", "9:1"))}}
    if side_bets:
        drawn["side_bets"] = side_bets
    return drawn


def _pok_deng_apart(overrides: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    payouts = {**overrides.get("payouts", {}), "win_special": rng.choice(("2:1", "3:1")),
               "pair": rng.choice(("11:1", "10:1"))}
    combinations = list(overrides.get("special_combinations", SPECIAL_COMBINATIONS))
    if rng.random() < 0.25:
        rng.shuffle(combinations)
    if rng.random() < 0.25:
        combinations.insert(rng.randint(0, len(combinations)), dict(rng.choice(OWN_COMBINATIONS)))
    return overrides | {"payouts": payouts, "special_combinations": combinations}


def _game_rules(game: str, rng: random.Random) -> dict[str, Any]:
    if game in ("blackjack", "deluxe-blackjack"):
        drawn: dict[str, Any] = {
            "dealer_hits_soft_17": rng.random() < 0.5,
            "surrender": rng.random() < 0.5,
            "double_after_split": rng.random() < 0.5,
            "blackjack_pays": rng.choice(("3:2", "6:5")),
        }
        if rng.random() < 0.5:
            drawn["pair_paytable"] = dict(PERFECT_PAIRS["pair_paytable"])
        drawn["split_deal"] = rng.choice(("each-in-turn", "both-first"))
        drawn["short_balance"] = rng.choice(("hit-or-stand", "illegal"))
        if game == "blackjack":
            drawn["dealer_bj_takes"] = rng.choice(("all", "original"))
        elif rng.random() < 0.25:  # Deluxe: a seated player may not bet behind another seat
            drawn["seated_may_bet_behind"] = False
        return drawn
    if game == "baccarat":
        drawn = {"modes": list(rng.choice(MODES))}
        side_bets = sorted(default_rules(game).side_bets)  # type: ignore[union-attr]
        offered = _some(rng, side_bets)
        if offered != side_bets:  # null: not offered (croupier.rules.BaccaratRules.side_bets)
            drawn["side_bets"] = {name: None for name in side_bets if name not in offered}
        return drawn
    if game == "pok-deng":
        combinations = _some(rng, list(SPECIAL_COMBINATIONS))
        lose_special = rng.choice((2, 3))
        return {"special_combinations": combinations, "payouts": {"lose_special": lose_special},
                "reservation": lose_special}
    raise ValueError(f"no house rules for {game!r}")


def _some(rng: random.Random, names: list[str]) -> list[str]:
    """All of ``names``, none, or some of them (each kept one time in two), in their order."""
    kept = rng.choice(("all", "none", "some"))
    return list(names) if kept == "all" else [] if kept == "none" else [name for name in names if rng.random() < 0.5]
