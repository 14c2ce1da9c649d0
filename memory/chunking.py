"""Split an imported markdown document into retrievable chunks along its headings.

Pure functions, no I/O. The caller decodes (UTF-8) and NFC-normalises the document; this module only reads it.

How a document becomes chunks:

1. Blocks. Lines are scanned once (CommonMark-like): fenced code blocks (whose `#` lines are code, not
   headings), ATX (`#`..`######`) and setext (`===`/`---` under a paragraph) headings, GFM pipe tables, YAML
   front matter, and paragraphs (everything else, lists and HTML included, separated by blank lines).
2. Inert text. Outside code blocks, images `![alt](src)`, reference images `![alt][ref]` and HTML `<img>` tags
   become `[image: alt]` (their URLs are dropped). Links `[text](url)` are left exactly as written: text and
   URL stay as plain text, nothing is fetched. HTML, `<script>` included, is kept as literal text: nothing
   downstream renders HTML, and keeping it lets an operator see what a file tried to do. Line endings become
   `\\n`. `char_start`/`char_end` always refer to the caller's original string.
3. Sections. Headings form a tree; a heading closes every open section of the same or a deeper level, so
   skipped levels (`####` straight after `#`) and jumps back up are handled. A section's heading path is the
   titles from the top (`# Title`, `## Section`, ...), with emphasis markers and link URLs removed.
4. Chunks. Every chunk belongs to exactly one section and carries that section's heading path. Small sections
   become one chunk each. Sibling sections are packed together (the chunk then carries the parent's path)
   only when that loses nothing: sections whose titles repeat in the document ("Actions", "Traits" under each
   monster) are labels and are packed with their parent's text up to `max_tokens`; sections with a unique
   title are entries and are packed with a following sibling only while the chunk is under `min_tokens`, and
   never under a glossary-like parent (one with `glossary_min_entries` or more entry children: a monster or
   spell list), so "## Sahuagin" is always a chunk whose heading path ends with "Sahuagin". A section too big
   for one chunk is split at paragraph boundaries (then lines, sentences, words, and as a last resort token
   boundaries) into balanced pieces; each piece after the first starts with a short overlap repeating the
   end of the previous piece's last paragraph. Tables and fenced code blocks stay whole when they fit;
   a larger table is split by rows with its header row repeated, a larger code block by lines with its fence
   repeated.
5. Text. `text` (what is embedded and indexed) is the heading lines of the path that are not already inside
   the chunk, then the chunk's body; a chunk with no heading above it starts with the document title instead.
   `display_text` is the body alone when it differs from `text`. Every chunk's `token_count` (o200k, of
   `text`) is at most `max_tokens`: the heading context is capped at a quarter of `max_tokens`, and any run
   without a usable boundary is cut between tokens.

Every non-blank character of the document is inside at least one chunk's `char_start`..`char_end` span.
"""

from __future__ import annotations

import hashlib
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memory.tokens import count_tokens, token_end_offsets, truncate_to_tokens

__all__ = [
    "CHUNKING_VERSION",
    "Chunk",
    "ChunkingOptions",
    "chunk_markdown",
    "inert_markdown",
]

#: Bump whenever a change to this module can change the chunks of an unchanged document.
CHUNKING_VERSION = "md-headings-1"

_MAX_TITLE_CHARS = 200


class ChunkingOptions(BaseModel):
    """How big chunks should be; token counts are o200k tokens of a chunk's `text`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_tokens: int = Field(default=300, ge=1)
    max_tokens: int = Field(default=800, ge=50)
    #: Tokens repeated from the end of the previous piece of a section; at most a quarter of max_tokens.
    overlap_tokens: int = Field(default=40, ge=0)
    #: A parent with this many uniquely titled child sections is a glossary: its children are never merged.
    glossary_min_entries: int = Field(default=3, ge=2)

    @model_validator(mode="after")
    def _min_not_above_max(self) -> ChunkingOptions:
        if self.min_tokens > self.max_tokens:
            raise ValueError("min_tokens must not be greater than max_tokens")
        return self

    @property
    def effective_overlap(self) -> int:
        """Return the overlap actually used: `overlap_tokens`, capped at a quarter of `max_tokens`."""
        return min(self.overlap_tokens, self.max_tokens // 4)


class Chunk(BaseModel):
    """One retrievable piece of a document."""

    model_config = ConfigDict(frozen=True)

    index: int
    #: Titles of the enclosing headings, outermost first (the document's `# Title`, then `## Section`...).
    heading_path: list[str]
    #: What is embedded and indexed: the heading context, a blank line, then the body.
    text: str
    #: The body alone (inert markdown), when it differs from `text`.
    display_text: str | None = None
    #: o200k tokens in `text`.
    token_count: int
    #: sha256 (hex) of `text` encoded as UTF-8.
    content_hash: str
    #: The span of the original document the body was taken from (a repeated table header or code fence,
    #: and the heading context, are not part of it). Overlapping chunks have overlapping spans.
    char_start: int
    char_end: int


# --------------------------------------------------------------------------------------------- scanning

_EOL = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_THEMATIC = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_TABLE_DELIMITER = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_NOT_SETEXT_CONTENT = re.compile(r" {0,3}(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)|>|<)")

BlockKind = Literal["heading", "text", "code", "table"]


@dataclass(slots=True, eq=False)
class _Block:
    kind: BlockKind
    start: int
    end: int
    level: int = 0
    setext: bool = False
    tokens: int = -1


def _lines(text: str) -> tuple[list[int], list[int]]:
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


def _scan(text: str, starts: list[int], ends: list[int]) -> list[_Block]:
    """Split the document into heading, paragraph, table and code blocks (original offsets)."""
    blocks: list[_Block] = []
    count = len(starts)
    paragraph = -1  # first line of the open paragraph

    def close(until: int) -> None:
        nonlocal paragraph
        if paragraph >= 0 and until > paragraph:
            blocks.append(_Block("text", starts[paragraph], ends[until - 1]))
        paragraph = -1

    index = 0
    if count and text[starts[0] : ends[0]].rstrip() == "---":  # YAML front matter is text, never a heading
        for closing in range(1, min(count, 500)):
            if text[starts[closing] : ends[closing]].rstrip() in ("---", "..."):
                blocks.append(_Block("text", starts[0], ends[closing]))
                index = closing + 1
                break

    while index < count:
        line = text[starts[index] : ends[index]]
        if not line.strip():
            close(index)
            index += 1
            continue
        stripped = line.lstrip(" ")
        first = stripped[:1]
        if first in ("`", "~") and (fence := _FENCE_OPEN.fullmatch(line)) is not None:
            marker = fence.group(1)
            if not (marker[0] == "`" and "`" in fence.group(2)):
                close(index)
                closer = re.compile(rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*")
                last = count - 1  # an unclosed fence runs to the end of the document (CommonMark)
                for candidate in range(index + 1, count):
                    if closer.fullmatch(text[starts[candidate] : ends[candidate]]):
                        last = candidate
                        break
                blocks.append(_Block("code", starts[index], ends[last]))
                index = last + 1
                continue
        if first == "#" and (atx := _ATX.fullmatch(line)) is not None:
            close(index)
            blocks.append(_Block("heading", starts[index], ends[index], level=len(atx.group(1))))
            index += 1
            continue
        if (
            paragraph >= 0
            and first in ("=", "-")
            and _SETEXT.fullmatch(line)
            and not _NOT_SETEXT_CONTENT.match(text, starts[paragraph], ends[paragraph])
        ):
            blocks.append(
                _Block(
                    "heading",
                    starts[paragraph],
                    ends[index],
                    level=1 if first == "=" else 2,
                    setext=True,
                )
            )
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
            last = index
            while last + 1 < count:
                row = text[starts[last + 1] : ends[last + 1]]
                if not row.strip() or "|" not in row or _ATX.fullmatch(row) or _FENCE_OPEN.fullmatch(row):
                    break
                last += 1
            blocks.append(_Block("table", starts[index - 1], ends[last]))
            index = last + 1
            continue
        if first in ("-", "*", "_") and _THEMATIC.fullmatch(line):
            close(index)
            blocks.append(_Block("text", starts[index], ends[index]))
            index += 1
            continue
        if paragraph < 0:
            paragraph = index
        index += 1
    close(count)
    return blocks


# --------------------------------------------------------------------------------------------- inert text

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


class _OffsetMap:
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
        self.map = _OffsetMap()

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


def _clean(text: str, blocks: list[_Block]) -> tuple[str, _OffsetMap]:
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


def _prepare(text: str) -> tuple[str, _OffsetMap, list[_Block]]:
    text = _SURROGATE.sub("\ufffd", text)  # one character for one: offsets are unchanged
    starts, ends = _lines(text)
    blocks = _scan(text, starts, ends)
    clean, offsets = _clean(text, blocks)
    return clean, offsets, blocks


def inert_markdown(text: str) -> str:
    """Return `text` as the chunker sees it: images as `[image: alt]` (outside code), `\\n` line endings."""
    return _prepare(text)[0]


# --------------------------------------------------------------------------------------------- sections

_EMPHASIS = re.compile(r"\*\*|__")
# Invisible characters that can hide or reorder a title when it is shown (ZWJ/ZWNJ stay: scripts need them).
_INVISIBLE = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)")
_ANCHOR = re.compile(r"[ \t]*\{#[^{}]*\}$")


def _title_text(raw: str) -> str:
    title = _INVISIBLE.sub("", _LINK.sub(r"\1", raw))
    title = _EMPHASIS.sub("", title)
    title = _ANCHOR.sub("", title)
    title = _SPACES.sub(" ", title).strip()
    while len(title) >= 2 and title[0] == title[-1] and title[0] in "*_`":
        title = title[1:-1].strip()
    if len(title) > _MAX_TITLE_CHARS:
        title = title[: _MAX_TITLE_CHARS - 1].rstrip() + "…"
    return title


@dataclass(slots=True, eq=False)
class _Node:
    level: int
    title: str
    heading: _Block | None
    parent: _Node | None
    content: list[_Block] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)

    def path(self) -> list[_Node]:
        nodes: list[_Node] = []
        node: _Node | None = self
        while node is not None and node.heading is not None:
            nodes.append(node)
            node = node.parent
        nodes.reverse()
        return nodes


def _heading_title(clean: str, block: _Block) -> str:
    raw = clean[block.start : block.end]
    if block.setext:
        raw = " ".join(line.strip() for line in raw.split("\n")[:-1])
    else:
        raw = raw.strip().lstrip("#")
        raw = _ATX_CLOSING.sub("", raw)
    return _title_text(raw)


def _build_tree(clean: str, blocks: list[_Block]) -> _Node:
    root = _Node(0, "", None, None)
    stack = [root]
    for block in blocks:
        if block.kind != "heading":
            stack[-1].content.append(block)
            continue
        while stack[-1].level >= block.level:
            stack.pop()
        node = _Node(block.level, _heading_title(clean, block), block, stack[-1])
        stack[-1].children.append(node)
        stack.append(node)
    return root


def _walk(node: _Node) -> Iterator[_Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


# --------------------------------------------------------------------------------------------- packing

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[.!?…][\"'”’)\]*_])\s+|(?<=[。！？])")
_SPLITTERS = (re.compile(r"\n+"), _SENTENCE_END, re.compile(r"\s+"))
_WORD_START = re.compile(r"(?<=\s)\S")
_SENTENCE_START = re.compile(r"(?<=[.!?…])\s+(?=\S)|(?<=[.!?…][\"'”’)\]*_])\s+(?=\S)")


@dataclass(slots=True, eq=False)
class _Piece:
    start: int
    end: int
    tokens: int
    kind: BlockKind
    prefix: str = ""  # repeated context that must open its chunk (a table header, a code fence)
    suffix: str = ""  # a closing code fence that must end its chunk


@dataclass(slots=True, eq=False)
class _Pack:
    start: int
    end: int
    tokens: int
    node: _Node
    last_kind: BlockKind
    last_start: int
    prefix: str = ""
    suffix: str = ""
    has_entry: bool = False


class _Chunker:
    def __init__(self, clean: str, offsets: _OffsetMap, title: str, options: ChunkingOptions) -> None:
        self.clean = clean
        self.offsets = offsets
        self.title = _title_text(title)
        self.options = options
        self.max_tokens = options.max_tokens
        self.overlap = options.effective_overlap
        self.slack = max(8, options.max_tokens // 50)
        self.header_limit = options.max_tokens // 4
        self._header_tokens: dict[int, int] = {}
        self.title_counts: Counter[str] = Counter()

    # ---------------------------------------------------------------- tokens

    def tokens(self, start: int, end: int) -> int:
        return count_tokens(self.clean[start:end])

    def block_tokens(self, block: _Block) -> int:
        if block.tokens < 0:
            block.tokens = self.tokens(block.start, block.end)
        return block.tokens

    def header_lines(self, node: _Node, before: int | None) -> list[str]:
        lines = [
            "#" * n.level + " " + n.title
            for n in node.path()
            if n.title and (before is None or n.heading is None or n.heading.start < before)
        ]
        if not node.path() and self.title:
            lines = [self.title]
        return lines

    def budget(self, node: _Node) -> int:
        """Return the body tokens a chunk of `node` may hold, leaving room for its full heading context."""
        key = id(node)
        if key not in self._header_tokens:
            header = "\n".join(self.header_lines(node, None))
            self._header_tokens[key] = min(count_tokens(header), self.header_limit) + 2 if header else 0
        return self.max_tokens - self._header_tokens[key] - self.slack

    # ---------------------------------------------------------------- splitting

    def trim(self, start: int, end: int) -> tuple[int, int]:
        clean = self.clean
        while start < end and (clean[start].isspace() or clean[start] == "\ufeff"):
            start += 1
        while end > start and (clean[end - 1].isspace() or clean[end - 1] == "\ufeff"):
            end -= 1
        return start, end

    def split_span(
        self, start: int, end: int, limit: int, level: int = 0, known: int | None = None
    ) -> list[_Piece]:
        """Split a span into text pieces of at most `limit` tokens at the gentlest available boundary."""
        start, end = self.trim(start, end)
        if start >= end:
            return []
        total = known if known is not None else self.tokens(start, end)
        if total <= limit:
            return [_Piece(start, end, total, "text")]
        if level >= len(_SPLITTERS):
            return self.cut_tokens(start, end, limit)
        segments: list[tuple[int, int]] = []
        position = start
        for match in _SPLITTERS[level].finditer(self.clean, start, end):
            if match.start() > position:
                segments.append((position, match.start()))
            position = max(position, match.end())
        if position < end:
            segments.append((position, end))
        if len(segments) <= 1:
            return self.split_span(start, end, limit, level + 1, total)
        return self.group(segments, limit, level)

    def group(self, segments: list[tuple[int, int]], limit: int, level: int) -> list[_Piece]:
        pieces: list[_Piece] = []
        group_start = -1
        group_end = -1
        group_tokens = 0

        def flush() -> None:
            nonlocal group_start
            if group_start < 0:
                return
            exact = self.tokens(group_start, group_end)
            if exact <= limit:
                pieces.append(_Piece(group_start, group_end, exact, "text"))
            else:  # joining re-tokenised the seams: split this group more finely
                pieces.extend(self.split_span(group_start, group_end, limit, level + 1, exact))
            group_start = -1

        for seg_start, seg_end in segments:
            seg_tokens = self.tokens(seg_start, seg_end)
            if seg_tokens > limit:
                flush()
                pieces.extend(self.split_span(seg_start, seg_end, limit, level + 1, seg_tokens))
                continue
            if group_start >= 0 and group_tokens + seg_tokens + 1 > limit:
                flush()
            if group_start < 0:
                group_start, group_tokens = seg_start, 0
            group_end = seg_end
            group_tokens += seg_tokens + 1
        flush()
        return pieces

    def cut_tokens(self, start: int, end: int, limit: int) -> list[_Piece]:
        """Cut a run with no usable boundary between tokens (mid-word, never mid-character)."""
        offsets = token_end_offsets(self.clean[start:end])
        pieces: list[_Piece] = []
        first = 0
        step = max(1, limit - 2)  # a cut re-tokenises its edges; leave room for that
        while first < len(offsets):
            last = min(first + step, len(offsets))
            while True:
                piece_end = start + offsets[last - 1]
                piece_start = start + (offsets[first - 1] if first else 0)
                tokens = self.tokens(piece_start, piece_end)
                if tokens <= limit or last - first <= 1:
                    break
                last -= max(1, (tokens - limit))
                last = max(last, first + 1)
            if piece_end > piece_start:
                pieces.append(_Piece(piece_start, piece_end, tokens, "text"))
            first = last
        return pieces

    def table_pieces(self, block: _Block, limit: int) -> list[_Piece]:
        rows = self.line_spans(block.start, block.end)
        if len(rows) < 3:
            return self.split_span(block.start, block.end, limit)
        header = self.clean[rows[0][0] : rows[1][1]]
        header_tokens = count_tokens(header)
        if header_tokens * 2 > limit:
            return self.split_span(block.start, block.end, limit)
        pieces: list[_Piece] = []
        current: _Piece | None = _Piece(rows[0][0], rows[1][1], header_tokens, "table")
        for row_start, row_end in rows[2:]:
            row_tokens = self.tokens(row_start, row_end)
            if row_tokens + header_tokens + 1 > limit:
                if current is not None:
                    pieces.append(current)
                    current = None
                pieces.extend(self.split_span(row_start, row_end, limit))
                continue
            if current is not None and current.tokens + row_tokens + 1 > limit:
                pieces.append(current)
                current = None
            if current is None:
                current = _Piece(row_start, row_end, header_tokens + 1, "table", prefix=header)
            current.end = row_end
            current.tokens += row_tokens + 1
        if current is not None:
            pieces.append(current)
        return pieces

    def code_pieces(self, block: _Block, limit: int) -> list[_Piece]:
        lines = self.line_spans(block.start, block.end)
        opening = self.clean[lines[0][0] : lines[0][1]]
        fence = opening.strip()
        marker = fence[0] * (len(fence) - len(fence.lstrip(fence[0])))
        closed = len(lines) > 1 and self.clean[lines[-1][0] : lines[-1][1]].strip().startswith(marker)
        fence_tokens = count_tokens(opening) + count_tokens(marker) + 2
        if fence_tokens * 2 > limit:
            return self.split_span(block.start, block.end, limit)
        pieces: list[_Piece] = []
        current: _Piece | None = None
        for line_start, line_end in lines:
            line_tokens = self.tokens(line_start, line_end)
            if line_tokens + fence_tokens + 1 > limit:
                if current is not None:
                    current.suffix = marker
                    pieces.append(current)
                    current = None
                pieces.extend(self.split_span(line_start, line_end, limit))
                continue
            if current is not None and current.tokens + line_tokens + 1 > limit:
                current.suffix = marker
                pieces.append(current)
                current = None
            if current is None:
                first = not pieces
                current = _Piece(
                    line_start,
                    line_end,
                    fence_tokens,
                    "code",
                    prefix="" if first else opening,
                )
            current.end = line_end
            current.tokens += line_tokens + 1
        if current is not None:
            if not closed:
                current.suffix = marker
            pieces.append(current)
        return pieces

    def line_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        position = start
        while position <= end:
            newline = self.clean.find("\n", position, end)
            line_end = end if newline < 0 else newline
            spans.append((position, line_end))
            if newline < 0:
                break
            position = newline + 1
        return spans

    def block_pieces(self, block: _Block, limit: int) -> list[_Piece]:
        tokens = self.block_tokens(block)
        if tokens <= limit:
            return [_Piece(block.start, block.end, tokens, block.kind)]
        if block.kind == "table":
            return self.table_pieces(block, limit)
        if block.kind == "code":
            return self.code_pieces(block, limit)
        return self.split_span(block.start, block.end, limit, known=tokens)

    # ---------------------------------------------------------------- sections

    def content_packs(self, node: _Node, blocks: list[_Block]) -> list[_Pack]:
        """Group one section's own blocks into chunks, splitting it with overlap when it is too big."""
        budget = self.budget(node)
        total = sum(self.block_tokens(block) + 1 for block in blocks)
        if total <= budget:
            last = blocks[-1]
            return [_Pack(blocks[0].start, last.end, total, node, last.kind, last.start)]
        limit = max(16, budget - self.overlap)
        pieces = [piece for block in blocks for piece in self.block_pieces(block, limit)]
        total = sum(piece.tokens + 1 for piece in pieces)
        target = total / max(1, math.ceil(total / limit))
        groups: list[list[_Piece]] = []
        current: list[_Piece] = []
        current_tokens = 0
        for piece in pieces:
            if current and (
                piece.prefix
                or current[-1].suffix
                or current_tokens + piece.tokens + 1 > limit
                or current_tokens >= target
            ):
                groups.append(current)
                current, current_tokens = [], 0
            current.append(piece)
            current_tokens += piece.tokens + 1
        if current:
            groups.append(current)
        # Closing groups at the target can leave a stub at the end; give it to its predecessor.
        if (
            len(groups) >= 2
            and not groups[-2][-1].suffix
            and not groups[-1][0].prefix
            and sum(piece.tokens + 1 for piece in groups[-2] + groups[-1]) <= limit
        ):
            groups[-2:] = [groups[-2] + groups[-1]]
        packs: list[_Pack] = []
        for group in groups:
            pack = _Pack(
                group[0].start,
                group[-1].end,
                sum(piece.tokens + 1 for piece in group),
                node,
                group[-1].kind,
                group[-1].start,
                prefix=group[0].prefix,
                suffix=group[-1].suffix,
            )
            if packs and not pack.prefix and packs[-1].last_kind in ("text", "heading"):
                tail = self.overlap_start(packs[-1].last_start, packs[-1].end)
                if tail < packs[-1].end:
                    pack.tokens += self.tokens(tail, packs[-1].end) + 1
                    pack.start = tail
            packs.append(pack)
        return packs

    def overlap_start(self, start: int, end: int) -> int:
        """Return where the overlap copied from the end of [start, end) begins (`end` when there is none)."""
        if self.overlap <= 0:
            return end
        window_start = max(start, end - self.overlap * 12)
        candidates = [match.start() for match in _WORD_START.finditer(self.clean, window_start, end)]
        if window_start == start:
            candidates.insert(0, start)
        low, high = 0, len(candidates)
        while low < high:  # the earliest word start whose tail fits in the overlap
            middle = (low + high) // 2
            if self.tokens(candidates[middle], end) <= self.overlap:
                high = middle
            else:
                low = middle + 1
        if low >= len(candidates):
            return end
        chosen = candidates[low]
        if chosen == start or self.clean[start:chosen].rstrip()[-1:] in (".", "!", "?", "…"):
            return chosen
        sentence = _SENTENCE_START.search(self.clean, chosen, end)
        if sentence is not None and self.clean[sentence.end() : end].strip():
            return sentence.end()  # a whole sentence reads better than half of one
        return chosen

    def is_glossary(self, node: _Node) -> bool:
        entries = sum(1 for child in node.children if self.is_entry(child))
        return entries >= self.options.glossary_min_entries

    def is_entry(self, node: _Node) -> bool:
        return self.title_counts[node.title.casefold()] < 2

    def section_packs(self, node: _Node) -> list[_Pack]:
        """Chunk a section and its subsections; packs come out in document order."""
        units: list[tuple[list[_Pack], bool]] = []  # (packs, is an entry)
        if node.content:
            blocks = ([node.heading] if node.heading is not None else []) + node.content
            units.append((self.content_packs(node, blocks), False))
        for child in node.children:
            packs = self.section_packs(child)
            if packs:
                units.append((packs, self.is_entry(child)))
        glossary = self.is_glossary(node)
        budget = self.budget(node)
        out: list[_Pack] = []
        current: _Pack | None = None
        for packs, entry in units:
            if len(packs) != 1:
                if current is not None:
                    out.append(current)
                    current = None
                out.extend(packs)
                continue
            pack = packs[0]
            pack.has_entry = pack.has_entry or entry
            if current is not None and not glossary and self.may_join(current, pack, budget):
                current = _Pack(
                    current.start,
                    pack.end,
                    current.tokens + pack.tokens + 1,
                    node,
                    pack.last_kind,
                    pack.last_start,
                    prefix=current.prefix,
                    suffix=pack.suffix,
                    has_entry=current.has_entry or pack.has_entry,
                )
                continue
            if current is not None:
                out.append(current)
            current = pack
        if current is not None:
            out.append(current)
        return out

    def may_join(self, current: _Pack, following: _Pack, budget: int) -> bool:
        if current.suffix or following.prefix:
            return False
        if current.tokens + following.tokens + 1 > budget:
            return False
        if current.has_entry or following.has_entry:
            return current.tokens < self.options.min_tokens
        return True

    # ---------------------------------------------------------------- output

    def run(self, root: _Node) -> list[Chunk]:
        for node in _walk(root):
            if node.heading is not None:
                self.title_counts[node.title.casefold()] += 1
        packs = self.section_packs(root)
        packs = self.cover_gaps(packs, root)
        chunks: list[Chunk] = []
        for pack in packs:
            for text, body, start, end, tokens in self.render(pack):
                chunks.append(
                    Chunk(
                        index=len(chunks),
                        heading_path=[n.title for n in pack.node.path() if n.title],
                        text=text,
                        display_text=body if body != text else None,
                        token_count=tokens,
                        content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        char_start=self.offsets.original(start, end=False),
                        char_end=self.offsets.original(end, end=True),
                    )
                )
        return chunks

    def cover_gaps(self, packs: list[_Pack], root: _Node) -> list[_Pack]:
        """Give headings of empty sections (and any other stray text) to the neighbouring chunk."""
        if not packs:
            start, end = self.trim(0, len(self.clean))
            if start >= end:
                return []
            first = next((n for n in _walk(root) if n.heading is not None), root)
            return [_Pack(start, end, self.tokens(start, end), first, "text", start)]
        out: list[_Pack] = []
        covered = 0
        for pack in packs:
            gap_start, gap_end = self.trim(covered, pack.start)
            if gap_start < gap_end:
                if not pack.prefix:
                    pack.start = gap_start
                elif out and not out[-1].suffix:
                    out[-1].end = gap_end
                else:
                    out.append(_Pack(gap_start, gap_end, 0, pack.node, "text", gap_start))
            out.append(pack)
            covered = max(covered, pack.end)
        gap_start, gap_end = self.trim(covered, len(self.clean))
        if gap_start < gap_end:
            if not out[-1].suffix:
                out[-1].end = gap_end
            else:
                out.append(_Pack(gap_start, gap_end, 0, out[-1].node, "text", gap_start))
        return out

    def render(self, pack: _Pack) -> list[tuple[str, str, int, int, int]]:
        """Return (text, body, start, end, tokens) for a pack, split further if it exceeds `max_tokens`."""
        header = "\n".join(self.header_lines(pack.node, pack.start))
        if header and count_tokens(header) > self.header_limit:
            header = truncate_to_tokens(header, self.header_limit).rstrip()
        spans = [(pack.start, pack.end)]
        for attempt in range(4):
            rendered = [self.compose(header, pack, start, end) for start, end in spans]
            if all(tokens <= self.max_tokens for *_, tokens in rendered):
                return rendered
            fixed = sum(count_tokens(part) + 2 for part in (header, pack.prefix, pack.suffix) if part)
            limit = max(8, self.max_tokens - fixed - self.slack * (attempt + 1))
            spans = [
                (piece.start, piece.end)
                for start, end in spans
                for piece in self.split_span(start, end, limit)
            ]
        return [self.compose(header, pack, start, end) for start, end in spans]

    def compose(self, header: str, pack: _Pack, start: int, end: int) -> tuple[str, str, int, int, int]:
        body = self.clean[start:end]
        if pack.prefix:
            body = pack.prefix + "\n" + body
        if pack.suffix:
            body = body + "\n" + pack.suffix
        text = header + "\n\n" + body if header else body
        return text, body, start, end, count_tokens(text)


def chunk_markdown(text: str, title: str, options: ChunkingOptions | None = None) -> list[Chunk]:
    """Split a decoded (and NFC-normalised) markdown document into chunks; see the module docstring."""
    options = options or ChunkingOptions()
    clean, offsets, blocks = _prepare(text)
    root = _build_tree(clean, blocks)
    return _Chunker(clean, offsets, title, options).run(root)
