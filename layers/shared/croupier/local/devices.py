"""``croupier device --table T ACTION``: a table's card reader and dealer console, by hand.

The events go on the table bus exactly as the devices put them (:class:`~croupier.local.client.
TableDevices`): source ``croupier.card-reader.<table>`` or ``croupier.dealer-console.<table>``,
validated by the same models the dealing function parses them with. Against the running local
stack by default (``.croupier-local.json``, written by ``make local``: its endpoint and region,
dummy credentials), or an AWS deployment with ``--stack NAME`` (its outputs) or ``--bus NAME``
(your AWS credentials and region).

Where the game table can be read (the local stack, or ``--stack`` with read access), the command
uses the table's registered reader unless ``--reader`` is given, and waits for each event to be
recorded in the table's device log, printing what became of it (taken by the round, a hand, the
burn, refused and why). Exit 0 when every event was recorded and used; 1 when one was refused,
not taken, blocked a round, or not recorded in time; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from ..app.events import CONSOLE, READER, BurnDone, CardScanned, CutCard, ScanFailed, ShoeShuffled
from ..app.records import LogEntry, LogState
from ..errors import CroupierError
from ..rules import describe_validation_error

PACE = 0.35
"""Seconds between two scans when the command does not wait for each (a dealer's pace)."""
DONE_BADLY = (LogState.REFUSED, LogState.NOT_TAKEN)


class DeviceError(CroupierError):
    reason = "device"


class Target:
    """Where the events go (the bus) and where their fate is read (the game table, if known)."""

    def __init__(self, bus: str, game_table: str | None, where: str) -> None:
        self.bus, self.game_table, self.where = bus, game_table, where
        self._table: Any = None

    def table(self) -> Any:
        if self._table is None and self.game_table:
            import boto3

            self._table = boto3.resource("dynamodb").Table(self.game_table)
        return self._table

    def read(self, key: dict[str, str]) -> dict[str, Any] | None:
        from botocore.exceptions import BotoCoreError, ClientError

        table = self.table()
        if table is None:
            return None
        try:
            item: dict[str, Any] | None = table.get_item(Key=key, ConsistentRead=True).get("Item")
        except (BotoCoreError, ClientError) as exc:
            print(f"croupier device: cannot read {self.game_table} ({exc}): not waiting for the device log",
                  file=sys.stderr)
            self.game_table, self._table = None, None
            return None
        return item


def target(args: argparse.Namespace) -> Target:
    if args.region:
        os.environ["AWS_DEFAULT_REGION"] = args.region
    if args.bus:
        return Target(args.bus, args.game_table, f"bus {args.bus}")
    if args.stack:
        import boto3

        outputs = boto3.client("cloudformation").describe_stacks(StackName=args.stack)["Stacks"][0].get("Outputs", [])
        values = {o["OutputKey"]: o["OutputValue"] for o in outputs}
        if "TableEventBusName" not in values:
            raise DeviceError(f"stack {args.stack} has no output TableEventBusName", reason="device-target")
        return Target(values["TableEventBusName"], args.game_table or values.get("GameTableName"),
                      f"stack {args.stack}")
    from .invoke import local_state, use_local_stack
    from .stack import project_root

    try:
        state = local_state(project_root())
    except CroupierError as exc:
        raise DeviceError(f"{exc}; or give --stack NAME or --bus NAME for an AWS deployment",
                          reason="no-local-stack") from None
    use_local_stack(state)
    return Target(str(state["event_bus"]), str(state["game_table"]), "the local stack")


def _validated(model: type[BaseModel], detail: dict[str, Any]) -> dict[str, Any]:
    try:
        return model.model_validate(detail).model_dump(exclude_none=True)
    except ValidationError as exc:
        raise DeviceError(describe_validation_error(exc), reason="bad-event") from None


def _describe(entry: LogEntry) -> str:
    what = entry.kind + (f" {entry.card}" if entry.card else "")
    state = entry.state
    if entry.blocked:
        return f"#{entry.n} {what}: blocked its round, which is paused: {entry.blocked}"
    if state in DONE_BADLY:
        return f"#{entry.n} {what}: {state}: {entry.reason or ''}"
    if state == LogState.TAKEN and entry.use == "round":
        return f"#{entry.n} {what}: taken by round {entry.round_id}, {entry.hand}"
    if state == LogState.TAKEN:
        return f"#{entry.n} {what}: taken ({entry.use}, shoe {entry.shoe_id})"
    if state == LogState.PENDING:
        return f"#{entry.n} {what}: recorded, waiting for the table (betting closing, or a paused round)"
    return f"#{entry.n} {what}: {state}"


def fate(target: Target, table_id: str, once: str, wait: float) -> tuple[str, bool]:
    """What became of the event recorded under ``once`` (its scan id, or ``event:<bus event id>``),
    waiting up to ``wait`` seconds for it to be recorded and leave ``pending``."""
    from ..app import keys

    deadline = time.monotonic() + wait
    entry: LogEntry | None = None
    while True:
        marker = target.read(keys.once_key(table_id, once))
        if marker is not None:
            item = target.read(keys.log_entry_key(table_id, int(marker["n"])))
            entry = None if item is None else LogEntry.from_item(item)
            if entry is not None and (entry.state != LogState.PENDING or entry.blocked):
                break
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if entry is None and marker is not None:
        return (f"recorded, but waiting for an earlier event of its reader (its number {marker.get('seq', '?')} "
                "is ahead of the reader's last in the log): it enters the log when the missing one comes", False)
    if entry is None:
        return (f"not in table {table_id}'s device log after {wait:.0f} s: the dealing function refused it "
                "(an unknown table, a reader not registered for it) or is behind", False)
    ok = entry.state not in DONE_BADLY and not entry.blocked
    return _describe(entry), ok


def run(args: argparse.Namespace) -> int:
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

    from ..app import keys
    from .client import TableDevices

    table_id = _validated(ShoeShuffled, {"table_id": args.table})["table_id"]
    _events(args, table_id, args.reader or "the-tables-reader")  # bad input is refused before any AWS call
    try:
        where = target(args)
        reader = args.reader
        table = where.read(keys.table_key(table_id)) if where.game_table else None
        if table is None and where.game_table:
            raise DeviceError(f"no table {table_id!r} on {where.where}: create it first (POST /tables)",
                              reason="no-table")
        if table is not None and reader is None:
            reader = str(table.get("reader_id"))
        elif table is not None and args.action in ("scan", "fail", "cut") and reader != table.get("reader_id"):
            print(f"croupier device: warning: table {table_id}'s registered reader is {table.get('reader_id')!r}, "
                  f"not {reader!r}: the dealing function will refuse these events", file=sys.stderr)
        if reader is None:
            raise DeviceError("give --reader ID (the reader registered for the table)", reason="no-reader")
        sends = _events(args, table_id, reader)
        devices = TableDevices(where.bus, table_id, reader, next_seq=_next_seq(args, where, table_id, reader))
        wait = args.wait if where.game_table else 0.0
        ok = True
        for i, (label, send) in enumerate(sends):
            once = send(devices)
            if wait <= 0:
                print(f"sent {label} to {where.where} (table {table_id})")
                if i + 1 < len(sends):
                    time.sleep(PACE)
                continue
            line, good = fate(where, table_id, once, wait)
            print(line)
            ok = ok and good
        return 0 if ok else 1
    except NoRegionError:
        raise DeviceError("no AWS region: give --region, or set AWS_REGION", reason="no-region") from None
    except NoCredentialsError:
        raise DeviceError("no AWS credentials for the bus (the device's IAM principal's, or yours)",
                          reason="no-credentials") from None
    except (BotoCoreError, ClientError) as exc:
        raise DeviceError(f"the bus did not take the event: {exc}", reason="aws") from None


def _next_seq(args: argparse.Namespace, where: Target, table_id: str, reader: str) -> int | None:
    """The number the reader gives its next event: ``--seq``, or one past the last the table has of
    it (placed in the log, or waiting there for an earlier one). None for the console's events."""
    if args.action not in ("scan", "fail", "cut"):
        return None
    if getattr(args, "seq", None) is not None:
        return int(args.seq)
    from boto3.dynamodb.conditions import Key

    from ..app import keys
    head = where.read(keys.log_head_key(table_id)) if where.game_table else None
    if where.game_table is None:
        raise DeviceError("give --seq N: the reader's number for its next event (the table cannot be read here)",
                          reason="no-seq")
    last = int(((head or {}).get("seqs") or {}).get(reader, 0))
    waiting = where.table().query(KeyConditionExpression=Key("pk").eq(keys.waiting_pk(table_id))
                                  & Key("sk").begins_with(f"{reader}#"), ConsistentRead=True).get("Items", [])
    return max([last, *(int(str(item["sk"]).rsplit("#", 1)[1]) for item in waiting)]) + 1


def _events(args: argparse.Namespace, table_id: str, reader: str) -> list[tuple[str, Callable[[Any], str]]]:
    """The events the command sends, each validated by the dealing function's own model."""
    return device_events(args.action, table_id, reader, cards=getattr(args, "cards", None) or (),
                         reason=getattr(args, "reason", None) or "unreadable", shoe=getattr(args, "shoe", None))


def device_events(action: str, table_id: str, reader: str, *, cards: Sequence[str] = (), reason: str = "unreadable",
                  shoe: str | None = None) -> list[tuple[str, Callable[[Any], str]]]:
    """The events of one device action (``scan``, ``fail``, ``cut``, ``shuffle``, ``burn``), each
    validated by the dealing function's own model (a :class:`DeviceError` says what is wrong):
    ``(label, send)`` pairs, ``send(TableDevices)`` putting the event on the bus and returning the
    key its device-log entry is recorded under (see :func:`fate`). Used by ``croupier device`` and
    the local page server's test scans."""
    sends: list[tuple[str, Callable[[Any], str]]] = []
    if action == "scan":
        for card in cards:
            detail = _validated(CardScanned, {"table_id": table_id, "reader_id": reader, "scan_id": _scan_id(),
                                              "card": card, "seq": 1})
            sends.append((f"card-scanned {card}", _reader("card-scanned", detail)))
    elif action == "fail":
        detail = _validated(ScanFailed, {"table_id": table_id, "reader_id": reader, "scan_id": _scan_id(),
                                         "reason": reason, "seq": 1})
        sends.append(("scan-failed", _reader("scan-failed", detail)))
    elif action == "cut":
        detail = _validated(CutCard, {"table_id": table_id, "reader_id": reader, "scan_id": _scan_id(), "seq": 1})
        sends.append(("cut-card", _reader("cut-card", detail)))
    elif action == "shuffle":
        detail = _validated(ShoeShuffled, {"table_id": table_id, "shoe_id": shoe})
        sends.append(("shoe-shuffled", _console("shoe-shuffled", detail)))
    else:
        sends.append(("burn-done", _console("burn-done", _validated(BurnDone, {"table_id": table_id}))))
    return sends


def _scan_id() -> str:
    return uuid.uuid4().hex[:16]


def _reader(kind: str, detail: dict[str, Any]) -> Callable[[Any], str]:
    """``detail`` was validated with a placeholder ``seq``: the reader numbers the event as it sends it."""
    def send(devices: Any) -> str:
        devices.send(READER, kind, {k: v for k, v in detail.items() if k not in ("table_id", "seq")})
        return str(detail["scan_id"])

    return send


def _console(kind: str, detail: dict[str, Any]) -> Callable[[Any], str]:
    def send(devices: Any) -> str:
        devices.send(CONSOLE, kind, {k: v for k, v in detail.items() if k != "table_id"})
        return f"event:{devices.last_event_id}"

    return send
