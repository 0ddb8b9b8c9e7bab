"""What each role may see (croupier.app.visibility), rule by rule: a face-down card is "??" to
every role until its round reveals it, whatever state its device-log entry is in; a dealer
console is staff only at its own table; a pause reaches players as words; and a push message's
id is made from nothing its recipient may not see."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from croupier.app import push
from croupier.app.identity import Identity
from croupier.app.records import LogEntry, RoundRecord, RoundStatus
from croupier.app.visibility import (
    HIDDEN,
    PAUSE_WORDS,
    event_for,
    log_card,
    may_receive,
    pause_reason,
    staff_of,
    unplaced_hidden,
)
from croupier.games import new_round
from croupier.games.base import Bet, RoundEngine
from tests.support.records import a_round

SUPERVISOR = Identity("s", "supervisor")
OPERATOR = Identity("o", "operator")
CONSOLE = Identity("c", "dealer", table="pd-1")
OTHER_CONSOLE = Identity("c2", "dealer", table="pd-2")
PLAYER = Identity("ana", "player")
EVERYONE = (SUPERVISOR, OPERATOR, CONSOLE, OTHER_CONSOLE, PLAYER)


def _round(game: str, status: str, cards: list[str]) -> tuple[RoundRecord, RoundEngine]:
    bets = [Bet("b1", "ana", "seat", 1000, seat=1)] if "blackjack" in game else []
    engine = new_round(game, bets, validate=False)
    for card in cards:
        engine.deal(card)
    return a_round(table_id="pd-1", game=game, status=RoundStatus(status)), engine


def _lookup(rnd: RoundRecord | None, engine: RoundEngine | None) -> Any:
    return lambda round_id: (rnd, engine) if round_id == "r1" else (None, None)


def test_a_dealer_console_is_staff_only_at_its_own_table() -> None:
    assert staff_of(CONSOLE, "pd-1") and not staff_of(OTHER_CONSOLE, "pd-1")
    assert staff_of(SUPERVISOR, "pd-1") and staff_of(OPERATOR, "pd-1") and not staff_of(PLAYER, "pd-1")
    assert not staff_of(Identity("c3", "dealer"), "pd-1")  # a console that names no table
    staff_event = {"type": "device-event", "table_id": "pd-1", "audience": "staff"}
    assert [may_receive(staff_event, who) for who in EVERYONE] == [True, True, True, False, False]


def _entry(fields: dict[str, Any]) -> LogEntry:
    """A device-log entry of table t1 with these fields (its place and key do not matter here)."""
    return LogEntry.recorded("t1", {"n": 1, "key": "scan-1", "at": 0, **fields})


@pytest.mark.parametrize("status", ["betting", "closing"])
def test_pok_deng_cards_are_hidden_in_every_log_state_while_bets_are_open(status: str) -> None:
    rnd, engine = _round("pok-deng", status, ["9D", "2H", "3S"])
    lookup = _lookup(rnd, engine)
    entries = [
        {"kind": "card-scanned", "card": "9D", "state": "taken", "use": "round", "face_up": False, "round_id": "r1"},
        {"kind": "card-scanned", "card": "4C", "state": "pending"},  # not taken yet
        {"kind": "card-scanned", "card": "5C", "state": "pending", "blocked": "card ?? came ..."},
        {"kind": "card-scanned", "card": "6C", "state": "held"},
        {"kind": "card-scanned", "card": "7C", "state": "refused", "reason": "a ninth copy"},
        {"kind": "card-scanned", "card": "8C", "state": "taken", "use": "burned", "face_up": False,
         "round_id": "r1"},
        {"kind": "card-scanned", "card": "TC", "state": "taken", "use": "round", "round_id": "r1"},  # face unknown
    ]
    assert [log_card(_entry(e), lookup, "r1") for e in entries] == [HIDDEN] * len(entries)


def test_once_betting_closed_pok_deng_cards_show_but_a_burned_card_never() -> None:
    rnd, engine = _round("pok-deng", "playing", ["9D"])
    lookup = _lookup(rnd, engine)
    taken = {"kind": "card-scanned", "card": "9D", "state": "taken", "use": "round", "face_up": False,
             "round_id": "r1"}
    burned = {"kind": "card-scanned", "card": "8C", "state": "taken", "use": "burned", "face_up": False,
              "round_id": "r1"}
    pending = {"kind": "card-scanned", "card": "4C", "state": "pending"}
    assert [log_card(_entry(e), lookup, "r1") for e in (taken, burned, pending)] == ["9D", HIDDEN, HIDDEN]


def test_the_deluxe_hole_card_is_hidden_until_revealed_and_a_pending_card_always() -> None:
    entry = {"kind": "card-scanned", "card": "KC", "state": "taken", "use": "round", "face_up": False,
             "round_id": "r1"}
    rnd, engine = _round("deluxe-blackjack", "playing", ["TS", "7H", "9D", "KC"])  # seat 1 decides
    assert log_card(_entry(entry), _lookup(rnd, engine), "r1") == HIDDEN
    assert log_card(_entry(entry), _lookup(replace(rnd, status=RoundStatus.SETTLED), engine), "r1") == "KC"
    # the next card is the hole card: a card scanned now (a pause: pending for its whole length),
    # or kept by the supervisor, is hidden from everyone
    waiting, engine = _round("deluxe-blackjack", "playing", ["TS", "7H", "9D"])
    for state in ("pending", "held"):
        assert log_card(_entry({"kind": "card-scanned", "card": "KC", "state": state}), _lookup(waiting, engine),
                        "r1") == HIDDEN
    # a card out of turn while seat 1 decides (the hole card is down, the next card face up): staff see it
    assert log_card(_entry({"kind": "card-scanned", "card": "2C", "state": "pending", "blocked": "..."}),
                    _lookup(rnd, _round("deluxe-blackjack", "playing", ["TS", "7H", "9D", "KC"])[1]), "r1") == "2C"


def test_a_face_up_card_and_an_unplaced_card_with_nothing_face_down_next_show() -> None:
    rnd, engine = _round("baccarat", "playing", ["9S"])
    lookup = _lookup(rnd, engine)
    face_up = {"kind": "card-scanned", "card": "9S", "state": "taken", "use": "round", "face_up": True,
               "round_id": "r1"}
    held = {"kind": "card-scanned", "card": "2C", "state": "held"}
    stray = {"kind": "card-scanned", "card": "5S", "state": "not-taken"}
    assert [log_card(_entry(e), lookup, "r1") for e in (face_up, held)] == ["9S", "2C"]
    assert log_card(_entry(stray), _lookup(None, None), None) == "5S"  # between rounds: nothing face down
    assert log_card(_entry(held), _lookup(None, None), "gone") == HIDDEN  # its round cannot be read: unsure
    assert not unplaced_hidden(None, None)
    assert unplaced_hidden(replace(rnd, game="pok-deng", status=RoundStatus.BETTING), None)


def test_players_read_a_pause_in_words_and_the_tables_staff_read_the_reason() -> None:
    rnd = a_round(table_id="pd-1", paused=True, pause_code="card-before-betting-closed",
                  pause_reason="card AH (scan 724f, log #14) came 7.0 s before betting closed")
    words = PAUSE_WORDS["card-before-betting-closed"]
    assert [pause_reason(rnd, who) for who in EVERYONE] == [rnd.pause_reason] * 3 + [words, words]
    event = {"type": "round-paused", "table_id": "pd-1", "round_id": "r1", "audience": "public",
             "reason": rnd.pause_reason, "code": "card-before-betting-closed",
             "blocked_by": {"n": 14, "scan_id": "724f", "card": "AH"}, "staff_fields": ["blocked_by"]}
    for who in (PLAYER, OTHER_CONSOLE):
        seen = event_for(event, who)
        assert seen["reason"] == words and "blocked_by" not in seen and "staff_fields" not in seen
        assert "AH" not in str(seen) and "724f" not in str(seen) and "14" not in str(seen)
    assert event_for(event, CONSOLE)["blocked_by"]["card"] == "AH"


def test_a_message_id_names_its_delivery_not_its_content() -> None:
    # the same source (a stream record retried) gives the same id; two sources never share one
    assert push.message_id("record-1") == push.message_id("record-1")
    assert push.message_id("record-1") != push.message_id("record-2")
    # nothing of a message's content goes into its id: without a source, each message is fresh
    assert push.message_id(None) != push.message_id(None)
    assert len({push.message_id(f"r{n}") for n in range(1000)}) == 1000
