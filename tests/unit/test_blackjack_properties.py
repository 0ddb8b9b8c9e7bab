"""Property tests of the blackjack engine over random complete rounds: random shoe order, random
bets and balances, random legal actions taken from ``expected``."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from croupier.cards import ALL_CARDS, RANKS
from croupier.errors import IllegalAction
from croupier.games.base import Action, Bet, CardFor, DecisionFor, FollowWindow, InsuranceWindow, Settle
from croupier.games.blackjack import SEATED_ACTIONS, BlackjackRound
from croupier.money import floor_amount
from croupier.rules import PERFECT_PAIRS, BlackjackRules, load_rules
from croupier.transcript import Transcript, replay

EVERY_ACTION = (*SEATED_ACTIONS, "follow-double", "follow-split", "fold")


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    game = draw(st.sampled_from(["deluxe-blackjack", "blackjack"]))
    overrides = draw(st.fixed_dictionaries({}, optional={
        "dealer_bj_takes": st.sampled_from(["all", "original"]),
        "dealer_hits_soft_17": st.booleans(),
        "double_after_split": st.booleans(),
        "split_deal": st.sampled_from(["each-in-turn", "both-first"]),
        "surrender": st.booleans(),
        "pair_paytable": st.just(PERFECT_PAIRS["pair_paytable"]),
        "blackjack_pays": st.sampled_from(["3:2", "6:5"]),
    }))
    return game, overrides


@st.composite
def round_setups(draw: st.DrawFn) -> dict[str, Any]:
    game, overrides = draw(tables())
    seats = sorted(draw(st.sets(st.integers(1, 7), min_size=1, max_size=7)))
    amount = st.integers(100, 3001)
    bets: list[Bet] = []
    owner: dict[int, str] = {}
    for n in seats:
        # Deluxe: a player may hold two seats with the same amount
        if game == "deluxe-blackjack" and n - 1 in owner and owner[n - 1] == f"p{n - 1}" and draw(st.booleans()):
            player = owner[n - 1]
            stake = next(b.amount for b in bets if b.player == player)
        else:
            player, stake = f"p{n}", draw(amount)
        owner[n] = player
        bets.append(Bet(f"s{n}", player, "seat", stake, n))
    for n in draw(st.sets(st.integers(1, 7), max_size=7)):  # an empty seat's bets are refunded
        bets.append(Bet(f"b{n}", "q", "behind", draw(amount), n))
    for n in draw(st.sets(st.integers(1, 7), max_size=3)):
        bets.append(Bet(f"r{n}", "r", "behind", draw(amount), n))
    for n in draw(st.sets(st.integers(1, 7), max_size=3)):
        player = "q" if any(b.id == f"b{n}" for b in bets) else owner.get(n, "q")
        bets.append(Bet(f"x{n}", player, "pair", draw(st.integers(100, 500)), n))
    if game == "blackjack":  # classic: a pair bet only by the seated player or a player betting behind
        bets = [b for b in bets if b.type != "pair" or b.seat not in owner or b.player == owner[b.seat]
                or any(o.type == "behind" and o.player == b.player and o.seat == b.seat for o in bets)]
    players = sorted({b.player for b in bets})
    balances = draw(st.one_of(st.none(), st.fixed_dictionaries(
        {}, optional={p: st.integers(0, 4000) for p in players})))
    ranks = draw(st.one_of(st.just(RANKS), st.sampled_from(["AT", "A8K", "A5TQ"]),
                           st.sets(st.sampled_from(RANKS), min_size=2, max_size=4)))
    return {"game": game, "overrides": overrides, "bets": bets, "balances": balances, "ranks": ranks,
            "seed": draw(st.integers(0, 2**32))}  # shoe order and choices (much cheaper than st.randoms)


def make_shoe(ranks: Any, rng: random.Random) -> list[str]:
    """An 8-deck shoe whose front holds only the chosen ranks (more splits, aces and BJs)."""
    front = [c for c in ALL_CARDS if c[0] in ranks] * 8
    back = [c for c in ALL_CARDS if c[0] not in ranks] * 8
    rng.shuffle(front)
    rng.shuffle(back)
    return front + back


def refused(eng: BlackjackRound, action: Action) -> bool:
    before = (eng.expected, len(eng.log))
    try:
        eng.act(action)
    except IllegalAction:
        assert (eng.expected, len(eng.log)) == before
        return True
    return False


def play(setup: dict[str, Any]) -> tuple[BlackjackRound, BlackjackRules]:
    rules = load_rules(setup["game"], setup["overrides"])
    assert isinstance(rules, BlackjackRules)
    rng = random.Random(setup["seed"])
    bets: list[Bet] = setup["bets"]
    eng = BlackjackRound(rules, bets, balances=setup["balances"])
    for n in {b.seat for b in bets if b.type == "seat"}:
        if rng.random() < 0.2:
            eng.preselect(n, rng.choice(["hit", "stand", "double", "split", "surrender"]))
    shoe = make_shoe(setup["ranks"], rng)
    dealt_seats = {b.seat for b in bets if b.type == "seat"}
    for _ in range(1000):
        expected = eng.expected
        if isinstance(expected, Settle):
            return eng, rules
        if isinstance(expected, CardFor):
            view = eng.view()
            if rules.hole_card and len(view["dealer"]["cards"]) == 2 and view["phase"] in ("insurance", "decisions"):
                assert view["dealer"]["cards"][1] == "??"
            eng.deal(shoe.pop(0))
        elif isinstance(expected, DecisionFor):
            for name in EVERY_ACTION:
                if name not in expected.legal:
                    assert refused(eng, Action(expected.seat, name)), name
            for other in dealt_seats - {expected.seat}:
                assert refused(eng, Action(other, rng.choice(sorted(expected.legal))))
            eng.act(Action(expected.seat, rng.choice(sorted(expected.legal))))
        elif isinstance(expected, InsuranceWindow):
            for bet in bets:
                if bet.type in ("seat", "behind") and bet.seat in dealt_seats and bet.id not in expected.bets:
                    who = None if bet.type == "seat" else bet.player
                    assert refused(eng, Action(bet.seat, "insurance", who))
            for bet_id in expected.bets:
                bet = next(b for b in bets if b.id == bet_id)
                still = eng.expected  # an earlier purchase may have used up the balance
                if isinstance(still, InsuranceWindow) and bet_id in still.bets and rng.random() < 0.5:
                    eng.act(Action(bet.seat, "insurance", None if bet.type == "seat" else bet.player))
            assert refused(eng, Action(min(dealt_seats), "hit"))
            eng.close_window()
        elif isinstance(expected, FollowWindow):
            assert refused(eng, Action(expected.seat, "hit"))
            answer = f"follow-{expected.what}"
            for bet in bets:
                if bet.type == "behind" and bet.seat == expected.seat and rng.random() < 0.6:
                    try:
                        eng.act(Action(expected.seat, answer, bet.player))
                    except IllegalAction:
                        assert bet.id not in expected.bets  # only bets not following this hand are refused
            eng.close_window()
    raise AssertionError("the round did not end")


def max_gain(rules: BlackjackRules, bet: Bet) -> int:
    amount = bet.amount
    if bet.type == "pair":
        table = rules.pair_paytable
        ratio = max(r for r in (table.same_rank, table.mixed, table.coloured, table.perfect) if r is not None)
        return floor_amount(amount * ratio)
    hand_gain = max(amount * rules.blackjack_pays, 4 * amount * rules.win_pays)
    return floor_amount(hand_gain + (amount // 2) * rules.insurance_pays)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(round_setups())
def test_random_rounds_settle_every_bet_once_within_the_paytable_and_replay_identically(setup: dict[str, Any]) -> None:
    eng, rules = play(setup)
    settlement = eng.settle()
    bets: list[Bet] = setup["bets"]
    assert [r.id for r in settlement.bets] == [b.id for b in bets]
    dealt = {b.seat for b in bets if b.type == "seat"}
    spent: dict[str, int] = {}
    for bet, res in zip(bets, settlement.bets, strict=True):
        assert res.net == res.paid - res.staked
        assert res.paid >= 0
        assert res.exact_net - res.net >= 0 and res.exact_net - res.net < 1
        if bet.seat not in dealt:
            assert (res.outcome, res.net, res.staked) == ("refund", 0, bet.amount)
            continue
        assert bet.amount <= res.staked <= 4 * bet.amount + bet.amount // 2
        assert -res.staked <= res.net <= max_gain(rules, bet)
        assert res.outcome in (("win", "lose") if bet.type == "pair" else
                               ("win", "lose", "push", "blackjack", "surrender"))
        spent[bet.player] = spent.get(bet.player, 0) + res.staked - bet.amount
    for player, start in (setup["balances"] or {}).items():
        now = eng.balance_of(player)
        assert now is not None and now >= 0
        assert start - now == spent.get(player, 0)
    again = replay(Transcript.of(eng, rules=setup["overrides"], balances=setup["balances"]))
    assert again.to_dict(full=True) == settlement.to_dict(full=True)
