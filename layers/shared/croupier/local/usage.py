"""What a round's workflow did, read back from Step Functions: the figures AWS bills it by.

Step Functions bills a Standard workflow per state transition: each state entered (a Map's
iterations each enter their own states) is one, as the execution's history records it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import boto3


def execution_history(state_machine_arn: str, name: str) -> list[dict[str, Any]]:
    """Every event of the execution called ``name`` (a round's id) of the state machine."""
    sfn = boto3.client("stepfunctions")
    arn = f"{state_machine_arn.replace(':stateMachine:', ':execution:')}:{name}"
    events: list[dict[str, Any]] = []
    for page in sfn.get_paginator("get_execution_history").paginate(executionArn=arn):
        events.extend(dict(e) for e in page["events"])
    return events


def states_entered(events: list[dict[str, Any]]) -> Counter[str]:
    """How many times each state was entered (its name: ``AwaitCard``, ``SettleShard``, ...)."""
    return Counter(e["stateEnteredEventDetails"]["name"] for e in events if e["type"].endswith("StateEntered"))


def state_transitions(state_machine_arn: str, name: str) -> int:
    """The state transitions an execution was billed (so far)."""
    return sum(states_entered(execution_history(state_machine_arn, name)).values())
