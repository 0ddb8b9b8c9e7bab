"""The pages in Chromium against the local stack: a player bets at a Baccarat table and watches
the cards arrive without reloading; a Deluxe player doubles and a bet-behind player follows; a
hidden card never reaches the browser; the supervisor's console gets a pause and voids the round;
the dealer console sends test scans and shows where they went. The tables' devices are driven as
in the other tests: the test's dealer never waits for the browser, only for the table."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from croupier.games.base import Bet
from croupier.local.client import wait_until
from tests.support.browser import deal_beside, filter_and_open_history, settled_baccarat_round, void
from tests.support.harness import TIMERS, Harness

pytestmark = pytest.mark.browser


def stake(page: Any, kind: str, amount: int, seat: int | None = None) -> None:
    """The player stakes ``amount`` on a spot of the felt with the table's chips, largest first."""
    chips = sorted(page.eval_on_selector_all(".chip", "els => els.map(e => Number(e.dataset.chip))"), reverse=True)
    spot = f".spot[data-spot='{kind}']" + (f"[data-seat='{seat}']" if seat else "")
    left = amount
    for chip in chips:
        if left >= chip:
            page.click(f".chip[data-chip='{chip}']")
        while left >= chip:
            page.click(spot)
            left -= chip
    assert left == 0, (amount, chips)


def bet(page: Any, kind: str, amount: int, seat: int | None = None) -> None:
    """The player stakes ``amount`` on the spot with chips and places it."""
    stake(page, kind, amount, seat)
    page.click("form.bet-form button[type=submit]")


def test_a_player_bets_at_baccarat_and_watches_the_round_without_reloading(h: Harness, pages: Any) -> None:
    table = h.open_table(h.table("web-bac"), "baccarat", 21, cut_at=300)
    ana = h.players["ana"]
    before = h.balance("ana")
    player = pages().sign_in("player", ana.subject)
    page = player.page
    page.wait_for_selector(f"[data-table='{table.table_id}']")  # the lobby lists it
    page.click(f"[data-table='{table.table_id}'] a[href='#/table/{table.table_id}']")
    page.wait_for_selector("#balance")
    wait_until(lambda: page.inner_text("#balance") == f"{before:,}", timeout=20)
    page.wait_for_selector("#live:not(.off)")  # subscribed to the table: it sees the round open
    table.shoe.prepare(["9S", "8H", "KD", "KC"])  # Player 9 beats Banker 8
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    page.wait_for_selector(".badge.betting")
    bet(page, "player", 1000)
    page.wait_for_selector("tr[data-bet]")
    assert "player" in page.inner_text("tr[data-bet]") and "1,000" in page.inner_text("tr[data-bet]")
    # a bet above the table's limit (the largest chip, three times): the API's message, as it says it
    tie = next(b for b in h.supervisor.get(f"/tables/{table.table_id}")["play"]["bet_types"] if b["type"] == "tie")
    largest = max(page.eval_on_selector_all(".chip", "els => els.map(e => Number(e.dataset.chip))"))
    taps = tie["max"] // largest + 1
    bet(page, "tie", largest * taps)
    page.wait_for_selector(".refusal:not(:empty)")
    assert page.inner_text(".refusal") == f"tie: {largest * taps} is above the table maximum {tie['max']}"
    reloads: list[str] = []
    page.on("framenavigated", lambda frame: reloads.append(frame.url))
    dealer = deal_beside(h, table.table_id, started)
    # the cards arrive one by one, as dealt: the first before the last is dealt
    page.wait_for_selector("[data-hand=player] [data-card='9S']", timeout=30_000)
    page.wait_for_selector("[data-hand=banker] [data-card='KC']", timeout=30_000)
    page.wait_for_selector(".winner", timeout=30_000)
    assert page.inner_text(".winner") == "player wins"
    page.wait_for_selector("tr[data-bet] .outcome.win", timeout=30_000)
    assert "+1,000" in page.inner_text("tr[data-bet] .outcome.win")
    after = before + 1000
    wait_until(lambda: page.inner_text("#balance") == f"{after:,}", timeout=30)
    assert h.balance("ana") == after
    assert page.inner_text("[data-hand=player] .points") == "9"  # the API's points
    dealer.join(30)
    assert reloads == [] and player.errors == []
    record = page.inner_text(".record")
    assert "player" in record and "+1,000" in record


def test_deluxe_a_player_doubles_a_bet_behind_player_follows_and_the_hole_card_stays_hidden(
        h: Harness, pages: Any) -> None:
    table = h.open_table(h.table("web-dlx"), "deluxe-blackjack", 22, cut_at=300, scan_burn=False)
    ana, chloe = h.players["ana"], h.players["chloe"]
    seated = pages().sign_in("player", ana.subject)
    behind = pages().sign_in("player", chloe.subject)
    for who in (seated, behind):
        who.page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
        who.page.wait_for_selector(".seat-grid")
        who.page.wait_for_selector("#live:not(.off)")
    seated.page.click(".seat-button[data-seat='1']")  # ana sits at seat 1
    seated.page.wait_for_selector(".seat-button.yours[data-seat='1']")
    # seat 1: 6 and 5 (11), the dealer's up card 7, the hole card K; the double draws 9: 20 beats 17
    table.shoe.prepare(["6S", "7H", "5D", "KC", "9C"])
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    for who, kind, amount in ((seated, "seat", "1000"), (behind, "behind", "500")):
        who.page.wait_for_selector(".badge.betting")
        bet(who.page, kind, int(amount), seat=1)
        who.page.wait_for_selector("tr[data-bet]")

    def on_table() -> list[Bet]:
        bets = [b for client in (ana, chloe) for b in client.get(f"/rounds/{started['round_id']}")["bets"]]
        owner = {b["bet_id"]: client.subject for client in (ana, chloe)
                 for b in client.get(f"/rounds/{started['round_id']}")["bets"]}
        return [Bet(b["bet_id"], owner[b["bet_id"]], b["type"], int(b["amount"]), b.get("seat")) for b in bets]

    time.sleep(max(0.0, started["closes_at"] / 1000 - time.time() - 0.5))
    dealer = deal_beside(h, table.table_id, started, on_table())
    # ana's turn: exactly the prompt's legal actions, with its timer
    seated.page.wait_for_selector(".ask.yours button[data-action=double]", timeout=40_000)
    actions = seated.page.eval_on_selector_all(".ask.yours button", "els => els.map(e => e.dataset.action)")
    prompt = next(e for e in reversed(seated.events()) if e["type"] == "waiting-for" and e["kind"] == "decision")
    assert actions == [a for a in prompt["legal"] if a != "timeout"] and "double" in actions
    seated.page.wait_for_selector(".ask.yours .timer", timeout=20_000)  # the deadline, once the hand's timer runs
    # the hole card: a card back on both screens, and never in what either browser received
    for who in (seated, behind):
        assert who.page.query_selector("[data-hand=Dealer] [data-card='??']") is not None
        assert who.page.query_selector("[data-card='KC']") is None
        assert not any('"KC"' in text for text in who.received_about(table.table_id, started["round_id"]))
    seated.page.click(".ask.yours button[data-action=double]")
    behind.page.wait_for_selector("button[data-action=follow-double]", timeout=30_000)
    assert not any('"KC"' in text for text in behind.received_about(table.table_id, started["round_id"]))
    behind.page.click("button[data-action=follow-double]")
    for who in (seated, behind):
        # the hole card is shown as the dealer plays
        who.page.wait_for_selector("[data-hand=Dealer] [data-card='KC']", timeout=40_000)
        who.page.wait_for_selector("tr[data-bet] .outcome.win", timeout=40_000)
    assert "+2,000" in seated.page.inner_text("tr[data-bet] .outcome.win")  # the doubled 1,000
    assert "+1,000" in behind.page.inner_text("tr[data-bet] .outcome.win")  # the followed 500
    dealer.join(30)
    final = h.supervisor.get(f"/rounds/{started['round_id']}")
    assert [a["action"]["action"] for a in final["actions"] if "action" in a] == ["double", "follow-double"]
    # before the reveal, nothing either page received held the hole card
    for who in (seated, behind):
        about = who.received_about(table.table_id, started["round_id"])
        reveal = next(i for i, text in enumerate(about) if "cards-revealed" in text)
        assert not any('"KC"' in text for text in about[:reveal]) and '"KC"' in about[reveal]
        assert who.errors == []


def test_the_supervisor_console_gets_a_pause_as_it_happens_and_voids_the_round(h: Harness, pages: Any) -> None:
    table = h.open_table(h.table("web-sup"), "baccarat", 23, cut_at=300)
    supervisor = pages().sign_in("supervisor", "supervisor-web")
    page = supervisor.page
    page.wait_for_selector("text=No round is paused.")
    page.wait_for_selector("#live:not(.off)")  # subscribed to every table
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    ana = h.players["ana"]
    ana.post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "banker", "amount": 700}]}, idempotent=True)
    before = h.balance("ana")
    table.devices.scan("7D")  # a card long before the countdown's end: the round pauses for the supervisor
    page.wait_for_selector(f"[data-round='{started['round_id']}']", timeout=30_000)
    reason = page.inner_text(f"[data-round='{started['round_id']}'] .reason")
    assert "7D" in reason or "before" in reason, reason
    page.fill(f"[data-round='{started['round_id']}'] input[name=reason]", "card shown too early")
    page.click(f"[data-round='{started['round_id']}'] button.void")
    page.wait_for_selector(f"[data-round='{started['round_id']}']", state="detached", timeout=30_000)
    page.wait_for_selector("text=No round is paused.")
    wait_until(lambda: h.supervisor.get(f"/rounds/{started['round_id']}")["status"] == "voided", timeout=30)
    wait_until(lambda: h.balance("ana") == before + 700, timeout=30)  # the stake came back
    assert "card shown too early" in h.supervisor.get(f"/rounds/{started['round_id']}")["void_reason"]
    assert supervisor.errors == []


def test_the_dealer_console_sends_test_scans_and_the_supervisor_reads_the_round_with_its_transcript(
        h: Harness, pages: Any) -> None:
    table = h.open_table(h.table("web-dc"), "baccarat", 24, cut_at=300)
    console = pages().sign_in("dealer", "", table=table.table_id)
    page = console.page
    page.wait_for_selector("#shoe-phase")
    assert page.inner_text("#shoe-phase") == "ready"
    page.wait_for_selector("#live:not(.off)")
    page.click("text=Open round")
    page.wait_for_selector(".badge.betting")
    round_id = h.supervisor.get(f"/tables/{table.table_id}")["round_id"]
    h.players["ben"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "banker", "amount": 500}]},
                          idempotent=True)
    page.wait_for_selector("#expected >> text=Next card: player", timeout=30_000)  # betting closed
    page.fill("input[name=cards]", "4S 2H 4D 5C")
    page.click("form.scan button[type=submit]")
    page.wait_for_selector(".fates li >> nth=3", timeout=30_000)
    fates = page.inner_text(".fates")
    assert fates.count(f"taken by round {round_id}") == 4, fates
    page.wait_for_selector("tr[data-n] >> text=5C")
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["status"] == "settled", timeout=30)
    supervisor = pages().sign_in("supervisor", "supervisor-web")
    supervisor.page.wait_for_selector("section.supervisor")  # the sign-in's own view first, then the address
    supervisor.page.goto(f"{h.stack.web.url}/#/supervisor?round={round_id}")
    try:
        supervisor.page.wait_for_selector(".history >> text=Download transcript", timeout=60_000)
    except Exception as exc:  # say what the page showed instead
        raise AssertionError(f"{supervisor.page.inner_text('main')}\n{supervisor.console}") from exc
    history = supervisor.page.inner_text(".history")
    assert "4S 2H 4D 5C" in history and "banker" in history and "-500" in history
    with supervisor.page.expect_download() as download:
        supervisor.page.click("button.download")
    assert download.value.suggested_filename == f"{round_id}.json"
    assert console.errors == [] and supervisor.errors == []


def test_pok_deng_five_hands_face_down_while_bets_are_open_and_the_reservation_before_confirming(
        h: Harness, pages: Any) -> None:
    # a countdown that outlasts the dealing (13 cards at three a second) with room for a busy
    # machine (each card passes the bus, the dealing and live functions and the push before the
    # page draws it): the face-down cards must stay on the page from the first card dealt until
    # betting closes, whatever the page reads from the API meanwhile (a round in betting shows no
    # hands)
    table = h.open_table(h.table("web-pd"), "pok-deng", 25, cut_at=300,
                         rules={"timers": {**TIMERS, "countdown": 20}})
    dev = h.players["dev"]
    player = pages().sign_in("player", dev.subject)
    page = player.page
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#balance")
    page.wait_for_selector("#live:not(.off)")
    cards = ["9D", "2H", "3S", "4C", "6D", "5C", "KH", "QC", "4S", "AC", "7H", "3C"]
    table.shoe.prepare(["2S", *cards])
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    page.wait_for_selector(".badge.betting")
    bet(page, "player-1", 1000)
    page.wait_for_selector(".confirm >> text=Confirm")
    assert "reserves 2,000" in page.inner_text(".confirm")  # shown before anything is placed
    assert page.query_selector("tr[data-bet]") is None
    dealer = deal_beside(h, table.table_id, started, burn=1)  # Pok Deng is dealt while bets are open
    page.click(".confirm >> text=Confirm")
    page.wait_for_selector("tr[data-bet]")
    assert "reserved 2,000" in page.inner_text("tr[data-bet]")  # what the API took
    try:
        page.wait_for_selector("[data-hand='hand 1'] [data-card='??']", timeout=30_000)  # face down while bets are open
    except Exception as exc:  # say what the page showed, and what it was sent
        seen = [f"{e['type']} {e.get('hand', '')} {e.get('card', '')}" for e in player.events()
                if e.get("table_id") == table.table_id]
        raise AssertionError(f"{page.inner_text('#view')}\n{seen}\n{player.errors}") from exc

    def face_down() -> int:
        return int(page.eval_on_selector_all(".felt.pokdeng [data-card='??']", "els => els.length"))

    def closed() -> bool:
        return "betting-closed" in " ".join(player.received_about(table.table_id, started["round_id"]))

    wait_until(lambda: face_down() == 12 or closed(), timeout=25)  # all twelve, face down
    assert face_down() == 12, f"{face_down()} cards face down when betting closed: {page.inner_text('#view')}"
    time.sleep(1)  # the page reads the round again after each card (a quarter of a second later)
    if not closed():
        assert face_down() == 12  # still on the felt after it read the round, which shows no hands yet
    about = player.received_about(table.table_id, started["round_id"])
    if not any("betting-closed" in text for text in about):  # still betting: no card was received face up
        assert not any(f'"{card}"' in text for text in about for card in cards)
    page.wait_for_selector("[data-hand='banker'] [data-card='3C']", timeout=40_000)  # all shown after the close
    hands = page.eval_on_selector_all(".felt.pokdeng .hand", "els => els.map(e => e.dataset.hand)")
    assert hands == ["hand 1", "hand 2", "hand 3", "hand 4", "hand 5", "banker"]
    first = page.eval_on_selector_all("[data-hand='hand 1'] .card", "els => els.map(e => e.dataset.card)")
    assert first == ["9D", "KH"]
    page.wait_for_selector("tr[data-bet] .outcome:not(:empty):not(:text('open'))", timeout=40_000)
    dealer.join(30)
    assert player.errors == []


def test_a_bet_whose_answer_is_lost_is_sent_again_with_its_key_and_placed_once(h: Harness, pages: Any) -> None:
    """The API loses the first answer of a bet (the function ran, the bet is placed, the page sees
    the connection close): the page sends the same request again, with the same Idempotency-Key,
    and the bet is placed once, debited once; while it waits, its button cannot be pressed."""
    import json as _json
    import urllib.request

    from croupier.local.faults import faults_of

    table = h.open_table(h.table("web-drop"), "baccarat", 26, cut_at=300)
    ana = h.players["ana"]
    before = h.balance("ana")
    player = pages().sign_in("player", ana.subject)
    page = player.page
    keys: list[str] = []
    page.on("request", lambda r: r.method == "POST" and r.url.endswith("/bets")
            and keys.append(r.headers.get("idempotency-key", "")))
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#live:not(.off)")
    ask = urllib.request.Request(f"{h.stack.web.url}/local/faults", method="POST", data=_json.dumps(
        {"drop": {"method": "POST", "route": "/tables/{table_id}/bets", "count": 1}}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {ana.token}"})
    with urllib.request.urlopen(ask, timeout=10) as reply:  # the page server, asked to lose the next answer
        assert reply.status == 200
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    page.wait_for_selector(".badge.betting")
    bet(page, "player", 1000)
    # in flight (its first answer lost, its retry waiting): the button is disabled
    assert page.is_disabled("form.bet-form button[type=submit]")
    # (Playwright's events arrive while it is called: waiting in the page lets the requests in)
    wait_until(lambda: page.wait_for_timeout(100) or len(keys) >= 2, timeout=20)  # sent again
    page.wait_for_selector("form.bet-form button[type=submit]:not([aria-busy])", timeout=20_000)  # answered
    page.wait_for_selector("tr[data-bet]", timeout=20_000)
    assert faults_of(h.stack).dropped == [("POST", f"/tables/{table.table_id}/bets")]  # an answer was lost
    assert len(keys) >= 2 and len(set(keys)) == 1 and keys[0], keys  # sent again, with its one key
    bets = ana.get(f"/rounds/{started['round_id']}")["bets"]
    assert [(b["type"], int(b["amount"])) for b in bets] == [("player", 1000)]  # placed once
    assert h.balance("ana") == before - 1000  # debited once
    assert len(page.query_selector_all("tr[data-bet]")) == 1
    void(h, started["round_id"])  # nothing left to pause later
    h.tables[table.table_id].dealer.finish()
    assert player.errors == []


def test_the_supervisor_lists_a_tables_rounds_and_opens_a_settled_ones_history(h: Harness, pages: Any) -> None:
    settled = settled_baccarat_round(h, "web-list", 27, "ben", {"type": "banker", "amount": 500})
    supervisor = pages().sign_in("supervisor", "supervisor-list")
    page = supervisor.page
    page.wait_for_selector(f"#rounds-table option[value='{settled['table_id']}']", state="attached")
    page.select_option("#rounds-table", settled["table_id"])
    history = filter_and_open_history(page, settled["round_id"])
    assert "9S 8H KD KC" in history and "-500" in history
    assert supervisor.errors == []


def test_a_table_opened_while_the_lobby_still_loads_keeps_its_live_indicator(h: Harness, pages: Any) -> None:
    """A player opens a table before the lobby they left has its tables: when the lobby's answer
    comes, its connection (made and closed at once, its view being gone) must not take the live
    indicator from the table's, which stayed live."""
    table = h.open_table(h.table("pages-quick"), "baccarat", 97, cut_at=300)
    player = pages().sign_in("player", h.players["ana"].subject)
    page = player.page
    page.wait_for_selector(f"[data-table='{table.table_id}']")
    held: list[Any] = []
    page.route(re.compile(r"/tables\?limit="), lambda route: held.append(route))  # the lobby's tables, held back
    page.goto(f"{h.stack.web.url}/#/help/{table.table_id}")
    page.wait_for_selector(".help dl.facts")
    with page.expect_request(re.compile(r"/tables\?limit=")):
        page.goto(f"{h.stack.web.url}/#/")
    # GIVEN the lobby waits for its tables WHEN the player opens the table meanwhile
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#live:not(.off)")
    # WHEN the lobby's answer arrives: the lobby opens its connection and closes it, its view left
    with page.expect_websocket() as opened:
        held[0].continue_()
    late = opened.value
    wait_until(lambda: page.wait_for_timeout(50) or late.is_closed(), timeout=30)  # closed while it connected
    # THEN the indicator is the table's again: live
    assert "off" not in (page.get_attribute("#live", "class") or "").split()
    assert page.inner_text("#live") == "live"
    page.wait_for_selector("#balance")


def test_the_lobby_asked_for_while_a_table_still_loads_is_what_the_page_shows(h: Harness, pages: Any) -> None:
    """A player opens a table and goes back to the lobby before the table came: the table's answer,
    when it comes, draws nothing (the page showed that table, dead, under the lobby's address)."""
    table = h.open_table(h.table("pages-back"), "baccarat", 98, cut_at=300)
    player = pages().sign_in("player", h.players["ana"].subject)
    page = player.page
    page.wait_for_selector(f"[data-table='{table.table_id}']")
    held: list[Any] = []
    page.route(re.compile(rf"/tables/{table.table_id}$"), lambda route: held.append(route))  # the table, held back
    # GIVEN the table's page waits for its table WHEN the player goes back to the lobby meanwhile
    with page.expect_request(re.compile(rf"/tables/{table.table_id}$")):
        page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.goto(f"{h.stack.web.url}/#/")
    page.wait_for_selector(f"[data-table='{table.table_id}']")
    # WHEN the table's answer arrives (the table's view, drawn, opens its connection: it has drawn)
    with page.expect_websocket():
        held[0].continue_()
    # THEN the page is still the lobby, live
    assert page.query_selector("section.player") is None
    assert page.query_selector(f"[data-table='{table.table_id}']") is not None
    page.wait_for_selector("#live:not(.off)")


def test_the_balance_shown_is_the_last_asked_for_whatever_order_the_answers_come_in(h: Harness, pages: Any) -> None:
    """Each bet accepted asks for the balance again: the first answer, slower than the second,
    does not take the place of the newer balance (the page showed only the first bet taken)."""
    table = h.open_table(h.table("pages-money"), "baccarat", 99, cut_at=300)
    before = h.balance("chloe")
    player = pages().sign_in("player", h.players["chloe"].subject)
    page = player.page
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#live:not(.off)")
    wait_until(lambda: page.inner_text("#balance") == f"{before:,}", timeout=20)
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    page.wait_for_selector(".badge.betting")
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # the first answer as the API gave it, held back

    page.route(re.compile(r"/wallets/"), hold_the_first)
    # GIVEN a bet accepted whose balance is asked for, its answer slow
    bet(page, "player", 1000)
    wait_until(lambda: page.wait_for_timeout(50) or held, timeout=30)
    # WHEN a second bet is accepted and its balance answered first
    bet(page, "player", 1000)
    wait_until(lambda: page.inner_text("#balance") == f"{before - 2000:,}", timeout=20)
    route, answer = held[0]
    with page.expect_request_finished(lambda request: request is route.request):  # the late answer, all of it
        route.fulfill(response=answer)
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # the page's own work on it
    # THEN the balance is still the latest
    assert page.inner_text("#balance") == f"{before - 2000:,}"
    void(h, started["round_id"])
    table.dealer.finish()


class PublicPushesHeld:
    """A page's connections to the push API, through the test (Playwright's routing of a
    WebSocket): what the page sends goes on, its subscriptions counted; what the API sends comes
    through, but while ``holding`` a message carrying a public event is held back, as a held
    message group of the push queue holds it (a slot of the table's watchers; a player's own
    events and the staff's have groups of their own). The types of the events held and of those
    that came through are kept."""

    def __init__(self) -> None:
        self.connections: list[Any] = []
        self.subscriptions: list[str] = []
        self.held: list[str] = []
        self.passed: list[str] = []
        self.holding = False

    def __call__(self, socket: Any) -> None:  # each connection of the page to the push API
        self.connections.append(socket)
        server = socket.connect_to_server()

        def from_the_page(message: str | bytes) -> None:
            if '"subscribe"' in str(message):
                self.subscriptions.append(str(message))
            server.send(message)

        def from_the_api(message: str | bytes) -> None:
            events = json.loads(message).get("events") or []
            if self.holding and any(e.get("audience", "public") == "public" for e in events):
                self.held.extend(e["type"] for e in events)
            else:
                socket.send(message)  # the routes' answers (subscribed, the snapshots), the other pushes
                self.passed.extend(e["type"] for e in events)

        socket.on_message(from_the_page)
        server.on_message(from_the_api)


def pause_clock(page: Any) -> None:
    """The page's time (its clock installed) stops: its timers fire only as the test moves it on."""
    page.clock.pause_at((page.evaluate("Date.now()") + 100) / 1000)  # seconds since the epoch


def open_table_through(h: Harness, player: Any, table_id: str, route: Callable[[Any], None]) -> None:
    """A player signs in and opens the table's page, its connections to the push API made from then
    on passing through ``route`` (Playwright's routing of a WebSocket)."""
    player.sign_in("player", h.players["dev"].subject)
    player.page.wait_for_selector(f"[data-table='{table_id}']")
    player.page.route_web_socket(re.compile(r"^ws://"), route)
    player.page.goto(f"{h.stack.web.url}/#/table/{table_id}")


def test_a_subscription_that_fails_or_goes_unanswered_is_asked_for_again_on_a_new_connection(
        h: Harness, pages: Any) -> None:
    """The page's subscription to its table fails once (the function behind the route failed: API
    Gateway answers "Internal server error"), then goes unanswered once: each time the page
    connects again and subscribes, and it is live (it stayed "connecting" for good)."""
    table = h.open_table(h.table("pages-resubscribe"), "baccarat", 100, cut_at=300)
    player = pages()
    page = player.page
    page.clock.install()  # the page's timers: they run as a clock does, and can be moved on
    connections: list[Any] = []
    held: list[str] = []

    def through_the_test(socket: Any) -> None:  # each connection of the page to the push API
        n = len(connections)
        connections.append(socket)
        server = socket.connect_to_server()  # what the API sends reaches the page as sent

        def from_the_page(message: str | bytes) -> None:
            if n == 0 and '"subscribe"' in str(message):
                socket.send(json.dumps({"message": "Internal server error", "connectionId": "c", "requestId": "r"}))
            elif n == 1 and '"subscribe"' in str(message):
                held.append(str(message))  # never sent on, never answered
            else:
                server.send(message)

        socket.on_message(from_the_page)

    open_table_through(h, player, table.table_id, through_the_test)
    # GIVEN the table's first subscription failed: the page connected again, and that subscription
    # is unanswered
    wait_until(lambda: page.wait_for_timeout(50) or held, timeout=30)
    assert "off" in (page.get_attribute("#live", "class") or "").split()
    # WHEN the page's wait for an answer runs out
    page.clock.fast_forward(11_000)
    # THEN it connected a third time, subscribed, and is live
    page.wait_for_selector("#live:not(.off)")
    assert len(connections) == 3


def test_a_page_that_hears_nothing_for_a_while_asks_for_its_table_again_and_catches_up(
        h: Harness, pages: Any) -> None:
    """The public pushes to the page are held up on their way (a failed delivery holds its message
    group in the push queue for the queue's visibility timeout, minutes) while the player's own
    come: after 15 s without a public event the page asks for its subscription again on the same
    connection, and the table's snapshot shows it the round it was not told of."""
    table = h.open_table(h.table("pages-quiet"), "baccarat", 100, cut_at=300)
    player = pages()
    page = player.page
    page.clock.install()  # the page's timers: they run as a clock does, and can be moved on
    pushes = PublicPushesHeld()
    subscriptions = pushes.subscriptions
    open_table_through(h, player, table.table_id, pushes)
    page.wait_for_selector("#live:not(.off)")
    assert len(subscriptions) == 1 and page.query_selector(".status .badge") is None  # no round yet
    pause_clock(page)
    # GIVEN the public pushes to the page are held up, and a round opens
    pushes.holding = True
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    wait_until(lambda: page.wait_for_timeout(50) or pushes.held, timeout=30)
    page.clock.fast_forward(10_000)
    # AND 10 s later the player's own pushes still come (its bet, placed from another device)
    h.players["dev"].post(f"/tables/{table.table_id}/bets", {"bets": [{"type": "player", "amount": 100}]},
                          idempotent=True)
    wait_until(lambda: page.wait_for_timeout(50) or "bet-placed" in pushes.passed, timeout=30)
    page.wait_for_timeout(500)
    assert page.query_selector(".status .badge") is None and len(subscriptions) == 1  # not told of the round
    # WHEN the page has heard no public event for 15 s (its own bet's push does not count)
    page.clock.fast_forward(5_500)
    # THEN it asked for its table again on the same connection, and shows the round from its snapshot
    wait_until(lambda: page.wait_for_timeout(50) or len(subscriptions) == 2, timeout=10)
    page.wait_for_selector(".status .badge", timeout=10_000)
    assert len(pushes.connections) == 1 and json.loads(subscriptions[1])["tables"] == [table.table_id]
    assert "off" not in (page.get_attribute("#live", "class") or "").split() and player.errors == []
    # AND still hearing no public event, it waits twice as long before it asks again: 30 s, not 15
    page.clock.fast_forward(15_000)
    page.wait_for_timeout(500)
    assert len(subscriptions) == 2
    page.clock.fast_forward(16_000)
    wait_until(lambda: page.wait_for_timeout(50) or len(subscriptions) == 3, timeout=10)
    void(h, started["round_id"])
    table.dealer.finish()


def test_a_push_older_than_the_rounds_view_brings_back_nothing_the_view_left_behind(h: Harness, pages: Any) -> None:
    """After the page caught up from a snapshot, the pushes that were held up arrive: a prompt older
    than the view and the decision that answered it. The round's state on the page (``round.js``,
    run in the page) shows no prompt for that seat; a prompt at the view's seq is shown."""
    page = pages().sign_in("player", h.players["dev"].subject).page
    shown = page.evaluate("""async () => {
      const { RoundState } = await import(new URL("js/round.js", location.href).href);
      const state = new RoundState(() => {}, { kind: "blackjack", seats: 3 });
      const round = { round_id: "r1", table_id: "t1" };
      state.setView({ ...round, game: "blackjack", status: "playing", seq: 7, expected: null,
                      hands: { dealer: { cards: ["9S"] }, seats: {} } });
      state.push({ ...round, type: "waiting-for", seq: 5, kind: "decision", seat: 2, delivery: "m1#0" });
      state.push({ ...round, type: "decision-made", seq: 6, seat: 2, action: "stand", delivery: "m2#0" });
      const late = state.expected();
      state.push({ ...round, type: "waiting-for", seq: 7, kind: "decision", seat: 3, delivery: "m3#0" });
      return { late, now: state.expected() };
    }""")
    assert shown["late"] is None
    assert shown["now"]["seat"] == 3


def test_the_supervisor_console_that_hears_no_public_event_for_a_while_reads_the_paused_rounds_again(
        h: Harness, pages: Any) -> None:
    """The public pushes to the supervisor's console (every table: no snapshot to ask for) are held
    up while the staff's come: after 15 s without a public event the console reads what is in play
    and paused from the API, and lists the round that paused meanwhile."""
    table = h.open_table(h.table("sup-quiet"), "baccarat", 28, cut_at=300)
    supervisor = pages()
    page = supervisor.page
    page.clock.install()
    pushes = PublicPushesHeld()
    page.route_web_socket(re.compile(r"^ws://"), pushes)
    supervisor.sign_in("supervisor", "supervisor-quiet")
    page.wait_for_selector("text=No round is paused.")
    page.wait_for_selector("#live:not(.off)")  # subscribed to every table
    pause_clock(page)
    # GIVEN the public pushes are held up, and a round pauses (a card scanned long before the
    # countdown's end)
    pushes.holding = True
    started = table.console.post(f"/tables/{table.table_id}/rounds")
    table.devices.scan("7D")
    wait_until(lambda: page.wait_for_timeout(50) or "round-paused" in pushes.held, timeout=30)
    assert page.query_selector(f"[data-round='{started['round_id']}']") is None  # not told
    # WHEN the console has heard no public event for 15 s
    page.clock.fast_forward(15_500)
    # THEN it lists the paused round, read from the API
    page.wait_for_selector(f"[data-round='{started['round_id']}']", timeout=10_000)
    assert supervisor.errors == []
    h.supervisor.post(f"/rounds/{started['round_id']}/void", {"reason": "test over"})
    wait_until(lambda: h.supervisor.get(f"/rounds/{started['round_id']}")["status"] == "voided", timeout=30)


def test_a_seat_answer_that_comes_after_a_later_change_of_seats_is_not_shown(h: Harness, pages: Any) -> None:
    """A player sits and, before the answer comes, the table is read again and the player stands
    up: the late answer to sitting down does not seat the player again on the page."""
    table = h.open_table(h.table("pages-seat"), "blackjack", 101, cut_at=300)
    player = pages().sign_in("player", h.players["ben"].subject)
    page = player.page
    page.goto(f"{h.stack.web.url}/#/table/{table.table_id}")
    page.wait_for_selector("#live:not(.off)")
    page.wait_for_selector(".seat-button.free[data-seat='1']")
    held: list[Any] = []

    def hold_the_first_sitting(route: Any) -> None:
        if route.request.method == "PUT" and not held:
            held.append((route, route.fetch()))  # seated, as the API answered, held back
        else:
            route.continue_()

    page.route(re.compile(r"/seats/1$"), hold_the_first_sitting)
    # GIVEN the player sat at seat 1, its answer slow; the seat change's event has the page read
    # the table again, which shows the seat taken by the player
    page.click(".seat-button[data-seat='1']")
    page.wait_for_selector(".seat-button.yours[data-seat='1']")
    assert held
    # WHEN the player stands up (answered at once) and then the answer to sitting down arrives
    page.click(".seat-button.yours[data-seat='1']")
    page.wait_for_selector(".seat-button.free[data-seat='1']")
    route, answer = held[0]
    with page.expect_request_finished(lambda request: request is route.request):  # the late answer, all of it
        route.fulfill(response=answer)
    page.evaluate("() => new Promise((done) => setTimeout(done, 200))")  # the page's own work on it
    # THEN the seat is still shown free
    assert page.query_selector(".seat-button.yours[data-seat='1']") is None
    assert page.query_selector(".seat-button.free[data-seat='1']") is not None
