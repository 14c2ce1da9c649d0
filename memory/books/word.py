"""DOCX (a world bible written in Word or LibreOffice) read with python-docx, in the body's own order.

Headings come from the paragraph styles ("Title", "Heading 1".."Heading 9", or a style based on one), list
items from list styles and numbering, tables as rows. A heading whose style's name says "GM only" or "secret" (a
style "GM Only Heading 2" based on "Heading 2") marks its section GM-only, as the heading word does
(`memory.chunking.secret`). The zip is checked entry by entry first (`SafeZip`), and
python-docx's XML parser resolves no entities and fetches nothing. A Word file has no fixed pages: its chunks'
places are their sections.
"""

from __future__ import annotations

import io
import re
from typing import Any

from memory.books.models import Book, BookLimits, BookRefused, Deadline
from memory.books.writer import MarkdownWriter
from memory.books.zips import SafeZip
from memory.chunking.secret import MARKER_WORDS, secret_title

__all__ = ["read_docx"]

_HEADING_STYLE = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_SECRET_STYLE = re.compile(r"\bgm[\s_-]*only\b|\bsecret\b", re.IGNORECASE)
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _level(paragraph: object, shift: int) -> int:
    """Return a paragraph's heading level (0 for body text); `shift` is 1 when a Title style sits above.

    A style based on a heading style (a few steps up at most) is a heading of that level."""
    style = getattr(paragraph, "style", None)
    for _ in range(4):
        name = (getattr(style, "name", "") or "").strip()
        if name.lower() == "title":
            return 1
        match = _HEADING_STYLE.match(name)
        if match:
            return max(1, min(6, int(match.group(1)) + shift))
        style = getattr(style, "base_style", None)
        if style is None:
            break
    return 0


def _marked(text: str, style: str) -> str:
    """Return a heading's text with the GM-only word when its style's name marks it (and the text does not)."""
    if _SECRET_STYLE.search(style) and not secret_title(text)[1]:
        return f"{text} {MARKER_WORDS[0]}"
    return text


def _marked_text(paragraph: Any) -> str:
    """Return a paragraph's text with its bold runs between `**` marks (a hyperlink's words kept)."""
    pieces: list[tuple[str, bool]] = []
    for item in paragraph.iter_inner_content():
        runs = getattr(item, "runs", None)
        for run in runs if runs is not None else [item]:
            text = run.text or ""
            if text:
                bold = bool(run.bold)
                if pieces and pieces[-1][1] == bold:
                    pieces[-1] = (pieces[-1][0] + text, bold)
                else:
                    pieces.append((text, bold))
    out: list[str] = []
    for text, bold in pieces:
        if bold and text.strip():
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()) :]
            out.append(f"{lead}**{text.strip()}**{trail}")
        else:
            out.append(text)
    return "".join(out)


def _style_name(paragraph: object) -> str:
    style = getattr(paragraph, "style", None)
    return (getattr(style, "name", "") or "").strip()


def read_docx(data: bytes, filename: str, limits: BookLimits) -> Book:
    """Return a Word file's body as Markdown (no places: its sections are its places)."""
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    deadline = Deadline(filename, limits.seconds)
    archive = SafeZip(data, filename, "Word file", limits)
    if not archive.has("word/document.xml"):
        raise BookRefused(
            f"{filename} is not a Word (.docx) file: it has no document inside. Save it again as .docx."
        )
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as error:
        raise BookRefused(
            f"{filename} is a damaged Word file ({type(error).__name__}). Open it and save it again as .docx."
        ) from None
    writer = MarkdownWriter(filename, limits.max_chars)
    body = document.element.body
    paragraphs = [child for child in body.iterchildren() if child.tag.endswith("}p")]
    shift = int(any(_style_name(Paragraph(p, document)).lower() == "title" for p in paragraphs[:50]))
    for count, child in enumerate(body.iterchildren()):
        if count % 500 == 0:
            deadline.check()
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(child, document)
            text = _marked_text(paragraph)
            level = _level(paragraph, shift)
            style = _style_name(paragraph)
            numbered = child.pPr is not None and child.pPr.numPr is not None
            if level:
                writer.heading(level, _marked(text, style))
            elif "list" in style.lower() or numbered:
                writer.item(text, ordered=None)
            else:
                writer.paragraph(text)
        elif tag == "tbl":
            table = Table(child, document)
            rows: list[list[str]] = []
            for row in table.rows:
                cells: list[str] = []
                for cell in row.cells:
                    if cells and cell.text == cells[-1] and len(row.cells) > 1:
                        continue  # a merged cell is listed once per column it spans
                    cells.append(cell.text)
                rows.append(cells)
            writer.table(rows)
    text = writer.text()
    if not text.strip():
        raise BookRefused(f"{filename} has no text: there is nothing to import.")
    title = (document.core_properties.title or "").strip()[:200] or None
    return Book(text=text, kind="docx", mime=DOCX_MIME, title=title)
