"""The workflow's tasks (round function) and the settlement tasks, as pydantic-parsed events."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from . import dealing, settlement, steps


class RoundTask(BaseModel):
    model_config = ConfigDict(extra="ignore")
    op: Literal["register-countdown", "close-betting", "advance", "register-wait", "decision-timeout",
                "close-window", "card-overdue", "auto-void", "fault"]
    round_id: str = Field(min_length=1, max_length=96)
    version: int | None = None
    key: str | None = None
    seq: int | None = Field(default=None, ge=0)
    """The occurrence of ``key`` a timer belongs to (the round's event count when it started)."""
    token: str | None = None
    error: Any = None


class SettlementTask(BaseModel):
    model_config = ConfigDict(extra="ignore")
    op: Literal["settle-shard", "refund-shard", "finish-settlement", "finish-void"]
    round_id: str = Field(min_length=1, max_length=96)
    shards: list[int] | None = Field(default=None, max_length=256)
    """The shards this task settles or refunds (a group of :func:`croupier.app.settlement.shard_groups`)."""
    shard: int | None = Field(default=None, ge=0, le=255)
    """One shard: what an execution started before shards were grouped still sends."""

    @model_validator(mode="after")
    def _shards_given(self) -> SettlementTask:
        if self.op in ("settle-shard", "refund-shard"):
            if (self.shards is None) == (self.shard is None):
                raise ValueError(f"{self.op} takes either shards (a list) or shard (one), not both or neither")
            if self.shards is not None and any(not 0 <= s <= 255 for s in self.shards):
                raise ValueError("a shard is a number from 0 to 255")
        return self

    def shard_list(self) -> list[int]:
        return list(self.shards) if self.shards is not None else [int(self.shard or 0)]


def run_round_task(task: RoundTask) -> dict[str, Any]:
    if task.op == "register-countdown":
        return steps.register_countdown(task.round_id, str(task.token))
    if task.op == "close-betting":
        return steps.close_betting(task.round_id)
    if task.op == "advance":
        return steps.advance(task.round_id)
    if task.op == "register-wait":
        return steps.register_wait(task.round_id, int(task.version or 0), str(task.token))
    if task.op == "decision-timeout":
        return steps.decision_timeout(task.round_id, str(task.key), task.seq)
    if task.op == "close-window":
        return steps.close_window(task.round_id, str(task.key), task.seq)
    if task.op == "card-overdue":
        return steps.card_overdue(task.round_id, str(task.key), task.seq)
    if task.op == "auto-void":
        return steps.auto_void(task.round_id, str(task.key))
    return steps.fault(task.round_id, task.error)


def run_settlement_task(task: SettlementTask) -> dict[str, Any]:
    if task.op == "settle-shard":
        return settlement.settle_shards(task.round_id, task.shard_list())
    if task.op == "refund-shard":
        return settlement.refund_shards(task.round_id, task.shard_list())
    finished = (settlement.finish_settlement if task.op == "finish-settlement" else settlement.finish_void)(
        task.round_id)
    # cards scanned after the round's end are told about now (a finish run again drains again)
    dealing.drain(str(finished["table_id"]))
    return finished


def task_function(model: type[BaseModel], run: Any) -> Any:
    """The Powertools-decorated ``lambda_handler`` of a workflow task function: the event is parsed
    by ``model`` (a bad event fails the task with the validation error) and given to ``run``."""
    from aws_lambda_powertools import Logger, Metrics, Tracer
    from aws_lambda_powertools.utilities.parser import event_parser

    logger, tracer, metrics = Logger(), Tracer(), Metrics()

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    @event_parser(model=model)
    def lambda_handler(event: Any, context: Any) -> dict[str, Any]:
        logger.append_keys(round_id=event.round_id, op=event.op,
                           shards=getattr(event, "shards", None) or getattr(event, "shard", None))
        result: dict[str, Any] = run(event)
        return result

    return lambda_handler
