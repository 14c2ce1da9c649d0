"""What a book reader makes (`Book`: Markdown text and the places in it) and the bounds every reader keeps."""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field

from canon.errors import InvalidInput

__all__ = ["Book", "BookLimits", "BookRefused", "Deadline", "OcrOptions"]


class BookRefused(InvalidInput):
    """A book that cannot be read, with the sentence the GM reads (nothing is written)."""


@dataclass(frozen=True, slots=True)
class OcrOptions:
    """Whether a PDF's pages without text are read by OCR (the GM asks for it), and the bounds of that reading.

    OCR runs the Tesseract program (`command`) once a page, on the page's pictures, with the time, memory and
    threads below; a host without it, or without the language's data, makes a scan a refusal that says so.
    """

    #: The GM asked for OCR on this import (off by default: it is slow, and it can misread).
    asked: bool = False
    command: str = "tesseract"
    #: Tesseract's language data, such as `eng` or `eng+deu`.
    language: str = "eng"
    #: Seconds one page may take (its Tesseract is stopped past them), and all the pages together.
    page_seconds: float = 60.0
    seconds: float = 1800.0
    #: Pages read by OCR in one book at most.
    max_pages: int = 500
    #: Memory one Tesseract run may take.
    memory_bytes: int = 1024 * 1024 * 1024
    #: Pixels of one picture decoded at most (an A4 page scanned at 600 dpi is 35 million).
    max_pixels: int = 60_000_000


@dataclass(frozen=True, slots=True)
class BookLimits:
    """How far a reader goes before it gives up: a bomb or a runaway file is refused, never followed."""

    #: Pages of a PDF (a book of 3,000 pages is already a shelf of them).
    max_pages: int = 3000
    #: Characters of text a book may turn into (about 40 times the whole SRD).
    max_chars: int = 60_000_000
    #: Bytes all the entries of a DOCX/EPUB may unpack to, and one entry alone.
    max_unpacked_bytes: int = 400 * 1024 * 1024
    max_entry_bytes: int = 100 * 1024 * 1024
    #: Entries of a DOCX/EPUB zip.
    max_entries: int = 20_000
    #: An entry unpacking to more than this many times its packed size is a zip bomb.
    max_ratio: int = 200
    #: Seconds of reading before the book is refused as too slow to read.
    seconds: float = 300.0
    #: Nesting of an HTML document's elements that is still followed.
    max_depth: int = 400
    #: OCR of a PDF's scanned pages (asked for by the GM).
    ocr: OcrOptions = field(default_factory=OcrOptions)


class Deadline:
    """The moment a reader must stop by; `check` raises `BookRefused` past it."""

    def __init__(self, filename: str, seconds: float) -> None:
        self.filename = filename
        self.seconds = seconds
        self.until = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.until:
            raise BookRefused(
                f"{self.filename} took more than {self.seconds:.0f} seconds to read and was not imported; "
                "it may be damaged or built to be slow to read. Export it again, or split it into smaller files."
            )


@dataclass(frozen=True, slots=True)
class Book:
    """A book as Markdown (what is chunked and indexed) and its places: where each page or chapter begins."""

    text: str
    #: `pdf`, `docx`, `epub`, `html` or `text`.
    kind: str
    mime: str
    #: (offset in `text`, label) in increasing offset order: "p. 12" for a PDF's page, "ch. 3" for an EPUB chapter.
    places: tuple[tuple[int, str], ...] = ()
    #: Pages of a PDF, chapters of an EPUB (0 for the others).
    pages: int = 0
    title: str | None = None
    #: What the GM should know (JavaScript or attached files ignored, headers dropped...).
    warnings: tuple[str, ...] = field(default=())

    def place(self, start: int, end: int) -> str | None:
        """Return the place of a span of `text`: "p. 12", "pp. 12–13", "ch. 3" (None when it has none)."""
        if not self.places:
            return None
        offsets = [offset for offset, _ in self.places]
        first = bisect.bisect_right(offsets, start) - 1
        last = bisect.bisect_right(offsets, max(start, end - 1)) - 1
        if first < 0:
            first = 0
        if last < first:
            last = first
        label = self.places[first][1]
        if last == first:
            return label
        end_label = self.places[last][1]
        if label.startswith("p. ") and end_label.startswith("p. "):
            return f"pp. {label[3:]}–{end_label[3:]}"
        return label
