"""PDF: the text layer read with pypdf, laid back out as a person reads the page.

Each page's text runs come with their position and type size (pypdf's text visitor). Runs on one baseline make a
line; a run far right of the previous one on the same line starts a cell (a table row). A page whose lines start
at two left edges, one near the middle, is read as two columns, the left one first. Lines in the top and bottom
bands of the page that repeat on many pages (the running head, a page number) are dropped. Headings are the
outline's (bookmarks) where the book has one, else the lines set in type larger than the body's, ranked by size.
Consecutive rows with cells make a table. Every page's place is its printed page label ("p. 112").

Nothing in the file is run: JavaScript and attached files are never read (the GM is told they were ignored).
A password, a damaged file, too many pages, a stream that would inflate past pypdf's limits, or a reading that
outlasts its deadline refuses the file. Pages without a text layer (scans) are read by OCR when the GM asked for
it and Tesseract is installed (`memory.books.scans`); else a book of them is refused with what to do.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable

from memory.books.models import Book, BookLimits, BookRefused, Deadline
from memory.books.ocr import Placement
from memory.books.own_lines import definition_of, starts_field
from memory.books.pdf_layout import BAND, DIGITS, Line, Run, page_runs, reading_lines, running_lines
from memory.books.pdf_tables import table_rows
from memory.books.scans import Scans
from memory.books.writer import MarkdownWriter, clean_text

__all__ = ["read_pdf"]

_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s+of\s+\d{1,4})?$", re.IGNORECASE)
_BULLET = re.compile(r"^[•◦▪▫‣●○■□–\x7f·-]\s+")  # \x7f: a bullet in a font without its glyph name
_SENTENCE_END = re.compile(r"[.!?:;\"”’)\]]\**$")


def _outline(reader: object, deadline: Deadline) -> dict[tuple[int, str], int]:
    """Return the outline's headings: (page index, folded title) -> level (1 for the top)."""
    found: dict[tuple[int, str], int] = {}

    def walk(items: list[object], level: int) -> None:
        for item in items:
            if len(found) % 200 == 0:
                deadline.check()
            if isinstance(item, list):
                if level < 6:
                    walk(item, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(item)  # type: ignore[attr-defined]
                title = clean_text(str(item.title or ""))  # type: ignore[attr-defined]
            except Exception:  # noqa: S112 - a broken bookmark is skipped, the text still reads
                continue
            if title and page is not None and page >= 0:
                found.setdefault((page, title.casefold()), level)

    try:
        walk(list(reader.outline), 1)  # type: ignore[attr-defined]
    except (RecursionError, Exception):
        return {}
    return found


def _ignored_parts(reader: object) -> list[str]:
    """Return what the file holds that is never run or unpacked: JavaScript, attached files."""
    ignored: list[str] = []
    try:
        root = reader.trailer["/Root"]  # type: ignore[attr-defined]
        names = root.get("/Names") or {}
        if "/JavaScript" in names or "/JS" in str(root.get("/OpenAction", ""))[:2000] or "/AA" in root:
            ignored.append("JavaScript")
        if "/EmbeddedFiles" in names:
            ignored.append("attached files")
    except Exception:  # noqa: S110 - nothing to report on a catalogue that does not read
        pass
    return ignored


def _open(data: bytes, filename: str, limits: BookLimits) -> object:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    damaged = (
        f"{filename} is a damaged PDF that cannot be read ({{}}). Open it in a PDF viewer and save or print "
        "it again as PDF, then import the new file."
    )
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError("password")
        count = len(reader.pages)
    except (FileNotDecryptedError, NotImplementedError) as error:
        if isinstance(error, NotImplementedError) and "crypt" not in str(error).lower():
            raise BookRefused(damaged.format(error)) from None
        raise BookRefused(
            f"{filename} is protected by a password, so its text cannot be read. Save a copy without the "
            "password (most PDF viewers can: print it to PDF) and import that."
        ) from None
    except RecursionError:
        raise BookRefused(damaged.format("its objects nest too deeply")) from None
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError, IndexError) as error:
        raise BookRefused(damaged.format(str(error)[:120] or type(error).__name__)) from None
    if count > limits.max_pages:
        raise BookRefused(
            f"{filename} has {count:,} pages; a PDF of more than {limits.max_pages:,} pages is not imported. "
            "Split it into parts (by chapter) and import them one by one."
        )
    return reader


def read_pdf(data: bytes, filename: str, limits: BookLimits) -> Book:
    """Return a PDF's text layer as Markdown with a place per page; see the module docstring."""
    from pypdf.errors import PyPdfError

    ocr = limits.ocr.seconds if limits.ocr.asked else 0.0
    deadline = Deadline(filename, limits.seconds + ocr)
    reader = _open(data, filename, limits)
    pages: list[tuple[list[Line], float]] = []
    scans = Scans(filename, limits.ocr)
    widths: list[float] = []
    total = 0
    for number, page in enumerate(reader.pages):  # type: ignore[attr-defined]
        deadline.check()
        pictures: list[Placement] = []
        try:
            box = page.mediabox
            width, height = float(box.width), float(box.height)
            runs = page_runs(page, pictures)
        except RecursionError:
            raise BookRefused(
                f"{filename} is refused: page {number + 1} nests its objects too deeply to read."
            ) from None
        except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError, IndexError) as error:
            if "limit" in str(error).lower():
                raise BookRefused(
                    f"{filename} is refused: page {number + 1} would inflate to more data than any page holds "
                    "(as a PDF bomb does). Nothing was imported."
                ) from None
            runs = []  # one unreadable page: the others are still read
        total += sum(len(run.text) for run in runs)
        if total > limits.max_chars:
            raise BookRefused(
                f"{filename} holds too much text for one source. Split it and import the parts."
            )
        scans.note(number, sum(len(run.text) for run in runs), pictures)
        pages.append((reading_lines(runs, width), height))
        widths.append(width)
    for number, lines in scans.read(reader, total < max(20, 8 * len(pages) // 10)):
        runs = [Run(line.x, line.y, line.size, line.text) for line in lines]
        total += sum(len(run.text) for run in runs)
        pages[number] = (reading_lines(runs, widths[number]), pages[number][1])
    if total > limits.max_chars:
        raise BookRefused(f"{filename} holds too much text for one source. Split it and import the parts.")
    try:
        labels = list(reader.page_labels)  # type: ignore[attr-defined]
    except Exception:
        labels = []
    if len(labels) != len(pages):
        labels = [str(n + 1) for n in range(len(pages))]
    outline = _outline(reader, deadline)
    writer = _write(filename, pages, labels, outline, limits, deadline)
    warnings = list(scans.warnings)
    ignored = _ignored_parts(reader)
    if ignored:
        warnings.append(
            f"{filename} holds {' and '.join(ignored)}; they were ignored (never run or unpacked)."
        )
    title = None
    try:
        meta = reader.metadata  # type: ignore[attr-defined]
        title = clean_text(str(meta.title))[:200] if meta is not None and meta.title else None
    except Exception:
        title = None
    text = writer.text()
    places = tuple((offset, label) for offset, label in writer.places if offset < len(text))
    return Book(
        text=text,
        kind="pdf",
        mime="application/pdf",
        places=places,
        pages=len(pages),
        title=title,
        warnings=tuple(warnings),
    )


def _write(
    filename: str,
    pages: list[tuple[list[Line], float]],
    labels: list[str],
    outline: dict[tuple[int, str], int],
    limits: BookLimits,
    deadline: Deadline,
) -> MarkdownWriter:
    furniture = running_lines(pages)
    sizes: Counter[float] = Counter()
    for lines, _ in pages:
        for line in lines:
            sizes[line.size] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    ranks = sorted({size for size in sizes if size >= body * 1.15} | _bold_heads(pages, body), reverse=True)[
        :4
    ]
    writer = MarkdownWriter(filename, limits.max_chars)
    for number, (lines, height) in enumerate(pages):
        if number % 50 == 0:
            deadline.check()
        writer.mark(f"p. {labels[number]}")
        kept = [
            line
            for line in lines
            if not (
                (line.y > height * (1 - BAND) or line.y < height * BAND)
                and (
                    DIGITS.sub("#", line.words.casefold()) in furniture
                    or _PAGE_NUMBER.match(line.words.strip())
                )
            )
        ]
        _write_page(writer, kept, number, outline, body, ranks)
    return writer


def _bold_heads(pages: list[tuple[list[Line], float]], body: float) -> set[float]:
    """Return the type sizes a little larger than the body's set only in bold lines of their own: a book's
    smallest headings ("Bog Hound" over its entry), which their face tells from the text more than their size."""
    bold: dict[float, bool] = {}
    for lines, _ in pages:
        for line in lines:
            if body * 1.05 <= line.size < body * 1.15:
                alone = len(line.cells) == 1 and len(line.words) < 80
                bold[line.size] = bold.get(line.size, True) and alone and _all_bold(line.text)
    return {size for size, only in bold.items() if only}


def _all_bold(text: str) -> bool:
    return text.startswith("**") and text.endswith("**") and "**" not in text[2:-2]


def _bookmarked(
    lines: list[Line], index: int, number: int, outline: dict[tuple[int, str], int]
) -> tuple[int | None, int]:
    """Return the outline level of the heading starting at `index` and its last line (a long title wraps)."""
    if not outline:
        return None, index
    title = ""
    for last in range(index, min(len(lines), index + 4)):
        if last > index and lines[last].size != lines[index].size:
            break
        title = f"{title} {lines[last].words}" if title else lines[last].words
        level = outline.get((number, clean_text(title).casefold()))
        if level is not None:
            return level, last
    return None, index


def _heading_lines(
    lines: list[Line], index: int, number: int, outline: dict[tuple[int, str], int], body: float
) -> tuple[int, str]:
    """Return the last line of the heading starting at `index` (one set on two lines) and its whole title."""
    line = lines[index]
    title = line.words
    while (
        index + 1 < len(lines)
        and lines[index + 1].size == line.size
        and line.size > body * 1.1
        and abs(lines[index + 1].y - lines[index].y) < line.size * 1.6
        and len(lines[index + 1].cells) == 1
        and outline.get((number, clean_text(lines[index + 1].words).casefold())) is None
    ):
        index += 1
        title = f"{title} {lines[index].words}"
    return index, title


def _table(
    writer: MarkdownWriter,
    lines: list[Line],
    index: int,
    body: float,
    paragraph: list[str],
    close: Callable[[], None],
) -> int:
    """Write the table starting at `lines[index]` (or the line, when it is not one); return its last line's index."""
    table = table_rows(lines, index, body)
    if table is None:
        close()
        writer.paragraph(" ".join(cell.text for cell in lines[index].cells))
        return index
    start, end, rows = table
    if start < index:  # a wrapped header's first line, read as text before the table was seen
        del paragraph[max(0, len(paragraph) - (index - start)) :]
    close()
    writer.table(rows)
    return end


def _write_page(
    writer: MarkdownWriter,
    lines: list[Line],
    number: int,
    outline: dict[tuple[int, str], int],
    body: float,
    ranks: list[float],
) -> None:
    index = 0
    previous: Line | None = None
    paragraph: list[str] = []
    first = True

    def close() -> None:
        nonlocal first
        if not paragraph:
            return
        text = " ".join(paragraph)
        paragraph.clear()
        if first and writer.continue_paragraph(text):
            first = False
            return
        first = False
        bullet = _BULLET.match(text)
        if bullet:
            writer.item(text[bullet.end() :])
        else:
            writer.paragraph(text, joinable=not _SENTENCE_END.search(text))

    while index < len(lines):
        line = lines[index]
        title = line.words
        level, last = _bookmarked(lines, index, number, outline)
        if level is not None:
            title = " ".join(lines[k].words for k in range(index, last + 1))
            index = last
        elif not outline and line.size in ranks and len(title) < 150 and len(line.cells) == 1:
            level = ranks.index(line.size) + 1
            index, title = _heading_lines(lines, index, number, outline, body)
        if level is not None:
            close()
            writer.heading(level, title)
            first = False
            previous = lines[index]
            index += 1
            continue
        if len(line.cells) >= 2:
            index = _table(writer, lines, index, body, paragraph, close)
            first = False
            previous = lines[index]
            index += 1
            continue
        if paragraph and (defined := definition_of(line.text, paragraph[-1])) is not None:
            paragraph[-1] = defined  # "Armour" over ": 0"
            previous = line
            index += 1
            continue
        if paragraph and starts_field(line.text, paragraph[-1], bool(_SENTENCE_END.search(paragraph[-1]))):
            close()  # a field's line is its own ("Desalter kit ..... 25 sh", "Wounds — 14")
        if previous is not None and paragraph:
            gap = previous.y - line.y
            if gap < 0:  # the top of the next column: a sentence may run on into it
                if _SENTENCE_END.search(paragraph[-1]) or _BULLET.match(line.text):
                    close()
            elif gap > max(line.size, previous.size) * 1.65 or _BULLET.match(line.text):
                close()
        if (
            paragraph
            and paragraph[-1].endswith("-")
            and line.text[:1].islower()
            and paragraph[-1][-2:-1].isalpha()
        ):
            paragraph[-1] = paragraph[-1][:-1] + line.text  # a word hyphenated at the end of a line
        else:
            paragraph.append(line.text)
        previous = line
        index += 1
    close()
