"""``croupier invoke FUNCTION EVENT``: run one function of ``template.yaml`` in this process on an
event file (``events/``), against the running local stack (``make local``): what ``sam local
invoke`` does, without Docker.

The function's environment is the one the local stack gave it (read back from the stack's Lambda
service, as AWS would show it); the AWS calls go to the stack's endpoint with its region and dummy
credentials. The event file may hold placeholders, ``{{round_id}}`` (give ``--round ID``) and
``{{idempotency_key}}`` (a fresh key unless given), or any ``{{name}}`` given with ``--set
name=value``. The handler's answer is printed as JSON (an API answer's JSON body decoded).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import CroupierError
from ..rules import describe_validation_error

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
"""``{{name}}`` in an event file (single braces are API Gateway's own: ``/rounds/{round_id}``)."""
HELP = {"round_id": "give --round ID (the round's id: the answer of POST /tables/{table}/rounds, or "
                    "GET /tables/{table}'s current round)"}


class InvokeError(CroupierError):
    reason = "invoke"


class Values(BaseModel):
    """What the placeholders of an event file are filled with."""

    model_config = ConfigDict(extra="forbid")
    values: dict[str, str] = Field(default_factory=dict)

    @field_validator("values")
    @classmethod
    def _safe(cls, values: dict[str, str]) -> dict[str, str]:
        for name, value in values.items():
            if not re.fullmatch(r"[a-z_]{1,40}", name):
                raise ValueError(f"{name!r} is not a placeholder name (lower case letters and _)")
            if not re.fullmatch(r"[A-Za-z0-9_.:#-]{1,128}", value):
                raise ValueError(f"the value of {name} must be 1-128 letters, digits or _.:#- (got {value!r})")
        return values


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``{{name}}`` replaced by ``values[name]``; a name not given is refused,
    saying how to give it. ``idempotency_key`` is a fresh key and ``now`` this second (a bus
    event's ``time``: when its device sent it) unless given."""
    values = {"idempotency_key": str(uuid.uuid4()), "now": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              **Values(values=values).values}
    missing = sorted(placeholders(text) - set(values))
    if missing:
        raise InvokeError("; ".join(f"the event needs {{{{{name}}}}}: " + HELP.get(name, f"give --set {name}=VALUE")
                                    for name in missing), reason="missing-placeholder")
    return PLACEHOLDER.sub(lambda found: values.get(found.group(1), found.group(0)), text)


def functions(root: Path, stage: str) -> dict[str, dict[str, str]]:
    """The template's functions by short name (``bets``): logical id, physical name, code, handler."""
    from . import template as tpl

    template = tpl.load(root / "template.yaml")
    resolver = tpl.Resolver(template, {"Stage": stage}, "us-east-1", "123456789012")
    out = {}
    for logical, spec in template["Resources"].items():
        if spec["Type"] != "AWS::Serverless::Function":
            continue
        props = spec["Properties"]
        code = str(props["CodeUri"]).rstrip("/")
        out[Path(code).name] = {"logical": logical, "name": str(resolver.resolve(props["FunctionName"])),
                                "code": code, "handler": str(props["Handler"])}
    return out


def find_function(known: dict[str, dict[str, str]], wanted: str) -> dict[str, str]:
    for short, function in known.items():
        if wanted in (short, function["logical"], function["name"]):
            return function
    raise InvokeError(f"no function {wanted!r} in template.yaml: one of {', '.join(sorted(known))}",
                      reason="unknown-function")


def load_handler(root: Path, function: dict[str, str]) -> Any:
    module_name, attribute = function["handler"].rsplit(".", 1)
    path = root / function["code"] / f"{module_name}.py"
    spec = importlib.util.spec_from_file_location(f"croupier_invoked_{function['logical']}", path)
    if spec is None or spec.loader is None:
        raise InvokeError(f"cannot load {path}", reason="no-handler")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # as Lambda puts the function's folder first
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return getattr(module, attribute)


def local_state(root: Path) -> dict[str, Any]:
    """The running local stack's state file (written by ``make local``)."""
    from .serve import state_path

    path = state_path(root)
    if not path.is_file():
        raise InvokeError(f"the local stack is not running ({path.name} not found): start it with `make local` "
                          "in another terminal", reason="no-local-stack")
    state: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return state


def use_local_stack(state: dict[str, Any]) -> None:
    """Every boto3 client of this process talks to the local stack: its endpoint, its region, dummy
    credentials (never real ones: nothing leaves this machine)."""
    os.environ.update({"AWS_ENDPOINT_URL": str(state["endpoint"]), "AWS_DEFAULT_REGION": str(state["region"]),
                       "AWS_REGION": str(state["region"]), "AWS_ACCESS_KEY_ID": "local",
                       "AWS_SECRET_ACCESS_KEY": "local"})
    os.environ.pop("AWS_SESSION_TOKEN", None)
    os.environ.pop("AWS_PROFILE", None)


def _shown(result: Any) -> Any:
    if isinstance(result, dict) and isinstance(result.get("body"), str):
        try:
            return {**result, "body": json.loads(result["body"])}
        except ValueError:
            return result
    return result


def parse_sets(pairs: list[str]) -> dict[str, str]:
    values = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise InvokeError(f"--set takes NAME=VALUE, not {pair!r}", reason="bad-set")
        values[name.strip()] = value.strip()
    return values


def run(args: argparse.Namespace) -> int:
    from .stack import LambdaContext, project_root

    root = project_root()
    try:
        values = parse_sets(args.set or [])
        if args.round:
            values["round_id"] = args.round
        try:
            text = Path(args.event).read_text(encoding="utf-8")
        except OSError as exc:
            raise InvokeError(f"cannot read {args.event}: {exc.strerror}", reason="no-event") from exc
        event = json.loads(fill(text, values))
    except ValidationError as exc:
        raise InvokeError(describe_validation_error(exc), reason="bad-set") from exc
    except json.JSONDecodeError as exc:
        raise InvokeError(f"{args.event} is not JSON: {exc}", reason="bad-event") from exc
    state = local_state(root)
    function = find_function(functions(root, str(state.get("stage", "local"))), args.function)
    use_local_stack(state)
    import boto3

    config = boto3.client("lambda").get_function_configuration(FunctionName=function["name"])
    os.environ.update(config.get("Environment", {}).get("Variables", {}))
    os.environ.update({"POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true",
                       "POWERTOOLS_LOG_LEVEL": os.environ.get("CROUPIER_LOG_LEVEL", "WARNING")})
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    handler = load_handler(root, function)
    try:
        result = handler(event, LambdaContext(function["name"], timeout_ms=int(config.get("Timeout", 30)) * 1000))
    except Exception as exc:
        print(f"croupier invoke: {function['logical']} raised {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    json.dump(_shown(result), sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")
    return 0
