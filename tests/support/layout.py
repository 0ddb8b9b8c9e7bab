"""How the test tree is laid out, as its own test checks it: a test module (``tests/**/test_*.py``)
imports no other test module and no ``conftest.py``: what tests share lives in :mod:`tests.support`
(plain modules) and the conftest files' fixtures (which pytest hands out by name)."""

from __future__ import annotations

import ast
from pathlib import Path

from .pyparse import parse_files

TESTS = Path(__file__).resolve().parents[1]


def module_name(path: Path, root: Path) -> str:
    """``tests/browser/test_pages.py`` under ``root``'s parent: ``tests.browser.test_pages``."""
    return ".".join(path.relative_to(root.parent).with_suffix("").parts)


def imported_modules(path: Path, root: Path, tree: ast.Module) -> list[tuple[int, str]]:
    """Every module a file imports (``tree``, its syntax tree), with its line: absolute names as
    written, relative ones resolved against the file's package, and ``from PACKAGE import NAME``
    also as ``PACKAGE.NAME`` (the name may be a module)."""
    package = module_name(path, root).split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1] if node.level > 1 else package
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def is_test_module(name: str, root: Path) -> bool:
    """A test module or a conftest of the tree under ``root`` (named from its parent)."""
    parts = name.split(".")
    last = parts[-1]
    return parts[0] == root.name and (last.startswith("test_") or last == "conftest")


def cross_imports(root: Path = TESTS) -> list[str]:
    """``path:line imports module`` for every test module under ``root`` that imports another
    test module or a conftest."""
    out = []
    paths = sorted(root.rglob("test_*.py"))
    trees = parse_files(paths)
    for path in paths:
        own = module_name(path, root)
        for line, name in imported_modules(path, root, trees[path]):
            if name != own and is_test_module(name, root):
                out.append(f"{path.relative_to(root.parent)}:{line} imports {name}")
    return sorted(set(out))
