"""A scanned book made from Markdown: its pages drawn as pictures of text and wrapped as a PDF without a text layer.

What a flatbed scanner or a phone's scanning app makes of a printed book: each page a greyscale picture (a running
head, headings in larger type, paragraphs, list items, table rows as spaced cells, the page number at the foot),
saved by Pillow as an image-only PDF, one picture a page. The tests make theirs at test time from a few lines of
Markdown; nothing is downloaded or committed.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from bench.book_making import Section, words

__all__ = ["make_scanned_pdf"]

_LETTER = 8.5, 11.0
Font = ImageFont.FreeTypeFont


class _Scanner:
    """Draws a book's lines on page pictures, starting a page when one is full."""

    def __init__(self, title: str, dpi: int) -> None:
        self.title = title
        self.width, self.height = round(_LETTER[0] * dpi), round(_LETTER[1] * dpi)
        self.margin = dpi
        point = dpi / 72
        self.body = self._font(11 * point)
        self.small = self._font(9 * point)
        self.heads = {level: self._font(size * point) for level, size in ((1, 22), (2, 17), (3, 14))}
        self.pages: list[Image.Image] = []
        self.y = 0.0
        self.draw = self._new_page()

    @staticmethod
    def _font(size: float) -> Font:
        font = ImageFont.load_default(size=round(size))
        assert isinstance(font, Font), "Pillow draws its scalable default font with FreeType"
        return font

    def _new_page(self) -> ImageDraw.ImageDraw:
        page = Image.new("L", (self.width, self.height), 255)
        self.pages.append(page)
        draw = ImageDraw.Draw(page)
        draw.text((self.margin, self.margin // 2), self.title, font=self.small, fill=40)
        draw.text(
            (self.width // 2, self.height - self.margin // 2), str(len(self.pages)), font=self.small, fill=40
        )
        self.y = float(self.margin)
        return draw

    def room(self, font: Font) -> None:
        if self.y + font.size * 1.5 > self.height - self.margin:
            self.draw = self._new_page()

    def line(self, text: str, font: Font, gap: float, indent: int = 0) -> None:
        self.room(font)
        self.draw.text((self.margin + indent, self.y), text, font=font, fill=0)
        self.y += font.size * gap

    def wrapped(self, text: str, indent: int = 0) -> None:
        room = self.width - 2 * self.margin - indent
        current = ""
        for word in text.split():
            candidate = f"{current} {word}".strip()
            if current and self.body.getlength(candidate) > room:
                self.line(current, self.body, 1.35, indent)
                current = word
            else:
                current = candidate
        if current:
            self.line(current, self.body, 1.35, indent)
        self.y += self.body.size * 0.6

    def row(self, cells: Sequence[str]) -> None:
        self.room(self.body)
        column = (self.width - 2 * self.margin) // (len(cells) + 1)
        for index, cell in enumerate(cells):
            self.draw.text((self.margin + index * column, self.y), words(cell), font=self.body, fill=0)
        self.y += self.body.size * 1.4


def make_scanned_pdf(title: str, sections: Sequence[Section], *, dpi: int = 200) -> bytes:
    """Return the sections as a scanned PDF: US Letter pages of pictures at `dpi`, one column, no text layer."""
    scanner = _Scanner(title, dpi)
    for section in sections:
        if section.level:
            scanner.y += scanner.body.size * 0.6
            scanner.line(words(section.title), scanner.heads[min(section.level, 3)], 1.8)
        for kind, block in section.blocks:
            if kind == "p":
                scanner.wrapped(words(str(block)))
            elif kind == "li":
                scanner.wrapped(f"- {words(str(block))}", indent=dpi // 4)
            elif kind == "table" and isinstance(block, list):
                for cells in block:
                    scanner.row(cells)
    buffer = io.BytesIO()
    first, *rest = scanner.pages
    first.save(buffer, "PDF", resolution=float(dpi), save_all=True, append_images=rest)
    return buffer.getvalue()
