"""GM-only sections: the heading words and comments that mark a section (and its subsections) for the GM alone.

A heading is marked by one of a few words in brackets at its end (or start), in any case:
`(GM only)`, `[GM only]`, `(GM-only)`, `(secret)`, `[secret]`; or by an HTML comment `<!-- gm-only -->` (or
`<!-- secret -->`) at the end of the heading's line or as the first thing under it. Every format that has headings
gets the same words (a PDF's, an EPUB's or an HTML page's heading text, a Word heading). The marker is taken out
of the title people read ("The Duke's Plot"); the section and everything under it become GM-only.
"""

from __future__ import annotations

import re

__all__ = ["MARKER_WORDS", "marked_comment", "secret_title"]

#: The heading words, as the docs list them.
MARKER_WORDS = ("(GM only)", "[GM only]", "(GM-only)", "(secret)", "[secret]")

_WORD = r"(?:gm[\s_-]*only|secret)"
_BRACKETED = rf"(?:\(\s*{_WORD}\s*\)|\[\s*{_WORD}\s*\])"
_COMMENT = rf"<!--\s*{_WORD}\s*-->"
_AT_END = re.compile(rf"\s*(?:{_BRACKETED}|{_COMMENT})\s*$", re.IGNORECASE)
_AT_START = re.compile(rf"^\s*{_BRACKETED}\s*[:\-–—]?\s*", re.IGNORECASE)
_ONLY_COMMENT = re.compile(rf"^\s*{_COMMENT}\s*$", re.IGNORECASE)


def secret_title(title: str) -> tuple[str, bool]:
    """Return a heading's title without its GM-only marker, and whether it had one."""
    cleaned, ends = _AT_END.subn("", title)
    cleaned, starts = _AT_START.subn("", cleaned)
    if not (ends or starts):
        return title, False
    cleaned = cleaned.strip()
    return (cleaned or title.strip()), True


def marked_comment(text: str) -> bool:
    """Return whether a block of text is only the GM-only comment (`<!-- gm-only -->`)."""
    return _ONLY_COMMENT.match(text) is not None
