"""Counts in GM and player text are proper English: "1 problem", "3 problems", never "1 problem(s)"."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from canon.structured import load_lore_file
from canon.structured.reports import IngestReport
from canon.wording.counts import counted, listed, plural_of

ROOT = Path(__file__).resolve().parents[3]
#: The packages whose strings reach a GM or a player (the emulator and the scripts speak to developers).
PRODUCT = ("canon", "memory", "bot", "cogs", "config")
_HEDGED = re.compile(r"[A-Za-z]\((s|es|ies)\)")


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (1, "problem", "1 problem"),
        (3, "problem", "3 problems"),
        (0, "warning", "0 warnings"),
        (2, "entity", "2 entities"),
        (2, "day", "2 days"),
        (2, "match", "2 matches"),
        (1_200, "scene", "1,200 scenes"),
        (2, "person", "2 people"),
    ],
)
def test_counted_says_the_count_in_english(n: int, noun: str, expected: str) -> None:
    assert counted(n, noun, "people" if noun == "person" else None) == expected


def test_plural_of_follows_the_regular_rules() -> None:
    assert [plural_of(w) for w in ("proposal", "entry", "key", "box")] == [
        "proposals",
        "entries",
        "keys",
        "boxes",
    ]


def _literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_string_of_the_product_hedges_a_count_with_s_in_brackets() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text.strip()[:80]}"
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
        if "offline/emulator" not in path.as_posix()
        for line, text in _literals(path)
        if _HEDGED.search(text)
    ]
    assert not found, "counts go through canon.wording.counts.counted:\n" + "\n".join(found)


def test_a_failed_import_counts_one_problem_in_the_singular() -> None:
    loaded = load_lore_file(
        "creatures:\n  - name: Grey Wolf\n    size: huge\n    colour: grey\n", "wolves.yaml"
    )
    report = IngestReport(campaign_id=1, status="failed", errors=loaded.problems[:1])
    assert report.summary().startswith("Nothing was written: 1 problem in wolves.yaml.")
    two = IngestReport(campaign_id=1, status="failed", errors=loaded.problems[:2])
    assert "2 problems in wolves.yaml" in two.summary()


def test_irregular_plurals_and_lists_read_as_english() -> None:
    assert counted(12, "person") == "12 people" and counted(1, "person") == "1 person"
    assert listed(["2 eras"]) == "2 eras" and listed(["a", "b"]) == "a and b"
    assert listed(["a", "b", "c"]) == "a, b and c" and listed([]) == ""
