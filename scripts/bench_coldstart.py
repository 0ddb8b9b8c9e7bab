"""``make bench`` section ``coldstart``: the card path's cold start, from the artifacts that deploy.

What is built
    ``sam build`` as ``make build`` runs it (a Python 3.12 from ``scripts/python312`` on PATH, no
    Docker). On an arm64 machine that is ``.aws-sam/build`` itself; elsewhere the arm64 layer's
    compiled libraries (pydantic-core) cannot load, so the same recipe is built for this machine's
    architecture into ``.aws-sam/build-<arch>`` (``LAYER_ARCH``, as the build test does): the same
    files, bytecode included, but for those libraries. A build is reused when it is newer than every
    source file and holds no bytecode but the build's own (a process that imported from it and wrote
    bytecode would make its figures better than Lambda's); otherwise it is built again.

What is measured, per function (dealing, round, decisions)
    ``import``: the wall time of importing the handler module in a fresh ``python3.12`` laid out as
    Lambda lays it out: the function's folder (Lambda's ``/var/task``) and the layer's ``python/``
    (``/opt/python``) first on ``sys.path`` and nothing else but the standard library (``-I -S``),
    bytecode only as the build ships it (``-B``: nothing written, as on Lambda's read-only code);
    the environment is only what Lambda gives the function: the template's variables (Globals and
    the function's, intrinsics resolved with the parameters' defaults), Lambda's own
    (``AWS_LAMBDA_FUNCTION_NAME``, ``LAMBDA_TASK_ROOT``, the X-Ray daemon's where the function is
    traced...), fake credentials and the region. It is measured inside the process with
    ``time.perf_counter()`` around ``import_module`` (the interpreter's own start-up is not in it;
    ``coldstart.python`` gives it for scale), after importing what Lambda's runtime has imported
    before it imports a handler (:data:`RUNTIME_PRELOADED`, from its bootstrap,
    ``awslambdaric``). The median over ``3 x runs`` processes, the functions taking turns.

    ``first_call``: what a cold start adds to the first event beyond the import: in a fresh
    process, the import, then the handler on a sample event, then on another like it, against the
    local stack (moto) started for the purpose; the figure is the import plus the first call's
    extra time (first call minus the next one: what the process imports and builds on its first
    call: what was made lazy, boto3's clients). Median over ``runs`` processes.

    For scale: the dealing function's import traced (``CardPathTracing=Active``: the X-Ray SDK
    loaded) and without the layer's bytecode (every module compiled at start-up, as before the
    layer shipped its bytecode); and the price of keeping one dealing function warm (provisioned
    concurrency) or of SnapStart, at the prices of ``croupier/local/aws_prices.json``.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bench import ROOT, Figure, Options, isolated

FUNCTIONS = {"dealing": "DealingFunction", "round": "RoundFunction", "decisions": "DecisionsFunction"}
"""The card path's functions (``template.yaml``'s logical ids)."""
TARGET_MS = 250.0
REGION, ACCOUNT = "us-east-1", "123456789012"
HOST_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}
ELF_MACHINES = {"arm64": 183, "x86_64": 62}
SOURCES = ("template.yaml", "pyproject.toml", "scripts/build_layer.py", "layers/shared", "functions")
"""What a build is made of: a build older than any file of these is built again."""
RUNTIME_PRELOADED = ("importlib", "json", "logging", "os", "time", "traceback", "datetime", "enum", "decimal",
                     "math", "concurrent.futures")
"""The standard library modules Lambda's Python runtime has imported before it imports the handler
(its bootstrap, ``awslambdaric``: ``bootstrap.py`` and the modules it imports)."""
WATCHED = ("boto3", "botocore.session", "aws_xray_sdk.core", "pydantic_settings", "asyncio", "croupier.roads",
           "aws_lambda_powertools.utilities.idempotency", "aws_lambda_powertools.utilities.batch")
"""Heavy modules the figure's note says were, or were not, imported at start-up."""
HOURS_A_MONTH = 730

CHILD = r"""
import importlib, json, sys, time, uuid
plan = json.load(open(sys.argv[1], encoding="utf-8"))
for name in plan["preloaded"]:
    importlib.import_module(name)
sys.path[:0] = [plan["function"], plan["layer"]]
module_name, attribute = plan["handler"].rsplit(".", 1)
sys.stderr.write("coldstart: the handler's import\n")
sys.stderr.flush()
before = set(sys.modules)
cpu, wall = time.process_time(), time.perf_counter()
handler = getattr(importlib.import_module(module_name), attribute)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
out = {"import_s": wall, "import_cpu_s": cpu, "modules": len(set(sys.modules) - before),
       "loaded": [m for m in plan["watched"] if m in sys.modules], "calls": []}


class Context:
    def __init__(self, name):
        self.function_name, self.function_version, self.memory_limit_in_mb = name, "$LATEST", plan["memory"]
        self.aws_request_id = str(uuid.uuid4())
        self.invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + name
        self.log_group_name, self.log_stream_name = "/aws/lambda/" + name, "bench"
        self._deadline = time.monotonic() + 30

    def get_remaining_time_in_millis(self):
        return max(0, int((self._deadline - time.monotonic()) * 1000))


for event in plan["events"]:
    before, started = set(sys.modules), time.perf_counter()
    try:
        result = handler(event, Context(plan["name"]))
        if isinstance(result, dict) and "statusCode" in result:
            outcome = "status %s" % result["statusCode"]
        elif isinstance(result, dict) and "batchItemFailures" in result:
            outcome = "%d failed" % len(result["batchItemFailures"])
        else:
            outcome = "answered"
    except Exception as exc:
        outcome = "raised " + type(exc).__name__
    out["calls"].append({"s": time.perf_counter() - started, "outcome": outcome,
                         "modules": len(set(sys.modules) - before)})
with open(plan["out"], "w", encoding="utf-8") as handle:
    json.dump(out, handle)
"""
"""The measured process (standard library only until the function's folder and the layer are on
``sys.path``): imports the handler, then calls it on each event of its plan; writes what it timed."""

EXPECTED = {"dealing": "0 failed", "round": "raised NotFound", "decisions": "status 404"}
"""What each sample call answers: anything else (a configuration error, an import error) makes the
figure meaningless, and the section fails."""


# --- the build --------------------------------------------------------------------------------


def python312() -> str:
    found = subprocess.run([str(ROOT / "scripts" / "python312")], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise RuntimeError(f"the coldstart section needs the Lambda runtime's Python: {found.stderr.strip()}")
    return found.stdout.strip()


def host_arch() -> str:
    arch = HOST_ARCH.get(platform.machine().lower())
    if arch is None:
        raise RuntimeError(f"no Lambda architecture for this machine ({platform.machine()})")
    return arch


def build_folder(arch: str) -> Path:
    """``make build``'s own folder on an arm64 machine; the same recipe for this machine elsewhere."""
    return ROOT / ".aws-sam" / ("build" if arch == "arm64" else f"build-{arch}")


def _source_files() -> Iterator[Path]:
    for name in SOURCES:
        path = ROOT / name
        if path.is_file():
            yield path
            continue
        for found in path.rglob("*"):
            if found.is_file() and "__pycache__" not in found.parts and not found.name.endswith(".pyc") \
                    and not any(p.endswith(".egg-info") for p in found.parts):
                yield found


def _pyc_flags(path: Path) -> int:
    with open(path, "rb") as handle:
        header = handle.read(8)
    return int.from_bytes(header[4:8], "little")


def _elf_machine(path: Path) -> int:
    with open(path, "rb") as handle:
        header = handle.read(20)
    return int.from_bytes(header[18:20], "little")


def stale(folder: Path, arch: str) -> str | None:
    """Why the build in ``folder`` cannot be measured as it deploys (None: it can)."""
    stamp, layer = folder / "template.yaml", folder / "SharedLayer" / "python"
    if not stamp.is_file() or not layer.is_dir():
        return "no build yet"
    newest = max(_source_files(), key=lambda p: p.stat().st_mtime)
    if newest.stat().st_mtime >= stamp.stat().st_mtime:
        return f"{newest.relative_to(ROOT)} is newer than the build"
    libraries = list((layer / "pydantic_core").glob("*.so"))
    if not libraries or _elf_machine(libraries[0]) != ELF_MACHINES[arch]:
        return f"its layer is not built for {arch}"
    for logical in FUNCTIONS.values():
        if sorted(p.name for p in (folder / logical).iterdir()) != ["app.py", "requirements.txt"]:
            return f"{logical} holds more than the build made (bytecode written by a process that imported it)"
    modules = sum(1 for _ in layer.rglob("*.py"))
    compiled = [p for p in layer.rglob("*.pyc")]
    foreign = [p for p in compiled if _pyc_flags(p) != 0b01 or ".cpython-312" not in p.name]
    if foreign:
        return f"{len(foreign)} bytecode files of its layer are not the build's (written by a process that imported it)"
    if len(compiled) < modules:
        return "its layer has no bytecode of its own (built before the layer shipped it)"
    return None


def ensure_build(arch: str, interpreter: str) -> tuple[Path, str]:
    """The build to measure, and how it came to be (reused, or built now and why)."""
    folder = build_folder(arch)
    why = stale(folder, arch)
    if why is None:
        return folder, f"the build {folder.relative_to(ROOT)} reused (newer than every source file)"
    command = [str(Path(sys.executable).parent / "sam"), "build"]
    if folder != ROOT / ".aws-sam" / "build":
        command += ["--build-dir", str(folder)]
    env = {**os.environ, "PATH": f"{Path(interpreter).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "SAM_CLI_TELEMETRY": "0", "LAYER_ARCH": arch}
    print(f"  building ({why}): LAYER_ARCH={arch} {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or stale(folder, arch) is not None:
        raise RuntimeError(f"sam build failed ({stale(folder, arch)}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return folder, (f"built now into {folder.relative_to(ROOT)} ({why}) in {time.monotonic() - started:.0f} s, "
                    f"LAYER_ARCH={arch}")


# --- what Lambda gives a function ---------------------------------------------------------------


def _template() -> dict[str, Any]:
    from croupier.local import template as tpl

    return tpl.load(ROOT / "template.yaml")


def _resolver(template: dict[str, Any], parameters: dict[str, Any]) -> Any:
    """The template's intrinsics with the parameters' defaults (and ``parameters``), each resource
    standing for a plausible physical id."""
    from croupier.local import template as tpl

    res = tpl.Resolver(template, parameters, REGION, ACCOUNT)
    for logical, spec in template["Resources"].items():
        props = spec.get("Properties", {})
        named = next((props[k] for k in ("TableName", "QueueName", "Name", "FunctionName") if k in props), None)
        name = str(res.resolve(named)) if named is not None else f"{logical.lower()}0a1b2c"
        if spec["Type"] == "AWS::SQS::Queue":
            res.refs[logical] = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{name}"
        else:
            res.refs[logical] = name
        res.attrs[(logical, "Arn")] = f"arn:aws:service:{REGION}:{ACCOUNT}:{name}"
    return res


def lambda_environment(short: str, folder: Path, parameters: dict[str, Any] | None = None) -> dict[str, str]:
    """What Lambda gives the function's process: the template's variables (Globals, then the
    function's) and Lambda's own, with fake credentials."""
    template = _template()
    res = _resolver(template, parameters or {})
    glob = template["Globals"]["Function"]
    spec = template["Resources"][FUNCTIONS[short]]["Properties"]
    props = {k: res.resolve(spec[k]) for k in ("FunctionName", "Handler", "MemorySize", "Tracing", "Environment")
             if k in spec}
    env = {k: str(v) for k, v in res.resolve(glob.get("Environment", {}).get("Variables", {})).items()}
    env.update({k: str(v) for k, v in props.get("Environment", {}).get("Variables", {}).items()})
    name, memory = str(props["FunctionName"]), int(props.get("MemorySize", glob.get("MemorySize", 128)))
    env.update({
        "AWS_LAMBDA_FUNCTION_NAME": name, "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory), "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
        "AWS_LAMBDA_LOG_STREAM_NAME": "2026/12/03/[$LATEST]0123456789abcdef0123456789abcdef",
        "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand", "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001", "LAMBDA_TASK_ROOT": str(folder / FUNCTIONS[short]),
        "LAMBDA_RUNTIME_DIR": "/var/runtime", "_HANDLER": str(props["Handler"]), "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION, "TZ": ":UTC", "LANG": "en_US.UTF-8", "PATH": "/usr/local/bin:/usr/bin:/bin",
        "AWS_ACCESS_KEY_ID": "ASIABENCHFAKEKEY", "AWS_SECRET_ACCESS_KEY": "bench-fake-secret",
        "AWS_SESSION_TOKEN": "bench-fake-session-token",
    })
    if str(props.get("Tracing", glob.get("Tracing", "PassThrough"))) == "Active":
        env.update({"AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR", "AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129:2000",
                    "_AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129", "_AWS_XRAY_DAEMON_PORT": "2000"})
    return env


def memory_mb(short: str) -> int:
    template = _template()
    props = template["Resources"][FUNCTIONS[short]]["Properties"]
    return int(props.get("MemorySize", template["Globals"]["Function"].get("MemorySize", 128)))


# --- one measured process -----------------------------------------------------------------------


def run_child(interpreter: str, folder: Path, short: str, env: dict[str, str], *, events: list[Any] | None = None,
              flags: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
    """One fresh process: the handler's import (and the ``events``); what it timed, and its stderr."""
    with tempfile.TemporaryDirectory(prefix="croupier-coldstart-") as scratch:
        plan = {"function": str(folder / FUNCTIONS[short]), "layer": str(folder / "SharedLayer" / "python"),
                "handler": env["_HANDLER"], "name": env["AWS_LAMBDA_FUNCTION_NAME"], "memory": memory_mb(short),
                "preloaded": list(RUNTIME_PRELOADED), "watched": list(WATCHED), "events": events or [],
                "out": str(Path(scratch) / "out.json")}
        (Path(scratch) / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
        extra = [f.replace("{scratch}", scratch) for f in flags]
        done = subprocess.run([interpreter, "-I", "-S", "-B", *extra, "-c", CHILD, str(Path(scratch) / "plan.json")],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
                              check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the {short} function's process failed:\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads((Path(scratch) / "out.json").read_text(encoding="utf-8"))
        return result, done.stderr


def top_contributors(stderr: str, count: int = 5) -> str:
    """``-X importtime``'s self times after the handler's import began, summed by top-level package."""
    lines = stderr.split("coldstart: the handler's import\n", 1)[-1].splitlines()
    by_package: Counter[str] = Counter()
    for line in lines:
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        by_package[name.strip().split(".")[0]] += int(own)
    total = sum(by_package.values())
    top = ", ".join(f"{name} {micros / 1000:.0f}" for name, micros in by_package.most_common(count))
    return f"top (-X importtime, self ms by package, of {total / 1000:.0f}): {top}"


def python_startup_ms(interpreter: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([interpreter, "-I", "-S", "-c", "pass"], env={"PATH": "/usr/bin:/bin"}, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


# --- the first call, against the local stack -----------------------------------------------------


def _event(name: str, **values: str) -> Any:
    text = (ROOT / "events" / f"{name}.json").read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return json.loads(text)


def _card(seq: int) -> Any:
    """The sample card scan, as a new scan of the table's reader (its next ``seq``)."""
    event = _event("dealing-card-scanned")
    record = event["Records"][0]
    body = json.loads(record["body"])
    body["id"] = str(uuid.uuid4())
    body["detail"].update(scan_id=f"bench-{uuid.uuid4().hex[:12]}", seq=seq)
    record.update(body=json.dumps(body), messageId=str(uuid.uuid4()))
    return event


MISSING_ROUND = "dlx-1-coldstart-no-such-round"


def _calls(short: str, seq: int) -> list[Any]:
    """The first call and the next, alike (what each does: :data:`FIRST_CALLS`)."""
    if short == "dealing":
        return [_card(seq), _card(seq + 1)]
    if short == "round":
        return [_event("round-advance", round_id=MISSING_ROUND) for _ in range(2)]
    return [_event("decisions-double", round_id=MISSING_ROUND, idempotency_key=uuid.uuid4().hex) for _ in range(2)]


FIRST_CALLS = {
    "dealing": "a card scanned at a table between rounds: recorded in its device log, counted as drawn, told on the "
               "table bus",
    "round": "advance of a round the store does not hold: read, refused",
    "decisions": "a double in a round the store does not hold: validated, its idempotency record written and "
                 "removed, refused (404)",
}


def first_calls(interpreter: str, folder: str, runs: int) -> dict[str, list[dict[str, Any]]]:
    """In a process of its own (:func:`bench.isolated`): the local stack, a table and its shoe, then
    ``runs`` processes per function, each importing the handler and calling it twice."""
    import boto3

    from croupier.local.stack import LocalStack

    build = Path(folder)
    out: dict[str, list[dict[str, Any]]] = {short: [] for short in FUNCTIONS}
    with LocalStack(ROOT) as stack:
        names = stack.function_names
        stack.invoke(names["TablesFunction"], _event("tables-create"))
        stack.invoke(names["DealingFunction"], _event("dealing-shoe"))
        lam = boto3.client("lambda")
        seq = 2  # the reader's first scans after the table opened (#1 is taken)
        for _ in range(runs):
            for short, logical in FUNCTIONS.items():
                local = lam.get_function_configuration(FunctionName=names[logical])["Environment"]["Variables"]
                env = {**lambda_environment(short, build), **local, "AWS_ENDPOINT_URL": stack.endpoint}
                measured, _ = run_child(interpreter, build, short, env, events=_calls(short, seq))
                seq += 2
                outcomes = [c["outcome"] for c in measured["calls"]]
                if any(o != EXPECTED[short] for o in outcomes):
                    raise RuntimeError(f"the {short} function answered {outcomes}, not {EXPECTED[short]}")
                out[short].append(measured)
    return out


# --- the section ----------------------------------------------------------------------------


def _median_ms(values: Iterable[float]) -> float:
    return statistics.median(values) * 1000


def _loaded_note(result: dict[str, Any]) -> str:
    loaded = set(result["loaded"])
    said = [("the X-Ray SDK", "aws_xray_sdk.core"), ("boto3", "boto3"), ("pydantic-settings", "pydantic_settings"),
            ("asyncio", "asyncio")]
    return "at start-up: " + ", ".join(f"{what} {'yes' if module in loaded else 'no'}" for what, module in said)


def coldstart(opts: Options) -> Iterable[Figure]:
    if not opts.touches("coldstart"):
        return
    try:
        interpreter, arch = python312(), host_arch()
    except RuntimeError as exc:  # as the build test skips: a machine without the runtime's Python
        print(f"  skipped: {exc}")
        yield from prices(opts)
        return
    folder, how = ensure_build(arch, interpreter)
    print(f"  {how}; {interpreter}", flush=True)
    processes = 3 * opts.runs
    where = (f"median of {processes} processes, python3.12 -I -S -B, {len(RUNTIME_PRELOADED)} modules of Lambda's "
             f"runtime imported first; {folder.relative_to(ROOT)}")

    if opts.wants("coldstart.python"):
        yield Figure("coldstart.python", "python3.12 -I -S -c pass, whole process (for scale)",
                     python_startup_ms(interpreter, processes), "ms", higher_is_better=False,
                     note="the interpreter's own start-up, not in the figures below (timed inside the process)")

    imports: dict[str, list[dict[str, Any]]] = {short: [] for short in FUNCTIONS}
    wanted = [s for s in FUNCTIONS if opts.wants(f"coldstart.{s}.import")]
    environments = {short: lambda_environment(short, folder) for short in wanted}
    for _ in range(processes):  # the functions take turns: a slower minute of the machine is everyone's
        for short in wanted:
            imports[short].append(run_child(interpreter, folder, short, environments[short])[0])
    for short in wanted:
        _, stderr = run_child(interpreter, folder, short, environments[short], flags=("-X", "importtime"))
        results = imports[short]
        value = _median_ms(r["import_s"] for r in results)
        yield Figure(f"coldstart.{short}.import", f"the {short} function's import, built as it deploys", value, "ms",
                     target=TARGET_MS, higher_is_better=False,
                     note=f"{where}; CPU {_median_ms(r['import_cpu_s'] for r in results):.0f} ms; "
                          f"{results[0]['modules']} modules; {_loaded_note(results[0])}; "
                          f"{top_contributors(stderr)}")

    if opts.wants("coldstart.dealing.traced"):
        traced = lambda_environment("dealing", folder, {"CardPathTracing": "Active"})
        results = [run_child(interpreter, folder, "dealing", traced)[0] for _ in range(opts.runs)]
        yield Figure("coldstart.dealing.traced", "the dealing function's import with CardPathTracing=Active",
                     _median_ms(r["import_s"] for r in results), "ms", higher_is_better=False,
                     note=f"median of {opts.runs} processes; {_loaded_note(results[0])}")

    if opts.wants("coldstart.dealing.no_bytecode"):
        env = lambda_environment("dealing", folder)
        flags = ("-X", "pycache_prefix={scratch}/nothing")  # no bytecode found: every module compiled
        results = [run_child(interpreter, folder, "dealing", env, flags=flags)[0] for _ in range(opts.runs)]
        yield Figure("coldstart.dealing.no_bytecode", "the same, every module compiled at start-up (no bytecode)",
                     _median_ms(r["import_s"] for r in results), "ms", higher_is_better=False,
                     note=f"median of {opts.runs} processes; what each cold start paid when the layer shipped no "
                          "bytecode (Lambda's /opt is read-only: nothing compiled is kept)")

    firsts = [s for s in FUNCTIONS if opts.wants(f"coldstart.{s}.first_call")]
    if firsts:
        measured = isolated(first_calls, interpreter, str(folder), opts.runs)
        for short in firsts:
            results = measured[short]
            extra = [r["calls"][0]["s"] - r["calls"][1]["s"] for r in results]
            total = [r["import_s"] + e for r, e in zip(results, extra, strict=True)]
            yield Figure(f"coldstart.{short}.first_call", f"the {short} function's import + its first call's extra",
                         _median_ms(total), "ms", higher_is_better=False,
                         note=f"median of {opts.runs} processes against the local stack: import "
                              f"{_median_ms(r['import_s'] for r in results):.0f} ms, first call "
                              f"{_median_ms(r['calls'][0]['s'] for r in results):.0f} ms, the next "
                              f"{_median_ms(r['calls'][1]['s'] for r in results):.0f} ms; "
                              f"{results[0]['calls'][0]['modules']} modules imported by the first call; "
                              f"{FIRST_CALLS[short]}")

    yield from prices(opts)


def prices(opts: Options) -> Iterable[Figure]:
    """One dealing function kept warm (provisioned concurrency) or restored (SnapStart), at the
    repository's prices (``croupier/local/aws_prices.json``, arm64, us-east-1)."""
    from croupier.local.prices import document, unit_price

    gigabytes = memory_mb("dealing") / 1024
    seconds = HOURS_A_MONTH * 3600
    read = f"{document()['region']} prices read {document()['read']} (layers/shared/croupier/local/aws_prices.json)"
    memory = f"{memory_mb('dealing')} MB (template.yaml)"
    if opts.wants("coldstart.provisioned_usd_month"):
        yield Figure("coldstart.provisioned_usd_month",
                     "one dealing environment kept warm 24x7 (provisioned concurrency 1), a month", gigabytes * seconds
                     * unit_price("lambda_provisioned_concurrency_gb_second_arm64"), "USD", higher_is_better=False,
                     note=f"{memory} x {HOURS_A_MONTH} h x the arm64 provisioned concurrency price; its invocations' "
                          f"duration then at the provisioned rate; {read}")
    if opts.wants("coldstart.snapstart_cache_usd_month"):
        yield Figure("coldstart.snapstart_cache_usd_month", "SnapStart on the dealing function: its snapshot cached, "
                     "a month", gigabytes * seconds * unit_price("lambda_snapstart_cache_gb_second"), "USD",
                     higher_is_better=False,
                     note=f"{memory} x {HOURS_A_MONTH} h x the cache price, per published version kept active; {read}")
    if opts.wants("coldstart.snapstart_restore_usd"):
        yield Figure("coldstart.snapstart_restore_usd", "SnapStart: 1,000 cold starts restored from the snapshot",
                     1000 * gigabytes * unit_price("lambda_snapstart_restore_gb"), "USD", higher_is_better=False,
                     note=f"{memory} x 1,000 restorations x the restore price; {read}")


if __name__ == "__main__":  # pragma: no cover - run through scripts/bench.py
    sys.exit("run: python scripts/bench.py --only coldstart")
