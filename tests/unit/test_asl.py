"""The round workflow (``statemachine/round.asl.json``, as deployed) interpreted on a virtual clock
(``croupier.sim.asl``): its paths, its timers, its retries and its catches, each at the virtual
second Step Functions would take it, and the same run twice gives the same history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from croupier.app.clock import VirtualClock
from croupier.sim.asl import Failure, TaskDoesNotExist, Unsupported, Workflows, check, fill, matches, write

ROOT = Path(__file__).resolve().parents[2]
ROUND_FN, SETTLE_FN = "round-fn", "settlement-fn"


class Round:
    """The round and settlement functions, played from a script: ``steps`` are what ``advance``
    (and the timers' tasks) answer in turn; ``fail`` makes an op raise the given errors first.
    Every call is kept with the virtual time it was made at."""

    def __init__(self, clock: VirtualClock, steps: list[dict[str, Any]], fail: dict[str, list[str]] | None = None,
                 ) -> None:
        self.clock, self.steps, self.fail = clock, list(steps), {k: list(v) for k, v in (fail or {}).items()}
        self.calls: list[tuple[float, str, str]] = []
        self.tokens: list[str] = []
        self.workflows: Workflows | None = None
        self.resume_at_once = False

    def __call__(self, function: str, payload: dict[str, Any]) -> Any:
        op = payload["op"]
        self.calls.append((self.clock.monotonic(), function, op))
        if self.fail.get(op):
            raise Failure(self.fail[op].pop(0), f"{op} failed")
        if op in ("register-countdown", "register-wait"):
            self.tokens.append(payload["token"])
            if self.resume_at_once and self.workflows is not None:  # the round moved on: it wakes itself
                self.workflows.send_task_success(payload["token"], "{}")
            return {"registered": True}
        if op in ("settle-shard", "refund-shard"):
            return {"done": len(payload["shards"])}
        if op in ("finish-settlement", "finish-void"):
            return {"status": "settled"}
        return self.steps.pop(0)


def workflows(clock: VirtualClock, fn: Round) -> Workflows:
    definition = (ROOT / "statemachine" / "round.asl.json").read_text(encoding="utf-8")
    flows = Workflows(definition, fn, clock, {"RoundFunctionArn": ROUND_FN, "SettlementFunctionArn": SETTLE_FN})
    fn.workflows = flows
    return flows


def ops(fn: Round) -> list[str]:
    return [op for _, _, op in fn.calls]


def test_a_baccarat_round_counted_down_dealt_and_settled_in_ten_transitions() -> None:
    # GIVEN the workflow of a round with a 15 s countdown, whose cards all come in one stretch
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "card", "version": 3, "timeout": 60, "key": "card:player", "seq": 0},
                       {"kind": "settle", "shards": [[2, 7]]}])
    flows = workflows(clock, fn)
    run = flows.start("r1", {"round_id": "r1", "countdown": 15})
    # WHEN nobody ends the countdown, and the dealing path wakes the card wait 9 s after the close
    flows.run_until(15)
    assert ops(fn) == ["register-countdown", "close-betting", "register-wait"]
    assert fn.calls[1][0] == 15  # betting closed by the countdown's own timeout, at its second
    flows.run_until(24)
    flows.send_task_success(fn.tokens[1], "{}")
    flows.run_until(24)
    # THEN the round was settled over its one group of shards and finished
    assert run.status == "SUCCEEDED", run.error
    assert ops(fn)[3:] == ["advance", "settle-shard", "finish-settlement"]
    assert run.entered == ["BettingCountdown", "CloseBetting", "Route", "AwaitCard", "Advance", "Route",
                           "SettleShards", "SettleShard", "FinishSettlement", "Done"]
    assert run.transitions == 10  # what the cost tests hold a Baccarat round to


def test_a_countdown_ended_by_a_card_closes_betting_at_once() -> None:
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "done"}])
    flows = workflows(clock, fn)
    run = flows.start("r2", {"round_id": "r2", "countdown": 15})
    flows.run_until(4)
    flows.send_task_success(fn.tokens[0], "{}")  # the first card, 4 s into the countdown
    flows.run_until(4)
    assert run.status == "SUCCEEDED" and [t for t, _, op in fn.calls if op == "close-betting"] == [4]


def test_a_wait_whose_token_is_sent_while_its_function_runs_is_over_when_it_begins() -> None:
    # a round that moved on while its workflow registered the wait wakes it with the new token
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "card", "version": 1, "timeout": 60}, {"kind": "done"}])
    flows = workflows(clock, fn)
    run = flows.start("r3", {"round_id": "r3", "countdown": 5})
    flows.run_until(5)
    assert ops(fn)[-1] == "register-wait"
    fn.resume_at_once = True
    fn.steps.insert(0, {"kind": "card", "version": 2, "timeout": 60})
    flows.send_task_success(fn.tokens[-1], "{}")
    flows.run_until(5)
    assert run.status == "SUCCEEDED" and clock.monotonic() == 5


def test_timers_of_decisions_and_windows_fire_at_their_second_and_answer_the_next_step() -> None:
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "decision", "version": 4, "timeout": 15, "key": "decision:1:0", "seq": 7},
                       {"kind": "window", "version": 5, "timeout": 8, "key": "follow:1", "seq": 8},
                       {"kind": "done"}])
    flows = workflows(clock, fn)
    run = flows.start("r4", {"round_id": "r4", "countdown": 10})
    flows.run_until(1000)
    assert run.status == "SUCCEEDED"
    assert [(t, op) for t, _, op in fn.calls] == [
        (0, "register-countdown"), (10, "close-betting"), (10, "register-wait"), (25, "decision-timeout"),
        (25, "register-wait"), (33, "close-window")]


def test_a_task_that_fails_is_retried_with_backoff_then_caught_into_the_fault_step() -> None:
    # GIVEN the close of betting failing three times, then four more (its retrier allows four retries)
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "paused", "version": 9, "timeout": 600, "key": "paused:1", "seq": 0}],
               fail={"close-betting": ["Lambda.ServiceException"] * 5})
    flows = workflows(clock, fn)
    run = flows.start("r5", {"round_id": "r5", "countdown": 5})
    flows.run_until(100)
    # THEN it was tried at 5 s, then 1, 2, 4 and 8 s later; the fifth failure went to Fault
    assert [t for t, _, op in fn.calls if op == "close-betting"] == [5, 6, 8, 12, 20]
    assert ops(fn)[-2:] == ["fault", "register-wait"]
    assert run.entered.count("CloseBetting") == 5 and run.status == "RUNNING"
    # AND a supervisor who never comes lets the pause's own timer void the round
    fn.steps += [{"kind": "void", "shards": [[0], [1]]}]
    flows.run_until(1000)
    assert ops(fn)[-4:] == ["auto-void", "refund-shard", "refund-shard", "finish-void"]
    assert run.status == "SUCCEEDED"


def test_an_unknown_step_goes_to_fault_with_its_error_and_a_failing_fault_fails_the_execution() -> None:
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "dance"}], fail={"fault": ["States.TaskFailed"] * 35})
    flows = workflows(clock, fn)
    run = flows.start("r6", {"round_id": "r6", "countdown": 1})
    flows.run_until(3000)
    assert run.status == "FAILED" and run.error is not None and run.error.error == "RoundFault"
    # 2 s, then doubling up to a minute: the round function may be out for 30 minutes (throttled, a
    # broken deploy rolled back) before a round is left to the failed executions' alarm, and a round
    # is paused within a minute of its function's return
    assert [t for t, _, op in fn.calls if op == "fault"] == [1, 3, 7, 15, 31, 63, *range(123, 1804, 60)]
    assert run.entered[-2:] == ["Fault", "Failed"]


def test_the_api_refuses_a_token_not_waiting_and_an_execution_twice() -> None:
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "done"}])
    flows = workflows(clock, fn)
    flows.start("r7", {"round_id": "r7", "countdown": 5})
    flows.run_until(0)
    token = fn.tokens[0]
    flows.send_task_success(token, "{}")
    with pytest.raises(TaskDoesNotExist):
        flows.send_task_success(token, "{}")  # answered already
    with pytest.raises(TaskDoesNotExist):
        flows.send_task_success("no-such-token", "{}")
    # a start with the name and input of the running execution is that execution (Step Functions'
    # idempotent start); another input, or the same once it ended, is refused
    assert flows.start("r7", {"round_id": "r7", "countdown": 5}) is flows.executions["r7"]
    with pytest.raises(ValueError, match="ExecutionAlreadyExists"):
        flows.start("r7", {"round_id": "r7", "countdown": 6})
    flows.run_until(10)
    assert flows.executions["r7"].status == "SUCCEEDED"
    with pytest.raises(ValueError, match="ExecutionAlreadyExists"):
        flows.start("r7", {"round_id": "r7", "countdown": 5})


def test_an_execution_times_out_after_its_machines_timeout() -> None:
    clock = VirtualClock()
    fn = Round(clock, [{"kind": "paused", "version": 1, "timeout": 10**6, "key": "p", "seq": 0}])
    flows = workflows(clock, fn)
    run = flows.start("r8", {"round_id": "r8", "countdown": 1})
    flows.run_until(172_799)
    assert run.status == "RUNNING"
    flows.run_until(172_800)
    assert run.status == "TIMED_OUT" and flows.next_timer() is None


def test_the_same_run_twice_is_the_same_history() -> None:
    def play() -> tuple[list[str], list[tuple[float, str, str]], float]:
        clock = VirtualClock()
        fn = Round(clock, [{"kind": "decision", "version": 2, "timeout": 3, "key": "d", "seq": 1},
                           {"kind": "settle", "shards": [[0], [5, 6]]}], fail={"advance": ["States.TaskFailed"]})
        flows = workflows(clock, fn)
        flows.start("a", {"round_id": "a", "countdown": 2})
        flows.start("b", {"round_id": "b", "countdown": 2})
        fn.steps = [*fn.steps, {"kind": "done"}]
        flows.run_until(500)
        return flows.executions["a"].entered + flows.executions["b"].entered, fn.calls, clock.monotonic()

    assert play() == play()


def test_paths_choices_and_what_is_not_interpreted() -> None:
    data = {"r": {"step": {"kind": "card", "n": 3, "ok": True}}, "round_id": "x"}
    assert fill({"k.$": "$.r.step.kind", "t.$": "$$.Task.Token", "fixed": [1, {"id.$": "$.round_id"}]}, data,
                {"Task": {"Token": "tok"}}) == {"k": "card", "t": "tok", "fixed": [1, {"id": "x"}]}
    assert write(data, "$.error", {"Error": "E"})["error"] == {"Error": "E"} and "error" not in data
    assert write(data, None, 1) is data and write(data, "$", 1) == 1
    assert matches({"Not": {"Variable": "$.r.step.absent", "IsPresent": True}}, data)
    assert matches({"And": [{"Variable": "$.r.step.n", "NumericEquals": 3},
                            {"Variable": "$.r.step.ok", "BooleanEquals": True}]}, data)
    assert not matches({"Variable": "$.r.step.n", "StringEquals": "3"}, data)
    with pytest.raises(Failure, match=r"States\.Runtime"):
        fill({"k.$": "$.missing"}, data, {})
    with pytest.raises(Unsupported):
        fill({"k.$": "States.Format('{}', $.x)"}, data, {})
    with pytest.raises(Unsupported):
        check({"W": {"Type": "Wait", "Seconds": 1, "End": True}})
    with pytest.raises(Unsupported):
        check({"T": {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage", "End": True}})
    with pytest.raises(Unsupported):
        check({"T": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "HeartbeatSeconds": 5,
                     "End": True}})
    # the deployed workflow uses nothing beyond what is interpreted
    check(json.loads((ROOT / "statemachine" / "round.asl.json").read_text(encoding="utf-8"))["States"])
