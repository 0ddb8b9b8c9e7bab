"""Cards that reach the dealing function late: the devices' queue is a standard SQS queue, so an
event can arrive long after it was sent, or again after a receiver died. The bus event's time
(``sent_at``) says when the device sent it; a card sent a whole second or more before the moment
that matters is not taken where it would otherwise land.

- Before its round opened (decision 0073): the round pauses as a card out of turn, its hands
  untouched, and the supervisor says what the card was.
- Before its shoe was shuffled (decision 0075): a card of an earlier shoe, not taken and not
  counted in this one; nothing pauses.
- A time later than the event's recording (decision 0076) is a device's own, from a clock ahead
  of AWS's: it cannot say when the event was sent, and the event is kept refused (a card's round
  pauses for it).

Both rules were found by the simulated world (``tests/unit/test_chaos.py`` keeps those worlds);
these tests state them on one table, step by step.
"""

from __future__ import annotations

import uuid

import pytest

from croupier.app import rounds, store, tables, workflow
from croupier.app.errors import StateConflict
from croupier.app.records import LogEntry, RoundStatus
from tests.support.direct import Direct, device_event
from tests.support.harness import TIMERS
from tests.support.patching import in_this_thread

pytestmark = pytest.mark.reliability


def _last_entry(table_id: str) -> LogEntry:
    return store.log_entries(table_id)[-1]


def _shuffled_table(direct: Direct, sent_at: int) -> str:
    """A baccarat table whose shoe was shuffled by an event the bus timed at ``sent_at``."""
    table_id = f"{direct.tag}-late{uuid.uuid4().hex[:6]}"
    tables.create_table("baccarat", {"timers": dict(TIMERS)}, f"reader-{table_id}", table_id)
    device_event("shoe-shuffled", {"table_id": table_id, "shoe_id": f"shoe-{uuid.uuid4().hex[:8]}"},
                 sent_at=sent_at)
    return table_id


def _round_with_a_bet(direct: Direct) -> tuple[str, str, int]:
    """A baccarat table's round taking bets, with a bet in it: the table, the round and when it
    opened."""
    table = direct.table("baccarat")
    round_id = direct.start(table)
    direct.bet(table, direct.player("p"), [{"type": "banker", "amount": 100}])
    return table, round_id, store.load_round(round_id).created_at


def test_a_card_sent_before_its_round_opened_pauses_the_round_and_leaves_its_hands_alone(direct: Direct) -> None:
    # GIVEN a round taking bets, with a bet in it
    table, round_id, opened = _round_with_a_bet(direct)
    # WHEN a card sent two seconds before the round opened reaches the dealing function now
    direct.scan(table, "9H", sent_at=opened - 2000)
    # THEN the round is paused as a card out of turn, the card is in no hand, and it waits in the log
    rnd = store.load_round(round_id)
    assert rnd.paused and rnd.pause_code == "card-out-of-turn", rnd
    assert "before round" in str(rnd.pause_reason)
    assert [e for e in rnd.events if "card" in e] == []
    assert _last_entry(table).state == "pending"


def test_a_press_again_starts_the_workflow_of_a_round_a_late_card_paused_before_it_had_one(
        direct: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by ``croupier chaos --rounds 20000 --seed 71 --house-rules`` (world 71/66, Deluxe
    Blackjack, on 857a0d3): an "open round" died after its write, before its workflow started; a
    card of the round before, voided a moment earlier, came late and paused the new round (closing
    its betting) before the dealer pressed again. The press started a missing workflow only for a
    round in betting (decision 0074), so it was refused as "round in play" and nothing else: the
    round stayed paused for ever (no workflow, so no timer to void it), its table held."""
    # GIVEN a round whose "open round" died after its write, before its workflow started
    table = direct.table("baccarat")

    def died(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the function died before it started the round's workflow")

    in_this_thread(monkeypatch).setattr(workflow, "start_round", died)
    with pytest.raises(RuntimeError):
        rounds.start_round(table)
    round_id = str(store.load_table(table).round_id)
    # and a card of the round before, sent before this one opened, that pauses it (and closes its betting)
    direct.scan(table, "9H", sent_at=store.load_round(round_id).created_at - 2000)
    paused = store.load_round(round_id)
    assert paused.paused and paused.status == RoundStatus.PLAYING, paused
    # WHEN the dealer presses "open round" again
    started: list[str] = []
    in_this_thread(monkeypatch).setattr(workflow, "start_round", lambda rnd, *_: started.append(rnd) or "")
    with pytest.raises(StateConflict) as refused:
        rounds.start_round(table)
    # THEN the press is refused as "round in play", and it started the round's workflow, whose
    # timer voids the paused round unless a supervisor resumes it first
    assert refused.value.reason == "round-in-play"
    assert started == [round_id]


def test_the_streams_record_of_a_rounds_opening_starts_the_workflow_its_opening_did_not(
        direct: Direct, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decision 0078: a round whose "open round" died after its write, before its workflow started,
    and whose dealer does not press again (the console shows the round open) got no workflow: never
    settled, its table held. The live function, handed every change of the game table by its stream
    until it is handled, starts the workflow of each round it sees opened, with the input the
    opening gives it (a running execution answers such a start as itself)."""
    # GIVEN a round whose "open round" died after its write, before its workflow started
    table = direct.table("baccarat")
    started: list[tuple[object, ...]] = []

    def died(*args: object) -> str:
        raise RuntimeError("the function died before it started the round's workflow")

    patch = in_this_thread(monkeypatch)
    patch.setattr(workflow, "start_round", died)
    with pytest.raises(RuntimeError):
        rounds.start_round(table)
    opened = store.load_round(str(store.load_table(table).round_id))
    patch.setattr(workflow, "start_round", lambda *args: started.append(args) or "")
    # WHEN the live function is handed the round's first write, THEN it starts the round's workflow,
    # with the input the opening gives it (its countdown: the tests' tables count down from TIMERS)
    image = store.plain(opened.item())
    assert rounds.opened(None, image) is True
    assert started == [(opened.round_id, table, TIMERS["countdown"])]
    # and a later write of the round, or the table's opening write, starts nothing
    assert rounds.opened(image, {**image, "version": image["version"] + 1}) is False
    assert rounds.opened(None, store.plain(store.load_table(table).item())) is False
    assert len(started) == 1


def test_a_card_sent_in_the_second_its_round_opened_is_the_rounds(direct: Direct) -> None:
    # GIVEN a round whose betting is over
    table, round_id, opened = _round_with_a_bet(direct)
    direct.play(round_id, table, [], until=lambda step: step["kind"] == "card")
    # WHEN its first card was sent less than a second before the opening (the bus gives seconds)
    direct.scan(table, "9H", sent_at=opened - 999)
    # THEN it is the round's first card
    rnd = store.load_round(round_id)
    assert not rnd.paused
    assert [e["card"] for e in rnd.events if "card" in e] == ["9H"]
    assert _last_entry(table).state == "taken"


def test_a_card_sent_before_its_shoe_was_shuffled_is_neither_taken_nor_counted(direct: Direct) -> None:
    # GIVEN a shoe shuffled at a known moment, waiting for its burn indicator
    shuffled = store.now_ms()
    table = _shuffled_table(direct, shuffled)
    before = store.load_table(table).shoe
    # WHEN a card of the previous shoe, sent five seconds before the shuffle, arrives now
    direct.scan(table, "KD", sent_at=shuffled - 5000)
    # THEN it is not taken, the shoe counts nothing, and the console is told why
    entry = _last_entry(table)
    assert entry.state == "not-taken"
    assert "before shoe" in str(entry.reason)
    assert store.load_table(table).shoe == before
    # AND the next card, sent after the shuffle, is the shoe's burn indicator as usual
    direct.scan(table, "AC", sent_at=shuffled + 1000)
    after = store.load_table(table).shoe
    assert _last_entry(table).state == "taken"
    assert after["counts"] == {"AC": 1} and after["phase"] != before["phase"]


def test_a_card_sent_in_the_second_its_shoe_was_shuffled_is_the_shoes(direct: Direct) -> None:
    # GIVEN a shoe shuffled at a known moment
    shuffled = store.now_ms()
    table = _shuffled_table(direct, shuffled)
    # WHEN the burn indicator was sent less than a whole second before the shuffle's time
    direct.scan(table, "AC", sent_at=shuffled - 999)
    # THEN it is the shoe's burn indicator
    assert _last_entry(table).state == "taken"
    assert store.load_table(table).shoe["counts"] == {"AC": 1}


def test_a_late_card_of_an_earlier_shoe_does_not_pause_the_round_being_dealt(direct: Direct) -> None:
    # GIVEN a round of a shoe shuffled at a known moment, betting over, waiting for its first card
    shuffled = store.now_ms()
    table = _shuffled_table(direct, shuffled)
    direct.scan(table, "AC", sent_at=shuffled)
    device_event("burn-done", {"table_id": table})
    player = direct.player("p")
    round_id = direct.start(table)
    direct.bet(table, player, [{"type": "banker", "amount": 100}])
    direct.play(round_id, table, [], until=lambda step: step["kind"] == "card")
    counts = store.load_table(table).shoe["counts"]
    # WHEN a card sent before the shuffle arrives (one of a round of the previous shoe)
    direct.scan(table, "KD", sent_at=shuffled - 60_000)
    # THEN the round is not paused, holds no card, and the shoe's counts are as they were
    rnd = store.load_round(round_id)
    assert not rnd.paused and rnd.status == RoundStatus.PLAYING
    assert [e for e in rnd.events if "card" in e] == []
    assert store.load_table(table).shoe["counts"] == counts
    assert _last_entry(table).state == "not-taken"


def test_a_card_timed_by_a_clock_ahead_of_aws_is_refused_and_its_round_paused(direct: Direct) -> None:
    # GIVEN a round whose betting is over, waiting for its first card
    table, round_id, _ = _round_with_a_bet(direct)
    direct.play(round_id, table, [], until=lambda step: step["kind"] == "card")
    # WHEN its first card comes with a time three seconds after it reaches the table (a reader that
    # sets the bus event's time from a clock of its own, ahead of AWS's)
    direct.scan(table, "9H", sent_at=store.now_ms() + 3000)
    # THEN the card is kept, refused for its time, in no hand, and the round is paused for it
    entry = _last_entry(table)
    assert entry.state == "refused" and "clock is ahead" in str(entry.clock_ahead), entry
    assert entry.reason == entry.clock_ahead
    rnd = store.load_round(round_id)
    assert rnd.paused and rnd.pause_code == "card-refused", rnd
    assert [e for e in rnd.events if "card" in e] == []


def test_a_shuffle_timed_by_a_clock_ahead_of_aws_is_refused(direct: Direct) -> None:
    # GIVEN a new table; WHEN its shuffle comes timed five seconds after it reaches the table (a
    # shoe shuffled "later" would refuse the reader's next cards as sent before it)
    table = _shuffled_table(direct, store.now_ms() + 5000)
    # THEN the shuffle is kept, refused, and the table has no shoe; one timed within the second is taken
    assert _last_entry(table).state == "refused" and store.load_table(table).shoe is None
    device_event("shoe-shuffled", {"table_id": table, "shoe_id": "shoe-in-time"}, sent_at=store.now_ms() + 1000)
    assert _last_entry(table).state == "taken" and store.load_table(table).shoe["shoe_id"] == "shoe-in-time"
