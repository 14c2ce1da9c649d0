"""Tesseract for the test run: the program itself, remembering what it read (see `remembering_tesseract`)."""

from __future__ import annotations

from pathlib import Path


def remembering_tesseract(folder: Path, remembered: Path, real: str) -> Path:
    """Write `folder/tesseract`: Tesseract itself, except that a picture it already read with the same options
    (in `remembered`, shared by the test processes of a run) is answered with what it read then.

    Tesseract reads the same picture the same way, and the suite's scans are a few pages read by many tests
    (each import, reindex and restore reads them again): seconds a page. The product still runs the program it
    is told to, with its limits, and reads its answer; every other use (`--list-langs`) is Tesseract's own.
    """
    folder.mkdir(parents=True, exist_ok=True)
    remembered.mkdir(parents=True, exist_ok=True)
    program = folder / "tesseract"
    program.write_text(
        f"""#!/bin/sh
real='{real}'
kept='{remembered}'
[ "$1" = "stdin" ] || exec "$real" "$@"
picture=$(mktemp "$kept/picture.XXXXXX") || exec "$real" "$@"
cat > "$picture"
key=$({{ printf '%s\\n' "$@"; cat "$picture"; }} | sha256sum | cut -c1-64)
if [ -s "$kept/$key" ]; then
    cat "$kept/$key"
    rm -f "$picture"
    exit 0
fi
"$real" "$@" < "$picture" > "$picture.read"
code=$?
[ $code -eq 0 ] && cp "$picture.read" "$picture.keep" && mv "$picture.keep" "$kept/$key"
cat "$picture.read"
rm -f "$picture" "$picture.read"
exit $code
"""
    )
    program.chmod(0o755)
    return program
