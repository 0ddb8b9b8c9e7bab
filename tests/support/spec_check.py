"""The spec's oracles applied to a simulated world once it has played: each settled round's
dealing, hands and bets held to ``baccarat.md``, ``blackjack.md`` and ``pok-deng.md`` through
``spec_baccarat``, ``spec_blackjack`` and ``spec_pok_deng``, and every bet taken to its table's
limits (:func:`accepted_by_the_rules`). Each check returns what is wrong (one
line per round or bet, empty when all is as the spec says) and what it checked, counted by kind
(rounds, bets, each bet type's outcomes and the rules met), for a test to ask that every way a bet
can be paid came up."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from croupier.app import engine
from croupier.app.records import BetStatus, RoundRecord
from croupier.sim.house import OWN_COMBINATIONS
from tests.support import spec_baccarat, spec_blackjack, spec_pok_deng
from tests.support.worlds import stored

OWN = {combo["name"] for combo in OWN_COMBINATIONS}
"""The names of the operators' own special combinations the simulator's Pok Deng tables play."""


def rules_played(rounds: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The rules each round played, by its id (in the world's ``running()``)."""
    return {round_id: engine.rules_of(RoundRecord.from_item(rnd)) for round_id, rnd in rounds.items()}


def settled(played: Any) -> tuple[dict[str, dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """A world's settled rounds by id, the rules each played, and its settled bets of them."""
    with played.running():
        rounds = {str(rnd["round_id"]): rnd for rnd in stored(played, "round") if rnd["status"] == "settled"}
        rules = rules_played(rounds)
        bets = [bet for bet in stored(played, "bet")
                if bet["status"] == BetStatus.SETTLED and str(bet["round_id"]) in rounds]
    return rounds, rules, bets


def scanned(rnd: dict[str, Any]) -> list[str]:
    """A round's cards in the order it took them from the table (its engine's log, which the
    simulator's invariants hold to the order the dealer dealt them)."""
    return [str(event["card"]) for event in rnd.get("events", []) if "card" in event]


def expected(stake: int, exact: Fraction) -> tuple[Fraction, int]:
    """A bet's exact net and what it pays back: its stake and winnings, rounded down once."""
    return exact, stake + exact.numerator // exact.denominator


def accepted_by_the_rules(played: Any) -> tuple[list[str], Counter[str]]:
    """Every bet a world's rounds took (settled or refunded), held to its round's rules: one bet per
    type and seat per player and round, its total within its table's limits for its type (decision
    0013, ``common.md``); Baccarat: a bet type and a Banker mode the table offers, a side bet only
    up to its last round of the shoe, each player's Player and Banker totals within the table's
    Player/Banker limits (``baccarat.md``). What is wrong, and what was checked."""
    wrong: list[str] = []
    checked: Counter[str] = Counter()
    with played.running():
        rounds = {str(rnd["round_id"]): rnd for rnd in stored(played, "round")}
        rules = rules_played(rounds)
        bets = [bet for bet in stored(played, "bet") if bet["status"] in (BetStatus.SETTLED, BetStatus.REFUNDED)]
    placed: Counter[tuple[str, str, str, Any]] = Counter()
    totals: dict[tuple[str, str], Counter[str]] = {}
    for bet in bets:
        round_id, kind, amount = str(bet["round_id"]), str(bet["type"]), int(bet["amount"])
        table, rnd = rules[round_id], rounds[round_id]
        placed[(round_id, str(bet["player"]), kind, bet.get("seat"))] += 1
        limit = table.limits.get(kind)
        why = None
        if limit is None:
            why = "a bet type without limits at its table"
        elif not limit.min <= amount <= limit.max:
            why = f"outside its table's limits {limit.min} to {limit.max}"
        elif rnd["game"] == "baccarat":
            why = _baccarat_offered(bet, table, int(rnd["round_in_shoe"]))
            if kind in ("player", "banker"):
                totals.setdefault((round_id, str(bet["player"])), Counter())[kind] += amount
        if why:
            wrong.append(f"{bet['bet_id']} ({kind} {bet.get('mode') or ''}, {amount}) in {round_id}: {why}")
        checked["bets taken"] += 1
    for key, count in placed.items():
        if count > 1:
            wrong.append(f"{key}: {count} bets of one type and seat in one round")
    for (round_id, player), total in totals.items():
        table = rules[round_id]
        if table.banker_limit is not None and total["banker"] > total["player"] + table.banker_limit:
            wrong.append(f"{player} in {round_id}: Banker {total['banker']} over Player {total['player']} "
                         f"by more than the table's {table.banker_limit}")
        if table.player_limit is not None and total["player"] > total["banker"] + table.player_limit:
            wrong.append(f"{player} in {round_id}: Player {total['player']} over Banker {total['banker']} "
                         f"by more than the table's {table.player_limit}")
        checked["players' Player and Banker totals"] += table.banker_limit is not None or table.player_limit is not None
    return wrong, checked


def _with_acceptance(played: Any, wrong: list[str], checked: Counter[str]) -> tuple[list[str], Counter[str]]:
    """A game's check, with :func:`accepted_by_the_rules` after it."""
    more, seen = accepted_by_the_rules(played)
    return wrong + more, checked + seen


def _baccarat_offered(bet: dict[str, Any], rules: Any, round_in_shoe: int) -> str | None:
    kind = bet["type"]
    if kind in ("lucky-6", "big", "small"):
        side = rules.side_bets.get(kind)
        if side is None:
            return "a side bet its table does not offer"
        if side.max_round is not None and round_in_shoe > side.max_round:
            return f"a side bet offered up to round {side.max_round} of a shoe, taken in round {round_in_shoe}"
    if kind == "banker" and (bet.get("mode") or "commission") not in rules.modes:
        return f"a Banker bet in a mode its table does not offer ({', '.join(rules.modes)})"
    return None


def baccarat_held_to_the_spec(played: Any) -> tuple[list[str], Counter[str]]:
    """Every settled round of a Baccarat world held to ``baccarat.md``: its hands' sizes to the
    tableau; each settled bet's outcome, exact win and payout to the spec's payout tables at its
    round's rules. What is wrong, and what was checked (rounds, bets, each bet's type and outcome, a
    Lucky 6 win by its Banker's cards, a no-commission Banker win on 6)."""
    wrong: list[str] = []
    checked: Counter[str] = Counter()
    rounds, rules, bets = settled(played)
    hands = {round_id: (list(rnd["settlement"]["hands"]["player"]["cards"]),
                        list(rnd["settlement"]["hands"]["banker"]["cards"])) for round_id, rnd in rounds.items()}
    for round_id, (player, banker) in hands.items():
        shoe = scanned(rounds[round_id])
        if spec_baccarat.deal(shoe) != (player, banker) or len(shoe) != len(player) + len(banker):
            wrong.append(f"{round_id}: cards {shoe} make Player {player} and Banker {banker}, the spec "
                         f"{spec_baccarat.deal(shoe)}")
        checked["rounds"] += 1
    for bet in bets:
        stake, result = int(bet["amount"]), bet["result"]
        player, banker = hands[str(bet["round_id"])]
        ratio = spec_baccarat.won(bet, player, banker, rules[str(bet["round_id"])])
        outcome = "lose" if ratio is None else "push" if ratio == 0 else "win"
        exact, paid = (Fraction(-stake), 0) if ratio is None else expected(stake, stake * ratio)
        got = (result["outcome"], Fraction(str(result["exact_net"])), int(result["paid"]))
        if got != (outcome, exact, paid):
            wrong.append(f"{bet['bet_id']} ({bet['type']} {bet.get('mode') or ''}, {stake}) on Player {player}, "
                         f"Banker {banker}: {got}, the spec {(outcome, exact, paid)}")
        checked["bets"] += 1
        checked[f"{bet['type']} {outcome}"] += 1
        if bet["type"] == "lucky-6" and outcome == "win":
            checked[f"lucky-6 won on {len(banker)} cards"] += 1
        if bet.get("mode") == "no-commission" and outcome == "win" and spec_baccarat.score(banker) == 6:
            checked["no-commission banker won on 6"] += 1
    return _with_acceptance(played, wrong, checked)


def blackjack_held_to_the_spec(played: Any) -> tuple[list[str], Counter[str]]:
    """Every settled round of a blackjack world (Deluxe or classic) held to ``blackjack.md``: what
    the dealer drew; each seat's hands, their actions' legality and their results; each settled
    bet's outcome, exact win and payout (seat bets, bets behind with the doubles and splits they
    followed, insurance, pair bets) at its round's rules. What is wrong, and what was checked."""
    wrong: list[str] = []
    checked: Counter[str] = Counter()
    rounds, rules, bets = settled(played)
    insured = {str(bet["round_id"]) for bet in bets if "insurance" in bet["result"]}
    seats: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for round_id, rnd in rounds.items():
        hands = dict(rnd["settlement"]["hands"])
        dealer = list(hands.pop("dealer")["cards"])
        by_seat: dict[int, list[dict[str, Any]]] = {}
        for name, hand in sorted(hands.items(), key=lambda kv: (int(kv[1]["seat"]), int(kv[1]["hand"]))):
            by_seat.setdefault(int(hand["seat"]), []).append({**hand, "name": name, "cards": list(hand["cards"])})
        for seat in by_seat.values():
            for hand in seat:
                hand["split"] = len(seat) > 1
                hand["spec"] = spec_blackjack.result(hand["cards"], hand["split"], hand["surrendered"], dealer)
                if hand["outcome"] != hand["spec"]:
                    wrong.append(f"{round_id} {hand['name']} {hand['cards']} against {dealer}: {hand['outcome']}, "
                                 f"the spec {hand['spec']}")
                checked[f"hand {hand['spec']}"] += 1
                checked["hand doubled"] += hand["doubled"]
            checked["seat split"] += len(seat) > 1
            played_wrong = spec_blackjack.seat_played_rightly(seat, dealer, rules[round_id])
            if played_wrong:
                wrong.append(f"{round_id} seat {seat[0]['seat']}: {played_wrong}")
        every = [hand for seat in by_seat.values() for hand in seat]
        order = spec_blackjack.dealing_order(by_seat, dealer, rules[round_id])
        if order != scanned(rnd):
            wrong.append(f"{round_id}: cards {scanned(rnd)} make {[h['cards'] for h in every]} and the dealer's "
                         f"{dealer}, which the spec deals in the order {order}")
        drew = spec_blackjack.dealer_drew_rightly(dealer, every, rules[round_id], round_id in insured)
        if drew:
            wrong.append(f"{round_id}: {drew}")
        asked = {(a.get("player"), int(a["seat"]), a["action"], a.get("hand")) for a in
                 (event.get("action") for event in rnd.get("events", [])) if a and a.get("seat") is not None}
        seats[round_id] = {**by_seat, 0: [{"cards": dealer, "asked": asked}]}  # seat 0: the dealer, what was asked
        checked["dealer blackjack"] += spec_blackjack.blackjack(dealer, False)
        checked["dealer hit soft 17"] += rules[round_id].dealer_hits_soft_17 and any(
            spec_blackjack.score(dealer[:n]) == (17, True) for n in range(2, len(dealer)))
        checked["rounds"] += 1
    for bet in bets:
        round_id = str(bet["round_id"])
        got, spec = _blackjack_bet(bet, seats[round_id], rules[round_id], checked)
        if got != spec:
            wrong.append(f"{bet['bet_id']} ({bet['type']} on seat {bet.get('seat')}, {bet['amount']}) in {round_id}: "
                         f"{got}, the spec {spec}")
        checked["bets"] += 1
    return _with_acceptance(played, wrong, checked)


def _blackjack_bet(bet: dict[str, Any], seats: dict[int, list[dict[str, Any]]], rules: Any,
                   checked: Counter[str]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A settled blackjack bet's (outcome, exact net, paid, hands' stakes) as settled, and as the spec
    says on its seat's final hands."""
    amount, result, dealer, asked = int(bet["amount"]), bet["result"], seats[0][0]["cards"], seats[0][0]["asked"]
    player = None if bet["type"] == "seat" else bet["player"]  # a seated player's actions name the seat alone
    got = (result["outcome"], Fraction(str(result["exact_net"])), int(result["paid"]),
           [(h["hand"], h["stake"]) for h in result.get("hands", [])])
    seat = seats.get(int(bet["seat"]))
    if seat is None:  # a seat the dealer did not deal: the bet is refunded, its round settled
        checked[f"{bet['type']} refunded"] += 1
        return got, ("refund", Fraction(0), amount, [])
    if bet["type"] == "pair":
        first_two = seat[0]["cards"][:2] if len(seat) == 1 else [seat[0]["cards"][0], seat[1]["cards"][0]]
        ratio = spec_blackjack.pair_pays(first_two, rules.pair_paytable)
        checked[f"pair {'lose' if ratio is None else f'win {ratio}'}"] += 1
        if ratio is None:
            return got, ("lose", Fraction(-amount), 0, [])
        return got, ("win", *expected(amount, amount * ratio), [])
    dealer_bj = spec_blackjack.blackjack(dealer, False)
    if bet["type"] == "seat":
        hands = [(hand, amount * 2 if hand["doubled"] else amount) for hand in seat]
    else:  # behind: the first hand, and the second if it followed the split; its stake doubled on a hand
        # whose double it followed (each only if asked: without the balance, a yes is a no)
        stakes = dict(got[3])
        follows_split = (len(seat) > 1 and seat[1]["name"] in stakes
                         and (player, bet["seat"], "follow-split", 0) in asked)
        hands = [(hand, 2 * amount if hand["doubled"] and stakes.get(hand["name"]) == 2 * amount
                  and (player, bet["seat"], "follow-double", i) in asked else amount)
                 for i, hand in enumerate(seat[:2 if follows_split else 1])]
        checked[f"behind on {len(hands)} hands"] += 1
    exact = sum((spec_blackjack.hand_net(hand["spec"], stake, amount, i == 0, dealer_bj, rules)
                 for i, (hand, stake) in enumerate(hands)), Fraction(0))
    staked = sum(stake for _, stake in hands)
    if "insurance" in result and (player, bet["seat"], "insurance", None) in asked and dealer[0][0] == "A":
        cost = amount // 2  # half the bet, rounded down (common.md): offered only against an ace
        exact += cost * Fraction(rules.insurance_pays) if dealer_bj else -cost
        staked += cost
        checked[f"insurance {'win' if dealer_bj else 'lose'}"] += 1
    checked[f"{bet['type']} {hands[0][0]['spec']}"] += 1
    checked["behind followed a double"] += bet["type"] == "behind" and any(stake == 2 * amount for _, stake in hands)
    checked["lost to a blackjack taking the original only"] += (dealer_bj and rules.dealer_bj_takes == "original"
                                                                and sum(stake for _, stake in hands) > amount)
    return got, (hands[0][0]["spec"], exact, staked + exact.numerator // exact.denominator,
                 [(hand["name"], stake) for hand, stake in hands])


def pok_deng_held_to_the_spec(played: Any) -> tuple[list[str], Counter[str]]:
    """Every settled Pok Deng round held to ``pok-deng.md``: each Player N and Pair bet's outcome,
    exact win and payout (its reservation back, less what it lost) from the hands' cards alone, at
    its round's rates and special combinations. What is wrong, and what was checked."""
    wrong: list[str] = []
    checked: Counter[str] = Counter()
    rounds, rules, bets = settled(played)
    for round_id, rnd in rounds.items():
        hands = {name: list(hand["cards"]) for name, hand in rnd["settlement"]["hands"].items()}
        if spec_pok_deng.deal(scanned(rnd)) != hands or len(scanned(rnd)) != 12:
            wrong.append(f"{round_id}: cards {scanned(rnd)} make {hands}, the spec {spec_pok_deng.deal(scanned(rnd))}")
    for bet in bets:
        round_id, amount, result = str(bet["round_id"]), int(bet["amount"]), bet["result"]
        table, hands = rules[round_id], rounds[round_id]["settlement"]["hands"]
        number = bet["type"].split("-")[1]
        hand, banker = list(hands[f"hand-{number}"]["cards"]), list(hands["banker"]["cards"])
        if bet["type"].endswith("-pair"):
            exact, staked = spec_pok_deng.pair_net(hand, amount, table), amount
        else:
            exact, staked = spec_pok_deng.player_net(hand, banker, amount, table), amount * table.reservation
        outcome = "win" if exact > 0 else "push" if exact == 0 else "lose"
        spec = (outcome, exact, staked + exact.numerator // exact.denominator)
        got = (result["outcome"], Fraction(str(result["exact_net"])), int(result["paid"]))
        if got != spec:
            wrong.append(f"{bet['bet_id']} ({bet['type']}, {amount}) on {hand} against the Banker's {banker} in "
                         f"{round_id}: {got}, the spec {spec}")
        kind = "pair" if bet["type"].endswith("-pair") else "player"
        checked[f"{kind} {outcome}"] += 1
        if kind == "player" and exact:
            per_unit = abs(exact) / amount
            checked[f"player {outcome} {per_unit}"] += 1
            found = spec_pok_deng.combination(hand if exact > 0 else banker, table)
            if found is not None:
                checked[f"{outcome} on {'an own' if found[1] in OWN else 'a'} combination"] += 1
            against = spec_pok_deng.rank(banker, table)
            if exact > 0 and against in ((0, 0), (0, 6)) and spec_pok_deng.special(hand, table):
                # a special pattern's win against a Banker of 0 or 6 points: the exceptions, in order
                checked["won 8 or 9 with a pattern against 0 or 6" if spec_pok_deng.points(hand) >= 8 else
                        "won with a pattern against 0 or 6"] += 1
        elif exact > 0:
            checked[f"pair win {exact / amount}"] += 1
        checked["bets"] += 1
    checked["rounds"] = len(rounds)
    return _with_acceptance(played, wrong, checked)


CHECKS = {"baccarat": baccarat_held_to_the_spec, "blackjack": blackjack_held_to_the_spec,
          "deluxe-blackjack": blackjack_held_to_the_spec, "pok-deng": pok_deng_held_to_the_spec}
"""Each game's check."""
