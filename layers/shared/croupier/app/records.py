"""The stored records' vocabulary: the statuses a round and a bet go through.

Values are the strings stored in DynamoDB and shown by the API (a :class:`~enum.StrEnum` member is
its string), so items written before these names existed read the same.

A round: ``betting`` → ``closing`` (the bets being frozen) → ``playing`` → ``settling`` →
``settled``; or, from betting, closing or playing, ``voiding`` → ``voided`` (every bet refunded).
"""

from __future__ import annotations

from enum import StrEnum


class RoundStatus(StrEnum):
    BETTING = "betting"
    CLOSING = "closing"
    PLAYING = "playing"
    SETTLING = "settling"
    SETTLED = "settled"
    VOIDING = "voiding"
    VOIDED = "voided"


TAKING_BETS = frozenset({RoundStatus.BETTING, RoundStatus.CLOSING})
"""The bets are not frozen yet: a round in these is before its close."""
ACTIVE = frozenset({RoundStatus.BETTING, RoundStatus.CLOSING, RoundStatus.PLAYING, RoundStatus.SETTLING,
                    RoundStatus.VOIDING})
"""Statuses of a round that holds its table: the next round cannot open, the shoe cannot change."""
FINISHED = frozenset({RoundStatus.SETTLED, RoundStatus.VOIDED})
"""A round in these is over: nothing of it changes again."""
REVEALED = frozenset({RoundStatus.SETTLING, RoundStatus.SETTLED, RoundStatus.VOIDING, RoundStatus.VOIDED})
"""Round statuses in which every card of the round is face up."""


class BetStatus(StrEnum):
    OPEN = "open"
    SETTLED = "settled"
    REFUNDED = "refunded"
