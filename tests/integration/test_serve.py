"""``make local`` prints example ``curl`` calls for people to try: run as printed, each works."""

from __future__ import annotations

import json
import shlex
import urllib.error
import urllib.request
import uuid

import pytest

from croupier.app.identity import issue_local_token
from croupier.local.serve import curl, examples
from croupier.local.stack import LocalStack

pytestmark = pytest.mark.integration


def _run(line: str, tokens: dict[str, str]) -> tuple[int, dict[str, object]]:
    """A printed curl line, read the way curl reads it (its shell variables filled in)."""
    for role, token in tokens.items():
        line = line.replace(f"${role.upper()}", token)
    words = shlex.split(line.replace("$(uuidgen)", uuid.uuid4().hex))
    assert words[:2] == ["curl", "-s"], line
    method, url, data, headers = "GET", "", None, {}
    rest = iter(words[2:])
    for word in rest:
        if word == "-X":
            method = next(rest)
        elif word == "-H":
            name, _, value = next(rest).partition(": ")
            headers[name] = value
        elif word == "-d":
            data = next(rest).encode()
            method = "POST" if method == "GET" else method
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")  # what curl sends
        else:
            url = word
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_printed_curl_calls_work_as_printed(stack: LocalStack) -> None:
    suffix = uuid.uuid4().hex[:8]
    player = f"alice-{suffix}"
    tokens = {role: issue_local_token(stack.jwt_secret, player if role == "player" else f"{role}-1", role)
              for role in ("operator", "player")}
    answers = [_run(curl(stack.api_url, *example), tokens) for example in examples(f"bac-{suffix}", player)]
    assert [status for status, _ in answers] == [201, 200, 200], answers
    assert answers[2][1]["balance"] == 100000
