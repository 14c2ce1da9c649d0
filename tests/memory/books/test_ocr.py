"""OCR of a page's pictures: Tesseract's hOCR placed back on the page, and the program's bounds."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject, NumberObject

from memory.books import OcrOptions
from memory.books.ocr import _HocrLines, read_page, unavailable
from tests.helpers.scans import needs_tesseract, scanned_book, sleeping_ocr

HOCR = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><body>
<div class='ocr_page' title='bbox 0 0 1700 2200'>
 <div class='ocr_carea' title="bbox 200 200 900 300">
  <p class='ocr_par' title="bbox 200 200 900 300">
   <span class='ocr_header' title="bbox 200 200 420 250; baseline 0 -6; x_size 50; x_descenders 6; x_ascenders 10">
    <span class='ocrx_word' title='bbox 200 200 420 244; x_wconf 96'>Cover</span>
   </span>
   <span class='ocr_line' title="bbox 200 280 1300 310; baseline 0.001 -7; x_size 30; x_descenders 7">
    <span class='ocrx_word' title='bbox 200 280 300 303; x_wconf 95'>Tiny</span>
    <span class='ocrx_word' title='bbox 640 280 700 303; x_wconf 93'>2&amp;1/2</span>
    <span class='ocrx_word' title='bbox 712 280 760 303; x_wconf 93'>ft.</span>
    <span class='ocrx_word' title='bbox 900 280 960 303; x_wconf 3'>~~</span>
   </span>
   <span class='ocr_line' title="bbox 200 330 260 350; baseline 0 -2; x_size 30">
    <span class='ocrx_word' title='bbox 200 330 260 350; x_wconf 90'>|||</span>
   </span>
  </p>
 </div>
</div></body></html>"""


def test_hocr_lines_keep_their_left_edge_baseline_and_type_size() -> None:
    lines = _HocrLines.read(HOCR)
    assert lines[0] == (200.0, 244.0, 50.0, "Cover")


def test_words_standing_apart_are_cells_and_unsure_words_and_bare_marks_are_dropped() -> None:
    lines = _HocrLines.read(HOCR)
    # A row of a table read as one line: two cells. The smudge Tesseract is unsure of is not a word; a line of
    # strokes without a letter or digit is not text.
    assert [(x, text) for x, _, _, text in lines[1:]] == [(200.0, "Tiny"), (640.0, "2&1/2 ft.")]


def test_a_missing_program_is_said_plainly() -> None:
    assert unavailable("no-such-ocr-program", "eng") == (
        "Tesseract, the OCR program, is not installed where this bot runs"
    )


@needs_tesseract
def test_missing_language_data_is_named_with_its_package() -> None:
    assert unavailable("tesseract", "zzq") == (
        "Tesseract has no language data for zzq installed (the Debian package tesseract-ocr-zzq)"
    )
    assert unavailable("tesseract", "eng") is None


def _pictures(page: object) -> list[tuple[str, list[float]]]:
    found: list[tuple[str, list[float]]] = []
    page.extract_text(  # type: ignore[attr-defined]
        visitor_operand_before=lambda op, args, cm, tm: (
            found.append((str(args[0]), list(cm))) if op == b"Do" else None
        )
    )
    return found


@needs_tesseract
def test_a_scanned_page_reads_as_lines_placed_on_the_page() -> None:
    page = PdfReader(io.BytesIO(scanned_book("# Cover\n\nA wall gives half cover.\n"))).pages[0]
    lines = read_page(page, _pictures(page), OcrOptions(asked=True), 60)
    texts = [line.text for line in lines]
    assert "Cover" in texts and "A wall gives half cover." in texts
    heading, body = lines[texts.index("Cover")], lines[texts.index("A wall gives half cover.")]
    # In the page's points (US Letter, 612 by 792, y upwards): one inch in, the heading above the body, larger.
    assert 60 < heading.x < 84 and heading.y > body.y and heading.size > body.size
    assert 0 < body.y < 792


class _Watched:
    """A page that notes whether anything asked for its decoded pictures."""

    def __init__(self, page: object) -> None:
        self.page = page
        self.decoded = False
        self.mediabox = page.mediabox  # type: ignore[attr-defined]

    def __getitem__(self, key: str) -> object:
        return self.page[key]  # type: ignore[index]

    @property
    def images(self) -> object:
        self.decoded = True
        return self.page.images  # type: ignore[attr-defined]


def test_a_picture_larger_than_the_bound_is_measured_and_never_decoded(tmp_path: Path) -> None:
    writer = PdfWriter(clone_from=io.BytesIO(scanned_book("# Cover\n\nA wall.\n")))
    page = writer.pages[0]
    picture = page["/Resources"]["/XObject"][_pictures(page)[0][0]].get_object()
    picture[NameObject("/Width")] = NumberObject(200_000)
    picture[NameObject("/Height")] = NumberObject(200_000)
    buffer = io.BytesIO()
    writer.write(buffer)
    watched = _Watched(PdfReader(buffer).pages[0])
    options = OcrOptions(asked=True, command=sleeping_ocr(tmp_path))
    assert read_page(watched, _pictures(watched.page), options, 60) == []
    assert not watched.decoded  # 40 billion pixels claimed: skipped by its size, never unpacked


def test_a_program_that_hangs_is_stopped_at_the_page_deadline(tmp_path: Path) -> None:
    page = PdfReader(io.BytesIO(scanned_book("# Cover\n\nA wall.\n"))).pages[0]
    options = OcrOptions(asked=True, command=sleeping_ocr(tmp_path))
    with pytest.raises(TimeoutError):
        read_page(page, _pictures(page), options, 1.0)


def test_a_page_drawing_its_picture_many_times_is_read_within_the_page_deadline(tmp_path: Path) -> None:
    # A hostile page places one full-page picture twenty times: each reading fits the page's deadline, all of
    # them together do not, and the page's deadline bounds them together.
    program = tmp_path / "quick-tesseract"
    program.write_text(
        '#!/bin/sh\nif [ "$1" = "--list-langs" ]; then echo "eng"; exit 0; fi\nsleep 0.3\necho "<html></html>"\n'
    )
    program.chmod(0o755)
    page = PdfReader(io.BytesIO(scanned_book("# Cover\n\nA wall.\n"))).pages[0]
    options = OcrOptions(asked=True, command=str(program))
    with pytest.raises(TimeoutError):
        read_page(page, _pictures(page) * 20, options, 2.0)
