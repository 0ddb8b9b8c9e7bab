"""The ``croupier`` command line: ``replay`` (and the proofs: ``rtp``, ``simulate``), ``audit``, and for the
local stack and deployments ``device`` (a table's devices by hand), ``invoke`` (a function on an event) and
``cost`` (what a round of each game makes AWS bill)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from .errors import CroupierError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"croupier: error: {message}\n")


def _read(path: str) -> bytes | str:
    """The raw bytes: decoding (UTF-8) is the transcript parser's job, with its clear errors."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)  # a text-only stdin (tests, embedding) is read as text
        return stream.read() if stream is not None else sys.stdin.read()
    with open(path, "rb") as handle:
        return handle.read()


def _looks(value: str) -> int:
    """``--looks``: a whole number from 1 to 10."""
    if not value.isdigit() or not 1 <= int(value) <= 10:
        raise argparse.ArgumentTypeError(f"{value!r}: looks are a whole number from 1 to 10")
    return int(value)


def _positive_seq(value: str) -> int:
    """``--seq``: a reader's event number, a whole number from 1."""
    if not value.isdigit() or not 1 <= int(value) < 10**12:
        raise argparse.ArgumentTypeError(f"{value!r}: a reader's event number is a whole number from 1")
    return int(value)


def _viewers(value: str) -> int:
    """``--viewers``: a whole number from 2 to 1,000."""
    if not value.isdigit() or not 2 <= int(value) <= 1000:
        raise argparse.ArgumentTypeError(f"{value!r}: viewers are a whole number from 2 to 1000")
    return int(value)


def cmd_replay(args: argparse.Namespace) -> int:
    from .transcript import Transcript, replay

    try:
        text = _read(args.file)
    except OSError as exc:
        print(f"croupier replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        settlement = replay(Transcript.parse_json(text))
    except CroupierError as exc:
        print(f"croupier replay: {exc}", file=sys.stderr)
        return 2
    json.dump(settlement.to_dict(full=args.full), sys.stdout, separators=(",", ":") if args.compact else None,
              indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="croupier", description="Round settlement for live-dealer card tables.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rp = sub.add_parser("replay", help="settle a round transcript again and print the settlement")
    rp.add_argument("file", help="transcript JSON file, or - for standard input")
    rp.add_argument("--full", action="store_true", help="also print each bet's stake, payout and exact net")
    rp.add_argument("--compact", action="store_true", help="print one line of JSON")
    rp.set_defaults(func=cmd_replay)

    rt = sub.add_parser("rtp", help="exact return to player of every bet type under a table's rules")
    rt.add_argument("game", help="deluxe-blackjack, blackjack, baccarat or pok-deng")
    rt.add_argument("--rules", default=None, help="JSON object of rule overrides (as in a transcript's 'rules')")
    rt.add_argument("--json", action="store_true", help='print {"game": GAME, "rtp": {BET: fraction, ...}}')
    rt.set_defaults(func=_lazy("croupier.rtp.cli", "run"))

    sm = sub.add_parser("simulate", help="play shuffled shoes through the engines and compare with the exact RTP")
    sm.add_argument("game", help="deluxe-blackjack, blackjack, baccarat or pok-deng")
    sm.add_argument("--rounds", type=int, required=True, help="how many rounds to play")
    sm.add_argument("--seed", type=int, default=1, help="seed of the shuffles and the random bets")
    sm.add_argument("--rules", default=None, help="JSON object of rule overrides")
    sm.add_argument("--json", action="store_true", help="print the figures as JSON")
    sm.add_argument("--exact", action="store_true", help="blackjack: also compute the seat bet's exact RTP (seconds)")
    sm.add_argument("--replay-every", type=int, default=1, metavar="N",
                    help="replay one round's transcript in N (default 1: every round)")
    sm.set_defaults(func=_lazy("croupier.simulate", "run"))

    ch = sub.add_parser("chaos", help="play rounds of the whole application in simulated worlds on one seed, "
                                      "with faults, checking every invariant after every step")
    ch.add_argument("--rounds", type=int, default=1000, help="rounds to play in all (default 1000)")
    ch.add_argument("--seed", type=int, default=1, help="the seed: the same seed prints the same report")
    ch.add_argument("--faults", default=None, metavar="KIND=CHANCE,...",
                    help="changes to the default fault mix (the kinds and their chances: docs/reliability.md)")
    ch.add_argument("--game", default=None, help="baccarat, blackjack, deluxe-blackjack or pok-deng (default: the "
                                                  "worlds play them in turn)")
    ch.add_argument("--per-world", type=int, default=250, help="rounds per world (default 250)")
    ch.add_argument("--tables", type=int, default=4, help="tables per world (default 4)")
    ch.add_argument("--players", type=int, default=4, help="players per table (default 4)")
    ch.add_argument("--seamless", type=int, default=1,
                    help="tables per world whose money is in an operator's seamless wallet (default 1)")
    ch.add_argument("--house-rules", action=argparse.BooleanOptionalAction, default=False,
                    help="each table plays rules of its own drawn from the seed (soft 17, surrender, 6:5, Perfect "
                         "Pairs, commission or not, Pok Deng's special hands...); default: every game's defaults")
    ch.add_argument("--jobs", type=int, default=1, help="processes the worlds are spread over (the report is the same)")
    ch.add_argument("--no-shrink", action="store_true", help="report violations without looking for the shortest run")
    ch.add_argument("--world", default=None, help="replay one world by its seed (as a report names it, e.g. 1/7)")
    ch.add_argument("--spare", default=None, metavar="N,N,...",
                    help="with --world: the faults not applied, as a report names them (a number; a letter and "
                         "a number for one drawn apart: docs/reliability.md lists the letters)")
    ch.set_defaults(func=_lazy("croupier.sim.chaos", "run"))

    au = sub.add_parser("audit", help="check a whole store: wallets equal ledgers, every bet settled once, "
                                      "money conserved, settled rounds replay")
    au.add_argument("--endpoint", default=None, help="AWS endpoint of a local stack (default: the running "
                                                     "`make local`, from .croupier-local.json)")
    au.add_argument("--stack", default=None, help="an AWS CloudFormation stack name: audit that deployment")
    au.add_argument("--game-table", default=None, help="name of the game table (instead of --stack)")
    au.add_argument("--wallet-table", default=None, help="name of the wallet table (instead of --stack)")
    au.add_argument("--region", default=None, help="AWS region (default: the environment's)")
    au.add_argument("--reconcile", action="store_true",
                    help="also ask each seamless operator's wallet (its status call) about every wallet call")
    au.add_argument("--operator-report", default=None, metavar="OPERATOR=FILE",
                    help="reconcile an operator's wallet calls with its report of its transactions (JSON Lines)")
    au.add_argument("--looks", type=_looks, default=3, metavar="N",
                    help="on a store in use, look again (a second later) when a look finds problems, up to N "
                         "looks in all; a problem is reported when every look found one (default 3)")
    au.add_argument("--operator-wallets", default=None, metavar="PATH",
                    help="the SSM path of the operators' wallets (default /croupier/{stage}/operators)")
    au.set_defaults(func=_lazy("croupier.app.auditcli", "run"))

    dv = sub.add_parser("device", help="a table's card reader and dealer console by hand: shuffle, burn, scan, "
                                       "fail, cut (on the local stack, or --stack/--bus on AWS)",
                        description="Put a table device's event on the table bus, as the device would, and say "
                                    "what became of it in the table's device log.")
    dv.add_argument("--table", required=True, help="the table's id")
    dv.add_argument("--reader", default=None, help="the card reader's id (default: the one registered for the table)")
    dv.add_argument("--seq", type=_positive_seq, default=None, metavar="N",
                    help="the reader's number for its first event here (default: one past the last the table has)")
    dv.add_argument("--stack", default=None, help="an AWS CloudFormation stack: its bus and game table")
    dv.add_argument("--bus", default=None, help="an AWS event bus name (instead of --stack)")
    dv.add_argument("--game-table", default=None, help="with --bus: the game table, to follow each event")
    dv.add_argument("--region", default=None, help="AWS region (default: the environment's)")
    dv.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                    help="how long to wait for each event in the device log (default 10; 0: do not wait)")
    actions = dv.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=_Parser)
    sh = actions.add_parser("shuffle", help="the dealer console: a new shoe is shuffled")
    sh.add_argument("--shoe", default=None, help="the new shoe's id (default: one is made)")
    actions.add_parser("burn", help="the dealer console: the new shoe's burn is done")
    sc = actions.add_parser("scan", help="the card reader: cards read, in order (e.g. 9S TD AH)")
    sc.add_argument("cards", nargs="+", metavar="CARD", help="a card: rank A 2-9 T J Q K, then suit S H D C")
    fl = actions.add_parser("fail", help="the card reader: a card it could not read")
    fl.add_argument("--reason", default="unreadable", help="the reader's word (default: unreadable)")
    actions.add_parser("cut", help="the card reader: the cut card came out")
    dv.set_defaults(func=_lazy("croupier.local.devices", "run"))

    iv = sub.add_parser("invoke", help="run a function in this process on an event file (events/), against the "
                                       "running local stack: sam local invoke without Docker")
    iv.add_argument("function", help="the function: bets, decisions, tables, wallet, query, dealing, round, settlement")
    iv.add_argument("event", help="the event file, e.g. events/tables-create.json")
    iv.add_argument("--round", default=None, metavar="ROUND_ID", help="fills {{round_id}} in the event")
    iv.add_argument("--set", action="append", metavar="NAME=VALUE", help="fills {{NAME}} in the event (repeatable)")
    iv.set_defaults(func=_lazy("croupier.local.invoke", "run"))
    co = sub.add_parser("cost", help="play a round of each game on the local stack and print what AWS bills for "
                                     "it, and the price of 1,000 rounds at 1, 100 and 10,000 viewers")
    co.add_argument("--viewers", type=_viewers, default=100,
                    help="viewers of each round's second measurement (the first has one; default 100)")
    co.add_argument("--games", nargs="+", default=["baccarat", "pok-deng", "deluxe-blackjack", "blackjack"],
                    choices=["baccarat", "pok-deng", "deluxe-blackjack", "blackjack"], metavar="GAME",
                    help="the games to play (baccarat, pok-deng, deluxe-blackjack, blackjack; default all)")
    co.add_argument("--json", default=None, metavar="FILE", help="also write the figures to this JSON file")
    co.set_defaults(func=_lazy("croupier.local.cost", "main"))
    es = sub.add_parser("events-schema", help="print the JSON Schema of the domain events (what the bus and the "
                                              "screens receive)")
    es.set_defaults(func=cmd_events_schema)
    return parser


def cmd_events_schema(args: argparse.Namespace) -> int:
    from .domain_events import json_schema

    json.dump(json_schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """Import a subcommand's module only when it runs (start-up stays small)."""

    def run(args: argparse.Namespace) -> int:
        from importlib import import_module

        try:
            code: int = getattr(import_module(module), name)(args)
        except CroupierError as exc:
            print(f"croupier {args.command}: {exc}", file=sys.stderr)
            return 2
        return code

    return run


def main(argv: Sequence[str] | None = None) -> int:
    # Start-up: pydantic looks for plugins in every installed distribution's entry points the
    # first time it builds a model (tens of milliseconds in a large environment). The command
    # uses none; set PYDANTIC_DISABLE_PLUGINS yourself (even to "") to decide otherwise.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
