"""Seamless wallets: every stake, payout and refund of a seamless table moves in the operator's wallet.

A table's ``wallet`` says where its players' money is: ``internal`` (Croupier's own wallets,
:func:`croupier.app.store.move_money`) or ``seamless`` with an operator (that operator's HTTP
wallet, the contract of :mod:`croupier.wallet_contract`). Each call is recorded in the wallet
table before it is sent (``CALL#{transaction}``), with every attempt's answer, so nothing depends on
a process staying alive.

Debits (a bet's stake or Pok Deng reservation; a double, split, insurance or follow) are made while
the player waits, *before* the bet is written:

- the operator confirms: the bet and the call's ``accepted`` state are written in one transaction;
  if that transaction fails (betting closed meanwhile, the player's bets changed), the debit is
  cancelled;
- the operator refuses: nothing was taken; the bet is refused with the operator's reason
  (``insufficient-funds`` as Croupier's own wallet says it);
- no answer (timeout, 5xx, a dropped connection): the operator may or may not have applied it, so
  the bet is refused and a cancel of that transaction goes to the outbox;
- the request died between the two (a crash): the call stays ``sending``; the outbox's sweeper
  cancels it once :attr:`~croupier.app.config.Settings.wallet_debit_grace_ms` has passed.

Each attempt of a request debits under a fresh transaction id (a nonce in it), so a debit that was
cancelled is never confused with a later, accepted one; a request retried after it was accepted
is answered from the bet it made (its idempotency key), never debited again.

Credits (a payout, a push, a loss of 0, a refund) are written to the outbox *in the same
transaction as the bet's close*, under an id derived from the bet (one credit per bet, ever), and
sent by the outbox function (:func:`deliver`), retried with backoff until the operator
acknowledges it, however long that takes; settlement never waits for an operator. Cancels go the
same way. ``already-processed`` is success; a refusal other than a signature problem is final,
recorded, counted (``WalletCallsRefused``) and put on the bus (``wallet-call-refused``).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol
from urllib.parse import urlsplit

from aws_lambda_powertools import Logger
from botocore.exceptions import BotoCoreError, ClientError
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..wallet_contract import canonical, signed_headers, transaction_id
from . import alerts, aws, clock, operators, store
from .aws import boto3
from .config import settings
from .contexts import holding
from .errors import AppError, Funds
from .records import BetRecord, RoundRecord, TableRecord

logger = Logger(service="croupier")
UNBOUNDED = 10**15
"""The balance the engines are told for a seamless player: the operator's debit is the funds
check, so no action is hidden for want of a balance Croupier does not hold."""
RETRIED_REFUSALS = frozenset({"bad-signature", "stale-request", "unknown-call"})
"""Refusals of a credit or cancel that a retry may cure once someone fixes the set-up (a clock, a
secret being rotated, the wallet's URL): the money is owed, so they are retried (and counted) like
an outage."""
_clients = aws.Clients()


class WalletRefused(AppError):
    status = 409
    reason = "wallet-refused"


class WalletUnavailable(AppError):
    status = 503
    reason = "wallet-unavailable"


def reset_clients() -> None:
    _clients.clear()


def wallet_of(holder: TableRecord | RoundRecord) -> dict[str, Any]:
    """The wallet of a table, or the one a round opened with."""
    return dict(holder.wallet or {"mode": "internal"})


def operator_of(table: TableRecord | RoundRecord) -> str | None:
    """The operator whose wallet holds this table's (or round's) money, or None for Croupier's own
    wallets."""
    wallet = wallet_of(table)
    return str(wallet["operator"]) if wallet.get("mode") == "seamless" else None


# --- one call over the network -----------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    result: Literal["ok", "refused", "unknown"]
    http_status: int | None
    code: str | None
    message: str
    ms: int
    answer: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        """The attempt as stored with the call."""
        entry: dict[str, Any] = {"at": store.now_ms(), "result": self.result, "ms": self.ms, "message": self.message}
        if self.http_status is not None:
            entry["http_status"] = self.http_status
        if self.code:
            entry["code"] = self.code
        if self.answer is not None:
            entry["answer"] = {k: v for k, v in self.answer.items() if isinstance(v, str | int | bool)}
        return entry


class Transport(Protocol):
    """How a signed call reaches an operator's wallet: ``post`` sends ``body`` to ``url`` and gives
    the HTTP status and body that came back, or raises :class:`OSError` (a timeout, a refused or
    dropped connection) when none did. The machine's is :class:`HttpTransport`; a simulation gives
    its own with :func:`using_transport` (the operator's wallet in memory, its faults drawn from a
    seed)."""

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]: ...


class HttpTransport:
    """The wallet over HTTP(S). The HTTP client is imported by a seamless table's first call: every
    function imports this module, and only those calls use it (``docs/deploying.md``, *The card
    path's cold start*)."""

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout_s: float) -> tuple[int, bytes]:
        import http.client
        import urllib.error
        import urllib.request

        try:
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except (urllib.error.URLError, http.client.HTTPException) as exc:
            raise ConnectionError(str(getattr(exc, "reason", exc))) from exc


_HTTP = HttpTransport()
_transport: contextvars.ContextVar[Transport] = contextvars.ContextVar("croupier_wallet_transport", default=_HTTP)


def using_transport(transport: Transport) -> contextlib.AbstractContextManager[Transport]:
    """Send the wallet calls made inside the block, in this thread, through ``transport``."""
    return holding(_transport, transport)


def send(operator: operators.Operator, call: str, body: dict[str, Any]) -> Outcome:
    """One signed call to the operator's wallet. Never raises: what came back, or ``unknown``."""
    url = operator.url.rstrip("/") + "/" + call
    data = canonical(body)
    headers = signed_headers(operator.id, operator.secret, urlsplit(url).path, data, store.now_ms())
    started = clock.monotonic()
    try:
        status, raw = _transport.get().post(url, data, headers, operator.timeout_s)
    except OSError as exc:  # TimeoutError and ConnectionError among them
        return Outcome("unknown", None, None, f"no answer: {exc}", _ms(started))
    ms = _ms(started)
    try:
        answer = json.loads(raw or b"null")
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        answer = None
    if status == 200 and answer and answer.get("status") in ("ok", "already-processed"):
        return Outcome("ok", status, str(answer["status"]), "acknowledged", ms, answer)
    if 400 <= status < 500 and answer and isinstance(answer.get("error"), str):
        return Outcome("refused", status, answer["error"], str(answer.get("message") or answer["error"]), ms, answer)
    return Outcome("unknown", status, None, f"HTTP {status}: not an answer of the contract", ms, answer)


def _ms(started: float) -> int:
    return int((clock.monotonic() - started) * 1000)


def balance(operator_id: str, player: str) -> tuple[int, str]:
    """The player's balance in the operator's wallet, and its currency (read only: not recorded)."""
    operator = operators.load(operator_id)
    outcome = send(operator, "balance", {"player": player, "currency": operator.currency})
    alerts.count("WalletCalls")
    if outcome.result == "refused":
        raise WalletRefused(f"the operator's wallet refused the balance ({outcome.code}): {outcome.message}")
    value = (outcome.answer or {}).get("balance")
    if outcome.result != "ok" or not isinstance(value, int) or isinstance(value, bool):
        raise WalletUnavailable(f"the operator's wallet did not answer the balance ({outcome.message}): try again")
    return value, operator.currency


# --- debits: while the player waits -----------------------------------------------------------


@dataclass(frozen=True)
class Debit:
    operation: str
    """What takes the money (``bet:{bet}:stake``, ``bet:{bet}:double``...)."""
    player: str
    amount: int
    table_id: str
    round_id: str
    bet_id: str
    reason: str


def debit(operator_id: str, debits: Sequence[Debit]) -> list[str]:
    """Debit each at the operator's wallet, one after the other; the transaction ids, all
    confirmed. The caller writes :func:`accepted` with its own change, or calls :func:`void`.
    Any refusal or lost answer voids what this call may have taken and raises."""
    operator = operators.load(operator_id)
    sent: list[str] = []
    try:
        for d in debits:
            txid = transaction_id(f"{d.operation}:{uuid.uuid4().hex}")
            body = {"transaction_id": txid, "player": d.player, "amount": d.amount, "currency": operator.currency,
                    "table_id": d.table_id, "round_id": d.round_id, "bet_id": d.bet_id, "reason": d.reason}
            item = store.call_item(txid, "debit", operator_id, body, "sending",
                                   store.now_ms() + settings().wallet_debit_grace_ms)
            store.write([store.call_put(item)])
            sent.append(txid)
            outcome = send(operator, "debit", body)
            alerts.count("WalletCalls")
            if outcome.result == "refused":
                store.call_attempted(item, outcome.record(), final="refused")
                sent.remove(txid)
                if outcome.code == "insufficient-funds":  # the player's answer, not an operator's problem
                    raise Funds(f"insufficient funds in the operator's wallet for {d.reason} {d.amount} "
                                f"{operator.currency}: {outcome.message}")
                _refused(item, outcome)
                raise WalletRefused(f"the operator's wallet refused the {d.reason} ({outcome.code}): {outcome.message}")
            store.call_attempted(item, outcome.record())
            if outcome.result == "unknown":
                alerts.count("WalletCallsUnanswered")
                raise WalletUnavailable(f"the operator's wallet did not answer the {d.reason} debit "
                                        f"({outcome.message}); nothing was placed and the debit is being "
                                        f"cancelled: try again")
    except BaseException:
        void(sent)
        raise
    return sent


def accepted(transactions: Sequence[str]) -> list[dict[str, Any]]:
    """The transaction items that make confirmed debits part of the caller's change (the bet)."""
    return [store.call_settled(t, "sending", "accepted") for t in transactions]


def void(transactions: Sequence[str]) -> None:
    """Cancel debits that did not become part of a bet (each still ``sending``): their cancels go
    to the outbox, and are sent until acknowledged. One accepted meanwhile is left as it is."""
    cancels: list[tuple[str, int]] = []
    for txid in transactions:
        item = store.load_call(txid)
        if item is None or item["status"] != "sending":
            continue
        request = item["request"]
        cancel_id = transaction_id(f"cancel:{txid}")
        body = {"transaction_id": cancel_id, "cancels": txid,
                **{k: request[k] for k in ("player", "amount", "currency", "table_id", "round_id", "bet_id")}}
        try:
            store.write([store.call_settled(txid, "sending", "voided", {"cancelled_by": cancel_id}),
                         store.call_put(store.call_item(cancel_id, "cancel", item["operator"], body, "pending",
                                                        store.now_ms()))])
        except store.Conflict:
            continue  # accepted or voided by someone else meanwhile
        cancels.append((cancel_id, 0))
    enqueue(cancels)


# --- credits: through the outbox --------------------------------------------------------------


def credit_reason(kind: str, credit: int, result: dict[str, Any]) -> str:
    if kind == "refund":
        return "refund"
    if credit == 0:
        return "loss"
    return "push" if result.get("outcome") == "push" else "payout"


def credit_call(bet: BetRecord, kind: str, credit: int, result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The outbox entry of one bet's credit (payout, push, loss of 0, or refund), to write in the
    transaction that closes the bet: its transaction id and the transaction item."""
    if bet.operator is None:
        raise ValueError(f"bet {bet.bet_id} was not taken by an operator's wallet")
    txid = transaction_id(f"bet:{bet.bet_id}:{kind}")
    body = {"transaction_id": txid, "player": bet.player, "amount": credit, "currency": bet.currency,
            "table_id": bet.table_id, "round_id": bet.round_id, "bet_id": bet.bet_id,
            "reason": credit_reason(kind, credit, result), "debits": list(bet.debits)}
    return txid, store.call_put(store.call_item(txid, "credit", bet.operator, body, "pending", store.now_ms()))


class OutboxMessage(BaseModel):
    """One message of the outbox queue: the call to send (its state is in the wallet table) and the
    attempt it was queued for (its attempts made by then; none in a message queued before messages
    said so)."""
    model_config = ConfigDict(extra="forbid")
    transaction_id: Annotated[str, StringConstraints(pattern=r"^cr-[0-9a-f]{32}$")]
    attempt: Annotated[int, Field(ge=0)] | None = None


def _sqs() -> Any:
    return _clients.made("sqs", lambda: boto3.client("sqs"))


def enqueue(calls: Sequence[tuple[str, int]], delay_s: int = 0) -> None:
    """Hand calls to the outbox's queue, each as ``(transaction id, attempt)``: the attempts it had
    made when it was queued (:func:`deliver` sends it only if it has made no more since). Best effort
    after the write: a call not queued (the queue unreachable, the process gone) is found by the
    sweeper, since it is due in the wallet table."""
    url = settings().wallet_calls_queue_url
    if not url or not calls:
        return
    for start in range(0, len(calls), 10):
        batch = calls[start:start + 10]
        entries = [{"Id": str(i), "MessageBody": json.dumps({"transaction_id": t, "attempt": attempt}),
                    "DelaySeconds": min(delay_s, 900)} for i, (t, attempt) in enumerate(batch)]
        try:
            failed = _sqs().send_message_batch(QueueUrl=url, Entries=entries).get("Failed") or []
        except (BotoCoreError, ClientError) as exc:
            logger.warning("wallet calls not queued: the sweeper will send them", extra={"error": str(exc)})
            continue
        if failed:  # some of the batch refused, one by one
            logger.warning("wallet calls not queued: the sweeper will send them",
                           extra={"transaction_ids": [batch[int(f["Id"])][0] for f in failed],
                                  "codes": sorted({str(f.get("Code")) for f in failed})})


def backoff_ms(attempts: int, txid: str) -> int:
    """Wait before attempt ``attempts + 1``: doubling from the base, capped, with jitter (so a
    recovering wallet is not hit by every table at once). The jitter is drawn from the call and its
    attempt, not the machine: calls spread apart all the same, and a simulation repeats exactly."""
    s = settings()
    ceiling = min(s.wallet_retry_cap_ms, s.wallet_retry_base_ms * 2 ** max(0, attempts - 1))
    return int(ceiling * random.Random(f"{txid}:{attempts}").uniform(0.5, 1.0))


def deliver(txid: str, attempt: int | None = None) -> str:
    """Send one outbox call (a credit or a cancel) once more, or cancel a debit that died with its
    request. What became of it: ``acknowledged``, ``refused``, ``retry``, ``voided``, the state it
    was already in, or ``superseded``: the message was queued for ``attempt``, and the call has made
    that attempt since (another message of it, queued again, woken or swept, made it, and the
    call goes on with that one's: each failed attempt queues one message, so copies of a call do
    not multiply)."""
    item = store.load_call(txid)
    if item is None:
        return "missing"
    if item["status"] == "sending":
        if store.now_ms() < int(item["created_at"]) + settings().wallet_debit_grace_ms:
            return "sending"  # its request may still write its bet
        void([txid])
        return "voided"
    if item["status"] != "pending":
        return str(item["status"])
    made = int(item.get("attempts", 0))
    if attempt is not None and attempt != made:
        return "superseded"
    outcome = send(operators.load(item["operator"]), item["call"], item["request"])
    alerts.count("WalletCalls")
    try:
        if outcome.result == "ok":
            store.call_attempted(item, outcome.record(), final="acknowledged")
            if int(item.get("attempts", 0)) > 0:
                alerts.count("WalletCallsRetried")
                _wake(item["operator"], txid)
            return "acknowledged"
        if outcome.result == "refused" and outcome.code not in RETRIED_REFUSALS:
            store.call_attempted(item, outcome.record(), final="refused")
            _refused(item, outcome)
            return "refused"
        wait = backoff_ms(made + 1, txid)
        store.call_attempted(item, outcome.record(), next_at=store.now_ms() + wait)
    except store.Conflict:
        return "raced"  # a duplicate delivery recorded this attempt first, and queued the next
    alerts.count("WalletCallsUnanswered")
    enqueue([(txid, made + 1)], delay_s=max(1, wait // 1000))
    return "retry"


def _wake(operator: str, answered: str) -> None:
    """A call that had failed got through: the operator's wallet is back. Its other calls waiting
    out their backoff are sent now, not when each one's wait ends (up to the cap, 30 s). Each is
    woken once (made due now, on the condition that it still waits): the next call to get through
    finds it due already, and does not queue it again."""
    now = store.now_ms()
    waiting = [c for c in store.due_calls(now + settings().wallet_retry_cap_ms, 500)
               if c["operator"] == operator and c["status"] == "pending" and c["transaction_id"] != answered
               and int(c["next_at"]) > now]
    enqueue([_queued(c) for c in waiting if store.call_woken(c)])


def _queued(call: dict[str, Any]) -> tuple[str, int]:
    """A call as the due index shows it, to queue: its id and the attempts it has made (the index
    may lag: a message queued for fewer is superseded, and the call goes on with its own)."""
    return call["transaction_id"], int(call.get("attempts", 0))


def _refused(item: dict[str, Any], outcome: Outcome) -> None:
    alerts.count("WalletCallsRefused")
    alerts.publish("wallet-call-refused", {"transaction_id": item["transaction_id"], "call": item["call"],
                                           "operator": item["operator"], "player": item["player"],
                                           "amount": int(item["amount"]), "round_id": item["round_id"],
                                           "bet_id": item["bet_id"], "code": outcome.code,
                                           "message": outcome.message})


def sweep(limit: int = 200) -> int:
    """Queue every call overdue in the wallet table (its message lost, its process gone, a debit
    left ``sending``): the outbox survives restarts because it is the table, not the queue."""
    due = store.due_calls(store.now_ms() - settings().wallet_sweep_slack_ms, limit)
    enqueue([_queued(c) for c in due])
    return len(due)


def checked_wallet(wallet: dict[str, Any]) -> dict[str, Any]:
    """A table's wallet setting, checked: ``internal``, or ``seamless`` with a configured operator."""
    mode = wallet.get("mode")
    if mode == "internal":
        if wallet.get("operator"):
            raise AppError("an internal table has no operator: its money is in Croupier's wallets", reason="bad-wallet")
        return {"mode": "internal"}
    if mode != "seamless":
        raise AppError("wallet mode is 'internal' or 'seamless'", reason="bad-wallet")
    operator = wallet.get("operator")
    if not operator:
        raise AppError("a seamless table names its operator", reason="bad-wallet")
    operators.load(str(operator))
    return {"mode": "seamless", "operator": str(operator)}

