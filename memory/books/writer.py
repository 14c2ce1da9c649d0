"""Markdown written by the readers: headings, paragraphs, list items and tables, and where each place begins.

What a reader finds becomes the same Markdown a GM would have written by hand, so a book is chunked, indexed and
shown exactly as a Markdown file is. Text is written as text: a line of a book that happens to start with `#`,
`>`, `|` or a code fence is escaped, so it can never become a heading, a table or a code block it was not.
"""

from __future__ import annotations

import re
import unicodedata

from memory.books.models import BookRefused

_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_MARKUP_START = re.compile(r"^(\s*)(#|>|\||```|~~~|[-*_]{3,}\s*$|=+\s*$)")


#: Typographic ligatures a PDF's font draws as one glyph ("ﬁ" of "ﬁlled"), as the letters they join.
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})


def clean_text(text: str) -> str:
    """Return a run of text on one line: NFC, ligatures as their letters, control characters gone, spaces
    collapsed."""
    text = unicodedata.normalize("NFC", text).translate(_LIGATURES)
    text = _CONTROLS.sub("", text).replace("\r", " ").replace("\n", " ")
    return _SPACES.sub(" ", text).strip()


def _safe_line(text: str) -> str:
    return _MARKUP_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


class MarkdownWriter:
    """Builds one Markdown document; `mark` records where a page or chapter begins."""

    def __init__(self, filename: str, max_chars: int) -> None:
        self.filename = filename
        self.max_chars = max_chars
        self.parts: list[str] = []
        self.size = 0
        self.places: list[tuple[int, str]] = []
        self.open_paragraph = False
        self.last_is_item = False

    def _add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size > self.max_chars:
            raise BookRefused(
                f"{self.filename} holds more than {self.max_chars:,} characters of text, too much for one "
                "source. Split it into smaller files and import them one by one."
            )

    def mark(self, label: str) -> None:
        """Record that what is written next is on page/in chapter `label`."""
        offset = self.size
        if self.places and self.places[-1][0] == offset:
            self.places[-1] = (offset, label)
        elif not self.places or self.places[-1][1] != label:
            self.places.append((offset, label))

    def _block(self, text: str) -> None:
        self.open_paragraph = False
        self.last_is_item = False
        if self.parts:
            self._add("\n\n")
        self._add(text)

    def heading(self, level: int, text: str) -> None:
        title = clean_text(text.replace("**", ""))
        if title:
            self._block("#" * max(1, min(6, level)) + " " + title.replace("#", "\\#"))

    def paragraph(self, text: str, *, joinable: bool = False) -> None:
        """Write a paragraph; `joinable` paragraphs may be continued by `continue_paragraph`."""
        line = clean_text(text)
        if not line:
            return
        self._block(_safe_line(line))
        self.open_paragraph = joinable

    def continue_paragraph(self, text: str) -> bool:
        """Add text to the open paragraph (a sentence running on over a page or column); False if none is."""
        line = clean_text(text)
        if not self.open_paragraph or not line:
            return False
        last = self.parts[-1]
        if last.endswith("-") and line[:1].islower() and len(last) > 1 and last[-2].isalpha():
            self.parts[-1] = last[:-1]
            self.size -= 1
            self._add(line)
        else:
            self._add(" " + line)
        return True

    def item(self, text: str, *, ordered: int | None = None) -> None:
        line = clean_text(text)
        if not line:
            return
        marker = f"{ordered}." if ordered else "-"
        self.open_paragraph = False
        if self.parts:
            self._add("\n" if self.last_is_item else "\n\n")
        self._add(f"{marker} {_safe_line(line)}")
        self.last_is_item = True

    def table(self, rows: list[list[str]]) -> None:
        """Write rows as a pipe table (the first row is its header; an empty one, for a table that has none, is
        kept: the rows under it are all rows)."""
        rows = [
            [clean_text(cell).replace("|", "\\|") for cell in row]
            for index, row in enumerate(rows)
            if any(c.strip() for c in row) or (index == 0 and len(rows) > 1)
        ]
        if not rows:
            return
        width = max(len(row) for row in rows)
        if width < 2:
            for row in rows:
                self.paragraph(row[0] if row else "")
            return
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
        lines.insert(1, "|" + "---|" * width)
        self._block("\n".join(lines))

    def text(self) -> str:
        return "".join(self.parts)
