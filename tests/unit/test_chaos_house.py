"""Simulated tables on house rules (``croupier.sim.house``): each table of a world plays rule
overrides of its own, drawn from the seed, through the whole application; every round is checked
to play its table's rules; and bugs planted where a table's rules are read are reported."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from croupier.app import bets, engine, help, live, lobby, store, tables  # noqa: F401
from croupier.app.records import BetRecord, BetStatus, RoundRecord
from croupier.app.rounds import table_rules
from croupier.rules import default_rules, load_rules
from croupier.sim.chaos import Job, Outcome, play, report, run_chaos
from croupier.sim.house import OWN_COMBINATIONS, house_apart, house_rules
from croupier.sim.world import DEFAULT_RATES, Plan, World
from tests.support.patching import in_this_thread
from tests.support.worlds import stored

GAMES = ("baccarat", "blackjack", "deluxe-blackjack", "pok-deng")
"""(The application's modules that import ``rounds.table_rules`` or ``engine.rules_of`` by name are
imported above, before any test patches one: a module first imported while it is patched would keep
the patch for the rest of the process, and the worlds played after it would not be the same.)"""


def house_world(seed: str, game: str, *, house: bool = True, rounds: int = 16) -> World:
    played = World(seed, Plan(dict(DEFAULT_RATES)), rounds=rounds, tables=3, players=4, game=game, house_rules=house)
    played.run()
    return played


_PLAYED: dict[str, World] = {}


def house_world_of(game: str) -> World:
    """The world of ``game`` on house rules this module's tests look at (played once; the seeds'
    ``/6`` since betting closed half a second before the countdown's end, 2026-12-07: no Baccarat
    table of the worlds before refused a bet for its Banker and Player totals)."""
    if game not in _PLAYED:
        _PLAYED[game] = house_world(f"house-{game}/6", game)
    return _PLAYED[game]


def rules_given(played: World) -> dict[str, list[Any]]:
    """Each table's rules as the operator gave them, in order (as created, then each change asked)."""
    return {table_id: [load_rules(played.game, asked) for asked in table.asked]
            for table_id, table in played.tables.items()}


def rules_played(played: World) -> list[tuple[str, Any]]:
    """Each round's table and the rules it played, as the application stored them."""
    with played.running():
        return [(str(rnd["table_id"]), engine.rules_of(RoundRecord.from_item(rnd))) for rnd in stored(played, "round")]


@pytest.mark.parametrize("game", GAMES)
def test_every_house_rule_drawn_is_a_valid_table_and_every_choice_comes_up(game: str) -> None:
    # GIVEN a generator; WHEN 200 tables' house rules are drawn from it
    rng = random.Random(f"house/{game}")
    drawn = [house_rules(game, rng) for _ in range(200)]
    # THEN each is rules a table may be created with, and each choice of each rule comes up
    rules = [load_rules(game, overrides) for overrides in drawn]
    narrowed = [overrides["limits"] for overrides in drawn if "limits" in overrides]
    assert 0 < len(narrowed) < len(drawn) and {len(limits) for limits in narrowed} == {1, 2}
    if game in ("blackjack", "deluxe-blackjack"):
        assert {r.dealer_hits_soft_17 for r in rules} == {r.surrender for r in rules} == {True, False}
        assert {r.double_after_split for r in rules} == {True, False}
        assert {r.blackjack_pays for r in rules} == {Fraction(3, 2), Fraction(6, 5)}
        assert {r.pair_paytable.perfect for r in rules} == {None, Fraction(25)}
        assert {r.split_deal for r in rules} == {"each-in-turn", "both-first"}
        assert {r.dealer_bj_takes for r in rules} == ({"all", "original"} if game == "blackjack" else {"all"})
    elif game == "baccarat":
        assert {r.modes for r in rules} == {("commission",), ("no-commission",), ("commission", "no-commission")}
        assert {r.banker_limit is None for r in rules} == {r.player_limit is None for r in rules} == {True, False}
    else:
        assert {len(r.special_combinations) for r in rules} >= {0, 1, 2, 3, 4, 5}
        assert {(r.payouts.lose_special, r.reservation) for r in rules} == {(2, 2), (3, 3)}
    # and a generator of the same seed draws the same tables
    again = random.Random(f"house/{game}")
    assert drawn == [house_rules(game, again) for _ in range(200)]


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_drawn_apart_are_valid_tables_keep_the_house_rules_and_every_choice_comes_up(game: str) -> None:
    # GIVEN a generator; WHEN 200 tables' house rules and then the rules drawn apart are drawn
    rng, apart = random.Random(f"house/apart/{game}"), random.Random(f"house/apart/{game}/apart")
    rules = [house_rules(game, rng) for _ in range(200)]
    drawn = [house_apart(game, overrides, apart) for overrides in rules]
    tables = [load_rules(game, overrides) for overrides in drawn]
    # THEN each is a valid table that keeps the house rules drawn before
    for overrides, table in zip(rules, tables, strict=True):
        before = load_rules(game, overrides)
        kept = [name for name in overrides if name not in ("side_bets", "payouts", "special_combinations")]
        assert all(getattr(table, name) == getattr(before, name) for name in kept), overrides
    if game == "baccarat":
        # the Tie pays 8:1 or 9:1, each side bet offered is offered in every round of a shoe, up to its
        # default's last round, or only in its first 3 to 20; one taken away stays away
        assert {t.payouts.tie for t in tables} == {Fraction(8), Fraction(9)}  # type: ignore[union-attr]
        last = {side.max_round for t in tables for side in t.side_bets.values()}  # type: ignore[union-attr]
        assert {None, 60} < last and last - {None, 60} <= set(range(3, 21)) and len(last) > 10, last
        for overrides, table in zip(rules, tables, strict=True):
            taken_away = {name for name, side in overrides.get("side_bets", {}).items() if side is None}
            assert taken_away.isdisjoint(table.side_bets)  # type: ignore[union-attr]
    elif game == "pok-deng":
        # a special pattern's win pays 2:1 or 3:1, the Pair 11:1 or 10:1; the combinations drawn before
        # are all there, now and then in another order, now and then with one of the operator's own
        assert {t.payouts.win_special for t in tables} == {Fraction(2), Fraction(3)}  # type: ignore[union-attr]
        assert {t.payouts.pair for t in tables} == {Fraction(11), Fraction(10)}  # type: ignore[union-attr]
        own = {combo["name"] for combo in OWN_COMBINATIONS}
        orders: Counter[str] = Counter()
        for overrides, table in zip(rules, tables, strict=True):
            names = [c.name for c in table.special_combinations]  # type: ignore[union-attr]
            assert len([n for n in names if n in own]) <= 1
            theirs = [n for n in names if n not in own]
            assert sorted(theirs) == sorted(overrides["special_combinations"])
            assert table.payouts.lose_special == overrides["payouts"]["lose_special"]  # type: ignore[union-attr]
            orders["own"] += len(names) > len(theirs)
            orders["reordered"] += theirs != overrides["special_combinations"]
        assert 20 < orders["own"] < 80 and 10 < orders["reordered"] < 80, orders
    else:  # the rounds an idle seat is kept: 0 to 3
        assert {t.idle_seat_rounds for t in tables} == {0, 1, 2, 3}  # type: ignore[union-attr]
    # and a generator of the same seed draws the same
    again = random.Random(f"house/apart/{game}/apart")
    assert drawn == [house_apart(game, overrides, again) for overrides in rules]


@pytest.mark.parametrize("game", GAMES)
def test_a_world_on_house_rules_plays_its_tables_rules_and_keeps_every_invariant(game: str) -> None:
    # GIVEN three tables on house rules, with the default fault mix
    # WHEN they play 16 rounds
    played = house_world_of(game)
    # THEN no invariant is broken, and every finished round was checked to play its table's rules
    assert played.violations == []
    assert sum(played.rounds_finished.values()) >= 16
    assert played.invariants.checked["rules"] == sum(played.rounds_finished.values())
    # the tables' rules are their own, not all the game's defaults; the operator gave some new ones
    # between rounds; each round played rules its table was given
    given = rules_given(played)
    assert any(rules != default_rules(game).model_copy(update={"timers": rules.timers})
               for rules_given_to_one in given.values() for rules in rules_given_to_one)
    assert sum(played.reconfigured.values()) >= 1
    assert all(rules in given[table_id] for table_id, rules in rules_played(played))
    if game == "baccarat":  # Banker bets in each mode the tables offer were settled
        bets = [BetRecord.from_item(item) for item in stored(played, "bet")]
        modes = Counter(b.bet.mode for b in bets if b.bet.type == "banker" and b.status == BetStatus.SETTLED)
        offered = {mode for table in played.tables.values() for mode in table.modes}
        assert set(modes) == offered == {"commission", "no-commission"}, (modes, offered)


def test_narrowed_stakes_refuse_the_bets_outside_them() -> None:
    # GIVEN the four games' worlds on house rules, some of their tables with narrower stakes
    played = [house_world_of(game) for game in GAMES]
    # THEN bets outside a table's limits were refused, a stake's and Baccarat's Banker and Player totals'
    refused = sum((world.bets_refused for world in played), Counter[str]())
    assert refused["table-limit"] >= 1 and refused["banker-limit"] + refused["player-limit"] >= 1, refused


def test_a_side_bet_is_refused_after_its_last_round_in_the_shoe_and_taken_before() -> None:
    # GIVEN Baccarat tables on house rules, some side bets offered only in a shoe's first rounds
    # WHEN they play 24 rounds
    played = house_world("max-round-5", "baccarat", rounds=24)
    # THEN bets on a side bet after its last round were refused, nothing taken
    assert played.bets_refused["max-round"] >= 1, played.bets_refused
    # and every side bet settled was placed in a round of its shoe the round's rules offered it in,
    # some of them in a shoe's first rounds at a table that offers it only there
    rounds = {str(rnd["round_id"]): rnd for rnd in stored(played, "round")}
    with played.running():
        rules = {round_id: engine.rules_of(RoundRecord.from_item(rnd)) for round_id, rnd in rounds.items()}
    early = 0
    for bet in stored(played, "bet"):
        side = rules[str(bet["round_id"])].side_bets.get(bet["type"])  # type: ignore[union-attr]
        if side is None or bet["status"] != BetStatus.SETTLED:
            continue
        assert side.max_round is None or int(rounds[str(bet["round_id"])]["round_in_shoe"]) <= side.max_round
        early += side.max_round is not None and side.max_round <= 20
    assert early >= 1
    assert played.violations == []


def test_new_rules_given_between_rounds_are_played_from_the_next_round_and_refused_while_one_is_in_play() -> None:
    # GIVEN classic Blackjack tables on house rules, their operator giving them new rules as rounds end
    # WHEN they play 24 rounds
    played = house_world("house-blackjack/4", "blackjack", rounds=24)
    # THEN changes were taken between rounds and refused once the next round was open
    assert played.violations == []
    assert played.reconfigured["taken"] >= 1 and played.reconfigured["refused"] >= 1
    # and a table whose rules changed played both its old rules and its new ones (each round the rules
    # its table held when it opened it: the invariant `rules`, checked for every round above)
    distinct = {(table_id, rules.model_dump_json()) for table_id, rules in rules_played(played)}
    assert max(Counter(table_id for table_id, _ in distinct).values()) >= 2


def short_doubles(played: World) -> list[str]:
    """The doubles and splits the rounds recorded that the player's balance, as the round took it at
    its close, did not cover (what the table's ``short_balance`` makes a hit, a stand or a refusal)."""
    short = []
    for rnd in stored(played, "round"):
        stakes = {int(bet["seat"]): (bet["player"], int(bet["amount"])) for bet in rnd.get("engine_bets", [])
                  if bet["type"] == "seat"}
        balances = rnd.get("balances") or {}
        for event in rnd.get("events", []):
            action = event.get("action") or {}
            if action.get("action") in ("double", "split") and int(action["seat"]) in stakes:
                player, stake = stakes[int(action["seat"])]
                if player in balances and int(balances[player]) < stake:
                    short.append(f"{rnd['round_id']} seat {action['seat']} {action['action']}")
    return short


def test_a_double_the_balance_does_not_cover_is_followed_by_the_dealer_as_the_round_plays_it() -> None:
    # GIVEN classic Blackjack tables on house rules, a player in four short of funds (20 to 200 units)
    # WHEN they play 16 rounds
    # ("short-funded-3" until betting closed half a second before the countdown's end, 2026-12-07;
    # "short-funded-58" until the tables drew how long an idle seat is kept)
    played = house_world("short-funded-66", "blackjack", rounds=16)
    # THEN a player asked for a double or a split the balance did not cover, and nothing is wrong:
    # the dealer dealt what the round made of it (a hit, a stand) as the console showed, every card
    # in the hand it was dealt to (the simulated dealer once followed such a double as a double: its
    # own engine knew no balances; this world then reported the round's settlement wrong)
    assert short_doubles(played), "no double or split short of the balance: the test sees nothing"
    assert played.violations == []


def test_a_player_at_two_tables_plays_both_tables_rounds_at_once_on_one_wallet() -> None:
    # GIVEN classic Blackjack tables on house rules, one player seated at two of them
    played = house_world("two-tables-2", "blackjack", rounds=16)
    assert played.players_drawn["seats of a player of the table before"] == 1
    ((player, (first, second)),) = [(p, ids) for p in {p for t in played.tables.values() for p in t.players}
                                    if len(ids := [t.table_id for t in played.tables.values() if p in t.players]) == 2]
    # WHEN they play 16 rounds
    # THEN that player's bets are in rounds of both tables, two of them in play at the same time
    # (each debiting the one wallet), and nothing is wrong
    rounds = {str(r["round_id"]): r for r in stored(played, "round")}
    theirs = {str(b["round_id"]) for b in stored(played, "bet") if b["player"] == player}
    spans = {table_id: [(int(rounds[r]["created_at"]), int(rounds[r].get("finished_at") or 0))
                        for r in theirs if rounds[r]["table_id"] == table_id] for table_id in (first, second)}
    assert all(spans.values()), spans
    assert any(a0 < b1 and b0 < a1 for a0, a1 in spans[first] for b0, b1 in spans[second])
    assert played.violations == []


def test_a_deluxe_player_on_two_seats_has_their_seat_bets_mirrored_and_plays_both_hands() -> None:
    # GIVEN Deluxe Blackjack tables on house rules, one of them seating a player on its last two seats
    played = house_world("second-seat-3", "deluxe-blackjack", rounds=12)
    twice = [(table, player) for table in played.tables.values() for player in set(table.players)
             if table.players.count(player) == 2]
    assert len(twice) == 1 and played.players_drawn["second seats"] == 1
    table, player = twice[0]
    assert load_rules("deluxe-blackjack", table.rules).mirror_seat_bets  # type: ignore[union-attr]
    # WHEN they play 12 rounds
    # THEN a round dealt both of that player's seats, each with the same seat bet (one request for one
    # seat stakes the other too), and nothing is wrong
    dealt = [{int(bet["seat"]): int(bet["amount"]) for bet in rnd.get("engine_bets", [])
              if bet["player"] == player and bet["type"] == "seat"} for rnd in stored(played, "round")
             if rnd["table_id"] == table.table_id]
    both = [seats for seats in dealt if len(seats) == 2]
    assert both and all(len(set(seats.values())) == 1 for seats in both), dealt
    assert played.violations == []


def test_players_seated_nowhere_bet_behind_at_the_classic_table_and_answer_their_windows() -> None:
    # GIVEN classic Blackjack tables on house rules, some with a player seated at no seat (at the
    # classic table, the only bets behind: its seated players may not bet behind anyone)
    played = house_world("railbird-21", "blackjack", rounds=16)
    seated_nowhere = {table.railbird for table in played.tables.values() if table.railbird}
    assert seated_nowhere and played.players_drawn["players betting behind, seated nowhere"] == len(seated_nowhere)
    # WHEN they play 16 rounds
    # THEN their bets behind and their pair bets on the seats they bet behind were settled where the
    # seat was dealt and refunded where it was not, they bought insurance and followed a double or a
    # split through the round's windows, and nothing is wrong
    closed = {(bet["type"], bet["status"]) for bet in stored(played, "bet") if bet["player"] in seated_nowhere}
    assert closed >= {("behind", BetStatus.SETTLED), ("behind", BetStatus.REFUNDED), ("pair", BetStatus.SETTLED)}
    answers = {event["action"]["action"] for rnd in stored(played, "round") for event in rnd.get("events", [])
               if (event.get("action") or {}).get("player") in seated_nowhere}
    assert "insurance" in answers and answers & {"follow-double", "follow-split"}, answers
    assert played.violations == []


def pok_deng_player_wins(played: World) -> list[tuple[str, dict[str, Any], Any, Fraction]]:
    """Each settled Player N bet that won: its hand, the rules its round played, and what it won per
    unit of its stake."""
    wins = []
    with played.running():
        for rnd in stored(played, "round"):
            if rnd["status"] != "settled":
                continue
            rules = engine.rules_of(RoundRecord.from_item(rnd))
            hands = rnd["settlement"]["hands"]
            for bet in stored(played, "bet"):
                result = bet.get("result") or {}
                if bet["round_id"] == rnd["round_id"] and not bet["type"].endswith("-pair") and result.get(
                        "outcome") == "win":
                    hand = hands[bet["type"].replace("player", "hand")]
                    wins.append((str(bet["bet_id"]), {**hand, "banker": hands["banker"]}, rules,
                                 Fraction(int(result["net"]), int(bet["amount"]))))
    return wins


def spec_rate(hand: dict[str, Any], rules: Any) -> Fraction:
    """What a Player N win pays, by ``pok-deng.md``'s payout table and its exceptions, in order: 8 or 9
    points with a pattern pays the special rate always; else a Banker of 0 or 6 points (not a special
    combination) makes any win 1:1; else a pattern pays the special rate."""
    banker = hand["banker"]
    if hand["points"] >= 8 and hand["pattern"]:
        return Fraction(rules.payouts.win_special)
    if banker["combination"] is None and banker["points"] in (0, 6):
        return Fraction(rules.payouts.win)
    return Fraction(rules.payouts.win_special if hand["pattern"] else rules.payouts.win)


def test_pok_deng_tables_pay_their_own_special_rate_and_rank_their_own_combinations() -> None:
    # GIVEN Pok Deng tables on house rules: a special pattern's win paying 2:1 or 3:1, the special
    # combinations in an order of their own, one of the operator's own among them at some table
    # WHEN they play 24 rounds
    played = house_world("own-combination-4", "pok-deng", rounds=24)
    assert played.violations == []
    wins = pok_deng_player_wins(played)
    # THEN every Player N win was paid what the spec's payout table says at its table's rates
    wrong = [(bet_id, hand, rate, spec_rate(hand, rules)) for bet_id, hand, rules, rate in wins
             if rate != spec_rate(hand, rules)]
    assert wins and wrong == []
    # among them wins at 3:1 and at 2:1, and a hand of one of the operator's own combinations won as
    # such (its combination named in the settlement), ranking above the Banker's 7 points or fewer
    assert {rate for *_, rate in wins} >= {Fraction(1), Fraction(2), Fraction(3)}
    own = {combo["name"] for combo in OWN_COMBINATIONS}
    assert [bet_id for bet_id, hand, _, _ in wins if hand["combination"] in own], "no own combination won"


def rounded_down(played: World) -> list[tuple[int, int, Fraction]]:
    """Each settled bet whose exact payout fell between minor units: its stake, what it paid, and
    what it won exactly (stake and net, as the round recorded them)."""
    out = []
    for bet in stored(played, "bet"):
        result = bet.get("result") or {}
        exact = int(result.get("staked", 0)) + Fraction(str(result.get("exact_net", 0)))
        if bet["status"] == BetStatus.SETTLED and exact.denominator > 1:
            out.append((int(bet["amount"]), int(result["paid"]), exact))
    return out


def test_a_payout_between_minor_units_is_paid_rounded_down() -> None:
    # GIVEN Baccarat tables on house rules, some of their players staking whole units and some cents
    # WHEN they play 16 rounds
    played = house_world("cents-2", "baccarat")
    assert played.players_drawn["staking cents"] >= 1
    # THEN bets whose exact payout fell between minor units (a Banker win at 19:20, a no-commission
    # Banker's win on six at 1:2) were paid it rounded down, as common.md says, and nothing is wrong
    fractional = rounded_down(played)
    assert fractional and len(fractional) == played.invariants.rounded_down
    assert all(paid == int(exact) < exact for _, paid, exact in fractional), fractional
    assert all(amount % 100 for amount, _, _ in fractional)  # stakes with cents: whole units divide evenly
    assert played.violations == []


def test_a_payout_rounded_to_the_nearest_minor_unit_is_reported_where_players_stake_cents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from croupier.app import settlement

    finish = settlement._finish_bets

    def nearest(work: Any) -> int:  # a settlement that credits a payout rounded half up, not down
        return finish([(bet, kind, int(int(result["staked"]) + Fraction(str(result["exact_net"])) + Fraction(1, 2))
                        if kind == "settle" else credit, result) for bet, kind, credit, result in work])

    in_this_thread(monkeypatch).setattr(settlement, "_finish_bets", nearest)
    # GIVEN that planted bug: WHEN Baccarat tables on their game's defaults play, every stake whole
    # units, no payout falls between minor units and nothing is reported
    calm = house_world("cents-2", "baccarat", house=False)
    assert calm.invariants.rounded_down == 0 and calm.violations == []
    # WHEN they play on house rules, some players staking cents, a wallet is credited more than its bet paid
    played = house_world("cents-2", "baccarat")
    wrong = [v.detail for v in played.violations if v.invariant == "money"]
    assert wrong and "its wallet was credited" in wrong[0], played.violations


def test_a_round_opened_on_the_games_defaults_not_its_tables_rules_is_reported(monkeypatch: pytest.MonkeyPatch,
                                                                               ) -> None:
    from croupier.app import rounds

    def defaults(item: Any) -> Any:  # a table's rules read as its game's defaults (its timers kept)
        if isinstance(item, RoundRecord):
            return table_rules(item)
        return default_rules(item.game).model_copy(update={"timers": table_rules(item).timers})

    # GIVEN an application that opens each round on its game's default rules
    in_this_thread(monkeypatch).setattr(rounds, "table_rules", defaults)
    # WHEN classic Blackjack tables on house rules play
    played = house_world("planted-house-1", "blackjack", rounds=6)
    # THEN the rounds are reported as playing rules other than their tables'
    wrong = [v.detail for v in played.violations if v.invariant == "rules"]
    assert wrong and "played rules other than its table held when it opened it" in wrong[0], played.violations


def test_new_rules_merged_into_the_tables_old_ones_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    configure = tables.configure_table

    def merging(table_id: str, rules: dict[str, Any] | None, *args: Any, **kwargs: Any) -> Any:
        # the table's new overrides laid over its old ones: a rule the operator left out stays as it was
        return configure(table_id, {**store.load_table(table_id).rules, **(rules or {})}, *args, **kwargs)

    # GIVEN an application that merges a table's new rules into its old ones
    in_this_thread(monkeypatch).setattr(tables, "configure_table", merging)
    # WHEN Deluxe tables on house rules play, the operator changing them between rounds
    played = house_world("planted-house-4", "deluxe-blackjack", rounds=16)
    # THEN a table is reported holding rules no operator gave it (a Perfect Pairs paytable or narrower
    # stakes kept, which the new rules left out)
    assert played.reconfigured["taken"] >= 1
    wrong = [v.detail for v in played.violations if v.invariant == "rules"]
    assert wrong and "held rules no operator gave it" in wrong[0], played.violations
    assert "pair_paytable" in wrong[0] or "limits" in wrong[0], wrong[0]


def test_a_blackjack_paid_3_to_2_at_a_table_that_pays_6_to_5_is_reported_on_house_rules_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules_of = engine.rules_of

    def three_to_two(item: Any) -> Any:  # the application's engine pays a blackjack 3:2 whatever the table says
        return rules_of(item).model_copy(update={"blackjack_pays": Fraction(3, 2)})

    in_this_thread(monkeypatch).setattr(engine, "rules_of", three_to_two)
    # GIVEN that planted bug: WHEN Deluxe tables on their game's defaults play, nothing is wrong
    calm = house_world("planted-house-7", "deluxe-blackjack", house=False, rounds=12)
    assert calm.violations == []
    # WHEN the same tables play on house rules, a blackjack is paid more than its table pays
    played = house_world("planted-house-7", "deluxe-blackjack", rounds=12)
    assert any(load_rules("deluxe-blackjack", rules).blackjack_pays == Fraction(6, 5)
               for table in played.tables.values() for rules in table.asked)
    wrong = [v.detail for v in played.violations if v.invariant == "settlement"]
    assert wrong and "the cards dealt pay" in wrong[0], played.violations


def test_the_report_says_the_tables_play_house_rules_and_its_replay_plays_the_same_world() -> None:
    # GIVEN a run on house rules of one world, WHEN it is reported
    rates = dict(DEFAULT_RATES)
    outcomes, _ = run_chaos(4, 3, rates, per_world=4, tables=1, players=2, house_rules=True, games=("pok-deng",),
                            shrinking=False)
    text = report(4, 3, rates, outcomes, [], 4, 1, 1, house_rules=True)
    # THEN its first line says so, and the world replayed by its seed (as --world replays it) is the same
    assert "each table on house rules" in text.splitlines()[0]
    assert outcomes[0].checked["rules"] == 4
    job = Job("3/0", 4, 1, 2, tuple(sorted(rates.items())), game="pok-deng", seamless=1, house_rules=True)
    assert play(job) == outcomes[0]
    # and a violation's reproduction names what the world was played with: its players, its house rules
    broken = Outcome("3/0", "pok-deng", violations=["step 1 at 0.00 s: rules: planted"],
                     reconfigured=Counter(taken=2, refused=1), bets_refused=Counter({"table-limit": 3}))
    printed = report(4, 3, rates, [broken], [(job, broken)], 4, 1, 1, house_rules=True).splitlines()
    line = next(line for line in printed if "shortest reproduction" in line)
    assert "tables' rules changed by the operator between rounds: 2 taken, 1 refused (a round in play), " \
           "0 failed" in printed
    assert "bet requests refused (nothing taken): table-limit 3" in printed
    assert "croupier chaos --world 3/0 --game pok-deng --rounds 4 --tables 1 --players 2 --seamless 1 " \
           "--house-rules" in line
