"""Check that the tests mirror the packages they test, with their helpers in one place.

Where a test module belongs is decidable only in part, so the rules are the parts that are:

- no test module at the top of `tests/` (only `conftest.py` and `__init__.py` live there);
- every folder under `tests/` mirrors a folder of the repository (`tests/bot/services/` for `bot/services/`) or is
  one of the tests' own rooms: `e2e/` (whole-bot tests and the processes they start), `helpers/` (shared test
  code), `fixtures/` (data) and `deployment/` (the Dockerfile and Compose files, which are no package);
- every folder of test modules is a package (`__init__.py`), so two modules may share a name in two folders;
- code that is neither a test module nor a conftest lives in `helpers/` (or with the e2e tests it serves);
- a test module named after a module (`test_NAME.py`) sits in the folder of that module when the name is found
  in exactly one folder of the mirrored package and not in the folder the test is in, or named after a folder
  and a module in it (`tests/bot/test_cli_library.py` for `bot/cli/library.py`);
- every `tests.` module the tests and benches import exists (a test or helper that moved leaves no stale import).

    .venv/bin/python scripts/check_test_layout.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWN_ROOMS = ("e2e", "helpers", "fixtures", "deployment")
TOP_LEVEL_FILES = {"__init__.py", "conftest.py"}


def _folders(tests: Path) -> list[Path]:
    return sorted(p for p in tests.rglob("*") if p.is_dir() and "__pycache__" not in p.parts)


def _misplaced(root: Path, test: Path) -> str | None:
    """The folder a `test_NAME.py` belongs in, when that is decidable and not where it is."""
    rel = test.parent.relative_to(root / "tests")
    mirrored = root / rel
    name = test.stem.removeprefix("test_") + ".py"
    if not mirrored.is_dir() or (mirrored / name).exists():
        return None
    folder, _, rest = test.stem.removeprefix("test_").partition("_")
    if rest and (mirrored / folder / f"{rest}.py").is_file():  # test_cli_library.py for cli/library.py
        return (Path("tests") / rel / folder).as_posix() + "/"
    homes = sorted({p.parent for p in mirrored.rglob(name) if "__pycache__" not in p.parts})
    if len(homes) != 1:
        return None
    return (Path("tests") / homes[0].relative_to(root)).as_posix() + "/"


def _imported_test_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name == "tests" or name.startswith("tests.")}


def _stale_imports(root: Path) -> list[str]:
    found = []
    for folder in ("tests", "bench"):
        for path in sorted((root / folder).rglob("*.py")):
            for name in sorted(_imported_test_modules(path)):
                target = root.joinpath(*name.split("."))
                if not (target.with_suffix(".py").is_file() or (target / "__init__.py").is_file()):
                    rel = path.relative_to(root).as_posix()
                    found.append(
                        f"{rel}: imports {name}, which does not exist (shared test code is in tests/helpers/)"
                    )
    return found


def findings(root: Path) -> list[str]:
    """Return every test module or folder out of place, as a line a person can act on."""
    tests = root / "tests"
    found: list[str] = []
    for path in sorted(tests.glob("*.py")):
        if path.name not in TOP_LEVEL_FILES:
            found.append(f"tests/{path.name}: move it into the folder of what it tests (or tests/helpers/)")
    for folder in _folders(tests):
        rel = folder.relative_to(tests)
        own_room = rel.parts[0] in OWN_ROOMS
        if not own_room and not (root / rel).is_dir():
            found.append(f"tests/{rel.as_posix()}/: no folder {rel.as_posix()}/ in the repository to mirror")
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        if modules and rel.parts[0] != "fixtures" and not (folder / "__init__.py").exists():
            found.append(f"tests/{rel.as_posix()}/: add an __init__.py (test folders are packages)")
        if own_room:
            continue
        for module in sorted(modules):
            if module.name == "conftest.py":
                continue
            if not module.name.startswith("test_"):
                found.append(
                    f"tests/{rel.as_posix()}/{module.name}: shared test code lives in tests/helpers/"
                )
            elif home := _misplaced(root, module):
                found.append(
                    f"tests/{rel.as_posix()}/{module.name}: it tests a module of {home[6:]}; move it to {home}"
                )
    return found + _stale_imports(root)


def main() -> int:
    found = findings(ROOT)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} test module(s) or folder(s) out of place", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
