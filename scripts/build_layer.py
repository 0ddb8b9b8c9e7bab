"""Build the shared Lambda layer: what ``sam build`` runs for ``SharedLayer`` (``layers/shared/Makefile``).

The layer is ``python/`` (Lambda puts ``/opt/python`` on ``sys.path``) holding:

- the runtime dependencies of ``pyproject.toml`` (the package's own and its ``aws`` extra's), as
  binary wheels for the Lambda runtime: CPython 3.12 on manylinux (Amazon Linux 2023, glibc
  2.34), for the architecture asked (``arm64``, what ``template.yaml`` deploys, or ``x86_64``);
  pip picks the wheels by platform, whatever Python and machine run this script;
- the ``croupier`` package without the local stack (``croupier/local/``: moto, Flask) and without
  build leftovers (``__pycache__``, ``*.egg-info``);
- the bytecode of every module, compiled by the runtime's Python (3.12: ``python3.12`` on PATH, as
  ``sam build`` has it) into each ``__pycache__``. Lambda's ``/opt`` is read-only: a layer without
  bytecode is compiled again, in memory, at every cold start (``make bench``'s figure
  ``coldstart.dealing.no_bytecode``; ``docs/deploying.md``, *The card path's cold start*). The
  bytecode is checked against nothing (``unchecked-hash``): the deployed files never change, and a
  zip keeps modification times only to two seconds, so timestamped bytecode might not match. The
  file names it records are ``/opt/python/...``, where Lambda puts the layer.

Usage: ``build_layer.py --out DIR [--arch arm64|x86_64]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "layers" / "shared" / "croupier"
RUNTIME = "3.12"
MACHINES = {"arm64": "aarch64", "x86_64": "x86_64"}
MANYLINUX = ("manylinux2014", "manylinux_2_28", "manylinux_2_34")
"""Wheel platforms the runtime's glibc (2.34) runs: manylinux2014 is glibc 2.17."""
LAYER_PATH = "/opt/python"
"""Where Lambda puts the layer's ``python/``: the file names its bytecode records."""


def requirements(pyproject: Path = ROOT / "pyproject.toml", extra: str = "aws") -> list[str]:
    """The package's dependencies and those of ``extra``, expanding the package's references to its
    own extras (``croupier[aws]``)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    name, extras = project["name"], project.get("optional-dependencies", {})
    own = re.compile(rf"^{re.escape(name)}\[([^\]]+)\]\s*$")
    out: list[str] = []
    todo, seen = [*project.get("dependencies", []), f"{name}[{extra}]"], set()
    while todo:
        requirement = todo.pop(0)
        found = own.match(requirement)
        if found is None:
            if requirement not in out:
                out.append(requirement)
            continue
        for wanted in (e.strip() for e in found.group(1).split(",")):
            if wanted in seen:
                continue
            if wanted not in extras:
                raise SystemExit(f"build_layer: pyproject.toml has no extra {wanted!r}")
            seen.add(wanted)
            todo.extend(extras[wanted])
    return out


def pip_command(target: Path, arch: str, reqs: list[str]) -> list[str]:
    machine = MACHINES[arch]
    platforms = [f"--platform={tag}_{machine}" for tag in MANYLINUX]
    return [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
            "--upgrade", "--target", str(target), "--implementation", "cp", "--python-version", RUNTIME,
            "--only-binary=:all:", *platforms, *reqs]


def runtime_python() -> str:
    """A Python of the runtime's version, to compile the layer's bytecode: this one if it is,
    else ``python3.12`` on PATH (``sam build`` needs it there too)."""
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == RUNTIME:
        return sys.executable
    found = shutil.which(f"python{RUNTIME}")
    if found is None:
        raise SystemExit(f"build_layer: the layer's bytecode needs a Python {RUNTIME} on PATH "
                         "(make build finds one with scripts/python312)")
    return found


def compile_command(site: Path, python: str) -> list[str]:
    """Byte-compile every module of ``site`` as the runtime loads them (``/opt/python/...``), never checked
    against its source."""
    return [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
            "-s", str(site), "-p", LAYER_PATH, str(site)]


def _ignore(folder: str, names: list[str]) -> set[str]:
    """What the layer does not ship: the local stack (``local/``), ``__pycache__`` at any depth and
    build leftovers."""
    at_top = Path(folder).resolve() == PACKAGE.resolve()
    return {n for n in names if n == "__pycache__" or n.endswith((".pyc", ".egg-info")) or (at_top and n == "local")}


def build(out: Path, arch: str) -> Path:
    site = out / "python"
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    reqs = requirements()
    print(f"build_layer: {len(reqs)} requirements for CPython {RUNTIME} {arch}: {' '.join(reqs)}", flush=True)
    subprocess.run(pip_command(site, arch, reqs), check=True)
    shutil.rmtree(site / "bin", ignore_errors=True)  # console scripts: their shebangs name this machine's Python
    shutil.copytree(PACKAGE, site / "croupier", ignore=_ignore)
    for leftover in [*site.rglob("__pycache__"), *site.glob("*.egg-info")]:
        shutil.rmtree(leftover)
    python = runtime_python()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}  # PYTHONDONTWRITEBYTECODE...
    subprocess.run(compile_command(site, python), check=True, env=environ)
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    print(f"build_layer: {site} ({size / 1e6:.1f} MB)", flush=True)
    return site


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_layer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="the layer's artifacts folder (SAM's ARTIFACTS_DIR)")
    parser.add_argument("--arch", default="arm64", choices=sorted(MACHINES), help="the functions' architecture")
    args = parser.parse_args(argv)
    build(args.out, args.arch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
