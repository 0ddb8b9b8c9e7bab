"""Python source parsed into syntax trees in a process of its own.

CPython 3.11 keeps the AST constructor's recursion count in state that every thread shares: a tree
built while another thread of the process builds one (the local stack's server threads run beside
the tests for the whole session) can fail with ``SystemError: AST constructor recursion depth
mismatch``. A test that reads source as trees asks this module, whose process has no other thread."""

from __future__ import annotations

import ast
import builtins
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

_PARSE = """
import ast, pickle, sys
sources = pickle.load(sys.stdin.buffer)
sys.stdout.buffer.write(pickle.dumps({name: ast.parse(text, filename=name) for name, text in sources.items()}))
"""


def parse_sources(sources: dict[str, str]) -> dict[str, ast.Module]:
    """Each named source's tree; a source that is not Python fails with its SyntaxError's words."""
    done = subprocess.run([sys.executable, "-c", _PARSE], input=pickle.dumps(sources), capture_output=True,
                          check=False, timeout=120)
    if done.returncode != 0:
        raise SyntaxError(done.stderr.decode(errors="replace").strip().splitlines()[-1])
    trees: dict[str, ast.Module] = pickle.loads(done.stdout)
    return trees


_parsed: dict[tuple[Path, str], ast.Module] = {}
"""The trees this process has parsed, by path and text: a file whose text changed is parsed again.
The trees are shared, so a caller reads them and never changes them."""


def parse_files(paths: list[Path]) -> dict[Path, ast.Module]:
    """Each file's tree, by its path."""
    texts = {path: path.read_text(encoding="utf-8") for path in paths}
    missing = {str(path): text for path, text in texts.items() if (path, text) not in _parsed}
    if missing:
        for name, tree in parse_sources(missing).items():
            _parsed[Path(name), missing[name]] = tree
    return {path: _parsed[path, text] for path, text in texts.items()}


_trees = threading.RLock()
_compile = builtins.compile


def _one_tree_at_a_time(source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
                        optimize: int = -1, **kwargs: Any) -> Any:
    if isinstance(source, ast.AST) or flags & ast.PyCF_ONLY_AST:
        with _trees:
            return _compile(source, filename, mode, flags, dont_inherit, optimize, **kwargs)
    return _compile(source, filename, mode, flags, dont_inherit, optimize, **kwargs)


def one_tree_at_a_time() -> None:
    """Serialise, in this process, every ``compile`` that builds a syntax tree or compiles one
    (``ast.parse``; pytest rewriting a module as it imports it; hypothesis's ``from_regex``), the
    CPython 3.11 problem above, which the tests' own parsing avoids with :func:`parse_sources` but
    libraries the tests run (schemathesis's generation, beside the local stack's threads) do not.
    Compiling source straight to code is left as it is."""
    builtins.compile = _one_tree_at_a_time
