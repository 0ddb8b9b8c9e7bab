"""Pre-selected actions and money: an action with an extra stake is not pre-selectable.

A pre-selected action is applied by the engine when the seat's turn starts, inside whatever event
starts it (the card that ends the seat before it, a window's close), where no wallet is debited.
A pre-selected double was once played for twice the stake while only the stake was taken, and the
round could then never settle (its settlement refuses a stake the wallet did not give)."""

from __future__ import annotations

import uuid

import pytest

from croupier.app import decisions, steps, store, tables
from croupier.app.errors import StateConflict
from tests.support.direct import Direct
from tests.support.money import check_exactly_once

pytestmark = pytest.mark.reliability


@pytest.mark.parametrize("action", ["double", "split"])
def test_an_action_with_an_extra_stake_is_refused_as_a_preselection_and_the_round_settles(
        direct: Direct, action: str) -> None:
    table_id = direct.table("deluxe-blackjack")
    ana, ben = direct.player("ana"), direct.player("ben")
    tables.sit(table_id, 1, ana, "real")
    tables.sit(table_id, 2, ben, "real")
    round_id = direct.start(table_id)
    direct.bet(table_id, ana, [{"type": "seat", "seat": 1, "amount": 1000}])
    direct.bet(table_id, ben, [{"type": "seat", "seat": 2, "amount": 1000}])
    start = {ana: store.balance_of(ana), ben: store.balance_of(ben)}
    steps.close_betting(round_id)
    cards = ["5S", "9H", "7D", "6C", "9S", "TC", "9D", "8S", "TS", "TH", "2C", "3C"]
    for _ in range(3):  # seat 1, seat 2 and the dealer's up card: seat 2's turn has not started
        steps.advance(round_id)
        direct.scan(table_id, cards.pop(0))
    with pytest.raises(StateConflict) as refused:
        decisions.decide(round_id, ben, 2, action, preselect=True, idempotency_key=uuid.uuid4().hex)
    assert refused.value.reason == "not-preselectable" and "at your turn" in str(refused.value)
    decisions.decide(round_id, ben, 2, "stand", preselect=True, idempotency_key=uuid.uuid4().hex)
    direct.play(round_id, table_id, cards, decisions={(1, 0): [(ana, "stand")]})
    direct.run(direct.settlement(round_id))
    assert store.load_round(round_id).status == "settled"
    check_exactly_once(round_id, {p: b + 1000 for p, b in start.items()})
