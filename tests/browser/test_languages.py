"""The pages in the players' languages: every view in English, Urdu, Hindi, Persian and Thai, as
the browser's preferred language chooses it, shows only strings of its catalogue (a missing one is
reported by the page and fails here), right to left in Urdu and Persian; the switch changes the
language and is remembered; a paused round is told to a player in words of their language, the
card that paused it only to the staff."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from croupier.local.client import wait_until
from tests.support.browser import Page, void
from tests.support.harness import Harness

pytestmark = pytest.mark.browser

CATALOGUES = Path(__file__).resolve().parents[2] / "web" / "i18n"
LOCALES = {"en": "en-US", "ur": "ur-PK", "hi": "hi-IN", "fa": "fa-IR", "th": "th-TH"}
RTL = {"ur", "fa"}


def catalogue(lang: str) -> dict[str, str]:
    return dict(json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8")))


@pytest.fixture
def in_language(browser: Any, h: Harness) -> Iterator[Any]:
    opened: list[Any] = []

    def new(lang: str, **kwargs: Any) -> Page:
        context = browser.new_context(locale=LOCALES[lang], viewport={"width": 1280, "height": 900}, **kwargs)
        opened.append(context)
        return Page(context, h.stack)

    yield new
    for context in opened:
        context.close()


def shown_in(who: Page, lang: str) -> None:
    """The page is in ``lang``: its lang and dir, and nothing missing from its catalogue."""
    page = who.page
    assert page.get_attribute("html", "lang") == lang
    assert page.get_attribute("html", "dir") == ("rtl" if lang in RTL else "ltr")
    missing = [line for line in who.console if "i18n:" in line]
    assert not missing and not who.errors, (lang, missing, who.errors)


@pytest.mark.parametrize("lang", list(LOCALES))
def test_every_view_in_the_language_the_browser_prefers_has_every_string(h: Harness, in_language: Any,
                                                                         lang: str) -> None:
    words = catalogue(lang)
    n = list(LOCALES).index(lang)
    tables = {game: h.open_table(h.table(f"lang-{game}"), game, 60 + 4 * n + i, cut_at=300)
              for i, game in enumerate(("baccarat", "pok-deng", "blackjack"))}
    player = in_language(lang)
    page = player.page
    page.goto(f"{h.stack.web.url}/#/signin")
    page.wait_for_selector("form button[type=submit]")
    assert page.inner_text("h1") == words["signin.local-title"]
    shown_in(player, lang)
    player.sign_in("player", h.players["ana"].subject)
    page.wait_for_selector(f"[data-table='{tables['baccarat'].table_id}']")
    assert page.inner_text("#nav a") == words["nav.lobby"]
    shown_in(player, lang)
    for game, table in tables.items():
        page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
        page.wait_for_selector("#balance")
        page.wait_for_selector("#live:not(.off)")
        assert page.inner_text(".bet-form button[type=submit]") == words["form.place"], game
        if game == "blackjack":
            page.wait_for_selector(".seat-grid")
        shown_in(player, lang)
        page.goto(f"{h.stack.web.url}/#/help/{table.table_id}")  # its help, from its rules
        page.wait_for_selector(".help dl.facts")
        assert page.inner_text(".help h2 >> nth=0") == words["help.limits"], game
        shown_in(player, lang)
    started = tables["baccarat"].console.post(f"/tables/{tables['baccarat'].table_id}/rounds")
    page.goto(f"{h.stack.web.url}/#/table/{tables['baccarat'].table_id}")
    page.wait_for_selector(".badge.betting")
    assert page.inner_text(".badge.betting") == words["status.betting"]
    shown_in(player, lang)
    dealer = in_language(lang).sign_in("dealer", "", table=tables["baccarat"].table_id)
    dealer.page.wait_for_selector("#shoe-phase")
    table_id = tables["baccarat"].table_id
    assert dealer.page.inner_text("h1").startswith(words["dealer.title"].replace("{table}", table_id))
    shown_in(dealer, lang)
    supervisor = in_language(lang).sign_in("supervisor", "supervisor-lang")
    supervisor.page.wait_for_selector("section.supervisor")
    supervisor.page.goto(f"{h.stack.web.url}/#/supervisor?round={started['round_id']}")
    supervisor.page.wait_for_selector(".history")
    shown_in(supervisor, lang)
    void(h, started["round_id"])
    tables["baccarat"].dealer.finish()


def test_the_switch_changes_the_language_and_it_is_remembered(h: Harness, in_language: Any) -> None:
    player = in_language("en").sign_in("player", h.players["ben"].subject)
    page = player.page
    assert page.get_attribute("html", "dir") == "ltr"
    page.select_option("#language", "fa")
    page.wait_for_function("document.documentElement.lang === 'fa'")
    assert page.get_attribute("html", "dir") == "rtl"
    page.wait_for_selector(f"#nav a >> text={catalogue('fa')['nav.lobby']}")
    page.reload()
    page.wait_for_selector("#who button")
    shown_in(player, "fa")  # remembered over the browser's English
    assert page.inner_text("#who button") == catalogue("fa")["nav.sign-out"]


def test_a_paused_round_is_told_to_the_player_in_their_words_and_the_card_only_to_the_staff(
        h: Harness, in_language: Any) -> None:
    table = h.open_table(h.table("lang-pause"), "baccarat", 91, cut_at=300)
    player = in_language("fa").sign_in("player", h.players["chloe"].subject)
    page = player.page
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#live:not(.off)")
    dealer = in_language("en").sign_in("dealer", "", table=table.table_id)
    table.console.post(f"/tables/{table.table_id}/rounds")
    page.wait_for_selector(".badge.betting")
    dealer.page.wait_for_selector(".badge.betting")
    table.devices.scan("7D")  # a card long before the countdown's end: the round pauses
    page.wait_for_selector(".pause", timeout=30_000)
    words = catalogue("fa")
    assert page.get_attribute(".pause", "data-code") == "card-before-betting-closed"
    assert page.inner_text(".pause") == f"{words['pause.title']} {words['pause.card-before-betting-closed']}"
    assert "7D" not in page.inner_text("body")
    dealer.page.wait_for_selector(".tag.warn", timeout=30_000)  # the staff's own reason, with its detail
    wait_until(lambda: dealer.page.wait_for_timeout(200) or "7D" in dealer.page.inner_text("#expected"), timeout=20)
    shown_in(player, "fa")
    void(h, h.supervisor.get(f"/tables/{table.table_id}")["round_id"])
    table.dealer.finish()


def test_a_tables_help_is_read_from_its_rules_and_a_new_pair_paytable_shows_at_once(
        h: Harness, in_language: Any) -> None:
    """The classic blackjack table's help, in Persian: every figure from the table's rules; the
    operator changes the pair paytable through the API and the help shows the new figure."""
    from croupier.rules import load_rules

    table = h.open_table(h.table("lang-help"), "blackjack", 95, cut_at=300)
    before = str(load_rules("blackjack", h.supervisor.get(f"/tables/{table.table_id}")["rules"])
                 .model_dump(mode="json", by_alias=True)["pair_paytable"]["same-rank"])
    reader = in_language("fa").sign_in("player", h.players["dev"].subject)
    page = reader.page
    page.goto(f"{h.stack.web.url}/#/help/{table.table_id}")
    page.wait_for_selector(".help [data-rule='same-rank']")
    persian = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
    assert page.inner_text(".help [data-rule='same-rank']") == before.translate(persian)
    limits = h.supervisor.get(f"/tables/{table.table_id}")["play"]["bet_types"]
    seat = next(b for b in limits if b["type"] == "seat")
    assert page.inner_text(".help tr[data-bet='seat'] td.num >> nth=1") == f"{seat['max']:,}".translate(persian) \
        .replace(",", "٬")
    numerator, denominator = (int(x) for x in before.split(":"))
    changed = f"{numerator + 4}:{denominator}"
    h.operator.call("PATCH", f"/tables/{table.table_id}", {"rules": {"pair_paytable": {"same-rank": changed}}})
    page.reload()
    page.wait_for_selector(".help [data-rule='same-rank']")
    assert page.inner_text(".help [data-rule='same-rank']") == changed.translate(persian)
    shown_in(reader, "fa")
