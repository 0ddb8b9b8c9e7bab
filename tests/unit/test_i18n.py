"""The page's languages: every catalogue (``web/i18n/LANG.json``) has every string of the English
one, with the same placeholders; every key the pages ask for is in the catalogues; and no string a
person reads is left in the JavaScript (each comes from a catalogue)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = ROOT / "web" / "i18n"
SOURCES = sorted((ROOT / "web" / "js").glob("*.js"))
LANGUAGES = ("en", "ur", "hi", "fa", "th")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`')

NOT_READ = {
    "GET", "POST", "PUT", "PATCH", "DELETE", "Bearer {}",
    "Dealer",  # the dealer's hand's data-hand key (what the tests select), whatever the language
    "Content-Type", "Authorization", "Idempotency-Key", "application/json", "application/x-www-form-urlencoded",
    "Bearer ", "Bearer {token}", "SHA-256", "text/javascript",
}
"""Literals no person reads (HTTP header names and values, a digest's name)."""


def catalogue(lang: str) -> dict[str, str]:
    data = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values()), lang
    return data


def code(path: Path) -> str:
    """The source without its comments (a `//` inside a string or a URL is kept)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    return "\n".join(re.sub(r"(^|\s)//.*$", "", line) for line in text.splitlines())


def literals(path: Path) -> list[tuple[str, str]]:
    """(the 60 characters before it, the literal) of every string and template literal of the
    source; a template's ``${...}`` parts are ``{}`` in it, and their own literals are listed too."""
    text = code(path)
    out: list[tuple[str, str]] = []

    def string(i: int, quote: str) -> int:  # text[i] is the opening quote; returns the index after the closing one
        start, parts, j = i, [], i + 1
        while j < len(text) and text[j] != quote:
            if text[j] == "\\":
                parts.append(text[j:j + 2])
                j += 2
            elif quote == "`" and text.startswith("${", j):
                parts.append("{}")
                j = expression(j + 2)
            else:
                parts.append(text[j])
                j += 1
        out.append((text[max(0, start - 60):start], "".join(parts)))
        return j + 1

    def expression(i: int) -> int:  # inside ${...}: returns the index after its closing brace
        depth = 1
        while i < len(text) and depth:
            if text[i] in "\"'`":
                i = string(i, text[i])
                continue
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        return i

    i = 0
    while i < len(text):
        if text[i] in "\"'`":
            i = string(i, text[i])
        elif text[i] == "/" and re.search(r"[(,=:!&|?]\s*$", text[max(0, i - 20):i]):  # a regular expression
            end = re.match(r"/(?:[^/\\\n\[]|\\.|\[(?:[^\]\\]|\\.)*\])+/[a-z]*", text[i:])
            i += end.end() if end else 1
        else:
            i += 1
    return out


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_has_every_english_string_with_its_placeholders(lang: str) -> None:
    english, other = catalogue("en"), catalogue(lang)
    missing = sorted(set(english) - set(other))
    unknown = sorted(set(other) - set(english))
    assert not missing, f"{lang}.json lacks {missing}"
    assert not unknown, f"{lang}.json has keys English lacks: {unknown}"
    for key, text in english.items():
        assert set(PLACEHOLDER.findall(other[key])) == set(PLACEHOLDER.findall(text)), (lang, key, other[key])
        assert other[key].strip(), (lang, key)


def test_every_key_the_pages_ask_for_is_in_the_catalogue() -> None:
    english = catalogue("en")
    groups = {key.split(".")[0] for key in english}
    asked, prefixes = set(), set()
    for path in SOURCES:
        for _, value in literals(path):
            head = value.split(".")[0]
            if head in groups and re.fullmatch(r"[a-z-]+\.[A-Za-z0-9-]+", value):
                asked.add(value)
            elif head in groups and re.fullmatch(r"[a-z-]+\.[a-z-]*\{\}", value):
                prefixes.add(value[:-2])  # t(`group.${code}`): some key of the group
        # term("group", code): the group has entries
        prefixes |= {f"{g}." for g in re.findall(r'term\("([a-z-]+)"', code(path))}
    assert asked, "no key found: the scan is broken"
    assert not sorted(asked - set(english)), f"asked for but missing: {sorted(asked - set(english))}"
    for prefix in prefixes:
        assert any(key.startswith(prefix) for key in english), f"no key starts with {prefix!r}"


def test_no_string_a_person_reads_is_left_in_the_javascript() -> None:
    english = catalogue("en")
    found = []
    for path in SOURCES:
        if path.name == "i18n.js":  # the languages' own names, as each language writes it
            continue
        for before, value in literals(path):
            words = re.findall(r"[A-Za-z]{2,}", value)
            if not words or value in english or value in NOT_READ:
                continue
            if re.search(r"(class|import|from|startsWith|dataset|style|querySelector\w*|console\.\w+)\W*$", before):
                continue  # a class name, a module, a style, a selector, a developer's console line
            if re.fullmatch(r"[a-z0-9_.:/#?&=\[\]{}*+-]*|[A-Z]{1,3}", value):  # a code, a key, an id, a path
                continue
            if re.fullmatch(r" ?[a-z]+(-[a-z]+)*", value) and "class: `" in before:
                continue  # a class name added in a class template
            if re.fullmatch(r"[a-z]+(-[a-z]+)*( [a-z]+(-[a-z]+)*)*", value) and re.search(
                    r"(class: [^,]*|\.(add|remove|toggle)\(|includes\(|===? )$", before.rstrip(" (")):
                continue
            found.append(f"{path.name}: {value!r}")
    assert not found, "strings left in the code (put them in web/i18n/en.json):\n" + "\n".join(found)


def test_the_right_to_left_languages_are_marked_so_and_the_others_not() -> None:
    source = (ROOT / "web" / "js" / "i18n.js").read_text(encoding="utf-8")
    for lang in LANGUAGES:
        match = re.search(rf'\b{lang}: \{{[^}}]*dir: "(\w+)"', source)
        assert match, lang
        assert match.group(1) == ("rtl" if lang in ("ur", "fa") else "ltr"), lang
