"""Read ``template.yaml`` (YAML with CloudFormation tags) and resolve its intrinsic functions.

Only what the project's template uses: ``Ref``, ``Fn::GetAtt``, ``Fn::Sub``, ``Fn::If``,
``Fn::Equals``, parameters with defaults, conditions, and the pseudo parameters.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

_TAGS = {"!Ref": "Ref", "!GetAtt": "Fn::GetAtt", "!Sub": "Fn::Sub", "!If": "Fn::If", "!Equals": "Fn::Equals",
         "!Join": "Fn::Join", "!Not": "Fn::Not", "!Select": "Fn::Select"}


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader (libyaml's when PyYAML has it: ten times faster), with CloudFormation's tags."""


def _constructor(name: str) -> Any:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> dict[str, Any]:
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
            if name == "Fn::GetAtt":
                value = str(value).split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
        return {name: value}

    return construct


for _tag, _name in _TAGS.items():
    _Loader.add_constructor(_tag, _constructor(_name))


def load(path: Path) -> dict[str, Any]:
    """The template at ``path``, a copy of its own: read again only once the file changed (a
    simulated world reads its deployment from it, and a test run builds hundreds of worlds)."""
    status = path.stat()
    return copy.deepcopy(_parsed(path.resolve(), status.st_mtime_ns, status.st_size))


@lru_cache(maxsize=8)
def _parsed(path: Path, modified: int, size: int) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.load(handle, Loader=_Loader)
    return data


class Resolver:
    """Resolves intrinsic functions against parameter values and the physical resources."""

    def __init__(self, template: dict[str, Any], parameters: dict[str, Any], region: str, account: str) -> None:
        self.template = template
        self.params: dict[str, Any] = {k: v.get("Default") for k, v in template.get("Parameters", {}).items()}
        self.params.update(parameters)
        self.params.update({"AWS::Region": region, "AWS::AccountId": account, "AWS::Partition": "aws",
                            "AWS::URLSuffix": "amazonaws.com", "AWS::StackName": "croupier-local"})
        self.refs: dict[str, Any] = {}
        self.attrs: dict[tuple[str, str], Any] = {}
        self.conditions = {name: self.resolve(cond) for name, cond in template.get("Conditions", {}).items()}

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref":
                if arg in self.params:
                    return self.params[arg]
                if arg in self.refs:
                    return self.refs[arg]
                raise KeyError(f"Ref to {arg} before it exists")
            if key == "Fn::GetAtt":
                name, attr = arg if isinstance(arg, list) else str(arg).split(".", 1)
                return self.attrs[(name, attr)]
            if key == "Fn::Sub":
                return self._sub(arg)
            if key == "Fn::If":
                name, yes, no = arg
                return self.resolve(yes if self.conditions[name] else no)
            if key == "Fn::Equals":
                left, right = (self.resolve(a) for a in arg)
                return str(left) == str(right)
            if key == "Fn::Not":
                return not self.resolve(arg[0])
            if key == "Fn::Join":
                sep, items = arg
                return str(sep).join(str(self.resolve(i)) for i in items)
            if key == "Condition":
                return self.conditions[arg]
        return {k: self.resolve(v) for k, v in value.items()}

    def _sub(self, arg: Any) -> str:
        text, extra = (arg, {}) if isinstance(arg, str) else (arg[0], self.resolve(arg[1]))

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in extra:
                return str(extra[name])
            if "." in name:
                res, attr = name.split(".", 1)
                return str(self.attrs[(res, attr)])
            if name in self.params:
                return str(self.params[name])
            return str(self.refs[name])

        return re.sub(r"\$\{([^}!]+)\}", one, text)


def table_args(props: dict[str, Any]) -> dict[str, Any]:
    """``CreateTable``'s arguments for an ``AWS::DynamoDB::Table``'s resolved properties: its name,
    keys, billing, indexes and stream (the local stack's moto and the simulated world's tables)."""
    args = {k: props[k] for k in ("TableName", "AttributeDefinitions", "KeySchema", "BillingMode")}
    if props.get("GlobalSecondaryIndexes"):
        args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    if props.get("StreamSpecification"):
        args["StreamSpecification"] = {"StreamEnabled": True, **props["StreamSpecification"]}
    return args
