"""Fail when a module decides who may see what without `canon/visibility.py` (the one home of that rule).

Read from the syntax tree of every module of the program (cogs, bot, memory, canon, config, bench, scripts),
a finding is:
- a comparison one side of which reads a visibility: a `.visibility` attribute or column, a `["visibility"]`
  item, a `.get("visibility")`, a stored word of it (`"gm_only"`, `"hidden"` beside a visibility), or a member
  of `Visibility` / `SourceVisibility`; or the SQL way of one (`t.visibility.in_(...)`, `.is_(...)`);
- the word `"gm_only"` written as a visibility's value (a dict's `"visibility"`, a `visibility=` argument, an
  assignment or a conditional): rows are written with `visibility_of(...)`, so a misspelt word cannot make
  a secret public;
- `may_see` written by hand: `viewer == Viewer.GM or not x.hidden` (or `Viewer.PLAYER and view_hidden(x)`).

Writing a visibility through (`visibility=content.visibility`), defaulting one (`x.visibility or "public"`)
and reading a `hidden` flag `canon.visibility` already decided are not findings.
Run as `python scripts/check_visibility.py [files...]`; it prints each finding and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cogs", "bot", "memory", "canon", "config", "bench", "scripts")
HOME = Path("canon/visibility.py")
# The enums themselves are defined here; nothing in these files decides anything.
DEFINITIONS = {HOME, Path("canon/models.py")}
ENUMS = {"Visibility", "SourceVisibility"}
STORED_WORDS = {"gm_only"}
VIEWER_MEMBERS = {"GM", "PLAYER"}
SQL_TESTS = {"in_", "not_in", "is_", "is_not", "isnot", "notin_", "like", "startswith"}


def _reads_visibility(node: ast.expr) -> bool:
    """Return whether an expression reads a visibility (a column, an item, an enum member or a stored word)."""
    if isinstance(node, ast.Attribute) and node.attr in {"value", "_value_"}:
        return _reads_visibility(node.value)
    if isinstance(node, ast.Attribute):
        if node.attr == "visibility":
            return True
        return isinstance(node.value, ast.Name) and node.value.id in ENUMS
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value == "visibility"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        first = node.args[0] if node.args else None
        return isinstance(first, ast.Constant) and first.value == "visibility"
    if isinstance(node, ast.Constant):
        return node.value in STORED_WORDS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_reads_visibility(e) for e in node.elts)
    return False


def _is_word(node: ast.expr | None) -> bool:
    """Return whether an expression is (or may be) the stored word `"gm_only"`."""
    if isinstance(node, ast.Constant):
        return node.value in STORED_WORDS
    if isinstance(node, ast.IfExp):
        return _is_word(node.body) or _is_word(node.orelse)
    return False


def _viewer_test(node: ast.expr) -> bool:
    """Return whether an expression compares something to `Viewer.GM` or `Viewer.PLAYER`."""
    if not isinstance(node, ast.Compare):
        return False
    return any(
        isinstance(side, ast.Attribute)
        and side.attr in VIEWER_MEMBERS
        and isinstance(side.value, ast.Name)
        and side.value.id == "Viewer"
        for side in (node.left, *node.comparators)
    )


def _hidden_test(node: ast.expr) -> bool:
    """Return whether an expression reads a `hidden` flag (`x.hidden`, `not entity_hidden(x)`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        node = node.operand
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return name.endswith("_hidden")
    return isinstance(node, ast.Attribute) and node.attr == "hidden"


def _sql_test(node: ast.AST) -> bool:
    """Return whether a node tests a visibility column the SQL way (`t.visibility.in_(...)`, `.is_(...)`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SQL_TESTS
        and _reads_visibility(node.func.value)
    )


def findings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Yield (line, what) for every visibility decided outside `canon.visibility`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_reads_visibility(side) for side in (node.left, *node.comparators)):
                yield (
                    node.lineno,
                    "compares a visibility: ask canon.visibility (entity_hidden, view_hidden, ...)",
                )
        elif _sql_test(node):
            yield node.lineno, "compares a visibility in SQL: ask canon.visibility (*_is_public_sql)"
        elif isinstance(node, ast.BoolOp):
            if any(_viewer_test(v) for v in node.values) and any(_hidden_test(v) for v in node.values):
                yield node.lineno, "writes may_see by hand: use canon.visibility.may_see or seen"
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "visibility" and _is_word(value):
                    yield node.lineno, 'writes the word "gm_only": use canon.visibility.visibility_of'
        elif isinstance(node, ast.keyword):
            if node.arg == "visibility" and _is_word(node.value):
                yield node.value.lineno, 'writes the word "gm_only": use canon.visibility.visibility_of'
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _is_word(node.value):
            yield node.lineno, 'writes the word "gm_only": use canon.visibility.visibility_of'


def modules(args: list[str]) -> list[Path]:
    """Return the modules to read: those named, or every module of the program's packages."""
    if args:
        return [Path(a) for a in args]
    return sorted(p.relative_to(ROOT) for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def main(args: list[str]) -> int:
    """Print every finding; return 1 when there is one."""
    count = 0
    for path in modules(args):
        if path in DEFINITIONS:
            continue
        source = (ROOT / path).read_text(encoding="utf-8")
        for line, what in findings(ast.parse(source, filename=str(path))):
            print(f"{path}:{line}: {what}")
            count += 1
    if count:
        print(f"{count} visibility check(s) outside canon/visibility.py: who may see what has one home.")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
