"""The boundary tests' tools, shared by ``tests/integration/test_boundaries.py`` and
``tests/reliability/test_fuzz.py``: raw HTTP against the local API (:class:`Api`, :class:`Reply`,
:func:`assert_refused`), a snapshot of every item a refused request must not change
(:class:`World`), the table bus with what the dealing function did with each event
(:class:`EventTap`), and the arena (:class:`Arena`, :func:`build_arena`): tables and rounds held
still in every state a request can meet."""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from croupier.app import store
from croupier.app.config import settings
from croupier.app.identity import issue_local_token
from croupier.local import motopatch
from croupier.local.client import ApiError, TableDevices, wait_until
from croupier.local.stack import ACCOUNT, REGION, LocalStack

from .harness import Harness

REASON = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
LONG = {"countdown": 600, "decision": 600, "follow": 600, "insurance": 600, "pause_void": 600}
"""Timers that keep an arena round still while the tests poke at it (the maximum countdown)."""
QUICK_CLOSE = {**LONG, "countdown": 8}
"""The arena's rounds close after 8 s: time enough to place their few bets, even on a busy machine."""
SOLO = {**LONG, "countdown": 4}
"""A round with one bet, placed right after it opens."""
ROLES = ("player", "operator", "dealer", "supervisor")
NOBODY = object()


# --- HTTP ------------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    text: str
    headers: dict[str, str]

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    @property
    def error(self) -> dict[str, Any]:
        body = self.json
        return (body.get("error") or {}) if isinstance(body, dict) else {}

    @property
    def reason(self) -> Any:
        return self.error.get("reason")

    @property
    def message(self) -> Any:
        return self.error.get("message")

    def __repr__(self) -> str:
        return f"Reply({self.status}, {self.text[:300]!r})"


class Api:
    """Raw HTTP against the local API: any method, path, body bytes, headers and token."""

    def __init__(self, stack: LocalStack) -> None:
        self.stack = stack
        self.calls = 0

    def token(self, subject: str, role: str, account_kind: str = "real", *, ttl: int = 86400,
              secret: str | None = None, table: str | None = None) -> str:
        return issue_local_token(secret or self.stack.jwt_secret, subject, role, account_kind, ttl=ttl, table=table)

    def request(self, method: str, path: str, body: Any = NOBODY, *, raw: bytes | str | None = None,
                token: str | None = None, key: str | None = None, headers: dict[str, str] | None = None,
                content_type: str | None = "application/json") -> Reply:
        sent: dict[str, str] = {}
        if content_type:
            sent["Content-Type"] = content_type
        if token:
            sent["Authorization"] = f"Bearer {token}"
        if key:
            sent["Idempotency-Key"] = key
        sent.update(headers or {})
        data: bytes | None
        if raw is not None:
            data = raw.encode() if isinstance(raw, str) else raw
        elif body is NOBODY:
            data = None
        else:
            data = json.dumps(body).encode()
        request = urllib.request.Request(self.stack.api_url + path, data=data, method=method, headers=sent)
        self.calls += 1
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return Reply(response.status, response.read().decode("utf-8", "replace"), dict(response.headers))
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, exc.read().decode("utf-8", "replace"), dict(exc.headers or {}))


def assert_refused(reply: Reply, *statuses: int) -> None:
    """A 4xx from the application: ``{"error": {"reason": <machine-readable>, "message": <text>}}``."""
    assert 400 <= reply.status < 500, reply
    if statuses:
        assert reply.status in statuses, reply
    assert isinstance(reply.reason, str) and REASON.match(reply.reason), f"no machine-readable reason: {reply}"
    assert isinstance(reply.message, str) and len(reply.message.strip()) >= 3, f"no human message: {reply}"


def assert_gateway_401(reply: Reply) -> None:
    """The authorizer's refusal: API Gateway's own answer (its GatewayResponses on AWS), in the
    API's one error body, with the CORS origin like every answer."""
    assert_refused(reply, 401)
    assert reply.reason == "unauthorized", reply
    assert reply.headers.get("Access-Control-Allow-Origin") == "*", reply


# --- the state a refusal must not change -----------------------------------------------------


class World:
    """A snapshot of every item a request about these tables, rounds and players could touch:
    tables, rounds (version, events, wait token ...), each player's bet summary in each round and
    the bets it lists, each player's wallet (balance and version: the version is the ledger's
    length, the ledger and its operation markers are written in the same transaction), and the
    number of idempotency records. Two batched reads and a count."""

    def __init__(self, tables: Callable[[], list[str]], rounds: Callable[[], list[str]],
                 players: Callable[[], list[str]]) -> None:
        self.tables, self.rounds, self.players = tables, rounds, players

    def take(self, extra: list[dict[str, str]] | None = None) -> dict[str, Any]:
        """``extra``: more game-table keys (items a refused request must not create)."""
        game, wallets = settings().game_table, settings().wallet_table
        keys = [store.table_key(t) for t in self.tables()] + [store.round_key(r) for r in self.rounds()]
        keys += [{"pk": f"ROUND#{r}#PLAYER#{p}", "sk": "BETS"} for r in self.rounds() for p in self.players()]
        keys += extra or []
        out = _batch_get({game: keys, wallets: [store.wallet_key(p) for p in self.players()]})
        bets = [store.bet_key(item["round_id"], int(bet["shard"]), bet["bet_id"])
                for key, item in out.items() if key.endswith("|BETS") for bet in item.get("bets", [])]
        out.update(_batch_get({game: bets}))
        out["idempotency-records"] = idempotency_records()
        return out


def _batch_get(wanted: dict[str, list[dict[str, str]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    client = store.client()
    pending_keys = [(table, key) for table, keys in wanted.items() for key in keys]
    for start in range(0, len(pending_keys), 100):
        request: dict[str, Any] = {}
        for table, key in pending_keys[start:start + 100]:
            request.setdefault(table, {"Keys": [], "ConsistentRead": True})["Keys"].append(key)
        while request:
            page = client.batch_get_item(RequestItems=request)
            for items in page["Responses"].values():
                for item in items:
                    out[f"{item['pk']}|{item['sk']}"] = store.plain(item)
            request = page.get("UnprocessedKeys") or {}
    return out


def idempotency_records() -> int:
    table = settings().idempotency_table
    count, kwargs = 0, {"TableName": table, "Select": "COUNT"}
    while True:
        page = store.client().scan(**kwargs)
        count += int(page["Count"])
        if "LastEvaluatedKey" not in page:
            return count
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    out = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            out.append(f"{key}: {str(before.get(key))[:400]} -> {str(after.get(key))[:400]}")
    return out


def assert_unchanged(before: dict[str, Any], after: dict[str, Any], what: str = "") -> None:
    changed = differences(before, after)
    assert not changed, f"a refused request changed the state ({what}):\n" + "\n".join(changed)


def table_count() -> int:
    """Tables in the store (a refused creation must not add one, whatever its generated id): the
    game table's items under ``TABLE#``, counted in moto's table (a scan of the whole store for each
    example took minutes once the session's store had grown)."""
    return motopatch.items_under(settings().game_table, "TABLE#", ACCOUNT, REGION)


# --- the table bus ---------------------------------------------------------------------------


class EventTap:
    """Puts events on the table bus and reports what the dealing function did with each one.

    The dealing function's per-record ``handle`` is wrapped (in the loaded function module) so that
    its outcome, or the exception it raised, is kept by EventBridge event id."""

    def __init__(self, stack: LocalStack) -> None:
        import boto3

        self.stack = stack
        self.events = boto3.client("events")
        handler = stack.handlers[stack.function_names["DealingFunction"]]
        self.module = inspect.unwrap(handler).__globals__
        self.outcomes: dict[str, dict[str, Any]] = {}
        self._original: Any = None

    def __enter__(self) -> EventTap:
        original = self._original = self.module["handle"]
        outcomes = self.outcomes

        def handle(record: Any) -> dict[str, Any]:
            event_id = str(json.loads(record["body"]).get("id"))
            try:
                result: dict[str, Any] = original(record)
            except Exception as exc:
                outcomes[event_id] = {"raised": f"{type(exc).__name__}: {exc}"}
                raise
            outcomes[event_id] = result
            return result

        self.module["handle"] = handle
        return self

    def __exit__(self, *exc: object) -> None:
        self.module["handle"] = self._original

    def send(self, source: str, detail_type: str, detail: Any) -> dict[str, Any]:
        entry = {"Source": source, "DetailType": detail_type, "EventBusName": self.stack.outputs["event_bus"],
                 "Detail": detail if isinstance(detail, str) else json.dumps(detail)}
        response = self.events.put_events(Entries=[entry])
        result = response["Entries"][0]
        if "EventId" not in result:
            return {"applied": "not-accepted-by-the-bus", "why": result.get("ErrorMessage")}
        event_id = result["EventId"]
        if not source.startswith(("croupier.card-reader.", "croupier.dealer-console.")):
            time.sleep(0.05)  # the bus rule does not route it: it never reaches the dealing function
            assert event_id not in self.outcomes
            return {"applied": "not-routed", "why": f"source {source!r} is not routed to the table queue"}
        wait_until(lambda: event_id in self.outcomes, timeout=60, interval=0.02)
        return self.outcomes[event_id]


def assert_event_refused(outcome: dict[str, Any]) -> None:
    """Refused before it was recorded: the device log, and everything else, is as it was."""
    assert "raised" not in outcome, f"the dealing function failed on the event (it would be redelivered): {outcome}"
    assert (outcome.get("recorded") == "refused"
            or outcome.get("applied") in ("not-routed", "not-accepted-by-the-bus")), outcome
    assert "paused" not in outcome, f"a malformed event paused a round: {outcome}"
    assert isinstance(outcome.get("why"), str) and outcome["why"], outcome


def once_marker(table_id: Any, key: Any) -> dict[str, Any] | None:
    if not isinstance(table_id, str) or not isinstance(key, str):
        return None
    return store.once_marker(table_id, key)


# --- the arena: tables and rounds held still in every interesting state ----------------------


def wait_still(round_id: str, status: str, timeout: float = 90.0) -> dict[str, Any]:
    """Wait until the round is ``status`` and its workflow waits on a registered task token with
    nothing moving (two reads apart give the same item)."""
    def ready() -> dict[str, Any] | None:
        item = store.get(store.game_table(), store.round_key(round_id))
        if item is None or item["status"] != status:
            return None
        if status != "betting" and not item.get("wait_token"):
            return None
        return item

    deadline = time.monotonic() + timeout
    while True:
        first = wait_until(ready, timeout=max(1.0, deadline - time.monotonic()), interval=0.05)
        time.sleep(0.3)
        second = store.get(store.game_table(), store.round_key(round_id))
        if second == first:
            return second
        if time.monotonic() > deadline:
            raise AssertionError(f"round {round_id} does not keep still")


@dataclass
class Arena:
    """Tables in every state a request can meet, all held still by long timers:

    - ``betting``: a baccarat round in its betting countdown (ana bet 1000 on player);
    - ``closed``: a baccarat round past its countdown, waiting for its first card (ben bet 500);
    - ``deluxe``: a Deluxe round waiting for seat 1's decision: ana seat 1 (TS 7C), ben seat 2
      (9H 8H), chloe behind seat 1, the dealer 6D with the hole card QD face down;
    - ``idle``: a baccarat table with a ready shoe and no round; ``idle_bj``: a Deluxe table with a
      ready shoe, no round, ana on seat 3; ``no_shoe``: a Pok Deng table without a shoe;
    - ``config``: a baccarat table only the configuration tests touch.
    """

    h: Harness
    api: Api
    names: dict[str, str] = field(default_factory=dict)
    rounds: dict[str, str] = field(default_factory=dict)
    devices: dict[str, TableDevices] = field(default_factory=dict)
    hole_card: str = "QD"
    last: dict[str, Any] | None = None
    checked: bool = False

    @property
    def players(self) -> dict[str, str]:
        return {name: client.subject for name, client in self.h.players.items()}

    def token(self, who: str, account_kind: str = "real", *, path: str | None = None) -> str:
        """``who``: a player's short name (ana ...) or a role (operator, dealer, supervisor). A
        dealer console's token names the table it serves: the table of ``path`` (``/tables/...``)."""
        if who in self.h.players:
            return self.api.token(self.h.players[who].subject, "player", account_kind)
        filled = self.fill(path or "")
        table = filled.split("/")[2] if who == "dealer" and filled.startswith("/tables/") else None
        return self.api.token(f"{who}-1", who, table=table)

    def world(self) -> World:
        return World(lambda: list(self.names.values()), lambda: list(self.rounds.values()),
                     lambda: [self.players[p] for p in ("ana", "ben", "chloe", "dev")])

    def before(self) -> dict[str, Any]:
        """The state now: the snapshot the last check took (nothing may have changed since), or a
        new one."""
        if self.last is None:
            self.last = self.world().take()
        return self.last

    def check(self, what: str) -> None:
        """Nothing changed since :meth:`before`."""
        before = self.before()
        self.last = after = self.world().take()
        self.checked = True
        assert_unchanged(before, after, what)

    def fill(self, text: str) -> str:
        """``{betting}``, ``{round_deluxe}``, ``{p_ana}`` ... replaced by the arena's names (any other
        brace is left alone, so JSON text can be filled too)."""
        values = {**self.names, **{f"round_{k}": v for k, v in self.rounds.items()},
                  **{f"p_{k}": v for k, v in self.players.items()}}
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), text)


def build_arena(stack: LocalStack) -> Arena:
    h = Harness(stack)
    arena = Arena(h, Api(stack))
    n = h.n
    arena.names = {k: f"{k.replace('_', '-')}-{n}" for k in
                   ("betting", "closed", "deluxe", "idle", "idle_bj", "no_shoe", "config")}
    names = arena.names
    d_betting, _ = h.open_devices(names["betting"], "baccarat", 21, cut_at=300, scan_burn=False,
                                rules={"timers": LONG})
    d_closed, shoe_closed = h.open_devices(names["closed"], "baccarat", 22, cut_at=300, scan_burn=False,
                                         rules={"timers": QUICK_CLOSE})
    d_deluxe, shoe_deluxe = h.open_devices(names["deluxe"], "deluxe-blackjack", 23, cut_at=300, scan_burn=False,
                                         rules={"timers": QUICK_CLOSE})
    d_idle, _ = h.open_devices(names["idle"], "baccarat", 24, cut_at=300, scan_burn=False, rules={"timers": LONG})
    d_idle_bj, _ = h.open_devices(names["idle_bj"], "deluxe-blackjack", 25, cut_at=300, scan_burn=False,
                                rules={"timers": LONG})
    d_config, _ = h.open_devices(names["config"], "baccarat", 26, cut_at=300, scan_burn=False, rules={"timers": LONG})
    h.operator.post("/tables", {"game": "pok-deng", "table_id": names["no_shoe"],
                                "reader_id": f"reader-{names['no_shoe']}", "rules": {"timers": LONG}})
    arena.devices = {"betting": d_betting, "closed": d_closed, "deluxe": d_deluxe, "idle": d_idle,
                     "idle_bj": d_idle_bj, "config": d_config,
                     "no_shoe": TableDevices(stack.outputs["event_bus"], names["no_shoe"],
                                             f"reader-{names['no_shoe']}")}
    ana, ben, chloe = (h.players[p] for p in ("ana", "ben", "chloe"))
    ana.call("PUT", f"/tables/{names['deluxe']}/seats/1")
    ben.call("PUT", f"/tables/{names['deluxe']}/seats/2")
    ana.call("PUT", f"/tables/{names['idle_bj']}/seats/3")
    shoe_deluxe.prepare(["TS", "9H", "6D", "7C", "8H", "QD"])  # seat 1 TS 7C, seat 2 9H 8H, dealer 6D + hole QD
    shoe_closed.prepare(["2S", "3H", "4D", "5C"])
    arena.rounds["deluxe"] = h.console(names['deluxe']).post(f"/tables/{names['deluxe']}/rounds")["round_id"]
    ana.post(f"/tables/{names['deluxe']}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]},
             idempotent=True)
    ben.post(f"/tables/{names['deluxe']}/bets", {"bets": [{"type": "seat", "seat": 2, "amount": 1000}]},
             idempotent=True)
    chloe.post(f"/tables/{names['deluxe']}/bets", {"bets": [{"type": "behind", "seat": 1, "amount": 500}]},
               idempotent=True)
    arena.rounds["closed"] = h.console(names['closed']).post(f"/tables/{names['closed']}/rounds")["round_id"]
    ben.post(f"/tables/{names['closed']}/bets", {"bets": [{"type": "banker", "amount": 500}]}, idempotent=True)
    arena.rounds["betting"] = h.console(names['betting']).post(f"/tables/{names['betting']}/rounds")["round_id"]
    ana.post(f"/tables/{names['betting']}/bets", {"bets": [{"type": "player", "amount": 1000}]}, idempotent=True)
    wait_still(arena.rounds["closed"], "playing")
    wait_still(arena.rounds["deluxe"], "playing")
    for _ in range(6):
        d_deluxe.scan(shoe_deluxe.draw(d_deluxe))
    wait_until(lambda: (store.get(store.game_table(), store.round_key(arena.rounds["deluxe"])) or {}).get(
        "expect_key") == "decision:1:0", timeout=60)
    wait_still(arena.rounds["deluxe"], "playing")
    wait_still(arena.rounds["betting"], "betting")
    return arena


def release_arena(arena: Arena) -> None:
    """Void the arena's rounds in play (every stake back), so the store audits clean."""
    for name in ("deluxe", "closed"):
        with contextlib.suppress(ApiError):  # a test may have ended it already
            arena.h.supervisor.call("POST", f"/rounds/{arena.rounds[name]}/void", {"reason": "test over"})


READER, CONSOLE = "croupier.card-reader", "croupier.dealer-console"
"""A case's device: the event's source is the device's and its detail's table's (see :func:`source`)."""
