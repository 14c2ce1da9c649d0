"""Blocks: a document's lines scanned once into headings, paragraphs, tables and fenced code (CommonMark-like).

Fenced code blocks (whose `#` lines are code, not headings), ATX (`#`..`######`) and setext (`===`/`---` under
a paragraph) headings, GFM pipe tables, YAML front matter, and paragraphs (everything else, lists and HTML
included, separated by blank lines). Offsets are the original string's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_EOL = re.compile(r"\r\n|\r|\n")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_TABLE_DELIMITER = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_NOT_SETEXT_CONTENT = re.compile(r" {0,3}(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)|>|<)")

BlockKind = Literal["heading", "text", "code", "table"]


@dataclass(slots=True, eq=False)
class Block:
    """A run of lines of one kind; `tokens` is filled in when first counted (-1 until then)."""

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    setext: bool = False
    tokens: int = -1


def line_bounds(text: str) -> tuple[list[int], list[int]]:
    """Return the start and the end (before the line break) of every line."""
    starts: list[int] = []
    ends: list[int] = []
    position = 1 if text.startswith("\ufeff") else 0  # a byte-order mark is not part of the first line
    for match in _EOL.finditer(text):
        starts.append(position)
        ends.append(match.start())
        position = match.end()
    if position < len(text):
        starts.append(position)
        ends.append(len(text))
    return starts, ends


def _front_matter_end(text: str, starts: list[int], ends: list[int]) -> int:
    """Return the closing line of YAML front matter at the top of the document, or -1 when there is none."""
    if not starts or text[starts[0] : ends[0]].rstrip() != "---":
        return -1
    for closing in range(1, min(len(starts), 500)):
        if text[starts[closing] : ends[closing]].rstrip() in ("---", "..."):
            return closing
    return -1


def _fence_end(text: str, starts: list[int], ends: list[int], index: int, marker: str) -> int:
    """Return the closing line of the code fence opened at `index` (an unclosed fence runs to the end)."""
    closer = re.compile(rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*")
    for candidate in range(index + 1, len(starts)):
        if closer.fullmatch(text[starts[candidate] : ends[candidate]]):
            return candidate
    return len(starts) - 1  # CommonMark: an unclosed fence runs to the end of the document


def _table_end(text: str, starts: list[int], ends: list[int], index: int) -> int:
    """Return the last row of the table whose delimiter row is at `index`."""
    last = index
    while last + 1 < len(starts):
        row = text[starts[last + 1] : ends[last + 1]]
        if not row.strip() or "|" not in row or ATX.fullmatch(row) or _FENCE_OPEN.fullmatch(row):
            break
        last += 1
    return last


def scan(text: str, starts: list[int], ends: list[int]) -> list[Block]:
    """Split the document into heading, paragraph, table and code blocks (original offsets)."""
    blocks: list[Block] = []
    count = len(starts)
    paragraph = -1  # first line of the open paragraph

    def close(until: int) -> None:
        nonlocal paragraph
        if paragraph >= 0 and until > paragraph:
            blocks.append(Block("text", starts[paragraph], ends[until - 1]))
        paragraph = -1

    index = 0
    front_matter = _front_matter_end(text, starts, ends)  # YAML front matter is text, never a heading
    if front_matter >= 0:
        blocks.append(Block("text", starts[0], ends[front_matter]))
        index = front_matter + 1
    while index < count:
        line = text[starts[index] : ends[index]]
        if not line.strip():
            close(index)
            index += 1
            continue
        first = line.lstrip(" ")[:1]
        if first in ("`", "~") and (fence := _FENCE_OPEN.fullmatch(line)) is not None:
            marker = fence.group(1)
            if not (marker[0] == "`" and "`" in fence.group(2)):
                close(index)
                last = _fence_end(text, starts, ends, index, marker)
                blocks.append(Block("code", starts[index], ends[last]))
                index = last + 1
                continue
        if first == "#" and (atx := ATX.fullmatch(line)) is not None:
            close(index)
            blocks.append(Block("heading", starts[index], ends[index], level=len(atx.group(1))))
            index += 1
            continue
        if (
            paragraph >= 0
            and first in ("=", "-")
            and _SETEXT.fullmatch(line)
            and not _NOT_SETEXT_CONTENT.match(text, starts[paragraph], ends[paragraph])
        ):
            level = 1 if first == "=" else 2
            blocks.append(Block("heading", starts[paragraph], ends[index], level=level, setext=True))
            paragraph = -1
            index += 1
            continue
        if (
            paragraph >= 0
            and "|" in line
            and "-" in line
            and "|" in text[starts[index - 1] : ends[index - 1]]
            and _TABLE_DELIMITER.fullmatch(line)
        ):
            close(index - 1)
            last = _table_end(text, starts, ends, index)
            blocks.append(Block("table", starts[index - 1], ends[last]))
            index = last + 1
            continue
        if first in ("-", "*", "_") and _THEMATIC.fullmatch(line):
            close(index)
            blocks.append(Block("text", starts[index], ends[index]))
            index += 1
            continue
        if paragraph < 0:
            paragraph = index
        index += 1
    close(count)
    return blocks
