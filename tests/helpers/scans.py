"""Scanned books for the OCR tests, made at test time, and what those tests need of the machine.

A scan is drawn from a few lines of Markdown by `bench.scan_making` (pages as pictures, no text layer); nothing is
committed or downloaded. Tests that run the real Tesseract skip, saying why, where it is not installed
(`.ci/run` installs Debian's tesseract-ocr and tesseract-ocr-eng). A stand-in program answers like Tesseract's
`--list-langs` and then sleeps, for the bounds that must hold whatever the real program does.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from bench.book_making import parse_markdown
from bench.scan_making import make_scanned_pdf

TESSERACT_MISSING = (
    "Tesseract is not installed (Debian: tesseract-ocr, tesseract-ocr-eng): OCR is tested where it is"
)
HAS_TESSERACT = shutil.which("tesseract") is not None
needs_tesseract = pytest.mark.skipif(not HAS_TESSERACT, reason=TESSERACT_MISSING)

RULES = """# Combat

## Cover

Walls, trees, creatures, and other obstacles can provide cover during combat, making a target more difficult
to harm. A target can benefit from cover only when an attack or other effect originates on the opposite side.

A target with half cover has a +2 bonus to AC and Dexterity saving throws.

- Half cover: a low wall, a large piece of furniture.
- Three-quarters cover: a portcullis, an arrow slit.

## Size Categories

| Size | Space |
| --- | --- |
| Tiny | 2 1/2 by 2 1/2 ft. |
| Gargantuan | 20 by 20 ft. or larger |

## Underwater Combat

When adventurers pursue sahuagin back to their undersea homes, they must contend with the water itself.
A creature that has no swimming speed makes its melee weapon attacks with disadvantage.

## Mounted Combat

A knight charging into battle on a warhorse, a wizard casting spells from the back of a griffon: each enjoys
the speed and mobility that a mount can provide.

A willing creature that is at least one size larger than you and that has an appropriate anatomy can serve as
a mount. Mounting or dismounting a creature costs an amount of movement equal to half your speed.

## Resting

Heroic as they might be, adventurers cannot spend every hour of the day in the thick of exploration, social
interaction, and combat. They need rest: time to sleep and eat, tend their wounds, and steel themselves.

A short rest is a period of downtime, at least 1 hour long, during which a character does nothing more
strenuous than eating, drinking, reading, and tending to wounds.

A long rest is a period of extended downtime, at least 8 hours long, during which a character sleeps or
performs light activity: reading, talking, eating, or standing watch for no more than 2 hours of the rest.
"""


def scanned_book(markdown: str = RULES, *, title: str = "Basic Rules") -> bytes:
    """Return Markdown as a scanned PDF (pictures of text, no text layer)."""
    return make_scanned_pdf(title, parse_markdown(markdown))


def with_scanned_pages(text_pdf: bytes, scanned: bytes) -> bytes:
    """Return a PDF of a text PDF's pages followed by a scan's pages (a book with a few pages scanned in)."""
    writer = PdfWriter()
    for data in (text_pdf, scanned):
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def sleeping_ocr(folder: Path) -> str:
    """Return the path of a stand-in for Tesseract: lists English as installed, then sleeps on every page."""
    program = folder / "slow-tesseract"
    program.write_text(
        '#!/bin/sh\nif [ "$1" = "--list-langs" ]; then echo "eng"; exit 0; fi\nexec sleep 60\n'
    )
    program.chmod(0o755)
    return str(program)
