"""Every view is accessible, in a left-to-right language (English) and a right-to-left one (Urdu):
axe-core (npm, pinned in package-lock.json) runs on the sign-in, the lobby, the table of each game
(with a round's betting open at one), each table's help, the dealer console, the supervisor's
console and a round's history, and any serious or critical violation fails the test; and every
control of each view is reached from the keyboard (Tab, in the page's order). Every control of the
pages is a native one (a link, a button, a field), so reached is usable: Enter or Space."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Page, void
from tests.support.harness import Harness

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
LOCALES = {"en": "en-US", "ur": "ur-PK"}
SEVERE = {"serious", "critical"}

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary}`) }));
}"""

# The view's controls, each tagged with a number: what Tab should reach.
CONTROLS = """() => {
  const seen = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden";
  const controls = [...document.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]")]
    .filter((el) => seen(el) && !el.disabled && el.tabIndex >= 0 && !el.closest("[inert], [hidden]"));
  controls.forEach((el, i) => { el.dataset.a11y = String(i); });
  return controls.length;
}"""

# The controls tagged that are still on the page and were never focused.
MISSED = """(focused) => [...document.querySelectorAll("[data-a11y]")]
  .filter((el) => el.isConnected && !el.disabled && !focused.includes(el.dataset.a11y))
  .map((el) => el.outerHTML.slice(0, 120))"""


@pytest.fixture
def in_language(browser: Any, h: Harness) -> Any:
    opened: list[Any] = []

    def new(lang: str) -> Page:
        context = browser.new_context(locale=LOCALES[lang], viewport={"width": 1280, "height": 900})
        opened.append(context)
        return Page(context, h.stack)

    yield new
    for context in opened:
        context.close()


def violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is."""
    if not AXE.exists():
        pytest.fail("axe-core is missing (node_modules/axe-core): `make setup` installs it (npm ci)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return [v for v in page.evaluate(RUN_AXE) if v["impact"] in SEVERE]


def unreachable(page: Any) -> list[str]:
    """The view's controls that Tab, from the top of the page, never focuses."""
    count = page.evaluate(CONTROLS)
    # Tab starts from the top: a sentinel before everything, focused (and removed at the end)
    page.evaluate("""() => { const start = document.createElement("span"); start.id = "a11y-start"; start.tabIndex = -1;
      document.body.prepend(start); start.focus(); }""")
    focused: list[str] = []
    # a control may hold several stops of its own (a date and time field: one for each of its parts,
    # up to 7), so Tab is pressed until every control was focused, within 8 stops a control
    for _ in range(8 * count + 10):
        page.keyboard.press("Tab")
        tag = page.evaluate("() => document.activeElement?.dataset?.a11y ?? null")
        if tag is not None and tag not in focused:
            focused.append(tag)
            if len(focused) == count:
                break
    missed: list[str] = page.evaluate(MISSED, focused)
    page.evaluate("""() => { document.getElementById("a11y-start")?.remove();
      document.querySelectorAll("[data-a11y]").forEach((el) => { delete el.dataset.a11y; }); }""")
    return missed


class Audit:
    """Every view's findings, gathered: the test then names them all at once."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.found: list[str] = []

    def view(self, who: Page, name: str) -> None:
        assert who.page.get_attribute("html", "lang") == self.lang
        for v in violations(who.page):
            self.found.append(f"[{self.lang}] {name}: {v['impact']} {v['id']} ({v['help']}): " + "; ".join(v["nodes"]))
        for html in unreachable(who.page):
            self.found.append(f"[{self.lang}] {name}: not reached with Tab: {html}")
        assert not who.errors, (name, who.errors)


@pytest.mark.parametrize("lang", list(LOCALES))
def test_every_view_passes_axe_and_every_control_is_reached_from_the_keyboard(
        h: Harness, in_language: Any, lang: str) -> None:
    n = list(LOCALES).index(lang)
    games = ("baccarat", "pok-deng", "blackjack", "deluxe-blackjack")
    tables = {game: h.open_table(h.table(f"a11y-{game}"), game, 120 + 4 * n + i, cut_at=300)
              for i, game in enumerate(games)}
    audit = Audit(lang)
    player = in_language(lang)
    page, web = player.page, h.stack.web.url
    page.goto(f"{web}/#/signin")
    page.wait_for_selector("form button[type=submit]")
    audit.view(player, "sign-in")
    player.sign_in("player", h.players["ana"].subject)
    page.wait_for_selector(f"[data-table='{tables['baccarat'].table_id}']")
    audit.view(player, "lobby")
    for game, table in tables.items():
        page.goto(f"{web}/#/table/{table.table_id}")
        page.wait_for_selector("#balance")
        page.wait_for_selector("#live:not(.off)")
        if "blackjack" in game:
            page.wait_for_selector(".seat-grid")
        audit.view(player, f"table ({game})")
        page.goto(f"{web}/#/help/{table.table_id}")
        page.wait_for_selector(".help dl.facts")
        audit.view(player, f"help ({game})")
    baccarat = tables["baccarat"].table_id
    started = tables["baccarat"].console.post(f"/tables/{baccarat}/rounds")
    try:
        page.goto(f"{web}/#/table/{baccarat}")
        page.wait_for_selector(".badge.betting")
        page.wait_for_selector(".chip")
        audit.view(player, "table (baccarat, betting open)")
        dealer = in_language(lang).sign_in("dealer", "", table=baccarat)
        dealer.page.wait_for_selector("#shoe-phase")
        audit.view(dealer, "dealer")
        supervisor = in_language(lang).sign_in("supervisor", f"supervisor-a11y-{lang}")
        supervisor.page.wait_for_selector("section.supervisor")
        audit.view(supervisor, "supervisor")
        supervisor.page.goto(f"{web}/#/supervisor?round={started['round_id']}")
        supervisor.page.wait_for_selector(".history")
        audit.view(supervisor, "round history")
    finally:
        void(h, started["round_id"])
        tables["baccarat"].dealer.finish()
    assert not audit.found, "\n".join(audit.found)
