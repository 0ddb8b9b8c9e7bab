"""The decisions function's routes: a player's decisions in a blackjack round."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router

from ..api import WALLET_ERRORS, IdemKey, RoundId, caller, doc, idempotent
from ..aws import prepare
from ..models import Decision
from ..responses import DecisionApplied, out

router = Router()
prepare("croupier.app.decisions")  # else imported by the first request (see decide)


@router.post("/rounds/<round_id>/decisions", summary="A player's decision in a blackjack round",
             description="A seated action, insurance, a follow answer behind a seat (behind: true) or a "
                         "pre-selection (preselect: true). A retry with the same Idempotency-Key is "
                         "answered again (replayed true), never applied twice.",
             **doc("decide", "decisions", DecisionApplied, WALLET_ERRORS))
def decide(round_id: RoundId, body: Decision, key: IdemKey) -> dict[str, Any]:
    # the service (the engines, the dealing, the wallets) is imported by the first request, not when
    # the function starts: the cold start's import stays short (docs/deploying.md, "The card path's
    # cold start"); the first request pays it instead
    from .. import decisions

    who = caller(router).require("player")
    answer = idempotent("decisions", f"{who.subject}:{key}", {"round": round_id, **body.model_dump()},
                        lambda: {"replayed": False, **decisions.decide(
                            round_id, who.subject, body.seat, body.action, behind=body.behind, hand=body.hand,
                            preselect=body.preselect, idempotency_key=key)})
    return out(DecisionApplied, answer)
