"""Check that the rooms stay livable: files, classes and functions under their size limits.

Limits (house style): a file at most 600 lines (migrations aside), a class at most 300, a function at most 80.
The product's packages and `scripts/` keep all three. `tests/` and `bench/` keep the file limit only: a test
reads best as one story from setup to the last assertion, and a benchmark's generator as one recipe, so their
functions and classes may run longer; their files still split by theme.
Prints one line per finding, largest first, and exits 1 when there is any.

    .venv/bin/python scripts/check_rooms.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs", "memory", "canon", "config", "scripts")
FILE_LIMIT_ONLY = ("tests", "bench")
EXEMPT = ("bot/migrations/versions/",)
MAX_FILE = 600
MAX_CLASS = 300
MAX_FUNCTION = 80


def _python_files(root: Path, folder: str) -> list[Path]:
    return sorted(p for p in (root / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _oversized_parts(rel: str, source: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=rel)):
        if isinstance(node, ast.ClassDef):
            limit, kind = MAX_CLASS, "class"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            limit, kind = MAX_FUNCTION, "function"
        else:
            continue
        span = (node.end_lineno or node.lineno) - node.lineno + 1
        if span > limit:
            found.append((span, f"{rel}:{node.lineno}: {kind} {node.name} of {span} lines (limit {limit})"))
    return found


def findings(root: Path = ROOT) -> list[tuple[int, str]]:
    """Return (size, description) for every file, class and function over its limit."""
    found: list[tuple[int, str]] = []
    for folder in PACKAGES + FILE_LIMIT_ONLY:
        for path in _python_files(root, folder):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(EXEMPT):
                continue
            source = path.read_text(encoding="utf-8")
            lines = source.count("\n")
            if lines > MAX_FILE:
                found.append((lines, f"{rel}: file of {lines} lines (limit {MAX_FILE})"))
            if folder in PACKAGES:
                found += _oversized_parts(rel, source)
    return sorted(found, reverse=True)


def main() -> int:
    found = findings(ROOT)
    for _, line in found:
        print(line)
    if found:
        print(f"{len(found)} rooms over their size limits")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
