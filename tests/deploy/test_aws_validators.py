"""What AWS's own validators say of what deploys: the round workflow (``asl-validator`` from npm and
``statelint`` from PyPI, on the definition as ``DefinitionSubstitutions`` leave it) and the
template (cfn-lint with the serverless rules). moto runs a workflow AWS would refuse, and neither
cfn-lint nor ``sam validate --lint`` reads the ASL file behind ``DefinitionUri``: these do.

Every finding of the serverless rules is fixed or listed, with its reason, in
``docs/lint-findings.yaml``; a listed finding that no longer occurs must leave the list too.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from croupier.local import template as tpl

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ASL_VALIDATOR = ROOT / "node_modules" / ".bin" / "asl-validator"
FINDINGS = ROOT / "docs" / "lint-findings.yaml"
ACCOUNT, REGION = "123456789012", "us-east-1"


def _substituted(machine: str) -> Path:
    """The state machine's definition with each ``${Name}`` replaced as CloudFormation would: a
    function's ARN for ``!GetAtt X.Arn``, a name for ``!Ref``."""
    template = tpl.load(ROOT / "template.yaml")
    props = template["Resources"][machine]["Properties"]
    text = (ROOT / props["DefinitionUri"]).read_text()
    for name, value in props.get("DefinitionSubstitutions", {}).items():
        text = text.replace("${" + name + "}", _resolved(value))
    assert "${" not in text, "a substitution the template does not give"
    return _written(machine, text)


def _resolved(value: Any) -> str:
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        target = value["Fn::GetAtt"]
        logical = target[0] if isinstance(target, list) else str(target).split(".")[0]
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{logical}"
    if isinstance(value, dict) and "Ref" in value:
        return str(value["Ref"])
    return str(value)


def _written(machine: str, text: str) -> Path:
    out = ROOT / ".pytest_cache" / f"{machine}.asl.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)
    return out


MACHINES = [logical for logical, spec in tpl.load(ROOT / "template.yaml")["Resources"].items()
            if spec["Type"] == "AWS::Serverless::StateMachine"]


@pytest.mark.parametrize("machine", MACHINES)
def test_asl_validator_accepts_the_workflow(machine: str) -> None:
    if not ASL_VALIDATOR.exists():
        pytest.fail("asl-validator is missing: `make setup` installs it (npm ci)")
    done = subprocess.run([str(ASL_VALIDATOR), "--json-path", str(_substituted(machine))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("machine", MACHINES)
def test_statelint_accepts_the_workflow(machine: str) -> None:
    done = subprocess.run([str(BIN / "statelint"), str(_substituted(machine))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_the_validators_refuse_what_aws_refuses() -> None:
    """Both validators find the fault that once reached main: two states of one name (Map
    processors included), which Step Functions refuses as DUPLICATE_STATE_NAME."""
    definition = json.loads(_substituted(MACHINES[0]).read_text())
    maps = [s for s in definition["States"].values() if s["Type"] == "Map"]
    assert maps, "the workflow's settlement runs as a Map"
    processor = maps[0]["ItemProcessor"]
    inner = next(iter(processor["States"]))
    processor["States"] = {"Route": processor["States"][inner]}  # the name of a top-level state
    processor["StartAt"] = "Route"
    bad = _written("duplicate", json.dumps(definition))
    if ASL_VALIDATOR.exists():
        assert subprocess.run([str(ASL_VALIDATOR), "--json-path", str(bad)], capture_output=True).returncode != 0
    done = subprocess.run([str(BIN / "statelint"), str(bad)], capture_output=True, text=True)
    assert done.returncode != 0 or done.stdout.strip()


def _serverless_findings() -> set[tuple[str, str]]:
    cfn_lint = shutil.which("cfn-lint", path=str(BIN)) or "cfn-lint"
    done = subprocess.run([cfn_lint, "--format", "json", "--append-rules", "cfn_lint_serverless.rules", "--",
                           str(ROOT / "template.yaml")], capture_output=True, text=True, timeout=600)
    assert done.stdout.strip().startswith("["), done.stdout + done.stderr
    found = set()
    for match in json.loads(done.stdout):
        path = match.get("Location", {}).get("Path") or []
        resource = str(path[1]) if len(path) > 1 and path[0] == "Resources" else ""
        found.add((match["Rule"]["Id"], resource))
    return found


def test_cfn_lint_with_the_serverless_rules_reports_nothing_unlisted() -> None:
    listed = yaml.safe_load(FINDINGS.read_text()) or []
    assert all(re.fullmatch(r"[EWI]S?\d{4}", str(item["rule"])) and item.get("reason") for item in listed)
    known = {(str(item["rule"]), str(item["resource"])) for item in listed}
    found = _serverless_findings()
    assert not found - known, f"new findings (fix them, or list them with a reason in {FINDINGS.name}): " \
                              f"{sorted(found - known)}"
    assert not known - found, f"listed findings that no longer occur (remove them): {sorted(known - found)}"
