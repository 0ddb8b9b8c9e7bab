"""A reference operator wallet: the other side of the seamless-wallet contract, for the local stack.

A table in the ``seamless`` wallet mode moves money by calling the operator's HTTP wallet
(:mod:`croupier.wallet_contract`). Locally there is no operator, so this module plays one: a real
HTTP server (its own port, its own threads) with a small ledger of its own, behaving as a careful
operator should and failing as real ones do. The application's wallet client talks to it exactly
as it would to an operator across the internet, which is the point: what is tested is the wire,
not a fake of the client.

What it does, call by call (every call is a signed ``POST {url}/{call}``):

- checks the signature and its freshness first (401 ``bad-signature`` / ``stale-request``), then
  the body against the call's pydantic model and the wallet's currency (400 ``invalid-request``,
  with a message naming what is wrong): a refused request changes nothing;
- ``debit`` applies a new transaction id once; the same id with the same contents is answered
  ``already-processed``, with other contents ``transaction-conflict``; a debit the balance does
  not cover is refused ``insufficient-funds`` and *not* recorded, so the same id may succeed later;
  a debit id that a cancel reached first (a tombstone) is refused ``debit-cancelled`` for ever;
- ``credit`` adds (0 closes a lost bet and is recorded too), idempotent the same way; it does not
  need to know the debits it closes;
- ``cancel`` gives a debit's amount back; a cancel of a debit never seen succeeds and leaves the
  tombstone that refuses the late debit;
- ``status`` says what the wallet holds for an id (``applied``, ``cancelled`` or ``unknown``);
- ``balance`` reads a balance.

Faults (:class:`Fault`) are injected per request, after its body is read and before it is handled:
a slow answer, an answer held until the client gave up, a 503, an answer lost after the movement
was applied, a request delivered twice, an outage. These are the cases the application's client
must survive: each leaves the ledger in a known state that the tests compare with the client's.

Other processes (the local stack's demo, a shell) reach the same wallet over an unsigned control
surface, local only: ``GET {root}/_control/ledger``, ``POST {root}/_control/faults`` and ``POST
{root}/_control/accounts``. ``python -m croupier.local.operator_wallet`` serves one until
interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import ipaddress
import json
import os
import random
import re
import signal
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .. import wallet_contract as contract
from ..rules import describe_validation_error

WALLET_PATH = "/wallet"
"""Where the calls are: ``POST {root}/wallet/{call}``, as an operator's wallet sits under a path."""
CONTROL_PATH = "/_control"
"""The unsigned control surface, beside the wallet and never under it: nothing an operator has."""
MAX_BODY = 64 * 1024
"""A wallet call is a few hundred bytes; anything much bigger is not one."""
READ_TIMEOUT = 10.0
"""Seconds a connection may stay silent before its request is complete (a stuck client must not
keep a thread for ever)."""
DEFAULT_HOLD_MS = 5000
"""How long a ``timeout`` fault holds an answer when its ``ms`` is 0: longer than any client waits."""
MAX_FAULT_MS = 600_000
MAX_AMOUNT = 10**12
"""The contract's bound on an amount; a balance set by hand stays within it too."""

FaultKind = Literal["latency", "timeout", "error", "lost", "duplicate", "down"]
FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)


REFUSAL_STATUS = contract.REFUSAL_STATUS

_ID = TypeAdapter(contract.Id)
_CURRENCY = TypeAdapter(contract.Currency)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # True is an int to Python, not to a ledger


@dataclass
class Fault:
    """One way for the wallet to misbehave, for the requests it matches.

    ``call`` limits it to one call (``None``: every call); ``times`` to the next N requests it fires
    on, after which it is dropped (``None``: until cleared); ``rate`` is the probability that it
    fires on a matching request, drawn from the wallet's seeded generator so that a run can be
    repeated. ``ms`` is the added delay of ``latency`` and how long ``timeout`` holds the answer
    (0: :data:`DEFAULT_HOLD_MS`).
    """

    kind: FaultKind
    call: str | None = None
    times: int | None = None
    rate: float = 1.0
    ms: int = 0

    def __post_init__(self) -> None:
        # Checked here rather than trusted: faults also arrive as JSON from other processes, and a
        # typo ("debits", times=0) would otherwise be a fault that silently never fires.
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"fault kind {self.kind!r} is not one of {', '.join(FAULT_KINDS)}")
        if self.call is not None and self.call not in contract.CALLS:
            raise ValueError(f"fault call {self.call!r} is not one of {', '.join(contract.CALLS)} (or null: any call)")
        if self.times is not None and (not _is_int(self.times) or self.times < 1):
            raise ValueError(f"fault times {self.times!r} is not a whole number of at least 1 (or null: until cleared)")
        if isinstance(self.rate, bool) or not isinstance(self.rate, int | float) or not 0 <= self.rate <= 1:
            raise ValueError(f"fault rate {self.rate!r} is not a probability between 0 and 1")
        if not _is_int(self.ms) or not 0 <= self.ms <= MAX_FAULT_MS:
            raise ValueError(f"fault ms {self.ms!r} is not a whole number of milliseconds from 0 to {MAX_FAULT_MS}")

    @classmethod
    def from_dict(cls, data: Any) -> Fault:
        """A fault from its JSON form (the control surface); unknown names are refused, not ignored."""
        if not isinstance(data, dict):
            raise ValueError(f"a fault is a JSON object, not {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown fault field(s): {', '.join(map(str, unknown))}")
        if "kind" not in data:
            raise ValueError("a fault needs a kind")
        return cls(**data)

    @property
    def hold_ms(self) -> int:
        return (self.ms or DEFAULT_HOLD_MS) if self.kind == "timeout" else self.ms

    def matches(self, call: str) -> bool:
        return self.call is None or self.call == call


@dataclass
class _Armed:
    """An injected fault and how many more times it may fire (``None``: no limit)."""

    fault: Fault
    left: int | None


Answer = tuple[int, dict[str, Any]]


class _AccountBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    player: contract.Id
    balance: int | None = Field(default=None, ge=0, le=MAX_AMOUNT, strict=True)
    blocked: bool | None = Field(default=None, strict=True)


class OperatorWallet:
    """An operator's seamless wallet on a local port, with its own ledger and fault injection.

    ``opening_balance``: a player the wallet does not know gets an account with this balance on
    first use; ``None``: an unknown player is refused ``unknown-player``. ``seed`` seeds the
    generator of the faults' ``rate``. ``port`` 0 takes a free port; the port found is kept, so a
    wallet stopped and started again (an operator's restart) comes back at the same URL with its
    ledger intact. ``clock`` gives the wallet's time in Unix ms (a simulation's virtual one): what
    a signature's freshness is judged by and the ledger's entries are stamped with.
    """

    def __init__(self, operator: str, secret: str, currency: str = "THB", *, opening_balance: int | None = None,
                 seed: int = 0, host: str = "127.0.0.1", port: int = 0,
                 clock: Callable[[], int] = _now_ms) -> None:
        _ID.validate_python(operator)
        if not isinstance(secret, str) or not secret:
            raise ValueError("the signing secret cannot be empty")
        _CURRENCY.validate_python(currency)
        if opening_balance is not None and (not _is_int(opening_balance) or not 0 <= opening_balance <= MAX_AMOUNT):
            raise ValueError(f"opening balance {opening_balance!r} is not a whole amount from 0 to {MAX_AMOUNT}")
        if not _is_int(port) or not 0 <= port <= 65535:
            raise ValueError(f"port {port!r} is not from 0 to 65535")
        self.operator, self.secret, self.currency = operator, secret, currency
        self.opening_balance = opening_balance
        self.host, self._port = host, port
        self._now_ms = clock
        # One lock for the ledger, the faults' bookkeeping and the counters: requests are served on a
        # thread each, and a debit's "is there enough?" and "take it" must be one step.
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._accounts: dict[str, int] = {}
        self._blocked: set[str] = set()
        self._transactions: dict[str, dict[str, Any]] = {}
        self._entries: list[dict[str, Any]] = []
        self._faults: list[_Armed] = []
        self._stats: Counter[str] = Counter()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> OperatorWallet:
        if self._server is not None:
            raise RuntimeError("the wallet is already running")
        server = _Server((self.host, self._port), _Handler)
        server.wallet = self
        self._port = server.server_address[1]
        self._stopping.clear()
        self._server = server
        # The serving loop looks at its shutdown flag twice a second, or as a connection wakes it (stop())
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.5},
                                        name=f"operator-wallet-{self.operator}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving. Requests being held (latency, timeout) are woken and dropped unanswered, so
        stopping never waits for a fault's delay."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        closing = threading.Thread(target=server.shutdown, daemon=True)
        closing.start()
        while closing.is_alive():  # a connection wakes the serving loop, which then sees it is shut down
            with contextlib.suppress(OSError):
                socket.create_connection((self.host, self._port), timeout=1).close()
            closing.join(0.05)
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> OperatorWallet:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root(self) -> str:
        """The server's address (the control surface is under it)."""
        if self._server is None and self._port == 0:
            raise RuntimeError("the wallet has no address before it is started")
        return f"http://{self.host}:{self._port}"

    @property
    def url(self) -> str:
        """The wallet's base URL as an operator would configure it: calls are ``POST {url}/{call}``."""
        return self.root + WALLET_PATH

    # --- accounts and faults -----------------------------------------------------------------
    def open_account(self, player: str, balance: int) -> None:
        """Open ``player``'s account with ``balance``, or set an existing account's balance to it (an
        operator's deposit or adjustment). Recorded in :meth:`entries` like any movement."""
        _ID.validate_python(player)
        if not _is_int(balance) or not 0 <= balance <= MAX_AMOUNT:
            raise ValueError(f"balance {balance!r} is not a whole amount from 0 to {MAX_AMOUNT}")
        with self._lock:
            self._set_balance(player, balance, self._now_ms())

    def block(self, player: str, blocked: bool = True) -> None:
        """Refuse (or stop refusing) ``player``'s debits with ``player-blocked``. Credits and cancels
        still go through: an operator that blocks a player still pays what it owes them."""
        _ID.validate_python(player)
        with self._lock:
            if blocked:
                self._blocked.add(player)
            else:
                self._blocked.discard(player)

    def balance(self, player: str) -> int:
        with self._lock:
            if player not in self._accounts:
                raise KeyError(f"no account for player {player!r}")
            return self._accounts[player]

    def inject(self, *faults: Fault) -> None:
        """Add faults; they apply in the order given, after those already injected."""
        for fault in faults:
            if not isinstance(fault, Fault):
                raise TypeError(f"not a Fault: {fault!r}")
        with self._lock:
            self._faults.extend(_Armed(copy.copy(f), f.times) for f in faults)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def faults(self) -> list[dict[str, Any]]:
        """The faults still armed, each with ``left``: how many more times it may fire."""
        with self._lock:
            return [{**asdict(armed.fault), "left": armed.left} for armed in self._faults]

    # --- what the wallet holds ---------------------------------------------------------------
    def transactions(self) -> dict[str, dict[str, Any]]:
        """Every transaction id the wallet holds, in the order first seen: ``kind``, ``player``,
        ``amount``, ``state`` (``applied`` or ``cancelled``), ``moved`` (what it did to the balance:
        a debit later cancelled still moved ``-amount``, its cancel moved ``+amount`` back; a
        tombstone moved nothing), ``request`` (the body as validated), ``applied_at`` (Unix ms) and,
        for a cancelled debit, ``cancelled_by`` and ``cancelled_at``. A tombstone is a debit id a
        cancel reached first: ``state`` ``cancelled``, ``tombstone`` true, no ``request``."""
        with self._lock:
            return copy.deepcopy(self._transactions)

    def entries(self) -> list[dict[str, Any]]:
        """The ledger: every movement applied, in order (``seq``, ``at``, ``kind`` (``debit``,
        ``credit``, ``cancel`` or ``account`` for an opening or adjustment), ``transaction_id``,
        ``player``, ``delta``, ``balance_before``, ``balance_after``). A 0 credit, and the cancel of a
        debit never seen, are entries of delta 0: the ledger shows they were applied."""
        with self._lock:
            return [dict(entry) for entry in self._entries]

    def stats(self) -> dict[str, int]:
        """Counters, every key present from the start: ``requests`` and ``requests.{call}`` (calls
        received, before faults), ``faults.{kind}`` (faults fired), ``refusals.{code}`` (4xx answers
        by code), ``already-processed`` (repeats and duplicates absorbed without applying)."""
        keys = ["requests", *(f"requests.{c}" for c in contract.CALLS), *(f"faults.{k}" for k in FAULT_KINDS),
                *(f"refusals.{c}" for c in contract.REFUSALS), "already-processed"]
        with self._lock:
            counted = dict(self._stats)
        return {**dict.fromkeys(keys, 0), **counted}

    def balances(self) -> dict[str, int]:
        with self._lock:
            return dict(self._accounts)

    def write_report(self, path: str | os.PathLike[str]) -> None:
        """The transactions as JSON Lines, one per line (``transaction_id`` first): the file an
        operator hands over for reconciliation. Written beside and then renamed, so a reader never
        sees half a report."""
        target = Path(path)
        temporary = target.with_name(target.name + ".part")
        with temporary.open("w", encoding="utf-8") as out:
            for tid, record in self.transactions().items():
                out.write(json.dumps({"transaction_id": tid, **record}) + "\n")
        temporary.replace(target)

    @staticmethod
    def read_report(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
        """A report of :meth:`write_report`, as :meth:`transactions` gives it."""
        out: dict[str, dict[str, Any]] = {}
        with Path(path).open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    tid = record.pop("transaction_id")
                except (ValueError, KeyError, AttributeError, TypeError) as exc:
                    raise ValueError(f"{path}:{number}: not a transaction line ({exc})") from None
                if tid in out:
                    raise ValueError(f"{path}:{number}: transaction {tid!r} appears twice")
                out[tid] = record
        return out

    # --- a request ---------------------------------------------------------------------------
    def _fire(self, call: str) -> list[Fault]:
        """The faults that fire on this request, counted, with spent ones dropped."""
        fired: list[Fault] = []
        with self._lock:
            self._stats["requests"] += 1
            self._stats[f"requests.{call}"] += 1
            for armed in list(self._faults):
                fault = armed.fault
                if not fault.matches(call):
                    continue
                # A certain fault draws nothing, so adding one does not shift the draws of the others.
                if fault.rate < 1 and self._rng.random() >= fault.rate:
                    continue
                fired.append(fault)
                self._stats[f"faults.{fault.kind}"] += 1
                if armed.left is not None:
                    armed.left -= 1
                    if armed.left <= 0:
                        self._faults.remove(armed)
        return fired

    def _hold(self, ms: int) -> bool:
        """Wait ``ms``; False if the wallet was stopped meanwhile (the request is then dropped)."""
        return not self._stopping.wait(ms / 1000)

    def answer(self, call: str, headers: dict[str, str], path: str, body: bytes) -> Answer:
        """The answer to one signed call, its effects applied: no HTTP, no faults."""
        status, answer = self._decide(call, headers, path, body)
        with self._lock:
            if status >= 400 and answer.get("error") in contract.REFUSALS:
                self._stats[f"refusals.{answer['error']}"] += 1
            if answer.get("status") == "already-processed":
                self._stats["already-processed"] += 1
        return status, answer

    def _decide(self, call: str, headers: dict[str, str], path: str, body: bytes) -> Answer:
        try:
            problem = contract.verify(self.secret, headers, path, body, self._now_ms())
        except ValueError:  # a timestamp of digits int() cannot read (a Unicode digit such as "²")
            problem = "bad-signature"
        if problem == "stale-request":
            return _refusal(problem, f"the timestamp is over {contract.SIGNATURE_WINDOW_MS} ms from the wallet's clock")
        if problem is not None:
            return _refusal(problem, "the signature does not match the request")
        operator = {k.lower(): v for k, v in headers.items()}.get(contract.HEADER_OPERATOR.lower())
        if operator != self.operator:
            # The signature does not cover this header, but a request naming another operator was
            # meant for another wallet: taking its money would be wrong even if the secret matched.
            return _refusal("bad-signature", f"{contract.HEADER_OPERATOR} is {operator!r}, not {self.operator!r}")
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            return _refusal("invalid-request", f"the body is not JSON ({exc})")
        if not isinstance(data, dict):
            return _refusal("invalid-request", f"the body is a JSON {type(data).__name__}, not an object")
        try:
            request = contract.MODELS[call].model_validate(data)
        except ValidationError as exc:
            return _refusal("invalid-request", describe_validation_error(exc))
        currency = getattr(request, "currency", None)
        if currency is not None and currency != self.currency:
            return _refusal("invalid-request", f"currency: {currency} is not this wallet's currency ({self.currency})")
        now = self._now_ms()
        with self._lock:
            if isinstance(request, contract.BalanceRequest):
                return self._balance(request, now)
            if isinstance(request, contract.DebitRequest):
                return self._debit(request, now)
            if isinstance(request, contract.CreditRequest):
                return self._credit(request, now)
            if isinstance(request, contract.CancelRequest):
                return self._cancel(request, now)
            if isinstance(request, contract.StatusRequest):
                return self._status(request)
        raise AssertionError(f"no handler for {call}")

    # --- the ledger (every method below runs under the lock) -----------------------------------
    def _set_balance(self, player: str, balance: int, now: int) -> None:
        before = self._accounts.get(player, 0)
        self._accounts[player] = balance
        self._entry(now, "account", None, player, balance - before, before)

    def _entry(self, now: int, kind: str, tid: str | None, player: str, delta: int, before: int) -> None:
        self._entries.append({"seq": len(self._entries) + 1, "at": now, "kind": kind, "transaction_id": tid,
                              "player": player, "delta": delta, "balance_before": before,
                              "balance_after": before + delta})

    def _account(self, player: str, now: int) -> int | None:
        """The player's balance, opening the account on first use if the wallet does that."""
        if player not in self._accounts:
            if self.opening_balance is None:
                return None
            self._set_balance(player, self.opening_balance, now)
        return self._accounts[player]

    def _move(self, kind: str, request: contract.DebitRequest | contract.CreditRequest | contract.CancelRequest,
              delta: int, now: int, **extra: Any) -> int:
        """Apply one movement: the balance, the ledger entry and the transaction's record."""
        player = request.player
        before = self._accounts[player]
        self._accounts[player] = before + delta
        self._entry(now, kind, request.transaction_id, player, delta, before)
        self._transactions[request.transaction_id] = {
            "kind": kind, "player": player, "amount": request.amount, "state": "applied", "moved": delta,
            "request": request.model_dump(mode="json"), "applied_at": now, **extra}
        return before + delta

    def _already(self, tid: str, player: str) -> Answer:
        return 200, {"status": "already-processed", "balance": self._accounts.get(player), "transaction_id": tid}

    def _balance(self, request: contract.BalanceRequest, now: int) -> Answer:
        balance = self._account(request.player, now)
        if balance is None:
            return _refusal("unknown-player", f"no player {request.player!r}")
        return 200, {"status": "ok", "balance": balance}

    def _debit(self, request: contract.DebitRequest, now: int) -> Answer:
        tid, player = request.transaction_id, request.player
        known = self._transactions.get(tid)
        if known is not None:
            if known["kind"] == "debit" and known["state"] == "cancelled":
                # Refused whether it was tombstoned or applied and rolled back: answering a late copy
                # "already-processed" would tell Croupier the stake stands when the money was returned.
                return _refusal("debit-cancelled", f"debit {tid} was cancelled by {known.get('cancelled_by')}")
            if known["kind"] == "debit" and known["request"] == request.model_dump(mode="json"):
                return self._already(tid, player)
            return _refusal("transaction-conflict", f"transaction {tid} was a {known['kind']} with other contents")
        balance = self._account(player, now)
        if balance is None:
            return _refusal("unknown-player", f"no player {player!r}")
        if player in self._blocked:
            return _refusal("player-blocked", f"player {player!r} may not play")
        if balance < request.amount:
            # Nothing recorded: the id is still free, and the same debit may succeed after a deposit.
            return _refusal("insufficient-funds", f"balance {balance} does not cover {request.amount}")
        after = self._move("debit", request, -request.amount, now)
        return 200, {"status": "ok", "balance": after, "transaction_id": tid}

    def _credit(self, request: contract.CreditRequest, now: int) -> Answer:
        tid, player = request.transaction_id, request.player
        known = self._transactions.get(tid)
        if known is not None:
            if known["kind"] == "credit" and known["request"] == request.model_dump(mode="json"):
                return self._already(tid, player)
            return _refusal("transaction-conflict", f"transaction {tid} was a {known['kind']} with other contents")
        if self._account(player, now) is None:
            return _refusal("unknown-player", f"no player {player!r}")
        # The debits it names are not checked: a credit may reach the wallet before a debit's answer
        # reached Croupier, and refusing it would strand a payout the player is owed.
        after = self._move("credit", request, request.amount, now)
        return 200, {"status": "ok", "balance": after, "transaction_id": tid}

    def _cancel(self, request: contract.CancelRequest, now: int) -> Answer:
        tid, target, player = request.transaction_id, request.cancels, request.player
        known = self._transactions.get(tid)
        if known is not None:
            if known["kind"] == "cancel" and known["request"] == request.model_dump(mode="json"):
                return self._already(tid, player)
            return _refusal("transaction-conflict", f"transaction {tid} was a {known['kind']} with other contents")
        if target == tid:
            return _refusal("invalid-request", "cancels: a cancel cannot cancel its own transaction id")
        if self._account(player, now) is None:
            return _refusal("unknown-player", f"no player {player!r}")
        debit = self._transactions.get(target)
        if debit is None:
            # Never seen: the debit may still be on its way. The tombstone makes it refuse when it
            # arrives, so the stake Croupier gave up on can never be taken after all.
            self._transactions[target] = {
                "kind": "debit", "player": player, "amount": request.amount, "state": "cancelled", "moved": 0,
                "request": None, "applied_at": None, "cancelled_by": tid, "cancelled_at": now, "tombstone": True}
            after = self._move("cancel", request, 0, now, cancels=target)
            return 200, {"status": "ok", "balance": after, "transaction_id": tid}
        if debit["kind"] != "debit":
            return _refusal("transaction-conflict", f"transaction {target} is a {debit['kind']}, not a debit")
        if debit["player"] != player or debit["amount"] != request.amount:
            # A cancel that does not describe the debit it names is a bug on the caller's side;
            # guessing which half is right could return money to the wrong player.
            return _refusal("transaction-conflict", f"debit {target} was {debit['amount']} from {debit['player']!r}, "
                            f"not {request.amount} from {player!r}")
        if debit["state"] == "cancelled":
            # Rolled back already, by another cancel id: nothing more to give back, and nothing recorded.
            return self._already(tid, player)
        debit.update(state="cancelled", cancelled_by=tid, cancelled_at=now)
        after = self._move("cancel", request, debit["amount"], now, cancels=target)
        return 200, {"status": "ok", "balance": after, "transaction_id": tid}

    def _status(self, request: contract.StatusRequest) -> Answer:
        tid = request.transaction_id
        known = self._transactions.get(tid)
        if known is None:
            status = contract.TransactionStatus(transaction_id=tid, state="unknown")
        else:
            status = contract.TransactionStatus(transaction_id=tid, state=known["state"], kind=known["kind"],
                                                amount=known["amount"], player=known["player"])
        return 200, status.model_dump(mode="json", exclude_none=True)

    # --- the control surface -----------------------------------------------------------------
    def _ledger(self) -> dict[str, Any]:
        return {"operator": self.operator, "currency": self.currency, "url": self.url,
                "balances": self.balances(), "transactions": self.transactions(), "entries": self.entries(),
                "stats": self.stats(), "faults": self.faults()}

    def _control(self, method: str, route: str, body: bytes) -> Answer:
        if route == f"{CONTROL_PATH}/ledger":
            if method != "GET":
                return 405, {"error": "method-not-allowed", "message": "the ledger is read with GET"}
            return 200, self._ledger()
        if route not in (f"{CONTROL_PATH}/faults", f"{CONTROL_PATH}/accounts"):
            return 404, {"error": "not-found", "message": f"no control {route}"}
        if method != "POST":
            return 405, {"error": "method-not-allowed", "message": f"{route} is changed with POST"}
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            return 400, {"error": "invalid-request", "message": f"the body is not JSON ({exc})"}
        if route.endswith("/faults"):
            if not isinstance(data, list):
                return 400, {"error": "invalid-request", "message": "faults are a JSON list ([] clears them)"}
            try:
                faults = [Fault.from_dict(item) for item in data]
            except (ValueError, TypeError) as exc:
                return 400, {"error": "invalid-request", "message": str(exc)}
            with self._lock:  # replaced in one step: no request sees half the old list and half the new
                self._faults = [_Armed(f, f.times) for f in faults]
            return 200, {"faults": self.faults()}
        try:
            account = _AccountBody.model_validate(data)
        except ValidationError as exc:
            return 400, {"error": "invalid-request", "message": describe_validation_error(exc)}
        if account.balance is None and account.blocked is None:
            return 400, {"error": "invalid-request", "message": "give a balance, blocked, or both"}
        if account.balance is not None:
            self.open_account(account.player, account.balance)
        if account.blocked is not None:
            self.block(account.player, account.blocked)
        with self._lock:
            return 200, {"player": account.player, "balance": self._accounts.get(account.player),
                         "blocked": account.player in self._blocked}


def _refusal(code: str, message: str) -> Answer:
    return REFUSAL_STATUS[code], {"error": code, "message": message}


class _Server(ThreadingHTTPServer):
    # Daemon threads, not joined on close: a request held by a fault must not keep stop() (or the
    # process) waiting; stop() wakes those holds itself.
    daemon_threads = True
    block_on_close = False
    # socketserver's default backlog is 5: a burst of a table's settlement calls would overflow it,
    # and a refused SYN costs the client a second's retransmission, not an error.
    request_queue_size = 128
    wallet: OperatorWallet


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    # One request per connection: a stopped wallet then leaves no kept-alive connection behind that
    # could still be served, and a "lost" answer is simply a connection closed with nothing written.
    protocol_version = "HTTP/1.0"
    timeout = READ_TIMEOUT
    server_version = "croupier-operator-wallet"

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the wallet's record is its ledger and counters, and a line per request would bury
        the output of the tests and the demo."""

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")

    def _route(self, method: str) -> None:
        body = self._read_body()
        if body is None:
            return
        route = urlsplit(self.path).path
        if route.startswith(CONTROL_PATH + "/"):
            if not self._is_local():
                self._send(403, {"error": "forbidden", "message": "the control surface answers local clients only"})
                return
            self._send(*self.server.wallet._control(method, route, body))
            return
        call = route[len(WALLET_PATH) + 1:] if route.startswith(WALLET_PATH + "/") else None
        if call not in contract.CALLS:
            self._send(REFUSAL_STATUS["unknown-call"], {
                "error": "unknown-call",
                "message": f"no wallet call at {route}; the calls are "
                           f"POST {WALLET_PATH}/{{{','.join(contract.CALLS)}}}"})
            return
        if method != "POST":
            self._send(405, {"error": "method-not-allowed", "message": "wallet calls are POST"})
            return
        self._call(call, body)

    def _call(self, call: str, body: bytes) -> None:
        wallet = self.server.wallet
        fired = wallet._fire(call)
        kinds = {fault.kind for fault in fired}
        delay = sum(fault.ms for fault in fired if fault.kind == "latency")
        if delay and not wallet._hold(delay):
            return self._drop()
        if "down" in kinds:
            return self._send(503, {"message": "the wallet is down (injected outage)"}, retry_after=True)
        if "error" in kinds:
            return self._send(503, {"message": "the wallet failed (injected error)"})
        if "timeout" in kinds:
            hold = max(fault.hold_ms for fault in fired if fault.kind == "timeout")
            if not wallet._hold(hold):
                return self._drop()
            return self._send(504, {"message": f"no answer within {hold} ms (injected timeout); nothing applied"})
        headers = dict(self.headers.items())
        try:
            answer = wallet.answer(call, headers, self.path, body)
            if "duplicate" in kinds:  # the network delivered it twice: the second answer is the one that comes back
                answer = wallet.answer(call, headers, self.path, body)
        except Exception as exc:  # a bug of the wallet is still an answer, and a 5xx means "unknown" to Croupier
            answer = 500, {"message": f"internal error: {type(exc).__name__}"}
        if "lost" in kinds:
            return self._drop()
        self._send(*answer)

    def _read_body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if length is None:
            return b""
        if not length.isascii() or not length.isdigit():
            self._send(400, {"error": "invalid-request", "message": f"Content-Length {length!r} is not a number"})
            return None
        if int(length) > MAX_BODY:
            self._send(413, {"error": "invalid-request", "message": f"a body over {MAX_BODY} bytes is not a call"})
            return None
        try:
            return self.rfile.read(int(length))
        except OSError:
            self._drop()
            return None

    def _is_local(self) -> bool:
        try:
            return ipaddress.ip_address(self.client_address[0]).is_loopback
        except ValueError:
            return False

    def _drop(self) -> None:
        """End the connection with nothing written: the client sees it close without an answer."""
        self.close_connection = True

    def _send(self, status: int, answer: dict[str, Any], *, retry_after: bool = False) -> None:
        payload = json.dumps(answer).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if retry_after:
                self.send_header("Retry-After", "1")
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client gave up (after a held answer, typically): nobody to tell
            self.close_connection = True


# --- python -m croupier.local.operator_wallet ----------------------------------------------------
def _checked(adapter: TypeAdapter[str], what: str) -> Any:
    def check(text: str) -> str:
        try:
            return adapter.validate_python(text)
        except ValidationError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a valid {what}") from None
    return check


def _whole(low: int, high: int, what: str) -> Any:
    def check(text: str) -> int:
        if not re.fullmatch(r"[0-9]+", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"{what} {text!r} is not a whole number from {low} to {high}")
        return int(text)
    return check


def _secret(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the signing secret cannot be empty")
    return text


def _account(text: str) -> tuple[str, int]:
    player, sep, balance = text.rpartition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not PLAYER=BALANCE")
    return _checked(_ID, "player id")(player), _whole(0, MAX_AMOUNT, "balance")(balance)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m croupier.local.operator_wallet",
        description="Serve a reference operator seamless wallet until interrupted; prints its URL.")
    parser.add_argument("--operator", required=True, type=_checked(_ID, "operator id"), help="the operator's id")
    parser.add_argument("--secret", required=True, type=_secret, help="the signing secret shared with Croupier")
    parser.add_argument("--currency", default="THB", type=_checked(_CURRENCY, "currency (three capital letters)"),
                        help="the wallet's one currency (default THB)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", default=0, type=_whole(0, 65535, "port"), help="port (default 0: a free port)")
    parser.add_argument("--opening-balance", type=_whole(0, MAX_AMOUNT, "opening balance"), default=None,
                        help="open an unknown player's account with this balance (default: refuse unknown players)")
    parser.add_argument("--account", action="append", type=_account, default=[], metavar="PLAYER=BALANCE",
                        help="open an account before serving (repeatable)")
    parser.add_argument("--seed", default=0, type=_whole(0, 2**63, "seed"), help="seed of the faults' rates")
    args = parser.parse_args(argv)
    wallet = OperatorWallet(args.operator, args.secret, args.currency, opening_balance=args.opening_balance,
                            seed=args.seed, host=args.host, port=args.port)
    for player, balance in args.account:
        wallet.open_account(player, balance)
    try:
        wallet.start()
    except OSError as exc:
        parser.error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():  # before the URL: a script may stop it at once
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # The URL alone on the first line: a script starting the wallet reads that line and nothing else.
    print(wallet.url, flush=True)
    print(f"operator {wallet.operator}, currency {wallet.currency}; ledger: GET {wallet.root}{CONTROL_PATH}/ledger; "
          "Ctrl-C to stop", file=sys.stderr, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    wallet.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
