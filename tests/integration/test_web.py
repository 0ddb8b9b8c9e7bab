"""The local page server (``croupier.local.web``): the pages, their config, and the local-only
token and test-scan endpoints, each request validated and refused with the API's error body."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from croupier.app.identity import issue_local_token, verify_local_token
from croupier.local.stack import LocalStack
from croupier.local.web import LOCAL_PLAYERS, LOCAL_TABLE

pytestmark = pytest.mark.integration


def call(stack: LocalStack, method: str, path: str, body: Any = None, token: str | None = None,
         content_type: str = "application/json") -> tuple[int, str, dict[str, Any] | str]:
    headers = {"Content-Type": content_type} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = (body if isinstance(body, bytes) else json.dumps(body).encode()) if body is not None else None
    request = urllib.request.Request(stack.web.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, kind, text = answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()
    except urllib.error.HTTPError as exc:
        status, kind, text = exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()
    return status, kind, json.loads(text) if kind.startswith("application/json") else text


def test_the_pages_and_their_config(stack: LocalStack) -> None:
    status, kind, page = call(stack, "GET", "/")
    assert status == 200 and kind.startswith("text/html") and '<script type="module" src="js/app.js">' in str(page)
    status, kind, _ = call(stack, "GET", "/js/app.js")
    assert status == 200 and kind.startswith("text/javascript")
    status, _, config = call(stack, "GET", "/config.json")
    assert status == 200 and config == {"mode": "local", "api": stack.api_url, "websocket": stack.screens.url,
                                        "local": {"token": "/local/token",
                                                  "devices": "/local/tables/{table}/devices",
                                                  "players": list(LOCAL_PLAYERS), "table": LOCAL_TABLE}}
    for missing in ("/nothing.js", "/../template.yaml", "/%2e%2e/template.yaml", "/js/../../pyproject.toml"):
        status, _, answer = call(stack, "GET", missing)
        assert status == 404 and answer["error"]["reason"] == "not-found", missing  # type: ignore[index]


def test_a_local_token_for_the_chosen_role_and_player(stack: LocalStack) -> None:
    status, _, answer = call(stack, "POST", "/local/token", {"role": "dealer", "subject": "console-x", "table": "x"})
    assert status == 200
    claims = verify_local_token(stack.jwt_secret, answer["token"])  # type: ignore[index]
    assert claims["sub"] == "console-x" and claims["cognito:groups"] == ["dealer"] and claims["custom:table"] == "x"
    for bad in ({"role": "admin", "subject": "a"}, {"role": "player", "subject": "a b"},
                {"role": "dealer", "subject": "c"}, {"role": "player", "subject": "a", "table": "x"},
                {"role": "player", "subject": "a", "admin": True}, {"role": "player"}):
        status, _, answer = call(stack, "POST", "/local/token", bad)
        assert status == 422 and answer["error"]["reason"] == "invalid-request", (bad, answer)  # type: ignore[index]
    status, _, answer = call(stack, "POST", "/local/token", b"role=player", content_type="text/plain")
    assert status == 415


def test_test_scans_need_the_tables_console_or_a_supervisor_and_valid_cards(stack: LocalStack) -> None:
    secret = stack.jwt_secret
    path = "/local/tables/web-scan-t/devices"
    scan = {"action": "scan", "cards": ["4S"]}
    assert call(stack, "POST", path, scan)[0] == 401
    assert call(stack, "POST", path, scan, token="not-a-token")[0] == 401
    player = issue_local_token(secret, "ana", "player")
    assert call(stack, "POST", path, scan, token=player)[2]["error"]["reason"] == "wrong-role"  # type: ignore[index]
    other = issue_local_token(secret, "console-other", "dealer", table="other")
    assert call(stack, "POST", path, scan, token=other)[2]["error"]["reason"] == "not-your-table"  # type: ignore[index]
    supervisor = issue_local_token(secret, "supervisor-1", "supervisor")
    for bad in ({"action": "scan"}, {"action": "burn", "cards": ["4S"]}, {"action": "deal"},
                {"action": "scan", "cards": ["4S"], "reader": "r"}):
        status, _, answer = call(stack, "POST", path, bad, token=supervisor)
        assert status == 422, (bad, answer)
    status, _, answer = call(stack, "POST", path, scan, token=supervisor)
    assert status == 404, answer  # no such table


def test_lost_answers_are_asked_for_a_route_the_api_has_with_a_valid_token(stack: LocalStack) -> None:
    from croupier.local.faults import faults_of

    path, token = "/local/faults", issue_local_token(stack.jwt_secret, "ana", "player")
    drop = {"drop": {"method": "GET", "route": "/tables/{table_id}", "count": 1}}
    assert call(stack, "POST", path, drop)[0] == 401
    for bad in ({"drop": {"method": "GET", "route": "/tables/{table_id}", "count": 11}},
                {"drop": {"method": "TRACE", "route": "/tables"}}, {"drop": {"route": "/tables"}},
                {"drop": {"method": "GET", "route": "tables"}}, {"drop": drop["drop"], "also": 1}):
        status, _, answer = call(stack, "POST", path, bad, token=token)
        assert status == 422 and answer["error"]["reason"] == "invalid-request", (bad, answer)  # type: ignore[index]
    status, _, answer = call(stack, "POST", path, {"drop": {"method": "DELETE", "route": "/tables"}}, token=token)
    assert status == 404 and answer["error"]["reason"] == "no-route"  # type: ignore[index]
    assert call(stack, "POST", path, drop, token=token)[0] == 200
    request = urllib.request.Request(f"{stack.api_url}/tables/web-lost-t", headers={"Authorization": f"Bearer {token}"})
    with pytest.raises((urllib.error.URLError, ConnectionError)):  # no answer at all: the connection closes
        urllib.request.urlopen(request, timeout=30).read()
    with pytest.raises(urllib.error.HTTPError) as answered:  # the next one is answered (no such table: 404)
        urllib.request.urlopen(request, timeout=30)
    assert answered.value.code == 404
    assert faults_of(stack).dropped[-1] == ("GET", "/tables/web-lost-t")


def test_the_sign_in_suggests_the_players_and_table_the_walkthrough_funds_and_creates(stack: LocalStack) -> None:
    from croupier.local.serve import walkthrough

    config = call(stack, "GET", "/config.json")[2]
    lines = walkthrough()
    players, table = config["local"]["players"], config["local"]["table"]  # type: ignore[index]
    assert players and all(any(f"/wallets/{p}/deposits" in line for line in lines) for p in players)
    assert any(f'"table_id": "{table}"' in line or f"/tables/{table}" in line for line in lines)
