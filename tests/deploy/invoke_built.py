"""Run the built functions as Lambda runs them, from ``sam build``'s artifacts alone.

Run by the Lambda runtime's Python (3.12) in isolated mode without site-packages (``-I -S``): the
only code it can import is the standard library, the built layer's ``python/`` (Lambda's
``/opt/python``) and each built function's own folder (Lambda's ``/var/task``). Standard library
only until those are on ``sys.path``. Reads a plan (JSON: the layer, the functions, the steps),
invokes each step's function on its event, and writes one outcome per step (JSON).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
import traceback
import uuid
from typing import Any


class Context:
    """What a handler reads from the Lambda context (Powertools included)."""

    def __init__(self, name: str) -> None:
        self.function_name = name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 512
        self.aws_request_id = str(uuid.uuid4())
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self._deadline = time.monotonic() + 30

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def load(name: str, folder: str, handler: str) -> tuple[Any, dict[str, Any]]:
    module_name, attribute = handler.rsplit(".", 1)
    started = time.monotonic()
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(f"built_{name}", os.path.join(folder, f"{module_name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    loaded = {"import_seconds": round(time.monotonic() - started, 3),
              "modules": {m: getattr(sys.modules.get(m), "__file__", None)
                          for m in ("croupier", "pydantic_core", "aws_lambda_powertools", "boto3", "tenacity",
                                    "aws_xray_sdk.core", "pydantic_settings")}}
    return getattr(module, attribute), loaded


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        plan = json.load(handle)
    sys.path.insert(0, plan["layer"])
    outcomes: list[dict[str, Any]] = []
    handlers: dict[str, Any] = {}
    values = {"round_id": None}
    found = {m: importlib.util.find_spec(m) is not None for m in ("moto", "flask", "yaml", "croupier.local")}
    for function, path in plan["steps"]:
        spec = plan["functions"][function]
        os.environ.update(spec["env"])
        outcome: dict[str, Any] = {"function": function, "event": os.path.basename(path)}
        try:
            if function not in handlers:
                handlers[function], outcome["loaded"] = load(function, spec["dir"], spec["handler"])
            with open(path, encoding="utf-8") as handle:
                text = handle.read().replace("{{idempotency_key}}", str(uuid.uuid4()))
                text = text.replace("{{now}}", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            if values["round_id"]:
                text = text.replace("{{round_id}}", values["round_id"])
            result = handlers[function](json.loads(text), Context(spec["name"]))
            outcome.update(kind="answer", result=result)
            if isinstance(result, dict) and isinstance(result.get("body"), str) and result["body"].startswith("{"):
                body = json.loads(result["body"])
                outcome["body"] = body
                if os.path.basename(path) == "tables-start-round.json" and body.get("round_id"):
                    values["round_id"] = body["round_id"]
        except Exception as exc:  # what the function raised is the outcome under test
            outcome.update(kind="raised", type=type(exc).__name__, mro=[c.__name__ for c in type(exc).__mro__],
                           message=str(exc), traceback=traceback.format_exc(limit=4))
        outcomes.append(outcome)
    report = {"python": list(sys.version_info[:3]), "path": sys.path, "importable": found,
              "round_id": values["round_id"], "outcomes": outcomes}
    with open(plan["out"], "w", encoding="utf-8") as handle:
        json.dump(report, handle, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
