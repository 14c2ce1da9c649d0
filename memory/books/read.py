"""Which reader a file goes to: its name says what it should be, its first bytes say what it is.

A name and a content that disagree (a Word file renamed .pdf, a PDF renamed .md) are refused with what the file
really is, so a GM is never told a PDF "is not valid UTF-8". `read_book` runs in a worker process (see
`Importer`); everything it returns is plain data.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from memory.books.models import Book, BookLimits, BookRefused

__all__ = ["BOOK_SUFFIXES", "book_kind", "check_content", "read_book", "sniff"]

#: Book files by suffix: their kind.
BOOK_SUFFIXES = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".epub": "epub",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
}
_NAMES = {
    "pdf": "a PDF",
    "docx": "a Word (.docx) file",
    "epub": "an EPUB",
    "html": "an HTML page",
    "text": "a text file",
    "zip": "a zip archive",
    "binary": "a binary file (not a document)",
    "doc": "an old Word (.doc) file",
}
_SUFFIX_FOR = {"pdf": ".pdf", "docx": ".docx", "epub": ".epub", "html": ".html", "text": ".md or .txt"}


def book_kind(filename: str) -> str | None:
    """Return the book kind a file name says (None for Markdown/text and everything else)."""
    return BOOK_SUFFIXES.get(PurePosixPath(filename).suffix.lower())


def sniff(data: bytes) -> str:
    """Return what a file's first bytes say it is: pdf, docx, epub, zip, html, doc, binary or text."""
    head = data[:2048]
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        try:
            names = set(zipfile.ZipFile(io.BytesIO(data)).namelist()[:5000])
        except (zipfile.BadZipFile, ValueError, OSError, EOFError):
            return "zip"
        if head[30:38] == b"mimetype" and b"application/epub+zip" in head[:100]:
            return "epub"
        if "word/document.xml" in names:
            return "docx"
        if "META-INF/container.xml" in names:
            return "epub"
        return "zip"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "doc"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<body" in text or b"<head" in text:
        return "html"
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary"
    return "text"


def check_content(filename: str, data: bytes) -> str:
    """Return the kind to read a file as, or raise `BookRefused` when its name lies about its content."""
    said = book_kind(filename) or "text"
    found = sniff(data)
    if said == found or (said == "html" and found == "text") or (said == "text" and found == "html"):
        return said
    what = _NAMES.get(found, "something else")
    hint = f" Rename it to end in {_SUFFIX_FOR[found]} and import it again." if found in _SUFFIX_FOR else ""
    if found == "doc":
        hint = " Open it in Word or LibreOffice and save it as .docx, then import that."
    raise BookRefused(
        f"{filename} is named as {_NAMES[said]}, but its content is {what}: nothing was imported.{hint}"
    )


def read_book(data: bytes, filename: str, limits: BookLimits | None = None) -> Book:
    """Return a PDF, DOCX, EPUB or HTML file as Markdown with its places (`BookRefused` says why not)."""
    limits = limits or BookLimits()
    kind = check_content(filename, data)
    if kind == "pdf":
        from memory.books.pdf import read_pdf

        return read_pdf(data, filename, limits)
    if kind == "docx":
        from memory.books.word import read_docx

        return read_docx(data, filename, limits)
    if kind == "epub":
        from memory.books.epub import read_epub

        return read_epub(data, filename, limits)
    if kind == "html":
        from memory.books.markup import read_html

        return read_html(data, filename, limits)
    raise BookRefused(f"{filename} is not a book file (.pdf, .docx, .epub or .html).")
