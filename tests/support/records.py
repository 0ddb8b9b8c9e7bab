"""Typed records for unit tests that need one without a store: a round with only the fields the
test is about, the others as a freshly opened round has them."""

from __future__ import annotations

from typing import Any

from croupier.app.records import RoundRecord, RoundStatus


def a_round(**fields: Any) -> RoundRecord:
    """Round ``r1`` of Baccarat table ``t1``, in betting, with ``fields`` instead."""
    opened: dict[str, Any] = {"round_id": "r1", "table_id": "t1", "game": "baccarat", "status": RoundStatus.BETTING,
                              "round_in_shoe": 1, "shoe_id": "s1", "shards": 16, "created_at": 0,
                              "closes_at": 15_000}
    return RoundRecord(**{**opened, **fields})
