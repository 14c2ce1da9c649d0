"""The test layout check: tests mirror the packages they test, and their helpers live in one place."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from tests.helpers.paths import REPO


def _check() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_test_layout", REPO / "scripts" / "check_test_layout.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: Path, files: list[str]) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")
    return root


CODE = ["bot/__init__.py", "bot/services/__init__.py", "bot/services/recaps.py", "bot/ops/backup.py"]


def test_the_repository_as_it_is_passes() -> None:
    assert _check().findings(REPO) == []


def test_a_tree_that_mirrors_its_packages_passes(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        [
            *CODE,
            "tests/__init__.py",
            "tests/conftest.py",
            "tests/bot/__init__.py",
            "tests/bot/services/__init__.py",
            "tests/bot/services/test_recaps.py",
            "tests/helpers/__init__.py",
            "tests/helpers/llm_stub.py",
            "tests/e2e/__init__.py",
            "tests/e2e/bot_process.py",
            "tests/fixtures/yaml/bestiary.yaml",
        ],
    )
    assert _check().findings(root) == []


def test_each_misplacement_is_a_finding_that_says_where_to_go(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        [
            *CODE,
            "tests/__init__.py",
            "tests/test_emulator.py",
            "tests/bot/__init__.py",
            "tests/bot/test_recaps.py",
            "tests/bot/voice_fixtures.py",
            "tests/sandbox/__init__.py",
            "tests/sandbox/test_api.py",
            "tests/bot/ops/test_backup.py",
            "tests/bot/test_ops_backup.py",
        ],
    )
    assert _check().findings(root) == [
        "tests/test_emulator.py: move it into the folder of what it tests (or tests/helpers/)",
        "tests/bot/test_ops_backup.py: it tests a module of bot/ops/; move it to tests/bot/ops/",
        "tests/bot/test_recaps.py: it tests a module of bot/services/; move it to tests/bot/services/",
        "tests/bot/voice_fixtures.py: shared test code lives in tests/helpers/",
        "tests/bot/ops/: add an __init__.py (test folders are packages)",
        "tests/sandbox/: no folder sandbox/ in the repository to mirror",
    ]


def test_an_import_of_a_test_module_that_moved_is_a_finding(tmp_path: Path) -> None:
    root = _tree(
        tmp_path, [*CODE, "tests/__init__.py", "tests/helpers/__init__.py", "tests/helpers/llm_stub.py"]
    )
    (root / "tests/bot/services").mkdir(parents=True)
    (root / "tests/bot/__init__.py").write_text("")
    (root / "tests/bot/services/__init__.py").write_text("")
    (root / "tests/bot/services/test_recaps.py").write_text(
        "from tests.helpers.llm_stub import LLMStub\nfrom tests.llm_stub import Reply\nimport tests.conftest\n"
    )
    assert _check().findings(root) == [
        "tests/bot/services/test_recaps.py: imports tests.conftest, which does not exist"
        " (shared test code is in tests/helpers/)",
        "tests/bot/services/test_recaps.py: imports tests.llm_stub, which does not exist"
        " (shared test code is in tests/helpers/)",
    ]
