"""``croupier replay`` end to end (replay.md): through the console script in a subprocess and through
``croupier.cli.main``. Valid transcripts of every game print the settlement; every error of replay.md
"Errors" exits 2 with one line on standard error that says what is wrong, and nothing on stdout."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from croupier.cli import main

CROUPIER = Path(sys.executable).parent / "croupier"

# The example of replay.md, verbatim.
EXAMPLE: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "data" / "replay-md-example.json").read_text())
# The output replay.md states for it.
EXAMPLE_BETS = [
    {"id": "b1", "outcome": "win", "net": 2000},
    {"id": "b2", "outcome": "win", "net": 1000},
    {"id": "b3", "outcome": "win", "net": 1100},
]

# Classic table: seat 1 gets AS and KD, a blackjack; the dealer's up card is a 9, so the dealer
# draws no second card (blackjack.md "Dealer"). 3:2 rounded down: 1001 -> 1501, 500 -> 750.
CLASSIC: dict[str, Any] = {
    "game": "blackjack",
    "bets": [
        {"id": "s", "player": "p1", "type": "seat", "seat": 1, "amount": 1001},
        {"id": "bb", "player": "p2", "type": "behind", "seat": 1, "amount": 500},
        {"id": "pp", "player": "p2", "type": "pair", "seat": 1, "amount": 100},
    ],
    "cards": ["AS", "9H", "KD"],
}
CLASSIC_BETS = [
    {"id": "s", "outcome": "blackjack", "net": 1501},
    {"id": "bb", "outcome": "blackjack", "net": 750},
    {"id": "pp", "outcome": "lose", "net": -100},
]

# Classic table, a split in the dealer's order: seat 1 splits 8S 8D against the up card 9H; hand 1
# gets 2C and hand 2 TC at once, then hand 1 hits 5C (15) and stands, hand 2 stands on 18; the
# dealer's 9H 7D draws TD and busts.
CLASSIC_SPLIT: dict[str, Any] = {
    "game": "blackjack",
    "bets": [{"id": "s", "player": "p1", "type": "seat", "seat": 1, "amount": 1000}],
    "cards": ["8S", "9H", "8D", "2C", "TC", "5C", "7D", "TD"],
    "actions": [{"seat": 1, "action": "split"}, {"seat": 1, "action": "hit"}, {"seat": 1, "action": "stand"},
                {"seat": 1, "action": "stand"}],
}

# Baccarat: Player 2S 4D = 6 stands, Banker 4H 3C = 7 stands; the Banker wins with 7 on 4 cards.
BACCARAT: dict[str, Any] = {
    "game": "baccarat",
    "round_in_shoe": 60,
    "bets": [
        {"id": "c", "player": "p1", "type": "banker", "amount": 1001, "mode": "commission"},
        {"id": "nc", "player": "p1", "type": "banker", "amount": 1000, "mode": "no-commission"},
        {"id": "pl", "player": "p2", "type": "player", "amount": 1000},
        {"id": "t", "player": "p2", "type": "tie", "amount": 500},
        {"id": "sm", "player": "p3", "type": "small", "amount": 1000},
        {"id": "bg", "player": "p3", "type": "big", "amount": 1000},
        {"id": "bp", "player": "p3", "type": "banker-pair", "amount": 100},
        {"id": "l6", "player": "p3", "type": "lucky-6", "amount": 100},
        {"id": "d", "player": "p4", "type": "banker", "amount": 300},
    ],
    "cards": ["2S", "4H", "4D", "3C"],
}
BACCARAT_BETS = [
    {"id": "c", "outcome": "win", "net": 950},  # 1001 x 0.95 = 950.95, rounded down
    {"id": "nc", "outcome": "win", "net": 1000},  # no commission, not a six
    {"id": "pl", "outcome": "lose", "net": -1000},
    {"id": "t", "outcome": "lose", "net": -500},
    {"id": "sm", "outcome": "win", "net": 1500},  # four cards, 1.5:1
    {"id": "bg", "outcome": "lose", "net": -1000},
    {"id": "bp", "outcome": "lose", "net": -100},  # 4H 3C is no pair
    {"id": "l6", "outcome": "lose", "net": -100},  # Banker won with 7, not 6
    {"id": "d", "outcome": "win", "net": 285},  # no mode: commission
]

# Pok Deng, dealt P1..P5 then the Banker, twice: H1 9S 9H (8, pair), H2 2H 2D (4, pair),
# H3 3D 3H (6, pair), H4 4C 3C (7, flush), H5 5S TD (5), Banker 6H QH (6, flush).
POK_DENG: dict[str, Any] = {
    "game": "pok-deng",
    "bets": [
        {"id": "h1", "player": "p1", "type": "player-1", "amount": 1000},
        {"id": "h1p", "player": "p1", "type": "player-1-pair", "amount": 100},
        {"id": "h4", "player": "p2", "type": "player-4", "amount": 1000},
        {"id": "h5", "player": "p2", "type": "player-5", "amount": 1000},
        {"id": "h3", "player": "p3", "type": "player-3", "amount": 1000},
        {"id": "h2p", "player": "p3", "type": "player-2-pair", "amount": 100},
        {"id": "h5p", "player": "p3", "type": "player-5-pair", "amount": 100},
    ],
    "cards": ["9S", "2H", "3D", "4C", "5S", "6H", "9H", "2D", "3H", "3C", "TD", "QH"],
}
POK_DENG_BETS = [
    {"id": "h1", "outcome": "win", "net": 2000},  # 8 with a pair wins 2:1 always
    {"id": "h1p", "outcome": "win", "net": 1100},  # pair 11:1
    {"id": "h4", "outcome": "win", "net": 1000},  # a flush win pays only 1:1 against a Banker 6
    {"id": "h5", "outcome": "lose", "net": -2000},  # the Banker wins with a flush: lose 2x
    {"id": "h3", "outcome": "push", "net": 0},  # 6 against 6
    {"id": "h2p", "outcome": "win", "net": 1100},
    {"id": "h5p", "outcome": "lose", "net": -100},
]

VALID = {
    "deluxe-blackjack": (EXAMPLE, EXAMPLE_BETS),
    "blackjack": (CLASSIC, CLASSIC_BETS),
    "baccarat": (BACCARAT, BACCARAT_BETS),
    "pok-deng": (POK_DENG, POK_DENG_BETS),
}


def with_(base: dict[str, Any], **changes: Any) -> str:
    doc = copy.deepcopy(base)
    doc.update(changes)
    return json.dumps(doc)


def core(bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: b[k] for k in ("id", "outcome", "net")} for b in bets]


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_script(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CROUPIER), "replay", *argv], input=stdin, capture_output=True, text=True,
                          timeout=60, check=False)


def write(tmp_path: Path, text: str | bytes, name: str = "round.json") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def assert_one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2, err
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("croupier replay: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle.lower() in err.lower(), (needle, err)


# --- through the console script --------------------------------------------------------------


def test_console_script_replays_the_replay_md_example(tmp_path: Path) -> None:
    proc = run_script(write(tmp_path, json.dumps(EXAMPLE)))
    assert (proc.returncode, proc.stderr) == (0, "")
    doc = json.loads(proc.stdout)
    assert core(doc["bets"]) == EXAMPLE_BETS
    # The hands: seat 1 split its eights, both stand on 18; the dealer's 16 draws a ten and busts.
    hands = doc["hands"]
    assert hands["dealer"]["cards"] == ["9H", "7H", "TD"] and hands["dealer"]["bust"] is True
    assert hands["seat-1"]["cards"] == ["8S", "TS"] and hands["seat-1/1"]["cards"] == ["8C", "KD"]
    assert hands["seat-1"]["score"] == hands["seat-1/1"]["score"] == 18


def test_console_script_reads_stdin_with_dash_and_prints_full_figures() -> None:
    proc = run_script("-", "--full", stdin=json.dumps(BACCARAT))
    assert (proc.returncode, proc.stderr) == (0, "")
    bets = json.loads(proc.stdout)["bets"]
    assert core(bets) == BACCARAT_BETS
    assert (bets[0]["staked"], bets[0]["paid"], bets[0]["exact_net"]) == (1001, 1951, "19019/20")


def test_console_script_error_is_one_line_on_stderr_and_exit_2(tmp_path: Path) -> None:
    proc = run_script(write(tmp_path, with_(BACCARAT, cards=["2S", "4H", "4D"])))
    assert_one_line_error(proc.returncode, proc.stdout, proc.stderr, "too few cards", "banker")
    proc = run_script(str(tmp_path / "nope.json"))
    assert_one_line_error(proc.returncode, proc.stdout, proc.stderr, "nope.json")


# --- through croupier.cli.main ---------------------------------------------------------------


@pytest.mark.parametrize("game", list(VALID))
def test_one_valid_transcript_per_game(game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript, expected = VALID[game]
    code, out, err = run_main(capsys, write(tmp_path, json.dumps(transcript)))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert core(doc["bets"]) == expected  # one entry per input bet, in input order
    assert "hands" in doc
    assert "staked" not in doc["bets"][0]  # the stake and payout only with --full


# Pok Deng with one special combination per hand: H1 AS KS lion flush, H2 5D 5H special pair,
# H3 KD KC court cards (and a pair), H4 TH JC ten and court, H5 3S 7S flush worth 0.
COMBINATION_CARDS = ["AS", "5D", "KD", "TH", "3S", "{b1}", "KS", "5H", "KC", "JC", "7S", "{b2}"]
COMBINATION_BETS = [{"id": f"h{n}", "player": "p1", "type": f"player-{n}", "amount": 1000} for n in range(1, 6)] + [
    {"id": "h3p", "player": "p1", "type": "player-3-pair", "amount": 100}]


@pytest.mark.parametrize(
    ("banker", "nets", "decided_by"),
    [
        # Banker 7D KH, a plain 7: every combination ranks above 7 and is a special pattern: 2:1,
        # +2000 on a stake of 1000 (2000 put down, 4000 back).
        (("7D", "KH"), [2000, 2000, 2000, 2000, 2000],
         ["lion-flush", "special-pair", "court-cards", "ten-and-court", "flush-worth-0"]),
        # Banker JD QH, court cards (its cards add up to 0, but a combination is never the 0 of
        # exception 2): the lion flush and the special pair rank higher and win 2:1 (+2000); court
        # cards against court cards push (0); ten and court and flush worth 0 rank lower and lose
        # 2x to the Banker's combination (-2000).
        (("JD", "QH"), [2000, 2000, 0, -2000, -2000],
         ["lion-flush", "special-pair", "court-cards", "court-cards", "court-cards"]),
    ],
)
def test_replaying_a_round_with_each_combination_gives_the_spec_nets(
    banker: tuple[str, str], nets: list[int], decided_by: list[str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cards = [c.format(b1=banker[0], b2=banker[1]) for c in COMBINATION_CARDS]
    path = write(tmp_path, json.dumps({"game": "pok-deng", "bets": COMBINATION_BETS, "cards": cards}))
    code, out, _ = run_main(capsys, path)
    assert code == 0
    doc = json.loads(out)
    assert [b["net"] for b in doc["bets"][:5]] == nets
    assert [b["decided_by"] for b in doc["bets"][:5]] == decided_by
    assert doc["bets"][5]["net"] == 1100  # K-K is court cards and still a pair: 11:1 on 100
    assert [doc["hands"][f"hand-{n}"]["combination"] for n in range(1, 6)] == [
        "lion-flush", "special-pair", "court-cards", "ten-and-court", "flush-worth-0"]
    # the same round on a table without combinations: all five are plain hands or pairs/flushes
    plain = write(tmp_path, json.dumps({"game": "pok-deng", "rules": {"special_combinations": []},
                                        "bets": COMBINATION_BETS, "cards": cards}), "plain.json")
    code, out, _ = run_main(capsys, plain)
    assert code == 0 and json.loads(out)["hands"]["hand-1"]["combination"] is None


def test_a_classic_split_replays_in_the_order_the_dealer_drew_the_cards(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, write(tmp_path, json.dumps(CLASSIC_SPLIT)))
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert core(doc["bets"]) == [{"id": "s", "outcome": "win", "net": 2000}]
    assert doc["hands"]["seat-1"]["cards"] == ["8S", "2C", "5C"] and doc["hands"]["seat-1/1"]["cards"] == ["8D", "TC"]
    # the transcript's rules choose the order: the same cards dealt in the Deluxe order
    code, out, err = run_main(capsys, write(tmp_path, with_(CLASSIC_SPLIT, rules={"split_deal": "each-in-turn"})))
    assert (code, err) == (0, "")
    hands = json.loads(out)["hands"]
    assert hands["seat-1"]["cards"] == ["8S", "2C", "TC"] and hands["seat-1/1"]["cards"] == ["8D", "5C"]
    # one card after the split: hand 2 waits for its second card before hand 1 decides
    code, out, err = run_main(capsys, write(tmp_path, with_(CLASSIC_SPLIT, cards=CLASSIC_SPLIT["cards"][:4])))
    assert_one_line_error(code, out, err, "too few cards", "seat-1/1")


def test_dash_reads_the_transcript_from_stdin(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(POK_DENG)))
    code, out, err = run_main(capsys, "-")
    assert (code, err) == (0, "")
    assert core(json.loads(out)["bets"]) == POK_DENG_BETS


def test_full_adds_stake_payout_and_exact_net(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, write(tmp_path, json.dumps(EXAMPLE)), "--full")
    assert code == 0
    bets = json.loads(out)["bets"]
    assert core(bets) == EXAMPLE_BETS
    # b1: 1000 seat bet + 1000 on the split hand, both win 1:1; b2 followed the split with 500 more.
    assert [(b["staked"], b["paid"], b["exact_net"]) for b in bets] == [
        (2000, 4000, "2000"), (1000, 2000, "1000"), (100, 1200, "1100")]
    for b in bets:
        assert b["net"] == b["paid"] - b["staked"]


def test_full_records_the_exact_figure_next_to_the_rounded_one(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, write(tmp_path, json.dumps(CLASSIC)), "--full")
    assert code == 0
    seat = json.loads(out)["bets"][0]
    # 1001 x 3/2 = 3003/2 exactly; the player receives 1501.
    assert (seat["net"], seat["exact_net"], seat["staked"], seat["paid"]) == (1501, "3003/2", 1001, 2502)


def test_compact_prints_one_line_with_the_same_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, json.dumps(BACCARAT))
    _, pretty, _ = run_main(capsys, path)
    code, compact, _ = run_main(capsys, path, "--compact")
    assert code == 0 and compact.count("\n") == 1
    assert json.loads(compact) == json.loads(pretty)


def test_optional_fields_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # rules, round_in_shoe, balances and actions may be left out.
    minimal = {"game": "baccarat", "bets": [{"id": "x", "player": "p", "type": "player", "amount": 100}],
               "cards": ["4S", "2H", "5D", "3C"]}
    code, out, err = run_main(capsys, write(tmp_path, json.dumps(minimal)))
    assert (code, err) == (0, "")
    assert core(json.loads(out)["bets"]) == [{"id": "x", "outcome": "win", "net": 100}]


# --- every error of replay.md ------------------------------------------------------------------

BAD_INPUTS: dict[str, tuple[str, tuple[str, ...]]] = {
    # name: (file content, what the one line must mention)
    "not-json": ('{"game": "baccarat", "bets": [', ("not valid JSON",)),
    "empty-file": ("", ("JSON",)),
    "not-an-object-list": ("[1, 2]", ("one JSON object",)),
    "not-an-object-string": ('"baccarat"', ("one JSON object",)),
    "not-an-object-null": ("null", ("one JSON object",)),
    "unknown-game": (with_(BACCARAT, game="roulette"), ("game", "baccarat", "pok-deng")),
    "unknown-bet-type": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "dragon", "amount": 100}]),
                         ("unknown bet type", "dragon")),
    "blackjack-bet-at-baccarat": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "seat", "seat": 1,
                                                          "amount": 100}]), ("unknown bet type", "seat")),
    "unknown-rule-name": (with_(BACCARAT, rules={"house_edge": 1}), ("house_edge", "unknown")),
    "unknown-nested-rule-name": (with_(BACCARAT, rules={"payouts": {"dragon": "1:1"}}), ("dragon", "unknown")),
    "retired-special-combination": (with_(POK_DENG, rules={"special_combinations": ["two-pictures"]}),
                                    ("special_combinations", "two-pictures", "now lion-flush", "court-cards")),
    "unknown-special-combination": (with_(POK_DENG, rules={"special_combinations": ["three-kings"]}),
                                    ("three-kings", "lion-flush")),
    "bad-card-code": (with_(BACCARAT, cards=["2S", "4H", "10D", "3C"]), ("10D",)),
    "bad-card-suit": (with_(BACCARAT, cards=["2S", "4H", "4d", "3C"]), ("4d", "suit")),
    "card-not-a-string": (with_(BACCARAT, cards=["2S", "4H", 4, "3C"]), ("cards",)),
    "ninth-copy": (with_(POK_DENG, cards=["9S"] * 9 + ["2H", "3D", "4C"]), ("9S", "8")),
    "too-few-cards-baccarat": (with_(BACCARAT, cards=["2S", "4H", "4D"]), ("too few cards", "banker")),
    "too-few-cards-third-card": (with_(BACCARAT, cards=["2S", "4H", "3D", "3C"]), ("too few cards", "player")),
    "too-few-cards-pok-deng": (with_(POK_DENG, cards=POK_DENG["cards"][:7]), ("too few cards", "hand-2")),
    "too-few-cards-blackjack-seat": (with_(EXAMPLE, cards=["8S", "9H", "8C", "7H"]), ("too few cards", "seat-1")),
    "too-few-cards-blackjack-dealer": (with_(CLASSIC, cards=["7S", "9H", "KD"], actions=[{"seat": 1,
                                                                                          "action": "stand"}]),
                                       ("too few cards", "dealer")),
    "cards-left-over": (with_(BACCARAT, cards=["2S", "4H", "4D", "3C", "5H", "6H"]), ("left over", "5H", "6H")),
    "cards-left-over-pok-deng": (with_(POK_DENG, cards=[*POK_DENG["cards"], "AS"]), ("left over", "AS")),
    "too-few-actions": (with_(EXAMPLE, actions=[]), ("seat 1", "decision")),
    "illegal-split": (with_(EXAMPLE, cards=["8S", "9H", "7C", "7H"], actions=[{"seat": 1, "action": "split"}]),
                      ("cannot split", "same value")),
    "illegal-surrender-against-a-ten": (with_(EXAMPLE, cards=["8S", "TH", "8C", "7H"],
                                              actions=[{"seat": 1, "action": "surrender"}]),
                                        ("cannot surrender", "TH")),
    "illegal-surrender-after-split": (with_(EXAMPLE, actions=[{"seat": 1, "action": "split"},
                                                              {"seat": 1, "action": "stand"},
                                                              {"seat": 1, "action": "surrender"}]),
                                      ("cannot surrender", "split")),
    "illegal-unaffordable-insurance": (with_(EXAMPLE, balances={"p1": 499}, cards=["8S", "AH", "7C", "7H"],
                                             bets=[EXAMPLE["bets"][0]],
                                             actions=[{"seat": 1, "action": "insurance"},
                                                      {"seat": 1, "action": "stand"}]),
                                       ("insurance", "balance")),
    "illegal-classic-unaffordable-double": (with_(CLASSIC, balances={"p1": 500}, cards=["5S", "9H", "6C", "TH"],
                                                  bets=[CLASSIC["bets"][0]],
                                                  actions=[{"seat": 1, "action": "double"}]),
                                            ("cannot double", "balance")),
    "illegal-unknown-action": (with_(EXAMPLE, actions=[{"seat": 1, "action": "jump"}]), ("jump",)),
    "actions-left-over": (with_(BACCARAT, actions=[{"seat": 1, "action": "hit"}]), ("left over", "hit")),
    "bet-below-table-minimum": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "tie", "amount": 99}]),
                                ("b1", "99", "limit")),
    "bet-above-table-maximum": (with_(BACCARAT, rules={"limits": {"tie": {"max": 500}}},
                                      bets=[{"id": "b1", "player": "p1", "type": "tie", "amount": 501}]),
                                ("501", "500")),
    "side-bet-past-max-round": (with_(BACCARAT, round_in_shoe=61), ("offered only in rounds 1 to 60", "61")),
    "banker-limit": (with_(BACCARAT, rules={"banker_limit": 100},
                           bets=[{"id": "b1", "player": "p1", "type": "banker", "amount": 201}]), ("banker limit",)),
    "mode-on-a-player-bet": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": 100,
                                                    "mode": "commission"}]), ("mode",)),
    "duplicate-bet-id": (with_(BACCARAT, bets=[BACCARAT["bets"][0], BACCARAT["bets"][0]]), ("'c'", "twice")),
    "unknown-top-level-field": (with_(BACCARAT, comment="disputed"), ("comment", "unknown")),
    "missing-bets": (json.dumps({"game": "baccarat", "cards": ["2S", "4H", "4D", "3C"]}), ("bets",)),
    "negative-balance": (with_(BACCARAT, balances={"p1": -1}), ("balance", "negative")),
    "amount-zero": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": 0}]),
                    ("amount",)),
    "amount-negative": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": -100}]),
                        ("amount",)),
    "amount-fractional": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": 100.5}]),
                          ("amount",)),
    "amount-float-whole": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": 100.0}]),
                           ("amount",)),
    "amount-string": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": "100"}]),
                      ("amount",)),
    "amount-boolean": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "player", "amount": True}]),
                       ("amount",)),
    "round-in-shoe-zero": (with_(BACCARAT, round_in_shoe=0), ("round_in_shoe",)),
    "bad-mode": (with_(BACCARAT, bets=[{"id": "b1", "player": "p1", "type": "banker", "amount": 100,
                                        "mode": "half"}]), ("mode",)),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_every_error_exits_2_with_one_clear_line(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, needles = BAD_INPUTS[name]
    code, out, err = run_main(capsys, write(tmp_path, text))
    assert_one_line_error(code, out, err, *needles)


def test_missing_file_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-round.json"
    code, out, err = run_main(capsys, str(missing))
    assert_one_line_error(code, out, err, str(missing), "cannot read")


def test_a_directory_instead_of_a_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, str(tmp_path))
    assert_one_line_error(code, out, err, "cannot read")


def test_errors_on_stdin_too(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("[]"))
    code, out, err = run_main(capsys, "-")
    assert_one_line_error(code, out, err, "one JSON object")


def test_missing_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["replay"])
    assert exc.value.code == 2
    assert "file" in capsys.readouterr().err


def test_a_file_that_is_not_utf8_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, b'{"game": "baccarat", "bets": [], "cards": ["\xff\xfe"]}')
    code, out, err = run_main(capsys, path)
    assert_one_line_error(code, out, err)


def test_deeply_nested_json_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "[" * 100_000 + "]" * 100_000)
    code, out, err = run_main(capsys, path)
    assert_one_line_error(code, out, err)
