"""The reference operator wallet over real HTTP: every call signed as Croupier signs it, every
answer read off the wire, and the wallet's own ledger checked after each case. The faults are
checked for what a client sees (a slow answer, no answer, a 503) and for what the ledger then
holds, since that pair is what the application's wallet client has to reason about."""

from __future__ import annotations

import http.client
import itertools
import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from croupier import wallet_contract as contract
from croupier.local.operator_wallet import REFUSAL_STATUS, Fault, OperatorWallet, main

OPERATOR, SECRET = "op-1", "s3cret"
NO_ANSWER = (http.client.HTTPException, ConnectionError, urllib.error.URLError)


@pytest.fixture
def wallet() -> Iterator[OperatorWallet]:
    with OperatorWallet(OPERATOR, SECRET, seed=7) as started:
        started.open_account("alice", 10_000)
        yield started


def send(wallet: OperatorWallet, call: str, body: Any, *, secret: str = SECRET, stamp: int | None = None,
         raw: bytes | None = None, headers: dict[str, str] | None = None, timeout: float = 3.0,
         method: str = "POST") -> tuple[int, dict[str, Any]]:
    """One call as Croupier makes it: canonical bytes, signed over the path as sent."""
    url = f"{wallet.url}/{call}"
    data = raw if raw is not None else contract.canonical(body)
    signed = contract.signed_headers(OPERATOR, secret, urlsplit(url).path, data,
                                     stamp if stamp is not None else int(time.time() * 1000))
    signed.update(headers or {})
    request = urllib.request.Request(url, data=data if method == "POST" else None, headers=signed, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def movement(tid: str, amount: int, player: str = "alice", **extra: Any) -> dict[str, Any]:
    return {"transaction_id": tid, "player": player, "amount": amount, "currency": "THB", "table_id": "bac-1",
            "round_id": "r-1", "bet_id": "b-1", **extra}


def debit(tid: str, amount: Any, player: str = "alice", **extra: Any) -> dict[str, Any]:
    return movement(tid, amount, player, **{"reason": "stake", **extra})


def credit(tid: str, amount: Any, player: str = "alice", **extra: Any) -> dict[str, Any]:
    return movement(tid, amount, player, **{"reason": "payout", **extra})


def cancel(tid: str, debit_id: str, amount: int, player: str = "alice") -> dict[str, Any]:
    return movement(tid, amount, player, cancels=debit_id)


def status_of(wallet: OperatorWallet, tid: str) -> dict[str, Any]:
    code, answer = send(wallet, "status", {"transaction_id": tid})
    assert code == 200
    return answer


def control(wallet: OperatorWallet, route: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{wallet.root}/_control/{route}", data=data, method="POST" if data else "GET",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=3) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# --- the five calls ------------------------------------------------------------------------------
def test_balance_debit_credit_and_status(wallet: OperatorWallet) -> None:
    assert send(wallet, "balance", {"player": "alice", "currency": "THB"}) == (200, {"status": "ok", "balance": 10_000})
    assert send(wallet, "debit", debit("d-1", 1_000)) == (200, {"status": "ok", "balance": 9_000,
                                                                "transaction_id": "d-1"})
    code, answer = send(wallet, "credit", credit("c-1", 2_000, debits=["d-1"]))
    assert (code, answer["status"], answer["balance"]) == (200, "ok", 11_000)
    assert wallet.balance("alice") == 11_000
    assert status_of(wallet, "d-1") == {"transaction_id": "d-1", "state": "applied", "kind": "debit",
                                        "amount": 1_000, "player": "alice"}
    assert status_of(wallet, "c-1")["kind"] == "credit"
    assert status_of(wallet, "nope") == {"transaction_id": "nope", "state": "unknown"}
    kinds = [(e["kind"], e["delta"], e["balance_after"]) for e in wallet.entries()]
    assert kinds == [("account", 10_000, 10_000), ("debit", -1_000, 9_000), ("credit", 2_000, 11_000)]


def test_a_zero_credit_closes_a_lost_bet_and_is_recorded(wallet: OperatorWallet) -> None:
    send(wallet, "debit", debit("d-1", 500))
    code, answer = send(wallet, "credit", movement("c-0", 0, reason="loss", debits=["d-1"]))
    assert (code, answer["balance"]) == (200, 9_500)
    assert wallet.transactions()["c-0"]["state"] == "applied"
    assert wallet.entries()[-1]["delta"] == 0


def test_insufficient_funds_records_nothing_and_the_same_id_succeeds_after_a_deposit(wallet: OperatorWallet) -> None:
    code, answer = send(wallet, "debit", debit("d-big", 50_000))
    assert (code, answer["error"]) == (402, "insufficient-funds")
    assert "d-big" not in wallet.transactions()
    assert status_of(wallet, "d-big")["state"] == "unknown"
    wallet.open_account("alice", 60_000)
    assert send(wallet, "debit", debit("d-big", 50_000))[1]["balance"] == 10_000
    assert wallet.stats()["refusals.insufficient-funds"] == 1


def test_a_repeat_is_already_processed_and_applied_once(wallet: OperatorWallet) -> None:
    for call, body in (("debit", debit("d-1", 700)), ("credit", credit("c-1", 300)),
                       ("cancel", cancel("x-1", "d-1", 700))):
        first = send(wallet, call, body)
        again = send(wallet, call, body)
        assert first[0] == again[0] == 200
        assert (first[1]["status"], again[1]["status"]) == ("ok", "already-processed")
        assert again[1]["transaction_id"] == body["transaction_id"]
    assert wallet.balance("alice") == 10_000 - 700 + 300 + 700
    assert len(wallet.entries()) == 4
    assert wallet.stats()["already-processed"] == 3


def test_a_reused_id_with_other_contents_is_a_conflict(wallet: OperatorWallet) -> None:
    send(wallet, "debit", debit("t-1", 100))
    for call, body in (("debit", debit("t-1", 101)), ("debit", debit("t-1", 100, bet_id="b-2")),
                       ("credit", credit("t-1", 100)), ("cancel", cancel("t-1", "d-x", 100))):
        code, answer = send(wallet, call, body)
        assert (code, answer["error"]) == (409, "transaction-conflict"), (call, body)
    assert wallet.balance("alice") == 9_900


def test_a_cancel_of_an_unknown_debit_succeeds_and_refuses_the_late_debit(wallet: OperatorWallet) -> None:
    assert send(wallet, "cancel", cancel("x-1", "d-late", 400)) == (200, {"status": "ok", "balance": 10_000,
                                                                         "transaction_id": "x-1"})
    assert status_of(wallet, "d-late") == {"transaction_id": "d-late", "state": "cancelled", "kind": "debit",
                                           "amount": 400, "player": "alice"}
    code, answer = send(wallet, "debit", debit("d-late", 400))
    assert (code, answer["error"]) == (409, "debit-cancelled")
    assert wallet.balance("alice") == 10_000
    tomb = wallet.transactions()["d-late"]
    assert (tomb["tombstone"], tomb["cancelled_by"], tomb["moved"]) == (True, "x-1", 0)
    # a second cancel of the same debit, under another id, has nothing more to do
    assert send(wallet, "cancel", cancel("x-2", "d-late", 400))[1]["status"] == "already-processed"


def test_a_cancel_of_an_applied_debit_gives_its_amount_back_once(wallet: OperatorWallet) -> None:
    send(wallet, "debit", debit("d-1", 2_500))
    assert send(wallet, "cancel", cancel("x-1", "d-1", 2_500))[1] == {"status": "ok", "balance": 10_000,
                                                                      "transaction_id": "x-1"}
    record = wallet.transactions()["d-1"]
    assert (record["state"], record["cancelled_by"]) == ("cancelled", "x-1")
    assert status_of(wallet, "d-1")["state"] == "cancelled"
    assert send(wallet, "cancel", cancel("x-2", "d-1", 2_500))[1]["status"] == "already-processed"
    assert send(wallet, "debit", debit("d-1", 2_500))[1]["error"] == "debit-cancelled"  # a late copy cannot revive it
    assert wallet.balance("alice") == 10_000


def test_a_cancel_must_name_a_debit_and_describe_it(wallet: OperatorWallet) -> None:
    send(wallet, "credit", credit("c-1", 100))
    send(wallet, "debit", debit("d-1", 300))
    for body in (cancel("x-1", "c-1", 100), cancel("x-2", "d-1", 299)):
        code, answer = send(wallet, "cancel", body)
        assert (code, answer["error"]) == (409, "transaction-conflict")
    assert send(wallet, "cancel", cancel("x-3", "x-3", 300))[1]["error"] == "invalid-request"
    assert wallet.balance("alice") == 9_800


def test_unknown_players_are_refused_or_opened(wallet: OperatorWallet) -> None:
    code, answer = send(wallet, "debit", debit("d-1", 1, player="nobody"))
    assert (code, answer["error"]) == (404, "unknown-player")
    with OperatorWallet(OPERATOR, SECRET, opening_balance=500) as generous:
        assert send(generous, "balance", {"player": "bob", "currency": "THB"})[1]["balance"] == 500
        assert send(generous, "credit", credit("c-1", 5, player="carol"))[1]["balance"] == 505


def test_a_blocked_player_cannot_stake_but_is_still_paid(wallet: OperatorWallet) -> None:
    wallet.block("alice")
    assert send(wallet, "debit", debit("d-1", 1)) == (403, {"error": "player-blocked",
                                                            "message": "player 'alice' may not play"})
    assert send(wallet, "credit", credit("c-1", 10))[0] == 200


def test_refusal_statuses_follow_the_contract() -> None:
    assert REFUSAL_STATUS == {"insufficient-funds": 402, "unknown-player": 404, "transaction-conflict": 409,
                              "debit-cancelled": 409, "bad-signature": 401, "stale-request": 401,
                              "invalid-request": 400, "player-blocked": 403, "unknown-call": 404}
    # the prose of each refusal says the same status
    assert {code: int(re.search(r"\((\d{3})\)", text).group(1))  # type: ignore[union-attr]
            for code, text in contract.REFUSALS.items()} == REFUSAL_STATUS


# --- refused requests change nothing -------------------------------------------------------------
STALE = int(time.time() * 1000) - contract.SIGNATURE_WINDOW_MS - 60_000


@pytest.mark.parametrize(("case", "kwargs", "status", "code", "names"), [
    ("wrong secret", {"secret": "guess"}, 401, "bad-signature", None),
    ("tampered body", {"tampered": True}, 401, "bad-signature", None),
    ("stale timestamp", {"stamp": STALE}, 401, "stale-request", None),
    ("a non-ASCII digit timestamp", {"headers": {contract.HEADER_TIMESTAMP: "\u00b2"}}, 401, "bad-signature", None),
    ("no signature", {"headers": {contract.HEADER_SIGNATURE: ""}}, 401, "bad-signature", None),
    ("another operator", {"headers": {contract.HEADER_OPERATOR: "op-2"}}, 401, "bad-signature", None),
    ("wrong currency", {"body": debit("d-1", 100, currency="USD")}, 400, "invalid-request", "currency"),
    ("unknown field", {"body": debit("d-1", 100, tip=5)}, 400, "invalid-request", "tip"),
    ("negative amount", {"body": credit("d-1", -5)}, 400, "invalid-request", "amount"),
    ("zero debit", {"body": debit("d-1", 0)}, 400, "invalid-request", "amount"),
    ("amount as a float", {"body": debit("d-1", 1.0)}, 400, "invalid-request", "amount"),
    ("unknown reason", {"body": debit("d-1", 1, reason="tip")}, 400, "invalid-request", "reason"),
    ("not JSON", {"raw": b"{debit"}, 400, "invalid-request", "JSON"),
])
def test_a_refused_request_changes_nothing(wallet: OperatorWallet, case: str, kwargs: dict[str, Any], status: int,
                                           code: str, names: str | None) -> None:
    before = (wallet.transactions(), wallet.entries())
    body = kwargs.pop("body", debit("d-9", 100))
    if kwargs.pop("tampered", False):  # the signature of a 1 debit, sent with a 100 debit
        signed = contract.signed_headers(OPERATOR, SECRET, "/wallet/debit", contract.canonical(debit("d-9", 1)),
                                         int(time.time() * 1000))
        kwargs["headers"] = {contract.HEADER_SIGNATURE: signed[contract.HEADER_SIGNATURE]}
    got_status, answer = send(wallet, "debit", body, **kwargs)
    assert (got_status, answer["error"]) == (status, code), answer
    if names:
        assert names in answer["message"]
    assert (wallet.transactions(), wallet.entries()) == before
    assert wallet.stats()[f"refusals.{code}"] == 1


def test_unknown_call_and_wrong_method(wallet: OperatorWallet) -> None:
    assert send(wallet, "withdraw", {})[0] == 404
    assert send(wallet, "balance", None, method="GET")[0] == 405


# --- faults --------------------------------------------------------------------------------------
def test_latency_delays_then_applies(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("latency", ms=150))
    started = time.monotonic()
    assert send(wallet, "debit", debit("d-1", 100))[0] == 200
    assert time.monotonic() - started >= 0.15
    assert wallet.balance("alice") == 9_900
    assert wallet.stats()["faults.latency"] == 1


def test_timeout_holds_the_answer_past_the_client_and_applies_nothing(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("timeout", ms=2_000, times=1))
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        send(wallet, "debit", debit("d-1", 100), timeout=0.3)
    assert wallet.balance("alice") == 10_000
    assert status_of(wallet, "d-1")["state"] == "unknown"
    assert wallet.stats()["faults.timeout"] == 1
    started = time.monotonic()
    wallet.stop()  # the held request is woken, not waited for
    assert time.monotonic() - started < 1.0


def test_a_timeout_answers_504_to_a_patient_client(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("timeout", ms=50))
    assert send(wallet, "debit", debit("d-1", 100))[0] == 504
    assert wallet.transactions() == {}


def test_lost_applies_but_answers_nothing(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("lost", call="debit", times=1))
    with pytest.raises(NO_ANSWER):
        send(wallet, "debit", debit("d-1", 100))
    assert wallet.balance("alice") == 9_900
    assert status_of(wallet, "d-1")["state"] == "applied"
    # the client's retry of the same debit learns it went through
    assert send(wallet, "debit", debit("d-1", 100))[1]["status"] == "already-processed"


def test_duplicate_is_applied_once_and_answered_already_processed(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("duplicate"))
    assert send(wallet, "debit", debit("d-1", 100))[1] == {"status": "already-processed", "balance": 9_900,
                                                           "transaction_id": "d-1"}
    assert wallet.balance("alice") == 9_900
    stats = wallet.stats()
    assert (stats["requests.debit"], stats["faults.duplicate"], stats["already-processed"]) == (1, 1, 1)


@pytest.mark.parametrize("kind", ["down", "error"])
def test_down_and_error_answer_503_and_apply_nothing(wallet: OperatorWallet, kind: str) -> None:
    wallet.inject(Fault(kind))  # type: ignore[arg-type]
    for call, body in (("debit", debit("d-1", 100)), ("credit", credit("c-1", 100)),
                       ("balance", {"player": "alice", "currency": "THB"})):
        assert send(wallet, call, body)[0] == 503
    assert wallet.transactions() == {}
    assert wallet.stats()[f"faults.{kind}"] == 3
    wallet.clear_faults()
    assert send(wallet, "debit", debit("d-1", 100))[0] == 200


def test_times_expire_and_call_targets_one_call(wallet: OperatorWallet) -> None:
    wallet.inject(Fault("error", call="credit", times=2))
    assert send(wallet, "debit", debit("d-1", 100))[0] == 200  # not a credit: untouched, and not counted
    assert [send(wallet, "credit", credit("c-1", 50))[0] for _ in range(3)] == [503, 503, 200]
    assert wallet.faults() == []
    assert wallet.stats()["faults.error"] == 2
    assert wallet.balance("alice") == 9_950


def test_a_rate_draws_from_the_seeded_generator() -> None:
    def outcomes(seed: int) -> list[int]:
        with OperatorWallet(OPERATOR, SECRET, seed=seed, opening_balance=0) as w:
            w.inject(Fault("error", call="balance", rate=0.5))
            return [send(w, "balance", {"player": "p", "currency": "THB"})[0] for _ in range(30)]

    first = outcomes(3)
    assert first == outcomes(3)
    assert 0 < first.count(503) < 30


def test_faults_are_validated() -> None:
    for bad in ({"kind": "explode"}, {"kind": "error", "call": "withdraw"}, {"kind": "error", "times": 0},
                {"kind": "error", "rate": 1.5}, {"kind": "latency", "ms": -1}, {"kind": "error", "typo": 1}, {}):
        with pytest.raises(ValueError):
            Fault.from_dict(bad)


# --- the control surface, concurrency, restarts, the report ----------------------------------------
def test_the_control_surface(wallet: OperatorWallet) -> None:
    assert control(wallet, "accounts", {"player": "bob", "balance": 300})[1] == {"player": "bob", "balance": 300,
                                                                                   "blocked": False}
    assert control(wallet, "faults", [{"kind": "error", "call": "debit", "times": 1}])[0] == 200
    assert send(wallet, "debit", debit("d-1", 100, player="bob"))[0] == 503
    assert send(wallet, "debit", debit("d-1", 100, player="bob"))[0] == 200
    code, ledger = control(wallet, "ledger")
    assert code == 200
    assert ledger["balances"] == {"alice": 10_000, "bob": 200}
    assert list(ledger["transactions"]) == ["d-1"]
    assert ledger["stats"]["faults.error"] == 1
    assert control(wallet, "faults", [{"kind": "bogus"}])[0] == 400
    assert control(wallet, "faults", {"kind": "error"})[0] == 400
    assert control(wallet, "accounts", {"player": "bob", "balance": -1})[0] == 400
    assert control(wallet, "faults", [])[1] == {"faults": []}


def test_concurrent_debits_never_overdraw(wallet: OperatorWallet) -> None:
    wallet.open_account("alice", 15_000)  # 50 of the 96 debits fit
    answers: list[int] = []
    lock = threading.Lock()

    def stake(worker: int) -> None:
        for n in range(12):
            code, _ = send(wallet, "debit", debit(f"d-{worker}-{n}", 300))
            with lock:
                answers.append(code)

    threads = [threading.Thread(target=stake, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    applied = answers.count(200)
    assert applied == 15_000 // 300 and answers.count(402) == 96 - applied
    assert wallet.balance("alice") == 15_000 - 300 * applied >= 0
    debits = [e for e in wallet.entries() if e["kind"] == "debit"]
    assert len(debits) == applied and all(e["balance_after"] >= 0 for e in debits)
    assert all(a["balance_after"] == b["balance_before"] for a, b in itertools.pairwise(debits))


def test_a_restarted_wallet_keeps_its_url_and_ledger(wallet: OperatorWallet) -> None:
    send(wallet, "debit", debit("d-1", 100))
    url = wallet.url
    wallet.stop()
    with pytest.raises(NO_ANSWER):
        send(wallet, "balance", {"player": "alice", "currency": "THB"}, timeout=0.5)
    wallet.start()
    assert wallet.url == url
    assert send(wallet, "debit", debit("d-1", 100))[1]["status"] == "already-processed"


def test_the_report_round_trips(wallet: OperatorWallet, tmp_path: Path) -> None:
    send(wallet, "debit", debit("d-1", 100))
    send(wallet, "credit", credit("c-1", 0, debits=["d-1"]))
    send(wallet, "cancel", cancel("x-1", "d-unseen", 50))
    report = tmp_path / "report.jsonl"
    wallet.write_report(report)
    assert len(report.read_text().splitlines()) == 4
    assert OperatorWallet.read_report(report) == wallet.transactions()
    report.write_text('{"kind": "debit"}\n')
    with pytest.raises(ValueError, match=r"report\.jsonl:1"):
        OperatorWallet.read_report(report)


# --- the command line ----------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    [],
    ["--operator", "op 1", "--secret", "s"],
    ["--operator", "op-1", "--secret", ""],
    ["--operator", "op-1", "--secret", "s", "--port", "70000"],
    ["--operator", "op-1", "--secret", "s", "--port", "http"],
    ["--operator", "op-1", "--secret", "s", "--opening-balance", "-5"],
    ["--operator", "op-1", "--secret", "s", "--currency", "thb"],
    ["--operator", "op-1", "--secret", "s", "--account", "alice"],
])
def test_the_command_line_refuses_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_the_command_line_serves_until_stopped() -> None:
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, "-m", "croupier.local.operator_wallet", "--operator", OPERATOR,
                                "--secret", SECRET, "--account", "alice=42"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/wallet")
        with urllib.request.urlopen(url.removesuffix("/wallet") + "/_control/ledger", timeout=3) as response:
            assert json.loads(response.read())["balances"] == {"alice": 42}
    finally:
        process.terminate()
        process.wait(timeout=5)
    assert process.returncode == 0
