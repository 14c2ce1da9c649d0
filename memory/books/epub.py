"""EPUB: a zip of XHTML chapters, read in the spine's order with the HTML reader (no EPUB library: see docs/books.md).

`META-INF/container.xml` names the package file; its manifest and spine give the chapters in reading order.
Each chapter's place is "ch. N" (N counts the chapters that hold text). Remote resources a chapter names
(images, stylesheets, fonts) are never fetched: only the chapters' own text is read.
"""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser

from memory.books.markup import HtmlReader, decode_markup
from memory.books.models import Book, BookLimits, BookRefused, Deadline
from memory.books.writer import MarkdownWriter, clean_text
from memory.books.zips import SafeZip

__all__ = ["read_epub"]


class _Package(HTMLParser):
    """The few things read from container.xml and the package file: the rootfile, manifest, spine, title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rootfile: str | None = None
        self.items: dict[str, tuple[str, str]] = {}
        self.spine: list[str] = []
        self.title_parts: list[str] | None = None
        self.title: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if tag == "rootfile" and self.rootfile is None:
            self.rootfile = values.get("full-path")
        elif tag == "item" and values.get("id"):
            self.items[values["id"]] = (values.get("href", ""), values.get("media-type", ""))
        elif tag == "itemref" and values.get("idref"):
            self.spine.append(values["idref"])
        elif tag == "dc:title" and self.title is None:
            self.title_parts = []

    def handle_data(self, data: str) -> None:
        if self.title_parts is not None:
            self.title_parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "dc:title" and self.title_parts is not None:
            self.title = clean_text("".join(self.title_parts))[:200] or None
            self.title_parts = None


def _package(data: bytes, filename: str) -> _Package:
    parser = _Package()
    parser.feed(decode_markup(data, filename))
    parser.close()
    return parser


def read_epub(data: bytes, filename: str, limits: BookLimits) -> Book:
    """Return an EPUB's chapters, in spine order, as one Markdown document with a place per chapter."""
    deadline = Deadline(filename, limits.seconds)
    archive = SafeZip(data, filename, "EPUB", limits)
    damaged = f"{filename} is not a readable EPUB: "
    if not archive.has("META-INF/container.xml"):
        raise BookRefused(damaged + "it has no META-INF/container.xml. Export it again from its editor.")
    container = _package(archive.read("META-INF/container.xml"), filename)
    if not container.rootfile or not archive.has(container.rootfile):
        raise BookRefused(damaged + "its container names no package file inside it. Export it again.")
    package = _package(archive.read(container.rootfile), filename)
    base = posixpath.dirname(container.rootfile)
    writer = MarkdownWriter(filename, limits.max_chars)
    chapters = 0
    for idref in package.spine:
        href, media = package.items.get(idref, ("", ""))
        if not href or "://" in href or href.startswith("//") or "html" not in media:
            continue  # a remote or non-text item is never fetched or read
        name = posixpath.normpath(posixpath.join(base, href.split("#")[0]))
        if not archive.has(name):
            continue
        deadline.check()
        before = writer.size
        writer.mark(f"ch. {chapters + 1}")
        reader = HtmlReader(writer, deadline, limits.max_depth)
        reader.feed(decode_markup(archive.read(name), filename))
        reader.finish()
        if writer.size > before:
            chapters += 1
    text = writer.text()
    if not text.strip():
        raise BookRefused(f"{filename} has no text in its chapters: there is nothing to import.")
    places = tuple((offset, label) for offset, label in writer.places if offset < len(text))
    return Book(
        text=text,
        kind="epub",
        mime="application/epub+zip",
        places=places,
        pages=chapters,
        title=package.title,
    )
