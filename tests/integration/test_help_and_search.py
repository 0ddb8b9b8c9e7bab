"""A table's help figures from its rules (GET /tables/{id}/help: each bet's exact RTP, Baccarat's
drawing rules from the engine) and the supervisor's search by player (GET /players/{id}/rounds)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from croupier.games.baccarat import banker_draws, player_draws
from croupier.local.client import ApiError
from croupier.rtp import baccarat as baccarat_rtp
from croupier.rtp import blackjack as blackjack_rtp
from croupier.rules import load_rules
from tests.support.harness import Harness

pytestmark = pytest.mark.integration


def rtp_of(answer: dict, bet: str) -> float:
    return next(r["rtp"] for r in answer["rtp"] if r["bet"] == bet)


def test_a_pair_paytable_changed_through_the_api_changes_the_help_rtp(h: Harness) -> None:
    table = h.open_table(h.table("help-bac"), "baccarat", 7, cut_at=300)
    path = f"/tables/{table.table_id}/help"
    before = h.players["ana"].get(path)
    rules = load_rules("baccarat", h.supervisor.get(f"/tables/{table.table_id}")["rules"])
    expected = baccarat_rtp.analyse(rules)
    assert {r["bet"]: Fraction(r["exact"]) for r in before["rtp"]} == expected  # the exact calculation's own
    assert rtp_of(before, "banker") == 0.989421  # the published maximum, 98.94%
    assert before["not_computed"] == []
    drawing = before["drawing"]
    assert drawing["player_draws"] == [player_draws(total) for total in range(8)]
    assert [row["draws"] for row in drawing["banker"]] == [[banker_draws(b, p) for p in range(10)] for b in range(8)]
    assert drawing["natural"] == [8, 9]

    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"payouts": {"player_pair": "25:1"}}})
    after = h.players["ana"].get(path)
    assert after["rules_hash"] != before["rules_hash"]
    assert rtp_of(after, "player-pair") == round(float(Fraction(26 * 31, 415)), 6) \
        == 1.942169  # 25:1 on a pair of one rank: P(pair) = 31/415
    assert rtp_of(after, "banker-pair") == rtp_of(before, "banker-pair") == 0.896386
    assert h.supervisor.get(f"/tables/{table.table_id}")["play"]["rules"]["payouts"]["player_pair"] == "25:1"


def test_blackjack_help_gives_the_pair_and_insurance_exactly_and_says_the_main_bet_is_not_computed(
        h: Harness) -> None:
    table = h.open_table(h.table("help-bj"), "blackjack", 8, cut_at=300)
    path = f"/tables/{table.table_id}/help"
    before = h.players["ben"].get(path)
    assert [n["bet"] for n in before["not_computed"]] == ["seat", "behind"]
    assert before["drawing"] is None
    assert rtp_of(before, "pair") == 0.896386
    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"pair_paytable": {"same-rank": "15:1"}}})
    after = h.players["ben"].get(path)
    rules = load_rules("blackjack", h.supervisor.get(f"/tables/{table.table_id}")["rules"])
    assert Fraction(next(r["exact"] for r in after["rtp"] if r["bet"] == "pair")) == blackjack_rtp.pair_rtp(rules)
    assert rtp_of(after, "pair") == round(float(Fraction(16 * 31, 415)), 6) != rtp_of(before, "pair")


def test_the_supervisor_finds_a_players_rounds_settled_ones_included_and_only_staff_may(h: Harness) -> None:
    table = h.open_table(h.table("search"), "baccarat", 9, cut_at=300)
    table.shoe.prepare(["9S", "8H", "KD", "KC"])  # naturals, the Player wins
    first = h.round(table, {"ana": [{"type": "player", "amount": 1000}], "ben": [{"type": "banker", "amount": 500}]})
    second = h.round(table, {"ben": [{"type": "tie", "amount": 100}]})
    assert first["status"] == second["status"] == "settled"
    ana = h.players["ana"].subject
    found = h.supervisor.get(f"/players/{ana}/rounds")
    assert [r["round_id"] for r in found["rounds"]] == [first["round_id"]]
    line = found["rounds"][0]
    assert (line["table_id"], line["game"], line["status"]) == (table.table_id, "baccarat", "settled")
    assert [(b["type"], b["amount"], b["net"]) for b in line["bets"]] == [("player", 1000, 1000)]
    ben = h.players["ben"].subject
    both = h.operator.get(f"/players/{ben}/rounds?table={table.table_id}")
    assert [r["round_id"] for r in both["rounds"]] == [second["round_id"], first["round_id"]]  # newest first
    placed = both["rounds"][1]["bets"][0]["placed_at"]
    assert [r["round_id"] for r in h.supervisor.get(f"/players/{ben}/rounds?until={placed}")["rounds"]] \
        == [first["round_id"]]
    assert [r["round_id"] for r in h.supervisor.get(f"/players/{ben}/rounds?since={placed + 1}")["rounds"]] \
        == [second["round_id"]]
    assert h.supervisor.get(f"/players/{ben}/rounds?table=another-table")["rounds"] == []
    for who in (h.players["ana"], table.console):
        with pytest.raises(ApiError) as refused:
            who.get(f"/players/{ana}/rounds")
        assert refused.value.status == 403
