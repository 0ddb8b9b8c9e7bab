"""The ``engines`` and ``replay`` sections of ``make bench`` (see ``bench.py``).

engines
    Random complete rounds are generated first, outside the timed loop: the shoe order, the bets
    and (blackjack) every decision, insurance and follow answer, recorded by playing the round
    once with a basic-strategy-like policy (with some random legal choices). The timed loop then
    does only engine work, round after round: build the engine with the bets (validating them),
    deal the cards, apply the recorded decisions, settle every bet.

replay
    ``replay(Transcript.parse_json(text))`` of one typical round per game, in-process and warm
    (the time a settlement service or ``croupier replay`` spends per round after start-up); and
    the wall time of the whole ``croupier replay FILE`` process (start-up included).
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bench import Figure, Options, Timing, measure, prepare_heap

from croupier.cards import ALL_CARDS, BLACKJACK_VALUE
from croupier.games.baccarat import BaccaratRound
from croupier.games.base import Action, Bet, CardFor, DecisionFor, FollowWindow, InsuranceWindow, Settle
from croupier.games.blackjack import BlackjackRound
from croupier.games.pokdeng import PokDengRound
from croupier.rules import BaccaratRules, BlackjackRules, PokDengRules, load_rules
from croupier.transcript import Transcript
from croupier.transcript import replay as replay_round

SEED = 20260521
AMOUNTS = (100, 200, 500, 1000, 2500, 5000, 10_000)
SIDE_AMOUNTS = (100, 200, 500, 1000, 2500)


class Shoe:
    """Eight shuffled decks, reshuffled when fewer than ``reserve`` cards are left."""

    def __init__(self, rng: random.Random, reserve: int) -> None:
        self.rng = rng
        self.reserve = reserve
        self.cards: list[str] = []

    def round_start(self) -> None:
        if len(self.cards) < self.reserve:
            self.cards = list(ALL_CARDS) * 8
            self.rng.shuffle(self.cards)

    def draw(self) -> str:
        return self.cards.pop()


# --- baccarat --------------------------------------------------------------------------------

BaccaratInput = tuple[tuple[Bet, ...], int, tuple[str, ...]]


def baccarat_rounds(rules: BaccaratRules, count: int, seed: int = SEED) -> list[BaccaratInput]:
    """Random rounds: 2 to 5 players, each with 1 to 3 of the eight bet types (both Banker modes);
    the cards the round takes, in dealing order."""
    rng = random.Random(seed)
    shoe = Shoe(rng, 6)
    types = ("player", "banker", "tie", "player-pair", "banker-pair", "lucky-6", "big", "small")
    out: list[BaccaratInput] = []
    for _ in range(count):
        shoe.round_start()
        bets: list[Bet] = []
        for p in range(rng.randint(2, 5)):
            for kind in rng.sample(types, rng.randint(1, 3)):
                main = kind in ("player", "banker")
                mode = rng.choice(("commission", "no-commission")) if kind == "banker" else None
                amount = rng.choice(AMOUNTS if main else SIDE_AMOUNTS)
                bets.append(Bet(f"b{len(bets)}", f"p{p}", kind, amount, None, mode))
        round_in_shoe = rng.randint(1, 60)
        engine = BaccaratRound(rules, bets, round_in_shoe=round_in_shoe)
        while isinstance(engine.expected, CardFor):
            engine.deal(shoe.draw())
        out.append((tuple(bets), round_in_shoe, tuple(c for c in engine.log if isinstance(c, str))))
    return out


def time_baccarat(rules: BaccaratRules, rounds: Sequence[BaccaratInput], runs: int) -> Timing:
    def run() -> None:
        for bets, round_in_shoe, cards in rounds:
            engine = BaccaratRound(rules, bets, round_in_shoe=round_in_shoe)
            deal = engine.deal
            for card in cards:
                deal(card)
            engine.settle()

    return measure(run, runs)


# --- pok deng --------------------------------------------------------------------------------

PokDengInput = tuple[tuple[Bet, ...], tuple[str, ...]]


def pokdeng_rounds(count: int, seed: int = SEED) -> list[PokDengInput]:
    """Random rounds: every hand has one or two Player bets and a Pair bet two times in five; the
    twelve cards after the round's burn card."""
    rng = random.Random(seed)
    shoe = Shoe(rng, 13)
    out: list[PokDengInput] = []
    for _ in range(count):
        shoe.round_start()
        shoe.draw()  # the per-round burn card
        bets: list[Bet] = []
        for hand in range(1, 6):
            for _ in range(rng.randint(1, 2)):
                bets.append(Bet(f"b{len(bets)}", f"p{rng.randint(1, 9)}", f"player-{hand}", rng.choice(AMOUNTS)))
            if rng.random() < 0.4:
                bets.append(Bet(f"b{len(bets)}", f"p{rng.randint(1, 9)}", f"player-{hand}-pair",
                                rng.choice(SIDE_AMOUNTS)))
        out.append((tuple(bets), tuple(shoe.draw() for _ in range(12))))
    return out


def time_pokdeng(rules: PokDengRules, rounds: Sequence[PokDengInput], runs: int) -> Timing:
    def run() -> None:
        for bets, cards in rounds:
            engine = PokDengRound(rules, bets)
            deal = engine.deal
            for card in cards:
                deal(card)
            engine.settle()

    return measure(run, runs)


# --- blackjack -------------------------------------------------------------------------------

DEAL, ACT, CLOSE = 0, 1, 2
Step = tuple[int, Any]
BlackjackInput = tuple[tuple[Bet, ...], dict[str, int], tuple[Step, ...]]


def _basic(cards: Sequence[str], up: str, legal: frozenset[str]) -> str:
    """A basic-strategy-like choice among the legal actions."""
    up_value = BLACKJACK_VALUE[up[0]]
    up_value = 11 if up_value == 1 else up_value
    hard = sum(BLACKJACK_VALUE[c[0]] for c in cards)
    soft = any(c[0] == "A" for c in cards) and hard <= 11
    total = hard + 10 if soft else hard
    if "split" in legal:
        r = BLACKJACK_VALUE[cards[0][0]]
        if r in (1, 8) or (r == 9 and up_value not in (7, 10, 11)) or (r in (2, 3, 7) and up_value <= 7) or (
                r == 6 and up_value <= 6):
            return "split"
    if "surrender" in legal and not soft and total in (15, 16) and up_value == 9:
        return "surrender"
    if "double" in legal and (
            (not soft and (total == 11 or (total == 10 and up_value <= 9) or (total == 9 and 3 <= up_value <= 6)))
            or (soft and 13 <= total <= 18 and up_value in (5, 6))):
        return "double"
    if soft:
        return "hit" if total <= 17 or (total == 18 and up_value >= 9) else "stand"
    if total <= 11 or (total == 12 and up_value in (2, 3)) or (total <= 16 and up_value >= 7):
        return "hit"
    return "stand"


def blackjack_rounds(rules: BlackjackRules, count: int, seed: int = SEED) -> list[BlackjackInput]:
    """Random seven-seat rounds: a seat bet on every seat (seven players), a bet behind on every
    seat (seven other players), a pair bet on a seat two times in five; random balances, some too
    short for every extra stake. Decisions: basic-strategy-like, one in ten a random legal action
    (timeout included); insurance bought by a bet one time in six, follows answered Yes half the
    time. Each round is played once here and its steps recorded."""
    rng = random.Random(seed)
    shoe = Shoe(rng, 80)
    out: list[BlackjackInput] = []
    for _ in range(count):
        shoe.round_start()
        bets: list[Bet] = []
        for seat in range(1, 8):
            bets.append(Bet(f"s{seat}", f"p{seat}", "seat", rng.choice(AMOUNTS), seat))
        for seat in range(1, 8):
            bets.append(Bet(f"b{seat}", f"q{seat}", "behind", rng.choice(AMOUNTS), seat))
        for seat in range(1, 8):
            if rng.random() < 0.4:
                bets.append(Bet(f"x{seat}", f"p{seat}", "pair", rng.choice(SIDE_AMOUNTS), seat))
        balances = {b.player: rng.choice((0, 1000, 20_000, 1_000_000)) for b in bets}
        by_id = {b.id: b for b in bets}
        engine = BlackjackRound(rules, bets, balances=balances)
        steps: list[Step] = []
        while True:
            expected = engine.expected
            if isinstance(expected, Settle):
                break
            if isinstance(expected, CardFor):
                card = shoe.draw()
                engine.deal(card)
                steps.append((DEAL, card))
                continue
            if isinstance(expected, InsuranceWindow | FollowWindow):
                for bet_id in expected.bets:
                    bet = by_id[bet_id]
                    if isinstance(expected, InsuranceWindow):
                        if rng.random() >= 1 / 6:
                            continue
                        who = None if bet.type == "seat" else bet.player
                        action = Action(bet.seat or 0, "insurance", who)
                    else:
                        if rng.random() >= 0.5:
                            continue
                        hand = expected.hand if expected.what == "double" else None
                        action = Action(expected.seat, f"follow-{expected.what}", bet.player, hand)
                    engine.act(action)
                    steps.append((ACT, action))
                    if engine.expected is not expected and not isinstance(engine.expected, type(expected)):
                        break
                engine.close_window()
                steps.append((CLOSE, None))
                continue
            assert isinstance(expected, DecisionFor)
            view = engine.view(reveal_hidden=False)
            cards = view["seats"][str(expected.seat)]["hands"][expected.hand]["cards"]
            up = view["dealer"]["cards"][0]
            name = rng.choice(sorted(expected.legal)) if rng.random() < 0.1 else _basic(cards, up, expected.legal)
            action = Action(expected.seat, name)
            engine.act(action)
            steps.append((ACT, action))
        engine.settle()
        out.append((tuple(bets), balances, tuple(steps)))
    return out


def time_blackjack(rules: BlackjackRules, rounds: Sequence[BlackjackInput], runs: int) -> Timing:
    def run() -> None:
        for bets, balances, steps in rounds:
            engine = BlackjackRound(rules, bets, balances=balances)
            deal, act, close = engine.deal, engine.act, engine.close_window
            for kind, arg in steps:
                if kind == DEAL:
                    deal(arg)
                elif kind == ACT:
                    act(arg)
                else:
                    close()
            engine.settle()

    return measure(run, runs)


def _mean_bets(rounds: Sequence[tuple[Any, ...]]) -> float:
    return statistics.fmean(len(r[0]) for r in rounds)


# --- the sections ----------------------------------------------------------------------------


def engines(opts: Options) -> Iterator[Figure]:
    scale = 5 if opts.quick else 1
    if opts.wants("engines.baccarat"):
        rules = load_rules("baccarat")
        assert isinstance(rules, BaccaratRules)
        rounds = baccarat_rounds(rules, 50_000 // scale)
        prepare_heap()
        yield _rate("engines.baccarat", f"Baccarat, {_mean_bets(rounds):.1f} bets a round", len(rounds),
                    time_baccarat(rules, rounds, opts.runs), 70_000, "random rounds, both Banker modes, every side bet")
    if opts.wants("engines.pok-deng"):
        rules_pd = load_rules("pok-deng")
        assert isinstance(rules_pd, PokDengRules)
        pd_rounds = pokdeng_rounds(30_000 // scale)
        prepare_heap()
        yield _rate("engines.pok-deng", f"Pok Deng, {_mean_bets(pd_rounds):.1f} bets a round", len(pd_rounds),
                    time_pokdeng(rules_pd, pd_rounds, opts.runs), 30_000, "random rounds, twelve cards each")
    for game, label in (("deluxe-blackjack", "Deluxe Blackjack"), ("blackjack", "classic Blackjack")):
        key = f"engines.{game}"
        if not opts.wants(key):
            continue
        rules_bj = load_rules(game)
        assert isinstance(rules_bj, BlackjackRules)
        bj_rounds = blackjack_rounds(rules_bj, 6_000 // scale)
        prepare_heap()
        steps = statistics.fmean(len(r[2]) for r in bj_rounds)
        yield _rate(key, f"{label}, 7 seats + 7 behind, {_mean_bets(bj_rounds):.1f} bets", len(bj_rounds),
                    time_blackjack(rules_bj, bj_rounds, opts.runs), 5_000,
                    f"random rounds, {steps:.1f} cards and decisions a round")


def _rate(key: str, label: str, count: int, timing: Timing, target: float, what: str) -> Figure:
    return Figure(key, label, count / timing.wall, "rounds/s", target,
                  note=f"{count:,} {what}; CPU-time rate {count / timing.cpu:,.0f} rounds/s")


# --- replay ----------------------------------------------------------------------------------

# replay.md's example
EXAMPLE = json.loads((Path(__file__).resolve().parents[1] / "tests" / "data" / "replay-md-example.json").read_text())


def _transcript_of(engine: Any, balances: dict[str, int] | None = None) -> str:
    return Transcript.of(engine, balances=balances).model_dump_json(exclude_none=True)


def typical_transcripts() -> list[tuple[str, str, str]]:
    """(key, label, transcript JSON): replay.md's example, and one random round of each game
    from the engine section's generators (seven seats for blackjack)."""
    out = [("replay.example", "replay.md example (Deluxe, 1 seat, split)", json.dumps(EXAMPLE))]
    bac_rules = load_rules("baccarat")
    assert isinstance(bac_rules, BaccaratRules)
    bets, ris, cards = baccarat_rounds(bac_rules, 1, seed=7)[0]
    bac = BaccaratRound(bac_rules, bets, round_in_shoe=ris)
    for card in cards:
        bac.deal(card)
    out.append(("replay.baccarat", f"Baccarat, {len(bets)} bets, {len(cards)} cards", _transcript_of(bac)))
    pd_bets, pd_cards = pokdeng_rounds(1, seed=7)[0]
    pd = PokDengRound(load_rules("pok-deng"), pd_bets)  # type: ignore[arg-type]
    for card in pd_cards:
        pd.deal(card)
    out.append(("replay.pok-deng", f"Pok Deng, {len(pd_bets)} bets", _transcript_of(pd)))
    for game, label in (("deluxe-blackjack", "Deluxe"), ("blackjack", "classic")):
        rules = load_rules(game)
        assert isinstance(rules, BlackjackRules)
        bj_bets, balances, steps = blackjack_rounds(rules, 1, seed=11)[0]
        bj = BlackjackRound(rules, bj_bets, balances=balances)
        for kind, arg in steps:
            if kind == DEAL:
                bj.deal(arg)
            elif kind == ACT:
                bj.act(arg)
            else:
                bj.close_window()
        out.append((f"replay.{game}", f"{label}, 7 seats, {len(bj_bets)} bets, {len(steps)} steps",
                    _transcript_of(bj, balances)))
    return out


def _startup_command() -> list[str]:
    script = Path(sys.executable).parent / "croupier"
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "import sys; from croupier.cli import main; sys.exit(main())"]


def _processes(argv: Sequence[str], runs: int, env: dict[str, str]) -> Timing:
    """Median wall and CPU (user + system) seconds of ``runs`` processes, after one warm-up."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return Timing(statistics.median(walls), statistics.median(cpus))


def replay(opts: Options) -> Iterator[Figure]:
    calls = 100 if opts.quick else 500
    for key, label, text in typical_transcripts():
        if not opts.wants(key):
            continue
        prepare_heap()
        timing = measure(_replay_n(text, calls), opts.runs)
        yield Figure(key, label, timing.wall / calls * 1e6, "µs", 1000, higher_is_better=False,
                     note=f"replay(Transcript.parse_json(text)), warm; CPU time {timing.cpu / calls * 1e6:.0f} µs")
    runs = 5 if opts.quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        # Start-up as after a normal installation: bytecode cached (in a private cache, so that
        # the tree is left alone), even where PYTHONDONTWRITEBYTECODE is set.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if opts.wants("replay.python-startup"):
            timing = _processes([sys.executable, "-c", "pass"], runs, env)
            yield Figure("replay.python-startup", "python -c pass (the interpreter alone, for scale)",
                         timing.wall * 1e3, "ms", note=f"median of {runs} processes; CPU {timing.cpu * 1e3:.0f} ms")
        if opts.wants("replay.import-pydantic"):
            timing = _processes([sys.executable, "-c", "from pydantic import BaseModel"], runs, env)
            yield Figure("replay.import-pydantic", "python -c 'from pydantic import BaseModel' (for scale)",
                         timing.wall * 1e3, "ms", note=f"median of {runs} processes; CPU {timing.cpu * 1e3:.0f} ms")
        path = Path(tmp) / "round.json"
        path.write_text(json.dumps(EXAMPLE), encoding="utf-8")
        argv = [*_startup_command(), "replay", str(path)]
        if opts.wants("replay.startup"):
            timing = _processes(argv, runs, env)
            yield Figure("replay.startup", "croupier replay FILE, whole process", timing.wall * 1e3, "ms", 150,
                         higher_is_better=False,
                         note=f"median of {runs} processes (replay.md example), bytecode cached; "
                              f"CPU {timing.cpu * 1e3:.0f} ms")
        if opts.wants("replay.startup-nowrite"):
            # With PYTHONDONTWRITEBYTECODE=1 (as in some sandboxes and containers) a package whose
            # bytecode was never written, such as an editable install, is compiled at every start.
            plain = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
            plain["PYTHONDONTWRITEBYTECODE"] = "1"
            timing = _processes(argv, runs, plain)
            yield Figure("replay.startup-nowrite", "the same with PYTHONDONTWRITEBYTECODE=1 (for scale)",
                         timing.wall * 1e3, "ms",
                         note=f"median of {runs} processes; bytecode only where already on disk; "
                              f"CPU {timing.cpu * 1e3:.0f} ms")


def _replay_n(text: str, calls: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(calls):
            replay_round(Transcript.parse_json(text))

    return run
