"""Scanned PDFs: said plainly at import, read by OCR when the GM asks for it and Tesseract is installed, bounded."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from memory.books import Book, BookLimits, BookRefused, OcrOptions, read_book
from memory.books.scans import page_list
from tests.helpers.paths import REPO
from tests.helpers.scans import (
    needs_tesseract,
    scanned_book,
    sleeping_ocr,
    with_scanned_pages,
)

TEXT_PDF = REPO / "tests" / "fixtures" / "books" / "basic-rules.pdf"


def asked(**options: object) -> BookLimits:
    return BookLimits(ocr=OcrOptions(asked=True, **options))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def scan_read() -> Book:
    if needs_tesseract.args[0] is not False:
        pytest.skip(needs_tesseract.kwargs["reason"])
    return read_book(scanned_book(), "scan.pdf", asked())


def test_page_lists_read_as_a_person_says_them() -> None:
    assert page_list([6]) == "page 7"
    assert page_list([0, 1, 2, 6, 8, 9]) == "pages 1–3, 7 and 9–10"


def test_a_scan_without_ocr_asked_is_refused_with_what_to_do(tmp_path: Path) -> None:
    limits = BookLimits(ocr=OcrOptions(command=sleeping_ocr(tmp_path)))
    with pytest.raises(BookRefused) as refused:
        read_book(scanned_book(), "scan.pdf", limits)
    assert refused.value.message.startswith(
        "scan.pdf has no text: it looks scanned (its pages are pictures of text). Import it again with OCR "
        "turned on (the ocr option of /lore import, --ocr on the command line)"
    )


@pytest.mark.parametrize("ocr", [False, True])
def test_where_ocr_cannot_run_a_scan_is_refused_saying_why(ocr: bool) -> None:
    limits = BookLimits(ocr=OcrOptions(asked=ocr, command="no-such-ocr-program"))
    with pytest.raises(BookRefused) as refused:
        read_book(scanned_book(), "scan.pdf", limits)
    assert (
        "This bot cannot read pictures of text: Tesseract, the OCR program, is not installed where this bot "
        "runs. Export it again with its text" in refused.value.message
    )


@needs_tesseract
def test_a_scan_read_by_ocr_has_its_headings_lists_and_table(scan_read: Book) -> None:
    headings = [line for line in scan_read.text.splitlines() if line.startswith("#")]
    assert headings == [
        "# Combat",
        "## Cover",
        "## Size Categories",
        "## Underwater Combat",
        "## Mounted Combat",
        "## Resting",
    ]
    assert "- Half cover: a low wall, a large piece of furniture." in scan_read.text
    assert "| Gargantuan | 20 by 20 ft. or larger |" in scan_read.text
    assert scan_read.pages == 2 and scan_read.kind == "pdf"


@needs_tesseract
def test_a_scan_read_by_ocr_cites_the_page_each_passage_is_on(scan_read: Book) -> None:
    cover = scan_read.text.index("## Cover")
    after = scan_read.text.index("hours of the rest")
    assert scan_read.place(cover, cover + 20) == "p. 1"
    assert scan_read.place(after, after + 10) == "p. 2"
    assert scan_read.warnings == (
        "scan.pdf: pages 1–2 were read by OCR (pictures of text); OCR can misread names and numbers, so check "
        "what matters against the book.",
    )


def _mixed() -> tuple[bytes, int]:
    text = TEXT_PDF.read_bytes()
    return with_scanned_pages(text, scanned_book()), len(PdfReader(io.BytesIO(text)).pages)


def test_a_book_with_a_few_scanned_pages_imports_and_names_them() -> None:
    data, pages = _mixed()
    book = read_book(data, "mixed.pdf", BookLimits(ocr=OcrOptions(command="no-such-ocr-program")))
    assert "## Cover" in book.text and "Resting" not in book.text
    assert book.warnings[0] == (
        f"mixed.pdf: pages {pages + 1}–{pages + 2} have no text (scanned, it seems) and were not read: import it "
        "again with OCR turned on to read them."
    )


@needs_tesseract
def test_a_book_with_a_few_scanned_pages_reads_them_by_ocr_when_asked() -> None:
    data, pages = _mixed()
    book = read_book(data, "mixed.pdf", asked())
    rest = book.text.index("A short rest is a period of downtime")
    assert book.place(rest, rest + 20) == f"p. {pages + 1}"
    assert f"mixed.pdf: pages {pages + 1}–{pages + 2} were read by OCR" in book.warnings[0]


def test_more_scanned_pages_than_ocr_reads_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BookRefused, match=r"has 2 scanned pages; OCR reads at most 1 of one book\. Split it"):
        read_book(scanned_book(), "scan.pdf", asked(command=sleeping_ocr(tmp_path), max_pages=1))


def test_ocr_past_its_time_for_the_book_is_refused(tmp_path: Path) -> None:
    limits = asked(command=sleeping_ocr(tmp_path), page_seconds=1.0, seconds=1.5)
    with pytest.raises(
        BookRefused, match=r"reading its 2 scanned pages by OCR took more than 2 seconds\. Split"
    ):
        read_book(scanned_book(), "scan.pdf", limits)


def test_a_page_too_slow_for_ocr_is_left_out_and_named(tmp_path: Path) -> None:
    data, pages = _mixed()
    book = read_book(data, "mixed.pdf", asked(command=sleeping_ocr(tmp_path), page_seconds=1.0, seconds=60))
    assert "## Cover" in book.text
    assert book.warnings == (
        f"mixed.pdf: pages {pages + 1}–{pages + 2} took more than 1 second to read by OCR and were left out.",
    )
