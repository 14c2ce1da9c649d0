"""Books: PDF, DOCX, EPUB and HTML files read as Markdown, with the page or chapter each part is on.

A reader turns a file into the Markdown a GM would have written (headings, paragraphs, list items, pipe tables)
and records where each page (PDF) or chapter (EPUB) begins. The knowledge importer chunks that Markdown exactly
as it chunks a Markdown file, and gives each chunk the place its text starts on ("p. 112"), so a book has the
same heading paths, classes, budgets, index and inspectors as Markdown, and its citations name the page.
Readers are pure functions of the file's bytes, bounded in time, size and nesting (`BookLimits`); they run in a
worker process, never on the bot's event loop. See docs/books.md for the libraries and why.
"""

from __future__ import annotations

from memory.books.models import Book, BookLimits, BookRefused, OcrOptions
from memory.books.read import BOOK_SUFFIXES, book_kind, check_content, read_book, sniff

__all__ = [
    "BOOK_SUFFIXES",
    "Book",
    "BookLimits",
    "BookRefused",
    "OcrOptions",
    "book_kind",
    "check_content",
    "read_book",
    "sniff",
]
