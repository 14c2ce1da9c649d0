"""The run's Tesseract: a picture read once is answered as it was read; anything else is the program's own."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.tesseract import remembering_tesseract

# A stand-in for the program: notes each run, answers with what it was given, fails on the picture "bad".
STAND_IN = """#!/bin/sh
echo run >> "{runs}"
[ "$1" = "--list-langs" ] && {{ echo eng; exit 0; }}
picture=$(cat)
[ "$picture" = "bad" ] && {{ echo "half an answer"; exit 1; }}
echo "read $picture with $*"
"""


def programs(tmp_path: Path) -> tuple[Path, Path]:
    real = tmp_path / "real-tesseract"
    real.write_text(STAND_IN.format(runs=tmp_path / "runs"))
    real.chmod(0o755)
    return remembering_tesseract(tmp_path / "bin", tmp_path / "read", str(real)), tmp_path / "runs"


def read(program: Path, picture: bytes, *options: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(program), "stdin", "stdout", *options], input=picture, capture_output=True, check=False
    )


def runs(noted: Path) -> int:
    return len(noted.read_text().splitlines()) if noted.exists() else 0


def test_a_picture_read_again_with_the_same_options_is_answered_as_first_read(tmp_path: Path) -> None:
    program, noted = programs(tmp_path)
    first = read(program, b"page one", "-l", "eng")
    assert first.returncode == 0 and first.stdout == b"read page one with stdin stdout -l eng\n"
    assert read(program, b"page one", "-l", "eng").stdout == first.stdout
    assert runs(noted) == 1
    # Another picture, or the same one with other options, is read by the program.
    assert read(program, b"page two", "-l", "eng").stdout == b"read page two with stdin stdout -l eng\n"
    assert read(program, b"page one", "-l", "deu").stdout == b"read page one with stdin stdout -l deu\n"
    assert runs(noted) == 3
    assert [p.name for p in (tmp_path / "read").iterdir() if p.name.startswith("picture")] == []


def test_a_failed_read_is_the_programs_answer_and_is_not_remembered(tmp_path: Path) -> None:
    program, noted = programs(tmp_path)
    for _ in range(2):
        failed = read(program, b"bad")
        assert failed.returncode == 1 and failed.stdout == b"half an answer\n"
    assert runs(noted) == 2


def test_anything_but_a_reading_goes_to_the_program(tmp_path: Path) -> None:
    program, noted = programs(tmp_path)
    for _ in range(2):
        listed = subprocess.run([str(program), "--list-langs"], capture_output=True, check=False)
        assert listed.returncode == 0 and listed.stdout == b"eng\n"
    assert runs(noted) == 2
