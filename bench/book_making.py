"""Books made from Markdown, as a table's own books are made: a two-column PDF, a Word file, an EPUB, an HTML page.

The producers are real ones found in the package registry: ReportLab lays out the PDF (two columns, a running
header with the book's name, page numbers in the footer, an outline of bookmarks, headings in larger type,
tables as tables), python-docx writes the Word file (Heading 1-3 styles, list styles, tables), the EPUB is a zip
of XHTML chapters in spine order as the format describes, and the HTML page is the text as a wiki exports it.
`scripts/make_book_fixtures.py` writes the small fixtures the tests read; `bench.books` makes the SRD world's
books at bench time with the same functions.
"""

from __future__ import annotations

import html
import io
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Section", "make_docx", "make_epub", "make_html", "make_pdf", "parse_markdown"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3})(?=\S)(.+?)(?<=\S)\1")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


_BOLD = re.compile(r"\*\*\*?(?=\S)(.+?)(?<=\S)\*\*\*?")


def plain(text: str) -> str:
    """Return inline Markdown as its words, bold kept as `**` (other emphasis and link targets dropped)."""
    text = _LINK.sub(r"\1", text).replace("\\", "")
    bold = _BOLD.sub(lambda m: "\x01" + m.group(1).replace("*", "") + "\x02", text)
    return _EMPHASIS.sub(r"\2", bold).replace("\x01", "**").replace("\x02", "**")


def words(text: str) -> str:
    """Return text without its bold marks (a heading's, a title's)."""
    return text.replace("**", "")


def _marked(text: str, opening: str, closing: str) -> str:
    """Return text HTML-escaped, its `**bold**` spans between `opening` and `closing`."""
    parts = html.escape(text).split("**")
    return "".join(part if i % 2 == 0 else f"{opening}{part}{closing}" for i, part in enumerate(parts))


@dataclass
class Section:
    """One heading of the source text and what follows it: paragraphs, list items and tables, in order."""

    level: int
    title: str
    blocks: list[tuple[str, object]] = field(default_factory=list)  # ("p", str) ("li", str) ("table", rows)


def parse_markdown(text: str) -> list[Section]:
    """Return a Markdown document as sections (text before the first heading is a level-0 section)."""
    sections = [Section(0, "")]
    lines = text.splitlines()
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            sections[-1].blocks.append(("p", plain(" ".join(paragraph))))
            paragraph.clear()

    index = 0
    while index < len(lines):
        line = lines[index]
        heading = _HEADING.match(line)
        if heading:
            close()
            sections.append(Section(len(heading.group(1)), words(plain(heading.group(2)))))
        elif not line.strip() or line.lstrip().startswith(">"):
            close()
        elif "|" in line and index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1]):
            close()
            rows = [_cells(line)]
            index += 2
            while index < len(lines) and "|" in lines[index] and lines[index].strip():
                rows.append(_cells(lines[index]))
                index += 1
            sections[-1].blocks.append(("table", rows))
            continue
        elif (item := _LIST.match(line)) is not None:
            close()
            sections[-1].blocks.append(("li", plain(item.group(1))))
        else:
            paragraph.append(line.strip())
        index += 1
    close()
    return [s for s in sections if s.level or s.blocks]


def _cells(line: str) -> list[str]:
    return [plain(cell.strip()) for cell in line.strip().strip("|").split("|")]


def _walk(sections: Sequence[Section]) -> Iterator[Section]:
    yield from sections


# -- PDF (ReportLab) ---------------------------------------------------------------------------------------


def make_pdf(title: str, sections: Sequence[Section], *, columns: int = 2) -> bytes:
    """Return a PDF of the sections: two columns, a running header and page numbers, bookmarks per heading."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import LETTER
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.lib.units import inch
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph, Table, TableStyle

    styles = getSampleStyleSheet()
    body = ParagraphStyle(
        "body", parent=styles["BodyText"], fontName="Times-Roman", fontSize=9.5, leading=11.5
    )
    item = ParagraphStyle("item", parent=body, leftIndent=10, bulletIndent=2)
    heads = {
        1: ParagraphStyle(
            "h1", parent=styles["Heading1"], fontName="Helvetica-Bold", fontSize=17, leading=20
        ),
        2: ParagraphStyle(
            "h2", parent=styles["Heading2"], fontName="Helvetica-Bold", fontSize=13.5, leading=16
        ),
        3: ParagraphStyle(
            "h3", parent=styles["Heading3"], fontName="Helvetica-Bold", fontSize=11.5, leading=14
        ),
        4: ParagraphStyle(
            "h4", parent=styles["Heading4"], fontName="Helvetica-Bold", fontSize=10.5, leading=13
        ),
    }
    cell = ParagraphStyle("cell", parent=body, fontSize=8, leading=9.5)

    class Book(BaseDocTemplate):  # type: ignore[misc]
        marks = 0
        outline_level = -1

        def afterFlowable(self, flowable: object) -> None:
            level = getattr(flowable, "_outline_level", None)
            if level is None:
                return
            text = flowable.getPlainText()  # type: ignore[attr-defined]
            key = f"h{self.marks}"
            self.marks += 1
            # An outline cannot skip a level (a heading 3 under a heading 1): it hangs one level down, as
            # LaTeX's hyperref and Word's PDF export place it.
            level = min(level, self.outline_level + 1)
            self.outline_level = level
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(text, key, level=level, closed=True)

    buffer = io.BytesIO()
    width, height = LETTER
    margin = 0.7 * inch
    gutter = 0.3 * inch
    column = (width - 2 * margin - gutter * (columns - 1)) / columns
    frames = [
        Frame(margin + i * (column + gutter), margin, column, height - 2 * margin, id=f"c{i}")
        for i in range(columns)
    ]

    def decorate(canvas: object, doc: object) -> None:
        canvas.saveState()  # type: ignore[attr-defined]
        canvas.setFont("Helvetica", 8)  # type: ignore[attr-defined]
        canvas.drawString(margin, height - 0.45 * inch, title)  # type: ignore[attr-defined]
        canvas.drawRightString(width - margin, 0.4 * inch, str(doc.page))  # type: ignore[attr-defined]
        canvas.restoreState()  # type: ignore[attr-defined]

    doc = Book(buffer, pagesize=LETTER, title=title, author="Lorekeeper fixtures")
    doc.addPageTemplates([PageTemplate(id="book", frames=frames, onPage=decorate)])
    story: list[object] = []
    top = min((s.level for s in sections if s.level), default=1)
    for section in sections:
        if section.level:
            level = min(4, section.level - top + 1)
            heading = Paragraph(html.escape(section.title), heads[level])
            heading._outline_level = level - 1
            story.append(heading)
        for kind, value in section.blocks:
            if kind == "p":
                story.append(Paragraph(_marked(str(value), "<b>", "</b>"), body))
            elif kind == "li":
                story.append(Paragraph(_marked(str(value), "<b>", "</b>"), item, bulletText="•"))
            else:
                rows = [[Paragraph(_marked(c, "<b>", "</b>"), cell) for c in row] for row in value]  # type: ignore[attr-defined]
                table = Table(rows, colWidths=[column / max(1, len(rows[0]))] * len(rows[0]), repeatRows=1)
                table.setStyle(TableStyle([("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black)]))
                story.append(table)
    doc.build(story)
    return buffer.getvalue()


# -- DOCX (python-docx) ------------------------------------------------------------------------------------


def make_docx(title: str, sections: Sequence[Section]) -> bytes:
    """Return a Word file of the sections: Heading styles, list styles and tables."""
    import docx

    document = docx.Document()
    document.core_properties.title = title
    top = min((s.level for s in sections if s.level), default=1)
    for section in sections:
        if section.level:
            document.add_heading(section.title, level=min(6, section.level - top + 1))
        for kind, value in section.blocks:
            if kind == "p":
                _runs(document.add_paragraph(), str(value))
            elif kind == "li":
                _runs(document.add_paragraph(style="List Bullet"), str(value))
            else:
                rows: list[list[str]] = value  # type: ignore[assignment]
                width = max(len(r) for r in rows)
                table = document.add_table(rows=len(rows), cols=width)
                for r, row in enumerate(rows):
                    for c, text in enumerate(row):
                        table.cell(r, c).text = words(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _runs(paragraph: Any, text: str) -> None:
    """Add text to a Word paragraph as runs, its `**bold**` spans bold."""
    for i, part in enumerate(text.split("**")):
        if part:
            paragraph.add_run(part).bold = i % 2 == 1 or None


# -- HTML and EPUB -----------------------------------------------------------------------------------------


def _html_body(sections: Sequence[Section], *, top_level: int | None = None) -> str:
    top = top_level or min((s.level for s in sections if s.level), default=1)
    out: list[str] = []
    in_list = False
    for section in sections:
        if section.level:
            level = min(6, section.level - top + 1)
            out.append(f"<h{level}>{html.escape(section.title)}</h{level}>")
        for kind, value in section.blocks:
            if kind == "li":
                if not in_list:
                    out.append("<ul>")
                    in_list = True
                out.append(f"<li>{_marked(str(value), '<strong>', '</strong>')}</li>")
                continue
            if in_list:
                out.append("</ul>")
                in_list = False
            if kind == "p":
                out.append(f"<p>{_marked(str(value), '<strong>', '</strong>')}</p>")
            else:
                rows: list[list[str]] = value  # type: ignore[assignment]
                head = "".join(f"<th>{html.escape(words(c))}</th>" for c in rows[0])
                rest = "".join(
                    "<tr>" + "".join(f"<td>{_marked(c, '<strong>', '</strong>')}</td>" for c in row) + "</tr>"
                    for row in rows[1:]
                )
                out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rest}</tbody></table>")
        if in_list:
            out.append("</ul>")
            in_list = False
    return "\n".join(out)


def make_html(title: str, sections: Sequence[Section]) -> bytes:
    """Return one HTML page of the sections, as a wiki exports it (navigation and a stylesheet around it)."""
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        '<link rel="stylesheet" href="https://example.invalid/wiki.css"><style>body{font-family:serif}</style>'
        "<script>window.analytics = true;</script></head><body>"
        '<nav><a href="/">Home</a> · <a href="/search">Search</a></nav><main>'
        f"{_html_body(sections)}</main><footer>Exported from the wiki.</footer></body></html>"
    )
    return page.encode("utf-8")


def make_epub(title: str, chapters: Sequence[tuple[str, Sequence[Section]]]) -> bytes:
    """Return an EPUB 3 of chapters (title, sections), one XHTML file each, in spine order."""
    top = min((s.level for _, sections in chapters for s in sections if s.level), default=1)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        manifest, spine = [], []
        for number, (name, sections) in enumerate(chapters, 1):
            href = f"chapter{number:03d}.xhtml"
            manifest.append(f'<item id="c{number}" href="{href}" media-type="application/xhtml+xml"/>')
            spine.append(f'<itemref idref="c{number}"/>')
            book.writestr(
                f"OEBPS/{href}",
                '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>{html.escape(name)}</title></head><body>{_html_body(sections, top_level=top)}</body></html>",
            )
        book.writestr(
            "OEBPS/content.opf",
            '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" '
            'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            f'<dc:identifier id="id">lorekeeper-{len(chapters)}</dc:identifier>'
            f"<dc:title>{html.escape(title)}</dc:title><dc:language>en</dc:language></metadata>"
            f"<manifest>{''.join(manifest)}</manifest><spine>{''.join(spine)}</spine></package>",
        )
    return buffer.getvalue()
