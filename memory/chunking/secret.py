"""GM-only sections: the heading words and comments that mark a section (and its subsections) for the GM alone.

A heading is marked by one of a few words in brackets at its end (or start), in any case:
`(GM only)`, `[GM only]`, `(GM-only)`, `(secret)`, `[secret]`; or by an HTML comment `<!-- gm-only -->` (or
`<!-- secret -->`) at the end of the heading's line or as the first thing under it. Every format that has headings
gets the same words (a PDF's, an EPUB's or an HTML page's heading text, a Word heading). The marker is taken out
of the title people read ("The Duke's Plot"); the section and everything under it become GM-only.
"""

from __future__ import annotations

import re

__all__ = ["GM_LABEL", "MARKER_WORDS", "labelled_paragraphs", "marked_comment", "secret_title"]

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


#: A label a world bible leads a GM's paragraph with ("Secret:", "**GM only:**", "[GM note]"): it marks the text
#: for the GM, it is no part of what the text says.
_GM_WORDS = (
    r"(?:(?:gm|dm|referee|keeper|storyteller|narrator)(?:'s)?[\s_-]*(?:only|notes?|eyes\s+only)|secret|spoilers?|"
    r"for\s+the\s+(?:gm|dm|referee)(?:'s\s+eyes)?(?:\s+only)?)"
)
GM_LABEL = re.compile(
    rf"^\s*(?:[-*+•]\s+)?(?:\*{{1,3}}|_)?(?:[(\[]\s*{_GM_WORDS}\s*[)\]]|{_GM_WORDS})\s*(?:\*{{1,3}}|_)?\s*"
    rf"(?::|\s[-–—])\s*(?:\*{{1,3}}|_)?\s*|^\s*(?:\*{{1,3}}|_)?[(\[]\s*{_GM_WORDS}\s*[)\]](?:\*{{1,3}}|_)?\s+",
    re.IGNORECASE,
)


def labelled_paragraphs(text: str) -> list[str]:
    """Return the paragraphs of a text a GM's label leads ("Secret: The toll-men …", "**GM only:** …"): marked
    for the GM in words, though no heading marks their section (the importer tells the GM)."""
    return [p.strip() for p in re.split(r"\n\s*\n", text) if GM_LABEL.match(p.strip())]
