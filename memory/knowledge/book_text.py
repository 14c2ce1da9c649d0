"""A source's text as the importer and a re-chunk read it: a book through its reader, off the event loop.

Markdown and text files are decoded strictly (`files.normalized_text`), a text file's layout read as Markdown
(`plain_text.plain_markdown`: its underlined titles, definitions, field lists and tables aligned by spaces); a
PDF, DOCX, EPUB or HTML file goes to its reader (`memory.books.read_book`) in a worker process
(`canon.offload.in_process`), bounded by the settings' deadline, and its Markdown is chunked like any other. `placed` gives each chunk the page or chapter its text
starts on. A text file whose content is really a book or an archive is refused with what it is.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import unicodedata
from collections.abc import Sequence
from pathlib import PurePosixPath

from canon import offload
from config.settings import LoreSettings
from memory.books import Book, BookLimits, BookRefused, OcrOptions, book_kind, check_content, read_book
from memory.chunking import Chunk
from memory.knowledge.fields import fields_to_rows, read_fields
from memory.knowledge.files import normalized_text
from memory.knowledge.plain_text import plain_markdown

__all__ = ["book_limits", "placed", "read_source_text"]


def book_limits(settings: LoreSettings, *, ocr: bool = False) -> BookLimits:
    """Return the readers' bounds from the settings; `ocr`: the GM asked for scanned pages to be read by OCR."""
    return BookLimits(
        seconds=settings.book_read_seconds,
        ocr=OcrOptions(
            asked=ocr,
            command=settings.ocr_command,
            language=settings.ocr_language,
            page_seconds=settings.ocr_page_seconds,
            seconds=settings.ocr_seconds,
            max_pages=settings.ocr_max_pages,
        ),
    )


async def read_source_text(
    data: bytes, filename: str, settings: LoreSettings, *, ocr: bool = False
) -> tuple[str, Book | None]:
    """Return a file's text as chunked (NFC) and, for a book, what its reader found; `InvalidInput` if neither.

    `ocr`: a PDF's scanned pages are read by OCR (where Tesseract is installed), within its own time bounds."""
    if book_kind(filename) is None:
        if data[:5] == b"%PDF-" or data[:4] in (b"PK\x03\x04", b"\xd0\xcf\x11\xe0"):
            check_content(filename, data)  # a book or archive named .md/.txt: says what it really is
        text = normalized_text(data, filename)
        return (plain_markdown(text) if PurePosixPath(filename).suffix.lower() == ".txt" else text), None
    limits = book_limits(settings, ocr=ocr)
    seconds = limits.seconds + (limits.ocr.seconds if ocr else 0.0) + 60
    try:
        await offload.warm()
        book = await asyncio.wait_for(offload.in_process(read_book, data, filename, limits), seconds)
    except TimeoutError:
        raise BookRefused(
            f"{filename} took too long to read and was not imported; it may be damaged or built to be slow to "
            "read. Export it again, or split it into smaller files."
        ) from None
    except concurrent.futures.BrokenExecutor:
        raise BookRefused(
            f"{filename} could not be read: reading it stopped the reader (it may be built to exhaust memory). "
            "Export it again from the program that made it and import the new file."
        ) from None
    return unicodedata.normalize("NFC", book.text), book


def placed(chunks: Sequence[Chunk], book: Book | None) -> list[Chunk]:
    """Return the chunks with the page or chapter each starts on, and their fields read ahead.

    Run in a worker thread: reading a large book's fields on the event loop, as its rows are written, held the
    loop for tenths of a second.
    """
    places = book is not None and bool(book.places)
    return [
        c.model_copy(
            update={
                "place": book.place(c.char_start, c.char_end) if places and book is not None else c.place,
                "fields": fields_to_rows(read_fields(c.heading_path, c.text)),
            }
        )
        for c in chunks
    ]
