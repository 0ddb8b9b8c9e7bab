"""Seamless wallets under faults: the network, the operator's wallet and our own processes fail, and
the operator's ledger still ends equal to Croupier's, to the unit, with nothing lost or applied twice.

Each scenario plays Baccarat rounds in-process (``direct_on_stack``: the test decides when each step runs)
at a table whose money is in a reference operator wallet of its own (a real HTTP server with its
own ledger and fault injection), while the local stack's outbox function and sweeper run as they
do on AWS. Every scenario ends with :func:`agree`: the outbox drained, every player's balance at the
operator moved by exactly what their bets won or lost, and the audit, asking the operator about
every call, finds nothing to say.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from croupier.app import operators, reconcile, seamless, steps, store, tables
from croupier.app.audit import run_audit
from croupier.app.errors import Funds, StateConflict
from croupier.app.seamless import WalletRefused, WalletUnavailable
from croupier.local.operator_wallet import Fault, OperatorWallet
from croupier.local.stack import LocalStack
from tests.support.direct import Direct, device_event
from tests.support.faults import Crash, Plan, crash_after
from tests.support.figures import FIGURES
from tests.support.harness import TIMERS, wait_for

pytestmark = pytest.mark.reliability

OPERATOR = "rel-operator"
SECRET = "reliability-operator-secret"
TIMEOUT_MS = 2000
"""The operator's timeout: an answer held longer counts as lost. Its wallet answers over HTTP in
real time, and a loaded machine once took over 500 ms to answer a debit the test expected
answered (a fresh clone's ``make test``, 2026-12-07); the faults that hold an answer hold it
longer than this."""
HELD_MS = TIMEOUT_MS + 500
"""How long a ``timeout`` or ``latency`` fault holds a debit's answer: past the timeout."""
START = 20_000
NATURAL = ["4S", "2H", "4D", "5C"]
"""Player 4+4 = 8 (a natural) against Banker 2+5 = 7: Player wins, nobody draws."""


@pytest.fixture(scope="module")
def wallet(stack: LocalStack) -> Iterator[OperatorWallet]:
    with OperatorWallet(OPERATOR, SECRET, "THB") as running:
        operators.put(operators.Operator(id=OPERATOR, url=running.url, secret=SECRET, currency="THB",
                                         timeout_ms=TIMEOUT_MS))
        yield running


@pytest.fixture
def op(wallet: OperatorWallet) -> Iterator[OperatorWallet]:
    wallet.clear_faults()
    yield wallet
    wallet.clear_faults()


class Seamless:
    """A seamless Baccarat table and its players, driven in-process."""

    def __init__(self, direct: Direct, wallet: OperatorWallet) -> None:
        self.direct, self.wallet = direct, wallet
        self.table_id = direct.table("baccarat", name="sw")
        tables.configure_table(self.table_id, None, None, {"mode": "seamless", "operator": OPERATOR})
        self.opened: dict[str, int] = {}
        """Each player's opening balance at the operator."""

    def player(self, name: str, amount: int = START) -> str:
        player = f"{self.direct.tag}-{name}{len(self.opened) + 1}"
        self.wallet.open_account(player, amount)
        self.opened[player] = amount
        return player

    def bet(self, player: str, amount: int = 1000, kind: str = "player", key: str | None = None) -> dict[str, Any]:
        return self.direct.bet(self.table_id, player, [{"type": kind, "amount": amount}], key)

    def play_and_settle(self, round_id: str) -> None:
        self.direct.play(round_id, self.table_id, list(NATURAL))
        self.direct.run(self.direct.settlement(round_id))


def nets(round_ids: list[str]) -> dict[str, int]:
    """What each player won (+) or lost (-) in these rounds, by the bets' recorded results."""
    out: dict[str, int] = {}
    for round_id in round_ids:
        rnd = store.load_round(round_id)
        for bet in store.round_bets(round_id, rnd.shards):
            out[bet.player] = out.get(bet.player, 0) + (bet.paid or 0) - bet.taken
    return out


def outbox_drained() -> bool:
    return not [c for c in store.due_calls(store.now_ms() + 10**9) if c["operator"] == OPERATOR]


def agree(sw: Seamless, round_ids: list[str]) -> None:
    """The outbox drained, and the operator's ledger equals Croupier's record, to the unit."""
    wait_for(outbox_drained, timeout=45)
    won = nets(round_ids)
    problems = []
    lost = duplicated = 0
    for player, opened in sw.opened.items():
        want = opened + won.get(player, 0)
        have = sw.wallet.balance(player)
        if have != want:
            problems.append(f"{player}: {have} at the operator, Croupier's bets say {want}")
            lost += max(0, want - have)
            duplicated += max(0, have - want)
    FIGURES["money_lost"] += lost
    FIGURES["money_duplicated"] += duplicated
    FIGURES["bets_checked"] += sum(len(store.round_bets(r, store.load_round(r).shards)) for r in round_ids)
    assert not problems, "\n".join(problems)
    # the scenario's bets and calls, reconciled with the operator's record (the whole store is
    # audited once, at the end of the module: each audit replays every round of the session)
    reconciled = reconcile.check_rounds(round_ids, reconcile.ask_operator)
    assert not reconciled.problems and not reconciled.pending, reconciled.problems or reconciled.summary()
    assert reconciled.asked == reconciled.calls


def _scan_calls() -> list[dict[str, Any]]:
    return store.scan_all(store.wallet_table(), FilterExpression="begins_with(pk, :c)",
                          ExpressionAttributeValues={":c": "CALL#"})


def player_calls(player: str) -> list[dict[str, Any]]:
    return sorted((c for c in _scan_calls() if c.get("player") == player), key=lambda c: int(c["created_at"]))


@pytest.fixture
def sw(direct_on_stack: Direct, op: OperatorWallet) -> Seamless:
    return Seamless(direct_on_stack, op)


def test_a_bet_raised_by_a_second_request_keeps_the_debits_of_both(sw: Seamless) -> None:
    # found by the simulated world (``croupier chaos --rounds 300 --seed 2``, world 2/1): a seat bet
    # raised by a second request kept only the second debit's id, the first one's dropped from the
    # bet, so the first debit was an accepted debit that no bet held, and the audit said so
    ana = sw.player("ana")
    round_id = sw.direct.start(sw.table_id)
    sw.bet(ana, 1000, key="first")
    sw.bet(ana, 500, key="second")  # the same bet, raised
    bet, = [b for b in store.round_bets(round_id, store.load_round(round_id).shards) if b.player == ana]
    debits = [c["transaction_id"] for c in player_calls(ana) if c["call"] == "debit"]
    assert (bet.bet.amount, bet.taken) == (1500, 1500)
    assert sorted(bet.debits) == sorted(debits) and len(debits) == 2
    sw.play_and_settle(round_id)
    agree(sw, [round_id])


# --- debits that fail on the way ---------------------------------------------------------------


@pytest.mark.parametrize("fault", [
    Fault("timeout", call="debit", times=1, ms=HELD_MS),  # held, never applied
    Fault("error", call="debit", times=1),  # a 5xx, nothing applied
    Fault("lost", call="debit", times=1),  # applied, then the answer is lost
    Fault("latency", call="debit", times=1, ms=HELD_MS),  # arrives late: after its cancel
], ids=lambda f: f.kind)
def test_a_debit_without_an_answer_places_no_bet_and_is_cancelled_until_acknowledged(sw: Seamless, fault: Fault,
                                                                                   ) -> None:
    ana = sw.player("ana")
    # a countdown that outlasts the cancel's round trip, even on a loaded machine: the player's
    # second bet below must come while betting is open (the test closes betting itself)
    tables.configure_table(sw.table_id, {"timers": {**TIMERS, "countdown": 60}}, None)
    round_id = sw.direct.start(sw.table_id)
    sw.wallet.inject(fault)
    FIGURES["faults_injected"] += 1
    with pytest.raises(WalletUnavailable) as refused:
        sw.bet(ana, 1500)
    assert refused.value.status == 503 and "nothing was placed" in str(refused.value)
    assert store.player_round(round_id, ana) is None  # no bet
    wait_for(outbox_drained, timeout=30)
    time.sleep(fault.ms / 1000 + 0.2)  # a late debit reaches the wallet now: it must be refused
    debit, cancel = player_calls(ana)
    assert (debit["call"], debit["status"], cancel["call"], cancel["status"]) == ("debit", "voided", "cancel",
                                                                               "acknowledged")
    assert sw.wallet.transactions()[debit["transaction_id"]]["state"] == "cancelled"
    assert sw.wallet.balance(ana) == START
    placed = sw.bet(ana, 1500)  # the player tries again: a new debit, accepted
    assert not placed["replayed"]
    sw.play_and_settle(round_id)
    agree(sw, [round_id])


def test_a_debit_confirmed_after_betting_closed_is_not_in_the_round_and_is_cancelled(
        sw: Seamless, monkeypatch: pytest.MonkeyPatch) -> None:
    ana, ben = sw.player("ana"), sw.player("ben")
    round_id = sw.direct.start(sw.table_id)
    sw.bet(ben, 500)
    original = seamless.send

    def confirmed_as_betting_closes(operator: Any, call: str, body: dict[str, Any]) -> Any:
        outcome = original(operator, call, body)
        if call == "debit" and body["player"] == ana:
            steps.close_betting(round_id)  # the countdown ended while the wallet answered
        return outcome

    monkeypatch.setattr(seamless, "send", confirmed_as_betting_closes)
    with pytest.raises(StateConflict) as late:
        sw.bet(ana, 1000)
    monkeypatch.setattr(seamless, "send", original)
    assert late.value.reason == "betting-closed"
    assert store.player_round(round_id, ana) is None
    sw.play_and_settle(round_id)
    agree(sw, [round_id])
    debit, cancel = player_calls(ana)
    assert (debit["status"], cancel["status"]) == ("voided", "acknowledged")


def test_insufficient_funds_and_other_refusals_refuse_the_bet_and_record_the_answer(sw: Seamless) -> None:
    poor, blocked = sw.player("poor", 700), sw.player("blocked")
    sw.wallet.block(blocked)
    round_id = sw.direct.start(sw.table_id)
    with pytest.raises(Funds) as funds:
        sw.bet(poor, 1000)
    assert funds.value.reason == "insufficient-funds" and "operator" in str(funds.value)
    with pytest.raises(WalletRefused) as refused:
        sw.bet(blocked, 1000)
    assert "player-blocked" in str(refused.value)
    for player in (poor, blocked):
        (call,) = player_calls(player)
        assert call["status"] == "refused" and call["last"]["result"] == "refused"
    assert sw.bet(poor, 700)["bets"]  # what the balance covers is taken
    sw.play_and_settle(round_id)
    agree(sw, [round_id])


# --- credits and cancels through the outbox -------------------------------------------------


def test_credits_wait_out_an_operator_outage_and_are_applied_once_it_ends(sw: Seamless) -> None:
    players = [sw.player(n) for n in ("ana", "ben", "chloe")]
    round_id = sw.direct.start(sw.table_id)
    for i, player in enumerate(players):
        sw.bet(player, 1000 + 100 * i, "player" if i % 2 == 0 else "banker")
    sw.wallet.inject(Fault("down", call="credit"))
    FIGURES["faults_injected"] += 1
    sw.play_and_settle(round_id)
    assert store.load_round(round_id).status == "settled"  # while the operator answers nothing
    next_round = sw.direct.start(sw.table_id)  # the table goes on while the credits wait
    wait_for(lambda: all(int(c.get("attempts", 0)) >= 2 for c in _credits(round_id)), timeout=20)
    assert all(c["status"] == "pending" for c in _credits(round_id))
    sw.wallet.clear_faults()
    sw.play_and_settle(next_round)
    agree(sw, [round_id, next_round])
    assert all(c["status"] == "acknowledged" and int(c["attempts"]) >= 3 for c in _credits(round_id))


def _credits(round_id: str) -> list[dict[str, Any]]:
    return [c for c in store.round_calls(round_id) if c["call"] == "credit"]


@pytest.mark.parametrize("fault", [Fault("lost", call="credit", times=2), Fault("duplicate"),
                                   Fault("error", call="cancel", times=3)], ids=["lost-credit", "duplicates",
                                                                                  "failing-cancel"])
def test_lost_answers_and_duplicates_apply_each_transaction_once(sw: Seamless, fault: Fault) -> None:
    ana, ben = sw.player("ana"), sw.player("ben")
    round_id = sw.direct.start(sw.table_id)
    sw.wallet.inject(fault)
    FIGURES["faults_injected"] += 1
    if fault.call == "cancel":  # a debit gets no answer, then its cancel fails three times
        sw.wallet.inject(Fault("error", call="debit", times=1))
        with pytest.raises(WalletUnavailable):
            sw.bet(ana, 900)
    sw.bet(ana, 1000)
    sw.bet(ben, 2000, "banker")
    sw.play_and_settle(round_id)
    agree(sw, [round_id])
    applied = [e for e in sw.wallet.entries() if e["player"] in (ana, ben) and e["kind"] in ("debit", "credit")]
    ids = [e["transaction_id"] for e in applied]
    assert len(ids) == len(set(ids)), "a transaction was applied twice"
    if fault.kind == "duplicate":
        FIGURES["duplicate_deliveries"] += sw.wallet.stats()["already-processed"]


def test_the_outbox_delivered_many_times_at_once_applies_each_credit_once(sw: Seamless) -> None:
    players = [sw.player(n) for n in ("ana", "ben")]
    round_id = sw.direct.start(sw.table_id)
    for player in players:
        sw.bet(player, 1200)
    sw.wallet.inject(Fault("down", call="credit"))
    sw.play_and_settle(round_id)
    credits = [c["transaction_id"] for c in _credits(round_id)]
    sw.wallet.clear_faults()
    threads = [threading.Thread(target=seamless.deliver, args=(t,)) for t in credits for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    FIGURES["concurrent_requests"] += len(threads)
    FIGURES["duplicate_deliveries"] += len(threads) - len(credits)
    agree(sw, [round_id])


# --- our own processes dying ------------------------------------------------------------------


def test_a_bet_request_that_dies_after_the_operators_debit_is_cancelled_by_the_sweeper(
        sw: Seamless, monkeypatch: pytest.MonkeyPatch) -> None:
    ana = sw.player("ana")
    round_id = sw.direct.start(sw.table_id)
    me = threading.get_ident()
    dying = {"on": True}

    def dies_here(original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if dying["on"] and threading.get_ident() == me:
                raise Crash("the bets function died")
            return original(*args, **kwargs)
        return wrapper

    # the process dies after the operator confirmed the debit, before the bet's write: and being
    # dead, it cannot cancel the debit either
    monkeypatch.setattr(seamless, "accepted", dies_here(seamless.accepted))
    monkeypatch.setattr(seamless, "void", dies_here(seamless.void))
    FIGURES["faults_injected"] += 1
    FIGURES["crash_scenarios"] += 1
    key = uuid.uuid4().hex
    with pytest.raises(Crash):
        sw.bet(ana, 1000, key=key)
    dying["on"] = False
    (debit,) = player_calls(ana)
    assert debit["status"] == "sending" and sw.wallet.balance(ana) == START - 1000
    # the client retries with the same key: a fresh debit, and the bet placed once
    FIGURES["retries"] += 1
    placed = sw.bet(ana, 1000, key=key)
    assert len(placed["bets"]) == 1
    # the first debit is cancelled by the sweeper once its grace has passed
    wait_for(lambda: store.load_call(debit["transaction_id"])["status"] == "voided", timeout=30)
    sw.play_and_settle(round_id)
    agree(sw, [round_id])


def test_credits_written_by_a_settlement_that_died_before_queueing_them_are_swept(
        sw: Seamless, monkeypatch: pytest.MonkeyPatch) -> None:
    ana, ben = sw.player("ana"), sw.player("ben")
    round_id = sw.direct.start(sw.table_id)
    sw.bet(ana, 1000)
    sw.bet(ben, 1000, "banker")
    sw.direct.play(round_id, sw.table_id, list(NATURAL))
    crashed = crash_after(monkeypatch, seamless, "enqueue", lambda transactions, *a, **k: bool(transactions),
                          times=1, before=True)
    FIGURES["crash_scenarios"] += 1
    sw.direct.run(sw.direct.settlement(round_id))
    assert crashed
    agree(sw, [round_id])


def test_reconciliation_finds_an_operator_ledger_that_disagrees(sw: Seamless, tmp_path: Any) -> None:
    ana = sw.player("ana")
    round_id = sw.direct.start(sw.table_id)
    sw.bet(ana, 1000)
    sw.play_and_settle(round_id)
    agree(sw, [round_id])
    report_file = tmp_path / "operator.jsonl"
    sw.wallet.write_report(report_file)
    held = OperatorWallet.read_report(report_file)
    assert run_audit(operator_report=(OPERATOR, held)).ok
    (credit,) = _credits(round_id)
    held[credit["transaction_id"]] = {**held[credit["transaction_id"]], "amount": 1}  # the operator paid 1
    held["op-only-1"] = {"transaction_id": "op-only-1", "kind": "debit", "amount": 50, "state": "applied"}
    problems = run_audit(operator_report=(OPERATOR, held), looks=1).problems  # doctored: no second look needed
    assert any(credit["transaction_id"] in p and "at the operator" in p for p in problems), problems
    assert any("op-only-1" in p and "never made" in p for p in problems), problems


def test_a_card_closing_betting_while_a_debit_is_in_flight_cancels_it(sw: Seamless,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The dealer does not wait for a slow wallet: the first card closes betting, and the bet whose
    debit was still on its way is not in the round (its debit cancelled)."""
    ana, ben = sw.player("ana"), sw.player("ben")
    round_id = sw.direct.start(sw.table_id)
    sw.bet(ben, 800)
    closes_at = store.load_round(round_id).closes_at / 1000
    original = seamless.send

    def slow(operator: Any, call: str, body: dict[str, Any]) -> Any:
        outcome = original(operator, call, body)
        if call == "debit" and body["player"] == ana:
            time.sleep(max(0.0, closes_at - time.time()) + 0.05)  # the countdown ends, the first card comes
            device_event("card-scanned", {"table_id": sw.table_id, "reader_id": f"reader-{sw.table_id}",
                                          "scan_id": uuid.uuid4().hex[:16], "card": NATURAL[0]})
        return outcome

    monkeypatch.setattr(seamless, "send", slow)
    with pytest.raises(StateConflict):
        sw.bet(ana, 1000)
    monkeypatch.setattr(seamless, "send", original)
    assert store.load_round(round_id).status != "betting"
    sw.direct.play(round_id, sw.table_id, list(NATURAL[1:]))
    sw.direct.run(sw.direct.settlement(round_id))
    agree(sw, [round_id])
    assert [c["status"] for c in player_calls(ana)] == ["voided", "acknowledged"]


def test_settlement_retried_after_a_crash_writes_each_credit_once(sw: Seamless) -> None:
    players = [sw.player(n) for n in ("ana", "ben", "chloe")]
    round_id = sw.direct.start(sw.table_id)
    for player in players:
        sw.bet(player, 1000)
    sw.direct.play(round_id, sw.table_id, list(NATURAL))
    FIGURES["crash_scenarios"] += 1
    sw.direct.run(sw.direct.settlement(round_id), Plan(every=True))
    credits = _credits(round_id)
    assert len(credits) == 3 and len({c["transaction_id"] for c in credits}) == 3
    agree(sw, [round_id])


def test_bets_racing_the_close_of_betting_are_each_in_the_round_or_cancelled(sw: Seamless) -> None:
    players = [sw.player(f"p{i}") for i in range(6)]
    round_id = sw.direct.start(sw.table_id)
    sw.wallet.inject(Fault("latency", call="debit", ms=150))  # every debit is on its way as betting closes
    outcomes: dict[str, str] = {}

    def bet(player: str, after: float) -> None:
        time.sleep(after)  # players come one after the other: some debits return before the close, some after
        try:
            sw.bet(player, 1000)
            outcomes[player] = "placed"
        except StateConflict as exc:
            outcomes[player] = str(exc.reason)

    threads = [threading.Thread(target=bet, args=(p, 0.06 * i)) for i, p in enumerate(players)]
    for thread in threads:
        thread.start()
    time.sleep(0.25)
    steps.close_betting(round_id)  # the countdown ends while the debits are with the operator
    for thread in threads:
        thread.join()
    FIGURES["concurrent_requests"] += len(players) + 1
    sw.wallet.clear_faults()
    assert set(outcomes.values()) <= {"placed", "betting-closed"}, outcomes
    in_round = {b.player for b in store.round_bets(round_id, store.load_round(round_id).shards)}
    assert in_round == {p for p, o in outcomes.items() if o == "placed"}
    sw.play_and_settle(round_id)
    agree(sw, [round_id])
    for player, outcome in outcomes.items():
        states = [c["status"] for c in player_calls(player)]
        if outcome == "placed":
            assert states == ["accepted", "acknowledged"], states
        else:  # refused before its debit (betting had closed), or its debit came back too late and was cancelled
            assert states in ([], ["voided", "acknowledged"]), states


def test_the_store_audits_clean_after_the_seamless_scenarios(sw: Seamless) -> None:
    """The whole store, every operator's calls asked about, once every scenario above has run
    (and a round of its own, so that it has calls to ask about when it runs alone)."""
    round_id = sw.direct.start(sw.table_id)
    sw.bet(sw.player("ana"), 1000)
    sw.play_and_settle(round_id)
    wait_for(outbox_drained, timeout=45)
    report = run_audit(reconcile.ask_operator)
    assert report.ok, report.summary()
    assert report.seamless is not None and report.seamless.asked > 0
    FIGURES["audits"] += 1
