"""Round transcripts (``replay.md``) and replay: settle a round again from its record alone.

The transcript is a public interface: :class:`Transcript` rejects anything outside it. The
replay driver feeds the engine cards and actions in the order the engine asks for them; a timed
window (insurance, follow) closes when the next action is not an answer to it.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from .cards import check_copies, parse_card
from .errors import CroupierError, IllegalAction, IncompleteRound, UnexpectedCard
from .games import new_round
from .games.base import (
    Action,
    Bet,
    CardFor,
    DecisionFor,
    FollowWindow,
    InsuranceWindow,
    RoundEngine,
    Settle,
    Settlement,
)
from .rules import Rules, describe_validation_error, load_rules


class TranscriptError(CroupierError):
    reason = "bad-transcript"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class BetIn(_Strict):
    id: StrictStr = Field(min_length=1, max_length=128)
    player: StrictStr = Field(min_length=1, max_length=128)
    type: StrictStr
    amount: StrictInt = Field(gt=0)
    seat: StrictInt | None = None
    mode: Literal["commission", "no-commission"] | None = None

    def to_bet(self) -> Bet:
        return Bet(self.id, self.player, self.type, self.amount, self.seat, self.mode)


class ActionIn(_Strict):
    seat: StrictInt
    action: StrictStr
    player: StrictStr | None = None
    hand: Literal[0, 1] | None = None

    def to_action(self) -> Action:
        return Action(self.seat, self.action, self.player, self.hand)


class Transcript(_Strict):
    game: Literal["deluxe-blackjack", "blackjack", "baccarat", "pok-deng"]
    rules: dict[str, Any] = Field(default_factory=dict)
    round_in_shoe: StrictInt = Field(default=1, ge=1)
    balances: dict[str, StrictInt] | None = None
    bets: list[BetIn]
    cards: list[StrictStr]
    actions: list[ActionIn] = Field(default_factory=list)

    @classmethod
    def parse(cls, data: Any) -> Transcript:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise TranscriptError(f"invalid transcript: {describe_validation_error(exc)}") from exc

    @classmethod
    def parse_json(cls, text: str | bytes) -> Transcript:
        try:
            data = json.loads(text)
        except UnicodeDecodeError as exc:
            raise TranscriptError(f"the transcript is not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
        except ValueError as exc:
            raise TranscriptError(f"the transcript is not valid JSON: {exc}") from exc
        except RecursionError as exc:
            raise TranscriptError("the transcript is nested too deeply: it must be one flat JSON object") from exc
        if not isinstance(data, dict):
            raise TranscriptError("the transcript must be one JSON object")
        return cls.parse(data)

    @classmethod
    def of(cls, engine: RoundEngine, *, rules: dict[str, Any] | None = None,
           balances: dict[str, int] | None = None) -> Transcript:
        """The transcript of a round as played so far (cards and actions from its log)."""
        bets: Any = getattr(engine, "bets", ())
        return cls.parse({
            "game": engine.game,
            "rules": rules or {},
            "round_in_shoe": getattr(engine, "round_in_shoe", 1),
            "balances": balances,
            "bets": [b.to_dict() for b in bets],
            "cards": [e for e in engine.log if isinstance(e, str)],
            "actions": [e.to_dict() for e in engine.log if isinstance(e, Action)],
        })


_RULES: dict[tuple[str, str], Rules] = {}


def table_rules(game: str, overrides: dict[str, Any]) -> Rules:
    """``load_rules(game, overrides)``, remembered: replaying many rounds of the same table
    validates its rules once. Rules objects are immutable, so one can serve every round; an
    error is raised again each time, never remembered."""
    try:
        key = (game, json.dumps(overrides, sort_keys=True))
    except (TypeError, ValueError):  # not JSON (a Python caller's own objects): no cache
        return load_rules(game, overrides)
    found = _RULES.get(key)
    if found is None:
        found = load_rules(game, overrides)
        if len(_RULES) >= 64:
            _RULES.clear()
        _RULES[key] = found
    return found


def _is_answer(action: Action, window: InsuranceWindow | FollowWindow) -> bool:
    if isinstance(window, InsuranceWindow):
        return action.action == "insurance"
    return action.player is not None and action.action.startswith("follow-")


def drive(transcript: Transcript) -> RoundEngine:
    """Build the round and feed it the transcript; returns the engine, ready to settle."""
    for balance in (transcript.balances or {}).values():
        if balance < 0:
            raise TranscriptError("invalid transcript: balances cannot be negative")
    cards = [parse_card(c) for c in transcript.cards]
    check_copies(cards)
    engine = new_round(
        transcript.game,
        [b.to_bet() for b in transcript.bets],
        rules=table_rules(transcript.game, transcript.rules),
        round_in_shoe=transcript.round_in_shoe,
        balances=transcript.balances,
    )
    card_queue = deque(cards)
    action_queue = deque(a.to_action() for a in transcript.actions)
    while True:
        expected = engine.expected
        if isinstance(expected, Settle):
            break
        if isinstance(expected, CardFor):
            if not card_queue:
                raise IncompleteRound(f"too few cards: the {expected.hand} hand waits for a card")
            engine.deal(card_queue.popleft())
        elif isinstance(expected, InsuranceWindow | FollowWindow):
            if action_queue and _is_answer(action_queue[0], expected):
                engine.act(action_queue.popleft())
            else:
                engine.close_window()
        elif isinstance(expected, DecisionFor):
            if not action_queue:
                raise IncompleteRound(
                    f"too few actions: seat {expected.seat} hand {expected.hand} waits for a decision "
                    f"({', '.join(sorted(expected.legal))})"
                )
            engine.act(action_queue.popleft())
    if card_queue:
        raise UnexpectedCard(f"cards left over: {len(card_queue)} card(s) after the round was complete "
                             f"({', '.join(card_queue)})", reason="cards-left-over")
    if action_queue:
        extra = action_queue[0]
        raise IllegalAction(f"actions left over: {extra.action!r} on seat {extra.seat} after the round was "
                            f"complete", reason="actions-left-over")
    return engine


def replay(transcript: Transcript) -> Settlement:
    return drive(transcript).settle()
