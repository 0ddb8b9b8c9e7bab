"""``croupier rtp GAME [--rules JSON] [--json]``: output shape, figures, errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

import pytest

from croupier.cli import main
from croupier.rtp import baccarat, pokdeng
from croupier.rtp import cli as rtp_cli
from croupier.rules import BaccaratRules, PokDengRules, load_rules


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["rtp", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_exactly_game_and_rtp_rounded_to_6_decimals(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "baccarat", "--json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert list(doc) == ["game", "rtp"]
    assert doc["game"] == "baccarat"
    rules = load_rules("baccarat")
    assert isinstance(rules, BaccaratRules)
    exact = baccarat.analyse(rules)
    assert list(doc["rtp"]) == list(exact)
    for bet, value in doc["rtp"].items():
        assert isinstance(value, float)
        assert value == float(round(exact[bet], 6))
    assert doc["rtp"]["banker"] == 0.989421
    assert '"banker": 0.989421' in out
    assert out.count("\n") == 1


def test_json_for_pok_deng_reports_every_bet_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "pok-deng", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["game"] == "pok-deng"
    assert list(doc["rtp"]) == [*(f"player-{n}" for n in range(1, 6)), *(f"player-{n}-pair" for n in range(1, 6))]
    rules = load_rules("pok-deng")
    assert isinstance(rules, PokDengRules)
    assert doc["rtp"]["player-5"] == float(round(pokdeng.analyse(rules)["player-5"], 6))
    assert doc["rtp"]["player-2-pair"] == float(round(Fraction(372, 415), 6))


def test_rules_overrides_reach_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "baccarat", "--json", "--rules", '{"payouts": {"tie": "9:1"}}')
    tie = 10 * baccarat.outcome_probabilities()["tie"]
    assert json.loads(out)["rtp"]["tie"] == float(round(tie, 6))
    _, out, _ = _run(capsys, "pok-deng", "--json", "--rules", '{"special_combinations": ["court-cards"]}')
    rules = load_rules("pok-deng", {"special_combinations": ["court-cards"]})
    assert isinstance(rules, PokDengRules)
    assert json.loads(out)["rtp"]["player-1"] == float(round(pokdeng.analyse(rules)["player-1"], 6))


def test_baccarat_table_shows_rtp_edge_and_published_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "baccarat")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line and line.split()[0] in baccarat.BET_NAMES}
    assert set(rows) == set(baccarat.BET_NAMES)
    assert "98.9421%" in rows["banker"] and "1.0579%" in rows["banker"] and rows["banker"].endswith("98.94%")
    assert "98.7649%" in rows["player"] and "1.2351%" in rows["player"]
    assert "85.6404%" in rows["tie"] and "14.3596%" in rows["tie"]


def test_pok_deng_table_shows_both_measures_and_the_published_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "pok-deng")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("player-")}
    assert len(rows) == 10
    # Player N: per stake, its edge, per amount put down, its edge, the published figure
    assert rows["player-3"] == ["player-3", "97.4998%", "2.5002%", "98.7499%", "1.2501%", "98.75%"]
    assert rows["player-3-pair"] == ["player-3-pair", "89.6386%", "10.3614%", "89.6386%", "10.3614%"]
    assert "Published maximum RTP 98.75% (Player N, per amount put down): ours 98.75% (98.7499%" in out
    assert "symmetric" in out


def test_pok_deng_table_shows_the_effect_of_dropping_each_combination(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "pok-deng")
    assert code == 0
    lines = {line.split("  ")[1].strip(): line.split() for line in out.splitlines()
             if line.startswith("  ") and "%" in line}
    assert list(lines) == ["all (this table)", "without lion flush", "without special pair", "without court cards",
                           "without ten and court", "without flush worth 0", "none"]
    assert lines["all (this table)"][-3:] == ["97.4998%", "98.7499%", "-0.0001"]
    assert lines["without court cards"][-2] == "98.4320%"
    assert lines["none"][-3:-1] == ["96.9475%", "98.4738%"]


def test_pok_deng_table_follows_the_configured_combinations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "pok-deng", "--rules", '{"special_combinations": ["court-cards", "lion-flush"]}')
    assert code == 0
    assert "highest first (between 8 and 7): court cards, lion flush." in out
    assert "without lion flush" in out and "without special pair" not in out
    code, out, _ = _run(capsys, "pok-deng", "--rules", '{"special_combinations": []}')
    assert code == 0 and "dropping" not in out and "(between 8 and 7): none." in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["poker"], "unknown game 'poker'"),
        (["baccarat", "--rules", "{not json"], "not valid JSON"),
        (["baccarat", "--rules", "[1, 2]"], "JSON object"),
        (["baccarat", "--rules", '{"payouts": {"tie": "eight"}}'], "payouts.tie"),
        (["pok-deng", "--rules", '{"special_combinations": ["three-kings"]}'], "special_combinations"),
        (["pok-deng", "--rules", '{"special_combinations": ["two-pictures"]}'],
         "'two-pictures' is no longer a special combination: the special combinations are now lion-flush, "
         "special-pair, court-cards, ten-and-court, flush-worth-0"),
        (["pok-deng", "--rules", '{"special_combinations": ["consecutive"]}'], "are now lion-flush"),
        (["pok-deng", "--rules", '{"special_combinations": ["pictures-and-ten"]}'],
         "'court-cards' with 'ten-and-court'"),
        (["baccarat", "--json", "--rules", '{"no_such_rule": 1}'], "no_such_rule: unknown name"),
    ],
)
def test_bad_game_or_rules_is_one_line_on_stderr_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("croupier rtp: ") and needle in err
    assert err.count("\n") == 1


# --- blackjack: the CLI hands the rules to croupier.rtp.blackjack (its analysis takes tens of
# seconds, so here it is replaced by a stand-in and only the wiring is checked) ---


@dataclass(frozen=True)
class _FakeRtp:
    variant: str

    @property
    def bets(self) -> dict[str, float]:
        return {"seat": 0.99512345678, "behind": 0.99512345678, "pair": 0.89638554, "insurance": 0.92530120}


def test_blackjack_is_wired_to_the_blackjack_analysis(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from croupier.rtp import blackjack

    seen: list[object] = []

    def analyse(rules: object) -> _FakeRtp:
        seen.append(rules)
        return _FakeRtp(getattr(rules, "variant", "?"))

    monkeypatch.setattr(blackjack, "analyse", analyse)
    monkeypatch.setattr(blackjack, "format_report", lambda rows=None, main=None: "VARIANTS TABLE")
    code, out, _ = _run(capsys, "blackjack", "--json", "--rules", '{"double_after_split": false}')
    assert code == 0
    assert json.loads(out) == {
        "game": "blackjack",
        "rtp": {"seat": 0.995123, "behind": 0.995123, "pair": 0.896386, "insurance": 0.925301},
    }
    assert getattr(seen[0], "variant", None) == "classic"
    assert getattr(seen[0], "double_after_split", None) is False
    code, out, _ = _run(capsys, "deluxe-blackjack")
    assert code == 0 and "VARIANTS TABLE" in out and "99.5123%" in out and "99.53%" in out


def test_run_takes_the_parsed_arguments_directly(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    assert rtp_cli.run(argparse.Namespace(game="baccarat", rules=None, json=True)) == 0
    assert json.loads(capsys.readouterr().out)["rtp"]["player-pair"] == float(round(Fraction(372, 415), 6))
