"""Reading ``template.yaml``: CloudFormation's short tags, each caller its own copy, a changed file
read again (the template is parsed once and kept, since every simulated world reads it)."""

from __future__ import annotations

import os
from pathlib import Path

from croupier.local import template as tpl


def test_short_tags_become_intrinsic_functions(tmp_path: Path) -> None:
    # GIVEN a template with CloudFormation's short forms
    path = tmp_path / "template.yaml"
    path.write_text("A: !Ref Name\nB: !GetAtt Queue.Arn\nC: !Sub '${X}-y'\nD: !If [Cond, 1, 2]\n", encoding="utf-8")
    # WHEN it is read
    data = tpl.load(path)
    # THEN each is its long form
    assert data == {"A": {"Ref": "Name"}, "B": {"Fn::GetAtt": ["Queue", "Arn"]}, "C": {"Fn::Sub": "${X}-y"},
                    "D": {"Fn::If": ["Cond", 1, 2]}}


def test_each_caller_gets_its_own_copy(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text("Resources:\n  Queue:\n    Type: AWS::SQS::Queue\n", encoding="utf-8")
    # GIVEN a caller that changes what it read
    first = tpl.load(path)
    first["Resources"]["Queue"]["Type"] = "changed"
    # WHEN the template is read again THEN it is as the file says
    assert tpl.load(path)["Resources"]["Queue"]["Type"] == "AWS::SQS::Queue"


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "template.yaml"
    path.write_text("Value: 1\n", encoding="utf-8")
    assert tpl.load(path) == {"Value": 1}
    # WHEN the file changes (its size and time both, as an edit changes them)
    path.write_text("Value: 22\n", encoding="utf-8")
    stamp = path.stat().st_mtime_ns + 1_000_000
    os.utime(path, ns=(stamp, stamp))
    # THEN the next read sees the change
    assert tpl.load(path) == {"Value": 22}
