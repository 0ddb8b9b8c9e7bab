"""The WebSocket API end to end on the local stack: screens of every role subscribe to a table,
rounds of all four games are played at table speed, and each screen's messages are checked: the
exact story of the round, what is hidden staying hidden (from everyone, until it is shown),
nothing of another player's, reconnection with a snapshot, a dead connection removed, a pause
reaching the supervisors' consoles, and a newcomer drawing a shoe's roads from the lobby."""

from __future__ import annotations

import json
from typing import Any

import pytest

from croupier.app import push, store
from croupier.local.client import Screen, wait_until
from tests.support.harness import TIMERS, Harness

pytestmark = pytest.mark.integration
ENDS = ("round-settled", "round-refunded")


def story(events: list[dict[str, Any]], round_id: str) -> list[str]:
    """A round's events as short lines, without the prompts of what comes next (``waiting-for``:
    how many a screen gets depends on how the dealer's scans and the workflow's steps interleave;
    their content is checked in :func:`prompts_come_before_what_they_announce`)."""
    out = []
    for e in events:
        if e.get("round_id") != round_id or e["type"] in ("waiting-for", "device-event"):
            continue
        if e["type"] == "card-dealt":
            out.append(f"card {e['hand']} {e['card']}" + ("" if e["face_up"] else " down"))
        elif e["type"] == "cards-revealed":
            out.append("reveal " + " ".join(f"{c['hand']} {c['card']}" for c in e["cards"]))
        elif e["type"] == "decision-made":
            out.append(f"decision {e['seat']} {e['action']}" + (" behind" if e["behind"] else ""))
        elif e["type"] in ("bet-placed", "bet-settled"):
            out.append(f"{e['type']} {e['player'].split('-', 1)[1]} {e['bet']['type']}")
        else:
            out.append(e["type"])
    return out


def until_end(screen: Screen, round_id: str, *, roads: bool) -> list[dict[str, Any]]:
    """Everything the screen received about the round, once its last event has arrived."""
    last = "roads-updated" if roads else ENDS[0]
    wait_until(lambda: any(e.get("round_id") == round_id and e["type"] == last for e in screen.events), timeout=60)
    return screen.events


def as_public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a screen without staff rights receives of the staff's events: the public ones, without
    the name of the bet-behind player who answered."""
    return [{k: v for k, v in e.items() if not (e["type"] == "decision-made" and k == "player")}
            for e in events if e["audience"] == "public"]


def of_round(events: list[dict[str, Any]], round_id: str) -> list[dict[str, Any]]:
    """From the round's opening to its last event (table events in between included)."""
    start = next(i for i, e in enumerate(events) if e.get("round_id") == round_id and e["type"] == "round-opened")
    end = max(i for i, e in enumerate(events) if e.get("round_id") == round_id)
    return events[start:end + 1]


def same_events(got: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """The same events, the round's in the same order. Events of different items (the round, a
    device-log entry, a bet) may interleave differently on two screens: a supervisor watching
    every table is pushed from another queue group than a screen watching this table."""
    assert [e for e in got if "seq" in e] == [e for e in expected if "seq" in e]
    assert sorted(json.dumps(e, sort_keys=True) for e in got) == sorted(json.dumps(e, sort_keys=True) for e in expected)


def prompts_come_before_what_they_announce(events: list[dict[str, Any]], round_id: str) -> None:
    """Every card and decision was announced: the last prompt before a card named its hand, the
    last before a decision named its seat and offered the action."""
    prompt: dict[str, Any] | None = None
    for e in events:
        if e.get("round_id") != round_id:
            continue
        if e["type"] == "waiting-for":
            prompt = e
        elif e["type"] == "card-dealt" and e["face_up"] and not e["hand"].startswith("hand-"):
            assert prompt is not None and prompt["kind"] == "card" and prompt["hand"] == e["hand"], (prompt, e)
            prompt = None
        elif e["type"] == "decision-made" and not e["behind"]:
            assert prompt is not None and prompt["kind"] == "decision" and prompt["seat"] == e["seat"], (prompt, e)
            assert e["action"] in prompt["legal"]
            prompt = None


def seqs_never_go_back(events: list[dict[str, Any]], round_id: str) -> None:
    seqs = [e["seq"] for e in events if e.get("round_id") == round_id and "seq" in e]
    assert seqs == sorted(seqs) and seqs[0] == 0


def hidden_until_shown(screen: Screen, card: str, shown_by: str, round_id: str) -> None:
    """Nothing the screen received since the round opened mentions ``card`` before the event that
    shows it (the round's cards are the only ones of that value dealt meanwhile)."""
    opened = next(i for i, m in enumerate(screen.messages) if any(
        e.get("round_id") == round_id and e["type"] == "round-opened" for e in m.get("events", [])))
    for message in screen.messages[opened:]:
        if any(e.get("round_id") == round_id and e["type"] == shown_by for e in message.get("events", [])):
            return
        assert f'"{card}"' not in json.dumps(message), message
    raise AssertionError(f"no {shown_by} event")


class Watching:
    """The screens around one table, connected before its round opens: the supervisor (watching
    every table), the table's dealer console, two betting players, a player who only watches, and
    another table's dealer console."""

    def __init__(self, h: Harness, table_id: str, bettors: tuple[str, str]) -> None:
        self.table_id = table_id
        self.supervisor = h.watch(h.supervisor.token, ["*"])
        self.dealer = h.tables[table_id].dealer.screen
        self.bettors = {name: h.screen(h.players[name], table_id) for name in bettors}
        self.watcher = h.screen(h.players["fay"], table_id)
        other = h.console(f"{table_id}-other")
        self.other_dealer = h.watch(other.token, [table_id])
        self.subjects = {name: h.players[name].subject for name in bettors}

    def check(self, round_id: str, expected: list[str], *, roads: bool) -> None:
        # the supervisor watches every table: what it got of this one
        staff = of_round([e for e in until_end(self.supervisor, round_id, roads=roads)
                          if e["table_id"] == self.table_id], round_id)
        # the supervisor's story is the round as it happened, hidden cards hidden
        assert [line for line in story(staff, round_id) if not line.startswith("bet-")] == expected
        seqs_never_go_back(staff, round_id)
        prompts_come_before_what_they_announce(staff, round_id)
        # the table's dealer console gets exactly what the supervisor gets of this table
        same_events(of_round(until_end(self.dealer, round_id, roads=roads), round_id),
                    staff)
        # each player: the public events and their own bets, nothing of anyone else's
        for name, screen in self.bettors.items():
            mine = of_round(until_end(screen, round_id, roads=roads), round_id)
            own = [e for e in mine if e["audience"] == "player"]
            same_events([e for e in mine if e["audience"] != "player"], as_public(staff))
            assert own and {e["player"] for e in own} == {self.subjects[name]}
            assert {e["type"] for e in own} == {"bet-placed", "bet-settled"}
        for screen in (self.watcher, self.other_dealer):
            seen = of_round(until_end(screen, round_id, roads=roads), round_id)
            same_events(seen, as_public(staff))
            assert not any(e["type"] in ("device-event", "bet-placed", "bet-settled", "preselected") for e in seen)


def test_baccarat_each_role_sees_its_own_story(h: Harness) -> None:
    table = h.open_table(h.table("bac"), "baccarat", 1, cut_at=300)
    screens = Watching(h, table.table_id, ("ana", "ben"))
    table.shoe.prepare(["9S", "8H", "KD", "KC"])
    final = h.round(table, {"ana": [{"type": "player", "amount": 1000}, {"type": "tie", "amount": 100}],
                            "ben": [{"type": "banker", "amount": 500}]})
    rid = final["round_id"]
    screens.check(rid, ["round-opened", "betting-closed", "card player 9S", "card banker 8H", "card player KD",
                        "card banker KC", "round-result", "round-settled", "roads-updated"], roads=True)
    ana = story(screens.bettors["ana"].events, rid)
    assert [line for line in ana if line.startswith("bet-placed")] == ["bet-placed ana player", "bet-placed ana tie"]
    assert sorted(line for line in ana if line.startswith("bet-settled")) == [  # bets settle by shard, in any order
        "bet-settled ana player", "bet-settled ana tie"]
    assert ana.index("round-result") < min(i for i, line in enumerate(ana) if line.startswith("bet-settled"))
    # the dealer console also sees each scan as the reader sent it, then where it went
    scans = [e["entry"] for e in screens.dealer.events if e["type"] == "device-event"
             and e["entry"].get("round_id") == rid and e["entry"]["state"] == "taken"]
    assert [s["card"] for s in scans] == ["9S", "8H", "KD", "KC"]
    pushed = next(e for e in screens.supervisor.events if e.get("round_id") == rid and e["type"] == "roads-updated")
    assert pushed["roads"] == h.players["fay"].get(f"/tables/{table.table_id}")["roads"]
    h.audit_ok()


def test_pok_deng_cards_stay_face_down_for_everyone_while_bets_are_open(h: Harness) -> None:
    long_countdown = {"timers": {**TIMERS, "countdown": 12}}  # the twelve cards are dealt in about 4 s
    table = h.open_table(h.table("pd"), "pok-deng", 2, cut_at=300, rules=long_countdown)
    screens = Watching(h, table.table_id, ("dev", "eli"))
    cards = ["9D", "2H", "3S", "4C", "6D", "5C", "KH", "QC", "4S", "AC", "7H", "3C"]
    table.shoe.prepare(["2S", *cards])
    final = h.round(table, {"dev": [{"type": "player-1", "amount": 1000}],
                            "eli": [{"type": "player-3", "amount": 500}]}, per_round_burn=1)
    rid = final["round_id"]
    hands = [*(f"hand-{n}" for n in range(1, 6)), "banker"] * 2
    # the cards taken while bets were open are hidden, then shown together as betting closes; a
    # card the round took after that (the system was slow to take it) is shown as it is dealt
    told = story(until_end(screens.supervisor, rid, roads=True), rid)
    early = told.index("betting-closed") - 1
    assert early >= 1
    dealt = list(zip(hands, cards, strict=True))
    screens.check(rid, ["round-opened", *(f"card {hand} ?? down" for hand, _ in dealt[:early]), "betting-closed",
                        "reveal " + " ".join(f"{hand} {card}" for hand, card in dealt[:early]),
                        *(f"card {hand} {card} down" for hand, card in dealt[early:]),
                        "round-result", "round-settled", "roads-updated"], roads=True)
    for screen in (screens.supervisor, screens.dealer, *screens.bettors.values(), screens.watcher):
        for card in cards[:early]:
            hidden_until_shown(screen, card, "cards-revealed", rid)
    h.audit_ok()


def test_deluxe_hole_card_is_shown_to_nobody_until_the_dealer_plays(h: Harness) -> None:
    slow = {"timers": {**TIMERS, "decision": 4}}
    table = h.open_table(h.table("dlx"), "deluxe-blackjack", 3, cut_at=300, scan_burn=False, rules=slow)
    h.players["ana"].call("PUT", f"/tables/{table.table_id}/seats/1")
    screens = Watching(h, table.table_id, ("ana", "chloe"))
    table.shoe.prepare(["TS", "7H", "9D", "KC"])  # seat 19; dealer 7 and the hole card K: 17
    final = h.round(table, {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                            "chloe": [{"type": "behind", "seat": 1, "amount": 500}]}, plan={1: ["stand"]})
    rid = final["round_id"]
    screens.check(rid, ["round-opened", "betting-closed", "card seat-1 TS", "card dealer 7H", "card seat-1 9D",
                        "card dealer ?? down", "decision 1 stand", "reveal dealer KC", "round-result",
                        "round-settled"], roads=False)
    for screen in (screens.supervisor, screens.dealer, *screens.bettors.values(), screens.watcher):
        hidden_until_shown(screen, "KC", "cards-revealed", rid)
    prompt = next(e for e in screens.bettors["ana"].events if e.get("round_id") == rid and e["type"] == "waiting-for"
                  and e["kind"] == "decision")
    assert prompt["seat"] == 1 and prompt["seat_hand"] == 0 and "stand" in prompt["legal"]
    h.audit_ok()


def test_classic_blackjack_a_bet_behind_players_answer_is_staff_only(h: Harness) -> None:
    table = h.open_table(h.table("bj"), "blackjack", 4, cut_at=300, rules={"timers": {**TIMERS, "decision": 4}})
    h.players["dev"].call("PUT", f"/tables/{table.table_id}/seats/3")
    screens = Watching(h, table.table_id, ("dev", "eli"))
    table.shoe.prepare(["TS", "7H", "9D", "KC"])
    final = h.round(table, {"dev": [{"type": "seat", "seat": 3, "amount": 2000}],
                            "eli": [{"type": "behind", "seat": 3, "amount": 700}]}, plan={3: ["stand"]})
    rid = final["round_id"]
    screens.check(rid, ["round-opened", "betting-closed", "card seat-3 TS", "card dealer 7H", "card seat-3 9D",
                        "decision 3 stand", "card dealer KC", "round-result", "round-settled"], roads=False)
    h.audit_ok()


def test_a_screen_that_reconnects_gets_the_round_as_it_is_then_what_follows(h: Harness) -> None:
    table = h.open_table(h.table("bac-re"), "baccarat", 5, cut_at=300)
    first = h.screen(h.players["ana"], table.table_id)
    table.shoe.prepare(["2S", "3H", "4D", "5C", "TS", "TH"])  # Player 6, Banker 8: a natural, no draw
    seen: dict[str, Any] = {}

    def reconnect(round_id: str) -> None:
        first.next(lambda e: e.get("round_id") == round_id and e["type"] == "card-dealt", timeout=60)
        first.close()  # the player's phone loses the connection mid-round, and comes back
        again = seen["screen"] = h.watch(h.players["ana"].token, [table.table_id])
        seen["snapshot"] = again.snapshots[table.table_id]

    final = h.round(table, {"ana": [{"type": "banker", "amount": 1000}]}, during=reconnect)
    rid = final["round_id"]
    again, snapshot = seen["screen"], seen["snapshot"]
    assert snapshot["round"]["round_id"] == rid and snapshot["table"]["round_id"] == rid
    later = [e for e in until_end(again, rid, roads=True) if e.get("round_id") == rid and "seq" in e]
    assert later[-1]["type"] == "roads-updated" and later[-2]["type"] == "round-settled"
    # what the snapshot shows plus the events after it (seq above the snapshot's: the ones at or
    # below it were already in it) is every card of the round, none twice, none missing
    at = snapshot["round"]["seq"]
    shown = [c for hand in ("player", "banker") for c in snapshot["round"]["hands"][hand]["cards"]]
    assert len(shown) == at
    after = [e for e in later if e["type"] == "card-dealt" and e["seq"] > at]
    assert [e["seq"] for e in after] == list(range(at + 1, at + 1 + len(after)))
    dealt = sorted([*shown, *(e["card"] for e in after)])
    assert dealt == sorted(final["result"]["player"]["cards"] + final["result"]["banker"]["cards"])
    # the first connection is gone: it no longer watches the table
    watching = {w.get("connection_id") for w in store.query_all(
        store.game_table(), KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": f"WATCH#{table.table_id}"})}
    assert first.connection_id not in watching and again.connection_id in watching



def test_a_dead_connection_is_removed_when_a_push_finds_it_gone(h: Harness) -> None:
    table = h.open_table(h.table("bac-dead"), "baccarat", 6, cut_at=300)
    alive = h.screen(h.players["ben"], table.table_id)
    dead = h.watch(h.players["ana"].token, [table.table_id])
    connection = store.connection_of(dead.connection_id)
    assert connection is not None
    slot = push.slot_at(connection, table.table_id)

    def count() -> int:
        item = store.get(store.game_table(), {"pk": f"WATCH#{table.table_id}", "sk": "SLOTS"}) or {}
        return int(item.get(f"slot{slot:03d}", 0))

    before = count()
    watched_before = {w.connection_id for w in push.watchers(table.table_id, slot)}
    assert dead.connection_id in watched_before and before == len(watched_before)
    h.stack.screens.lose(dead.connection_id)  # no $disconnect: the network just went away
    assert store.get(store.game_table(), {"pk": f"CONN#{dead.connection_id}", "sk": "META"}) is not None
    final = h.round(table, {"ben": [{"type": "player", "amount": 100}]})
    assert final["status"] == "settled"
    alive.next(lambda e: e.get("round_id") == final["round_id"] and e["type"] == "round-settled")
    assert wait_until(lambda: store.get(store.game_table(), {"pk": f"CONN#{dead.connection_id}", "sk": "META"})
                      is None, timeout=30)
    # its watch is gone and its slot's count with it (screens opened meanwhile may share the slot:
    # the count is the slot's watches, whoever they are)
    watching = [w.connection_id for w in push.watchers(table.table_id, slot)]
    assert dead.connection_id not in watching and count() == len(watching)
    assert store.get(store.game_table(), {"pk": f"WATCH#{table.table_id}",
                                          "sk": f"{slot:03d}#{dead.connection_id}"}) is None


def test_a_pause_reaches_every_supervisor_console_at_once(h: Harness) -> None:
    table = h.open_table(h.table("dlx-p"), "deluxe-blackjack", 7, cut_at=300, scan_burn=False,
                         rules={"timers": {**TIMERS, "decision": 10}})
    h.players["ana"].call("PUT", f"/tables/{table.table_id}/seats/1")
    consoles = [h.watch(h.supervisor.token, ["*"]) for _ in range(3)]
    # a screen of the player's own: the harness's player reads its screen too, and a screen's
    # messages are read once, in order, by whoever reads first
    player = h.watch(h.players["ana"].token, [table.table_id])
    table.shoe.prepare(["TS", "7H", "9D", "KC"])
    paused: list[dict[str, Any]] = []

    def pause(round_id: str) -> None:
        player.next(lambda e: e.get("round_id") == round_id and e["type"] == "waiting-for"
                    and e["kind"] == "decision", timeout=60)
        h.supervisor.post(f"/rounds/{round_id}/pause", {"reason": "camera feed lost"})
        for console in consoles:  # every console shows it, each without asking
            paused.append(console.next(lambda e: e.get("round_id") == round_id and e["type"] == "round-paused",
                                       timeout=30))
        h.supervisor.post(f"/rounds/{round_id}/resume", {})

    # the player stays silent: the pause does not race a stand that would end the round first
    final = h.round(table, {"ana": [{"type": "seat", "seat": 1, "amount": 1000}]}, plan={1: [None]},
                    during=pause)
    assert final["status"] == "settled"
    assert [p["reason"] for p in paused] == ["camera feed lost"] * 3
    for console in consoles:
        console.next(lambda e: e.get("round_id") == final["round_id"] and e["type"] == "round-resumed")


def test_a_newcomer_lists_the_tables_joins_mid_shoe_and_draws_its_roads(h: Harness) -> None:
    table = h.open_table(h.table("bac-lobby"), "baccarat", 8, cut_at=300)
    for _ in range(3):
        h.round(table, {"ana": [{"type": "player", "amount": 100}]})
    newcomer = h.client(f"newcomer-{h.n}", "player")
    listed: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = newcomer.get("/tables?limit=5" + (f"&cursor={cursor}" if cursor else ""))
        listed.extend(page["tables"])
        cursor = page.get("cursor")
        if not cursor:
            break
    mine = next(t for t in listed if t["table_id"] == table.table_id)
    assert mine["game"] == "baccarat" and mine["roads"]["rounds"] == 3
    assert "reader_id" not in mine
    history = newcomer.get(f"/tables/{table.table_id}/rounds?limit=2")
    older = newcomer.get(f"/tables/{table.table_id}/rounds?limit=2&cursor={history['cursor']}")
    rounds = [r["round_in_shoe"] for r in history["rounds"] + older["rounds"]]
    assert rounds == [3, 2, 1] and all(r["status"] == "settled" and r["result"] for r in history["rounds"])
    screen = h.watch(newcomer.token, [table.table_id])
    assert screen.snapshots[table.table_id]["table"]["roads"] == mine["roads"]
    beads = mine["roads"]["bead_plate"]["entries"]
    assert [(b["round"], b["column"], b["row"]) for b in beads] == [(1, 0, 0), (2, 0, 1), (3, 0, 2)]
    screen.close()
