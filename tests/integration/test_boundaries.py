"""Every boundary refuses what it must, and a refusal changes nothing.

For every route of ``template.yaml``: no token is a 401; a token of the wrong role a 403 with a
reason; a player acting or reading for another player is refused; malformed bodies, headers, paths
and query strings are 4xx with a machine-readable ``reason`` and a human ``message``. For the table
bus: bad card codes, unknown fields, the wrong source, an unregistered reader and an unknown table
are refused. After every refusal the state is compared item by item with a snapshot taken before
it: tables, rounds (version included), bets, the players' wallets with their ledgers and operation
markers, and the idempotency records. The Deluxe hole card never reaches a player while hidden.

The tools (:class:`Api`, :class:`World`, :class:`EventTap`, :class:`Arena`) are in
:mod:`tests.support.arena`, shared with ``tests/reliability/test_fuzz.py``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import socket
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import jwt
import pytest
from botocore.exceptions import ClientError

from croupier.app import store
from croupier.local.client import ApiError, TableDevices, reader_seq, wait_until
from croupier.local.stack import LocalStack
from tests.support.arena import (
    CONSOLE,
    LONG,
    NOBODY,
    READER,
    REASON,
    ROLES,
    SOLO,
    Arena,
    EventTap,
    Reply,
    World,
    assert_event_refused,
    assert_gateway_401,
    assert_refused,
    assert_unchanged,
    build_arena,
    differences,
    idempotency_records,
    once_marker,
    release_arena,
    table_count,
    wait_still,
)
from tests.support.harness import Harness

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def arena(stack: LocalStack) -> Iterator[Arena]:
    built = build_arena(stack)
    yield built
    release_arena(built)


@pytest.fixture(autouse=True)
def _snapshots(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that did not check the arena may have changed it: the next one takes a new snapshot."""
    if "arena" not in request.fixturenames:
        yield
        return
    arena: Arena = request.getfixturevalue("arena")
    arena.checked = False
    yield
    if not arena.checked:
        arena.last = None


@pytest.fixture
def still(arena: Arena) -> Iterator[None]:
    """Checks that the test left the arena exactly as it found it."""
    arena.before()
    yield
    arena.check("the whole test")


# --- every route -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteCase:
    """A valid request of the route, as its allowed role would send it (refused here only for who
    sends it)."""

    method: str
    template: str
    path: str
    roles: tuple[str, ...]
    body: Any = NOBODY
    idempotent: bool = False


ROUTE_CASES = (
    RouteCase("POST", "/tables/{table_id}/bets", "/tables/{betting}/bets", ("player",),
              {"bets": [{"type": "player", "amount": 100}]}, idempotent=True),
    RouteCase("POST", "/rounds/{round_id}/decisions", "/rounds/{round_deluxe}/decisions", ("player",),
              {"seat": 1, "action": "stand"}, idempotent=True),
    RouteCase("POST", "/tables", "/tables", ("operator",),
              {"game": "baccarat", "reader_id": "reader-never", "table_id": "never-created"}),
    RouteCase("PATCH", "/tables/{table_id}", "/tables/{config}", ("operator",), {"reader_id": "reader-changed"}),
    RouteCase("PUT", "/tables/{table_id}/seats/{seat}", "/tables/{idle_bj}/seats/5", ("player",)),
    RouteCase("DELETE", "/tables/{table_id}/seats/{seat}", "/tables/{idle_bj}/seats/3", ("player",)),
    RouteCase("POST", "/tables/{table_id}/shoes", "/tables/{idle}/shoes", ("dealer", "supervisor"), {}),
    RouteCase("POST", "/tables/{table_id}/rounds", "/tables/{idle}/rounds", ("dealer", "supervisor")),
    RouteCase("POST", "/rounds/{round_id}/{control}", "/rounds/{round_deluxe}/pause", ("supervisor",),
              {"reason": "who may pause"}),
    RouteCase("POST", "/wallets/{player_id}/deposits", "/wallets/{p_ana}/deposits", ("operator",),
              {"amount": 100}, idempotent=True),
    RouteCase("POST", "/wallets/{player_id}/withdrawals", "/wallets/{p_ana}/withdrawals", ("operator",),
              {"amount": 100}, idempotent=True),
    RouteCase("GET", "/tables", "/tables", ROLES),
    RouteCase("GET", "/tables/{table_id}", "/tables/{deluxe}", ROLES),
    RouteCase("GET", "/tables/{table_id}/rounds", "/tables/{deluxe}/rounds", ROLES),
    RouteCase("GET", "/tables/{table_id}/log", "/tables/{deluxe}/log", ("operator", "dealer", "supervisor")),
    RouteCase("GET", "/tables/{table_id}/help", "/tables/{deluxe}/help", ROLES),
    RouteCase("GET", "/rounds/{round_id}", "/rounds/{round_deluxe}", ROLES),
    RouteCase("GET", "/rounds/{round_id}/transcript", "/rounds/{round_deluxe}/transcript", ("operator", "supervisor")),
    RouteCase("GET", "/players/{player_id}/bets", "/players/{p_ana}/bets", ("player", "operator", "supervisor")),
    RouteCase("GET", "/players/{player_id}/rounds", "/players/{p_ana}/rounds", ("operator", "supervisor")),
    RouteCase("GET", "/wallets/{player_id}", "/wallets/{p_ana}", ("player", "operator", "supervisor")),
    RouteCase("GET", "/tables/{table_id}/wallets/{player_id}", "/tables/{deluxe}/wallets/{p_ana}",
              ("player", "operator", "supervisor")),
)
PUBLIC = (("GET", "/openapi.json"), ("GET", "/swagger"))


def _route_id(case: RouteCase) -> str:
    return f"{case.method} {case.template}"


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def send(arena: Arena, case: RouteCase, token: str | None, **kw: Any) -> Reply:
    return arena.api.request(case.method, arena.fill(case.path), case.body, token=token,
                             key=uuid.uuid4().hex if case.idempotent else None, **kw)


def test_the_cases_cover_every_route_of_the_template(stack: LocalStack) -> None:
    routes = {(r.method, r.template) for r in stack.routes}
    covered = {(c.method, c.template) for c in ROUTE_CASES} | set(PUBLIC)
    assert routes == covered
    public = {(r.method, r.template) for r in stack.routes if r.public}
    assert public == set(PUBLIC)


@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")  # the HS512 token: refused anyway
@pytest.mark.parametrize("case", ROUTE_CASES, ids=_route_id)
def test_no_token_or_a_bad_token_is_401_and_changes_nothing(arena: Arena, still: None, case: RouteCase) -> None:
    api = arena.api
    operator = arena.token("operator")
    forged = api.token("operator-1", "operator", secret="not-the-signing-key-of-this-local-api")
    expired = api.token(arena.players["ana"], "player", ttl=-10)
    head, body, signature = operator.split(".")
    none_alg = f"{_b64(json.dumps({'alg': 'none'}))}.{body}."
    tampered = f"{head}.{_b64(json.dumps({'sub': 'x', 'cognito:groups': ['supervisor'], 'exp': 2**40}))}.{signature}"
    claims = {"sub": "operator-1", "cognito:groups": ["operator"]}
    secret = api.stack.jwt_secret
    signed = [jwt.encode({**claims, "exp": "tomorrow"}, secret, algorithm="HS256"),  # exp is no number
              jwt.encode({**claims, "exp": [2**40]}, secret, algorithm="HS256"),
              jwt.encode(claims, secret, algorithm="HS256"),  # no exp
              jwt.encode({**claims, "exp": 2**40}, secret, algorithm="HS512"),  # another algorithm
              jwt.encode({"cognito:groups": ["operator"], "exp": 2**40}, secret, algorithm="HS256")]  # no subject
    assert_gateway_401(send(arena, case, None))
    for header in (f"Basic {operator}", "Bearer", "Bearer not-a-jwt", f"bearer{operator}",
                   f"Bearer {forged}", f"Bearer {expired}", f"Bearer {none_alg}", f"Bearer {tampered}",
                   *(f"Bearer {token}" for token in signed), f"Bearer {operator}x", "Bearer a.b.c"):
        assert_gateway_401(send(arena, case, None, headers={"Authorization": header}))


@pytest.mark.parametrize("case", ROUTE_CASES, ids=_route_id)
def test_a_token_of_the_wrong_role_is_403_with_a_reason(arena: Arena, still: None, case: RouteCase) -> None:
    for role in ROLES:
        if role in case.roles:
            continue
        reply = send(arena, case, arena.token("ana") if role == "player" else arena.token(role, path=case.path))
        assert_refused(reply, 403)
        assert reply.reason == "wrong-role", reply
    # a valid token whose groups name no role of this API
    reply = send(arena, case, arena.api.token("someone", "croupier-admin"))
    assert_refused(reply, 403)
    assert reply.reason == "no-role", reply


@pytest.mark.parametrize("path", ["/openapi.json", "/swagger"])
def test_the_api_documents_are_served_without_a_token(arena: Arena, path: str) -> None:
    reply = arena.api.request("GET", path)
    assert reply.status == 200, reply
    if path == "/openapi.json":
        document = reply.json
        assert document["openapi"].startswith("3.")
        assert document["servers"] == [{"url": "/", "description": "this API"}]  # served at the root locally
        documented = {(m.upper(), p): op for p, ops in document["paths"].items() for m, op in ops.items()}
        assert set(documented) == {(c.method, c.template) for c in ROUTE_CASES} | set(PUBLIC)
        scheme = document["components"]["securitySchemes"]["bearer"]
        assert (scheme["type"], scheme["scheme"], scheme["bearerFormat"]) == ("http", "bearer", "JWT")
        assert document["security"] == [{"bearer": []}]
        schemas = document["components"]["schemas"]
        assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
        ids = [op["operationId"] for op in documented.values()]
        assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-z][A-Za-z]+", i) for i in ids), ids
        for (method, template), op in documented.items():
            assert op["tags"], (method, template)
            if (method, template) in PUBLIC:
                assert op["security"] == []
                continue
            assert "security" not in op  # the document's bearer scheme
            codes = {int(code) for code in op["responses"]}
            assert {401, 403, 404, 422} <= codes and (200 in codes or 201 in codes), (method, template, codes)
            for code, answer in op["responses"].items():
                ref = answer["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
                assert (ref == "ErrorBody") == (int(code) >= 400), (method, template, code, ref)
                assert schemas[ref].get("additionalProperties") is False, ref  # exactly what is sent
        bet_type = schemas["BetIn"]["properties"]["type"]["anyOf"]
        assert [set(t["enum"]) for t in bet_type] == [
            {"seat", "behind", "pair"}, {"player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big",
                                         "small"}, {f"player-{n}{p}" for n in range(1, 6) for p in ("", "-pair")}]
    else:
        assert reply.headers.get("Content-Type", "").startswith("text/html")
        assert "<html" in reply.text.lower() and "SwaggerUIBundle(" in reply.text
        # the whole document beside the page (under the stage on AWS), no CDN
        assert 'new URL("openapi.json", window.location.href)' in reply.text
        assert "persistAuthorization: true" in reply.text and "https://" not in reply.text.split("<script>")[0]


# --- the gateway: the same answers as API Gateway's --------------------------------------------


def raw_http(stack: LocalStack, data: bytes, *, close_write: bool = True,
             timeout: float = 60) -> tuple[int, dict[str, str], Any]:
    """One request written byte for byte on a new connection; the answer's status, headers and
    JSON body. A dropped connection (no answer) fails the test."""
    with socket.create_connection(("127.0.0.1", stack.api_port), timeout=timeout) as sock:
        sock.sendall(data)
        if close_write:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received, f"the connection was dropped with no answer: {data[:200]!r}"
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return status, headers, json.loads(body) if body else None


def _raw_deposit(token: str, player: str, length: str, body: bytes, key: str) -> bytes:
    return (f"POST /wallets/{player}/deposits HTTP/1.1\r\nHost: local\r\nAuthorization: Bearer {token}\r\n"
            f"Origin: https://app.example\r\n"
            f"Idempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
            ).encode() + body


def test_malformed_headers_and_bodies_are_4xx_and_apply_nothing(arena: Arena, still: None) -> None:
    """A Content-Length that is no number (abc, -1, two values), a body shorter than its
    Content-Length, or one cut short by a smaller Content-Length: a 4xx in the error body, never a
    dropped connection, and no deposit (the wallet does not exist, no idempotency record)."""
    stack, operator = arena.api.stack, arena.token("operator")
    player = f"malformed-{uuid.uuid4().hex[:8]}"
    records = idempotency_records()
    body = b'{"amount": 100}'
    for length, sent in (("abc", body), ("-1", body), ("1, 15", body), ("15 15", body), ("0x0f", body),
                         ("100", body), ("5", body), ("", body), ("99999999999999999999999", body)):
        status, headers, answer = raw_http(stack, _raw_deposit(operator, player, length, sent, uuid.uuid4().hex))
        assert 400 <= status < 500, (length, status, answer)
        assert REASON.match(answer["error"]["reason"]) and answer["error"]["message"], answer
        assert headers.get("Access-Control-Allow-Origin"), headers
    assert store.get(store.wallet_table(), store.wallet_key(player)) is None
    assert idempotency_records() == records
    # the parser's own refusals (a request line it cannot read, headers too long) in the same body
    for data in (b"GET /wallets/x HTTP/9.9\r\nHost: local\r\n\r\n",
                 b"GET /wallets/x HTTP/1.1\r\nHost: local\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n"):
        status, _, answer = raw_http(stack, data)
        assert 400 <= status < 500 and REASON.match(answer["error"]["reason"]), (status, answer)


def test_path_parameters_are_percent_decoded_as_api_gateway_does(arena: Arena, still: None) -> None:
    api, ana = arena.api, arena.players["ana"]
    encoded = "".join(f"%{byte:02X}" for byte in ana.encode())
    reply = api.request("GET", f"/wallets/{encoded}", token=arena.token("ana"))  # ana reading her own wallet
    assert reply.status == 200 and reply.json["player"] == ana, reply
    table = arena.names["deluxe"]
    reply = api.request("GET", "/tables/" + "".join(f"%{b:02X}" for b in table.encode()), token=arena.token("ben"))
    assert reply.status == 200 and reply.json["table_id"] == table, reply
    # an id no player can have is refused, decoded or not; nothing is created under either name
    for path in ("/wallets/%C3%A9ve/deposits", "/wallets/%25C3%25A9ve/deposits"):
        reply = api.request("POST", path, {"amount": 100}, token=arena.token("operator"), key=uuid.uuid4().hex)
        assert_refused(reply, 422)
    for name in ("éve", "%C3%A9ve", "%25C3%25A9ve"):
        assert store.get(store.wallet_table(), store.wallet_key(name)) is None
    # an encoded slash stays inside its segment (no route takes it); bytes that are not UTF-8 are refused
    assert_refused(api.request("GET", "/wallets/a%2Fb", token=arena.token("operator")), 404)
    assert_refused(api.request("GET", "/wallets/%C3", token=arena.token("operator")), 400)


def test_an_unknown_route_or_method_is_404_in_the_error_body(arena: Arena, still: None) -> None:
    for method, path in (("GET", "/nowhere"), ("GET", "/"), ("DELETE", "/tables"), ("GET", "/wallets/x/deposits"),
                         ("POST", "/tables/{idle}"), ("PATCH", "/openapi.json"), ("GET", "/tables/{idle}/"),
                         ("GET", "/tables//log")):
        reply = arena.api.request(method, arena.fill(path), token=arena.token("operator"))
        assert_refused(reply, 404)
        assert reply.reason == "no-route", (method, path, reply)
        assert reply.headers.get("Access-Control-Allow-Origin") == "*"


@pytest.mark.parametrize("case", ROUTE_CASES, ids=_route_id)
def test_a_cors_preflight_is_answered_on_every_route(arena: Arena, case: RouteCase) -> None:
    reply = arena.api.request("OPTIONS", arena.fill(case.path), content_type=None,
                              headers={"Origin": "https://app.example", "Access-Control-Request-Method": case.method,
                                       "Access-Control-Request-Headers": "authorization,content-type,idempotency-key"})
    assert reply.status == 200, reply
    assert reply.headers["Access-Control-Allow-Origin"] == "*"
    assert case.method in reply.headers["Access-Control-Allow-Methods"].split(",")
    allowed = {h.lower() for h in reply.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key"} <= allowed


def test_a_browser_on_another_origin_reads_the_answers(arena: Arena, still: None) -> None:
    """Answers of the functions carry the CORS origin too (an unknown path's preflight is a 404)."""
    reply = arena.api.request("GET", arena.fill("/tables/{idle}"), token=arena.token("ben"),
                              headers={"Origin": "https://app.example"})
    assert reply.status == 200 and reply.headers.get("Access-Control-Allow-Origin") == "*", reply
    refused = arena.api.request("GET", arena.fill("/wallets/{p_ana}"), token=arena.token("ben"),
                                headers={"Origin": "https://app.example"})
    assert_refused(refused, 403)
    assert refused.headers.get("Access-Control-Allow-Origin") == "*"
    assert_refused(arena.api.request("OPTIONS", "/nowhere", headers={"Origin": "https://app.example"}), 404)


def test_many_concurrent_connections_are_all_answered(arena: Arena) -> None:
    """60 reads and 20 bets at once, each on its own connection: every one is answered (no reset),
    every bet is placed once."""
    api, ana = arena.api, arena.players["ana"]
    before = store.balance_of(ana)

    def read(_: int) -> int:
        return api.request("GET", arena.fill("/wallets/{p_ana}"), token=arena.token("operator")).status

    def bet(_: int) -> int:
        return api.request("POST", arena.fill(BET), _bets(amount=100), token=arena.token("ana"),
                           key=uuid.uuid4().hex).status

    with ThreadPoolExecutor(max_workers=80) as pool:
        reads = [pool.submit(read, i) for i in range(60)]
        placed = [pool.submit(bet, i) for i in range(20)]
        statuses = [f.result() for f in reads], [f.result() for f in placed]
    assert statuses == ([200] * 60, [200] * 20), statuses
    assert store.balance_of(ana) == before - 20 * 100


INTERNAL = frozenset({"pk", "sk", "gsi1pk", "gsi1sk", "shard", "key", "keys", "op", "version", "wait_token",
                      "expires_at", "decision_keys", "engine_bets"})


def _fields(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {f for v in value.values() for f in _fields(v)}
    if isinstance(value, list):
        return {f for v in value for f in _fields(v)}
    return set()


def test_answers_carry_no_internal_fields_and_a_retried_bet_says_it_was_replayed(arena: Arena) -> None:
    api, key = arena.api, uuid.uuid4().hex
    first = api.request("POST", arena.fill(BET), _bets(amount=100), token=arena.token("ana"), key=key)
    again = api.request("POST", arena.fill(BET), _bets(amount=100), token=arena.token("ana"), key=key)
    assert first.status == again.status == 200, (first, again)
    assert first.json["replayed"] is False and again.json == {**first.json, "replayed": True}
    answers = [first.json]
    for who in ("ana", "ben", "chloe", "operator", "dealer", "supervisor"):
        for path in ("/tables/{deluxe}", "/rounds/{round_deluxe}", "/rounds/{round_betting}", "/tables/{deluxe}/log",
                     "/wallets/{p_ana}", "/players/{p_ana}/bets"):
            reply = api.request("GET", arena.fill(path), token=arena.token(who, path=path))
            if reply.status == 200:
                answers.append(reply.json)
    assert len(answers) > 20
    leaked = {field for answer in answers for field in _fields(answer)} & INTERNAL
    assert not leaked, leaked


def test_a_player_sees_a_round_as_a_player_at_the_table_would(arena: Arena, still: None) -> None:
    """Every seated hand, but another seat's player and bet id no; bets behind only their own; the
    house's result only operators and supervisors; a table's other seats only as taken."""
    api, players = arena.api, arena.players
    path = arena.fill("/rounds/{round_deluxe}")
    ben = api.request("GET", path, token=arena.token("ben")).json
    seats = ben["hands"]["seats"]
    assert seats["1"]["hands"][0]["cards"] == ["TS", "7C"]  # ana's hand, as at the table
    assert "player" not in seats["1"] and "bet" not in seats["1"] and seats["1"]["behind"] == []
    assert seats["2"]["player"] == players["ben"] and seats["2"]["bet"] == ben["bets"][0]["bet_id"]
    chloe = api.request("GET", path, token=arena.token("chloe")).json
    assert [b["player"] for b in chloe["hands"]["seats"]["1"]["behind"]] == [players["chloe"]]
    assert players["ana"] not in json.dumps(ben) and players["chloe"] not in json.dumps(ben)
    for who in ("ana", "ben", "dealer"):
        assert "house_result" not in api.request("GET", path, token=arena.token(who)).json, who
    for who in ("operator", "supervisor"):
        view = api.request("GET", path, token=arena.token(who)).json
        assert "house_result" in view and view["hands"]["seats"]["1"]["player"] == players["ana"], who
    table = api.request("GET", arena.fill("/tables/{deluxe}"), token=arena.token("ben")).json
    assert table["seats"] == {"1": {"yours": False}, "2": {"yours": True, "player": players["ben"]}}
    staff = api.request("GET", arena.fill("/tables/{deluxe}"), token=arena.token("operator")).json
    assert staff["seats"]["1"]["player"] == players["ana"]


def test_whole_numbers_written_with_a_fraction_or_an_exponent_are_those_integers(arena: Arena) -> None:
    """55641.0 and 1e3 are integers for JSON Schema, so for the document: taken exactly as such."""
    player = f"whole-{uuid.uuid4().hex[:8]}"
    operator = arena.token("operator")
    for raw, balance in (('{"amount": 55641.0}', 55641), ('{"amount": 1e3}', 56641), ('{"amount": 1.5E2}', 56791),
                         ('{"amount": 100.000}', 56891)):
        reply = arena.api.request("POST", f"/wallets/{player}/deposits", raw=raw, token=operator, key=uuid.uuid4().hex)
        assert reply.status == 200 and reply.json["balance"] == balance, (raw, reply)
    assert [e["amount"] for e in arena.api.request("GET", f"/wallets/{player}", token=operator).json["ledger"]] == [
        100, 150, 1000, 55641]


def test_a_dealer_console_acts_only_for_its_own_table(arena: Arena, still: None) -> None:
    """A dealer console's token names its table: at another table it is refused, for the shoe,
    the rounds and the device log alike (and a token that names no table is refused everywhere)."""
    other = arena.api.token("console-x", "dealer", table=arena.names["config"])
    unnamed = arena.api.token("console-y", "dealer")
    for method, path, body in (("POST", "/tables/{idle}/shoes", {}), ("POST", "/tables/{idle}/rounds", NOBODY),
                               ("GET", "/tables/{idle}/log", NOBODY)):
        for token in (other, unnamed):
            reply = arena.api.request(method, arena.fill(path), body, token=token)
            assert_refused(reply, 403)
            assert reply.reason == "not-your-table", reply


# --- players act and read only for themselves ------------------------------------------------


def test_a_player_reads_no_other_players_wallet_or_bet_record(arena: Arena, still: None) -> None:
    api, ben = arena.api, arena.token("ben")
    for path in ("/wallets/{p_ana}", "/players/{p_ana}/bets", "/players/{p_ana}/bets?limit=100"):
        reply = api.request("GET", arena.fill(path), token=ben)
        assert_refused(reply, 403)
        assert reply.reason == "not-yourself"
    # the same path with the owner's token is answered, so the refusal is about who asks
    assert api.request("GET", arena.fill("/wallets/{p_ana}"), token=arena.token("ana")).status == 200
    # a round's view carries only the caller's own bets
    view = api.request("GET", arena.fill("/rounds/{round_deluxe}"), token=ben).json
    assert {b["bet_id"] for b in view["bets"]} == {view["hands"]["seats"]["2"]["bet"]}
    dealer_view = api.request("GET", arena.fill("/rounds/{round_deluxe}"), token=arena.token("dealer")).json
    assert dealer_view["bets"] == []


def test_bets_are_always_the_callers_own(arena: Arena, still: None) -> None:
    api, ben = arena.api, arena.token("ben")
    for body in ({"bets": [{"type": "player", "amount": 100}], "player": arena.players["ana"]},
                 {"bets": [{"type": "player", "amount": 100, "player": arena.players["ana"]}]},
                 {"bets": [{"type": "player", "amount": 100, "player_id": arena.players["ana"]}]},
                 {"bets": [{"type": "player", "amount": 100}], "on_behalf_of": arena.players["ana"]}):
        reply = api.request("POST", arena.fill("/tables/{betting}/bets"), body, token=ben, key=uuid.uuid4().hex)
        assert_refused(reply, 422)
        assert reply.reason == "invalid-request"
    # an operator's or a supervisor's token places no bet for anybody
    for role in ("operator", "supervisor"):
        reply = api.request("POST", arena.fill("/tables/{betting}/bets"), {"bets": [{"type": "player", "amount": 100}]},
                            token=arena.token(role), key=uuid.uuid4().hex)
        assert_refused(reply, 403)


def test_a_player_decides_only_on_their_own_seat_and_their_own_bet_behind(arena: Arena, still: None) -> None:
    api = arena.api
    path = arena.fill("/rounds/{round_deluxe}/decisions")
    refusals = [
        ("ben", {"seat": 1, "action": "stand"}, "not-your-seat"),  # ana's seat
        ("chloe", {"seat": 1, "action": "hit"}, "not-your-seat"),  # chloe only bets behind seat 1
        ("dev", {"seat": 1, "action": "stand"}, "not-your-seat"),  # dev has no bet at all
        ("dev", {"seat": 1, "action": "insurance", "behind": True}, "not-your-bet"),
        ("ana", {"seat": 1, "action": "follow-double", "behind": True}, "not-your-bet"),
        ("ben", {"seat": 1, "action": "follow-split", "behind": True}, "not-your-bet"),
        ("ana", {"seat": 2, "action": "stand", "preselect": True}, "not-your-seat"),  # ben's seat
        ("chloe", {"seat": 2, "action": "insurance", "behind": True}, "not-your-bet"),
    ]
    for who, body, reason in refusals:
        reply = api.request("POST", path, body, token=arena.token(who), key=uuid.uuid4().hex)
        assert_refused(reply)
        assert reply.reason == reason, (who, body, reply)
    # a decision body names no player: acting for someone else cannot even be expressed
    reply = api.request("POST", path, {"seat": 1, "action": "stand", "player": arena.players["ana"]},
                        token=arena.token("ben"), key=uuid.uuid4().hex)
    assert_refused(reply, 422)


def test_out_of_turn_decisions_are_refused(arena: Arena, still: None) -> None:
    api = arena.api
    path = arena.fill("/rounds/{round_deluxe}/decisions")
    for who, body in (("ben", {"seat": 2, "action": "hit"}),  # seat 1 decides first
                      ("ana", {"seat": 1, "action": "hit", "hand": 1}),  # there is no second hand
                      ("ana", {"seat": 1, "action": "split"}),  # TS 7C is no pair
                      ("ana", {"seat": 1, "action": "insurance"}),  # no insurance window (dealer 6)
                      ("chloe", {"seat": 1, "action": "follow-double", "behind": True}),  # no follow window
                      ("ana", {"seat": 1, "action": "stand", "preselect": True})):  # the turn has started
        reply = api.request("POST", path, body, token=arena.token(who), key=uuid.uuid4().hex)
        assert_refused(reply, 409)
    # a decision in a round that is not being played
    for round_name in ("betting", "closed"):
        reply = api.request("POST", arena.fill(f"/rounds/{{round_{round_name}}}/decisions"),
                            {"seat": 1, "action": "stand"}, token=arena.token("ana"), key=uuid.uuid4().hex)
        assert_refused(reply)


def test_a_player_takes_and_leaves_only_a_free_seat_or_their_own(arena: Arena, still: None) -> None:
    api = arena.api
    ben = arena.token("ben")
    reply = api.request("PUT", arena.fill("/tables/{idle_bj}/seats/3"), token=ben)  # ana's seat
    assert_refused(reply)
    assert reply.reason == "seat-taken"
    reply = api.request("DELETE", arena.fill("/tables/{idle_bj}/seats/3"), token=ben)
    assert_refused(reply)
    assert reply.reason == "not-your-seat"
    # trial and play-for-fun accounts may not occupy a seat
    for kind in ("trial", "fun"):
        reply = api.request("PUT", arena.fill("/tables/{idle_bj}/seats/6"), token=arena.token("dev", kind))
        assert_refused(reply)
        assert reply.reason == "account-may-not-sit"
    # no seat while a round is played; no seats at baccarat
    assert_refused(api.request("PUT", arena.fill("/tables/{deluxe}/seats/6"), token=ben), 409)
    assert_refused(api.request("DELETE", arena.fill("/tables/{deluxe}/seats/2"), token=ben), 409)
    reply = api.request("PUT", arena.fill("/tables/{idle}/seats/1"), token=ben)
    assert_refused(reply)
    assert reply.reason == "no-seats"


def test_only_the_operator_moves_wallet_money(arena: Arena, still: None) -> None:
    api = arena.api
    for who in ("ana", "ben", "dealer", "supervisor"):
        for kind in ("deposits", "withdrawals"):
            reply = api.request("POST", arena.fill(f"/wallets/{{p_ana}}/{kind}"), {"amount": 5000},
                                token=arena.token(who), key=uuid.uuid4().hex)
            assert_refused(reply, 403)


# --- malformed requests ----------------------------------------------------------------------


@dataclass(frozen=True)
class Bad:
    id: str
    method: str
    path: str
    who: str
    body: Any = NOBODY
    raw: str | None = None
    key: str | None = "fresh"
    reason: str | None = "invalid-request"
    status: int | None = 422


def _bets(**bet: Any) -> dict[str, Any]:
    return {"bets": [{"type": "player", "amount": 100, **bet}]}


def _without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


BET = "/tables/{betting}/bets"
DECIDE = "/rounds/{round_deluxe}/decisions"
DEPOSIT = "/wallets/{p_ana}/deposits"
WITHDRAW = "/wallets/{p_ana}/withdrawals"
AMOUNTS = {"negative": -100, "zero": 0, "huge": 10**12 + 1, "enormous": 10**30, "fractional": 100.5,
           "string": "100", "empty-string": "", "bool": True, "null": None, "list": [100], "object": {"value": 100},
           "small-exponent": 1e-3, "huge-exponent": 1e13, "infinity": float("inf")}
"""Amounts no integer field takes (100.0 and 1e3 are JSON Schema integers: see
``test_whole_numbers_written_with_a_fraction_or_an_exponent_are_those_integers``)."""
NOT_WHOLE = ("100.0000000000000001", "1000000000000.5", "1.00000000000000000001e2", "1e400", "-1e400")
"""Amounts that a float would round to a whole number (or to infinity): read exactly, none is one."""
MALFORMED = [
    # bets
    *[Bad(f"bet-amount-{name}", "POST", BET, "ana", _bets(amount=value)) for name, value in AMOUNTS.items()],
    *[Bad(f"bet-seat-{seat!r}", "POST", "/tables/{deluxe}/bets", "ana", _bets(type="pair", seat=seat))
      for seat in (0, 8, -1, "1", 1.5, True, 10**9)],  # 1.0 is the integer 1 (JSON Schema)
    Bad("bet-mode-unknown", "POST", BET, "ana", _bets(type="banker", mode="half")),
    Bad("bet-mode-number", "POST", BET, "ana", _bets(type="banker", mode=1)),
    Bad("bet-type-missing", "POST", BET, "ana", {"bets": [{"amount": 100}]}),
    Bad("bet-amount-missing", "POST", BET, "ana", {"bets": [{"type": "player"}]}),
    Bad("bet-type-empty", "POST", BET, "ana", _bets(type="")),
    Bad("bet-type-number", "POST", BET, "ana", _bets(type=7)),
    Bad("bet-type-too-long", "POST", BET, "ana", _bets(type="p" * 33)),
    Bad("bet-unknown-field", "POST", BET, "ana", _bets(colour="red")),
    Bad("bets-unknown-field", "POST", BET, "ana", {"bets": [{"type": "player", "amount": 100}], "x": 1}),
    Bad("bets-empty", "POST", BET, "ana", {"bets": []}),
    Bad("bets-not-a-list", "POST", BET, "ana", {"bets": {"type": "player", "amount": 100}}),
    Bad("bets-too-many", "POST", BET, "ana", {"bets": [{"type": "player", "amount": 100}] * 21}),
    Bad("bets-missing", "POST", BET, "ana", {}),
    Bad("bets-body-list", "POST", BET, "ana", [{"type": "player", "amount": 100}]),
    Bad("bets-body-string", "POST", BET, "ana", "player 100"),
    Bad("bets-no-body", "POST", BET, "ana"),
    Bad("bets-not-json", "POST", BET, "ana", raw="{bets: [player, 100]}"),
    Bad("bets-truncated-json", "POST", BET, "ana", raw='{"bets": [{"type": "player", "amount": 1'),
    Bad("bets-no-idempotency-key", "POST", BET, "ana", _bets(), key=None),
    Bad("bets-short-idempotency-key", "POST", BET, "ana", _bets(), key="short"),
    Bad("bets-long-idempotency-key", "POST", BET, "ana", _bets(), key="k" * 129),
    Bad("bets-table-id-too-long", "POST", "/tables/" + "t" * 41 + "/bets", "ana", _bets()),
    # the rules of the game refuse it (4xx with the rule's own reason)
    Bad("bet-unknown-type", "POST", BET, "ana", _bets(type="dragon")),  # no game's: the document's enum refuses it
    Bad("bet-type-of-another-game", "POST", BET, "ana", _bets(type="player-1"), reason="unknown-bet-type",
        status=None),  # a Pok Deng bet at a baccarat table: the table's game refuses it
    Bad("bet-below-minimum", "POST", BET, "ben", _bets(amount=99), reason="table-limit", status=None),
    Bad("bet-above-maximum", "POST", BET, "ana", _bets(amount=10**12), reason="table-limit", status=None),
    Bad("bet-beyond-balance", "POST", BET, "ben", _bets(amount=200_000), reason=None, status=None),
    Bad("bet-seat-at-baccarat", "POST", BET, "ana", _bets(seat=2), reason="bad-bet", status=None),
    Bad("bet-mode-on-player", "POST", BET, "ana", _bets(mode="commission"), reason="bad-bet", status=None),
    Bad("bet-after-the-countdown", "POST", "/tables/{closed}/bets", "ana", _bets(), reason="betting-closed",
        status=409),
    Bad("bet-table-without-round", "POST", "/tables/{idle}/bets", "ana", _bets(), reason="betting-closed", status=409),
    Bad("bet-unknown-table", "POST", "/tables/no-such-table/bets", "ana", _bets(), reason="no-table", status=404),
    Bad("bet-at-a-table-in-play", "POST", "/tables/{deluxe}/bets", "ana", _bets(type="behind", seat=2),
        reason="betting-closed", status=409),
    # decisions
    *[Bad(f"decision-seat-{seat!r}", "POST", DECIDE, "ana", {"seat": seat, "action": "stand"})
      for seat in (0, 8, -1, "1", 1.5, None, True)],
    *[Bad(f"decision-action-{action!r}", "POST", DECIDE, "ana", {"seat": 1, "action": action})
      for action in ("fold", "timeout", "HIT", "", None, 1, ["hit"])],
    Bad("decision-hand-2", "POST", DECIDE, "ana", {"seat": 1, "action": "hit", "hand": 2}),
    Bad("decision-hand-string", "POST", DECIDE, "ana", {"seat": 1, "action": "hit", "hand": "one"}),
    Bad("decision-behind-object", "POST", DECIDE, "ana", {"seat": 1, "action": "hit", "behind": {"x": 1}}),
    Bad("decision-unknown-field", "POST", DECIDE, "ana", {"seat": 1, "action": "stand", "amount": 500}),
    Bad("decision-missing-action", "POST", DECIDE, "ana", {"seat": 1}),
    Bad("decision-missing-seat", "POST", DECIDE, "ana", {"action": "stand"}),
    Bad("decision-no-idempotency-key", "POST", DECIDE, "ana", {"seat": 1, "action": "stand"}, key=None),
    Bad("decision-unknown-round", "POST", "/rounds/no-such-round/decisions", "ana", {"seat": 1, "action": "stand"},
        reason="no-round", status=404),
    Bad("decision-round-id-too-long", "POST", "/rounds/" + "r" * 97 + "/decisions", "ana",
        {"seat": 1, "action": "stand"}),
    Bad("decision-seated-action-behind", "POST", DECIDE, "chloe", {"seat": 1, "action": "hit", "behind": True},
        reason="bad-action", status=None),
    # tables
    Bad("table-unknown-game", "POST", "/tables", "operator", {"game": "poker", "reader_id": "r-1"}),
    Bad("table-missing-game", "POST", "/tables", "operator", {"reader_id": "r-1"}),
    Bad("table-missing-reader", "POST", "/tables", "operator", {"game": "baccarat"}),
    Bad("table-reader-with-space", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": "r 1"}),
    Bad("table-reader-empty", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": ""}),
    Bad("table-reader-number", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": 7}),
    Bad("table-id-pattern", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "table_id": "a/b#c"}),
    Bad("table-id-too-long", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "table_id": "t" * 41}),
    Bad("table-name-too-long", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "name": "n" * 81}),
    Bad("table-unknown-field", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": "r-1", "owner": "x"}),
    Bad("table-rules-not-object", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": "r-1", "rules": []}),
    Bad("table-rules-unknown-rule", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "rules": {"jokers": True}}, reason="bad-rules", status=400),
    Bad("table-rules-bad-timer", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "rules": {"timers": {"countdown": -1}}}, reason="bad-rules",
        status=400),
    Bad("table-rules-bad-payout", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "rules": {"payouts": {"tie": "8:0"}}}, reason="bad-rules",
        status=400),
    Bad("table-rules-inverted-limit", "POST", "/tables", "operator",
        {"game": "blackjack", "reader_id": "r-1", "rules": {"limits": {"seat": {"min": 500, "max": 100}}}},
        reason="bad-rules", status=400),
    Bad("table-rules-seats-at-baccarat", "POST", "/tables", "operator",
        {"game": "baccarat", "reader_id": "r-1", "rules": {"seats": 7}}, reason="bad-rules", status=400),
    Bad("table-exists", "POST", "/tables", "operator", {"game": "baccarat", "reader_id": "r-1", "table_id": "{idle}"},
        reason="table-exists", status=409),
    Bad("configure-unknown-field", "PATCH", "/tables/{config}", "operator", {"seats": 3}),
    Bad("configure-rules-not-object", "PATCH", "/tables/{config}", "operator", {"rules": "fast"}),
    Bad("configure-reader-empty", "PATCH", "/tables/{config}", "operator", {"reader_id": ""}),
    Bad("configure-bad-rules", "PATCH", "/tables/{config}", "operator", {"rules": {"timers": {"decision": 0}}},
        reason="bad-rules", status=400),
    Bad("configure-during-a-round", "PATCH", "/tables/{betting}", "operator", {"reader_id": "reader-other"},
        reason="round-in-play", status=409),
    Bad("configure-unknown-table", "PATCH", "/tables/no-such-table", "operator", {"reader_id": "r-2"},
        reason="no-table", status=404),
    # seats
    *[Bad(f"seat-{seat}", "PUT", f"/tables/{{idle_bj}}/seats/{seat}", "ben") for seat in ("0", "8", "-1", "one",
                                                                                          "1.5", "99999999999")],
    Bad("leave-seat-0", "DELETE", "/tables/{idle_bj}/seats/0", "ana"),
    Bad("seat-unknown-table", "PUT", "/tables/no-such-table/seats/1", "ben", reason="no-table", status=404),
    # shoes and rounds
    Bad("shoe-id-pattern", "POST", "/tables/{idle}/shoes", "dealer", {"shoe_id": "s 1"}),
    Bad("shoe-id-number", "POST", "/tables/{idle}/shoes", "dealer", {"shoe_id": 1}),
    Bad("shoe-unknown-field", "POST", "/tables/{idle}/shoes", "dealer", {"decks": 6}),
    Bad("shoe-during-a-round", "POST", "/tables/{betting}/shoes", "dealer", {}, reason="round-in-play", status=409),
    Bad("round-during-a-round", "POST", "/tables/{betting}/rounds", "dealer", reason="round-in-play", status=409),
    Bad("round-without-shoe", "POST", "/tables/{no_shoe}/rounds", "dealer", reason="no-shoe", status=409),
    Bad("round-unknown-table", "POST", "/tables/no-such-table/rounds", "dealer", reason="no-table", status=404),
    # round control
    Bad("control-unknown", "POST", "/rounds/{round_deluxe}/abort", "supervisor", {"reason": "x"}),
    Bad("control-no-body", "POST", "/rounds/{round_deluxe}/pause", "supervisor"),
    Bad("control-reason-empty", "POST", "/rounds/{round_deluxe}/pause", "supervisor", {"reason": ""}),
    Bad("control-reason-too-long", "POST", "/rounds/{round_deluxe}/void", "supervisor", {"reason": "r" * 201}),
    Bad("control-reason-number", "POST", "/rounds/{round_deluxe}/void", "supervisor", {"reason": 1}),
    Bad("control-unknown-field", "POST", "/rounds/{round_deluxe}/void", "supervisor", {"refund": False}),
    Bad("pause-in-betting", "POST", "/rounds/{round_betting}/pause", "supervisor", {}, reason="not-pausable",
        status=409),
    Bad("void-in-betting", "POST", "/rounds/{round_betting}/void", "supervisor", {}, reason="not-voidable",
        status=409),
    Bad("resume-not-paused", "POST", "/rounds/{round_deluxe}/resume", "supervisor", {}, reason="not-paused",
        status=409),
    Bad("control-unknown-round", "POST", "/rounds/no-such-round/void", "supervisor", {}, reason="no-round",
        status=404),
    # wallets
    *[Bad(f"deposit-amount-{name}", "POST", DEPOSIT, "operator", {"amount": value}) for name, value in AMOUNTS.items()],
    *[Bad(f"withdraw-amount-{name}", "POST", WITHDRAW, "operator", {"amount": AMOUNTS[name]})
      for name in ("negative", "zero", "huge", "fractional", "string", "null")],
    *[Bad(f"deposit-amount-not-whole-{text}", "POST", DEPOSIT, "operator", raw=f'{{"amount": {text}}}')
      for text in NOT_WHOLE],
    *[Bad(f"bet-amount-not-whole-{text}", "POST", BET, "ana",
          raw=f'{{"bets": [{{"type": "player", "amount": {text}}}]}}') for text in NOT_WHOLE],
    Bad("deposit-missing-amount", "POST", DEPOSIT, "operator", {"reference": "x"}),
    Bad("deposit-reference-too-long", "POST", DEPOSIT, "operator", {"amount": 100, "reference": "r" * 129}),
    Bad("deposit-unknown-field", "POST", DEPOSIT, "operator", {"amount": 100, "currency": "EUR"}),
    Bad("deposit-no-idempotency-key", "POST", DEPOSIT, "operator", {"amount": 100}, key=None),
    Bad("deposit-player-id-too-long", "POST", "/wallets/" + "p" * 65 + "/deposits", "operator", {"amount": 100}),
    Bad("withdraw-beyond-balance", "POST", WITHDRAW, "operator", {"amount": 10**12}, reason="insufficient-funds",
        status=409),
    Bad("withdraw-empty-wallet", "POST", "/wallets/nobody-at-all/withdrawals", "operator", {"amount": 1},
        reason="insufficient-funds", status=409),
    # queries
    *[Bad(f"bet-record-limit-{limit}", "GET", f"/players/{{p_ana}}/bets?limit={limit}", "ana")
      for limit in ("0", "101", "-1", "abc", "1.5", "1e1")],
    Bad("bet-record-cursor-not-base64", "GET", "/players/{p_ana}/bets?cursor=%25%25%25", "ana", reason="bad-cursor",
        status=400),
    Bad("bet-record-cursor-not-json", "GET", "/players/{p_ana}/bets?cursor=bm90IGpzb24=", "ana", reason="bad-cursor",
        status=400),
    Bad("bet-record-cursor-list", "GET", "/players/{p_ana}/bets?cursor=WzFd", "ana", reason="bad-cursor", status=400),
    Bad("bet-record-cursor-too-long", "GET", "/players/{p_ana}/bets?cursor=" + "A" * 513, "ana"),
    # a query parameter the route does not take (a misspelt one would otherwise be ignored silently)
    Bad("bet-record-misspelt-limit", "GET", "/players/{p_ana}/bets?limt=5", "ana"),
    Bad("lobby-unknown-parameter", "GET", "/tables?game=baccarat", "ana"),
    Bad("table-rounds-nameless-parameter", "GET", "/tables/{betting}/rounds?=null", "ana"),
    Bad("wallet-query-parameter", "GET", "/wallets/{p_ana}?currency=EUR", "ana"),
    Bad("deposit-query-parameter", "POST", DEPOSIT + "?amount=100", "operator", {"amount": 100}),
    Bad("table-unknown", "GET", "/tables/no-such-table", "ana", reason="no-table", status=404),
    Bad("round-unknown", "GET", "/rounds/no-such-round", "ana", reason="no-round", status=404),
    Bad("round-id-too-long", "GET", "/rounds/" + "r" * 97, "ana"),
]


@pytest.mark.parametrize("bad", MALFORMED, ids=lambda b: b.id)
def test_malformed_or_refused_requests_are_4xx_with_a_reason_and_change_nothing(arena: Arena, bad: Bad) -> None:
    before_tables = table_count() if bad.path == "/tables" else None
    arena.before()
    key = uuid.uuid4().hex if bad.key == "fresh" else bad.key
    body = json.loads(arena.fill(json.dumps(bad.body))) if bad.body is not NOBODY else NOBODY
    reply = arena.api.request(bad.method, arena.fill(bad.path), body, raw=bad.raw,
                              token=arena.token(bad.who, path=bad.path), key=key)
    assert_refused(reply, *((bad.status,) if bad.status else ()))
    if bad.reason:
        assert reply.reason == bad.reason, reply
    arena.check(bad.id)
    if before_tables is not None:
        assert table_count() == before_tables


def test_a_reused_idempotency_key_with_another_request_is_refused_and_moves_nothing(arena: Arena) -> None:
    api, world = arena.api, arena.world()
    key = uuid.uuid4().hex
    first = api.request("POST", arena.fill(DEPOSIT), {"amount": 700}, token=arena.token("operator"), key=key)
    assert first.status == 200, first
    before = world.take()
    again = api.request("POST", arena.fill(DEPOSIT), {"amount": 700}, token=arena.token("operator"), key=key)
    assert first.json["replayed"] is False
    assert again.status == 200 and again.json == {**first.json, "replayed": True}  # the first answer, moves nothing
    for body in ({"amount": 701}, {"amount": 700, "reference": "another"}):
        reply = api.request("POST", arena.fill(DEPOSIT), body, token=arena.token("operator"), key=key)
        assert_refused(reply, 422)
        assert reply.reason == "idempotency-key-reused"
    assert_unchanged(before, world.take(), "idempotency key reused")


def test_a_withdrawal_that_keeps_losing_its_race_is_a_409_and_moves_nothing(arena: Arena,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    player = f"race-{uuid.uuid4().hex[:8]}"
    operator = arena.token("operator")
    funded = arena.api.request("POST", f"/wallets/{player}/deposits", {"amount": 5000}, token=operator,
                               key=uuid.uuid4().hex)
    assert funded.status == 200, funded
    world = World(lambda: [], lambda: [], lambda: [player])
    before = world.take()
    lost: list[int] = []
    real_client = store.client

    class Racing:
        """DynamoDB cancels every transaction on this wallet: its version moved meanwhile, each time."""

        def __init__(self, client: Any) -> None:
            self.client = client

        def __getattr__(self, name: str) -> Any:
            return getattr(self.client, name)

        def transact_write_items(self, **kwargs: Any) -> Any:
            items = kwargs["TransactItems"]
            if not any(item.get("Put", {}).get("Item", {}).get("pk") == f"WALLET#{player}" for item in items):
                return self.client.transact_write_items(**kwargs)
            lost.append(len(items))
            reasons = [{"Code": "None"}] * (len(items) - 1) + [{"Code": "ConditionalCheckFailed"}]
            raise ClientError({"Error": {"Code": "TransactionCanceledException", "Message": "Transaction cancelled"},
                               "CancellationReasons": reasons}, "TransactWriteItems")

    key = uuid.uuid4().hex
    with monkeypatch.context() as patch:
        patch.setattr(store, "client", lambda at_once=False: Racing(real_client()))
        reply = arena.api.request("POST", f"/wallets/{player}/withdrawals", {"amount": 1000}, token=operator, key=key)
    assert lost, "the withdrawal never reached its transaction"
    assert_refused(reply, 409)
    assert reply.reason == "busy"
    assert_unchanged(before, world.take(), "a withdrawal that lost its race")
    again = arena.api.request("POST", f"/wallets/{player}/withdrawals", {"amount": 1000}, token=operator, key=key)
    assert again.status == 200 and again.json["balance"] == 4000, again  # the race over, a retry moves it once


# --- table events ----------------------------------------------------------------------------



def source(device: str, detail: Any, arena: Arena) -> str:
    """The bus source a device of the detail's table uses (a device of the arena's ``closed`` table
    when the detail names none); ``=source`` or a device outside the two kinds sends as it is."""
    if device.startswith("="):
        return device[1:]
    if device not in (READER, CONSOLE):
        return device
    table = detail.get("table_id") if isinstance(detail, dict) else None
    return f"{device}.{table if isinstance(table, str) and table else arena.names['closed']}"


def _card(arena: Arena, table: str, card: Any = "5S", **extra: Any) -> dict[str, Any]:
    """A scan refused before it is recorded: its reader's number (1) is never used."""
    return {"table_id": arena.names[table], "reader_id": f"reader-{arena.names[table]}",
            "scan_id": uuid.uuid4().hex[:16], "card": card, "seq": 1, **extra}


BAD_CARDS = ["10H", "td", "Td", "tD", "T", "TDX", "", " TD", "TD ", "XX", "1S", "0H", "AZ", "JK", "🂡", "T\u0000",
             10, None, True, ["TD"], {"rank": "T", "suit": "D"}]


@pytest.fixture(scope="module")
def tap(stack: LocalStack) -> Iterator[EventTap]:
    with EventTap(stack) as running:
        yield running


def _no_card(arena: Arena, table: str, **extra: Any) -> dict[str, Any]:
    return _without(_card(arena, table, **extra), "card")


EventCase = tuple[str, str, str, Callable[[Arena], Any]]
EVENT_CASES: list[EventCase] = [
    *[(f"bad-card-{card!r}", READER, "card-scanned", lambda a, c=card: _card(a, "closed", c)) for card in BAD_CARDS],
    *[(f"bad-card-{card!r}-{table}", READER, "card-scanned", lambda a, c=card, t=table: _card(a, t, c))
      for table in ("deluxe", "betting") for card in ("10H", "td", "", None)],
    ("card-unknown-field", READER, "card-scanned", lambda a: _card(a, "closed", extra="x")),
    ("card-face-down-field", READER, "card-scanned", lambda a: _card(a, "closed", face_up=False)),
    ("card-missing-card", READER, "card-scanned", lambda a: _no_card(a, "closed")),
    ("card-missing-scan-id", READER, "card-scanned", lambda a: _without(_card(a, "closed"), "scan_id")),
    ("card-missing-reader", READER, "card-scanned", lambda a: _without(_card(a, "closed"), "reader_id")),
    ("card-missing-table", READER, "card-scanned", lambda a: _without(_card(a, "closed"), "table_id")),
    ("card-table-number", READER, "card-scanned", lambda a: {**_card(a, "closed"), "table_id": 7}),
    ("card-table-too-long", READER, "card-scanned", lambda a: {**_card(a, "closed"), "table_id": "t" * 41}),
    ("card-scan-id-pattern", READER, "card-scanned", lambda a: {**_card(a, "closed"), "scan_id": "a b/c"}),
    ("card-scan-id-too-long", READER, "card-scanned", lambda a: {**_card(a, "closed"), "scan_id": "s" * 65}),
    ("card-scan-id-number", READER, "card-scanned", lambda a: {**_card(a, "closed"), "scan_id": 12345678}),
    ("card-from-the-console", CONSOLE, "card-scanned", lambda a: _card(a, "closed")),
    ("card-from-an-unregistered-reader", READER, "card-scanned",
     lambda a: {**_card(a, "closed"), "reader_id": "reader-intruder"}),
    ("card-from-another-tables-reader", READER, "card-scanned",
     lambda a: {**_card(a, "closed"), "reader_id": f"reader-{a.names['deluxe']}"}),
    ("card-for-an-unknown-table", READER, "card-scanned", lambda a: {**_card(a, "closed"), "table_id": "no-such"}),
    ("card-source-of-the-bare-reader", "=croupier.card-reader", "card-scanned", lambda a: _card(a, "closed")),
    ("card-source-of-another-table", f"{READER}.another-table", "card-scanned", lambda a: _card(a, "closed")),
    ("scan-failed-unknown-field", READER, "scan-failed", lambda a: _card(a, "closed")),
    ("scan-failed-from-the-console", CONSOLE, "scan-failed", lambda a: _no_card(a, "closed")),
    ("cut-card-from-the-console", CONSOLE, "cut-card", lambda a: _no_card(a, "closed")),
    ("cut-card-unregistered-reader", READER, "cut-card",
     lambda a: {**_no_card(a, "closed"), "reader_id": "reader-intruder"}),
    ("cut-card-unknown-table", READER, "cut-card", lambda a: {**_no_card(a, "closed"), "table_id": "no-such"}),
    ("cut-card-with-a-card", READER, "cut-card", lambda a: _card(a, "closed")),
    ("shuffle-from-the-reader", READER, "shoe-shuffled", lambda a: {"table_id": a.names["idle"], "shoe_id": "s-2"}),
    ("shuffle-unknown-field", CONSOLE, "shoe-shuffled", lambda a: {"table_id": a.names["idle"], "decks": 8}),
    ("shuffle-bad-shoe-id", CONSOLE, "shoe-shuffled", lambda a: {"table_id": a.names["idle"], "shoe_id": "s 1"}),
    ("shuffle-unknown-table", CONSOLE, "shoe-shuffled", lambda a: {"table_id": "no-such"}),
    ("burn-from-the-reader", READER, "burn-done", lambda a: {"table_id": a.names["idle"]}),
    ("burn-unknown-field", CONSOLE, "burn-done", lambda a: {"table_id": a.names["idle"], "cards": 3}),
    ("burn-naming-a-reader", CONSOLE, "burn-done", lambda a: {"table_id": a.names["idle"], "reader_id": "r-1"}),
    ("burn-unknown-table", CONSOLE, "burn-done", lambda a: {"table_id": "no-such"}),
    ("unknown-detail-type", READER, "card-dealt", lambda a: _card(a, "closed")),
    ("detail-type-case", READER, "Card-Scanned", lambda a: _card(a, "closed")),
    ("unknown-source", "croupier.somebody", "card-scanned", lambda a: _card(a, "closed")),
    ("detail-a-list", READER, "card-scanned", lambda a: [_card(a, "closed")]),
    ("detail-empty", READER, "card-scanned", lambda a: {}),
]


@pytest.mark.filterwarnings("ignore:EventDetail should be of type dict")
@pytest.mark.parametrize("case", EVENT_CASES, ids=lambda c: c[0])
def test_bad_table_events_are_refused_and_change_nothing(arena: Arena, tap: EventTap, case: EventCase) -> None:
    case_id, device, detail_type, build = case
    detail = build(arena)
    logs = {name: store.log_count(table) for name, table in arena.names.items()}
    arena.before()
    outcome = tap.send(source(device, detail, arena), detail_type, detail)
    assert_event_refused(outcome)
    arena.check(case_id)
    assert {name: store.log_count(table) for name, table in arena.names.items()} == logs  # nothing recorded
    if isinstance(detail, dict):
        assert once_marker(detail.get("table_id"), detail.get("scan_id")) is None


def test_device_events_the_table_cannot_take_are_kept_refused_and_told_and_change_nothing_else(
        stack: LocalStack, tap: EventTap, arena: Arena) -> None:
    """Valid events of the table's own devices that its state cannot take: each is recorded in
    the device log with what became of it, a supervisor is told, and no round, bet, wallet or
    shoe changes (a card drawn between rounds counts as drawn: it left the shoe)."""
    from tests.support.harness import Alerts

    h = Harness(stack)  # its own tables and players (the arena is named so that its snapshot is taken anew)
    listening = Alerts(stack)
    try:
        _events_the_table_cannot_take(h, tap, listening)
    finally:
        listening.close()


def _events_the_table_cannot_take(h: Harness, tap: EventTap, listening: Any) -> None:
    idle, playing, burning = h.table("idle-events"), h.table("playing-events"), h.table("burning-events")
    h.open_devices(idle, "baccarat", 61, cut_at=300, scan_burn=False, rules={"timers": LONG})
    h.open_devices(playing, "deluxe-blackjack", 62, cut_at=300, scan_burn=False, rules={"timers": SOLO})
    h.operator.post("/tables", {"game": "baccarat", "table_id": burning, "reader_id": f"reader-{burning}"})
    h.players["ana"].call("PUT", f"/tables/{playing}/seats/1")
    round_id = h.console(playing).post(f"/tables/{playing}/rounds")["round_id"]
    h.players["ana"].post(f"/tables/{playing}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]},
                          idempotent=True)
    wait_still(round_id, "playing")  # waits for its first card
    world = World(lambda: [idle, playing, burning], lambda: [round_id], lambda: [h.players["ana"].subject])
    cases = [
        (playing, CONSOLE, "shoe-shuffled", {"shoe_id": "mid-round"}, "refused", "shuffle between rounds"),
        (playing, CONSOLE, "burn-done", {}, "refused", "no burn is under way"),
        (idle, CONSOLE, "burn-done", {}, "refused", "no burn is under way"),
        (idle, READER, "scan-failed", {"scan_id": uuid.uuid4().hex[:16], "reason": "smudged"}, "noted", None),
        (idle, READER, "cut-card", {"scan_id": uuid.uuid4().hex[:16]}, "taken", None),
        (idle, READER, "cut-card", {"scan_id": uuid.uuid4().hex[:16]}, "refused", "already came out"),
        (burning, READER, "card-scanned", {"scan_id": uuid.uuid4().hex[:16], "card": "4S"}, "not-taken", "no shoe"),
    ]
    for table, device, detail_type, extra, state, why in cases:
        before = world.take()
        readers = {"reader_id": f"reader-{table}",
                   "seq": reader_seq(table, f"reader-{table}", extra["scan_id"])} if device == READER else {}
        detail = {"table_id": table, **readers, **extra}
        outcome = tap.send(f"{device}.{table}", detail_type, detail)
        assert outcome.get("recorded") not in (None, "refused", "duplicate"), outcome
        entry = store.log_entries(table)[-1]
        assert entry.kind == detail_type and entry.state == state, entry
        if why:
            assert why in (entry.reason or ""), entry
        after = world.take()
        changed = [d for d in differences(before, after) if not d.startswith(f"TABLE#{table}|META")]
        assert not changed, changed  # rounds, bets, wallets untouched
        if state != "taken":
            # (a table never shuffled has no shoe at all: ``get``)
            shoe_before = before[f"TABLE#{table}|META"].get("shoe")
            shoe_after = after[f"TABLE#{table}|META"].get("shoe")
            assert shoe_before == shoe_after, (shoe_before, shoe_after)
    told = {e["detail-type"] for e in listening.received()}
    assert {"device-event-refused", "card-not-taken"} <= told, told
    assert not store.load_round(round_id).paused
    h.supervisor.call("POST", f"/rounds/{round_id}/void", {"reason": "test over"})


# --- the Deluxe hole card --------------------------------------------------------------------


def _cards_in(view: Any) -> set[str]:
    text = json.dumps(view)
    return set(re.findall(r'"([AKQJT2-9][SHDC])"', text))


def test_the_hole_card_never_reaches_a_player_while_hidden(arena: Arena, still: None) -> None:
    api, hole = arena.api, arena.hole_card
    round_path = arena.fill("/rounds/{round_deluxe}")
    for who in ("ana", "ben", "chloe", "dev", "dealer", "operator", "supervisor"):
        token = arena.token(who)
        view = api.request("GET", round_path, token=token).json
        dealer = view["hands"]["dealer"]
        assert dealer["cards"] == ["6D", "??"] and dealer["revealed"] is False, (who, dealer)
        assert dealer["score"] == 6
        assert hole not in _cards_in(view), f"{who} sees the hole card: {view}"
        assert hole not in json.dumps(view)
        for path in ("/tables/{deluxe}",):
            assert hole not in api.request("GET", arena.fill(path), token=token).text
        if who in ("dealer", "operator", "supervisor"):  # the device log shows the hole card as a back
            log = api.request("GET", arena.fill("/tables/{deluxe}/log"),
                              token=arena.token(who, path="/tables/{deluxe}/log")).json
            assert [e["card"] for e in log["entries"] if e.get("round_id") == arena.rounds["deluxe"]][-1] == "??"
            assert hole not in json.dumps(log)
        if who in arena.h.players:
            for path in (f"/players/{{p_{who}}}/bets", f"/wallets/{{p_{who}}}"):
                assert hole not in api.request("GET", arena.fill(path), token=token).text


def test_the_hole_card_appears_once_revealed(stack: LocalStack, arena: Arena) -> None:
    h = arena.h
    table = f"reveal-{h.n}"
    devices, shoe = h.open_devices(table, "deluxe-blackjack", 27, cut_at=300, scan_burn=False, rules={"timers": SOLO})
    h.players["eli"].call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["TS", "6D", "7C", "QD", "5S"])  # seat TS 7C; dealer 6D, hole QD (16: draws the 5S)
    round_id = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    h.players["eli"].post(f"/tables/{table}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]},
                          idempotent=True)
    wait_still(round_id, "playing")
    for _ in range(4):
        devices.scan(shoe.draw(devices))
    wait_until(lambda: h.supervisor.get(f"/rounds/{round_id}")["expected"]["kind"] == "decision", timeout=60)
    eli, fay = h.players["eli"], h.players["fay"]
    for client in (eli, fay):
        hidden = client.get(f"/rounds/{round_id}")
        assert hidden["hands"]["dealer"]["cards"] == ["6D", "??"] and "QD" not in json.dumps(hidden)
    eli.post(f"/rounds/{round_id}/decisions", {"seat": 1, "action": "stand"}, idempotent=True)
    revealed = wait_until(lambda: (v := fay.get(f"/rounds/{round_id}"))["hands"]["dealer"]["revealed"] and v,
                          timeout=60)
    assert revealed["hands"]["dealer"]["cards"][:2] == ["6D", "QD"]
    assert revealed["hands"]["dealer"]["score"] >= 16
    devices.scan(shoe.draw(devices))
    final = wait_until(lambda: (v := eli.get(f"/rounds/{round_id}"))["status"] == "settled" and v, timeout=60)
    assert final["result"]["dealer"]["cards"] == ["6D", "QD", "5S"]
    assert final["bets"][0]["result"]["net"] == -1000
    h.audit_ok()


# --- bugs found and fixed: each test shows one that was (strict xfail until it was fixed) ----


def test_a_number_too_long_to_parse_is_refused_not_a_server_error(arena: Arena) -> None:
    world = arena.world()
    before = world.take()
    for method, path, raw, who in (
            ("POST", DEPOSIT, '{"amount": ' + "9" * 5000 + "}", "operator"),
            ("POST", BET, '{"bets": [{"type": "player", "amount": ' + "1" * 4400 + "}]}", "ana")):
        reply = arena.api.request(method, arena.fill(path), raw=raw, token=arena.token(who), key=uuid.uuid4().hex)
        assert reply.status < 500, reply
        assert_refused(reply, 422)
    assert_unchanged(before, world.take())


def test_configure_refuses_a_reader_id_no_reader_can_have(arena: Arena) -> None:
    world = arena.world()
    before = world.take()
    reply = arena.api.request("PATCH", arena.fill("/tables/{config}"), {"reader_id": "bad reader/#1"},
                              token=arena.token("operator"))
    try:
        assert_refused(reply, 422)
        assert_unchanged(before, world.take())
    finally:  # put the table's reader back if the bad one was taken
        arena.api.request("PATCH", arena.fill("/tables/{config}"), {"reader_id": f"reader-{arena.names['config']}"},
                          token=arena.token("operator"))


def test_decision_flags_of_the_wrong_type_are_refused(arena: Arena) -> None:
    world = arena.world()
    before = world.take()
    for who, body in (("chloe", {"seat": 1, "action": "insurance", "behind": "yes"}),
                      ("chloe", {"seat": 1, "action": "insurance", "behind": 1}),
                      ("ana", {"seat": 1, "action": "stand", "preselect": "on"}),
                      ("ana", {"seat": 1, "action": "hit", "hand": True})):
        reply = arena.api.request("POST", arena.fill(DECIDE), body, token=arena.token(who), key=uuid.uuid4().hex)
        assert_refused(reply, 422)
        assert reply.reason == "invalid-request", (body, reply)
    assert_unchanged(before, world.take())


def test_rules_refuse_limits_for_bet_types_the_game_does_not_have(arena: Arena) -> None:
    count = table_count()
    for game, rules in (("baccarat", {"limits": {"dragon": {"min": 1, "max": 5}}}),
                        ("pok-deng", {"limits": {"player-9": {"min": 1, "max": 5}}})):
        table_id = f"limits-{uuid.uuid4().hex[:8]}"
        reply = arena.api.request("POST", "/tables", {"game": game, "reader_id": "r-1", "table_id": table_id,
                                                      "rules": rules}, token=arena.token("operator"))
        assert_refused(reply, 400)
        assert reply.reason == "bad-rules"
    assert table_count() == count


def test_a_burn_done_naming_an_unregistered_reader_is_refused(arena: Arena, tap: EventTap) -> None:
    h = arena.h
    table = f"burn-{h.n}"
    h.operator.post("/tables", {"game": "baccarat", "table_id": table, "reader_id": f"reader-{table}",
                                "rules": {"timers": LONG}})
    devices = TableDevices(arena.api.stack.outputs["event_bus"], table, f"reader-{table}")
    devices.shuffled("shoe-burn")
    assert arena.api.stack.wait_handled(devices.last_event_id)  # the dealer draws once the console shows it
    devices.scan("9C")  # burns nine
    assert arena.api.stack.wait_handled(devices.last_event_id)  # the card's way is asynchronous
    world = World(lambda: [table], lambda: [], lambda: [])
    before = world.take()
    assert before[f"TABLE#{table}|META"]["shoe"]["phase"] == "burning"
    outcome = tap.send(f"{CONSOLE}.{table}", "burn-done", {"table_id": table, "reader_id": "reader-intruder"})
    assert_event_refused(outcome)
    assert_unchanged(before, world.take(), "burn-done from an unregistered reader")


def test_a_forged_bet_record_cursor_is_refused(arena: Arena) -> None:
    # dev has no bets: moto answers at once (with bets it fails the query after botocore's retries)
    for key in ({"a": 1}, {"pk": "WALLET#x", "sk": "BALANCE"}):
        cursor = base64.urlsafe_b64encode(json.dumps(key).encode()).decode()
        reply = arena.api.request("GET", arena.fill("/players/{p_dev}/bets?cursor=") + cursor,
                                  token=arena.token("dev"))
        assert_refused(reply, 400)
        assert reply.reason == "bad-cursor"


def test_a_json_body_sent_as_a_form_is_taken_or_refused_clearly(arena: Arena) -> None:
    player = f"ctype-{uuid.uuid4().hex[:8]}"
    reply = arena.api.request("POST", f"/wallets/{player}/deposits", {"amount": 100}, token=arena.token("operator"),
                              key=uuid.uuid4().hex, content_type="application/x-www-form-urlencoded")
    if reply.status == 200:
        return
    assert_refused(reply)
    assert "content-type" in reply.message.lower() or "json" in reply.message.lower(), reply


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml"])
def test_an_unsupported_content_type_is_refused_with_a_reason_and_a_message(arena: Arena, content_type: str) -> None:
    arena.before()
    for method, path, body, who in (("POST", DEPOSIT, {"amount": 100}, "operator"),
                                    ("POST", BET, {"bets": [{"type": "player", "amount": 100}]}, "ana"),
                                    ("POST", "/rounds/{round_deluxe}/pause", None, "supervisor")):
        reply = arena.api.request(method, arena.fill(path), body if body is not None else NOBODY,
                                  token=arena.token(who), key=uuid.uuid4().hex, content_type=content_type)
        assert_refused(reply, 415)
    arena.check("unsupported content type")


def test_a_redelivered_card_scan_changes_nothing_once_the_round_moved_on(arena: Arena, tap: EventTap) -> None:
    h = arena.h
    table = f"redeliver-{h.n}"
    devices, shoe = h.open_devices(table, "blackjack", 28, cut_at=300, scan_burn=False, rules={"timers": SOLO})
    # a duplicate arriving when no card is expected is not a card the round cannot place: it is none
    fay = h.players["fay"]
    fay.call("PUT", f"/tables/{table}/seats/1")
    shoe.prepare(["TS", "6D", "7C"])  # seat TS 7C against the dealer's 6D: seat 1 decides
    round_id = h.console(table).post(f"/tables/{table}/rounds")["round_id"]
    fay.post(f"/tables/{table}/bets", {"bets": [{"type": "seat", "seat": 1, "amount": 1000}]}, idempotent=True)
    wait_still(round_id, "playing")
    scans = [devices.scan(shoe.draw(devices)) for _ in range(3)]
    wait_until(lambda: (store.get(store.game_table(), store.round_key(round_id)) or {}).get(
        "expect_key") == "decision:1:0", timeout=60)
    wait_still(round_id, "playing")
    world = World(lambda: [table], lambda: [round_id], lambda: [fay.subject])
    before = world.take()
    try:
        outcome = tap.send(f"{READER}.{table}", "card-scanned", {"table_id": table, "reader_id": f"reader-{table}",
                                                                 "scan_id": scans[-1], "card": "7C",
                                                                 "seq": reader_seq(table, f"reader-{table}",
                                                                                   scans[-1])})  # again
        assert outcome["recorded"] == "duplicate" and outcome["taken"] == 0, outcome
        assert_unchanged(before, world.take(), "a redelivered scan")
    finally:
        with contextlib.suppress(ApiError):
            h.supervisor.call("POST", f"/rounds/{round_id}/void", {"reason": "test over"})
