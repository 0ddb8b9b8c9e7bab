"""``croupier rtp GAME [--rules JSON] [--json]``: the exact RTP of every bet type of a table.

``GAME`` is ``deluxe-blackjack``, ``blackjack``, ``baccarat`` or ``pok-deng``; ``--rules`` a JSON
object of overrides of the game's default table rules (as in a transcript's ``rules``). With
``--json`` the output is exactly ``{"game": GAME, "rtp": {BET: fraction, ...}}``, each fraction a
number rounded to 6 decimals; without it, a readable table: every bet type, its RTP in percent,
the house edge, and the provider's published figure where there is one (Pok Deng adds the
return per amount put down and the effect of dropping each special combination; blackjack the
rule variants beside the published figures).

An unknown game or invalid rules raise :class:`~croupier.errors.RulesError`; the ``croupier``
command turns it into one line on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import RulesError
from ..rules import GAMES, BaccaratRules, BlackjackRules, PokDengRules, Rules, load_rules

Figure = Fraction | float


@dataclass(frozen=True)
class Report:
    """One game's RTP report: every bet type's figure (per unit staked) and the readable text."""

    game: str
    rtp: dict[str, Figure]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "rtp": {bet: json_number(value) for bet, value in self.rtp.items()}}


def json_number(value: Figure) -> float:
    """The figure rounded to 6 decimals (exactly, for a fraction): 0.98942094... -> 0.989421."""
    if isinstance(value, Fraction):
        return float(round(value, 6))
    return round(value, 6)


def parse_overrides(text: str | None) -> dict[str, Any]:
    """The ``--rules`` argument: a JSON object, or nothing."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"--rules is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    if not isinstance(value, dict):
        raise RulesError(f"--rules must be a JSON object of rule overrides, not {type(value).__name__}")
    return value


def table_rules(game: str, rules_json: str | None) -> Rules:
    if game not in GAMES:
        raise RulesError(f"unknown game {game!r}; games are {', '.join(GAMES)}", reason="unknown-game")
    return load_rules(game, parse_overrides(rules_json))


# --- formatting ------------------------------------------------------------------------------


def percent(value: Figure, places: int = 4) -> str:
    return f"{100 * float(value):.{places}f}%"


def ratio_text(ratio: Fraction) -> str:
    """11 -> ``11:1``, 19/20 -> ``0.95:1``, 1/2 -> ``0.5:1``; otherwise ``a:b``."""
    if ratio.denominator == 1:
        return f"{ratio.numerator}:1"
    for places in range(1, 5):
        scaled = ratio * 10**places
        if scaled.denominator == 1:
            return f"{scaled.numerator / 10**places:.{places}f}:1"
    return f"{ratio.numerator}:{ratio.denominator}"


def bet_table(rtp: Mapping[str, Figure], published: Mapping[str, Figure], pays: Mapping[str, str]) -> list[str]:
    """One line per bet type: pays, RTP, house edge, published figure."""
    width = max(len("bet"), *(len(b) for b in rtp))
    pays_width = max(len("pays"), *(len(p) for p in pays.values())) if pays else 0
    head = f"{'bet':<{width}}  " + (f"{'pays':<{pays_width}}  " if pays else "")
    lines = [head + f"{'RTP':>9}  {'house edge':>10}  {'published':>9}"]
    for bet, value in rtp.items():
        line = f"{bet:<{width}}  " + (f"{pays.get(bet, ''):<{pays_width}}  " if pays else "")
        line += f"{percent(value):>9}  {percent(1 - value):>10}"
        if bet in published:
            line += f"  {percent(published[bet], 2):>9}"
        lines.append(line.rstrip())
    return lines


# --- the games -------------------------------------------------------------------------------


def baccarat_report(rules: BaccaratRules) -> Report:
    from . import baccarat

    rtp = baccarat.analyse(rules)
    pay = rules.payouts
    pays = {
        "player": ratio_text(pay.player),
        "banker": ratio_text(pay.banker),
        "banker-no-commission": f"{ratio_text(pay.banker_no_commission)}, "
        f"{ratio_text(pay.banker_no_commission_six)} on a 6",
        "tie": ratio_text(pay.tie),
        "player-pair": ratio_text(pay.player_pair),
        "banker-pair": ratio_text(pay.banker_pair),
    }
    for kind, side in rules.side_bets.items():
        pays[kind] = ratio_text(side.pays)
        if side.pays_three_cards is not None:
            pays[kind] += f", {ratio_text(side.pays_three_cards)} with 3 cards"
    probs = baccarat.outcome_probabilities()
    lines = [
        "Baccarat: exact RTP per unit staked, full 8-deck shoe (416 cards), every round enumerated",
        "(first four cards by rank, third cards by point value, exact removal); 'banker' is with commission.",
        "",
        *bet_table(rtp, baccarat.PUBLISHED, pays),
        "",
        f"Round results: Banker wins {percent(probs['banker'])}, Player wins {percent(probs['player'])}, "
        f"tie {percent(probs['tie'])}; 4 cards {percent(probs['four-cards'])}, 5 cards "
        f"{percent(probs['five-cards'])}, 6 cards {percent(probs['six-cards'])}.",
        f"Published maximum RTP 98.94% (Banker with commission): exact {rtp.get('banker', Fraction(0))}"
        if "banker" in rtp
        else "Published maximum RTP 98.94% is the Banker bet with commission, which this table does not offer.",
    ]
    return Report("baccarat", dict(rtp), "\n".join(lines))


def pokdeng_report(rules: PokDengRules) -> Report:
    from . import pokdeng

    rtp = pokdeng.analyse(rules)
    put_down = pokdeng.analyse_put_down(rules, rtp)
    configured = ", ".join(c.label for c in rules.special_combinations) or "none"
    width = max(len(b) for b in rtp)
    lines = [
        "Pok Deng: exact RTP, full 8-deck shoe; hand N and the Banker's hand enumerated exactly",
        "(four cards by rank and suit pattern, exact removal).",
        f"Special combinations, highest first (between 8 and 7): {configured}.",
        f"A Player N bet puts down a front and a back stake, {rules.reservation}x its stake (its reservation);",
        "the published figure is per amount put down. A Pair bet puts down its stake.",
        "",
        f"{'bet':<{width}}  {'per stake':>9}  {'house edge':>10}  {'per put down':>12}  {'house edge':>10}"
        f"  {'published':>9}",
    ]
    for bet, value in rtp.items():
        line = (f"{bet:<{width}}  {percent(value):>9}  {percent(1 - value):>10}  {percent(put_down[bet]):>12}"
                f"  {percent(1 - put_down[bet]):>10}")
        if bet in pokdeng.PUBLISHED:
            line += f"  {percent(pokdeng.PUBLISHED[bet], 2):>9}"
        lines.append(line)
    player = put_down[PLAYER_N]
    lines += [
        "All five hands are symmetric (each hand and the Banker's are four cards from the same shoe):",
        "Player 1 to 5 share one figure, as do Player 1 Pair to Player 5 Pair.",
        "",
        f"Published maximum RTP {percent(pokdeng.PUBLISHED_MAXIMUM, 2)} (Player N, per amount put down): "
        f"ours {percent(player, 2)} ({percent(player)}, exactly {player}).",
    ]
    variants = pokdeng.without_each(rules)
    if len(variants) > 1:
        lines += [
            "",
            "The effect of dropping each special combination, Player N:",
            f"  {'special combinations':<32}  {'per stake':>9}  {'per put down':>12}  {'vs 98.75':>8}",
        ]
        for variant in variants:
            if not variant.dropped:
                name = "all (this table)"
            elif not variant.special_combinations:
                name = "none"
            else:
                name = "without " + ", ".join(n.replace("-", " ") for n in variant.dropped)
            lines.append(f"  {name:<32}  {percent(variant.rtp):>9}  {percent(variant.rtp_put_down):>12}"
                         f"  {100 * float(variant.distance):>+8.4f}")
        lines.append("(differences in percentage points)")
    return Report("pok-deng", dict(rtp), "\n".join(lines))


PLAYER_N = "player-1"
"""The Player N figure shown beside the published one (all five hands share it)."""


def blackjack_report(game: str, rules: BlackjackRules, *, variants: bool) -> Report:
    from . import blackjack

    result = blackjack.analyse(rules)
    rtp: dict[str, Figure] = dict(result.bets)
    published: dict[str, Figure] = {bet: blackjack.PUBLISHED[rules.variant] for bet in ("seat", "behind") if bet in rtp}
    lines = [
        f"{game}: RTP per unit staked, 8 decks ('seat' and 'behind' with basic strategy, per initial bet)",
        "",
        *bet_table(rtp, published, {}),
    ]
    if variants:
        lines += ["", blackjack.format_report(main=result)]
    return Report(game, rtp, "\n".join(lines))


def report(game: str, rules: Rules, *, text: bool = True) -> Report:
    """The RTP report of ``game`` under ``rules``. ``text=False`` skips work only the readable
    table needs (the blackjack rule variants)."""
    if isinstance(rules, BaccaratRules):
        return baccarat_report(rules)
    if isinstance(rules, PokDengRules):
        return pokdeng_report(rules)
    return blackjack_report(game, rules, variants=text)


def run(args: argparse.Namespace) -> int:
    """``croupier rtp``: ``args.game``, ``args.rules`` (JSON text or None), ``args.json``."""
    rules = table_rules(args.game, args.rules)
    result = report(args.game, rules, text=not args.json)
    if args.json:
        json.dump(result.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(result.text + "\n")
    return 0
