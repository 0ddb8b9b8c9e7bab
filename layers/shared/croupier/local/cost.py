"""``croupier cost``: what a round of each game costs on AWS, from the calls it made.

On the local stack, a round of each game is played as the studio plays it (players betting over
HTTP, the card reader's scans on the bus at table speed, blackjack players deciding on their
screens, the dealer console and a supervisor watching), once with one viewer watching the table
and once with ``--viewers`` of them (players' screens subscribed to the table, betting nothing).
A :class:`~croupier.local.meter.Meter` counts what AWS bills each round: state transitions, Lambda
invocations and their GB-seconds, DynamoDB read and write units, events, queue requests, REST
requests and WebSocket messages. Priced at the repository's price list
(:mod:`croupier.local.prices`), per 1,000 rounds at 1, 100 and 10,000 viewers, with each service's
share. Viewers beyond those measured are extrapolated along the measured cost of a viewer (what
the second measurement adds per viewer), which the report says.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .meter import Meter, Usage
from .prices import read_on, unit_price

VIEWERS = (1, 100, 10_000)
"""The viewer counts the report prices."""


class CostArgs(BaseModel):
    """What ``croupier cost`` is asked."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    viewers: int = Field(100, ge=2, le=1000, description="viewers of the second measurement of each round")
    games: tuple[str, ...] = Field(("baccarat", "pok-deng", "deluxe-blackjack", "blackjack"), min_length=1)
    json_out: str | None = None


SERVICES = ("Step Functions", "Lambda", "DynamoDB", "SQS", "EventBridge", "API Gateway REST",
            "API Gateway WebSocket")


def prices() -> dict[str, float]:
    return {name: unit_price(name) for name in (
        "sfn_standard_transition", "lambda_request", "lambda_gb_second_arm64", "ddb_write_request_unit",
        "ddb_read_request_unit", "sqs_standard_request", "sqs_fifo_request", "eventbridge_event",
        "apigw_rest_request", "apigw_websocket_message")}


@dataclass(frozen=True)
class RoundBill:
    """One round's counts, as billed, and what they cost by service (USD)."""

    game: str
    viewers: int
    bets: int
    cards: int
    status: str
    transitions: int
    invocations: int
    invocations_by_function: dict[str, int]
    lambda_gb_seconds: float
    write_units: int
    write_units_by_item: dict[str, int]
    """Per kind of item written (its keys' prefixes: ``ROUND/META``, ``WALLET/LEDGER`` ...)."""
    read_units: float
    ddb_requests: int
    sqs_standard: int
    sqs_fifo: int
    events: int
    rest_requests: int
    websocket_messages: int
    card_waits: int = 0
    """The times the workflow waited for a card (``AwaitCard`` entered). Each wait costs three
    transitions (``AwaitCard``, then ``Advance`` or ``CardOverdue``, then ``Route``); how many there
    are depends on whether the dealer's cards were recorded before the workflow looked for them,
    which is the table's timing against the machine's, not the round's bets or viewers."""

    def usd(self) -> dict[str, float]:
        p = prices()
        return {
            "Step Functions": self.transitions * p["sfn_standard_transition"],
            "Lambda": self.invocations * p["lambda_request"] + self.lambda_gb_seconds * p["lambda_gb_second_arm64"],
            "DynamoDB": self.write_units * p["ddb_write_request_unit"] + self.read_units * p["ddb_read_request_unit"],
            "SQS": self.sqs_standard * p["sqs_standard_request"] + self.sqs_fifo * p["sqs_fifo_request"],
            "EventBridge": self.events * p["eventbridge_event"],
            "API Gateway REST": self.rest_requests * p["apigw_rest_request"],
            "API Gateway WebSocket": self.websocket_messages * p["apigw_websocket_message"],
        }


def bill_of(game: str, viewers: int, bets: int, cards: int, status: str, transitions: int,
            usage: Usage, card_waits: int = 0) -> RoundBill:
    return RoundBill(
        game=game, viewers=viewers, bets=bets, cards=cards, status=status, transitions=transitions,
        invocations=usage.invocations, invocations_by_function=dict(sorted(usage.lambda_invocations.items())),
        lambda_gb_seconds=usage.lambda_gb_seconds, write_units=usage.write_units,
        write_units_by_item=dict(usage.ddb_write_units_by_item.most_common()), read_units=usage.read_units,
        ddb_requests=sum(usage.ddb_requests.values()), sqs_standard=usage.sqs_requests["standard"],
        sqs_fifo=usage.sqs_requests["fifo"], events=usage.events, rest_requests=usage.rest_requests,
        websocket_messages=usage.websocket_messages, card_waits=card_waits)


BLIND_TO_VIEWERS = ("Step Functions",)
"""Services the viewers never reach: the workflow knows nothing of the screens. Where its two
plays differ (a first card wait that the cards came too soon for), that is timing, not viewers."""


def per_thousand(low: RoundBill, high: RoundBill, viewers: int) -> dict[str, float]:
    """The cost of 1,000 rounds by service at ``viewers``: measured at ``low.viewers`` and
    ``high.viewers``; between and beyond them along the line through both (each service's cost
    grows by what a viewer adds). A service blind to viewers costs the mean of the two plays."""
    a, b = low.usd(), high.usd()
    slope = {s: (b[s] - a[s]) / (high.viewers - low.viewers) for s in SERVICES}
    return {s: 1000 * ((a[s] + b[s]) / 2 if s in BLIND_TO_VIEWERS
                       else max(0.0, a[s] + slope[s] * (viewers - low.viewers))) for s in SERVICES}


# --- playing the rounds -----------------------------------------------------------------------
BETS: dict[str, dict[str, list[dict[str, Any]]]] = {
    "baccarat": {"ana": [{"type": "banker", "amount": 1000}, {"type": "tie", "amount": 100}],
                 "ben": [{"type": "player", "amount": 500}, {"type": "player-pair", "amount": 100},
                         {"type": "small", "amount": 200}],
                 "chloe": [{"type": "banker", "amount": 1001, "mode": "no-commission"},
                           {"type": "lucky-6", "amount": 100}]},
    "pok-deng": {"dev": [{"type": "player-1", "amount": 1000}, {"type": "player-3", "amount": 500}],
                 "eli": [{"type": "player-2", "amount": 700}, {"type": "player-2-pair", "amount": 100}],
                 "fay": [{"type": "player-5", "amount": 2000}]},
    "deluxe-blackjack": {"ana": [{"type": "seat", "seat": 1, "amount": 1000}],
                         "ben": [{"type": "seat", "seat": 2, "amount": 1000}],
                         "chloe": [{"type": "behind", "seat": 1, "amount": 500},
                                   {"type": "pair", "seat": 2, "amount": 100}]},
    "blackjack": {"dev": [{"type": "seat", "seat": 3, "amount": 2000}, {"type": "pair", "seat": 3, "amount": 100}],
                  "fay": [{"type": "seat", "seat": 5, "amount": 1500}],
                  "eli": [{"type": "behind", "seat": 3, "amount": 1000}]},
}
"""Each game's round: Baccarat 7 bets, Pok Deng 5, Deluxe 4 (two seats, a bet behind, a pair),
the classic table 4 (two seats, a pair, a bet behind)."""


def quiet(stack: Any, still: float = 1.5, timeout: float = 60.0) -> None:
    """Wait until no function but the scheduled ones has been invoked for ``still`` seconds: what a
    round set off (its last pushes) is over."""
    scheduled = set(stack._schedules)

    def count() -> int:
        return sum(n for name, n in stack.invocation_counts().items() if name not in scheduled)

    deadline = time.monotonic() + timeout
    last, since = count(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = count()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= still:
            return


def play(stack: Any, games: tuple[str, ...], viewer_counts: tuple[int, ...],
         out: Any = print, prefix: str = "") -> list[RoundBill]:
    """A round of each game at each number of viewers, each metered from the opening of its round
    until what it set off is over. The rounds of a game are the same round: the same bets, and the
    same cards (a new shoe prepared with the first round's), so the same decisions; only the
    viewers differ. ``prefix`` starts the tables' and people's names (fresh ones)."""
    from .client import Client, Screen
    from .studio import Studio
    from .usage import execution_history, states_entered

    class Quiet(Studio):
        def report(self, final: dict[str, Any], bets: dict[str, list[dict[str, Any]]], label: str) -> None:
            """The players' reads of the result are not part of the bill."""

    studio = Quiet(stack, out=lambda line: None, prefix=prefix)
    studio.fund()
    bills = []
    for n, game in enumerate(games):
        table_id, burn = f"{prefix}cost-{game}", game not in ("deluxe-blackjack", "blackjack")
        table = studio.open_table(table_id, game, 40 + n, cut_at=300, scan_burn=burn)
        cards = table.shoe.cards[table.shoe.position:table.shoe.position + 60]
        bets = BETS[game]
        for player, wanted in bets.items():
            for seat in {b["seat"] for b in wanted if b["type"] == "seat"}:
                studio.players[player].call("PUT", f"/tables/{table_id}/seats/{seat}")
        studio.screen(studio.supervisor, table_id)
        viewers: list[Screen] = []
        for k, count in enumerate(viewer_counts):
            if k:  # the same round again: a new shoe whose first cards are the last round's
                studio.shuffle(table, 1000 * (k + 1) + n, cut_at=300, scan_burn=burn)
                table.shoe.prepare(cards)
            while len(viewers) < count:
                token = Client(stack.api_url, stack.jwt_secret, f"{prefix}viewer-{len(viewers)}", "player").token
                viewers.append(Screen(stack.screens.url, token, [table_id]))
            quiet(stack)
            with Meter(stack) as meter:
                final = studio.round(table, bets, per_round_burn=1 if game == "pok-deng" else 0)
                quiet(stack)
            entered = states_entered(execution_history(stack.outputs["state_machine"], final["round_id"]))
            transitions = sum(entered.values())
            dealt = len(studio.physical[final["round_id"]].cards)
            bill = bill_of(game, count, sum(len(b) for b in bets.values()), dealt, final["status"], transitions,
                           meter.usage, entered["AwaitCard"])
            bills.append(bill)
            out(f"  {game:17} {count:>5} viewers  {bill.status:8} cards {dealt:>2}  "
                f"transitions {bill.transitions:>3}  invocations {bill.invocations:>4}  "
                f"WRU {bill.write_units:>5}  RRU {bill.read_units:>7.1f}  websocket {bill.websocket_messages:>5}  "
                f"${sum(bill.usd().values()) * 1000:.3f} per 1,000")
        for screen in viewers:
            screen.close()
    studio.close_screens()
    return bills


# --- the report -------------------------------------------------------------------------------
def report(bills: list[RoundBill], out: Any = print) -> dict[str, Any]:
    """Per game: each measured round's counts, then the price of 1,000 rounds at :data:`VIEWERS`
    and each service's share."""
    by_game: dict[str, list[RoundBill]] = {}
    for bill in bills:
        by_game.setdefault(bill.game, []).append(bill)
    table: dict[str, dict[int, dict[str, float]]] = {}
    out("\nPer round, as AWS bills it (counted from the round's calls on the local stack):")
    out(f"  {'game':17} {'viewers':>7} {'transitions':>11} {'Lambda':>7} {'GB-s':>7} {'WRU':>6} {'RRU':>7} "
        f"{'SQS':>5} {'events':>6} {'REST':>5} {'WebSocket':>9}")
    for game, measured in by_game.items():
        for b in measured:
            out(f"  {game:17} {b.viewers:>7} {b.transitions:>11} {b.invocations:>7} {b.lambda_gb_seconds:>7.2f} "
                f"{b.write_units:>6} {b.read_units:>7.1f} {b.sqs_standard + b.sqs_fifo:>5} {b.events:>6} "
                f"{b.rest_requests:>5} {b.websocket_messages:>9}")
        low, high = measured[0], measured[-1]
        table[game] = {v: per_thousand(low, high, v) for v in VIEWERS}
    out("\nWhere a round's DynamoDB write units go (one viewer; keys' prefixes):")
    for game, measured in by_game.items():
        items = measured[0].write_units_by_item
        out(f"  {game:17} " + ", ".join(f"{kind} {units}" for kind, units in list(items.items())[:6]))
    measured_at = sorted({b.viewers for b in bills})
    out(f"\nPer 1,000 rounds (USD), at {', '.join(f'{v:,}' for v in VIEWERS)} viewers "
        f"(measured at {' and '.join(str(v) for v in measured_at)}; others along the line through both):")
    out(f"  {'game':17} " + " ".join(f"{f'{v:,} viewers':>15}" for v in VIEWERS))
    for game, at in table.items():
        out(f"  {game:17} " + " ".join(f"{'$' + format(sum(at[v].values()), ',.2f'):>15}" for v in VIEWERS))
    out("\nShare of each service:")
    for game, at in table.items():
        for v in VIEWERS:
            total = sum(at[v].values()) or 1.0
            shares = ", ".join(f"{s} {100 * at[v][s] / total:.0f}%" for s in SERVICES if at[v][s] / total >= 0.005)
            out(f"  {game:17} {v:>6,} viewers: {shares}")
    out(f"\nPrices: {read_on()}. Lambda's durations are this machine's (moto answering in-process), "
        "billed per millisecond at each function's memory, arm64.")
    return {"rounds": [asdict(b) for b in bills],
            "per_1000_rounds_usd": {g: {str(v): dict(s) for v, s in at.items()} for g, at in table.items()},
            "prices": read_on()}


def main(args: argparse.Namespace) -> int:
    from .stack import LocalStack, project_root

    options = CostArgs(viewers=args.viewers, games=tuple(args.games), json_out=args.json)
    print("Croupier cost: a round of each game on the local stack, metered", flush=True)
    with LocalStack(project_root()) as stack:
        bills = play(stack, options.games, (1, options.viewers), out=lambda line: print(line, flush=True))
    summary = report(bills)
    if options.json_out:
        Path(options.json_out).write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0 if all(b.status == "settled" for b in bills) else 1
