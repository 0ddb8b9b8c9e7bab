"""The wallet function's routes: an operator's deposits and withdrawals."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router

from .. import queries
from ..api import WRITE_ERRORS, IdemKey, PlayerId, caller, doc, idempotent
from ..models import Money
from ..responses import MoneyMoved, out

router = Router()


@router.post("/wallets/<player_id>/deposits", summary="Deposit into a player's wallet (operator)",
             **doc("deposit", "wallets", MoneyMoved, WRITE_ERRORS))
def deposit(player_id: PlayerId, body: Money, key: IdemKey) -> dict[str, Any]:
    caller(router).require("operator")
    return out(MoneyMoved, idempotent("deposit", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                                      lambda: queries.move(player_id, body.amount, "deposit", key, body.reference)))


@router.post("/wallets/<player_id>/withdrawals", summary="Withdraw from a player's wallet (operator)",
             **doc("withdraw", "wallets", MoneyMoved, WRITE_ERRORS))
def withdraw(player_id: PlayerId, body: Money, key: IdemKey) -> dict[str, Any]:
    caller(router).require("operator")
    return out(MoneyMoved, idempotent("withdraw", f"{player_id}:{key}", {"player": player_id, **body.model_dump()},
                                      lambda: queries.move(player_id, -body.amount, "withdrawal", key,
                                                           body.reference)))
