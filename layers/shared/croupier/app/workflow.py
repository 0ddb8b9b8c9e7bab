"""Step Functions calls: start a round's execution, resume a waiting one."""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from . import aws
from .aws import boto3
from .config import settings

_clients = aws.Clients()


def _sfn() -> Any:
    return _clients.made("sfn", lambda: boto3.client("stepfunctions"))


def reset_clients() -> None:
    _clients.clear()


def start_round(round_id: str, table_id: str, countdown: int) -> str:
    """One Standard execution per round, named after the round id (a second start is refused by
    Step Functions itself: the name is unique)."""
    response = _sfn().start_execution(
        stateMachineArn=settings().round_state_machine_arn,
        name=round_id,
        input=json.dumps({"round_id": round_id, "table_id": table_id, "countdown": max(1, countdown)}),
    )
    return str(response["executionArn"])


def resume(token: str | None) -> bool:
    """Wake a workflow waiting on ``token`` so that it asks the round "what next?" again. A token
    that timed out or was used already is ignored: the workflow has moved on by itself."""
    if not token:
        return False
    try:
        _sfn().send_task_success(taskToken=token, output="{}")
    except ClientError as exc:
        if exc.response["Error"]["Code"] in ("TaskTimedOut", "InvalidToken", "TaskDoesNotExist"):
            return False
        raise
    return True
