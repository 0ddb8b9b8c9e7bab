"""The table is the truth: every game dealt at a real dealer's pace, as a studio deals it.

Four tables play at once, each with a dealer (:class:`croupier.local.dealer.StudioDealer`) who
deals from a physically shuffled shoe at three cards a second and never waits for the system
between cards: the first card at a random moment around the countdown's end (up to 0.3 s before
it, as the dealer's screen shows zero, or after it), Pok Deng's burn and twelve cards while bets
are still open. The card reader sends some scans twice; the queue delivers some events again,
late. Blackjack players watch their screens and answer when it is their turn; the dealer deals
the next card the moment a decision shows on the console.

For every round: the system's cards equal what the dealer dealt, card for card and hand for hand
(the round's record and the table's device log); every bet's net equals the engine's replay of the
physical round; the round never paused and no timer played a hand. Then the whole store audits.
``CROUPIER_TABLE_SPEED_ROUNDS`` sets the rounds per table (default 4).
"""

from __future__ import annotations

import os
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from croupier.app import store
from croupier.app.records import RoundRecord, bet_from_item
from croupier.local.dealer import PhysicalRound, Redeliveries
from croupier.local.studio import Table
from tests.support.harness import TIMERS, Harness

pytestmark = pytest.mark.integration

ROUNDS = int(os.environ.get("CROUPIER_TABLE_SPEED_ROUNDS", "4"))
SPEED = {**TIMERS, "countdown": 3, "decision": 20, "insurance": 2, "follow": 2}
"""Decision timers long enough that only a player's silence could run one out (none is silent)."""

BETS: dict[str, list[dict[str, dict[str, list[dict[str, Any]]]]]] = {
    "baccarat": [{"ana": [{"type": "banker", "amount": 500}, {"type": "tie", "amount": 100}],
                  "ben": [{"type": "player", "amount": 700}, {"type": "player-pair", "amount": 100}],
                  "chloe": [{"type": "banker", "amount": 301, "mode": "no-commission"},
                            {"type": "lucky-6", "amount": 100}, {"type": "small", "amount": 200}]}],
    "pok-deng": [{"dev": [{"type": "player-1", "amount": 500}, {"type": "player-4-pair", "amount": 100}],
                  "eli": [{"type": "player-2", "amount": 300}, {"type": "player-5", "amount": 200}],
                  "fay": [{"type": "player-3", "amount": 1000}]}],
    "deluxe-blackjack": [{"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                          "ben": [{"type": "seat", "seat": 3, "amount": 1000}, {"type": "pair", "seat": 1,
                                                                                 "amount": 100}],
                          "chloe": [{"type": "behind", "seat": 1, "amount": 500},
                                    {"type": "behind", "seat": 3, "amount": 300}]}],
    "blackjack": [{"dev": [{"type": "seat", "seat": 2, "amount": 1000}, {"type": "pair", "seat": 2, "amount": 100}],
                   "eli": [{"type": "seat", "seat": 6, "amount": 2000}],
                   "fay": [{"type": "behind", "seat": 2, "amount": 500}]}],
}
SEATS = {"deluxe-blackjack": {"ana": 1, "ben": 3}, "blackjack": {"dev": 2, "eli": 6}}


def _play_table(h: Harness, game: str, seed: int, redeliveries: Redeliveries) -> list[tuple[dict[str, Any], Any]]:
    table: Table = h.open_table(h.table(f"speed-{game}"), game, seed, cut_at=400,
                                scan_burn=game != "deluxe-blackjack", rules={"timers": SPEED})
    dealer = table.dealer
    dealer.offsets, dealer.resend, dealer.redeliver = (-0.3, 0.3), 0.15, 0.15
    dealer.redeliveries, dealer.rng = redeliveries, random.Random(seed)
    for player, seat in SEATS.get(game, {}).items():
        h.players[player].call("PUT", f"/tables/{table.table_id}/seats/{seat}")
    played = []
    for number in range(ROUNDS):
        final = h.round(table, BETS[game][0], per_round_burn=1 if game == "pok-deng" else 0,
                        label=f"{game} at table speed, round {number + 1}")
        played.append((final, h.physical[final["round_id"]]))
    return played


def _system_bets_and_balances(rnd: RoundRecord) -> tuple[list[Any], dict[str, int] | None]:
    if rnd.game in ("deluxe-blackjack", "blackjack"):
        return [bet_from_item(b) for b in rnd.engine_bets], rnd.balances or None
    return [b.bet for b in store.round_bets(rnd.round_id, rnd.shards)], None


def _check(final: dict[str, Any], physical: PhysicalRound, said: list[str]) -> None:
    """``said``: what the table's harness printed (the players' answers, each refusal in the API's
    words), shown when a hand was played by its timer."""
    round_id = final["round_id"]
    rnd = store.load_round(round_id)
    assert final["status"] == "settled", (round_id, final.get("void_reason"), rnd.history)
    assert not [e for e in rnd.history if "pause" in e], rnd.history
    assert physical.stopped is None
    # the round's cards, in order, are the cards the dealer dealt, each from its device-log entry
    assert [e["card"] for e in rnd.events if "card" in e] == physical.cards
    entries = [e for e in store.log_entries(rnd.table_id) if e.round_id == round_id]
    log = [e for e in entries if e.use == "round"]
    assert [e.card for e in log] == physical.cards
    assert [e.card for e in entries if e.use == "burned"] == physical.burned
    assert [e.n for e in log] == [e["n"] for e in rnd.events if "card" in e]
    # hand by hand: the system's settled hands are the dealer's
    assert rnd.settlement["hands"] == physical.engine.settle().to_dict()["hands"]
    # no hand was played by a timer: every decision came from its player
    assert not [e for e in rnd.events if e.get("action", {}).get("action") == "timeout"], (round_id, said)
    # every bet's net: the engine's replay of the physical round
    bets, balances = _system_bets_and_balances(rnd)
    replayed = physical.replayed_nets(rnd.game, store.round_rules(rnd), rnd.round_in_shoe, bets, balances)
    settled = {b.bet_id: b for b in store.round_bets(round_id, rnd.shards)}
    assert {bet_id: int((b.result or {})["net"]) for bet_id, b in settled.items() if bet_id in replayed} == replayed
    assert all(b.status == "settled" for b in settled.values()), (round_id, [
        (b.bet_id, b.bet.type, b.status, b.result, b.placed_at) for b in settled.values()
        if b.status != "settled"], sorted(replayed), said)


def test_every_game_dealt_at_table_speed_settles_on_exactly_the_cards_dealt(stack: Any) -> None:
    redeliveries = Redeliveries(stack.outputs["table_events_queue"])
    harnesses = {game: Harness(stack) for game in BETS}
    dead_before = stack.dead_letters()
    try:
        with ThreadPoolExecutor(len(BETS)) as pool:  # the four tables at once, as in a studio
            futures = {game: pool.submit(_play_table, harnesses[game], game, 500 + i, redeliveries)
                       for i, game in enumerate(BETS)}
            played = {game: future.result() for game, future in futures.items()}
    finally:
        for harness in harnesses.values():
            harness.close()
    for game, rounds in played.items():
        for final, physical in rounds:
            _check(final, physical, harnesses[game].lines)
    dealers = [h.tables[t].dealer for h in harnesses.values() for t in h.tables]
    first_cards = [p.first_card_offset for rounds in played.values() for _, p in rounds
                   if p.first_card_offset is not None and p.engine.game != "pok-deng"]
    assert any(offset < 0 for offset in first_cards), first_cards  # some came before the countdown's end
    assert sum(d.scans for d in dealers) >= 4 * ROUNDS * 4
    assert redeliveries.sent > 0  # late redeliveries from the queue happened, and changed nothing
    assert stack.dead_letters() == dead_before  # no message of the devices or of the screens failed for good
    next(iter(harnesses.values())).audit_ok()
