"""Amazon States Language, interpreted on a virtual clock: the states and fields the round workflow
uses (``statemachine/round.asl.json``), with Step Functions' documented semantics, so that a
simulation runs the real workflow without waiting for real seconds.

Supported: ``Task`` on ``arn:aws:states:::lambda:invoke`` and its ``.waitForTaskToken`` form
(``Parameters``, ``ResultSelector``, ``ResultPath``, ``TimeoutSeconds`` / ``TimeoutSecondsPath``,
``Retry`` with ``IntervalSeconds``, ``MaxAttempts``, ``BackoffRate``, ``MaxDelaySeconds``, and
``Catch``), ``Choice`` (``StringEquals``, ``BooleanEquals``, ``NumericEquals``, ``IsPresent``,
``Not``, ``And``, ``Or``), ``Map`` (inline: ``ItemsPath``, ``ItemSelector``, ``ItemProcessor``),
``Pass``, ``Succeed``, ``Fail``, the execution's ``TimeoutSeconds``, JSONPath of the forms ``$``,
``$.a.b`` and the context object (``$$.Task.Token``, ``$$.Map.Item.Value``, ``$$.Execution.Name``...).
Anything else is refused when the machine is loaded, never ignored.

How time passes: each execution is a generator that runs until it must wait (a retry's interval, a
callback task's token); :class:`Workflows` keeps the waits and runs whatever is ready, in a fixed
order, when :meth:`Workflows.run_until` moves the clock. A task's function is called inline; a
callback that arrives while its task's function is still running (the function resumes its own
token) is kept and delivered when the task waits. A ``Map`` runs its iterations one after the
other (one of the orders AWS may run them in; none of the workflow's iterations share anything).

Billed like Step Functions Standard: every state entered is a transition, and every retry too.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..app.clock import VirtualClock

LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
CALLBACK = LAMBDA_INVOKE + ".waitForTaskToken"
NO_TIMEOUT = 99_999_999
"""A task's timeout when its state gives none (seconds), as Step Functions documents it."""
TERMINAL = ("States.Runtime", "States.DataLimitExceeded")
"""Errors that ``States.ALL`` does not match: they end the execution."""

TASK_FIELDS = {"Type", "Comment", "Resource", "Parameters", "ResultSelector", "ResultPath", "TimeoutSeconds",
               "TimeoutSecondsPath", "Retry", "Catch", "Next", "End"}
FIELDS = {
    "Task": TASK_FIELDS,
    "Choice": {"Type", "Comment", "Choices", "Default"},
    "Map": {"Type", "Comment", "ItemsPath", "ItemSelector", "ItemProcessor", "MaxConcurrency", "ResultPath",
            "Retry", "Catch", "Next", "End"},
    "Pass": {"Type", "Comment", "Result", "ResultPath", "Parameters", "Next", "End"},
    "Succeed": {"Type", "Comment"},
    "Fail": {"Type", "Comment", "Error", "Cause"},
}
RULES = ("StringEquals", "BooleanEquals", "NumericEquals", "IsPresent")


class Unsupported(ValueError):
    """The machine uses a state, field or path this interpreter does not know."""


class Failure(Exception):
    """A state's error, as Step Functions names it (``States.Timeout``, ``States.TaskFailed``, a
    function's error type...), with its cause."""

    def __init__(self, error: str, cause: str = "") -> None:
        super().__init__(f"{error}: {cause}")
        self.error, self.cause = error, cause


class TaskDoesNotExist(Exception):
    """``SendTaskSuccess`` or ``SendTaskFailure`` with a token that is not waiting (never issued,
    used already, or timed out), as the API refuses it."""


Invoke = Callable[[str, dict[str, Any]], Any]
"""Call a function (its name or ARN, its payload) and return what it returned, or raise
:class:`Failure` (a function's error: its type and message)."""


# --- JSONPath and the data flow ------------------------------------------------------------------


def _path(path: str) -> list[str]:
    if path == "$":
        return []
    if not path.startswith("$.") or any(c in path for c in "[]*?@"):
        raise Unsupported(f"JSONPath {path!r}: only $ and $.a.b are interpreted")
    return path[2:].split(".")


def read(data: Any, path: str) -> Any:
    """The value at ``path``; :class:`Failure` ``States.Runtime`` where there is none."""
    value = data
    for part in _path(path):
        if not isinstance(value, dict) or part not in value:
            raise Failure("States.Runtime", f"the JSONPath {path!r} could not be found in the input")
        value = value[part]
    return value


def present(data: Any, path: str) -> bool:
    try:
        read(data, path)
    except Failure:
        return False
    return True


def write(data: Any, path: str | None, result: Any) -> Any:
    """``ResultPath``: the input with ``result`` placed at ``path`` (None: the input unchanged)."""
    if path is None:
        return data
    parts = _path(path)
    if not parts:
        return result
    out = copy.deepcopy(data) if isinstance(data, dict) else {}
    node = out
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise Failure("States.Runtime", f"the ResultPath {path!r} cannot be written into the input")
    node[parts[-1]] = result
    return out


def fill(template: Any, data: Any, context: dict[str, Any]) -> Any:
    """``Parameters``, ``ItemSelector``, ``ResultSelector``: each ``"key.$"`` field takes the value
    at its path (``$$.`` from the context object); the rest as written."""
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            if key.endswith(".$"):
                if not isinstance(value, str) or value.startswith("States."):
                    raise Unsupported(f"{key}: only paths are interpreted, not {value!r}")
                out[key[:-2]] = read(context, value[1:]) if value.startswith("$$") else read(data, value)
            else:
                out[key] = fill(value, data, context)
        return out
    if isinstance(template, list):
        return [fill(v, data, context) for v in template]
    return template


def matches(rule: dict[str, Any], data: Any) -> bool:
    """One rule of a ``Choice`` state."""
    if "Not" in rule:
        return not matches(rule["Not"], data)
    if "And" in rule:
        return all(matches(r, data) for r in rule["And"])
    if "Or" in rule:
        return any(matches(r, data) for r in rule["Or"])
    variable = rule["Variable"]
    if "IsPresent" in rule:
        return present(data, variable) == bool(rule["IsPresent"])
    value = read(data, variable)
    if "StringEquals" in rule:
        return isinstance(value, str) and value == rule["StringEquals"]
    if "BooleanEquals" in rule:
        return isinstance(value, bool) and value == rule["BooleanEquals"]
    if "NumericEquals" in rule:
        return isinstance(value, int | float) and not isinstance(value, bool) and value == rule["NumericEquals"]
    raise Unsupported(f"a Choice rule of none of {', '.join(RULES)}, Not, And, Or: {sorted(rule)}")


def _error_matches(names: list[str], error: str) -> bool:
    if error in names:
        return True
    if "States.ALL" in names and error not in TERMINAL:
        return True
    return "States.TaskFailed" in names and error not in TERMINAL and error != "States.Timeout"


def check(states: dict[str, Any]) -> None:
    """Refuse a machine that uses what is not interpreted (see the module's docstring)."""
    for name, state in states.items():
        kind = state.get("Type")
        if kind not in FIELDS:
            raise Unsupported(f"state {name}: type {kind!r}")
        extra = set(state) - FIELDS[kind]
        if extra:
            raise Unsupported(f"state {name}: {', '.join(sorted(extra))}")
        if kind == "Task" and state["Resource"] not in (LAMBDA_INVOKE, CALLBACK):
            raise Unsupported(f"state {name}: resource {state['Resource']}")
        if kind == "Map":
            processor = state["ItemProcessor"]
            if processor.get("ProcessorConfig", {}).get("Mode", "INLINE") != "INLINE":
                raise Unsupported(f"state {name}: a distributed Map")
            check(processor["States"])
        for retrier in state.get("Retry", []):
            if set(retrier) - {"ErrorEquals", "IntervalSeconds", "MaxAttempts", "BackoffRate", "MaxDelaySeconds"}:
                raise Unsupported(f"state {name}: retrier fields {sorted(retrier)}")


# --- waits, and the executions that make them ------------------------------------------------------


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Callback:
    token: str
    timeout: float


Outcome = tuple[str, Any]
"""What ends a wait: ``("slept", None)``, ``("success", output)``, ``("failure", Failure)``,
``("timeout", None)``."""
Run = Generator[Sleep | Callback, Outcome, Any]


@dataclass
class Execution:
    name: str
    input: dict[str, Any]
    started: float
    status: str = "RUNNING"  # SUCCEEDED, FAILED, TIMED_OUT
    output: Any = None
    error: Failure | None = None
    transitions: int = 0
    entered: list[str] = field(default_factory=list)
    """Every state entered, in order (a retry enters its state again)."""
    run: Run | None = None


@dataclass(order=True)
class _Timer:
    at: float
    seq: int
    execution: str = field(compare=False)
    kind: str = field(compare=False)
    """``sleep`` (a retry's interval), ``callback`` (a task's timeout) or ``execution`` (its own)."""
    token: str | None = field(compare=False, default=None)


class Workflows:
    """The executions of one state machine, on a virtual clock.

    ``invoke`` calls a task's function; ``substitutions`` are the machine's
    ``DefinitionSubstitutions`` (``${Name}`` in the definition)."""

    def __init__(self, definition: dict[str, Any] | str, invoke: Invoke, clock: VirtualClock,
                 substitutions: dict[str, str] | None = None) -> None:
        text = definition if isinstance(definition, str) else json.dumps(definition)
        for key, value in (substitutions or {}).items():
            text = text.replace("${" + key + "}", value)
        self.machine: dict[str, Any] = json.loads(text)
        check(self.machine["States"])
        self.invoke, self.clock = invoke, clock
        self.executions: dict[str, Execution] = {}
        self._ready: list[tuple[str, Outcome]] = []
        self._timers: list[_Timer] = []
        self._tokens: dict[str, tuple[str, Outcome | None]] = {}
        """A live token: its execution, and the outcome sent while its task was still starting."""
        self._waiting: dict[str, str] = {}
        """Execution -> the token it waits on now."""
        self._seq = itertools.count()
        self.busy = False
        """Whether an execution runs now (its generator cannot be entered again until it waits)."""

    # --- the API a function calls ---------------------------------------------------------------

    def start(self, name: str, execution_input: dict[str, Any]) -> Execution:
        """Start an execution; a start with the name and input of a running one is that one (as
        Step Functions answers it for a Standard workflow), any other start of a known name is
        refused."""
        known = self.executions.get(name)
        if known is not None:
            if known.status == "RUNNING" and known.input == execution_input:
                return known
            raise ValueError(f"ExecutionAlreadyExists: {name}")
        execution = Execution(name, copy.deepcopy(execution_input), self.clock.time())
        execution.run = self._execute(execution)
        next(execution.run)  # to its first wait: it runs when the workflows run what is ready
        self.executions[name] = execution
        self._ready.append((name, ("slept", None)))
        timeout = self.machine.get("TimeoutSeconds")
        if timeout is not None:
            self._at(self.clock.monotonic() + float(timeout), name, "execution")
        return execution

    def send_task_success(self, token: str, output: str) -> None:
        self._send(token, ("success", json.loads(output)))

    def send_task_failure(self, token: str, error: str = "", cause: str = "") -> None:
        self._send(token, ("failure", Failure(error, cause)))

    def _send(self, token: str, outcome: Outcome) -> None:
        if token not in self._tokens:
            raise TaskDoesNotExist(f"the task of token {token!r} is not waiting")
        name, early = self._tokens[token]
        if early is not None:
            raise TaskDoesNotExist(f"the task of token {token!r} has its outcome already")
        if self._waiting.get(name) == token:
            del self._tokens[token]
            del self._waiting[name]
            self._ready.append((name, outcome))
        else:  # its function is still running: the task takes it as soon as it waits
            self._tokens[token] = (name, outcome)

    # --- time ----------------------------------------------------------------------------------------

    def _at(self, at: float, execution: str, kind: str, token: str | None = None) -> None:
        self._timers.append(_Timer(at, next(self._seq), execution, kind, token))
        self._timers.sort()

    def next_timer(self) -> float | None:
        """When (on the clock's monotonic time) the next wait ends by itself, if any."""
        return self._timers[0].at if self._timers else None

    def run_ready(self) -> None:
        """Run every execution that can go on, until each waits or ends."""
        while self._ready:
            name, outcome = self._ready.pop(0)
            self._step(name, outcome)

    def run_until(self, until: float) -> None:
        """Run what is ready, then let time pass to ``until`` (monotonic seconds of the clock),
        ending the waits due on the way, each at its time."""
        self.run_ready()
        while self._timers and self._timers[0].at <= until:
            timer = self._timers.pop(0)
            if timer.at > self.clock.monotonic():
                self.clock.advance(timer.at - self.clock.monotonic())
            self._fire(timer)
            self.run_ready()
        if until > self.clock.monotonic():
            self.clock.advance(until - self.clock.monotonic())

    def _fire(self, timer: _Timer) -> None:
        execution = self.executions[timer.execution]
        if execution.status != "RUNNING":
            return
        if timer.kind == "sleep":
            self._ready.append((timer.execution, ("slept", None)))
        elif timer.kind == "execution":
            self._end(execution, "TIMED_OUT", error=Failure("States.Timeout", "the execution timed out"))
        elif timer.token is not None and self._waiting.get(timer.execution) == timer.token:
            del self._waiting[timer.execution]
            self._tokens.pop(timer.token, None)
            self._ready.append((timer.execution, ("timeout", None)))

    def _step(self, name: str, outcome: Outcome) -> None:
        execution = self.executions[name]
        if execution.status != "RUNNING" or execution.run is None:
            return
        was_busy, self.busy = self.busy, True
        try:
            wait = execution.run.send(outcome)
        except StopIteration as done:
            self._end(execution, "SUCCEEDED", output=done.value)
            return
        except Failure as failure:
            self._end(execution, "FAILED", error=failure)
            return
        finally:
            self.busy = was_busy
        if isinstance(wait, Sleep):
            self._at(self.clock.monotonic() + wait.seconds, name, "sleep")
        else:
            _, early = self._tokens[wait.token]
            if early is not None:  # sent while the task's function ran
                del self._tokens[wait.token]
                self._ready.append((name, early))
            else:
                self._waiting[name] = wait.token
                self._at(self.clock.monotonic() + wait.timeout, name, "callback", wait.token)

    def _end(self, execution: Execution, status: str, output: Any = None, error: Failure | None = None) -> None:
        execution.status, execution.output, execution.error = status, output, error
        if execution.run is not None:
            execution.run.close()
        token = self._waiting.pop(execution.name, None)
        if token is not None:
            self._tokens.pop(token, None)
        self._timers = [t for t in self._timers if t.execution != execution.name]

    # --- the states -----------------------------------------------------------------------------------

    def _execute(self, execution: Execution) -> Run:
        yield Sleep(0)  # started (see start)
        context = {"Execution": {"Id": f"execution:{execution.name}", "Name": execution.name,
                                 "Input": execution.input}}
        return (yield from self._states(self.machine, execution.input, context, execution))

    def _states(self, machine: dict[str, Any], data: Any, context: dict[str, Any], execution: Execution) -> Run:
        name = machine["StartAt"]
        while True:
            state = machine["States"][name]
            execution.transitions += 1
            execution.entered.append(name)
            kind = state["Type"]
            if kind == "Succeed":
                return data
            if kind == "Fail":
                raise Failure(state.get("Error", "States.Fail"), state.get("Cause", ""))
            if kind == "Choice":
                name = next((rule["Next"] for rule in state["Choices"] if matches(rule, data)), state.get("Default"))
                if name is None:
                    raise Failure("States.NoChoiceMatched", "no choice matched and the state has no Default")
                continue
            if kind == "Pass":
                result = (fill(state["Parameters"], data, context) if "Parameters" in state
                          else state.get("Result", data))
                data = write(data, state.get("ResultPath", "$"), result)
            else:
                try:
                    result = yield from self._with_retries(name, state, data, context, execution)
                except Failure as failure:
                    catcher = next((c for c in state.get("Catch", []) if _error_matches(c["ErrorEquals"],
                                                                                        failure.error)), None)
                    if catcher is None:
                        raise
                    data = write(data, catcher.get("ResultPath", "$"), {"Error": failure.error, "Cause": failure.cause})
                    name = catcher["Next"]
                    continue
                data = write(data, state.get("ResultPath", "$"), result)
            if state.get("End"):
                return data
            name = state["Next"]

    def _with_retries(self, name: str, state: dict[str, Any], data: Any, context: dict[str, Any],
                      execution: Execution) -> Run:
        attempts = [0] * len(state.get("Retry", []))
        while True:
            try:
                if state["Type"] == "Map":
                    return (yield from self._map(state, data, context, execution))
                return (yield from self._task(state, data, context, execution))
            except Failure as failure:
                index = next((i for i, r in enumerate(state.get("Retry", []))
                              if _error_matches(r["ErrorEquals"], failure.error)), None)
                if index is None:
                    raise
                retrier = state["Retry"][index]
                if attempts[index] >= int(retrier.get("MaxAttempts", 3)):
                    raise
                backoff = float(retrier.get("BackoffRate", 2.0)) ** attempts[index]
                delay = float(retrier.get("IntervalSeconds", 1)) * backoff
                if "MaxDelaySeconds" in retrier:
                    delay = min(delay, float(retrier["MaxDelaySeconds"]))
                attempts[index] += 1
                yield Sleep(delay)
                execution.transitions += 1  # a retry is billed as a transition
                execution.entered.append(name)

    def _task(self, state: dict[str, Any], data: Any, context: dict[str, Any], execution: Execution) -> Run:
        callback = state["Resource"] == CALLBACK
        token = f"token-{execution.name}-{next(self._seq)}" if callback else None
        task_context = {**context, "Task": {"Token": token}} if callback else context
        parameters = fill(state.get("Parameters", {}), data, task_context)
        if "TimeoutSecondsPath" in state:
            timeout = read(data, state["TimeoutSecondsPath"])
            if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
                raise Failure("States.Runtime", f"TimeoutSecondsPath gave {timeout!r}, not a positive integer")
        else:
            timeout = int(state.get("TimeoutSeconds", NO_TIMEOUT))
        if token is not None:
            self._tokens[token] = (execution.name, None)
        try:
            returned = self.invoke(str(parameters["FunctionName"]), parameters.get("Payload", {}))
        except Failure:
            if token is not None:
                self._tokens.pop(token, None)
            raise
        if token is None:
            result: Any = {"Payload": returned, "StatusCode": 200}
        else:
            kind, value = yield Callback(token, float(timeout))
            if kind == "timeout":
                raise Failure("States.Timeout", "the task's timeout passed without its token's answer")
            if kind == "failure":
                raise value
            result = value
        return fill(state["ResultSelector"], result, context) if "ResultSelector" in state else result

    def _map(self, state: dict[str, Any], data: Any, context: dict[str, Any], execution: Execution) -> Run:
        items = read(data, state.get("ItemsPath", "$"))
        if not isinstance(items, list):
            raise Failure("States.Runtime", f"the Map's items are not a list: {items!r}")
        processor = state["ItemProcessor"]
        results = []
        for index, item in enumerate(items):
            item_context = {**context, "Map": {"Item": {"Index": index, "Value": item}}}
            item_input = fill(state["ItemSelector"], data, item_context) if "ItemSelector" in state else item
            results.append((yield from self._states(processor, item_input, context, execution)))
        return results


def transitions_by_state(execution: Execution) -> Iterator[tuple[str, int]]:
    """How often each state was entered (a retry included), in the order first entered."""
    seen: dict[str, int] = {}
    for name in execution.entered:
        seen[name] = seen.get(name, 0) + 1
    yield from seen.items()
