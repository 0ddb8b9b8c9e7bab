"""``croupier simulate``: observed returns against the exact RTP, the checks of every round, the
shoe, determinism, the command's JSON and its errors."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest

from croupier import simulate as sim
from croupier.cli import main
from croupier.errors import RulesError
from croupier.games.baccarat import BaccaratRound
from croupier.games.base import Settlement
from croupier.rtp import baccarat, pokdeng
from croupier.rules import BaccaratRules, PokDengRules, load_rules
from croupier.simulate import SimulationError, SimulationReport, simulate

Z99 = 2.5758293035489004
ROUNDS = {"baccarat": 3000, "pok-deng": 2000, "deluxe-blackjack": 1200, "blackjack": 1200}
SEED = 11


@pytest.fixture(scope="module")
def reports() -> Iterator[dict[str, SimulationReport]]:
    """One run per game, shared by the tests of this module (a few seconds each)."""
    yield {game: simulate(game, rounds, SEED) for game, rounds in ROUNDS.items()}


def _exact(game: str) -> dict[str, float]:
    rules = load_rules(game)
    if isinstance(rules, BaccaratRules):
        return {k: float(v) for k, v in baccarat.analyse(rules).items()}
    assert isinstance(rules, PokDengRules)
    return {k: float(v) for k, v in pokdeng.analyse(rules).items()}


# --- observed against exact ------------------------------------------------------------------


@pytest.mark.parametrize("bet", ["player", "banker", "banker-no-commission"])
def test_baccarat_main_bets_lie_within_99_percent_of_the_exact_rtp(reports: dict[str, SimulationReport],
                                                                   bet: str) -> None:
    figures = reports["baccarat"].bets[bet]
    assert figures.exact == _exact("baccarat")[bet]
    assert figures.bets > 1000 and figures.rounds > 1000
    assert figures.inside(Z99), (figures.observed, figures.ci(Z99), figures.exact)
    assert 0.005 < figures.se < 0.05


@pytest.mark.parametrize("n", range(1, 6))
def test_pok_deng_player_bets_lie_within_99_percent_of_the_exact_rtp(reports: dict[str, SimulationReport],
                                                                     n: int) -> None:
    figures = reports["pok-deng"].bets[f"player-{n}"]
    assert figures.exact == _exact("pok-deng")[f"player-{n}"]
    assert figures.bets > 500
    assert figures.inside(Z99), (figures.observed, figures.ci(Z99), figures.exact)


def test_every_bet_type_of_baccarat_and_pok_deng_is_reported_beside_its_exact_figure(
        reports: dict[str, SimulationReport]) -> None:
    for game in ("baccarat", "pok-deng"):
        report = reports[game]
        assert list(report.bets) == list(_exact(game))
        for name, figures in report.bets.items():
            assert figures.bets > 0 and figures.exact is not None, name
            assert figures.inside(Z99 * 1.3), (game, name, figures.observed, figures.exact)


def test_pok_deng_player_return_is_per_unit_of_stake_not_of_the_reservation(
        reports: dict[str, SimulationReport]) -> None:
    # per unit reserved the return would be about (1 + 0.969) / 2; per unit staked it is near 0.97
    figures = reports["pok-deng"].bets["player-1"]
    assert 0.85 < figures.observed < 1.1


def test_blackjack_rows_and_the_cheap_exact_figures(reports: dict[str, SimulationReport]) -> None:
    for game in ("deluxe-blackjack", "blackjack"):
        report = reports[game]
        assert list(report.bets)[:5] == ["seat", "seat-auto", "behind", "pair", "insurance"]
        assert report.bets["seat"].exact is None and report.bets["seat"].note  # only with exact=True
        assert report.bets["behind"].exact is None
        assert report.bets["pair"].exact == pytest.approx(372 / 415)
        assert report.bets["insurance"].exact == pytest.approx(3 * 128 / 415)
        assert report.bets["seat"].bets > 3 * ROUNDS[game]  # several seats a round
        assert report.bets["seat"].bets > 10 * report.bets["seat-auto"].bets  # basic strategy almost always
        assert report.bets["behind"].bets > 0 and report.bets["insurance"].bets > 0
        assert report.bets["pair"].inside(Z99)
        assert report.bets["insurance"].inside(Z99)
        assert 0.9 < report.bets["seat"].observed < 1.1


def test_confidence_interval_is_observed_plus_minus_z_standard_errors() -> None:
    figures = sim.BetFigures("player", 10, 10, 1000, 990.0, 989.0, 0.01, 0.98)
    assert figures.observed == pytest.approx(0.99)
    assert figures.paid_return == pytest.approx(0.989)
    assert figures.ci() == pytest.approx((0.99 - 0.0196, 0.99 + 0.0196), abs=1e-6)
    assert figures.inside() is True
    assert figures.inside(0.5) is False
    assert dataclasses.replace(figures, exact=None).inside() is None


def test_standard_error_treats_the_bets_of_one_round_as_one_observation() -> None:
    one, three = sim._Row(), sim._Row()
    for won in (True, False) * 50:
        returned = 200.0 if won else 0.0
        one.add(1, 100, returned, returned)
        three.add(3, 300, 3 * returned, 3 * returned)  # three equal bets on the same outcome
    a, b = one.figures("x", None, ""), three.figures("x", None, "")
    assert a.observed == b.observed == pytest.approx(1.0)
    assert a.se == pytest.approx(b.se) == pytest.approx(1.0 / (100 - 1) ** 0.5)


# --- checks on every round -------------------------------------------------------------------


def test_every_round_is_checked_and_replayed(reports: dict[str, SimulationReport]) -> None:
    for game, report in reports.items():
        assert report.rounds == report.checked == report.replayed == ROUNDS[game]
        assert report.replay_every == 1
        assert report.house_result == -round(sum(f.paid - f.staked for f in report.bets.values()))


def test_only_short_balances_refuse_bets(reports: dict[str, SimulationReport]) -> None:
    """Every bet the simulator asks for keeps the table's rules (seats, mirroring, max_round ...)."""
    for report in reports.values():
        assert set(report.refused) <= {"insufficient-balance", "split-below-minimum"}, report.refused


def test_a_wrong_replay_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = sim.replay_settlement

    def wrong(transcript: Any) -> Settlement:
        settled = real(transcript)
        first = dataclasses.replace(settled.bets[0], net=settled.bets[0].net + 1)
        return Settlement((first, *settled.bets[1:]), settled.hands)

    monkeypatch.setattr(sim, "replay_settlement", wrong)
    with pytest.raises(SimulationError, match=r"round 1 .*does not replay to the same settlement: \{\"game\""):
        simulate("baccarat", 5, 1)


def _break_settlement(monkeypatch: pytest.MonkeyPatch, change: dict[str, int]) -> None:
    real = BaccaratRound.settle

    def settle(self: BaccaratRound) -> Settlement:
        settled = real(self)
        first = settled.bets[0]
        values = {k: getattr(first, k) + v for k, v in change.items()}
        return Settlement((dataclasses.replace(first, **values), *settled.bets[1:]), settled.hands)

    monkeypatch.setattr(BaccaratRound, "settle", settle)


@pytest.mark.parametrize(("change", "message"), [
    ({"paid": 1}, "do not add up"),
    ({"paid": 1, "net": 1}, "is not rounded down"),
    ({"staked": 1, "paid": 1}, "debited"),
])
def test_money_that_does_not_add_up_is_caught(monkeypatch: pytest.MonkeyPatch, change: dict[str, int],
                                              message: str) -> None:
    _break_settlement(monkeypatch, change)
    with pytest.raises(SimulationError, match=message):
        simulate("baccarat", 3, 1, replay_every=1000)


# --- the shoe --------------------------------------------------------------------------------


def test_the_shoe_is_reshuffled_after_the_round_the_cut_card_marks(reports: dict[str, SimulationReport]) -> None:
    for game, report in reports.items():
        shoes = report.shoes
        assert shoes.started in (shoes.completed, shoes.completed + 1)
        assert shoes.cut_in_round + shoes.cut_between_rounds == shoes.completed
        assert shoes.cut_in_round > 0
        # the cut card lies 60-75 cards from the end; the last round takes at most a few dozen more
        assert 416 - 75 <= shoes.cards_min <= shoes.cards_max <= 416
        assert shoes.rounds_min * shoes.completed <= ROUNDS[game] <= shoes.rounds_max * shoes.started
    per_shoe = {game: r.shoes.rounds_mean for game, r in reports.items()}
    assert 60 < per_shoe["baccarat"] < 80  # about 4.9 cards a round
    assert 24 < per_shoe["pok-deng"] < 30  # 12 cards and a burn card a round
    assert 10 < per_shoe["deluxe-blackjack"] < 40
    assert reports["pok-deng"].shoes.started == pytest.approx(ROUNDS["pok-deng"] / per_shoe["pok-deng"], abs=2)


def test_the_dealer_follows_the_shoe_rules() -> None:
    import random

    dealer = sim._Dealer(random.Random(5), per_round_burn=1)
    rounds = 0
    while dealer.started < 3:
        number = dealer.next_round()
        assert dealer.shoe is not None and dealer.shoe.phase == "ready"
        assert dealer.start_round() == number
        for _ in range(12):
            dealer.deal()
        dealer.end_round()
        rounds += 1
    # two shoes played out, the third just shuffled: its burn is done, nothing else drawn
    assert len(dealer.rounds_per_shoe) == 2
    assert rounds == sum(dealer.rounds_per_shoe) + 1
    shoe = dealer.shoe
    assert shoe is not None and shoe.round_in_shoe == 1 and not shoe.cut_card_out
    assert all(416 - 75 < cards <= 416 for cards in dealer.cards_per_shoe)


# --- determinism and rules -------------------------------------------------------------------


def test_a_seed_replays_the_same_run() -> None:
    a = simulate("deluxe-blackjack", 150, 4)
    b = simulate("deluxe-blackjack", 150, 4)
    c = simulate("deluxe-blackjack", 150, 5)
    assert a.digest == b.digest != c.digest
    assert a.bets == b.bets and a.shoes == b.shoes and a.house_result == b.house_result
    da, db = a.to_dict(), b.to_dict()
    for doc in (da, db):
        del doc["seconds"], doc["rounds_per_second"]
    assert da == db


def test_replaying_one_round_in_n_changes_nothing_but_the_count() -> None:
    every = simulate("pok-deng", 100, 2)
    sampled = simulate("pok-deng", 100, 2, replay_every=10)
    assert (every.replayed, sampled.replayed) == (100, 10)
    assert every.digest == sampled.digest and every.bets == sampled.bets


def test_rule_overrides_reach_the_engine_the_replay_and_the_exact_figures() -> None:
    overrides = {"special_combinations": ["court-cards", "lion-flush"], "payouts": {"pair": "10:1"}}
    report = simulate("pok-deng", 200, 3, overrides)
    rules = load_rules("pok-deng", overrides)
    assert isinstance(rules, PokDengRules)
    assert report.rules == overrides and report.replayed == 200
    assert report.bets["player-2"].exact == float(pokdeng.analyse(rules)["player-2"])
    assert report.bets["player-2-pair"].exact == pytest.approx(11 * 31 / 415)


def test_side_bets_are_placed_only_up_to_their_max_round() -> None:
    report = simulate("baccarat", 400, 6, {"side_bets": {"big": {"max_round": 2}}})
    big, small = report.bets["big"].bets, report.bets["small"].bets
    assert 0 < big < small / 10  # rounds 1-2 of each shoe only; the engine (validate=True) refuses later ones


def test_invalid_arguments_raise() -> None:
    with pytest.raises(SimulationError, match="positive whole number"):
        simulate("baccarat", 0, 1)
    with pytest.raises(SimulationError, match="unknown game 'craps'"):
        simulate("craps", 10, 1)
    with pytest.raises(SimulationError, match="replay_every"):
        simulate("baccarat", 10, 1, replay_every=0)
    with pytest.raises(RulesError, match="unknown name"):
        simulate("baccarat", 10, 1, {"nope": 1})


# --- the command -----------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["simulate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "pok-deng", "--rounds", "60", "--seed", "3", "--json")
    assert (code, err) == (0, "")
    assert out.count("\n") == 1
    doc = json.loads(out)
    assert list(doc) == ["game", "rounds", "seed", "rules", "seconds", "rounds_per_second", "checks", "shoes",
                         "house_result", "digest", "refused", "bets"]
    assert (doc["game"], doc["rounds"], doc["seed"], doc["rules"]) == ("pok-deng", 60, 3, {})
    assert doc["checks"] == {"money": 60, "replayed": 60, "replay_every": 1}
    assert doc["rounds_per_second"] > 0
    assert list(doc["bets"]) == list(_exact("pok-deng"))
    row = doc["bets"]["player-3"]
    assert list(row) == ["bets", "rounds", "staked", "observed", "se", "ci95", "exact", "inside", "paid", "note"]
    assert row["exact"] == round(_exact("pok-deng")["player-3"], 6)
    assert row["ci95"][0] <= row["observed"] <= row["ci95"][1]
    assert isinstance(row["inside"], bool) and isinstance(row["staked"], int)
    assert simulate("pok-deng", 60, 3).digest == doc["digest"]


def test_json_for_blackjack_shows_null_without_the_exact_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "blackjack", "--rounds", "30", "--json", "--rules", '{"surrender": true}')
    doc = json.loads(out)
    assert code == 0 and doc["rules"] == {"surrender": True}
    assert doc["bets"]["seat"]["exact"] is None and doc["bets"]["seat"]["inside"] is None
    assert doc["bets"]["pair"]["exact"] == round(372 / 415, 6)


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "baccarat", "--rounds", "50", "--seed", "2")
    assert (code, err) == (0, "")
    assert out.startswith("croupier simulate baccarat: 50 rounds, seed 2, default rules\n")
    assert "transcript replayed to the identical settlement on 50 (every round)" in out
    assert "rounds/s" in out
    assert any(line.startswith("banker-no-commission ") and "98.5419%" in line for line in out.splitlines())


@pytest.mark.parametrize(("argv", "message"), [
    (["baccarat", "--rounds", "0"], "croupier simulate: --rounds must be a positive number of rounds, not 0\n"),
    (["baccarat", "--rounds", "-3"], "croupier simulate: --rounds must be a positive number of rounds, not -3\n"),
    (["craps", "--rounds", "10"], "croupier simulate: unknown game 'craps'; games are deluxe-blackjack, blackjack, "
                                  "baccarat, pok-deng\n"),
    (["baccarat", "--rounds", "10", "--rules", "{"], "croupier simulate: --rules is not valid JSON"),
    (["baccarat", "--rounds", "10", "--rules", "[1]"], "croupier simulate: --rules must be a JSON object"),
    (["pok-deng", "--rounds", "10", "--rules", '{"reservation": 0}'], "croupier simulate: rules for pok-deng: "),
])
def test_invalid_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                message: str) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_rounds_must_be_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "baccarat", "--rounds", "many"])
    assert exc.value.code == 2
    assert "invalid int value: 'many'" in capsys.readouterr().err


def test_module_entry_point_takes_exact_and_replay_every(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim.main(["baccarat", "--rounds", "20", "--replay-every", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["checks"]["replayed"] == 4
    assert sim.main(["baccarat", "--rounds", "20", "--replay-every", "0"]) == 2
    assert capsys.readouterr().err == "croupier simulate: --replay-every must be a positive number, not 0\n"


def test_a_seat_bet_split_with_an_odd_unit_replays() -> None:
    """Found by the simulator (about once in 8,000 Deluxe rounds): betting splits an addition the balance
    cannot mirror with the odd unit on the lower seat (blackjack.md), and the engine must take it."""
    from croupier import betting
    from croupier.rules import BlackjackRules
    from croupier.transcript import Transcript, replay

    rules = load_rules("deluxe-blackjack")
    assert isinstance(rules, BlackjackRules)
    seats = betting.sit(rules, betting.sit(rules, {}, "p1", 2, "real"), "p1", 6, "real")
    placement = betting.place_bets("deluxe-blackjack", rules, betting.RoundContext(1, seats), "p1", "real", [],
                                   [betting.BetRequest("seat", 4855, seat=2)], 5000)
    bets = [change.bet.to_dict() for change in placement.changes]
    assert [(b["seat"], b["amount"]) for b in bets] == [(2, 2428), (6, 2427)]
    transcript = Transcript.parse({"game": "deluxe-blackjack", "balances": {"p1": 145}, "bets": bets,
                                   "cards": ["TS", "9H", "7C", "TD", "8H", "KS"],
                                   "actions": [{"seat": 2, "action": "stand"}, {"seat": 6, "action": "stand"}]})
    assert [b.net for b in replay(transcript).bets] == [2428, 0]  # 20 wins, 17 pushes the dealer's 17
