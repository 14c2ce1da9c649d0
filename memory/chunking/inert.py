"""Inert text: images become `[image: alt]` placeholders and line endings `\\n`, with a map back to the original.

Outside code blocks, images `![alt](src)`, reference images `![alt][ref]` and HTML `<img>` tags become
`[image: alt]` (their URLs are dropped). Links `[text](url)` are left exactly as written: text and URL stay as
plain text, nothing is fetched. HTML, `<script>` included, is kept as literal text: nothing downstream renders
HTML, and keeping it lets an operator see what a file tried to do. `OffsetMap` turns an offset in the cleaned
text back into the caller's original string.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from memory.chunking.blocks import Block, line_bounds, scan

_SURROGATE = re.compile("[\ud800-\udfff]")

_IMAGE_INLINE = (
    r"!\[((?:[^\[\]\n]|\[[^\[\]\n]*\]){0,1000})\]"
    r"\([ \t]*(?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\)){0,2000})"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"
)
_IMAGE_REFERENCE = r"!\[((?:[^\[\]\n]|\[[^\[\]\n]*\]){0,1000})\]\[[^\[\]\n]{0,1000}\]"
_IMG_TAG = r"<img\b(?:[^>\"']|\"[^\"]{0,2000}\"|'[^']{0,2000}'){0,4000}>"
_CLEAN = re.compile(
    r"(\r\n?)|" + _IMAGE_INLINE + "|" + _IMAGE_REFERENCE + "|(" + _IMG_TAG + ")", re.IGNORECASE
)
_CRLF = re.compile(r"\r\n?")
_ALT_ATTRIBUTE = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)
_SPACES = re.compile(r"\s+")


def _image_placeholder(alt: str) -> str:
    alt = _SPACES.sub(" ", alt.replace("[", "(").replace("]", ")")).strip()
    return f"[image: {alt}]" if alt else "[image]"


class OffsetMap:
    """Map offsets in the cleaned text back to the original string."""

    def __init__(self) -> None:
        self.clean_starts: list[int] = []
        self.clean_ends: list[int] = []
        self.original_starts: list[int] = []
        self.original_ends: list[int] = []

    def add(self, clean_start: int, clean_end: int, original_start: int, original_end: int) -> None:
        self.clean_starts.append(clean_start)
        self.clean_ends.append(clean_end)
        self.original_starts.append(original_start)
        self.original_ends.append(original_end)

    def original(self, position: int, *, end: bool) -> int:
        """Return the original offset of a cleaned offset (a replaced span maps to its whole original)."""
        index = bisect_right(self.clean_starts, position) - 1
        if index < 0:
            return position
        clean_end = self.clean_ends[index]
        if position >= clean_end:
            return self.original_ends[index] + position - clean_end
        if position == self.clean_starts[index] or not end:
            return self.original_starts[index]
        return self.original_ends[index]


class _Cleaner:
    """Build the inert, `\\n`-only text block by block, with the map back to the original."""

    def __init__(self, original: str) -> None:
        self.original = original
        self.parts: list[str] = []
        self.length = 0
        self.map = OffsetMap()

    def emit(self, start: int, end: int, *, images: bool) -> None:
        source = self.original
        pattern = _CLEAN if images else _CRLF
        position = start
        for match in pattern.finditer(source, start, end):
            if match.start() > position:
                self._copy(position, match.start())
            matched = match.group(0)
            if matched[0] == "\r":
                replacement = "\n"
            elif match.lastindex is not None and match.lastindex >= 4 and match.group(4):
                alt = _ALT_ATTRIBUTE.search(matched)
                replacement = _image_placeholder(next((g for g in alt.groups() if g), "") if alt else "")
            else:
                replacement = _image_placeholder(match.group(2) or match.group(3) or "")
            if len(replacement) != len(matched) or matched[0] != "\r":
                self.map.add(self.length, self.length + len(replacement), match.start(), match.end())
            self.parts.append(replacement)
            self.length += len(replacement)
            position = match.end()
        if end > position:
            self._copy(position, end)

    def _copy(self, start: int, end: int) -> None:
        self.parts.append(self.original[start:end])
        self.length += end - start

    def text(self) -> str:
        return "".join(self.parts)


def clean_blocks(text: str, blocks: list[Block]) -> tuple[str, OffsetMap]:
    """Make the document inert; rewrite every block's offsets to the cleaned text."""
    cleaner = _Cleaner(text)
    position = 0
    for block in blocks:
        original_start, original_end = block.start, block.end
        cleaner.emit(position, original_start, images=False)
        start = cleaner.length
        cleaner.emit(original_start, original_end, images=block.kind != "code")
        block.start, block.end = start, cleaner.length
        position = original_end
    cleaner.emit(position, len(text), images=False)
    return cleaner.text(), cleaner.map


def prepare(text: str) -> tuple[str, OffsetMap, list[Block]]:
    """Return the cleaned document, the map back to the original, and its blocks (cleaned offsets)."""
    text = _SURROGATE.sub("\ufffd", text)  # one character for one: offsets are unchanged
    starts, ends = line_bounds(text)
    blocks = scan(text, starts, ends)
    clean, offsets = clean_blocks(text, blocks)
    return clean, offsets, blocks


def inert_markdown(text: str) -> str:
    """Return `text` as the chunker sees it: images as `[image: alt]` (outside code), `\\n` line endings."""
    return prepare(text)[0]
