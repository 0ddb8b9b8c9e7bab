"""The domain events' schema: the committed JSON Schema is the models' own, every event the live
function derives validates against it, and what each screen receives of an event is what its
role may see."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from croupier.app.push import sees, shown
from croupier.app.records import Watcher
from croupier.cli import main
from croupier.domain_events import SCHEMA_VERSION, json_schema, validated

ROOT = Path(__file__).resolve().parents[2]
DECISION = {"v": 1, "type": "decision-made", "table_id": "bj-1", "round_id": "r1", "seq": 7, "at": 1,
            "audience": "public", "seat": 3, "action": "double", "behind": True, "player": "eli",
            "staff_fields": ["player"]}


def test_the_committed_schema_is_the_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["events-schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json_schema()
    assert json.loads((ROOT / "events" / "schema" / "domain-events.json").read_text()) == printed, (
        "events/schema/domain-events.json is out of date: croupier events-schema > events/schema/domain-events.json")
    assert f"version {SCHEMA_VERSION}" in printed["title"]
    types = {d["properties"]["type"]["const"] for d in printed["$defs"].values() if "type" in d.get("properties", {})}
    manual = (ROOT / "docs" / "live-tables.md").read_text()
    assert not [t for t in types if f"`{t}`" not in manual], "every event type is listed in docs/live-tables.md"


def test_an_event_outside_the_schema_is_refused() -> None:
    assert validated(DECISION)["seat"] == 3
    with pytest.raises(ValidationError):
        validated({**DECISION, "type": "decision-maid"})
    with pytest.raises(ValidationError):
        validated({**DECISION, "surprise": 1})
    with pytest.raises(ValidationError):
        validated({**DECISION, "seq": -1})


def _watcher(role: str, subject: str, table: str | None = None) -> Watcher:
    return Watcher(f"c-{subject}", subject, role, table=table)


@pytest.mark.parametrize(("watcher", "sees_it", "gets_player"), [
    (_watcher("supervisor", "s"), True, True),
    (_watcher("dealer", "c", "bj-1"), True, True),
    (_watcher("dealer", "c", "bj-2"), True, False),
    (_watcher("player", "eli"), True, False),
    (_watcher("player", "ana"), True, False),
])
def test_staff_fields_reach_only_the_tables_staff(watcher: Watcher, sees_it: bool, gets_player: bool) -> None:
    assert sees(DECISION, watcher) is sees_it
    out = shown(DECISION, watcher)
    assert ("player" in out) is gets_player and "staff_fields" not in out


def test_a_players_bet_reaches_that_player_only_and_the_device_log_only_the_staff() -> None:
    bet = {"type": "bet-settled", "table_id": "bac-1", "audience": "player", "player": "ana"}
    log = {"type": "device-event", "table_id": "bac-1", "audience": "staff"}
    assert sees(bet, _watcher("player", "ana"))
    assert not sees(bet, _watcher("player", "ben"))
    assert not sees(bet, _watcher("supervisor", "ana"))
    assert sees(log, _watcher("dealer", "c", "bac-1"))
    assert not sees(log, _watcher("dealer", "c", "bac-2"))
    assert not sees(log, _watcher("player", "ana"))
    assert sees(log, _watcher("operator", "o"))
