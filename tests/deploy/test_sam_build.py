"""``sam build`` builds what deploys, and what it builds runs.

The same recipe (template.yaml, layers/shared/Makefile, scripts/build_layer.py) is built twice:
for arm64, the architecture template.yaml deploys, whose contents are checked (every runtime
dependency, compiled for CPython 3.12 on aarch64; nothing of the local stack or of the build); and
for this machine's architecture (``LAYER_ARCH``), which the Lambda runtime's Python, 3.12, imports
from the artifacts alone (``python3.12 -I -S``: no site-packages, not the project's .venv) to run
every function on every sample event of events/ against the test session's local stack.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from croupier.local import template as tpl
from croupier.local.stack import LocalStack

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[2]
SAM = Path(sys.executable).parent / "sam"
HOST = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
ELF_MACHINES = {"arm64": 183, "x86_64": 62}
TEMPLATE = tpl.load(ROOT / "template.yaml")
FUNCTIONS = {Path(str(spec["Properties"]["CodeUri"])).name: logical
             for logical, spec in TEMPLATE["Resources"].items() if spec["Type"] == "AWS::Serverless::Function"}
HTTP = ("bets", "decisions", "tables", "wallet", "query")
STEPS = [  # every sample event, in an order that sets up what the later ones need (one table's story)
    ("tables", "tables-create"), ("wallet", "wallet-deposit"), ("tables", "tables-sit"),
    ("dealing", "dealing-shoe"), ("tables", "tables-start-round"), ("bets", "bets-place"),
    ("query", "query-round"), ("query", "query-bet-record"), ("decisions", "decisions-double"),
    ("decisions", "decisions-follow-split"), ("dealing", "dealing-scan-failed"), ("dealing", "dealing-cut-card"),
    ("round", "round-close-betting"), ("dealing", "dealing-card-scanned"), ("round", "round-advance"),
    ("round", "round-close-window"), ("round", "round-decision-timeout"), ("round", "round-register-wait"),
    ("tables", "tables-pause"), ("round", "round-fault"), ("settlement", "settlement-settle-shard"),
    ("settlement", "settlement-refund-shard"), ("settlement", "settlement-finish"),
    ("connections", "connections-connect"), ("connections", "connections-subscribe"),
    ("connections", "connections-disconnect"), ("live", "live-table-changed"), ("push", "push-deliver"),
    ("outbox", "outbox-deliver"), ("outbox", "outbox-sweep"),
]


def python312() -> str:
    found = subprocess.run([str(ROOT / "scripts" / "python312")], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        pytest.skip(f"the build test needs the Lambda runtime's Python: {found.stderr.strip()}")
    return found.stdout.strip()


def sam_build(build_dir: Path, arch: str) -> float:
    """``sam build`` as ``make build`` runs it (no Docker), into ``build_dir``, the layer for ``arch``."""
    interpreter = python312()
    env = {**os.environ, "PATH": f"{Path(interpreter).parent}{os.pathsep}{os.environ['PATH']}",
           "SAM_CLI_TELEMETRY": "0", "LAYER_ARCH": arch}
    started = time.monotonic()
    done = subprocess.run([str(SAM), "build", "--build-dir", str(build_dir)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Build Succeeded" in done.stdout + done.stderr
    assert "requirements.txt file not found" not in done.stdout + done.stderr
    return time.monotonic() - started


@pytest.fixture(scope="module")
def arm64_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("sam") / "arm64"
    seconds = sam_build(build, "arm64")
    print(f"\nsam build (arm64): {seconds:.1f} s")
    return build


@pytest.fixture(scope="module")
def host_build(arm64_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if HOST is None:
        pytest.skip(f"no Lambda architecture for this machine ({platform.machine()})")
    if HOST == "arm64":
        return arm64_build
    build = tmp_path_factory.mktemp("sam") / HOST
    seconds = sam_build(build, HOST)
    print(f"\nsam build ({HOST}, to import here): {seconds:.1f} s")
    return build


def test_the_layer_recipe_builds_for_the_template_runtime_and_architecture() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_layer
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    glob = TEMPLATE["Globals"]["Function"]
    layer = TEMPLATE["Resources"]["SharedLayer"]
    assert glob["Runtime"] == f"python{build_layer.RUNTIME}"
    assert layer["Properties"]["CompatibleRuntimes"] == [glob["Runtime"]]
    assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": "arm64"}
    assert glob["Architectures"] == layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    makefile = (ROOT / "layers" / "shared" / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^LAYER_ARCH \?= arm64$", makefile, re.MULTILINE)  # what deploys unless told otherwise
    wanted = {re.split(r"[<>=\[]", r)[0] for r in build_layer.requirements()}
    assert wanted == {"pydantic", "boto3", "aws-lambda-powertools", "tenacity", "pyjwt"}


def _is_312_magic(magic: bytes) -> bool:
    """CPython 3.12's bytecode magic number (3531, the same for every 3.12 release), whichever Python runs
    the test."""
    return int.from_bytes(magic[:2], "little") == 3531 and magic[2:] == b"\r\n"


def _so_machine(path: Path) -> int:
    with open(path, "rb") as handle:
        header = handle.read(20)
    assert header[:4] == b"\x7fELF", path
    return int.from_bytes(header[18:20], "little")


def test_the_deployable_build_holds_every_dependency_and_nothing_of_the_local_stack(arm64_build: Path) -> None:
    site = arm64_build / "SharedLayer" / "python"
    names = {p.name for p in site.iterdir()}
    assert {"croupier", "pydantic", "pydantic_core", "aws_lambda_powertools", "aws_xray_sdk", "tenacity", "boto3",
            "botocore", "jwt"} <= names
    assert not names & {"moto", "flask", "flask_cors", "yaml", "werkzeug", "pytest", "samcli", "bin",
                        "pydantic_settings"}
    assert not (site / "croupier" / "local").exists()
    assert (site / "croupier" / "app" / "api.py").is_file() and (site / "croupier" / "games").is_dir()
    assert not list(site.rglob("*.egg-info"))
    # every module's bytecode, compiled by the runtime's Python, used without a look at its source
    # (Lambda's /opt is read-only: without it each cold start compiles every module), and no other
    modules = sorted(site.rglob("*.py"))
    compiled = sorted(site.rglob("*.pyc"))
    assert compiled and len(compiled) == len(modules)
    for module in modules:
        pyc = module.parent / "__pycache__" / f"{module.stem}.cpython-312.pyc"
        header = pyc.read_bytes()[:16]
        assert _is_312_magic(header[:4]), f"{pyc}: not CPython 3.12's bytecode"
        assert int.from_bytes(header[4:8], "little") == 0b01, f"{pyc}: not unchecked-hash bytecode"
    assert all(".cpython-312." in p.name for p in compiled)
    libraries = list(site.rglob("*.so"))
    assert any(p.parent.name == "pydantic_core" for p in libraries)
    for library in libraries:
        assert "cpython-312-aarch64" in library.name or ".abi3." in library.name, library
        assert _so_machine(library) == ELF_MACHINES["arm64"], library
    for short, logical in FUNCTIONS.items():
        assert sorted(p.name for p in (arm64_build / logical).iterdir()) == ["app.py", "requirements.txt"], short
    size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert size < 250 * 1024 * 1024  # Lambda's limit for a function and its layers, unzipped
    print(f"\nthe layer (arm64): {size / 1e6:.1f} MB in {sum(1 for _ in site.rglob('*'))} files")
    built = tpl.load(arm64_build / "template.yaml")
    assert built["Resources"]["SharedLayer"]["Properties"]["ContentUri"] == "SharedLayer"
    assert all(built["Resources"][logical]["Properties"]["CodeUri"] == logical for logical in FUNCTIONS.values())


def test_every_sample_event_is_a_step() -> None:
    assert sorted(f"{name}.json" for _, name in STEPS) == sorted(p.name for p in (ROOT / "events").glob("*.json"))
    assert {function for function, _ in STEPS} == set(FUNCTIONS)


def _environment(stack: LocalStack, name: str) -> dict[str, str]:
    import boto3

    variables: dict[str, str] = boto3.client("lambda").get_function_configuration(
        FunctionName=name)["Environment"]["Variables"]
    return {**variables, "AWS_ENDPOINT_URL": stack.endpoint, "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
            "POWERTOOLS_TRACE_DISABLED": "true", "POWERTOOLS_METRICS_DISABLED": "true",
            "POWERTOOLS_LOG_LEVEL": "ERROR"}


def test_every_built_function_imports_and_answers_under_the_runtimes_python(
        host_build: Path, stack: LocalStack, tmp_path: Path) -> None:
    functions = {short: {"dir": str(host_build / logical), "handler": "app.lambda_handler",
                         "name": stack.function_names[logical],
                         "env": _environment(stack, stack.function_names[logical])}
                 for short, logical in FUNCTIONS.items()}
    plan = {"layer": str(host_build / "SharedLayer" / "python"), "functions": functions, "out": str(tmp_path / "out"),
            "steps": [(function, str(ROOT / "events" / f"{name}.json")) for function, name in STEPS]}
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    started = time.monotonic()
    done = subprocess.run([python312(), "-I", "-S", str(Path(__file__).with_name("invoke_built.py")),
                           str(tmp_path / "plan.json")], env=clean, capture_output=True, text=True, timeout=300,
                          check=False)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads((tmp_path / "out").read_text(encoding="utf-8"))
    assert report["python"][:2] == [3, 12]
    assert report["importable"] == {"moto": False, "flask": False, "yaml": False, "croupier.local": False}
    assert not [p for p in report["path"] if "site-packages" in p or ".venv" in p]
    outcomes = report["outcomes"]
    for outcome in outcomes:
        assert outcome["kind"] == "answer" or "CroupierError" in outcome["mro"], outcome  # a domain refusal at most
        if "loaded" in outcome:  # everything the function imported came from the built artifacts
            layer, modules = plan["layer"], outcome["loaded"]["modules"]
            assert all(str(f).startswith(layer) for f in modules.values() if f is not None), outcome["loaded"]
            assert modules["croupier"] and modules["pydantic_core"] and modules["aws_lambda_powertools"]
            # tracing off: the X-Ray SDK is not loaded (nor pydantic-settings, which nothing uses); what
            # else a handler leaves to its first call: tests/unit/test_cold_start.py, one process each
            assert modules["aws_xray_sdk.core"] is None and modules["pydantic_settings"] is None, outcome["loaded"]
        if outcome["function"] in HTTP:
            assert 200 <= outcome["result"]["statusCode"] < 500, outcome
            assert outcome["result"]["statusCode"] < 400 or outcome["body"]["error"]["reason"], outcome
        elif outcome["function"] in ("dealing", "live", "push"):
            assert outcome["result"] == {"batchItemFailures": []}, outcome
        elif outcome["function"] == "connections":
            assert outcome["result"]["statusCode"] in (200, 401), outcome
    by_event = {o["event"]: o for o in outcomes}
    assert by_event["tables-start-round.json"]["result"]["statusCode"] == 201, by_event["tables-start-round.json"]
    assert report["round_id"] and report["round_id"].startswith("dlx-1-shoe-2026-11-29-a-")
    assert by_event["query-round.json"]["body"]["round_id"] == report["round_id"]
    assert by_event["bets-place.json"]["result"]["statusCode"] == 200, by_event["bets-place.json"]
    assert by_event["round-close-betting.json"]["kind"] == "answer", by_event["round-close-betting.json"]
    assert by_event["connections-connect.json"]["result"]["statusCode"] == 401  # the sample's token is no local token
    imports = {o["function"]: o["loaded"]["import_seconds"] for o in outcomes if "loaded" in o}
    assert set(imports) == set(FUNCTIONS)
    print(f"\n{len(outcomes)} sample events through the built functions in {seconds:.1f} s under Python "
          f"{'.'.join(map(str, report['python']))}; imports (cold start) {imports}")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_build_is_the_same_recipe() -> None:
    dry = subprocess.run(["make", "-n", "build"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert dry.returncode == 0, dry.stderr
    assert "scripts/python312" in dry.stdout and "sam build" in dry.stdout and "--build-dir" not in dry.stdout
