"""A settled round's record for disputes (``GET /rounds/{id}/transcript``): its transcript replays
to the bets' settled nets with ``croupier replay``, its bets and ledger are there, only supervisors
and operators read it, and only once the round is settled (its hidden cards stay hidden till then)."""

from __future__ import annotations

import json

import pytest

from croupier.cli import main as croupier
from croupier.local.client import ApiError
from tests.support.harness import Harness

pytestmark = pytest.mark.integration


def test_a_settled_rounds_transcript_replays_to_its_nets(h: Harness, tmp_path: pytest.TempPathFactory,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    table = h.open_table(h.table("rec"), "baccarat", 11, cut_at=300)
    table.shoe.prepare(["9S", "8H", "KD", "KC"])  # Player 9 beats Banker 8
    final = h.round(table, {"ana": [{"type": "player", "amount": 1000}], "ben": [{"type": "banker", "amount": 700}]})
    rid = final["round_id"]
    record = h.supervisor.get(f"/rounds/{rid}/transcript")
    assert record["transcript"]["cards"] == ["9S", "8H", "KD", "KC"]
    assert sorted(b["type"] for b in record["transcript"]["bets"]) == ["banker", "player"]
    nets = {b["bet_id"]: b["result"]["net"] for b in record["bets"]}
    assert sorted(nets.values()) == [-700, 1000]
    kinds = sorted((e["player"].split("-", 1)[1], e["kind"], e["amount"]) for e in record["ledger"])
    assert kinds == [("ana", "bet", -1000), ("ana", "settle", 2000), ("ben", "bet", -700)] or kinds == [
        ("ana", "bet", -1000), ("ana", "settle", 2000), ("ben", "bet", -700), ("ben", "settle", 0)]
    path = tmp_path / "round.json"  # type: ignore[operator]
    path.write_text(json.dumps(record["transcript"]))
    capsys.readouterr()
    assert croupier(["replay", str(path)]) == 0
    replayed = {b["id"]: b["net"] for b in json.loads(capsys.readouterr().out)["bets"]}
    assert replayed == nets
    assert h.operator.get(f"/rounds/{rid}/transcript")["transcript"] == record["transcript"]
    with pytest.raises(ApiError) as refused:
        h.players["ana"].get(f"/rounds/{rid}/transcript")
    assert refused.value.status == 403


def test_no_transcript_before_the_round_is_settled(h: Harness) -> None:
    table = h.open_table(h.table("rec-open"), "baccarat", 12, cut_at=300)
    rid = table.console.post(f"/tables/{table.table_id}/rounds")["round_id"]
    with pytest.raises(ApiError) as refused:
        h.supervisor.get(f"/rounds/{rid}/transcript")
    assert refused.value.status == 409 and refused.value.reason == "not-settled"
    with pytest.raises(ApiError) as missing:
        h.supervisor.get("/rounds/no-such-round/transcript")
    assert missing.value.status == 404
