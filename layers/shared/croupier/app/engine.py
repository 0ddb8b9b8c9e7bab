"""Rebuilding a round's engine from its stored events (the round item is an event log).

A round item keeps ``events``: ``{"card": "AS"}``, ``{"action": {...}}``, ``{"close": true}`` (a
window closed) and ``{"preselect": {"seat": 1, "action": "stand"}}``. Replaying them on a fresh
engine gives the exact state: the engine stays the only place that knows the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..games import new_round
from ..games.base import Action, Bet, CardFor, DecisionFor, Expectation, FollowWindow, InsuranceWindow, RoundEngine
from ..rules import Rules, rules_from_text
from . import store
from .records import RoundRecord, TableRecord, bet_from_item


def action_from(data: dict[str, Any]) -> Action:
    return Action(int(data["seat"]), data["action"], data.get("player"),
                  int(data["hand"]) if data.get("hand") is not None else None)


def apply_event(engine: RoundEngine, event: dict[str, Any]) -> None:
    if "card" in event:
        engine.deal(event["card"])
    elif "action" in event:
        engine.act(action_from(event["action"]))
    elif "close" in event:
        engine.close_window()
    elif "preselect" in event:
        pre = event["preselect"]
        engine.preselect(int(pre["seat"]), pre.get("action"))  # type: ignore[attr-defined]
    else:  # pragma: no cover - stored events are written by this module only
        raise ValueError(f"unknown round event {event!r}")


def rules_of(item: RoundRecord | TableRecord) -> Rules:
    """The rules of a round or a table: the game's defaults with the overrides it carries (a
    round's stored rules), validated once per process for the same overrides."""
    return rules_from_text(item.game, store.rules_text(item))


def rebuild(round_item: RoundRecord, bets: Sequence[Bet] | None = None) -> RoundEngine:
    """The round's engine after every stored event. ``bets``: the bets to settle (baccarat and Pok
    Deng rounds play the same whatever the bets; blackjack rounds use the bets stored in the round)."""
    engine_bets = [bet_from_item(b) for b in round_item.engine_bets]
    engine = new_round(
        round_item.game,
        list(bets) if bets is not None else engine_bets,
        rules=rules_of(round_item),
        round_in_shoe=round_item.round_in_shoe,
        balances=round_item.balances or None,
        validate=False,
    )
    for event in round_item.events:
        apply_event(engine, event)
    return engine


def expectation_key(expected: Expectation) -> str:
    """Identity of what the round waits for: a timer or window belongs to exactly one of these."""
    if isinstance(expected, CardFor):
        return f"card:{expected.hand}"
    if isinstance(expected, DecisionFor):
        return f"decision:{expected.seat}:{expected.hand}"
    if isinstance(expected, InsuranceWindow):
        return "window:insurance"
    if isinstance(expected, FollowWindow):
        return f"window:follow:{expected.seat}:{expected.hand}:{expected.what}"
    return "settle"
