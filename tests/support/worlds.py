"""What the simulator's tests read of a world once it has played."""

from __future__ import annotations

from typing import Any

from croupier.app import store
from croupier.app.keys import kind_of
from croupier.sim.world import World


def stored(played: World, kind: str) -> list[dict[str, Any]]:
    """The items of one kind (``"round"``, ``"bet"`` ...) of the world's game table, as the
    application reads them."""
    return [store.plain(item) for item in played.dynamo.items(played._settings().game_table) if kind_of(item) == kind]
