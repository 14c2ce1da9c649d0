#!/usr/bin/env python3
"""Write the small book fixtures the tests read (tests/fixtures/books/) from the SRD corpus's combat chapter.

    .venv/bin/python scripts/make_book_fixtures.py [--corpus ../shared/corpora/srd]

The same chapter as a two-column PDF with a running header, page numbers and bookmarks (ReportLab), a Word file
(python-docx), an EPUB (two chapters) and a wiki's HTML export (`bench.book_making`). Run it again after changing
the makers; the files it writes are committed, so no test makes or downloads anything.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.book_making import make_docx, make_epub, make_html, make_pdf, parse_markdown  # noqa: E402

TITLE = "Basic Rules"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora" / "srd")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "books")
    args = parser.parse_args()
    source = args.corpus / "world" / "rules-combat.md"
    if not source.is_file():
        print(f"The SRD corpus is not at {args.corpus}: nothing written.", file=sys.stderr)
        return 1
    sections = parse_markdown(source.read_text(encoding="utf-8"))
    half = next(i for i, s in enumerate(sections) if s.title == "Making an Attack")
    args.out.mkdir(parents=True, exist_ok=True)
    books = {
        "basic-rules.pdf": make_pdf(TITLE, sections),
        "basic-rules.docx": make_docx(TITLE, sections),
        "basic-rules.epub": make_epub(TITLE, [("Combat", sections[:half]), ("Attacks", sections[half:])]),
        "basic-rules.html": make_html(TITLE, sections),
    }
    for name, data in books.items():
        (args.out / name).write_bytes(data)
        print(f"{name}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
