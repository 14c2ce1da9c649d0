"""A one-question process builds its regular expressions from the instructions the last one kept: the very
patterns Python compiles, and none from a file that is not this Python's or not readable."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli import kept_patterns as kept_module
from bot.cli.kept_patterns import FILE_NAME, kept_patterns
from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.paths import REPO


def fresh(text: str) -> str:
    """Return a pattern no earlier compile in this process made (Python keeps the patterns it compiled)."""
    return rf"(?:{uuid.uuid4().hex})?{text}"


@pytest.fixture
def rewrite_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every new pattern (a test's few patterns compile quicker than the threshold)."""
    monkeypatch.setattr(kept_module, "_REWRITE_AFTER_S", 0.0)


def test_a_kept_pattern_is_built_again_without_parsing_and_matches_as_python_s(
    tmp_path: Path, rewrite_always: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = fresh(r"(?P<name>[A-Z]\w+) of (?P<place>the \w+)(?i: HOLD)?")
    with kept_patterns(tmp_path):
        first = re.compile(text, re.IGNORECASE)
    assert (tmp_path / FILE_NAME).is_file()
    re.purge()
    # The next process: the pattern is not parsed again, it comes from the file.
    from re import _parser  # type: ignore[attr-defined]

    parsed: list[object] = []
    parse = _parser.parse

    def spied(pattern: object, *args: object) -> object:
        parsed.append(pattern)
        return parse(pattern, *args)

    monkeypatch.setattr(_parser, "parse", spied)
    with kept_patterns(tmp_path):
        again = re.compile(text, re.IGNORECASE)
    monkeypatch.setattr(_parser, "parse", parse)
    assert text not in parsed
    assert again == first and again is not first
    assert again.groupindex == first.groupindex and again.flags == first.flags
    found = again.search("It was Mara of the Reach hold.")
    assert found is not None and found.group("name", "place") == ("Mara", "the Reach")


def test_python_s_compiler_is_back_after_the_block_even_when_it_fails(tmp_path: Path) -> None:
    from re import _compiler  # type: ignore[attr-defined]

    python_s = _compiler.compile
    with pytest.raises(RuntimeError), kept_patterns(tmp_path):
        assert _compiler.compile is not python_s
        raise RuntimeError("the question failed")
    assert _compiler.compile is python_s


def test_a_bad_pattern_raises_as_python_s_and_keeps_nothing(tmp_path: Path, rewrite_always: None) -> None:
    with pytest.raises(re.error, match="missing \\)"), kept_patterns(tmp_path):
        re.compile(fresh("(unclosed"))
    assert not (tmp_path / FILE_NAME).exists()


@pytest.mark.parametrize(
    "content",
    [b"", b"not marshal at all", b"\xff" * 40],
    ids=["empty", "text", "garbage"],
)
def test_an_unreadable_file_is_ignored_and_replaced(
    tmp_path: Path, rewrite_always: None, content: bytes
) -> None:
    (tmp_path / FILE_NAME).write_bytes(content)
    text = fresh(r"\d+ gold")
    with kept_patterns(tmp_path):
        assert re.compile(text).search("paid 40 gold")
    assert kept_module._read(tmp_path / FILE_NAME)[(text, 0)]


def test_another_python_s_instructions_are_not_read(tmp_path: Path, rewrite_always: None) -> None:
    import marshal

    text = fresh("wyrm")
    # Instructions that would match "drake" instead, made by some other Python.
    (tmp_path / FILE_NAME).write_bytes(
        marshal.dumps(("cpython-99 elsewhere", {(text, 0): (0, [1], 0, {}, (None,))}))
    )
    with kept_patterns(tmp_path):
        compiled = re.compile(text)
    assert compiled.search("a wyrm") and not compiled.search("a drake")


def test_instructions_the_regex_engine_refuses_are_compiled_as_usual(tmp_path: Path) -> None:
    text = fresh("barrow")
    kept_module._write(tmp_path / FILE_NAME, {(text, 0): (0, [999_999, 7], 0, {}, (None,))})
    with kept_patterns(tmp_path):
        compiled = re.compile(text)
    assert compiled.search("the barrow")


def test_a_folder_that_cannot_take_the_file_goes_without(tmp_path: Path, rewrite_always: None) -> None:
    missing = tmp_path / "no such folder"
    with kept_patterns(missing):
        assert re.compile(fresh("ember")).search("an ember")
    assert not missing.exists()


def test_quick_new_patterns_do_not_rewrite_the_file(tmp_path: Path) -> None:
    # Patterns made of a question's words compile in a blink: the file is not rewritten for them.
    with kept_patterns(tmp_path):
        re.compile(fresh("stormcrow"))
    assert not (tmp_path / FILE_NAME).exists()


def test_a_cold_question_answers_the_same_with_the_kept_patterns(cli_env: DatabaseTarget) -> None:
    assert CliRunner().invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    probe = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "sys.argv = ['lorekeeper', 'lore', 'who rules the reach', '--campaign', 'Reach']\n"
        "main()\n"
    )

    def ask() -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
        )
        return done.stdout

    first = ask()
    kept = Path("data") / FILE_NAME
    assert kept.is_file(), first
    assert ask() == first and "Nothing the table knows" in first
