"""``croupier simulate GAME --rounds N --seed S``: play shuffled shoes through the engines as a table
would, check every round, and compare the observed return of every bet type with the exact figure.

The table (one :class:`random.Random` seeded with ``seed`` drives everything, so a seed replays the
same run)
    - **Shoe** (``common.md``): 8 decks shuffled, a cut card placed 60 to 75 cards from the end
      (uniformly), fed card by card to a :class:`~croupier.shoe.Shoe`. The first card is shown and
      burns its value (the burned cards are scanned, or, one shoe in four, confirmed from the dealer
      console). When the card after the cut card is about to be drawn, the reader reports the cut
      card: during a round that round is the last, between rounds the next one is. After the last
      round the shoe is closed and a new one is shuffled. Pok Deng burns one card per round.
    - **Bets** go through :func:`croupier.betting.place_bets` (one request per player, all or
      nothing, debited from the player's wallet) and, for blackjack, the seat map and
      :func:`~croupier.betting.close_betting` (refunds back to the wallet); the engine then
      validates them again (``validate=True``), so betting and engine must agree. Amounts are
      table chips (1 to 20 times the bet type's minimum), one bet in ten an arbitrary amount up to
      10 times the minimum (odd amounts: the rounding down is exercised). Baccarat: 1 to 5 players
      per round, most on Player or Banker (either mode; now and then both Player and Banker), plus
      up to two of Tie, the pairs and the side bets, these only up to their ``max_round``. Pok
      Deng: 1 to 5 players, each 1 to 3 Player N bets, and two in five 1 or 2 pair bets.
      Blackjack: players sit down (Deluxe: sometimes on a second seat, the seat bets mirrored),
      leave, skip a round (Deluxe keeps the seat one round), place seat and pair bets; other
      players (real, trial or play-for-fun accounts) bet behind and place pair bets; Deluxe seated
      players sometimes bet behind other seats. Wallets are topped up when they fall below a third of
      the player's bankroll, so short balances happen now and then.
    - **Play** (blackjack): seated hands follow :func:`croupier.strategy.basic_action`, except
      that one seat in 25 times out once (``timeout``: auto-play), at its first, second or third
      decision. Insurance: seated players rarely (5%), bet-behind players at random (35%). Follow
      double / follow split: Yes at random (50%).

Checks, on every round
    - **Money**: one result per bet, in order; ``net == paid - staked``, ``paid >= 0``, the exact net
      rounded down by less than one unit; Baccarat and Pok Deng: ``staked`` is what the bet debited
      (a Pok Deng Player bet its 2x reservation); blackjack: each player's extra stakes taken during
      the round (the engine's balance) equal the sum of their bets' ``staked`` beyond the amounts;
      and the sum of the nets is minus the house result (what the wallets paid in, minus what came
      back). Every wallet stays non-negative.
    - **Replay**: :meth:`Transcript.of` the round, :func:`~croupier.transcript.replay` it, and the
      settlement must be identical (every round by default; ``replay_every=N`` checks one round in
      N, for profiling the engines alone).
    - Blackjack: the hands the simulator tracked are the settlement's hands. The shoe: each closes
      after the round the cut card says, never runs out.

A failed check raises :class:`SimulationError` naming the round (with its transcript, for
``croupier replay``).

Figures (per bet type, per unit staked)
    ``observed`` is total returned / total staked, where "returned" is the stake plus the exact net
    before rounding down (what :mod:`croupier.rtp` computes); ``paid`` is the same with the rounded
    payouts the wallets received. A Pok Deng Player bet counts its stake, not its 2x reservation
    (as ``rtp/pokdeng.py``). The standard error treats each round as one observation of that bet
    type (the bets of one type in one round share one outcome, so they are not independent):
    ``SE^2 = n/(n-1) * sum_r (R_r - x S_r)^2 / (sum_r S_r)^2`` over the rounds ``r`` with such bets,
    ``S_r`` staked, ``R_r`` returned, ``x`` the observed return; the 95% interval is ``x +- 1.96 SE``.
    Blackjack: ``seat`` and ``behind`` are per initial bet (doubles and splits in the return, as
    the exact figure); insurance is taken out of the bet it was bought on and reported as its own
    row. ``seat`` counts only the seats sure to be played by basic strategy alone, chosen before
    the cards so that the choice biases nothing: not picked to time out, and the player's balance
    covering every extra stake the round could ask (a split, a double on each hand, insurance:
    3.5 times each seat and bet-behind bet). Those are comparable with
    ``rtp.blackjack.analyse(rules).seat`` (computed only with ``exact=True``: about 25 s); the
    others are ``seat-auto``. (Leaving out the seats that happened to time out or to be short would
    select by the cards: a hand with more decisions is a worse hand; a short balance bites only on
    a double or a split, which are good hands.) ``behind`` mixes random follow answers: no exact
    figure. ``pair`` and ``insurance`` have exact figures (cheap: exact fractions).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

from . import betting
from .betting import BetRequest, RoundContext, SeatMap
from .cards import ALL_CARDS, DECKS
from .errors import BetRefused, CroupierError
from .games import new_round
from .games.base import (
    Action,
    Bet,
    BetResult,
    CardFor,
    DecisionFor,
    FollowWindow,
    InsuranceWindow,
    RoundEngine,
    Settle,
    Settlement,
)
from .games.blackjack import BlackjackRound
from .rules import GAMES, BaccaratRules, BlackjackRules, Limit, PokDengRules, Rules, load_rules
from .shoe import CardUse, Shoe, ShoePhase
from .transcript import Transcript, replay

CUT_CARD_DEPTH = (60, 75)
"""The cut card is placed this many cards from the end of the shoe (uniformly, both included)."""
CONFIRM_BURN = 0.25
"""Share of shoes whose burn the dealer console confirms instead of the reader scanning it."""
CHIPS = (1, 2, 2, 3, 4, 5, 5, 10, 10, 20)
"""A bet's amount: one of these times the bet type's minimum (capped at the maximum)."""
ODD_AMOUNT = 0.1
"""Share of bets with an arbitrary amount from the minimum to 10 times it."""
AUTO_SEAT = 0.04
"""Share of dealt seats that time out once (auto-play) in the round."""
SEATED_INSURANCE = 0.05
BEHIND_INSURANCE = 0.35
FOLLOW = 0.5
Z95 = 1.959963984540054


class SimulationError(CroupierError):
    """Invalid simulation arguments, or a round that failed a check (a bug to report)."""

    reason = "simulation"


# --- the report ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BetFigures:
    """One bet type's observed return beside its exact figure (floats: statistics, not money)."""

    bet: str
    bets: int
    rounds: int
    """Rounds with at least one bet of this type (the observations of the standard error)."""
    staked: int
    returned: float
    """Stakes plus exact nets (before rounding down)."""
    paid: float
    """Stakes plus the nets actually paid (rounded down)."""
    se: float
    exact: float | None
    note: str = ""

    @property
    def observed(self) -> float:
        return self.returned / self.staked if self.staked else math.nan

    @property
    def paid_return(self) -> float:
        return self.paid / self.staked if self.staked else math.nan

    def ci(self, z: float = Z95) -> tuple[float, float]:
        """The confidence interval ``observed +- z * se`` (95% by default; 2.5758 for 99%)."""
        return self.observed - z * self.se, self.observed + z * self.se

    def inside(self, z: float = Z95) -> bool | None:
        """Whether the exact figure lies in the interval; None without an exact figure."""
        if self.exact is None or not self.staked:
            return None
        lo, hi = self.ci(z)
        return lo <= self.exact <= hi

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.ci()
        return {
            "bets": self.bets, "rounds": self.rounds, "staked": self.staked,
            "observed": _num(self.observed), "se": _num(self.se), "ci95": [_num(lo), _num(hi)],
            "exact": None if self.exact is None else round(self.exact, 6), "inside": self.inside(),
            "paid": _num(self.paid_return), "note": self.note,
        }


def _num(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


@dataclass(frozen=True)
class ShoeFigures:
    started: int
    completed: int
    """Shoes closed after their last round (the last shoe of a run is usually still open)."""
    rounds_min: int
    rounds_max: int
    rounds_mean: float
    """Rounds per completed shoe."""
    cards_min: int
    cards_max: int
    """Cards drawn from each completed shoe (burn cards included; 416 in a shoe)."""
    cut_in_round: int
    """Completed shoes whose cut card came out during a round (that round was the last)."""
    cut_between_rounds: int
    """... between rounds (the next round was the last)."""

    def to_dict(self) -> dict[str, Any]:
        return {"started": self.started, "completed": self.completed, "rounds_min": self.rounds_min,
                "rounds_max": self.rounds_max, "rounds_mean": round(self.rounds_mean, 3), "cards_min": self.cards_min,
                "cards_max": self.cards_max, "cut_in_round": self.cut_in_round,
                "cut_between_rounds": self.cut_between_rounds}


@dataclass(frozen=True)
class SimulationReport:
    game: str
    rounds: int
    seed: int
    rules: dict[str, Any]
    bets: dict[str, BetFigures]
    shoes: ShoeFigures
    checked: int
    """Rounds whose money was checked (all of them)."""
    replayed: int
    """Rounds whose transcript was replayed to the identical settlement."""
    replay_every: int
    seconds: float
    """Time of the rounds (one core), without the exact figures."""
    house_result: int
    """What the house won over the run, in minor units (minus the sum of every bet's net)."""
    digest: str
    """A hash of every round's cards, actions and results: equal digests, identical runs."""
    refused: dict[str, int] = field(default_factory=dict)
    """Bet requests the betting phase refused, by reason (short balances; nothing else expected)."""
    exact_seconds: float = 0.0

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else math.inf

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "rounds": self.rounds, "seed": self.seed, "rules": self.rules,
            "seconds": round(self.seconds, 3), "rounds_per_second": round(self.rounds_per_second, 1),
            "checks": {"money": self.checked, "replayed": self.replayed, "replay_every": self.replay_every},
            "shoes": self.shoes.to_dict(),
            "house_result": self.house_result,
            "digest": self.digest,
            "refused": dict(self.refused),
            "bets": {name: figures.to_dict() for name, figures in self.bets.items()},
        }

    def text(self) -> str:
        s = self.shoes
        rules = json.dumps(self.rules, sort_keys=True) if self.rules else "default rules"
        every = "every round" if self.replay_every == 1 else f"one round in {self.replay_every}"
        lines = [
            f"croupier simulate {self.game}: {self.rounds:,} rounds, seed {self.seed}, {rules}",
            f"shoes: {s.started:,} shuffled, {s.completed:,} played out; {s.rounds_mean:.1f} rounds per shoe "
            f"({s.rounds_min} to {s.rounds_max}), {s.cards_min} to {s.cards_max} cards drawn of {DECKS * 52}; "
            f"cut card out in a round {s.cut_in_round}x, between rounds {s.cut_between_rounds}x",
            f"checks: money conserved on all {self.checked:,} rounds; transcript replayed to the identical "
            f"settlement on {self.replayed:,} ({every})",
            f"speed: {self.rounds_per_second:,.0f} rounds/s ({self.seconds:.2f} s, one core)"
            + (f"; exact figures {self.exact_seconds:.1f} s" if self.exact_seconds >= 0.05 else ""),
            f"house result: {self.house_result:+,} minor units",
        ]
        if self.refused:
            lines.append("refused bet requests: " + ", ".join(f"{k} {v}" for k, v in sorted(self.refused.items())))
        lines += ["", "return per unit staked (observed: stakes plus exact nets; paid: as rounded down and paid)"]
        width = max(len("bet"), *(len(name) for name in self.bets))
        lines.append(f"{'bet':<{width}}  {'bets':>9}  {'staked':>14}  {'observed':>9}  {'95% CI':^21}  "
                     f"{'exact':>9}  {'in CI':<5}  {'paid':>9}")
        for name, f in self.bets.items():
            lo, hi = f.ci()
            exact = "n/a" if f.exact is None else _pct(f.exact)
            inside = {True: "yes", False: "NO", None: "-"}[f.inside()]
            line = (f"{name:<{width}}  {f.bets:>9,}  {f.staked:>14,}  {_pct(f.observed):>9}  "
                    f"[{_pct(lo)}, {_pct(hi)}]  {exact:>9}  {inside:<5}  {_pct(f.paid_return):>9}")
            if f.note:
                line += f"  {f.note}"
            lines.append(line)
        lines += ["", *NOTES.get(self.game, ())]
        return "\n".join(lines).rstrip() + "\n"


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.4f}%"


_BLACKJACK_NOTES = (
    "seat: seats sure to play basic strategy alone, per initial bet (exact figure: --exact, about 25 s);",
    "seat-auto: picked to time out once, or the balance might not cover every double or split;",
    "behind: random follow answers. Insurance is taken out of the bets and reported on its own.",
)
NOTES: dict[str, tuple[str, ...]] = {
    "pok-deng": ("Player N per unit of stake (its 2x reservation is not the stake), as rtp/pokdeng.py; per amount",
                 "put down (front and back stake, the published measure) it is 1 - (1 - RTP) / 2.",),
    "deluxe-blackjack": _BLACKJACK_NOTES,
    "blackjack": _BLACKJACK_NOTES,
}


# --- the shoe --------------------------------------------------------------------------------


class _Dealer:
    """The physical shoe: 416 shuffled cards and a cut card, fed to a :class:`Shoe` as a reader would."""

    def __init__(self, rng: random.Random, per_round_burn: int) -> None:
        self.rng = rng
        self.per_round_burn = per_round_burn
        self.shoe: Shoe | None = None
        self.cards: list[str] = []
        self.pos = 0
        self.cut_at = 0
        self.cut_round: int | None = None  # the round the cut card came out in (or the one before it)
        self.cut_between = False
        self.started = 0
        self.rounds_per_shoe: list[int] = []
        self.cards_per_shoe: list[int] = []
        self.cut_in_round = self.cut_between_rounds = 0

    def where(self) -> str:
        if self.shoe is None:
            return "between shoes"
        return f"shoe {self.shoe.shoe_id} round {self.shoe.round_in_shoe}"

    def _shuffle(self) -> Shoe:
        rng = self.rng
        self.started += 1
        cards = list(ALL_CARDS) * DECKS
        rng.shuffle(cards)
        self.cards = cards
        self.pos = 0
        self.cut_at = len(cards) - rng.randint(*CUT_CARD_DEPTH)
        self.cut_round = None
        self.cut_between = False
        shoe = self.shoe = Shoe(f"shoe-{self.started}", per_round_burn=self.per_round_burn)
        if shoe.scan(self._take()) is not CardUse.BURN_INDICATOR:
            raise SimulationError("the first card of a new shoe was not taken as the burn indicator")
        if rng.random() < CONFIRM_BURN:
            self.pos += shoe.burn_remaining
            shoe.confirm_burn()
        else:
            while shoe.phase is ShoePhase.BURNING:
                if shoe.scan(self._take()) is not CardUse.BURNED:
                    raise SimulationError("a burn card was not taken as burned")
        if shoe.phase is not ShoePhase.READY or shoe.cards_drawn != self.pos:
            raise SimulationError(f"after the burn the shoe is {shoe.phase} with {shoe.cards_drawn} cards drawn, "
                                  f"{self.pos} taken")
        return shoe

    def _take(self) -> str:
        if self.pos == self.cut_at and self.cut_round is None:
            assert self.shoe is not None
            self.shoe.cut_card()  # in a round: this round is the last
            self.cut_round = self.shoe.round_in_shoe
        card = self.cards[self.pos]
        self.pos += 1
        return card

    def next_round(self) -> int:
        """The number in its shoe of the round about to take bets (shuffling a new shoe if needed)."""
        shoe = self.shoe
        if shoe is None or shoe.phase is ShoePhase.CLOSED:
            shoe = self._shuffle()
        return shoe.round_in_shoe + 1

    def start_round(self) -> int:
        assert self.shoe is not None
        number = self.shoe.start_round()
        for _ in range(self.per_round_burn):
            if self.shoe.scan(self._take()) is not CardUse.BURNED:
                raise SimulationError("the round's burn card was not taken as burned")
        return number

    def deal(self) -> str:
        assert self.shoe is not None
        card = self._take()
        if self.shoe.scan(card) is not CardUse.ROUND:
            raise SimulationError(f"card {card} was not taken as a round card")
        return card

    def end_round(self) -> None:
        shoe = self.shoe
        assert shoe is not None
        shoe.end_round()
        if shoe.phase is ShoePhase.READY and self.pos == self.cut_at and self.cut_round is None:
            shoe.cut_card()  # between rounds: the next round is the last
            self.cut_round = shoe.round_in_shoe + 1
            self.cut_between = True
        if shoe.phase is ShoePhase.CLOSED:
            if self.cut_round != shoe.round_in_shoe:
                raise SimulationError(f"shoe {shoe.shoe_id} closed after round {shoe.round_in_shoe}, but the cut card "
                                      f"made round {self.cut_round} the last")
            if shoe.cards_drawn != self.pos:
                raise SimulationError(f"shoe {shoe.shoe_id} counted {shoe.cards_drawn} cards, {self.pos} were drawn")
            self.rounds_per_shoe.append(shoe.round_in_shoe)
            self.cards_per_shoe.append(self.pos)
            if self.cut_between:
                self.cut_between_rounds += 1
            else:
                self.cut_in_round += 1
        elif self.cut_round is not None and shoe.round_in_shoe >= self.cut_round:
            raise SimulationError(f"shoe {shoe.shoe_id} is still open after round {shoe.round_in_shoe}, the last")

    def figures(self) -> ShoeFigures:
        rounds, cards = self.rounds_per_shoe, self.cards_per_shoe
        return ShoeFigures(
            started=self.started, completed=len(rounds),
            rounds_min=min(rounds, default=0), rounds_max=max(rounds, default=0),
            rounds_mean=sum(rounds) / len(rounds) if rounds else 0.0,
            cards_min=min(cards, default=0), cards_max=max(cards, default=0),
            cut_in_round=self.cut_in_round, cut_between_rounds=self.cut_between_rounds,
        )


# --- the players -----------------------------------------------------------------------------


@dataclass
class _Round:
    """One round's bets as the betting phase leaves them."""

    number: int
    bets: list[Bet] = field(default_factory=list)
    debited: dict[str, int] = field(default_factory=dict)
    """Per player: what the bets given to the engine took from the wallet."""


class _Table:
    """Wallets, bet placement and (for blackjack) the seats. Subclasses choose the bets and play."""

    game: str

    def __init__(self, game: str, rules: Rules, rng: random.Random, players: Sequence[tuple[str, str]]) -> None:
        self.game = game
        self.rules = rules
        self.rng = rng
        self.kind = dict(players)
        unit = min(limit.min for limit in cast(Mapping[str, Limit], rules.limits).values())
        self.bankroll = {p: unit * rng.choice((40, 100, 300, 1000, 5000)) for p, _ in players}
        self.wallet = dict(self.bankroll)
        self.deposits = sum(self.wallet.values())
        self.refused: dict[str, int] = {}

    # money
    def top_up(self) -> None:
        for player, bankroll in self.bankroll.items():
            if self.wallet[player] < bankroll // 3:
                self.deposits += bankroll - self.wallet[player]
                self.wallet[player] = bankroll

    def amount(self, limit: Limit) -> int:
        rng = self.rng
        if rng.random() < ODD_AMOUNT:
            return rng.randint(limit.min, min(limit.max, 10 * limit.min))
        return min(limit.max, limit.min * rng.choice(CHIPS))

    def place(self, rnd: _Round, ctx: RoundContext, player: str, requests: Sequence[BetRequest]) -> bool:
        """One bet request through the betting phase; False (and counted) if it is refused."""
        if not requests:
            return False
        existing = [b for b in rnd.bets if b.player == player]
        try:
            placement = betting.place_bets(self.game, self.rules, ctx, player, self.kind[player], existing, requests,
                                           self.wallet[player])
        except BetRefused as exc:
            self.refused[exc.reason] = self.refused.get(exc.reason, 0) + 1
            return False
        self.wallet[player] -= placement.debit
        rnd.debited[player] = rnd.debited.get(player, 0) + placement.debit
        for change in placement.changes:
            if change.is_new:
                rnd.bets.append(change.bet)
            else:
                rnd.bets = [change.bet if b.id == change.bet.id else b for b in rnd.bets]
        return True

    def place_bets(self, number: int) -> _Round:  # pragma: no cover - every table overrides it
        raise NotImplementedError

    def play(self, engine: RoundEngine, dealer: _Dealer, rnd: _Round) -> None:
        """Drive a round without decisions: deal every card it expects."""
        deal = engine.deal
        while type(engine.expected) is CardFor:
            deal(dealer.deal())

    def rows(self, rnd: _Round, settlement: Settlement) -> dict[str, list[float]]:
        """Per report row: [bets, staked, returned exactly, returned as paid]."""
        out: dict[str, list[float]] = {}
        for bet, res in zip(rnd.bets, settlement.bets, strict=True):
            row = out.get(bet.type)
            if row is None:
                row = out[bet.type] = [0, 0, 0.0, 0.0]
            row[0] += 1
            row[1] += bet.amount
            row[2] += bet.amount + float(res.exact_net)
            row[3] += bet.amount + res.net
        return out


class _BaccaratTable(_Table):
    def __init__(self, rules: BaccaratRules, rng: random.Random) -> None:
        super().__init__("baccarat", rules, rng, [(f"p{i}", "real") for i in range(1, 9)])
        self.brules = rules
        self.players = sorted(self.kind)

    def place_bets(self, number: int) -> _Round:
        rng, rules = self.rng, self.brules
        limits = cast(Mapping[str, Limit], rules.limits)
        rnd = _Round(number)
        ctx = RoundContext(round_in_shoe=number)
        sides = ["tie", "player-pair", "banker-pair"]
        sides += [k for k, side in rules.side_bets.items() if side.max_round is None or number <= side.max_round]
        for player in rng.sample(self.players, rng.randint(1, 5)):
            kinds = []
            if rng.random() < 0.85:  # most players bet Player or Banker (now and then both)
                kinds += rng.choice((["player"], ["banker"], ["player"], ["banker"], ["player", "banker"]))
            kinds += rng.sample(sides, rng.randint(0 if kinds else 1, 2))
            requests = []
            for kind in kinds:
                mode = rng.choice(rules.modes) if kind == "banker" else None
                requests.append(BetRequest(kind, self.amount(limits[kind]), mode=mode))
            self.place(rnd, ctx, player, requests)
        return rnd

    def rows(self, rnd: _Round, settlement: Settlement) -> dict[str, list[float]]:
        out = super().rows(rnd, settlement)
        if any(b.type == "banker" and b.mode == "no-commission" for b in rnd.bets):
            # split the Banker row by mode (the exact report names them banker / banker-no-commission)
            out.pop("banker", None)
            for bet, res in zip(rnd.bets, settlement.bets, strict=True):
                if bet.type != "banker":
                    continue
                name = "banker-no-commission" if bet.mode == "no-commission" else "banker"
                row = out.setdefault(name, [0, 0, 0.0, 0.0])
                row[0] += 1
                row[1] += bet.amount
                row[2] += bet.amount + float(res.exact_net)
                row[3] += bet.amount + res.net
        return out


class _PokDengTable(_Table):
    def __init__(self, rules: PokDengRules, rng: random.Random) -> None:
        super().__init__("pok-deng", rules, rng, [(f"p{i}", "real") for i in range(1, 9)])
        self.prules = rules
        self.players = sorted(self.kind)
        self.main = [t for t in sorted(rules.limits) if not t.endswith("-pair")]
        self.pairs = [t for t in sorted(rules.limits) if t.endswith("-pair")]

    def place_bets(self, number: int) -> _Round:
        rng = self.rng
        rnd = _Round(number)
        ctx = RoundContext(round_in_shoe=number)
        for player in rng.sample(self.players, rng.randint(1, 5)):
            kinds = rng.sample(self.main, rng.randint(1, 3))
            if rng.random() < 0.4:
                kinds += rng.sample(self.pairs, rng.randint(1, 2))
            self.place(rnd, ctx, player, [BetRequest(kind, self.amount(self.prules.limits[kind])) for kind in kinds])
        return rnd


class _BlackjackTable(_Table):
    """Seats, seat bets (mirrored on Deluxe), bets behind and pair bets; basic strategy at play."""

    SEATED = tuple(f"s{i}" for i in range(1, 11))
    BEHIND = (("b1", "real"), ("b2", "real"), ("b3", "trial"), ("b4", "fun"), ("b5", "real"), ("b6", "trial"))

    def __init__(self, game: str, rules: BlackjackRules, rng: random.Random) -> None:
        super().__init__(game, rules, rng, [*((p, "real") for p in self.SEATED), *self.BEHIND])
        self.brules = rules
        self.seats: SeatMap = {}
        self.impure: set[int] = set()
        """Seats of the last round not played entirely by basic strategy (a timeout, a short balance)."""
        self.hands: dict[str, list[str]] = {}
        """The last round's hands as the simulator dealt them."""
        from .strategy import basic_action  # only blackjack needs the strategy tables

        self.basic_action = basic_action

    def _seats_of(self, player: str) -> list[int]:
        return sorted(n for n, s in self.seats.items() if s.player == player)

    def _sit(self) -> None:
        rng, rules = self.rng, self.brules
        for seat in range(1, rules.seats + 1):
            if seat in self.seats or rng.random() >= 0.3:
                continue
            candidates = [p for p in self.SEATED if len(self._seats_of(p)) < rules.max_seats_per_player]
            holding = [p for p in candidates if self._seats_of(p)]
            if holding and rng.random() < 0.25:  # Deluxe: someone takes a second seat
                player = rng.choice(holding)
            else:
                free = [p for p in candidates if not self._seats_of(p)]
                if not free:
                    continue
                player = rng.choice(free)
            try:
                self.seats = betting.sit(rules, self.seats, player, seat, self.kind[player])
            except BetRefused as exc:
                self.refused[exc.reason] = self.refused.get(exc.reason, 0) + 1

    def place_bets(self, number: int) -> _Round:
        rng, rules = self.rng, self.brules
        limits = rules.limits
        rnd = _Round(number)
        seated = {s.player for s in self.seats.values()}
        self.seats = betting.seats_at_round_start(rules, self.seats, {p: self.wallet[p] for p in seated})
        for seat in sorted(self.seats):
            state = self.seats.get(seat)
            if state is not None and rng.random() < 0.03:
                self.seats = betting.leave(self.seats, state.player, seat)
        self._sit()
        ctx = RoundContext(number, self.seats)
        players = sorted({s.player for s in self.seats.values()})
        for player in players:
            own = self._seats_of(player)
            if rng.random() < 0.07:
                continue  # no seat bet this round: Deluxe keeps the seat one round, classic frees it
            requests = [BetRequest("seat", self.amount(limits["seat"]), seat=own[0])]
            if not rules.mirror_seat_bets:
                requests += [BetRequest("seat", self.amount(limits["seat"]), seat=s) for s in own[1:]]
            if rng.random() < 0.2:
                requests.append(BetRequest("pair", self.amount(limits["pair"]), seat=rng.choice(own)))
            others = [s for s in self.seats if s not in own]
            if rules.seated_may_bet_behind and others and rng.random() < 0.1:
                requests.append(BetRequest("behind", self.amount(limits["behind"]), seat=rng.choice(sorted(others))))
            if self.place(rnd, ctx, player, requests) and len(own) > 1 and rng.random() < 0.2:
                # an addition to the second seat: mirrored on the first (or split if the balance is short)
                self.place(rnd, ctx, player, [BetRequest("seat", self.amount(limits["seat"]), seat=own[-1])])
        if not any(b.type == "seat" for b in rnd.bets):
            self._ensure_seat_bet(rnd, ctx)
            ctx = RoundContext(number, self.seats)
        occupied = sorted(self.seats)
        for player, _ in self.BEHIND:
            if not occupied or rng.random() >= 0.5:
                continue
            requests = []
            for seat in rng.sample(occupied, min(len(occupied), rng.randint(1, 2))):
                requests.append(BetRequest("behind", self.amount(limits["behind"]), seat=seat))
                if rng.random() < 0.25:
                    requests.append(BetRequest("pair", self.amount(limits["pair"]), seat=seat))
            if rules.variant == "deluxe" and rng.random() < 0.1:
                requests.append(BetRequest("pair", self.amount(limits["pair"]), seat=rng.choice(occupied)))
            self.place(rnd, ctx, player, requests)
        closing = betting.close_betting(self.game, rules, self.seats, rnd.bets)
        for refund in closing.refunds:
            self.wallet[refund.bet.player] += refund.amount
            rnd.debited[refund.bet.player] -= refund.amount
        rnd.bets = list(closing.bets)
        self.seats = closing.seats
        return rnd

    def _ensure_seat_bet(self, rnd: _Round, ctx: RoundContext) -> None:
        """Nobody placed a seat bet: the first seated player (or a newcomer on seat 1) places the minimum."""
        rules = self.brules
        minimum = rules.limits["seat"].min
        if not self.seats:
            free = [p for p in self.SEATED if not self._seats_of(p)]
            self.seats = betting.sit(rules, self.seats, free[0], 1, "real")
        seat = min(self.seats)
        player = self.seats[seat].player
        own = self._seats_of(player)
        need = minimum * len(own)
        if self.wallet[player] < need:
            self.deposits += need - self.wallet[player]
            self.wallet[player] = need
        ctx = RoundContext(ctx.round_in_shoe, self.seats)
        if not self.place(rnd, ctx, player, [BetRequest("seat", minimum, seat=own[0])]):
            raise SimulationError(f"player {player} could not place a minimum seat bet on seat {own[0]}")

    def play(self, engine: RoundEngine, dealer: _Dealer, rnd: _Round) -> None:
        rng, rules = self.rng, self.brules
        game = cast(BlackjackRound, engine)
        hands: dict[str, list[str]] = {}
        seat_bet = {cast(int, b.seat): b for b in rnd.bets if b.type == "seat"}
        by_id = {b.id: b for b in rnd.bets}
        # Which seats are not pure basic strategy is decided before the cards, so that leaving them
        # out of the "seat" row selects nothing by the cards: a seat that will time out (at its
        # first, second or third decision, if it gets there), and the seats of a player whose
        # balance might not cover every extra stake (a split, two doubles, insurance: 3.5x each bet).
        exposure: dict[str, int] = {}
        for bet in rnd.bets:
            if bet.type != "pair":
                exposure[bet.player] = exposure.get(bet.player, 0) + 3 * bet.amount + bet.amount // 2
        timeout_at = {seat: rng.randint(1, 3) for seat in sorted(seat_bet) if rng.random() < AUTO_SEAT}
        impure = set(timeout_at)
        for seat, bet in seat_bet.items():
            balance = game.balance_of(bet.player)
            if balance is not None and balance < exposure[bet.player]:
                impure.add(seat)
        decisions: dict[int, int] = {}
        answered: set[tuple[Any, ...]] = set()
        yes: set[str] = set()
        while True:
            expected = engine.expected
            kind = type(expected)
            if kind is CardFor:
                card = dealer.deal()
                engine.deal(card)
                hand = cast(CardFor, expected).hand
                found = hands.get(hand)
                if found is None:
                    hands[hand] = [card]
                else:
                    found.append(card)
            elif kind is DecisionFor:
                decision = cast(DecisionFor, expected)
                seat = decision.seat
                bet = seat_bet[seat]
                name = f"seat-{seat}" if decision.hand == 0 else f"seat-{seat}/1"
                cards = hands[name]
                balance = game.balance_of(bet.player)
                affordable = balance is None or balance >= bet.amount
                count = decisions[seat] = decisions.get(seat, 0) + 1
                if timeout_at.get(seat) == count:
                    action = "timeout"
                else:
                    action = self.basic_action(rules, cards, hands["dealer"][0], decision.legal,
                                               f"seat-{seat}/1" in hands)
                engine.act(Action(seat, action))
                if action == "split" and affordable:
                    hands[name] = [cards[0]]
                    hands[f"seat-{seat}/1"] = [cards[1]]
            elif kind is InsuranceWindow or kind is FollowWindow:
                window = cast(InsuranceWindow | FollowWindow, expected)
                key: tuple[Any, ...] = ("insurance",) if kind is InsuranceWindow else (
                    "follow", cast(FollowWindow, window).seat, cast(FollowWindow, window).hand,
                    cast(FollowWindow, window).what)
                if key not in answered:  # one draw per bet when the window opens
                    answered.add(key)
                    yes = set()
                    for bet_id in window.bets:
                        bet = by_id[bet_id]
                        if kind is InsuranceWindow:
                            chance = SEATED_INSURANCE if bet.type == "seat" else BEHIND_INSURANCE
                        else:
                            chance = FOLLOW
                        if rng.random() < chance:
                            yes.add(bet_id)
                pending = [b for b in window.bets if b in yes]
                if not pending:
                    engine.close_window()
                    continue
                yes.discard(pending[0])
                bet = by_id[pending[0]]
                if isinstance(window, InsuranceWindow):
                    player = None if bet.type == "seat" else bet.player
                    engine.act(Action(cast(int, bet.seat), "insurance", player))
                else:
                    hand_index = window.hand if window.what == "double" and rng.random() < 0.5 else None
                    engine.act(Action(window.seat, f"follow-{window.what}", bet.player, hand_index))
            else:
                break
        self.impure = impure
        self.hands = hands

    def check_hands(self, settlement: Settlement) -> None:
        for name, hand in settlement.hands.items():
            if self.hands.get(name, []) != hand["cards"]:
                raise SimulationError(f"hand {name}: the simulator dealt {self.hands.get(name, [])}, the settlement "
                                      f"shows {hand['cards']}")

    def rows(self, rnd: _Round, settlement: Settlement) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        pays = self.brules.insurance_pays
        for bet, res in zip(rnd.bets, settlement.bets, strict=True):
            name = bet.type
            if name == "seat" and bet.seat in self.impure:
                name = "seat-auto"
            exact, paid = bet.amount + float(res.exact_net), float(bet.amount + res.net)
            cost = res.detail.get("insurance_stake")
            if cost:
                won = cost + cost * pays if res.detail.get("insurance") == "win" else Fraction(0)
                ins = out.setdefault("insurance", [0, 0, 0.0, 0.0])
                ins[0] += 1
                ins[1] += cost
                ins[2] += float(won)
                ins[3] += float(won)
                exact -= float(won - cost)
                paid -= float(won - cost)
            row = out.setdefault(name, [0, 0, 0.0, 0.0])
            row[0] += 1
            row[1] += bet.amount
            row[2] += exact
            row[3] += paid
        return out


def _table(game: str, rules: Rules, rng: random.Random) -> _Table:
    if isinstance(rules, BaccaratRules):
        return _BaccaratTable(rules, rng)
    if isinstance(rules, PokDengRules):
        return _PokDengTable(rules, rng)
    return _BlackjackTable(game, rules, rng)


# --- the exact figures -----------------------------------------------------------------------


def exact_figures(game: str, rules: Rules, *, blackjack_main: bool = False) -> dict[str, float | None]:
    """The exact RTP per report row. Blackjack's ``seat`` needs the full analysis (about 25 s): only
    with ``blackjack_main``; ``pair`` and ``insurance`` are exact fractions, always given."""
    if isinstance(rules, BaccaratRules):
        from .rtp import baccarat

        return {name: float(value) for name, value in baccarat.analyse(rules).items()}
    if isinstance(rules, PokDengRules):
        from .rtp import pokdeng

        return {name: float(value) for name, value in pokdeng.analyse(rules).items()}
    from .rtp import blackjack

    seat = blackjack.analyse(rules).seat if blackjack_main else None
    return {"seat": seat, "seat-auto": None, "behind": None, "pair": float(blackjack.pair_rtp(rules)),
            "insurance": float(blackjack.insurance_rtp(rules))}


_ROW_NOTES = {
    "seat": "n/a: --exact",
    "seat-auto": "not comparable: auto-play, or a balance that might not cover a double or split",
    "behind": "not comparable: random follow answers",
}


# --- the run ---------------------------------------------------------------------------------


class _Row:
    __slots__ = ("bets", "paid", "returned", "rounds", "rr", "rs", "ss", "staked")

    def __init__(self) -> None:
        self.bets = self.rounds = self.staked = 0
        self.returned = self.paid = self.rs = self.rr = self.ss = 0.0

    def add(self, bets: float, staked: float, returned: float, paid: float) -> None:
        self.bets += int(bets)
        self.rounds += 1
        self.staked += int(staked)
        self.returned += returned
        self.paid += paid
        self.rs += returned * staked
        self.rr += returned * returned
        self.ss += float(staked) * staked

    def figures(self, name: str, exact: float | None, note: str) -> BetFigures:
        se = math.nan
        if self.rounds > 1 and self.staked:
            x = self.returned / self.staked
            spread = max(self.rr - 2 * x * self.rs + x * x * self.ss, 0.0)
            se = math.sqrt(spread * self.rounds / (self.rounds - 1)) / self.staked
        return BetFigures(name, self.bets, self.rounds, self.staked, self.returned, self.paid, se, exact, note)


def _check_money(game: str, rules: Rules, engine: RoundEngine, rnd: _Round, balances: Mapping[str, int],
                 settlement: Settlement) -> int:
    """Every money check of one round (module docstring); returns the house result of the round."""
    results = settlement.bets
    if [r.id for r in results] != [b.id for b in rnd.bets]:
        raise SimulationError("the settlement does not list one result per bet in input order")
    blackjack = isinstance(rules, BlackjackRules)
    extra: dict[str, int] = {}
    nets = staked = 0
    for bet, res in zip(rnd.bets, results, strict=True):
        _check_result(bet, res)
        if blackjack:
            if res.staked < bet.amount:
                raise SimulationError(f"bet {bet.id}: staked {res.staked} is below its amount {bet.amount}")
            extra[bet.player] = extra.get(bet.player, 0) + res.staked - bet.amount
        elif res.staked != betting.debit_of(rules, bet.type, bet.amount):
            raise SimulationError(f"bet {bet.id}: staked {res.staked}, but the bet debited "
                                  f"{betting.debit_of(rules, bet.type, bet.amount)}")
        nets += res.net
        staked += res.staked
    taken = sum(rnd.debited.values())
    if blackjack:
        round_engine = cast(BlackjackRound, engine)
        for player, start in balances.items():
            now = round_engine.balance_of(player)
            taken_in_round = start - (now if now is not None else start)
            if taken_in_round != extra.get(player, 0):
                raise SimulationError(f"player {player}: the round took {taken_in_round} beyond the bets, the "
                                      f"settlement counts {extra.get(player, 0)} extra stakes")
            taken += taken_in_round
    paid = staked + nets
    house = taken - paid
    if nets != -house:
        raise SimulationError(f"money is not conserved: the nets add up to {nets}, the house result is {house} "
                              f"(wallets paid in {taken}, the bets staked {staked})")
    return house


def _check_result(bet: Bet, res: BetResult) -> None:
    if res.net != res.paid - res.staked or res.paid < 0:
        raise SimulationError(f"bet {bet.id}: net {res.net}, paid {res.paid}, staked {res.staked} do not add up")
    exact = res.exact_net
    if exact.numerator // exact.denominator != res.net:  # the floor: 0 <= exact - net < 1
        raise SimulationError(f"bet {bet.id}: exact net {exact} is not rounded down to {res.net}")


def simulate(
    game: str,
    rounds: int,
    seed: int,
    rules_overrides: Mapping[str, Any] | None = None,
    *,
    exact: bool = False,
    replay_every: int = 1,
) -> SimulationReport:
    """Play ``rounds`` rounds of ``game`` (see the module docstring) and report. ``exact``: compute
    blackjack's main-bet figure too (about 25 s; Baccarat's and Pok Deng's are always computed, in
    about a second). ``replay_every``: replay one round's transcript in this many (1: every round).
    Raises :class:`~croupier.errors.RulesError` (unknown game, bad rules) or :class:`SimulationError`."""
    if game not in GAMES:
        raise SimulationError(f"unknown game {game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds <= 0:
        raise SimulationError(f"the number of rounds must be a positive whole number, not {rounds!r}",
                              reason="bad-argument")
    if isinstance(replay_every, bool) or not isinstance(replay_every, int) or replay_every <= 0:
        raise SimulationError(f"replay_every must be a positive whole number, not {replay_every!r}",
                              reason="bad-argument")
    overrides = dict(rules_overrides or {})
    rules = load_rules(game, overrides)
    started = time.perf_counter()
    exact_by_row = exact_figures(game, rules, blackjack_main=exact)
    exact_seconds = time.perf_counter() - started

    rng = random.Random(seed)
    dealer = _Dealer(rng, 1 if isinstance(rules, PokDengRules) else 0)
    table = _table(game, rules, rng)
    if isinstance(table, _BlackjackTable):  # load the strategy tables outside the timing
        table.basic_action(table.brules, ["TS", "6H"], "7C", frozenset({"hit", "stand"}), False)
    rows: dict[str, _Row] = {}
    digest = hashlib.blake2b(digest_size=16)
    house = replayed = 0
    started = time.perf_counter()
    for n in range(1, rounds + 1):
        try:
            house_round, did_replay = _round(game, rules, overrides, table, dealer, rows, digest,
                                             replay=(n - 1) % replay_every == 0)
        except CroupierError as exc:
            raise SimulationError(f"round {n} ({dealer.where()}): {exc}", reason=exc.reason) from exc
        house += house_round
        replayed += did_replay
    seconds = time.perf_counter() - started
    if table.deposits != sum(table.wallet.values()) + house:
        raise SimulationError(f"the wallets hold {sum(table.wallet.values())} after deposits of {table.deposits} "
                              f"and a house result of {house}")

    names = [*exact_by_row, *sorted(set(rows) - set(exact_by_row))]
    figures = {}
    for name in names:
        row = rows.get(name, _Row())
        value = exact_by_row.get(name)
        note = _ROW_NOTES.get(name, "") if value is None else ""
        figures[name] = row.figures(name, value, note)
    return SimulationReport(
        game=game, rounds=rounds, seed=seed, rules=overrides, bets=figures, shoes=dealer.figures(),
        checked=rounds, replayed=replayed, replay_every=replay_every, seconds=seconds, house_result=house,
        digest=digest.hexdigest(), refused=dict(sorted(table.refused.items())), exact_seconds=exact_seconds,
    )


def _round(game: str, rules: Rules, overrides: dict[str, Any], table: _Table, dealer: _Dealer,
           rows: dict[str, _Row], digest: Any, *, replay: bool) -> tuple[int, bool]:
    """One round from the betting to the checks; returns (house result, whether it was replayed)."""
    table.top_up()
    number = dealer.next_round()
    rnd = table.place_bets(number)
    balances = {p: table.wallet[p] for p in sorted({b.player for b in rnd.bets})}
    if dealer.start_round() != number:
        raise SimulationError(f"the shoe started round {dealer.where()}, the bets were for round {number}")
    engine = new_round(game, rnd.bets, rules=rules, round_in_shoe=number, balances=balances)
    table.play(engine, dealer, rnd)
    if type(engine.expected) is not Settle:
        raise SimulationError(f"the round stopped before it was complete: {engine.expected}")
    settlement = engine.settle()
    dealer.end_round()
    house = _check_money(game, rules, engine, rnd, balances, settlement)
    if isinstance(table, _BlackjackTable):
        table.check_hands(settlement)
        for player, start in balances.items():
            now = cast(BlackjackRound, engine).balance_of(player)
            table.wallet[player] = now if now is not None else start
    for res, bet in zip(settlement.bets, rnd.bets, strict=True):
        table.wallet[bet.player] += res.paid
    if any(v < 0 for v in table.wallet.values()):
        raise SimulationError("a wallet went below zero")
    if replay:
        transcript = Transcript.of(engine, rules=overrides, balances=balances)
        again = replay_settlement(transcript)
        if again != settlement:
            raise SimulationError(f"the transcript does not replay to the same settlement: "
                                  f"{transcript.model_dump_json(exclude_none=True)}")
    log = [e if isinstance(e, str) else (e.seat, e.action, e.player, e.hand) for e in engine.log]
    results = [(r.id, r.outcome, r.net, r.staked, r.paid, str(r.exact_net)) for r in settlement.bets]
    digest.update(repr((log, results)).encode())
    for name, (bets, staked, returned, paid) in table.rows(rnd, settlement).items():
        row = rows.get(name)
        if row is None:
            row = rows[name] = _Row()
        row.add(bets, staked, returned, paid)
    return house, replay


replay_settlement = replay
"""The replay the simulator checks against (a name of its own so that tests can break it)."""


# --- the command -----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """``croupier simulate``: ``args.game``, ``.rounds``, ``.seed``, ``.rules`` (JSON text or None),
    ``.json``; optional ``.exact`` and ``.replay_every`` (see :func:`build_parser`)."""
    from .rtp.cli import parse_overrides

    if args.game not in GAMES:
        raise SimulationError(f"unknown game {args.game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    if args.rounds <= 0:
        raise SimulationError(f"--rounds must be a positive number of rounds, not {args.rounds}",
                              reason="bad-argument")
    every = getattr(args, "replay_every", 1)
    if every is None or every <= 0:
        raise SimulationError(f"--replay-every must be a positive number, not {every}", reason="bad-argument")
    report = simulate(args.game, args.rounds, args.seed, parse_overrides(args.rules),
                      exact=bool(getattr(args, "exact", False)), replay_every=every)
    if args.json:
        json.dump(report.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(report.text())
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``croupier simulate``."""
    parser.add_argument("game", help="deluxe-blackjack, blackjack, baccarat or pok-deng")
    parser.add_argument("--rounds", type=int, required=True, help="how many rounds to play")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffles and the random bets")
    parser.add_argument("--rules", default=None, help="JSON object of rule overrides")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--exact", action="store_true",
                        help="blackjack: compute the seat bet's exact RTP too (about 25 s)")
    parser.add_argument("--replay-every", type=int, default=1, metavar="N",
                        help="replay one round's transcript in N (default 1: every round)")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m croupier.simulate``: the same command, with ``--exact`` and ``--replay-every``."""
    parser = argparse.ArgumentParser(prog="python -m croupier.simulate",
                                     description="play shuffled shoes through the engines and compare with the "
                                     "exact RTP")
    add_arguments(parser)
    args = parser.parse_args(argv)
    args.command = "simulate"
    try:
        return run(args)
    except CroupierError as exc:
        print(f"croupier simulate: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
