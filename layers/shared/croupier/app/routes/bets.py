"""The bets function's routes: a player's bets in a table's open round."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router

from .. import bets
from ..api import WALLET_ERRORS, IdemKey, TableId, caller, doc, idempotent, placed_answer
from ..models import PlaceBets
from ..responses import BetsPlaced, out

router = Router()


@router.post("/tables/<table_id>/bets", summary="Place several bets at once (all or none)",
             description="A player's bets in the table's open round. A retry with the same Idempotency-Key "
                         "moves nothing and answers the same bets, with replayed true.",
             **doc("placeBets", "bets", BetsPlaced, WALLET_ERRORS))
def place_bets(table_id: TableId, body: PlaceBets, key: IdemKey) -> dict[str, Any]:
    who = caller(router).require("player")
    payload = [b.model_dump(exclude_none=True) for b in body.bets]
    answer = idempotent("bets", f"{who.subject}:{key}", {"table": table_id, "bets": payload},
                        lambda: bets.place_bets(table_id, who.subject, who.account_kind, payload, key))
    return out(BetsPlaced, placed_answer(answer))
