"""The help's figures from the server in the page (each bet's exact RTP, Baccarat's drawing rules)
and the supervisor's search by player, in the browser on the local stack."""

from __future__ import annotations

from typing import Any

import pytest

from croupier.games.baccarat import banker_draws
from tests.support.browser import Page, filter_and_open_history, settled_baccarat_round
from tests.support.harness import Harness

pytestmark = pytest.mark.browser


def missing_strings(who: Page) -> list[str]:
    return [line for line in who.console if "i18n:" in line]


def test_the_baccarat_help_draws_the_engines_tableau_and_a_new_pair_paytable_changes_its_rtp(
        h: Harness, pages: Any, browser: Any) -> None:
    table = h.open_table(h.table("help-web"), "baccarat", 31, cut_at=300)
    reader = pages().sign_in("player", h.players["dev"].subject)
    page = reader.page
    page.goto(f"{h.stack.web.url}/#/help/{table.table_id}")
    page.wait_for_selector(".help tr[data-rtp='player-pair']")
    cells = page.eval_on_selector_all(".banker-table tr[data-banker] td", "els => els.map(e => e.className)")
    assert cells == ["draws" if banker_draws(b, p) else "stands" for b in range(8) for p in range(10)]
    assert page.inner_text(".help tr[data-rtp='banker'] td.num >> nth=0") == "98.9421%"  # the published 98.94%
    assert page.inner_text(".help tr[data-rtp='player-pair'] td.num >> nth=0") == "89.6386%"
    assert page.inner_text(".help [data-rule='player_pair']") == "11:1"
    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"payouts": {"player_pair": "25:1"}}})
    page.reload()
    page.wait_for_selector(".help [data-rule='player_pair'] >> text=25:1")
    assert page.inner_text(".help tr[data-rtp='player-pair'] td.num >> nth=0") == "194.2169%"  # 26 x 31/415
    assert page.inner_text(".help tr[data-rtp='banker-pair'] td.num >> nth=0") == "89.6386%"
    assert not missing_strings(reader) and reader.errors == []
    thai = Page(browser.new_context(locale="th-TH", viewport={"width": 1280, "height": 900}), h.stack)
    try:
        thai.sign_in("player", h.players["dev"].subject)
        thai.page.goto(f"{h.stack.web.url}/#/help/{table.table_id}")
        thai.page.wait_for_selector(".banker-table")
        assert thai.page.get_attribute("html", "lang") == "th"
        assert not missing_strings(thai) and thai.errors == [], missing_strings(thai)
    finally:
        thai.context.close()


def test_the_supervisor_searches_a_players_rounds_and_opens_a_settled_ones_history(h: Harness, pages: Any) -> None:
    settled = settled_baccarat_round(h, "web-search", 33, "chloe", {"type": "player", "amount": 700})
    supervisor = pages().sign_in("supervisor", "supervisor-search")
    page = supervisor.page
    page.wait_for_selector("#rounds-player")
    page.fill("#rounds-player", h.players["chloe"].subject)
    page.click(".round-search button[type=submit]")
    page.wait_for_selector(f"[data-history='{settled['round_id']}']")
    assert settled["table_id"] in page.inner_text(f"tr[data-round='{settled['round_id']}']")
    assert "9S 8H KD KC" in filter_and_open_history(page, settled["round_id"])
    assert not missing_strings(supervisor) and supervisor.errors == []
