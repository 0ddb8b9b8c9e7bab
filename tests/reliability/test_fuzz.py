"""Property-based fuzzing of every route and every table event (Trust, item 5).

Random requests built from strategies — amounts of every shape (negative, zero, huge, fractional,
strings, booleans, null, lists), unknown fields, missing fields, wrong types, random paths, query
strings, headers and tokens (none, forged, expired, without a role, other players', every role) —
against tables held in every state (betting open, betting closed, a Deluxe round waiting for a
decision, idle tables, a table without a shoe), and random malformed or out-of-turn events on the
table bus. The properties, for every case:

- no 5xx, ever; the dealing function never fails on an event (a failure would be redelivered);
- a bad or missing token is a 401, a valid token never is; every other 4xx carries
  ``{"error": {"reason", "message"}}`` with a machine-readable reason and a human message;
- a refused request or event changes nothing: tables, rounds (their version), bets, bet summaries,
  wallets (balance and ledger length) and idempotency records are compared with the state before
  it; a read changes nothing even when answered;
- the Deluxe hole card never appears in any answer while it is face down.

Accepted requests (a valid bet, deposit, seat ...) may change the state: the next case compares
with a new snapshot. Cases that would legitimately move the arena's rounds on (ana acting on her
turn, a supervisor pausing or voiding) are left out. The store audits clean at the end. The number
of cases run per route and per event type is printed at the end of the module
(``CROUPIER_FUZZ_EXAMPLES`` sets the examples per route; default 25).
"""

from __future__ import annotations

import base64
import json
import os
import string
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from croupier.app.audit import run_audit
from croupier.app.models import Decision
from croupier.cards import ALL_CARDS
from croupier.local.stack import LocalStack
from tests.support.arena import (
    CONSOLE,
    READER,
    Arena,
    EventTap,
    Reply,
    assert_event_refused,
    assert_refused,
    build_arena,
    once_marker,
    release_arena,
    table_count,
)

pytestmark = pytest.mark.reliability

EXAMPLES = int(os.environ.get("CROUPIER_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
CASES: Counter[str] = Counter()
"""Fuzz cases run, per route (``METHOD /template``) and per event (``event <detail-type>``)."""
ANSWERS: Counter[str] = Counter()
"""Per route: how many cases were accepted (2xx) and refused (4xx)."""
REASONS: dict[str, Counter[str]] = {}
"""Per route: the refusal reasons met (what the fuzzing reached past validation)."""

BAD_TOKENS = ("none", "garbage", "basic", "expired", "forged", "tampered")
GOOD_TOKENS = ("ana", "ben", "chloe", "dev", "ana-trial", "no-role", "operator", "dealer", "supervisor")
MUTATING = {"POST", "PUT", "PATCH", "DELETE"}


# --- the arena ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def arena(stack: LocalStack) -> Iterator[Arena]:
    built = build_arena(stack)
    yield built
    release_arena(built)


@pytest.fixture(scope="module")
def tap(stack: LocalStack) -> Iterator[EventTap]:
    with EventTap(stack) as running:
        yield running


@pytest.fixture(scope="module", autouse=True)
def _report(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    lines = ["", "fuzz cases run (per route and event type; accepted/refused):"]
    for key in sorted(CASES):
        lines.append(f"  {key:48} {CASES[key]:5}   {ANSWERS[key + ' 2xx']:4} / {ANSWERS[key + ' 4xx']:4}")
    lines.append(f"  {'total':48} {sum(CASES.values()):5}")
    lines.append("refusals met (reason x count):")
    for route in sorted(REASONS):
        lines.append(f"  {route}: " + ", ".join(f"{r} x{n}" for r, n in REASONS[route].most_common()))
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        with capture.global_and_fixture_disabled():
            print("\n".join(lines))
    else:  # pragma: no cover
        print("\n".join(lines))


def token_for(arena: Arena, label: str) -> str | None:
    """The Authorization header for a token label."""
    api = arena.api
    if label == "none":
        return None
    if label == "garbage":
        return "Bearer not.a.token"
    if label == "basic":
        return "Basic " + arena.token("operator")
    if label == "expired":
        return "Bearer " + api.token(arena.players["ana"], "player", ttl=-5)
    if label == "forged":
        return "Bearer " + api.token("operator-1", "operator", secret="another-signing-key-of-32-bytes-or-more")
    if label == "tampered":
        head, _, sig = arena.token("ana").split(".")
        return f"Bearer {head}.{arena.token('supervisor').split('.')[1]}.{sig}"
    if label == "ana-trial":
        return "Bearer " + arena.token("ana", "trial")
    if label == "no-role":
        return "Bearer " + api.token("someone", "croupier-admin")
    return "Bearer " + arena.token(label)


# --- strategies ----------------------------------------------------------------------------------

SAFE = string.ascii_letters + string.digits + "-_.:~"
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)
AMOUNTS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.sampled_from([0, 1, 99, 100, 101, 1000, 1001, 10**5, 10**12, 10**12 + 1, -1, -100, 2**63, 10**30, -(10**30)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([100.0, 100.5, 0.1, -0.0, 1e3, 1e12]),
    st.sampled_from(["100", "1e3", "0x64", "", " 100", "1,000", "100.00", "NaN", "-1"]),
    st.booleans(), st.none(), st.lists(st.integers(0, 1000), max_size=2), st.dictionaries(st.text(max_size=3),
                                                                                        st.integers(), max_size=1))
TEXT_IDS = st.text(alphabet=SAFE + " /#%?&é\u0000", min_size=1, max_size=45)
SEATS = st.one_of(st.integers(-2, 9), st.sampled_from(["1", "one", 1.0, True, None, 10**9]))


@st.composite
def objects(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...] = ()) -> Any:
    """A JSON object of these fields (each optional one present or not, a required one sometimes
    missing), sometimes with unknown fields; sometimes any JSON value instead."""
    if draw(st.integers(0, 11)) == 11:
        return draw(JUNK)
    out: dict[str, Any] = {}
    for name, strategy in fields.items():
        if name in required:
            if draw(st.integers(0, 9)) == 9:
                continue
            out[name] = draw(strategy)
        elif draw(st.booleans()):
            out[name] = draw(strategy)
    if draw(st.integers(0, 4)) == 4:
        unknown = st.text(min_size=1, max_size=10).filter(lambda n: n not in fields)
        out.update(draw(st.dictionaries(unknown, JUNK, min_size=1, max_size=2)))
    return out


@st.composite
def near(draw: st.DrawFn, valid: st.SearchStrategy[dict[str, Any]], broad: dict[str, st.SearchStrategy[Any]]) -> Any:
    """A valid body with no defect half the time, else one or two (a field replaced by any value
    of its broad strategy, a field dropped, an unknown field added)."""
    body = dict(draw(valid))
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        op = draw(st.sampled_from(["replace", "replace", "drop", "extra"]))
        if op == "replace":
            name = draw(st.sampled_from(sorted(broad)))
            body[name] = draw(broad[name])
        elif op == "drop" and body:
            body.pop(draw(st.sampled_from(sorted(body))))
        else:
            body[draw(st.text(min_size=1, max_size=10).filter(lambda n: n not in broad))] = draw(JUNK)
    return body


@dataclass(frozen=True)
class Body:
    """A route's bodies: ``near`` (nearly valid, for the well-formed cases) and ``wild``."""

    near: st.SearchStrategy[Any]
    wild: st.SearchStrategy[Any]


def body_of(valid: st.SearchStrategy[dict[str, Any]], broad: dict[str, st.SearchStrategy[Any]],
            required: tuple[str, ...] = ()) -> Body:
    return Body(near(valid, broad), st.one_of(objects(broad, required), near(valid, broad)))


PLAUSIBLE = st.one_of(st.integers(100, 5000), st.sampled_from([1001, 99, 10**5, 10**6 + 1]))
BET_TYPES = st.one_of(st.sampled_from(["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big",
                                       "small", "seat", "behind", "pair", "player-1", "player-5-pair", "dragon",
                                       "PLAYER", ""]), st.text(max_size=40))
MODES = st.one_of(st.sampled_from(["commission", "no-commission", "half", ""]), st.none(), st.integers())
BET_FIELDS = {"type": BET_TYPES, "amount": AMOUNTS, "seat": SEATS, "mode": MODES}
VALID_BET = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["player", "banker", "tie", "player-pair", "banker-pair", "lucky-6",
                                                    "big", "small"]), "amount": PLAUSIBLE}),
    st.fixed_dictionaries({"type": st.just("banker"), "amount": PLAUSIBLE,
                           "mode": st.sampled_from(["commission", "no-commission"])}),
    st.fixed_dictionaries({"type": st.sampled_from(["seat", "behind", "pair"]), "amount": PLAUSIBLE,
                           "seat": st.integers(1, 7)}),
    st.fixed_dictionaries({"type": st.sampled_from(["player-1", "player-3-pair"]), "amount": PLAUSIBLE}))
BET = body_of(VALID_BET, BET_FIELDS, ("type", "amount"))
BETS = body_of(st.fixed_dictionaries({"bets": st.lists(st.one_of(VALID_BET, BET.near), min_size=1, max_size=3)}),
               {"bets": st.one_of(st.lists(BET.wild, max_size=4), st.lists(BET.near, min_size=21, max_size=22), JUNK)},
               ("bets",))
ACTIONS = st.one_of(st.sampled_from(["hit", "stand", "double", "split", "surrender", "insurance", "follow-double",
                                     "follow-split", "timeout", "fold", "HIT", ""]), JUNK)
FLAGS = st.one_of(st.booleans(), st.sampled_from(["yes", "true", 0, 1, 2, None, "x", [True]]))
DECISION = body_of(
    st.fixed_dictionaries({"seat": st.sampled_from([2, 1, 3]), "action": st.sampled_from(
        ["hit", "stand", "double", "split", "surrender", "insurance", "follow-double", "follow-split"])},
        optional={"behind": st.booleans(), "hand": st.sampled_from([0, 1]), "preselect": st.booleans()}),
    {"seat": SEATS, "action": ACTIONS, "behind": FLAGS, "preselect": FLAGS,
     "hand": st.one_of(st.sampled_from([0, 1, 2, -1, "0", True, None]), JUNK)},
    ("seat", "action"))
GAMES = st.one_of(st.sampled_from(["deluxe-blackjack", "blackjack", "baccarat", "pok-deng", "poker", "BACCARAT"]),
                  JUNK)
RULES = st.one_of(
    st.fixed_dictionaries({}, optional={
        "timers": st.one_of(st.fixed_dictionaries({}, optional={
            "countdown": st.one_of(st.integers(-5, 700), JUNK), "decision": st.integers(-1, 700),
            "pause_void": st.integers(-1, 90_000)}), JUNK),
        "limits": st.one_of(st.dictionaries(st.sampled_from(["seat", "player", "banker", "tie", "player-1"]),
                                            st.fixed_dictionaries({"min": AMOUNTS, "max": AMOUNTS}), max_size=2),
                            JUNK),
        "payouts": st.one_of(st.dictionaries(st.sampled_from(["tie", "banker", "player"]),
                                             st.sampled_from(["8:1", "1:0", "-1:2", "0.95:1", "abc", 8, 1.5]),
                                             max_size=2), JUNK),
        "seats": st.one_of(st.integers(-1, 9), JUNK), "jokers": st.booleans()}),
    JUNK)
READER_IDS = st.one_of(st.sampled_from(["reader-new", "r 1", "", "r" * 65, "r/1#"]), st.text(max_size=70), JUNK)
TABLE = body_of(st.fixed_dictionaries(
    {"game": st.sampled_from(["deluxe-blackjack", "blackjack", "baccarat", "pok-deng"]),
     "reader_id": st.just("reader-fuzz"), "table_id": st.sampled_from(["fresh", "existing"])},
    optional={"name": st.text(max_size=20), "rules": st.one_of(st.sampled_from([{}, {"timers": {"countdown": 5}}]),
                                                               RULES)}),
    {"game": GAMES, "reader_id": READER_IDS, "table_id": st.one_of(st.just("fresh"), TEXT_IDS, JUNK),
     "name": st.one_of(st.text(max_size=90), JUNK), "rules": RULES}, ("game", "reader_id"))
CONFIGURE = body_of(st.fixed_dictionaries({}, optional={
    "rules": st.one_of(st.sampled_from([{"timers": {"countdown": 600}}, {}]), RULES),
    "reader_id": st.just("reader-config")}),
    {"rules": st.one_of(RULES, st.none()), "reader_id": st.one_of(READER_IDS, st.none())})
SHOE = body_of(st.fixed_dictionaries({}, optional={"shoe_id": st.just("fuzz-shoe")}),
               {"shoe_id": st.one_of(st.text(alphabet=SAFE + " #", max_size=45), JUNK)})
CONTROL = body_of(st.fixed_dictionaries({}, optional={"reason": st.just("fuzz")}),
                  {"reason": st.one_of(st.text(max_size=220), JUNK)})
MONEY = body_of(st.fixed_dictionaries({"amount": PLAUSIBLE}, optional={"reference": st.just("fuzz")}),
                {"amount": AMOUNTS, "reference": st.one_of(st.text(max_size=140), JUNK)}, ("amount",))
KEYS = st.sampled_from(["fresh", "missing", "short", "long", "reused"])
CONTENT_TYPES = st.sampled_from(["application/json", "application/json; charset=utf-8",
                                 "application/x-www-form-urlencoded", "text/plain", "application/xml", None])
"""``None``: urllib sends ``application/x-www-form-urlencoded``."""
FORGED_CURSORS = tuple(base64.urlsafe_b64encode(json.dumps(key).encode()).decode() for key in (
    {"pk": "x"},
    {"pk": "ROUND#r#SHARD#0", "sk": "BET#b", "gsi1pk": "PLAYER#someone-else", "gsi1sk": "0#b"},  # another's page
))
HEADER_NAMES = st.text(alphabet=string.ascii_letters + "-", min_size=1, max_size=12).filter(
    lambda n: n.lower() not in ("authorization", "content-type", "content-length", "idempotency-key", "host",
                                "transfer-encoding", "expect", "connection"))
EXTRA_HEADERS = st.dictionaries(HEADER_NAMES, st.text(alphabet=SAFE + " ", max_size=20), max_size=2)
PLAYERS = ("ana", "ben", "chloe", "dev", "ana-trial")


def among(known: list[str], unknown: list[str], wild: bool) -> st.SearchStrategy[str]:
    """A path parameter: one of the arena's (well-formed cases), or also unknown and random ones."""
    if not wild:
        return st.sampled_from(known)
    return st.one_of(st.sampled_from(known + unknown), TEXT_IDS)


def tables(arena: Arena, wild: bool, *names: str) -> st.SearchStrategy[str]:
    return among([arena.names[n] for n in names], ["no-such-table", "t" * 41], wild)


def rounds(arena: Arena, wild: bool, *names: str) -> st.SearchStrategy[str]:
    return among([arena.rounds[n] for n in names], ["no-such-round", "r" * 97], wild)


def players(arena: Arena, wild: bool) -> st.SearchStrategy[str]:
    return among([arena.players[p] for p in ("ana", "ben", "chloe", "dev")], ["someone-else", "p" * 65], wild)


# --- one case ------------------------------------------------------------------------------------


def request(arena: Arena, data: st.DataObject, route: str, method: str, path: str, body: Any = None, *,
            wild: bool, idempotent: bool = False, token: str | None = None, query: str = "",
            proper: tuple[str, ...] = ()) -> tuple[Reply, str]:
    """Send one case. A wild case draws its token among every kind (none, forged, expired ...),
    its Idempotency-Key, Content-Type, extra headers, sometimes a raw non-JSON body. A well-formed
    case sends JSON with a fresh key and a valid token: half the time of a role the route serves,
    else of anyone (another player, another role)."""
    if wild:
        label = token or data.draw(st.sampled_from(GOOD_TOKENS + BAD_TOKENS), label="token")
        headers = dict(data.draw(EXTRA_HEADERS, label="headers"))
        key_kind = data.draw(KEYS, label="key") if idempotent else "missing"
        content_type = data.draw(CONTENT_TYPES, label="content-type")
        raw = data.draw(st.one_of(st.none(), st.text(max_size=40)), label="raw body") if body is not None else None
    else:
        label = token or data.draw(st.one_of(st.sampled_from(proper or GOOD_TOKENS), st.sampled_from(GOOD_TOKENS)),
                                   label="token")
        headers, key_kind, content_type, raw = {}, "fresh" if idempotent else "missing", "application/json", None
    authorization = token_for(arena, label)
    if authorization:
        headers["Authorization"] = authorization
    key = {"missing": None, "short": "k" * 7, "long": "k" * 129, "reused": "fuzz-reused-key-0001"}.get(
        key_kind, uuid.uuid4().hex)
    kwargs: dict[str, Any] = {"raw": raw} if raw is not None else ({} if body is None else {"body": body})
    reply = arena.api.request(method, path + query, token=None, key=key, headers=headers, content_type=content_type,
                              **kwargs)
    CASES[route] += 1
    return reply, label


def check(arena: Arena, route: str, method: str, reply: Reply, label: str, *, public: bool = False) -> None:
    assert reply.status < 500, f"{route}: {reply}"
    assert arena.hole_card not in reply.text, f"{route}: the hole card leaked: {reply}"
    if public:
        assert reply.status == 200, reply
        return
    if label in BAD_TOKENS:
        assert reply.status == 401, f"{route} with a {label} token: {reply}"
        assert_refused(reply, 401)
        assert reply.reason == "unauthorized", reply
    else:
        assert reply.status != 401, f"{route} refused a valid token ({label}): {reply}"
    if reply.status >= 400:
        ANSWERS[f"{route} 4xx"] += 1
        assert_refused(reply)
        REASONS.setdefault(route, Counter())[str(reply.reason or reply.status)] += 1
        arena.check(f"{route} refused {reply.status} {reply.reason}")
    else:
        ANSWERS[f"{route} 2xx"] += 1
        if method in MUTATING:
            arena.last = None  # accepted: the next case compares with a new snapshot
        else:
            arena.check(f"{route} read")


# --- the routes ----------------------------------------------------------------------------------

WILD = st.booleans()
"""Per case: well-formed around its body (False, drawn first) or wild."""


def q(value: Any) -> str:
    return quote(str(value), safe="")


@FUZZ
@given(data=st.data())
def test_fuzz_place_bets(arena: Arena, data: st.DataObject) -> None:
    route = "POST /tables/{table_id}/bets"
    wild = data.draw(WILD, label="wild")
    table = data.draw(tables(arena, wild, "betting", "betting", "closed", "deluxe", "idle", "no_shoe"), label="table")
    body = data.draw(BETS.wild if wild else BETS.near, label="body")
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/tables/{q(table)}/bets", body, wild=wild, idempotent=True,
                           proper=PLAYERS)
    check(arena, route, "POST", reply, label)


def _moves_the_deluxe_round(arena: Arena, label: str, round_id: str, body: Any) -> bool:
    """ana deciding on her turn, seat 1, would play the arena's round on."""
    if label not in ("ana", "ana-trial") or round_id != arena.rounds["deluxe"]:
        return False
    try:
        decision = Decision.model_validate(body)
    except (ValidationError, TypeError, ValueError):
        return False
    return decision.seat == 1 and not decision.behind and not decision.preselect and decision.action in (
        "hit", "stand", "double", "surrender")


@FUZZ
@given(data=st.data())
def test_fuzz_decisions(arena: Arena, data: st.DataObject) -> None:
    route = "POST /rounds/{round_id}/decisions"
    wild = data.draw(WILD, label="wild")
    round_id = data.draw(rounds(arena, wild, "deluxe", "deluxe", "deluxe", "betting", "closed"), label="round")
    body = data.draw(DECISION.wild if wild else DECISION.near, label="body")
    token = data.draw(st.sampled_from(GOOD_TOKENS + BAD_TOKENS) if wild else st.sampled_from(
        ["ben", "chloe", "ana", "dev", "ana-trial", "operator"]), label="token")
    assume(not _moves_the_deluxe_round(arena, token, round_id, body))
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/rounds/{q(round_id)}/decisions", body, wild=wild,
                           idempotent=True, token=token)
    check(arena, route, "POST", reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_create_table(arena: Arena, data: st.DataObject) -> None:
    route = "POST /tables"
    wild = data.draw(WILD, label="wild")
    body = data.draw(TABLE.wild if wild else TABLE.near, label="body")
    if isinstance(body, dict) and body.get("table_id") == "fresh":
        body["table_id"] = f"fz-{uuid.uuid4().hex[:10]}"
    elif isinstance(body, dict) and body.get("table_id") == "existing":
        body["table_id"] = arena.names["idle"]
    arena.before()
    count = table_count()
    reply, label = request(arena, data, route, "POST", "/tables", body, wild=wild, proper=("operator",))
    check(arena, route, "POST", reply, label)
    if reply.status >= 400:
        assert table_count() == count, f"a refused table creation created a table: {body}"


@FUZZ
@given(data=st.data())
def test_fuzz_configure_table(arena: Arena, data: st.DataObject) -> None:
    route = "PATCH /tables/{table_id}"
    wild = data.draw(WILD, label="wild")
    table = data.draw(tables(arena, wild, "config", "betting", "deluxe", "closed"), label="table")
    body = data.draw(CONFIGURE.wild if wild else CONFIGURE.near, label="body")
    arena.before()
    reply, label = request(arena, data, route, "PATCH", f"/tables/{q(table)}", body, wild=wild, proper=("operator",))
    check(arena, route, "PATCH", reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_seats(arena: Arena, data: st.DataObject) -> None:
    method = data.draw(st.sampled_from(["PUT", "DELETE"]), label="method")
    route = f"{method} /tables/{{table_id}}/seats/{{seat}}"
    wild = data.draw(WILD, label="wild")
    table = data.draw(tables(arena, wild, "idle_bj", "idle_bj", "deluxe", "idle"), label="table")
    seat = data.draw(st.one_of(st.integers(-2, 9), st.text(alphabet=SAFE, min_size=1, max_size=12)) if wild
                     else st.integers(1, 7), label="seat")
    arena.before()
    reply, label = request(arena, data, route, method, f"/tables/{q(table)}/seats/{q(seat)}", wild=wild,
                           proper=PLAYERS)
    check(arena, route, method, reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_new_shoe(arena: Arena, data: st.DataObject) -> None:
    route = "POST /tables/{table_id}/shoes"
    wild = data.draw(WILD, label="wild")
    table = data.draw(tables(arena, wild, "config", "betting", "deluxe", "closed"), label="table")
    body = data.draw(SHOE.wild if wild else SHOE.near, label="body")
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/tables/{q(table)}/shoes", body, wild=wild,
                           proper=("dealer", "supervisor"))
    check(arena, route, "POST", reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_start_round(arena: Arena, data: st.DataObject) -> None:
    route = "POST /tables/{table_id}/rounds"
    wild = data.draw(WILD, label="wild")
    table = data.draw(tables(arena, wild, "betting", "deluxe", "closed", "no_shoe"), label="table")
    body = data.draw(st.one_of(st.none(), JUNK) if wild else st.none(), label="body")
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/tables/{q(table)}/rounds", body, wild=wild,
                           proper=("dealer", "supervisor"))
    check(arena, route, "POST", reply, label)
    assert reply.status >= 400, f"a round started on a table whose state refuses it: {reply}"


@FUZZ
@given(data=st.data())
def test_fuzz_round_control(arena: Arena, data: st.DataObject) -> None:
    route = "POST /rounds/{round_id}/{control}"
    wild = data.draw(WILD, label="wild")
    round_id = data.draw(rounds(arena, wild, "betting", "deluxe", "closed"), label="round")
    controls = st.sampled_from(["pause", "resume", "void"])
    control = data.draw(st.one_of(controls, st.text(alphabet=SAFE, min_size=1, max_size=10)) if wild else controls,
                        label="control")
    body = data.draw(CONTROL.wild if wild else CONTROL.near, label="body")
    token = data.draw(st.sampled_from(GOOD_TOKENS + BAD_TOKENS) if wild else st.sampled_from(
        ["supervisor", "supervisor", "dealer", "operator", "ana"]), label="token")
    in_play = round_id in (arena.rounds["deluxe"], arena.rounds["closed"])
    valid = isinstance(body, dict) and set(body) <= {"reason"} and (
        "reason" not in body or (isinstance(body["reason"], str) and 1 <= len(body["reason"]) <= 200))
    assume(not (token == "supervisor" and in_play and control in ("pause", "void") and valid))
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/rounds/{q(round_id)}/{q(control)}", body, wild=wild,
                           token=token)
    check(arena, route, "POST", reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_wallet_money(arena: Arena, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["deposits", "withdrawals"]), label="kind")
    route = f"POST /wallets/{{player_id}}/{kind}"
    wild = data.draw(WILD, label="wild")
    player = data.draw(players(arena, wild), label="player")
    body = data.draw(MONEY.wild if wild else MONEY.near, label="body")
    arena.before()
    reply, label = request(arena, data, route, "POST", f"/wallets/{q(player)}/{kind}", body, wild=wild,
                           idempotent=True, proper=("operator",))
    check(arena, route, "POST", reply, label)


@FUZZ
@given(data=st.data())
def test_fuzz_reads(arena: Arena, data: st.DataObject) -> None:
    which = data.draw(st.sampled_from(["round", "wallet", "bets", "table", "table-wallet"]), label="read")
    wild = data.draw(WILD, label="wild")
    query = ""
    if which == "table":
        route, path = "GET /tables/{table_id}", f"/tables/{q(data.draw(tables(arena, wild, *arena.names)))}"
    elif which == "table-wallet":
        route = "GET /tables/{table_id}/wallets/{player_id}"
        table = data.draw(tables(arena, wild, *arena.names))
        path = f"/tables/{q(table)}/wallets/{q(data.draw(players(arena, wild), label='player'))}"
    elif which == "round":
        route = "GET /rounds/{round_id}"
        path = f"/rounds/{q(data.draw(rounds(arena, wild, 'deluxe', 'deluxe', 'betting', 'closed')))}"
    else:
        route = "GET /players/{player_id}/bets" if which == "bets" else "GET /wallets/{player_id}"
        player = data.draw(players(arena, wild), label="player")
        path = f"/players/{q(player)}/bets" if which == "bets" else f"/wallets/{q(player)}"
        params = data.draw(st.fixed_dictionaries({}, optional={
            "limit": st.one_of(st.integers(-5, 120), st.text(alphabet=SAFE, max_size=6)),
            "cursor": st.one_of(st.text(alphabet=SAFE + "=", max_size=40),
                                st.sampled_from(["WzFd", "bnVsbA==", "MQ==", "A" * 513,
                                                 *FORGED_CURSORS])),
            "other": st.text(alphabet=SAFE, max_size=8)}), label="query")
        query = f"?{urlencode(params)}" if params else ""
    arena.before()
    reply, label = request(arena, data, route, "GET", path, query=query, wild=wild,
                           proper=("ana", "ben", "chloe", "dev", "operator", "supervisor", "dealer"))
    check(arena, route, "GET", reply, label)


@settings(FUZZ, max_examples=max(3, EXAMPLES // 4))
@given(data=st.data())
def test_fuzz_public_documents(arena: Arena, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(["/openapi.json", "/swagger"]), label="path")
    route = f"GET {path}"
    reply, _ = request(arena, data, route, "GET", path, query=data.draw(st.sampled_from(["", "?x=1", "?format=yaml"])),
                       wild=True)
    check(arena, route, "GET", reply, "public", public=True)


# --- the table bus -----------------------------------------------------------------------------

READER_KINDS = ("card-scanned", "scan-failed", "cut-card")
CONSOLE_KINDS = ("shoe-shuffled", "burn-done")
FIELDS = {"table_id", "reader_id", "scan_id", "card", "reason", "shoe_id"}
BAD_CARD_CODES = st.one_of(
    st.text(max_size=4).filter(lambda c: c not in ALL_CARDS),
    st.sampled_from(["10H", "td", "Td", "AS ", " AS", "1S", "XX", "T", "🂡", "A\u0000"]),
    st.integers(), st.none(), st.booleans(), st.lists(st.sampled_from(ALL_CARDS), max_size=2))
DEFECTS = {
    "card-scanned": ("reader", "card", "table", "source", "extra", "missing", "scan_id", "detail_type", "type"),
    "scan-failed": ("source", "table", "extra", "missing", "scan_id", "detail_type", "type"),
    "cut-card": ("reader", "table", "source", "extra", "missing", "scan_id", "detail_type", "type"),
    "shoe-shuffled": ("table", "source", "extra", "missing", "shoe_id", "detail_type", "type"),
    "burn-done": ("table", "source", "extra", "missing", "detail_type", "type"),
}


@st.composite
def bad_events(draw: st.DrawFn, arena: Arena) -> tuple[str, str, Any, list[str]]:
    """A table event with one to three defects. (A well-formed event of the table's own device that
    comes out of turn is not refused: it is recorded, refused by the table and told; see
    ``test_device_events_the_table_cannot_take_are_kept_refused_and_told_and_change_nothing_else``.)"""
    kind = draw(st.sampled_from(list(DEFECTS)), label="kind")
    table = arena.names[draw(st.sampled_from(["closed", "deluxe", "betting", "idle", "no_shoe"]), label="table")]
    device = READER if kind in READER_KINDS else CONSOLE
    source = f"{device}.{table}"
    detail: dict[str, Any] = {"table_id": table}
    if kind in READER_KINDS:
        detail.update(reader_id=f"reader-{table}", scan_id=uuid.uuid4().hex[:16])
    if kind == "card-scanned":
        detail["card"] = draw(st.sampled_from(ALL_CARDS), label="card")
    if kind == "shoe-shuffled" and draw(st.booleans()):
        detail["shoe_id"] = f"s-{uuid.uuid4().hex[:8]}"
    count = draw(st.sampled_from([1, 1, 1, 2, 3]), label="defect count")
    defects = draw(st.lists(st.sampled_from(DEFECTS[kind]), min_size=count, max_size=count, unique=True),
                   label="defects")
    detail_type = kind
    for defect in defects:
        if defect == "card":
            detail["card"] = draw(BAD_CARD_CODES, label="bad card")
        elif defect == "source":
            other = CONSOLE if device == READER else READER
            source = draw(st.sampled_from([f"{other}.{table}", device, "croupier.somebody", f"{device}.x",
                                           f"{device}.{arena.names['idle']}x", f"{device}.{table}.x"]),
                          label="bad source")
        elif defect == "reader":
            detail["reader_id"] = draw(st.one_of(
                st.sampled_from(["reader-intruder", f"reader-{arena.names['closed']}x",
                                 f"reader-{arena.names['idle']}"]).filter(lambda r: r != f"reader-{table}"),
                st.text(alphabet=SAFE, min_size=1, max_size=20).filter(lambda r: r != f"reader-{table}")),
                label="bad reader")
        elif defect == "table":
            detail["table_id"] = draw(st.one_of(st.sampled_from(["no-such-table", "t" * 41, "", 7]),
                                                st.text(alphabet=SAFE, min_size=1, max_size=10).map(
                                                    lambda t: f"unknown-{t}")), label="bad table")
        elif defect == "extra":
            name = draw(st.text(min_size=1, max_size=10).filter(lambda n: n not in FIELDS), label="unknown field")
            detail[name] = draw(JUNK, label="unknown value")
        elif defect == "missing":
            required = ["table_id", "reader_id", "scan_id"] if kind in READER_KINDS else ["table_id"]
            if kind == "card-scanned":
                required.append("card")
            detail.pop(draw(st.sampled_from(required), label="missing field"), None)
        elif defect == "scan_id":
            detail["scan_id"] = draw(st.one_of(st.sampled_from(["a b", "s" * 65, "", "a/b"]), st.integers()),
                                     label="bad scan id")
        elif defect == "shoe_id":
            detail["shoe_id"] = draw(st.one_of(st.sampled_from(["s 1", "s" * 41, "", "a#b"]), st.integers()),
                                     label="bad shoe id")
        elif defect == "detail_type":
            detail_type = draw(st.one_of(st.sampled_from(["Card-Scanned", "card-dealt", "card_scanned"]),
                                         st.text(alphabet=SAFE, min_size=1, max_size=15)).filter(
                lambda t: t not in DEFECTS), label="bad detail type")
        elif defect == "type":
            name = draw(st.sampled_from(sorted(k for k in detail if k in FIELDS) or ["table_id"]), label="retyped")
            detail[name] = draw(st.one_of(st.integers(), st.booleans(), st.lists(st.integers(), max_size=2),
                                          st.dictionaries(st.text(max_size=3), st.integers(), max_size=1)),
                                label="wrong type")
    return source, detail_type, detail, defects


@settings(FUZZ, max_examples=EXAMPLES * 2)
@given(data=st.data())
def test_fuzz_table_events(arena: Arena, tap: EventTap, data: st.DataObject) -> None:
    source, detail_type, detail, defects = data.draw(bad_events(arena), label="event")
    arena.before()
    outcome = tap.send(source, detail_type, detail)
    CASES[f"event {detail_type if detail_type in DEFECTS else '(unknown type)'}"] += 1
    ANSWERS[f"event {detail_type if detail_type in DEFECTS else '(unknown type)'} 4xx"] += 1
    assert_event_refused(outcome)
    why = str(outcome.get("why", "")).split(":")[0].split("'")[0].strip()[:32]
    REASONS.setdefault("events", Counter())[f"{outcome.get('recorded') or outcome.get('applied')} ({why})"] += 1
    arena.check(f"event {detail_type} {defects}: {json.dumps(detail, default=str)[:200]}")
    assert once_marker(detail.get("table_id"), detail.get("scan_id")) is None


# --- the end -------------------------------------------------------------------------------------


def test_fuzz_the_arena_rounds_are_where_they_were(arena: Arena) -> None:
    """Nothing the fuzzing sent moved the held rounds on (they were only ever refused)."""
    view = arena.h.supervisor.get(f"/rounds/{arena.rounds['deluxe']}")
    assert view["status"] == "playing" and not view["paused"]
    assert view["expected"]["kind"] == "decision" and view["expected"]["seat"] == 1
    assert arena.h.supervisor.get(f"/rounds/{arena.rounds['closed']}")["expected"]["kind"] == "card"
    assert arena.h.supervisor.get(f"/rounds/{arena.rounds['betting']}")["status"] == "betting"


def test_fuzz_the_store_audits_clean(arena: Arena) -> None:
    assert sum(CASES.values()) > 0
    report = run_audit()
    assert report.ok, report.summary()
