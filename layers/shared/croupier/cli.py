"""The ``croupier`` command line: ``replay`` (and the proofs: ``rtp``, ``simulate``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .errors import CroupierError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"croupier: error: {message}\n")


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.func(args)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
