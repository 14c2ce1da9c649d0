"""The lint's visibility check: who may see what is decided in `canon/visibility.py` and nowhere else."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import check_visibility  # noqa: E402


def _found(source: str) -> list[int]:
    return [line for line, _ in check_visibility.findings(ast.parse(source))]


@pytest.mark.parametrize(
    "source",
    [
        "lock = entity.visibility == Visibility.GM_ONLY",
        "shown = row.visibility != 'gm_only'",
        "q = select(t).where(t.c.visibility == Visibility.PUBLIC.value)",
        "q = select(t).where(t.visibility.in_(['public']))",
        "hidden = row['visibility'] == SourceVisibility.HIDDEN",
        "hidden = row.get('visibility') == 'hidden'",
        "hidden = {k for k, d in defined.items() if d.visibility == 'gm_only'}",
        "same = row.visibility == entry.visibility",
        "values = {'visibility': 'gm_only' if hidden else 'public'}",
        "copy = e.model_copy(update={'visibility': 'gm_only'})",
        "values['visibility'] = 'gm_only'",
        "row = Row(visibility='gm_only')",
        "kept = [r for r in results if viewer == Viewer.GM or not r.hidden]",
        "shown = viewer == Viewer.GM or not entity_hidden(e)",
        "drop = state is not None and viewer == Viewer.PLAYER and view_hidden(state)",
    ],
)
def test_a_visibility_decided_by_hand_is_a_finding(source: str) -> None:
    assert _found(source) == [1]


@pytest.mark.parametrize(
    "source",
    [
        "row = Row(visibility=content.visibility)",  # written through, not decided
        "visibility = entry.visibility or 'public'",  # a default, not a decision
        "values = {'visibility': visibility_of(hidden).value}",
        "lock = LOCK if entity_hidden(entity) else ''",
        "kept = seen(viewer, results)",
        "named = getattr(entry, 'gm_only', ())",  # the YAML field's name, not a visibility
        "if viewer == Viewer.GM and any(r.hidden for r in results): pass",  # the GM's own note of hidden rows
        "visible = [r for r in results if not r.hidden]",  # a flag canon.visibility decided
    ],
)
def test_reading_what_canon_visibility_decided_is_not_a_finding(source: str) -> None:
    assert _found(source) == []


def test_the_program_decides_visibility_in_one_place() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_visibility.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout


def test_a_bypass_in_a_module_fails_the_check(tmp_path: Path) -> None:
    """The check run on a module that compares a visibility itself (as the entity card once did) fails."""
    module = tmp_path / "card.py"
    module.write_text(
        "from canon.models import Visibility\n\n"
        "def lock(entity):\n"
        "    return ' (locked)' if entity.visibility == Visibility.GM_ONLY else ''\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_visibility.py"), str(module)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 1
    assert "card.py:4: compares a visibility" in done.stdout
