"""Clients of the local stack, as real ones would talk to it: players, operator, dealer console
and supervisor over HTTP with bearer tokens; the card reader and dealer console as bus events."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

from ..app.events import CONSOLE, KINDS, READER, source_of
from ..app.identity import issue_local_token
from . import sdk


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        error = body.get("error") or {}
        super().__init__(f"{status} {error.get('reason', '')}: {error.get('message', body)}")
        self.status, self.reason, self.body = status, error.get("reason"), body


class Client:
    def __init__(self, api_url: str, secret: str, subject: str, role: str, account_kind: str = "real",
                 table: str | None = None) -> None:
        self.api_url = api_url
        self.subject, self.role = subject, role
        self.token = issue_local_token(secret, subject, role, account_kind, table=table)
        self.calls = 0

    def call(self, method: str, path: str, body: Any = None, *, key: str | None = None,
             idempotent: bool = False) -> Any:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        if idempotent or key:
            headers["Idempotency-Key"] = key or uuid.uuid4().hex
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api_url + path, data=data, method=method, headers=headers)
        self.calls += 1
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode()
            try:
                payload = json.loads(text)
            except ValueError:
                payload = {"error": {"reason": "http", "message": text}}
            raise ApiError(exc.code, payload) from None
        return json.loads(text) if text else None

    def get(self, path: str) -> Any:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self.call("POST", path, body if body is not None else {}, **kw)


_READER_SEQS: dict[tuple[str, str], int] = {}
_SCAN_SEQS: dict[tuple[str, str], int] = {}
_READER_SEQS_LOCK = threading.Lock()


def reader_seq(table_id: str, reader_id: str, scan_id: str | None = None) -> int:
    """The number a table's reader gives its next event, counted in this process per reader of a
    table (one local stack a process). An event sent again (the same ``scan_id``) keeps the number
    it had, as a reader's retry does."""
    with _READER_SEQS_LOCK:
        if scan_id is not None and (table_id, scan_id) in _SCAN_SEQS:
            return _SCAN_SEQS[(table_id, scan_id)]
        key = (table_id, reader_id)
        _READER_SEQS[key] = number = _READER_SEQS.get(key, 0) + 1
        if scan_id is not None:
            _SCAN_SEQS[(table_id, scan_id)] = number
        return number


class TableDevices:
    """The table's card reader and dealer console, putting events on the table bus. The reader
    numbers its events (``seq``: 1, 2, 3 …) as a real one does, one count per reader of a table
    in this process, whichever :class:`TableDevices` sends them; ``next_seq`` starts it elsewhere
    (the count of a reader that sent events before, read from the table)."""

    def __init__(self, bus: str, table_id: str, reader_id: str, *, next_seq: int | None = None) -> None:
        self.events = sdk.client("events")
        self.bus, self.table_id, self.reader_id = bus, table_id, reader_id
        self.sent = 0
        self.last_event_id = ""
        self.event_ids: list[str] = []
        """Every event's id, in the order sent: the table events' queue is a standard queue, so
        the last one handled says nothing of the others."""
        self.last_seq = 0
        if next_seq is not None:
            with _READER_SEQS_LOCK:
                _READER_SEQS[(table_id, reader_id)] = next_seq - 1

    def send(self, device: str, detail_type: str, detail: dict[str, Any]) -> None:
        """Put one event of ``device`` (the reader or the console) on the bus, with its table's
        source; a reader's event gets the reader's number unless it has one (:func:`reader_seq`)."""
        if device == READER and "seq" not in detail:
            detail = {**detail, "seq": reader_seq(self.table_id, self.reader_id, detail.get("scan_id"))}
        if device == READER:
            self.last_seq = int(detail["seq"])
        entry = {"Source": source_of(device, self.table_id), "DetailType": detail_type, "EventBusName": self.bus,
                 "Detail": json.dumps({"table_id": self.table_id, **detail})}
        response = self.events.put_events(Entries=[entry])
        if response.get("FailedEntryCount"):
            raise RuntimeError(f"event not accepted: {response}")
        self.sent += 1
        self.last_event_id = str(response["Entries"][0]["EventId"])
        self.event_ids.append(self.last_event_id)

    def source_for(self, detail_type: str) -> str:
        """The bus source of this table's device that sends ``detail_type``."""
        return source_of(next(d for d, kinds in KINDS.items() if detail_type in kinds), self.table_id)

    def scan(self, card: str, scan_id: str | None = None) -> str:
        scan_id = scan_id or uuid.uuid4().hex[:16]
        self.send(READER, "card-scanned",
                  {"reader_id": self.reader_id, "scan_id": scan_id, "card": card})
        return scan_id

    def cut_card(self) -> None:
        self.send(READER, "cut-card", {"reader_id": self.reader_id, "scan_id": uuid.uuid4().hex[:16]})

    def shuffled(self, shoe_id: str) -> None:
        self.send(CONSOLE, "shoe-shuffled", {"shoe_id": shoe_id})

    def burn_done(self) -> None:
        self.send(CONSOLE, "burn-done", {})


class Screen:
    """A screen around the table: one WebSocket connection with a role's token, subscribed to
    tables, keeping every message pushed to it (once: one delivered again is dropped by its id).
    :meth:`next` reads them in order, waiting for the next one that matches; nothing polls."""

    def __init__(self, url: str, token: str, tables: list[str]) -> None:
        from websockets.sync.client import connect

        self._exit = contextlib.ExitStack()
        # no pings of its own: a browser's WebSocket sends none (it answers the server's), and the
        # library's keepalive would draw their payloads from the `random` module's shared generator
        # in its own thread, under a test that seeded it
        self.connection = self._exit.enter_context(connect(f"{url}/?token={token}", ping_interval=None))
        self.messages: list[dict[str, Any]] = []
        self.arrived: list[float] = []
        """When each message arrived (``time.time()``)."""
        self._seen = {True: 0, False: 0}  # read so far: events, messages
        self._ids: set[str] = set()
        self.duplicates = 0
        """Messages delivered again (the same ``id``), dropped."""
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="screen", daemon=True)
        self._reader.start()
        self.connection.send(json.dumps({"action": "subscribe", "tables": tables}))
        self.connection_id = str(self.next(lambda m: m.get("type") == "subscribed", timeout=30,
                                           events=False)["connection_id"])
        self.snapshots = {t: self.next(lambda m, t=t: m.get("type") == "snapshot" and m["table_id"] == t,
                                       timeout=30, events=False) for t in tables if t != "*"}
        """Each table as it was when the screen subscribed."""

    def _read(self) -> None:
        try:
            while True:
                message = json.loads(self.connection.recv())
                if "id" in message:  # delivery is at least once: a message seen before is dropped
                    if message["id"] in self._ids:
                        self.duplicates += 1
                        continue
                    self._ids.add(message["id"])
                with self._arrived:
                    self.messages.append(message)
                    self.arrived.append(time.time())
                    self._arrived.notify_all()
        except Exception:  # closed: the screen reads no more
            with self._arrived:
                self._arrived.notify_all()

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event received so far, in order (messages carry ``events`` lists)."""
        with self._arrived:
            return [e for m in self.messages for e in m.get("events", [])]

    def next(self, match: Any, timeout: float = 60.0, *, events: bool = True) -> dict[str, Any]:
        """The next event (``events``; else message) after the last one read that ``match``es;
        the ones in between are read too. TimeoutError if none comes in time. What one caller
        reads, the next caller does not see again: two readers of one screen each take a
        :meth:`reader` of their own."""
        return self._next(self._seen, match, timeout, events)

    def reader(self) -> ScreenReader:
        """A reader of this screen with its own place: it reads every event from the first, whatever
        other readers of the screen have read (one person's screen, looked at for each of their
        hands)."""
        return ScreenReader(self)

    def _next(self, seen: dict[bool, int], match: Any, timeout: float, events: bool) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                items = [e for m in self.messages for e in m.get("events", [])] if events else self.messages
                while seen[events] < len(items):
                    item = items[seen[events]]
                    seen[events] += 1
                    if match(item):
                        return item
                left = deadline - time.monotonic()
                if left <= 0 or not self._reader.is_alive():
                    raise TimeoutError("the screen did not show what was awaited in time")
                self._arrived.wait(min(left, 1.0))

    def close(self) -> None:
        self._exit.close()


class ScreenReader:
    """One reader's place in a :class:`Screen`'s messages (see :meth:`Screen.reader`)."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._seen = {True: 0, False: 0}

    def next(self, match: Any, timeout: float = 60.0, *, events: bool = True) -> dict[str, Any]:
        return self.screen._next(self._seen, match, timeout, events)


def wait_until(check: Any, timeout: float = 60.0, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("the local stack did not reach the expected state in time")
        time.sleep(interval)
