"""The size check: files, classes and functions under their limits, tests and benches included (files only)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.paths import REPO


def _check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_rooms", REPO / "scripts" / "check_rooms.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _lines(count: int) -> str:
    return "".join(f"X{n} = {n}\n" for n in range(count))


def _function(name: str, body_lines: int, indent: str = "") -> str:
    body = "".join(f"{indent}    x{n} = {n}\n" for n in range(body_lines))
    return f"{indent}def {name}() -> None:\n{body}"


def _messages(root: Path) -> list[str]:
    return [message for _, message in _check().findings(root)]


def test_the_repository_as_it_is_passes() -> None:
    assert _check().findings(REPO) == []


@pytest.mark.parametrize(
    "name", ["bot/big.py", "scripts/big.py", "tests/bot/test_big.py", "tests/helpers/big.py", "bench/big.py"]
)
def test_a_file_over_600_lines_is_a_finding_wherever_it_is(tmp_path: Path, name: str) -> None:
    _write(tmp_path, name, _lines(601))
    assert _messages(tmp_path) == [f"{name}: file of 601 lines (limit 600)"]


@pytest.mark.parametrize("name", ["bot/full.py", "tests/bot/test_full.py", "bench/full.py"])
def test_a_file_of_600_lines_passes(tmp_path: Path, name: str) -> None:
    _write(tmp_path, name, _lines(600))
    assert _check().findings(tmp_path) == []


def test_migrations_may_run_long(tmp_path: Path) -> None:
    _write(tmp_path, "bot/migrations/versions/0001_start.py", _lines(900))
    assert _check().findings(tmp_path) == []


@pytest.mark.parametrize("folder", ["bot", "cogs", "memory", "canon", "config", "scripts"])
def test_a_long_function_or_class_in_the_product_or_scripts_is_a_finding(tmp_path: Path, folder: str) -> None:
    _write(
        tmp_path,
        f"{folder}/long.py",
        _function("long", 80) + "\n\nclass Big:\n" + _function("m", 10, "    ") * 30,
    )
    found = _messages(tmp_path)
    assert f"{folder}/long.py:1: function long of 81 lines (limit 80)" in found
    assert any(line.startswith(f"{folder}/long.py:") and "class Big of" in line for line in found)


@pytest.mark.parametrize("name", ["tests/bot/test_story.py", "bench/recipe.py"])
def test_tests_and_benches_may_have_long_functions_and_classes(tmp_path: Path, name: str) -> None:
    _write(
        tmp_path, name, _function("test_story", 120) + "\n\nclass Big:\n" + _function("m", 10, "    ") * 30
    )
    assert _check().findings(tmp_path) == []


def test_findings_come_largest_first_and_main_fails_on_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "tests/bot/test_a.py", _lines(700))
    _write(tmp_path, "bench/b.py", _lines(650))
    check = _check()
    assert [message for _, message in check.findings(tmp_path)] == [
        "tests/bot/test_a.py: file of 700 lines (limit 600)",
        "bench/b.py: file of 650 lines (limit 600)",
    ]
    monkeypatch.setattr(check, "ROOT", tmp_path)
    assert check.main() == 1
    assert capsys.readouterr().out.endswith("2 rooms over their size limits\n")
