"""The decisions function's routes: a player's decisions in a blackjack round."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router

from .. import decisions
from ..api import WALLET_ERRORS, IdemKey, RoundId, caller, doc, idempotent
from ..models import Decision
from ..responses import DecisionApplied, out

router = Router()


@router.post("/rounds/<round_id>/decisions", summary="A player's decision in a blackjack round",
             description="A seated action, insurance, a follow answer behind a seat (behind: true) or a "
                         "pre-selection (preselect: true). A retry with the same Idempotency-Key is "
                         "answered again (replayed true), never applied twice.",
             **doc("decide", "decisions", DecisionApplied, WALLET_ERRORS))
def decide(round_id: RoundId, body: Decision, key: IdemKey) -> dict[str, Any]:
    who = caller(router).require("player")
    answer = idempotent("decisions", f"{who.subject}:{key}", {"round": round_id, **body.model_dump()},
                        lambda: {"replayed": False, **decisions.decide(
                            round_id, who.subject, body.seat, body.action, behind=body.behind, hand=body.hand,
                            preselect=body.preselect, idempotency_key=key)})
    return out(DecisionApplied, answer)
