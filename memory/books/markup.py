"""HTML (a wiki's export, an EPUB's chapters) read as Markdown with the standard library's HTML tokenizer.

The tokenizer only reads: nothing is fetched, run or rendered. Scripts, styles, forms, frames, embedded objects,
SVG and navigation menus are dropped with everything inside them; attributes (event handlers, `javascript:` and
remote `src`/`href` addresses included) are never kept: a link keeps its words, an image its alt text as
`[image: alt]`. Headings `h1`-`h6` become headings, list items items, tables pipe tables, every other block a
paragraph. Nesting deeper than the limit is read as flat text, and a document that keeps the reader past its
deadline is refused.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

from memory.books.models import Book, BookLimits, BookRefused, Deadline
from memory.books.own_lines import ends_sentence, starts_field
from memory.books.writer import MarkdownWriter, clean_text

__all__ = ["HtmlReader", "decode_markup", "read_html"]

_DROPPED = {
    "script", "style", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet",
    "form", "select", "textarea", "button", "svg", "math", "canvas", "nav", "head", "audio", "video", "map",
}  # fmt: skip
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_BLOCKS = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "pre", "dl", "dt",
    "dd", "figure", "figcaption", "address", "center", "body", "html", "hr", "br-block", "caption",
}  # fmt: skip
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9_.:-]+)["']""")


def decode_markup(data: bytes, filename: str) -> str:
    """Return the text of an HTML/XHTML file in the encoding it declares (UTF-8 when it declares none).

    A byte that is not valid in that encoding (a file saved in two encodings at once) is refused with where it is.
    """
    if data.startswith(codecs.BOM_UTF8):
        encoding, data = "utf-8", data[3:]
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        head = data[:4096]
        found = _XML_ENCODING.search(head) or _CHARSET.search(head)
        encoding = found.group(1).decode("ascii").lower() if found else "utf-8"
        try:
            codecs.lookup(encoding)
        except LookupError:
            encoding = "utf-8"
        if encoding in ("iso-8859-1", "latin-1", "latin1", "us-ascii", "ascii"):
            encoding = "cp1252"  # what browsers read those labels as
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        offset = error.start
        line = data.count(b"\n", 0, offset) + 1
        raise BookRefused(
            f"{filename} is not valid {encoding.upper()} text: the first bad byte (0x{data[offset]:02X}) is at "
            f"byte offset {offset} (line {line}). Parts of it were saved in another encoding; save it again as "
            "UTF-8 and import it again."
        ) from None


_EMPTY_BOLD = re.compile(r"\*\*\s*\*\*")
_BOLD_SPAN = re.compile(r"\*\*\s*(.*?)\s*\*\*")


#: A line break in a paragraph, kept until the paragraph is written (`_broken`).
_BREAK = "\x00"


def _broken(raw: str) -> list[str]:
    """Return a paragraph's text as the paragraphs it is written as: one, its line breaks read as spaces, but
    for lines that are fields of their own (a price list's dotted leaders, bold or dashed labels: the lines of
    a stat block set with line breaks), each kept apart."""
    lines = [_tidy_bold(clean_text(line)) for line in raw.split(_BREAK)]
    paragraphs: list[str] = []
    for line in (line for line in lines if line):
        before = paragraphs[-1] if paragraphs else ""
        if not paragraphs or starts_field(line, before, ends_sentence(before)):
            paragraphs.append(line)
        else:
            paragraphs[-1] = f"{before} {line}"
    return paragraphs


def _tidy_bold(text: str) -> str:
    """Return text whose `**` marks hug their words ("** Armor Class **" -> "**Armor Class**"), empty ones gone."""
    if "**" not in text:
        return text
    text = _EMPTY_BOLD.sub(" ", text)
    if text.count("**") % 2:
        return text.replace("**", "")
    return " ".join(_BOLD_SPAN.sub(lambda m: f"**{m.group(1)}**" if m.group(1) else "", text).split())


class HtmlReader(HTMLParser):
    """Feeds one HTML document's blocks to a `MarkdownWriter`."""

    def __init__(self, writer: MarkdownWriter, deadline: Deadline, max_depth: int) -> None:
        super().__init__(convert_charrefs=True)
        self.writer = writer
        self.deadline = deadline
        self.max_depth = max_depth
        self.depth = 0
        self.dropped: list[str] = []
        self.buffer: list[str] = []
        self.kind: tuple[str, int] = ("p", 0)
        self.title: str | None = None
        self.in_title = False
        self.title_parts: list[str] = []
        self.rows: list[list[str]] | None = None
        self.table_depth = 0
        self.ordered: list[int] = []
        self.tags = 0

    # -- blocks ------------------------------------------------------------------------------------------

    def flush(self) -> None:
        raw = "".join(self.buffer)
        text = _tidy_bold(clean_text(raw.replace(_BREAK, " ")))
        self.buffer = []
        kind, level = self.kind
        self.kind = ("p", 0)
        if not text:
            return
        if kind == "h":
            self.writer.heading(level, text)
        elif kind == "li":
            self.writer.item(text, ordered=level or None)
        else:
            for paragraph in _broken(raw):
                self.writer.paragraph(paragraph)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags += 1
        if self.tags % 2000 == 0:
            self.deadline.check()
        if self.dropped:
            if tag not in _VOID:
                self.dropped.append(tag)
            return
        if tag == "title":
            self.in_title = True
            return
        if tag in _DROPPED and tag not in _VOID:
            if tag == "head":
                return  # the head's title is read; the rest of it holds no text
            self.dropped.append(tag)
            return
        if tag not in _VOID:
            self.depth += 1
        if self.depth > self.max_depth:
            return
        if tag in ("b", "strong"):
            self._text("**")
        elif tag == "img":
            alt = clean_text(dict(attrs).get("alt") or "")
            self._text(f" [image: {alt}] " if alt else " ")
        elif tag == "br":
            self._text(_BREAK if self.rows is None else " ")
        elif self.rows is not None or tag == "table":
            self._table_start(tag)
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.flush()
            self.kind = ("h", int(tag[1]))
        elif tag in ("ul", "ol"):
            self.flush()
            self.ordered.append(1 if tag == "ol" else 0)
        elif tag == "li":
            self.flush()
            number = 0
            if self.ordered and self.ordered[-1]:
                number = self.ordered[-1]
                self.ordered[-1] += 1
            self.kind = ("li", number)
        elif tag in _BLOCKS:
            self.flush()

    def _table_start(self, tag: str) -> None:
        if tag == "table":
            self.table_depth += 1
            if self.table_depth == 1:
                self.flush()
                self.rows = []
            return
        if self.table_depth != 1 or self.rows is None:
            return
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            if not self.rows:
                self.rows.append([])
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if self.dropped:
            if tag in self.dropped:
                while self.dropped and self.dropped.pop() != tag:
                    pass
            return
        if tag == "title":
            self.in_title = False
            self.title = clean_text("".join(self.title_parts))[:200] or None
            return
        if tag in _VOID or tag == "head":
            return
        if tag in ("b", "strong"):
            self._text("**")
        self.depth = max(0, self.depth - 1)
        if self.depth >= self.max_depth:
            return
        if tag == "table" and self.table_depth:
            self.table_depth -= 1
            if self.table_depth == 0 and self.rows is not None:
                rows, self.rows = self.rows, None
                self.writer.table([[_tidy_bold(cell) for cell in row] for row in rows])
            return
        if self.rows is not None:
            return
        if tag in ("ul", "ol"):
            self.flush()
            if self.ordered:
                self.ordered.pop()
        elif (len(tag) == 2 and tag[0] == "h" and tag[1] in "123456") or tag == "li" or tag in _BLOCKS:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        elif not self.dropped:
            self._text(data)

    def _text(self, data: str) -> None:
        if self.rows is not None:
            if self.rows and self.rows[-1]:
                self.rows[-1][-1] += data
            return
        self.buffer.append(data)

    def finish(self) -> None:
        self.close()
        if self.rows is not None:
            rows, self.rows = self.rows, None
            self.writer.table(rows)
        self.flush()


def read_html(data: bytes, filename: str, limits: BookLimits) -> Book:
    """Return an HTML page as Markdown (no places: its sections are its places)."""
    deadline = Deadline(filename, limits.seconds)
    writer = MarkdownWriter(filename, limits.max_chars)
    reader = HtmlReader(writer, deadline, limits.max_depth)
    reader.feed(decode_markup(data, filename))
    reader.finish()
    text = writer.text()
    if not text.strip():
        raise BookRefused(
            f"{filename} has no text outside its scripts and menus: there is nothing to import."
        )
    return Book(text=text, kind="html", mime="text/html", title=reader.title)
