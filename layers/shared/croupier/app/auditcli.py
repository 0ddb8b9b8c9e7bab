"""``croupier audit``: the audit of :mod:`croupier.app.audit` against a running local stack or an AWS
deployment. Exit 0 when every check holds, 1 with the list of what is wrong, 2 on bad arguments."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from ..errors import CroupierError


class AuditTargetError(CroupierError):
    reason = "audit-target"


def _target(args: argparse.Namespace) -> dict[str, str]:
    if args.stack:
        import boto3

        outputs = boto3.client("cloudformation", region_name=args.region).describe_stacks(
            StackName=args.stack)["Stacks"][0].get("Outputs", [])
        values = {o["OutputKey"]: o["OutputValue"] for o in outputs}
        try:
            return {"game_table": values["GameTableName"], "wallet_table": values["WalletTableName"]}
        except KeyError as exc:
            raise AuditTargetError(f"stack {args.stack} has no output {exc}") from exc
    if args.game_table and args.wallet_table:
        target = {"game_table": args.game_table, "wallet_table": args.wallet_table}
        if args.endpoint:
            target["endpoint"] = args.endpoint
        return target
    state = Path.cwd() / ".croupier-local.json"
    if not state.is_file():
        raise AuditTargetError("nothing to audit: start `make local`, or give --stack NAME, or --game-table and "
                               "--wallet-table")
    data = json.loads(state.read_text(encoding="utf-8"))
    if args.endpoint:
        data["endpoint"] = args.endpoint
    return {k: str(v) for k, v in data.items()}


def read_operator_report(path: Path) -> dict[str, dict[str, object]]:
    """An operator's transactions, one JSON object per line with at least ``transaction_id``,
    ``state`` (applied / cancelled) and ``amount``."""
    held: dict[str, dict[str, object]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            held[str(entry["transaction_id"])] = entry
        except (ValueError, KeyError, TypeError) as exc:
            raise AuditTargetError(f"{path}:{number}: not a transaction of the report ({exc})") from None
    return held


def run(args: argparse.Namespace) -> int:
    target = _target(args)
    if target.get("endpoint"):
        os.environ["AWS_ENDPOINT_URL"] = target["endpoint"]
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ.setdefault("AWS_DEFAULT_REGION", target.get("region", "us-east-1"))
    if args.region:
        os.environ["AWS_DEFAULT_REGION"] = args.region
    os.environ["GAME_TABLE"] = target["game_table"]
    os.environ["WALLET_TABLE"] = target["wallet_table"]
    os.environ.setdefault("IDEMPOTENCY_TABLE", "unused-by-the-audit")
    os.environ.setdefault("ROUND_STATE_MACHINE_ARN", "arn:unused:by:the:audit")
    if args.operator_wallets:
        os.environ["OPERATOR_WALLETS"] = args.operator_wallets
    elif target.get("operator_wallets"):
        os.environ.setdefault("OPERATOR_WALLETS", target["operator_wallets"])
    report_file = None
    if args.operator_report:
        operator, _, name = str(args.operator_report).partition("=")
        if not operator or not name:
            raise AuditTargetError("--operator-report is OPERATOR=FILE: the operator whose transactions the "
                                   "file holds, and the file")
        path = Path(name)
        if not path.is_file():
            raise AuditTargetError(f"no operator report at {path}")
        report_file = (operator, read_operator_report(path))
    from . import operators, reconcile, store
    from .audit import run_audit

    store.reset_clients()
    operators.reset_clients()
    report = run_audit(reconcile.ask_operator if args.reconcile else None, report_file, looks=args.looks)
    print(report.summary())
    return 0 if report.ok else 1
