"""A PDF's pages without text (scans): said plainly, and read by OCR when the GM asks for it and it can run.

A page with (almost) no text but a picture on it looks scanned. A book made of such pages is refused with what
to do, unless the GM asked for OCR and Tesseract is installed: then every such page is read by OCR within the
bounds of `OcrOptions` (pages, seconds a page and in all), and the GM is told which pages were read that way and
that OCR can misread. In a book with a text layer, its few scanned pages are read by OCR as well when asked, or
named in a warning when not.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from memory.books.models import BookRefused, OcrOptions
from memory.books.ocr import OcrLine, Placement, read_page, unavailable

__all__ = ["Scans", "page_list", "scanned_message"]

#: Fewer characters than this on a page with a picture: the page is a scan.
_BARE = 8


def scanned_message(filename: str, options: OcrOptions) -> str:
    """Return the sentence a GM reads when a PDF has no text: what it is and what to do."""
    said = f"{filename} has no text: it looks scanned (its pages are pictures of text)."
    reason = unavailable(options.command, options.language)
    if reason is None and not options.asked:
        return (
            f"{said} Import it again with OCR turned on (the ocr option of /lore import, --ocr on the command "
            "line) to read the text in its pictures: it takes a few seconds a page, and OCR can misread names "
            "and numbers. Or export it again with its text from the program that made it."
        )
    if reason is None:
        return f"{said} OCR found no text in its pictures either: export it again with its text, then import that."
    return (
        f"{said} This bot cannot read pictures of text: {reason}. Export it again with its text (from the "
        "program that made it), or run it through OCR first (for example `ocrmypdf` or your scanner's "
        "“searchable PDF” option), then import the new file."
    )


def page_list(numbers: Sequence[int]) -> str:
    """Return page indexes as a reader says them: [0, 1, 2, 6] -> "pages 1–3 and 7"."""
    spans: list[str] = []
    ordered = sorted(numbers)
    start = 0
    for index in range(1, len(ordered) + 1):
        if index == len(ordered) or ordered[index] != ordered[index - 1] + 1:
            first, last = ordered[start] + 1, ordered[index - 1] + 1
            spans.append(str(first) if first == last else f"{first}–{last}")
            start = index
    said = spans[0] if len(spans) == 1 else f"{', '.join(spans[:-1])} and {spans[-1]}"
    return f"page {said}" if len(ordered) == 1 else f"pages {said}"


def _duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:.0f} minutes"
    return "1 second" if round(seconds) <= 1 else f"{seconds:.0f} seconds"


def _has(pages: Sequence[int]) -> str:
    return "has" if len(pages) == 1 else "have"


def _was(pages: Sequence[int]) -> str:
    return "was" if len(pages) == 1 else "were"


class Scans:
    """The pages of one PDF that look scanned, and their reading by OCR."""

    def __init__(self, filename: str, options: OcrOptions) -> None:
        self.filename = filename
        self.options = options
        self.pictured: dict[int, list[Placement]] = {}
        self.warnings: list[str] = []

    def note(self, number: int, characters: int, pictures: Sequence[Placement]) -> None:
        """Record a page: one with a picture and (almost) no text looks scanned."""
        if characters < _BARE and pictures:
            self.pictured[number] = list(pictures)

    def read(self, reader: object, textless: bool) -> list[tuple[int, list[OcrLine]]]:
        """Return the lines OCR reads on the scanned pages (none when not asked); `BookRefused` for a book that
        is all scans and cannot be read, or whose OCR would go past its bounds. `textless`: the text layer holds
        (almost) nothing."""
        options, name = self.options, self.filename
        reason = unavailable(options.command, options.language) if self.pictured and options.asked else None
        if not self.pictured or not options.asked or reason is not None:
            if textless:
                raise BookRefused(scanned_message(name, options))
            if self.pictured:
                why = reason or "import it again with OCR turned on to read them"
                pages = list(self.pictured)
                self.warnings.append(
                    f"{name}: {page_list(pages)} {_has(pages)} no text (scanned, it seems) and "
                    f"{_was(pages)} not read: {why}."
                )
            return []
        if len(self.pictured) > options.max_pages:
            raise BookRefused(
                f"{name} has {len(self.pictured):,} scanned pages; OCR reads at most {options.max_pages:,} of "
                "one book. Split it into parts (by chapter) and import them one by one."
            )
        found: list[tuple[int, list[OcrLine]]] = []
        skipped: list[int] = []
        until = time.monotonic() + options.seconds
        for number, pictures in sorted(self.pictured.items()):
            left = until - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                lines = read_page(reader.pages[number], pictures, options, min(options.page_seconds, left))  # type: ignore[attr-defined]
            except TimeoutError:
                if left > options.page_seconds:
                    skipped.append(number)  # one page too slow to read: the others still are
                    continue
                raise BookRefused(
                    f"{name} was not imported: reading its {len(self.pictured):,} scanned pages by OCR took more "
                    f"than {_duration(options.seconds)}. Split it into smaller files, or run it through OCR "
                    "first and import the searchable PDF."
                ) from None
            found.append((number, lines))
        found = _sizes_merged(found)
        read = [number for number, lines in found if lines]
        if textless and sum(len(line.text) for _, lines in found for line in lines) < 20:
            raise BookRefused(scanned_message(name, options))
        if read:
            self.warnings.append(
                f"{name}: {page_list(read)} {_was(read)} read by OCR (pictures of text); OCR can misread "
                "names and numbers, so check what matters against the book."
            )
        if skipped:
            self.warnings.append(
                f"{name}: {page_list(skipped)} took more than {_duration(options.page_seconds)} to read by OCR "
                f"and {_was(skipped)} left out."
            )
        return found


def _sizes_merged(pages: list[tuple[int, list[OcrLine]]]) -> list[tuple[int, list[OcrLine]]]:
    """Return the pages with the type sizes OCR measured gathered into the sizes the book was set in.

    OCR measures one type size a point or two differently from line to line (by the letters on it); unmerged,
    two headings of one rank would read as two ranks. Sizes a step of at most a tenth apart are one size, the
    one most text was measured at.
    """
    weight: Counter[float] = Counter()
    for _, lines in pages:
        for line in lines:
            weight[line.size] += len(line.text)
    groups: list[list[float]] = []
    for size in sorted(weight):
        if groups and size - groups[-1][-1] <= groups[-1][-1] * 0.1:
            groups[-1].append(size)
        else:
            groups.append([size])
    merged = {size: max(group, key=lambda s: weight[s]) for group in groups for size in group}
    return [(number, [replace(line, size=merged[line.size]) for line in lines]) for number, lines in pages]
