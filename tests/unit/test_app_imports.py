"""The application's modules import one another without a circle: betting, dealing and settlement
each stand on what is below them (a round's finish drains the device log from the task that runs
it, not from settlement), so that each can be driven alone, by a test or a simulation."""

from __future__ import annotations

import ast
from pathlib import Path

from croupier import app
from tests.support.pyparse import parse_files

APP = Path(app.__file__).parent


def imports_of(tree: ast.Module) -> set[str]:
    """The modules of ``croupier.app`` a module imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each import circle once: a path from a module back to itself (depth first)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for imported in sorted(graph.get(module, ())):
            if imported in path:
                circle = path[path.index(imported):]
                if not any(set(circle) == set(seen) for seen in found):
                    found.append(circle)
            elif imported not in done:
                visit(imported, [*path, imported])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    return found


def test_the_circle_finder_finds_a_circle_and_nothing_else() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_of_the_application_imports_itself_back() -> None:
    # GIVEN every module of croupier.app and what it imports of the others
    trees = parse_files(sorted(APP.glob("*.py")))
    modules = {path.stem for path in trees}
    graph = {path.stem: imports_of(tree) & modules for path, tree in trees.items()}
    # THEN betting, dealing and settlement stand apart, and no other circle exists
    assert {"bets", "dealing", "settlement"} <= set(graph)
    assert "dealing" not in graph["settlement"] and "settlement" not in graph["dealing"]
    assert circles(graph) == []
