"""Full rounds of every game through the local stack: HTTP clients, card-reader events on the bus,
the real round workflow (ASL) and the real handlers."""

from __future__ import annotations

import pytest

from croupier.local.client import ApiError
from tests.support.harness import START, TIMERS, Harness, nets

pytestmark = pytest.mark.integration


def test_baccarat_round_settles_every_bet_into_the_wallets(h: Harness) -> None:
    table = h.open_table(h.table("bac"), "baccarat", 1, cut_at=300)
    table.shoe.prepare(["9S", "8H", "KD", "KC"])  # Player 9, Banker 8: naturals, Player wins
    final = h.round(table, {
        "ana": [{"type": "player", "amount": 1000}, {"type": "tie", "amount": 100}],
        "ben": [{"type": "banker", "amount": 1001}],
        "chloe": [{"type": "banker", "amount": 1000, "mode": "no-commission"}, {"type": "small", "amount": 200}]})
    assert final["status"] == "settled", final.get("void_reason")
    assert final["result"]["winner"] == "player"
    assert nets(h, "ana", final["round_id"]) == {"player": 1000, "tie": -100}
    assert nets(h, "chloe", final["round_id"]) == {"banker": -1000, "small": 300}
    assert h.balance("ana") == START + 900
    assert h.balance("ben") == START - 1001
    assert h.balance("chloe") == START - 700
    h.audit_ok()


def test_pok_deng_round_reserves_twice_and_returns_what_was_not_lost(h: Harness) -> None:
    table = h.open_table(h.table("pd"), "pok-deng", 2, cut_at=300)
    # burn card, then hands 1..5 and the banker, twice: banker 5C 3C is an 8 flush (special)
    table.shoe.prepare(["2S", "9D", "2H", "3S", "4C", "6D", "5C", "KH", "QC", "4S", "AC", "7H", "3C"])
    final = h.round(table, {"dev": [{"type": "player-1", "amount": 1000}],
                            "eli": [{"type": "player-3", "amount": 500}]}, per_round_burn=1)
    assert final["status"] == "settled", final.get("void_reason")
    # hand 1: 9D KH = 9 (no pattern) beats the banker's 8 flush: 1:1; hand 3: 3S 4S = 7 flush loses to a special 8: 2x
    assert nets(h, "dev", final["round_id"]) == {"player-1": 1000}
    assert nets(h, "eli", final["round_id"]) == {"player-3": -1000}
    assert h.balance("eli") == START - 1000
    h.audit_ok()


def test_pok_deng_special_combinations_decide_the_round_and_say_so(h: Harness) -> None:
    table = h.open_table(h.table("pdc"), "pok-deng", 2, cut_at=300)
    # burn card, then hands 1..5 and the banker, twice: hand 1 JD QC court cards, hand 3 AS KS lion
    # flush, banker 7H KD a plain 7
    table.shoe.prepare(["2S", "JD", "9D", "AS", "4C", "6D", "7H", "QC", "2H", "KS", "3D", "2C", "KD"])
    final = h.round(table, {"dev": [{"type": "player-1", "amount": 1000}],
                            "eli": [{"type": "player-3", "amount": 500}]}, per_round_burn=1)
    assert final["status"] == "settled", final.get("void_reason")
    # both combinations rank above the Banker's 7 and are special patterns: 2:1
    assert nets(h, "dev", final["round_id"]) == {"player-1": 2000}
    assert nets(h, "eli", final["round_id"]) == {"player-3": 1000}
    assert (final["result"]["hand-1"]["combination"], final["result"]["hand-1"]["decided_by"]) == (
        "court-cards", "court-cards")
    assert final["result"]["hand-3"]["reason"] == "won 2:1: lion flush"
    bet = h.players["dev"].get(f"/rounds/{final['round_id']}")["bets"][0]
    assert (bet["result"]["reason"], bet["result"]["decided_by"]) == ("won 2:1: court cards", "court-cards")
    h.audit_ok()


def test_deluxe_round_with_insurance_split_double_follows_and_a_timeout(h: Harness) -> None:
    # windows and timers long enough for the answers to arrive on a loaded machine
    slow = {"timers": {**TIMERS, "insurance": 5, "follow": 5, "decision": 4}}
    table = h.open_table(h.table("dlx"), "deluxe-blackjack", 3, cut_at=300, scan_burn=False, rules=slow)
    h.players["ana"].call("PUT", f"/tables/{table.table_id}/seats/1")
    h.players["ben"].call("PUT", f"/tables/{table.table_id}/seats/2")
    table.shoe.prepare(["8S", "6H", "AS", "8D", "5C", "9C", "3H", "TS", "9S", "7D"])
    final = h.round(table, {
        "ana": [{"type": "seat", "seat": 1, "amount": 1000}],
        "ben": [{"type": "seat", "seat": 2, "amount": 1000}],
        "chloe": [{"type": "behind", "seat": 1, "amount": 500}, {"type": "pair", "seat": 2, "amount": 100}]},
        plan={1: ["split", "double", "stand"], 2: [None]}, insure=("ana", "chloe"), follow=("chloe",))
    assert final["status"] == "settled", final.get("void_reason")
    hands = final["result"]
    assert hands["seat-2"]["cards"] == ["6H", "5C", "7D"]  # the timeout hit 11 once, then stood on 18
    # ana: hand 1 doubled 21 wins 2000, hand 2 (17) loses 1000, insurance (500) lost
    assert nets(h, "ana", final["round_id"]) == {"seat1": 500}
    # chloe: followed split and double: +1000 on hand 1, -500 on hand 2, insurance 250 lost
    assert nets(h, "chloe", final["round_id"]) == {"behind1": 250, "pair2": -100}
    assert h.balance("chloe") == START + 150
    h.audit_ok()


def test_classic_round_deals_the_dealer_second_card_after_the_players(h: Harness) -> None:
    table = h.open_table(h.table("bj"), "blackjack", 4, cut_at=300)
    h.players["dev"].call("PUT", f"/tables/{table.table_id}/seats/3")
    table.shoe.prepare(["TS", "7H", "9D", "KC", "QH"])  # seat 19; dealer 7 then K: 17
    final = h.round(table, {"dev": [{"type": "seat", "seat": 3, "amount": 2000}],
                            "eli": [{"type": "behind", "seat": 3, "amount": 700}]}, plan={3: ["stand"]})
    assert final["result"]["dealer"]["cards"] == ["7H", "KC"]
    assert nets(h, "dev", final["round_id"]) == {"seat3": 2000}
    assert nets(h, "eli", final["round_id"]) == {"behind3": 700}
    h.audit_ok()


def test_a_bet_after_the_countdown_is_refused_and_moves_nothing(h: Harness) -> None:
    table = h.open_table(h.table("late"), "baccarat", 5, cut_at=300)
    final = h.round(table, {"ana": [{"type": "player", "amount": 100}]})
    before = h.balance("ben")
    with pytest.raises(ApiError) as refused:
        h.players["ben"].post(f"/tables/{h.table('late')}/bets", {"bets": [{"type": "player", "amount": 100}]},
                              idempotent=True)
    assert refused.value.status == 409 and refused.value.reason == "betting-closed"
    assert h.balance("ben") == before
    assert final["status"] == "settled", final.get("void_reason")
