"""Domain errors. Every error carries a machine-readable ``reason`` and a human sentence."""

from __future__ import annotations


class CroupierError(Exception):
    """Base of every rule or input error raised by the core."""

    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason

    @property
    def message(self) -> str:
        return str(self)


class CardError(CroupierError):
    """A card code that is not on the wire format (``TD``, ``AS`` ...)."""

    reason = "bad-card"


class ShoeError(CroupierError):
    """The shoe cannot take this card or event (ninth copy, closed shoe, burn not done ...)."""

    reason = "shoe"


class UnexpectedCard(CroupierError):
    """The round expects no card at this moment."""

    reason = "unexpected-card"


class IllegalAction(CroupierError):
    """A decision that is not legal at this moment."""

    reason = "illegal-action"


class BetRefused(CroupierError):
    """A bet that breaks a table rule (limits, seat rules, round limits ...)."""

    reason = "bet-refused"


class RulesError(CroupierError):
    """A table configuration that is not valid."""

    reason = "bad-rules"


class IncompleteRound(CroupierError):
    """The round is not finished (a card or a decision is still awaited)."""

    reason = "incomplete-round"
