"""The API's contract where it does not need the local stack: the template's gateway answers and the
local gateway's are the same, the document's bet types are the engines', whole numbers are read
exactly, and local tokens are checked strictly (PyJWT)."""

from __future__ import annotations

import json
import time
import warnings
from typing import Any, get_args

import jwt
import pytest

from croupier.app.api import _json_body
from croupier.app.errors import CORS_ALLOW_HEADERS, GATEWAY_ERRORS, Unauthorized
from croupier.app.identity import issue_local_token, verify_local_token
from croupier.app.models import BaccaratBetType, BlackjackBetType, PokDengBetType
from croupier.app.openapi import openapi_document
from croupier.games import baccarat, blackjack, pokdeng
from croupier.local import template as tpl
from croupier.local.stack import project_root

SECRET = "a-local-signing-key-of-32-bytes-or-more"


def _api() -> dict[str, Any]:
    resource: dict[str, Any] = tpl.load(project_root() / "template.yaml")["Resources"]["CroupierApi"]["Properties"]
    return resource


def test_the_template_gateway_answers_are_the_local_gateways() -> None:
    responses = _api()["GatewayResponses"]
    assert set(responses) == set(GATEWAY_ERRORS)
    for kind, (status, reason, message) in GATEWAY_ERRORS.items():
        answer = responses[kind]
        template = answer["ResponseTemplates"]["application/json"]
        if kind.startswith("DEFAULT_"):  # the status and the message are API Gateway's own
            assert "StatusCode" not in answer
            assert template == '{"error": {"reason": "' + reason + '", "message": $context.error.messageString}}'
        else:
            assert int(answer["StatusCode"]) == status
            assert json.loads(template) == {"error": {"reason": reason, "message": message}}
        assert "Access-Control-Allow-Origin" in answer["ResponseParameters"]["Headers"]


def test_the_template_cors_allows_the_headers_the_api_reads() -> None:
    cors = _api()["Cors"]
    assert cors["AllowHeaders"] == "'" + ",".join(CORS_ALLOW_HEADERS) + "'"
    assert "CorsAllowedOrigin" in json.dumps(cors["AllowOrigin"])


def test_the_documents_bet_types_are_the_engines() -> None:
    assert get_args(BlackjackBetType) == blackjack.BET_TYPES
    assert get_args(BaccaratBetType) == baccarat.BET_TYPES
    assert get_args(PokDengBetType) == pokdeng.BET_TYPES


def test_the_document_names_every_route_of_the_template() -> None:
    template = tpl.load(project_root() / "template.yaml")["Resources"]
    routes = {(event["Properties"]["Method"].upper(), event["Properties"]["Path"])
              for resource in template.values() if resource["Type"] == "AWS::Serverless::Function"
              for event in resource["Properties"].get("Events", {}).values() if event["Type"] == "Api"}
    document = openapi_document("/dev")
    assert document["servers"][0]["url"] == "/dev"
    assert {(m.upper(), p) for p, ops in document["paths"].items() for m in ops} == routes
    ids = {op["operationId"] for ops in document["paths"].values() for op in ops.values()}
    assert {"placeBets", "decide", "controlRound", "getTableLog", "getOpenApi", "getSwagger"} <= ids


@pytest.mark.parametrize(("text", "value"), [
    ("55641.0", 55641), ("1e3", 1000), ("1E+3", 1000), ("-2.50e1", -25), ("0.0", 0), ("100.000", 100),
    ("999999999999999999.0", 999999999999999999)])
def test_a_whole_number_with_a_fraction_or_an_exponent_is_that_integer(text: str, value: int) -> None:
    read = _json_body(f'{{"amount": {text}}}')["amount"]
    assert read == value and type(read) is int


@pytest.mark.parametrize("text", ["100.5", "100.0000000000000001", "1e-1", "1e19", "1e400", "-1e999999999"])
def test_a_number_that_is_not_a_small_whole_number_stays_a_float(text: str) -> None:
    started = time.monotonic()
    assert isinstance(_json_body(f'{{"amount": {text}}}')["amount"], float)
    assert time.monotonic() - started < 0.1  # a huge exponent builds no huge integer


def _claims(**extra: Any) -> dict[str, Any]:
    return {"sub": "ana", "cognito:groups": ["player"], "exp": int(time.time()) + 60, **extra}


def test_a_local_token_carries_the_cognito_claims() -> None:
    claims = verify_local_token(SECRET, issue_local_token(SECRET, "console-1", "dealer", "real", table="bac-1"))
    assert claims["sub"] == "console-1" and claims["cognito:groups"] == ["dealer"]
    assert claims["custom:table"] == "bac-1" and claims["custom:account_kind"] == "real"


def _bad_tokens() -> list[tuple[str, str]]:
    good = issue_local_token(SECRET, "ana", "player")
    head, body, signature = good.split(".")
    other = jwt.encode(_claims(sub="operator-1", **{"cognito:groups": ["operator"]}), SECRET, algorithm="HS256")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hs512 = jwt.encode(_claims(), SECRET, algorithm="HS512")
    return [
        ("exp not a number", jwt.encode(_claims(exp="tomorrow"), SECRET, algorithm="HS256")),
        ("exp a list", jwt.encode(_claims(exp=[1]), SECRET, algorithm="HS256")),
        ("no exp", jwt.encode({"sub": "ana"}, SECRET, algorithm="HS256")),
        ("no subject", jwt.encode({"exp": int(time.time()) + 60}, SECRET, algorithm="HS256")),
        ("expired", issue_local_token(SECRET, "ana", "player", ttl=-5)),
        ("alg none", jwt.encode(_claims(), None, algorithm="none")),
        ("another algorithm", hs512),
        ("another key", issue_local_token("another-signing-key-of-32-bytes-or-more", "ana", "operator")),
        ("a tampered body", f"{head}.{other.split('.')[1]}.{signature}"),
        ("a tampered signature", f"{head}.{body}.{signature[:-2]}AA"),
        ("not a JWT", "not-a-token"), ("empty", ""), ("three dots", "a.b.c"), ("binary", "\x00\xff.\x01.\x02"),
    ]


@pytest.mark.parametrize(("what", "token"), _bad_tokens(), ids=[w for w, _ in _bad_tokens()])
def test_a_bad_local_token_is_unauthorized_and_nothing_else(what: str, token: str) -> None:
    with pytest.raises(Unauthorized) as refused:
        verify_local_token(SECRET, token)
    assert refused.value.reason in ("bad-token", "expired-token"), what
