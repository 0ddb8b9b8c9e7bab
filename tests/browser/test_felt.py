"""The felt a player recognizes, on a phone-sized screen: a Baccarat round played by tapping chips
onto the felt's spots (no drop-down, no number field), with undo and clear, the bet the server
placed, the countdown on the felt, the result on the spots (the winning spot lit, the bet's
outcome on its spot), the roads drawn as grids, and the last round's bets staked again with one tap."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.local.client import wait_until
from tests.support.browser import Page, deal_beside, void
from tests.support.harness import Harness

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def chips_of(page: Any) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all(".chip", "els => els.map(e => e.dataset.chip)")]


def at_stake(page: Any) -> int:
    return int(page.get_attribute(".at-stake", "data-total") or 0)


def test_a_baccarat_round_played_by_tapping_chips_onto_the_felts_spots_on_a_phone(
        h: Harness, browser: Any) -> None:
    table = h.open_table(h.table("felt-bac"), "baccarat", 41, cut_at=300)
    play = h.supervisor.get(f"/tables/{table.table_id}")["play"]
    ana = h.players["ana"]
    before = h.balance("ana")
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        player = Page(context, h.stack).sign_in("player", ana.subject)
        page = player.page
        page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
        page.wait_for_selector("#balance")
        page.wait_for_selector("#live:not(.off)")
        # no drop-down and no number field to place a bet: a spot for every bet type the server offers
        assert page.query_selector_all(".bet-form select, .bet-form input") == []
        spots = page.eval_on_selector_all(".spot", "els => els.map(e => e.dataset.spot)")
        assert spots == [b["type"] for b in play["bet_types"]]
        # each spot says its limits, in its name (its own text, which is its accessible name)
        labels = page.eval_on_selector_all(
            ".spot", "els => els.map(e => e.hasAttribute('aria-label') ? null : e.textContent)")
        for label, kind in zip(labels, play["bet_types"], strict=True):
            assert f"{kind['min']:,}" in label and f"{kind['max']:,}" in label, label
            assert "null" not in label and "undefined" not in label, label  # nothing missing written as text
        # chips fit the table's limits: from its smallest minimum, none above its largest maximum
        chips = chips_of(page)
        assert chips[0] == min(b["min"] for b in play["bet_types"])
        assert chips == sorted(chips) and chips[-1] <= max(b["max"] for b in play["bet_types"]) and len(chips) > 2
        # the felt fits the phone's width: nothing wider than the screen
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width

        table.shoe.prepare(["9S", "8H", "KD", "KC"])  # Player 9 beats Banker 8
        started = table.console.post(f"/tables/{table.table_id}/rounds")
        page.wait_for_selector(".badge.betting")
        page.wait_for_selector(".felt-board .countdown .timer[role=timer]")  # the countdown, on the felt
        size = page.eval_on_selector(".countdown .timer", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 32, size  # large: a player cannot miss it
        small, unit = chips[0], chips[1]
        page.tap(f".chip[data-chip='{unit}']")
        for _ in range(3):
            page.tap(".spot[data-spot='player']")
        assert at_stake(page) == 3 * unit
        page.tap("button.undo")  # the last chip comes back
        assert at_stake(page) == 2 * unit
        # with the keyboard: a chip and a spot are buttons
        page.focus(f".chip[data-chip='{small}']")
        page.keyboard.press("Enter")
        page.focus(".spot[data-spot='tie']")
        page.keyboard.press("Enter")
        assert at_stake(page) == 2 * unit + small
        assert page.inner_text(".spot[data-spot='tie'] .stake") == f"{small:,}"
        page.tap("button.clear")
        assert at_stake(page) == 0 and page.query_selector(".spot .stake") is None
        page.tap(f".chip[data-chip='{unit}']")
        page.tap(".spot[data-spot='player']")
        page.tap(".spot[data-spot='player']")
        assert page.inner_text(".spot[data-spot='player'] .stake") == f"{2 * unit:,}"
        page.tap("form.bet-form button[type=submit]")
        page.wait_for_selector(".spot[data-spot='player'] .placed-amount")
        # the server placed exactly what was staked
        bets = ana.get(f"/rounds/{started['round_id']}")["bets"]
        assert [(b["type"], int(b["amount"])) for b in bets] == [("player", 2 * unit)]
        assert page.inner_text(".spot[data-spot='player'] .placed-amount") == f"{2 * unit:,}"
        assert at_stake(page) == 0  # placed: nothing left staked

        dealer = deal_beside(h, table.table_id, started)
        page.wait_for_selector(".spot[data-spot='player'] .outcome.win", timeout=40_000)
        assert page.inner_text(".spot[data-spot='player'] .outcome") == f"win +{2 * unit:,}"
        page.wait_for_selector(".spot[data-spot='player'].won")  # the winning spot lit
        assert page.query_selector(".spot[data-spot='banker'].won") is None
        assert page.query_selector(".spot[data-spot='banker'] .outcome") is None  # no bet there
        wait_until(lambda: page.inner_text("#balance") == f"{before + 2 * unit:,}", timeout=30)
        assert h.balance("ana") == before + 2 * unit
        dealer.join(30)
        # the roads, as grids: the round on the bead plate and the big road, at the server's cells
        page.wait_for_selector(".roads .bead-plate .mark.bead-player", timeout=30_000)
        roads = h.supervisor.get(f"/tables/{table.table_id}")["roads"]
        assert page.query_selector_all(".roads .bead-plate .mark") and \
            len(page.query_selector_all(".roads .bead-plate .mark")) == len(roads["bead_plate"]["entries"])
        assert len(page.query_selector_all(".roads .big-road .mark.ring-player")) == \
            len([e for e in roads["big_road"]["entries"] if e["winner"] == "player"])
        for name in ("big_eye_boy", "small_road", "cockroach_pig"):
            assert page.query_selector(f".roads .derived-{name}") is not None

        # the next round: one tap stakes the last round's bets again
        second = table.console.post(f"/tables/{table.table_id}/rounds")
        page.wait_for_selector(".badge.betting")
        page.wait_for_selector("button.rebet:not([disabled])")
        assert page.query_selector(".spot[data-spot='player'] .outcome") is None  # the last result is gone
        page.tap("button.rebet")
        assert at_stake(page) == 2 * unit
        assert page.inner_text(".spot[data-spot='player'] .stake") == f"{2 * unit:,}"
        assert player.errors == []
        void(h, second["round_id"])  # nothing left to pause later
        table.dealer.finish()
    finally:
        context.close()
