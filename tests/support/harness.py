"""The integration harness: a :class:`~croupier.local.studio.Studio` on the session's local stack,
quiet (what it tells goes to ``lines``), with the tests' short timers and fresh names, and what the
tests ask of the stack besides (their own screens, a table's devices, a balance, the audit); the
supervisor's console on the table bus (:class:`Alerts`)."""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable
from typing import Any

from croupier.app.audit import run_audit
from croupier.local import sdk
from croupier.local.client import Client, Screen, TableDevices, wait_until
from croupier.local.dealer import DealerShoe
from croupier.local.stack import LocalStack
from croupier.local.studio import Studio, Table

TIMERS = {"countdown": 5, "decision": 1, "follow": 1, "insurance": 1, "pause_void": 30}
START = 100_000
"""What each harness player is funded with (the studio's ``START_BALANCE``)."""
_counter = itertools.count(1)


class Harness(Studio):
    """The studio's clients and round driver, quiet, with test timers and fresh names (``n``: this
    harness's number, in its players' and tables' names)."""

    def __init__(self, stack: LocalStack) -> None:
        self.n = next(_counter)
        self.lines: list[str] = []
        super().__init__(stack, seed=100 + self.n, out=self.lines.append, timers=dict(TIMERS), prefix=f"t{self.n}-")
        self._watching: list[Screen] = []
        self.fund()

    def table(self, base: str) -> str:
        return f"{base}-{self.n}"

    def open_devices(self, table_id: str, game: str, seed: int, cut_at: int, **kwargs: Any,
                     ) -> tuple[TableDevices, DealerShoe]:
        """A table opened with a shuffled shoe, for a test that drives its devices itself."""
        opened: Table = self.open_table(table_id, game, seed, cut_at, **kwargs)
        return opened.devices, opened.shoe

    def client(self, subject: str, role: str, account_kind: str = "real") -> Client:
        return Client(self.stack.api_url, self.stack.jwt_secret, subject, role, account_kind)

    def watch(self, token: str, tables: list[str]) -> Screen:
        """A screen the test opens itself, closed with the test (as the harness's own screens)."""
        screen = Screen(self.stack.screens.url, token, tables)
        self._watching.append(screen)
        return screen

    def close(self) -> None:
        """Closes every screen of the test: a screen left open would keep receiving (a "*" one every
        later table's events) and slow every test after it."""
        self.close_screens()
        for screen in self._watching:
            screen.close()
        self._watching.clear()

    def dealt(self, devices: TableDevices, timeout: float = 30.0) -> None:
        """Wait until the dealing function has handled every event the devices sent: the card's way
        from the reader (the bus, a standard queue) is asynchronous, on AWS as here, and in no
        order, so the last event handled says nothing of the others. The dealer does not wait; a
        test that reads what the events did does."""
        for event_id in devices.event_ids:
            assert self.stack.wait_handled(event_id, timeout), f"event {event_id} not handled"

    def balance(self, name: str) -> int:
        player = self.players[name]
        return int(player.get(f"/wallets/{player.subject}")["balance"])

    def audit_ok(self) -> None:
        report = run_audit()
        assert report.ok, report.summary()


class Alerts:
    """A supervisor's console listening on the table bus: a rule for the application's own events
    (source ``croupier``) delivering to a queue that this reads, for one test (:meth:`close`
    removes both: a queue nobody reads any more would grow with every later test's events, and
    moto reads every message of a queue for each one sent to it)."""

    def __init__(self, stack: LocalStack) -> None:
        self.sqs = sdk.client("sqs")
        self.events = sdk.client("events")
        self.name = f"supervisor-console-{uuid.uuid4().hex[:8]}"
        self.url = self.sqs.create_queue(QueueName=self.name)["QueueUrl"]
        arn = self.sqs.get_queue_attributes(QueueUrl=self.url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        self.bus = stack.outputs["event_bus"]
        self.events.put_rule(Name=self.name, EventBusName=self.bus, EventPattern=json.dumps({"source": ["croupier"]}))
        self.events.put_targets(Rule=self.name, EventBusName=self.bus, Targets=[{"Id": "console", "Arn": arn}])
        self.seen: list[dict[str, Any]] = []

    def close(self) -> None:
        self.events.remove_targets(Rule=self.name, EventBusName=self.bus, Ids=["console"])
        self.events.delete_rule(Name=self.name, EventBusName=self.bus)
        self.sqs.delete_queue(QueueUrl=self.url)

    def received(self) -> list[dict[str, Any]]:
        """Every event the console has received so far (``detail-type`` and ``detail``)."""
        while True:
            page = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
            messages = page.get("Messages", [])
            if not messages:
                return self.seen
            for message in messages:
                self.seen.append(json.loads(message["Body"]))
                self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"])

    def of(self, detail_type: str, table_id: str, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The table's events of that type received so far, once there is one (a function publishes
        its alerts after it has stored what they tell: a console hears of a pause just after the
        round shows it). Empty if none comes within ``timeout``."""
        def found() -> list[dict[str, Any]]:
            return [e["detail"] for e in self.received()
                    if e["detail-type"] == detail_type and e["detail"].get("table_id") == table_id]

        try:
            return list(wait_until(found, timeout=timeout))
        except TimeoutError:
            return []


def nets(harness: Harness, player: str, round_id: str) -> dict[str, Any]:
    """A player's net result per bet of a round (``seat1``, ``banker`` ...), as the player reads it."""
    bets = harness.players[player].get(f"/rounds/{round_id}")["bets"]
    return {f"{b['type']}{b.get('seat', '')}": b["result"]["net"] for b in bets}


def wait_for(check: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05) -> Any:
    """The client's ``wait_until``, failing the test (not erroring it) when the stack is late."""
    try:
        return wait_until(check, timeout=timeout, interval=interval)
    except TimeoutError as exc:
        raise AssertionError("timed out waiting for the local stack") from exc
