"""No private attribute of Powertools or moto is used outside the local stack's documented patches
(croupier/local/motopatch.py): the next release of either may rename it without a word.

An AST check of the project's Python: a name is tainted when it is bound to something imported from
``aws_lambda_powertools`` or ``moto`` (a module, a class, a function), to a call of a tainted name
(a resolver, a router, a middleware), or to a call of the project's own resolver factories; reading
or setting an attribute whose name starts with ``_`` (dunders aside) on a tainted name, or on
``self``/``super()`` in a class derived from a tainted one, fails the test."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.pyparse import parse_files, parse_sources

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ("layers", "functions", "scripts", "tests")
ALLOWED = {ROOT / "layers" / "shared" / "croupier" / "local" / "motopatch.py"}
PACKAGES = ("aws_lambda_powertools", "moto")
FACTORIES = {"resolver", "full_api", "http_function", "APIGatewayRestResolver", "Router"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _names(element)]
    return []


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def violations(tree: ast.AST, packages: tuple[str, ...] = PACKAGES) -> list[tuple[int, str]]:
    nodes = list(ast.walk(tree))
    tainted: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            tainted |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith(packages)}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(packages):
            tainted |= {a.asname or a.name for a in node.names}
    for _ in range(3):  # names bound from tainted ones, a few hops
        for node in nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                root = _root_name(node.value)
                if root in tainted or root in FACTORIES:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    tainted |= {n for t in targets for n in _names(t)}
    subclassing = {node for node in nodes if isinstance(node, ast.ClassDef)
                   and any(_root_name(base) in tainted for base in node.bases)}
    found: list[tuple[int, str]] = []
    for node in nodes:
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = _root_name(node.value)
            if root in tainted or (root in FACTORIES and isinstance(node.value, ast.Call)):
                found.append((node.lineno, f"{root}...{node.attr}"))
    for cls in subclassing:
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                owner = node.value
                if (isinstance(owner, ast.Name) and owner.id == "self") or (
                        isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"):
                    found.append((node.lineno, f"{cls.name}: {node.attr}"))
    return found


def test_the_check_sees_the_known_private_uses() -> None:
    source = """
from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from croupier.app.api import resolver
app = resolver()
app._request_validation_middleware = None
other = APIGatewayRestResolver()
other._get_base_path()
class Mine(OpenAPIRequestValidationMiddleware):
    def _get_body(self, app):
        return super()._get_body(app)
"""
    assert [what for _, what in violations(parse_sources({"example": source})["example"])] == [
        "app..._request_validation_middleware", "other..._get_base_path", "Mine: _get_body"]


def _found(package: str) -> list[str]:
    paths = [path for top in ROOTS for path in sorted((ROOT / top).rglob("*.py"))
             if path not in ALLOWED and "__pycache__" not in path.parts and path != Path(__file__).resolve()]
    found = []
    for path, tree in parse_files(paths).items():
        found += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in violations(tree, (package,))]
    return found


def test_no_private_attribute_of_powertools_is_used() -> None:
    found = _found("aws_lambda_powertools")
    assert not found, "\n".join(found)


def test_no_private_attribute_of_moto_is_used_outside_motopatch() -> None:
    found = _found("moto")
    assert not found, "\n".join(found)


def test_building_the_document_leaves_each_router_reading_its_own_functions_request() -> None:
    from croupier.app import api, openapi
    from croupier.app.routes import queries

    serving = api.resolver()
    serving.include_router(queries.router)
    openapi.full_api()
    assert queries.router.api_resolver is serving
