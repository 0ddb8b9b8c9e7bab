"""What a round's workflow is billed: the state transitions of real rounds on the local stack (the
real ASL, the dealer at table speed), read from each execution's history.

The workflow wakes for what the round needs (a decision, a window, a pause, settlement), not for
each card; settlement runs one task per group of the shards that hold bets."""

from __future__ import annotations

import pytest

from croupier.app import settlement, store
from croupier.local.usage import execution_history, states_entered
from tests.support.harness import Harness, nets

pytestmark = pytest.mark.integration

WAITS_BESIDE_CARDS = ("AwaitDecision", "AwaitWindow", "AwaitSupervisor")


def entered(h: Harness, round_id: str) -> dict[str, int]:
    return dict(states_entered(execution_history(h.stack.outputs["state_machine"], round_id)))


def test_a_baccarat_round_of_seven_bets_and_six_cards_makes_at_most_ten_transitions(h: Harness) -> None:
    table = h.open_table(h.table("cost-bac"), "baccarat", 11, cut_at=300)
    # Player 2 3 draws a 5, Banker K 4 draws on the Player's 5: six cards
    table.shoe.prepare(["2S", "KD", "3H", "4C", "5D", "6C"])
    final = h.round(table, {
        "ana": [{"type": "player", "amount": 1000}, {"type": "tie", "amount": 100}],
        "ben": [{"type": "banker", "amount": 500}], "chloe": [{"type": "player", "amount": 300}],
        "dev": [{"type": "banker", "amount": 200}], "eli": [{"type": "player-pair", "amount": 100}],
        "fay": [{"type": "banker", "amount": 700}]})
    assert final["status"] == "settled", final.get("void_reason")
    assert len(final["result"]["player"]["cards"]) == 3 and len(final["result"]["banker"]["cards"]) == 3
    states = entered(h, final["round_id"])
    assert sum(states.values()) <= 10, states
    assert states.get("AwaitCard", 0) <= 1, states  # the cards wake the workflow once, when all are in
    # settlement visits the shards that hold the seven bets, in one task
    rnd = store.load_round(final["round_id"])
    bet_ids = [b["bet_id"] for name in ("ana", "ben", "chloe", "dev", "eli", "fay")
               for b in h.players[name].get(f"/rounds/{final['round_id']}")["bets"]]
    assert len(bet_ids) == 7
    holding = {store.shard_of(b, rnd.shards) for b in bet_ids}
    assert {int(k) for k in rnd.bet_shards} == holding
    assert settlement.shard_groups(rnd) == [sorted(holding)]
    assert states["SettleShard"] == 1
    assert nets(h, "ana", final["round_id"]) == {"player": 0, "tie": 800}  # 0 to 0: a tie, the Player bet pushes
    h.audit_ok()


def test_a_pok_deng_round_makes_at_most_ten_transitions(h: Harness) -> None:
    table = h.open_table(h.table("cost-pd"), "pok-deng", 12, cut_at=300)
    table.shoe.prepare(["2S", "9D", "2H", "3S", "4C", "6D", "5C", "KH", "QC", "4S", "AC", "7H", "3C"])
    final = h.round(table, {"dev": [{"type": "player-1", "amount": 1000}],
                            "eli": [{"type": "player-3", "amount": 500}]}, per_round_burn=1)
    assert final["status"] == "settled", final.get("void_reason")
    states = entered(h, final["round_id"])
    assert sum(states.values()) <= 10, states
    h.audit_ok()


def test_a_blackjack_dealer_drawing_five_cards_wakes_the_workflow_for_decisions_not_cards(h: Harness) -> None:
    table = h.open_table(h.table("cost-bj"), "blackjack", 13, cut_at=300)
    h.players["dev"].call("PUT", f"/tables/{table.table_id}/seats/3")
    # seat T 9 = 19 stands; the dealer shows 2, then draws 3 4 2 5 A: 17 in six cards
    table.shoe.prepare(["TS", "2H", "9D", "3C", "4D", "2S", "5H", "AD"])
    final = h.round(table, {"dev": [{"type": "seat", "seat": 3, "amount": 2000}]}, plan={3: ["stand"]})
    assert final["status"] == "settled", final.get("void_reason")
    assert final["result"]["dealer"]["cards"] == ["2H", "3C", "4D", "2S", "5H", "AD"]
    assert nets(h, "dev", final["round_id"]) == {"seat3": 2000}
    states = entered(h, final["round_id"])
    # each stretch of cards is one wait at most: the one before the decision, the one after it
    waits = sum(states.get(name, 0) for name in WAITS_BESIDE_CARDS)
    assert states.get("AwaitCard", 0) <= waits + 1, states
    assert states.get("Advance", 0) <= 2 * waits + 1, states  # not one per card: the round dealt eight
    h.audit_ok()


def test_a_blackjack_hands_cards_cost_no_transitions_its_decisions_three_each(h: Harness) -> None:
    table = h.open_table(h.table("cost-hits"), "blackjack", 14, cut_at=300)
    h.players["dev"].call("PUT", f"/tables/{table.table_id}/seats/3")
    bet = {"dev": [{"type": "seat", "seat": 3, "amount": 1000}]}
    # GIVEN a round where seat 3 stands on T 9 against a 7, and the dealer draws a T: 17
    table.shoe.prepare(["TS", "7H", "9D", "TD"])
    stood = h.round(table, bet, plan={3: ["stand"]})
    # WHEN the same seat, on 2 3 against a 7, hits twice (a 4, a 5: 14) before it stands
    table.shoe.prepare(["2S", "7C", "3D", "4C", "5S", "TH"])
    hit = h.round(table, bet, plan={3: ["hit", "hit", "stand"]})
    assert (stood["status"], hit["status"]) == ("settled", "settled")
    assert hit["result"]["seat-3"]["cards"] == ["2S", "3D", "4C", "5S"]
    first, second = entered(h, stood["round_id"]), entered(h, hit["round_id"])
    # THEN neither the hit cards nor the dealer's woke the workflow: a card wait is the first
    # deal's at most (none when its cards were all in when betting closed: a wait, an Advance, a Route)
    assert first.get("AwaitCard", 0) <= 1 and second.get("AwaitCard", 0) <= 1, (first, second)

    def beside_the_deal(states: dict[str, int]) -> int:
        return sum(states.values()) - 3 * states.get("AwaitCard", 0)

    # and each of the two further decisions cost its wait, its Advance and its Route
    assert second["AwaitDecision"] == first["AwaitDecision"] + 2, (first, second)
    assert beside_the_deal(second) == beside_the_deal(first) + 2 * 3, (first, second)
    assert nets(h, "dev", hit["round_id"]) == {"seat3": -1000}  # 14 against 17
    h.audit_ok()
