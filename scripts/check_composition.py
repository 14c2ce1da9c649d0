"""Check that services are built in one place: the composition root, `bot/app.py` (`build_services`), and its
room for a one-question process, `bot/lore_reader.py` (`open_lore_reader`, which builds the few a question uses).

A service is a class named as one (`...Service`, `...Desk`, `...Queries`, `...Admin`, `...Answers`,
`...Access`) anywhere in the product, or any class with its own `__init__` in `bot/services/`. Calling one
anywhere else in the product's packages (cogs, CLI, other services) is a finding: a cog or a command receives the
services it uses, it never builds them. Tests and benchmarks compose their own.

    .venv/bin/python scripts/check_composition.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs", "memory", "canon", "config")
COMPOSITION_ROOTS = ("bot/app.py", "bot/lore_reader.py")
SHOWN_ROOTS = " and ".join(COMPOSITION_ROOTS)
SUFFIXES = ("Service", "Desk", "Queries", "Admin", "Answers", "Access")
SERVICE_HOME = "bot/services/"
#: A facade that builds its own private parts (not services the application shares), by module.
OWN_PARTS = {"memory/knowledge/service.py": {"SourceAdmin"}}


def _modules(root: Path) -> list[tuple[str, ast.Module]]:
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            found.append((rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)))
    return found


def _has_init(node: ast.ClassDef) -> bool:
    return any(isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body)


def service_classes(modules: list[tuple[str, ast.Module]]) -> set[str]:
    """Return the names of the product's service classes."""
    names: set[str] = set()
    for rel, tree in modules:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            if node.name.endswith(SUFFIXES) or (rel.startswith(SERVICE_HOME) and _has_init(node)):
                names.add(node.name)
    return names


def findings(root: Path = ROOT) -> list[str]:
    """Return one line for every construction of a service outside the composition root."""
    modules = _modules(root)
    services = service_classes(modules)
    found = []
    for rel, tree in modules:
        if rel in COMPOSITION_ROOTS:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else None
            )
            if name in services and name not in OWN_PARTS.get(rel, ()):
                found.append(f"{rel}:{node.lineno}: builds {name}; only {SHOWN_ROOTS} build services")
    return found


def main() -> int:
    found = findings()
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} services built outside the composition root")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
