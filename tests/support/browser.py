"""The browser tests' tools: where Debian's Chromium is and how it is started, the timers a person
in a browser can answer in, a signed-in page with everything it received (:class:`Page`), and a
round dealt beside the page (:func:`deal_beside`) and its end for a test that opened one
(:func:`void`); a settled Baccarat round (:func:`settled_baccarat_round`) and a supervisor's round
list filtered out and in before its history is opened (:func:`filter_and_open_history`)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from collections.abc import Callable
from typing import Any

from croupier.games.base import Bet
from croupier.local.client import ApiError, wait_until
from croupier.local.stack import LocalStack

from .harness import Harness

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMERS = {"countdown": 8, "decision": 15, "follow": 6, "insurance": 3, "pause_void": 60}
"""Timers a person in a browser (and a busy machine) can answer in."""


def chromium_path() -> str | None:
    found = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    return found


class Page:
    """One signed-in browser page (its own context) and everything its WebSocket received."""

    def __init__(self, context: Any, stack: LocalStack) -> None:
        self.context, self.stack = context, stack
        self.page = context.new_page()
        # a wait ends when the page shows what it waits for; the limit leaves room for a machine
        # whose two cores the local stacks of four test processes share (Playwright's own: 30 s)
        self.page.set_default_timeout(60_000)
        self.frames: list[str] = []
        self.responses: list[tuple[str, str]] = []
        """(url, body) of every answer of the API to the page."""
        self.errors: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.console: list[str] = []
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        self.page.on("response", self._response)
        self.pending: dict[Any, str] = {}
        """The page's requests not answered yet (method and URL), for :meth:`diagnosis`."""
        self.failed: list[str] = []
        self.page.on("request", lambda request: self.pending.__setitem__(request, f"{request.method} {request.url}"))
        self.page.on("requestfinished", lambda request: self.pending.pop(request, None))
        self.page.on("requestfailed", self._failed)

    def _failed(self, request: Any) -> None:
        self.pending.pop(request, None)
        self.failed.append(f"{request.method} {request.url}: {request.failure}")

    def diagnosis(self) -> str:
        """What a failed test's page was doing: its address and view, the requests it still waited
        for and those that failed, its script errors and console, the last answers and pushes."""
        shown = "(gone)"
        with contextlib.suppress(Exception):  # the page (or the browser) may be gone
            shown = f"{self.page.url}\n{self.page.inner_text('body', timeout=2_000)[:1500]}"
        lines = [f"page: {shown}",
                 f"waiting for: {list(self.pending.values()) or 'nothing'}",
                 f"failed requests: {self.failed or 'none'}", f"script errors: {self.errors or 'none'}",
                 "console:", *self.console[-20:], "last answers:",
                 *(f"  {url} {body[:300]}" for url, body in self.responses[-8:]),
                 f"pushes received: {len(self.frames)}", *(f"  {frame[:300]}" for frame in self.frames[-5:])]
        return "\n".join(lines)

    def _frame(self, payload: Any) -> None:
        self.frames.append(payload if isinstance(payload, str) else payload.decode())

    def _response(self, response: Any) -> None:
        if response.url.startswith(self.stack.api_url):
            with contextlib.suppress(Exception):  # a preflight or a body already gone: nothing to keep
                self.responses.append((response.url, response.text()))

    def sign_in(self, role: str, subject: str, table: str | None = None) -> Page:
        from croupier.local.web import sign_in

        sign_in(self.page, self.stack.web.url, role, subject, table)
        return self

    def received_about(self, table_id: str, round_id: str) -> list[str]:
        """Everything the page received about a table and its round, as JSON texts: the pushed
        events and snapshots of the table, and the API's answers about the table or the round (the
        lobby's view of other tables, their past rounds' public cards, is left out)."""
        out = []
        for frame in self.frames:
            message = json.loads(frame)
            out += [json.dumps(e) for e in message.get("events", []) if e.get("table_id") == table_id]
            if message.get("table_id") == table_id:
                out.append(frame)
        out += [body for url, body in self.responses if f"/tables/{table_id}" in url or round_id in url
                or "/players/" in url]
        return out

    def events(self) -> list[dict[str, Any]]:
        return [e for frame in self.frames for e in json.loads(frame).get("events", [])]


def settled_baccarat_round(h: Harness, name: str, seed: int, player: str, bet: dict[str, Any]) -> dict[str, Any]:
    """A Baccarat round at a new table, settled on Player 9 against Banker 8 (cards 9S 8H KD KC)."""
    table = h.open_table(h.table(name), "baccarat", seed, cut_at=300)
    table.shoe.prepare(["9S", "8H", "KD", "KC"])
    settled = h.round(table, {player: [bet]})
    assert settled["status"] == "settled"
    return settled


def filter_and_open_history(page: Any, round_id: str) -> str:
    """In the supervisor's round list, where the round is listed: filtered by status, a settled
    round leaves the list (voided) and comes back (settled); then its history opens, transcript
    and all. Returns the history's text."""
    button = f"[data-history='{round_id}']"
    page.wait_for_selector(button)
    page.select_option("#rounds-status", "voided")
    page.wait_for_selector(button, state="detached")
    page.select_option("#rounds-status", "settled")
    page.click(button)
    page.wait_for_selector(".history >> text=Download transcript", timeout=30_000)
    return str(page.inner_text(".history"))


def void(h: Harness, round_id: str) -> None:
    """The test's round ends, voided once betting has closed: no round it opened is left to pause
    later, in another test's supervisor console."""
    def voided() -> bool:
        status = h.supervisor.get(f"/rounds/{round_id}")["status"]
        if status not in ("betting", "voided", "voiding"):
            with contextlib.suppress(ApiError):  # not voidable yet (closing): asked again
                h.supervisor.post(f"/rounds/{round_id}/void", {"reason": "test over"})
        return bool(status == "voided")

    wait_until(voided, timeout=60)


def deal_beside(h: Harness, table_id: str, started: dict[str, Any], bets: list[Bet] | Callable[[], list[Bet]] = (),
                burn: int = 0) -> threading.Thread:
    """The studio dealer deals the round in its own thread, at table speed (from the countdown's end)."""
    table = h.tables[table_id]

    def deal() -> None:
        try:
            table.dealer.deal(started, bets() if callable(bets) else list(bets), per_round_burn=burn)
        finally:
            table.dealer.finish()

    thread = threading.Thread(target=deal, daemon=True)
    thread.start()
    return thread
