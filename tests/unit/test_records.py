"""The stored records' vocabulary (``croupier.app.records``) is the one the API publishes: each
response model that shows a round's or a bet's status lists exactly the enum's values, and the
status groups the application decides by are made of them."""

from __future__ import annotations

import json
import typing

from croupier.app import player_rounds, responses
from croupier.app.records import ACTIVE, FINISHED, REVEALED, TAKING_BETS, BetStatus, RoundStatus


def literal_values(model: type, field: str) -> set[str]:
    """The values a field's ``Literal`` allows (of ``Literal[...] | None`` too)."""
    annotation = model.model_fields[field].annotation  # type: ignore[attr-defined]
    parts = [annotation] if typing.get_origin(annotation) is typing.Literal else typing.get_args(annotation)
    return {value for part in parts if typing.get_origin(part) is typing.Literal for value in typing.get_args(part)}


def test_every_published_round_status_is_a_round_status_and_every_bet_status_a_bet_status() -> None:
    rounds = {str(s) for s in RoundStatus}
    assert literal_values(responses.RoundLine, "status") == rounds
    assert literal_values(responses.RoundSummary, "status") == rounds
    assert literal_values(player_rounds.PlayerRound, "status") == rounds
    bets = {str(s) for s in BetStatus}
    for model in (responses.OwnBet, responses.RecordBet, responses.RecordedBet):
        assert literal_values(model, "status") == bets, model


def test_a_status_is_stored_and_sent_as_its_plain_string() -> None:
    assert json.dumps({"status": RoundStatus.VOIDING}) == '{"status": "voiding"}'
    assert RoundStatus("settled") is RoundStatus.SETTLED and RoundStatus.SETTLED == "settled"


def test_the_groups_of_statuses() -> None:
    # every round is active until it is finished, and its cards are face up from settling or voiding on
    assert set(RoundStatus) == ACTIVE | FINISHED and not ACTIVE & FINISHED
    assert TAKING_BETS < ACTIVE and FINISHED < REVEALED and not REVEALED & TAKING_BETS
    assert {RoundStatus.SETTLING, RoundStatus.VOIDING} == REVEALED - FINISHED
