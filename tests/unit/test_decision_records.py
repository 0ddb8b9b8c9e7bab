"""The decision records in docs/decisions: one file per decision, ``NNNN-short-slug.md``, each with its
``# NNNN. Title`` heading, an ``Area:`` line and the sections Context, Decision and Consequences in
that order; numbered 0001, 0002, … without gaps; all listed in the index (docs/decisions/README.md),
which lists nothing else; and every relative link in them leads to a file of the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "decisions"
INDEX = DECISIONS / "README.md"
SECTIONS = ("Context", "Decision", "Consequences")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
NUMBERED = re.compile(r"^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")


def _records() -> list[Path]:
    return sorted(DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))


def _relative_links(text: str) -> list[str]:
    """The link targets of ``text`` that point inside the repository, without their ``#anchor``."""
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL (http:, mailto:) or an anchor in the same page
        targets.append(target.split("#", 1)[0])
    return targets


def _sections(text: str) -> list[tuple[str, str]]:
    """The ``## `` sections of ``text`` in order, each with its body (stripped)."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts), 2)]


def test_there_are_records() -> None:
    assert _records(), f"no decision records NNNN-short-slug.md in {DECISIONS.relative_to(ROOT)}"


def test_each_record_has_its_heading_area_and_three_sections() -> None:
    for path in _records():
        name = path.relative_to(ROOT)
        match = NUMBERED.match(path.name)
        assert match, f"{name}: the name must be NNNN-short-slug.md (lowercase words joined by hyphens)"
        number = match.group(1)
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        assert lines and re.match(rf"^# {number}\. \S", lines[0]), (
            f"{name}: the first line must be the heading '# {number}. Title', not {lines[:1]!r}")
        head = text.split("\n## ", 1)[0]
        assert re.search(r"^Area: \S", head, flags=re.MULTILINE), (
            f"{name}: an 'Area: <section name>' line must follow the heading, before the sections")
        sections = _sections(text)
        titles = tuple(title for title, _ in sections)
        assert titles == SECTIONS, f"{name}: the sections must be {SECTIONS} in that order, found {titles}"
        for title, body in sections:
            assert body, f"{name}: the section '## {title}' is empty"


def test_numbers_are_consecutive_from_0001() -> None:
    numbers = [int(path.name[:4]) for path in _records()]
    expected = list(range(1, len(numbers) + 1))
    assert numbers == expected, (
        f"the records must be numbered 0001 to {len(numbers):04d} without gaps or repeats; "
        f"found {[f'{n:04d}' for n in numbers]}")


def test_the_index_lists_every_record_and_nothing_else() -> None:
    linked = set(_relative_links(INDEX.read_text(encoding="utf-8")))
    records = {path.name for path in _records()}
    missing = sorted(records - linked)
    assert not missing, f"{INDEX.relative_to(ROOT)} does not link these records: {missing}"
    absent = sorted(target for target in linked if not (DECISIONS / target).is_file())
    assert not absent, f"{INDEX.relative_to(ROOT)} links files that do not exist: {absent}"


def test_every_relative_link_in_a_record_leads_to_a_file() -> None:
    broken = [f"{path.relative_to(ROOT)} -> {target}"
              for path in _records()
              for target in _relative_links(path.read_text(encoding="utf-8"))
              if not (path.parent / target).resolve().is_file()]
    assert not broken, "these links lead nowhere:\n" + "\n".join(broken)
