"""The loader's two YAML parsers agree: libyaml's C events (the fast path) and ruamel.yaml's (the reference).

Whatever the file, valid or broken in any way, the problems (line, column, message) and the records must be
the same whichever parser read it; only the time differs.
"""

from __future__ import annotations

import random

import pytest

import canon.structured.tree as tree
from canon.structured import LoadResult, load_lore_file
from tests.helpers.paths import YAML_FIXTURES

FIXTURES = YAML_FIXTURES


def outcome(result: LoadResult) -> tuple[object, ...]:
    return (
        [(p.line, p.column, p.message) for p in result.problems],
        [(e.id, e.entity_type, e.name, e.attributes, e.visibility, e.line, e.column) for e in result.entries],
        [
            (r.type, r.source_id, r.target_id, r.line, r.column, r.valid_from, r.valid_until)
            for r in result.relations
        ],
        [(u.line, u.column, u.target_id) for u in result.unresolved],
    )


def both(text: str | bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple[object, ...], tuple[object, ...]]:
    fast = outcome(load_lore_file(text, "f.yaml"))
    with monkeypatch.context() as patch:
        patch.setattr(tree, "LIBYAML_LOADER", None)
        slow = outcome(load_lore_file(text, "f.yaml"))
    return fast, slow


def test_libyaml_is_there() -> None:
    assert tree.LIBYAML_LOADER is not None, "PyYAML without libyaml: the loader falls back to ruamel.yaml"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.yaml")))
def test_every_fixture_reads_the_same_with_either_parser(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = both((FIXTURES / name).read_bytes(), monkeypatch)
    assert fast == slow


def test_mutated_files_read_the_same_with_either_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random edits of the fixtures (deleted and inserted YAML punctuation): the same problems, every time."""
    texts = [
        p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("*.yaml")) if "not_utf8" not in p.name
    ]
    pieces = [*":-[]{},#&*!|>'\"?%@`", "\n", " ", "  ", "\n  ", "x", "é", "---\n", "...\n", "\\"]
    rng = random.Random(20261130)
    for _ in range(150):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            if rng.random() < 0.5 and text:
                text = text[:at] + text[at + 1 :]
            else:
                text = text[:at] + rng.choice(pieces) + text[at:]
        fast, slow = both(text, monkeypatch)
        assert fast == slow, text
