"""Screenshots of the browser views, and the page's figures (``make screenshots``).

Starts a local stack, plays a Baccarat round (for the roads), then takes each view in Debian's
Chromium (Playwright): the lobby, a player's Deluxe table mid-round (the player's decision, the
hole card face down), the dealer console and the supervisor console with a paused round and a
settled round's history, the Pok Deng table in Urdu, the Baccarat felt on a phone (390 by 844:
chips on its spots, the countdown, the roads) and a table's help in Persian. Writes
``docs/screenshots/*.png`` and prints the assets' bytes (raw and gzip) and the lobby's first
contentful paint (``performance.getEntriesByType('paint')``).

    .venv/bin/python scripts/screenshots.py [--figures-only] [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMERS = {"countdown": 6, "decision": 60, "follow": 4, "insurance": 3, "pause_void": 120}


def asset_sizes(folder: Path) -> tuple[int, int, int]:
    """The page's files: how many, their bytes, and their bytes gzipped one by one (as served)."""
    files = [p for p in folder.rglob("*") if p.is_file() and p.suffix in (".html", ".css", ".js")]
    raw = sum(p.stat().st_size for p in files)
    zipped = sum(len(gzip.compress(p.read_bytes(), 9)) for p in files)
    return len(files), raw, zipped


def first_paint(browser: Any, url: str, runs: int = 5) -> tuple[float, float]:
    """The median first contentful paint and load of a signed-out visit (ms), fresh context each."""
    paints, loads = [], []
    for _ in range(runs):
        context = browser.new_context()
        page = context.new_page()
        page.goto(url, wait_until="load")
        page.wait_for_timeout(200)
        entries = page.evaluate("() => performance.getEntriesByType('paint').map(e => [e.name, e.startTime])")
        paints.append(dict(entries)["first-contentful-paint"])
        loads.append(page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd"))
        context.close()
    return statistics.median(paints), statistics.median(loads)


def sign_in(browser: Any, web: str, role: str, subject: str, table: str | None = None, locale: str = "en-US",
            viewport: tuple[int, int] = (1280, 860)) -> Any:
    """A page signed in, in a browser whose preferred language is ``locale``."""
    width, height = viewport
    page = browser.new_context(viewport={"width": width, "height": height}, locale=locale).new_page()
    page.on("pageerror", lambda exc: print("page error:", exc))
    page.on("console", lambda m: print("console:", m.text) if m.type in ("error", "warning") else None)
    from croupier.local.web import sign_in as fill_sign_in

    fill_sign_in(page, web, role, subject, table)
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--figures-only", action="store_true", help="only the assets' bytes and the first paint")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from croupier.app import store, workflow
    from croupier.games.base import Bet
    from croupier.local.demo import Demo
    from croupier.local.stack import LocalStack

    count, raw, zipped = asset_sizes(ROOT / "web")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with LocalStack(ROOT) as stack, sync_playwright() as playwright:
        store.reset_clients()
        workflow.reset_clients()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        paint, load = first_paint(browser, f"{stack.web.url}/")
        print(f"assets: {count} files, {raw:,} bytes, {zipped:,} bytes gzipped (each file, gzip -9)")
        print(f"first contentful paint {paint:.0f} ms, load {load:.0f} ms (median of 5, local stack, Chromium "
              f"{browser.version})")
        if args.figures_only:
            browser.close()
            return 0
        demo = Demo(stack, out=lambda line: None, timers=dict(TIMERS))
        demo.fund()
        bac = demo.open_table("bac-1", "baccarat", 31, cut_at=300)
        for cards in (["9S", "8H", "KD", "KC"], ["2S", "3H", "4D", "5C", "TS", "TH"]):
            bac.shoe.prepare(cards)
            demo.round(bac, {"ana": [{"type": "banker", "amount": 1000}]})
        settled = demo.supervisor.get("/tables/bac-1")["round_id"]
        demo.open_table("pd-1", "pok-deng", 32, cut_at=300)
        dlx = demo.open_table("dlx-1", "deluxe-blackjack", 33, cut_at=300, scan_burn=False)
        ana, ben = demo.players["ana"], demo.players["ben"]
        ana.call("PUT", "/tables/dlx-1/seats/1")
        ben.call("PUT", "/tables/dlx-1/seats/3")
        dlx.shoe.prepare(["6S", "TD", "7H", "5D", "9C", "KC", "9H"])
        started = dlx.console.post("/tables/dlx-1/rounds")
        ana.post("/tables/dlx-1/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]}, idempotent=True)
        ben.post("/tables/dlx-1/bets", {"bets": [{"type": "seat", "seat": 3, "amount": 2500}]}, idempotent=True)
        bets = [Bet(b["bet_id"], c.subject, b["type"], int(b["amount"]), b.get("seat"))
                for c in (ana, ben) for b in c.get(f"/rounds/{started['round_id']}")["bets"]]
        player = sign_in(browser, stack.web.url, "player", ana.subject)
        player.wait_for_selector("[data-table='pd-1']")
        player.wait_for_selector("#live:not(.off)")
        player.wait_for_timeout(300)
        player.screenshot(path=str(out / "lobby.png"), full_page=True)
        player.goto(f"{stack.web.url}/#/table/dlx-1")
        dealer_thread = threading.Thread(target=dlx.dealer.deal, args=(started, bets), daemon=True)
        dealer_thread.start()
        player.wait_for_selector(".ask.yours button[data-action=double]", timeout=60_000)
        player.wait_for_timeout(600)
        player.screenshot(path=str(out / "player-table.png"), full_page=True)
        console = sign_in(browser, stack.web.url, "dealer", "", table="dlx-1")
        console.wait_for_selector("#expected >> text=decides", timeout=30_000)
        console.wait_for_timeout(600)
        console.screenshot(path=str(out / "dealer-console.png"), full_page=True)
        supervisor = sign_in(browser, stack.web.url, "supervisor", "supervisor-1")
        supervisor.goto(f"{stack.web.url}/#/supervisor?round={settled}")
        supervisor.wait_for_selector(".history >> text=Download transcript", timeout=30_000)
        supervisor.wait_for_selector("#live:not(.off)")  # subscribed to every table
        demo.supervisor.post(f"/rounds/{started['round_id']}/pause", {"reason": "camera feed lost at dlx-1"})
        supervisor.wait_for_selector(f"[data-round='{started['round_id']}']", timeout=30_000)
        supervisor.wait_for_timeout(400)
        supervisor.screenshot(path=str(out / "supervisor-console.png"), full_page=True)
        demo.supervisor.post(f"/rounds/{started['round_id']}/void", {"reason": "screenshots taken"})
        dlx.dealer.finish()
        # the Pok Deng table in Urdu (right to left, Urdu digits), its countdown running
        urdu = sign_in(browser, stack.web.url, "player", demo.players["chloe"].subject, locale="ur-PK")
        urdu.goto(f"{stack.web.url}/#/table/pd-1")
        urdu.wait_for_selector("#live:not(.off)")
        demo.tables["pd-1"].console.post("/tables/pd-1/rounds")
        urdu.wait_for_selector(".badge.betting")
        urdu.click(".chip[data-chip='500']")
        urdu.click(".spot[data-spot='player-2']")
        urdu.click("form.bet-form button[type=submit]")
        urdu.wait_for_selector(".confirm:not([hidden])")
        urdu.wait_for_timeout(300)
        urdu.screenshot(path=str(out / "ur-pok-deng-table.png"), full_page=True)
        # the Baccarat felt on a phone: chips staked on its spots, the countdown, the roads as grids
        phone = sign_in(browser, stack.web.url, "player", ben.subject, viewport=(390, 844))
        phone.goto(f"{stack.web.url}/#/table/bac-1")
        phone.wait_for_selector("#live:not(.off)")
        phone.wait_for_selector(".roads .big-road")
        bac.console.post("/tables/bac-1/rounds")
        phone.wait_for_selector(".countdown .timer")
        for chip, spot in (("1000", "banker"), ("1000", "banker"), ("500", "player-pair"), ("100", "tie")):
            phone.click(f".chip[data-chip='{chip}']")
            phone.click(f".spot[data-spot='{spot}']")
        phone.wait_for_timeout(300)
        phone.screenshot(path=str(out / "phone-baccarat-felt.png"), full_page=True)
        # the classic blackjack table's help in Persian, every figure from its rules
        demo.open_table("bj-1", "blackjack", 34, cut_at=300)
        persian = sign_in(browser, stack.web.url, "player", demo.players["dev"].subject, locale="fa-IR")
        persian.goto(f"{stack.web.url}/#/help/bj-1")
        persian.wait_for_selector(".help [data-rule='same-rank']")
        persian.screenshot(path=str(out / "fa-blackjack-help.png"), full_page=True)
        # (the Pok Deng round is left betting: a betting round cannot be voided; the stack stops next)
        time.sleep(0.5)
        browser.close()
    for name in ("lobby", "player-table", "dealer-console", "supervisor-console", "ur-pok-deng-table",
                 "phone-baccarat-felt", "fa-blackjack-help"):
        print(f"wrote {out / (name + '.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
