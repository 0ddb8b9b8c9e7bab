"""``croupier device`` and ``croupier invoke`` refuse bad input before any AWS call, with one clear
line, and say what to do when there is no local stack to talk to."""

from __future__ import annotations

from pathlib import Path

import pytest

from croupier.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CROUPIER_LOCAL_STATE", str(tmp_path / "no-stack-here.json"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err.strip()


@pytest.mark.parametrize(("argv", "message"), [
    (["scan", "ZZ"], "card: Value error, card 'ZZ' has an unknown rank 'Z'"),
    (["scan", "9S", "1H"], "card '1H' has an unknown rank '1'"),
    (["scan", "9X"], "card '9X' has an unknown suit 'X'"),
    (["shuffle", "--shoe", "bad id"], "shoe_id: String should match pattern"),
    (["fail", "--reason", "x" * 201], "reason: String should have at most 200 characters"),
])
def test_a_bad_device_event_is_refused_before_it_is_sent(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                          message: str) -> None:
    code, err = _run(capsys, "device", "--table", "bac-1", *argv)
    assert code == 2 and err.startswith("croupier device: ") and message in err, err


def test_a_bad_table_or_reader_id_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "device", "--table", "t" * 41, "burn")
    assert code == 2 and "table_id: String should have at most 40 characters" in err
    code, err = _run(capsys, "device", "--table", "bac-1", "--reader", "no spaces", "cut")
    assert code == 2 and "reader_id: String should match pattern" in err


def test_without_a_local_stack_the_device_says_how_to_start_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "device", "--table", "bac-1", "scan", "9S")
    assert code == 2
    assert "the local stack is not running" in err and "make local" in err and "--stack NAME or --bus NAME" in err


def test_an_unknown_action_is_an_argument_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["device", "--table", "bac-1", "deal"])
    assert exited.value.code == 2 and "invalid choice: 'deal'" in capsys.readouterr().err


def test_invoke_asks_for_the_round_an_event_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "invoke", "round", str(ROOT / "events" / "round-advance.json"))
    assert code == 2 and "the event needs {{round_id}}: give --round ID" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--round", "a b"], "the value of round_id must be 1-128 letters, digits or _.:#-"),
    (["--set", "round_id"], "--set takes NAME=VALUE"),
    (["--set", "Round=1"], "'Round' is not a placeholder name"),
])
def test_invoke_refuses_bad_values(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, err = _run(capsys, "invoke", "round", str(ROOT / "events" / "round-advance.json"), *argv)
    assert code == 2 and message in err, err


def test_invoke_without_a_local_stack_or_an_event(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "invoke", "tables", str(ROOT / "events" / "tables-create.json"))
    assert code == 2 and "the local stack is not running" in err and "make local" in err
    code, err = _run(capsys, "invoke", "tables", "events/none.json")
    assert code == 2 and "cannot read events/none.json" in err


def test_invoke_names_the_functions_it_knows(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"endpoint": "http://127.0.0.1:9", "region": "us-east-1", "stage": "local"}')
    monkeypatch.setenv("CROUPIER_LOCAL_STATE", str(state))
    code, err = _run(capsys, "invoke", "betting", str(ROOT / "events" / "bets-place.json"))
    assert code == 2
    assert err == ("croupier invoke: no function 'betting' in template.yaml: one of bets, connections, dealing, "
                   "decisions, live, outbox, push, query, round, settlement, tables, wallet")
