"""Pieces: a span too big for one chunk split at the gentlest boundary, a table by rows, code by lines.

Paragraph boundaries first, then lines, sentences, words, and as a last resort token boundaries (mid-word, never
mid-character). Tables and fenced code blocks stay whole when they fit; a larger table is split by rows with its
header row repeated, a larger code block by lines with its fence repeated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.chunking.blocks import Block, BlockKind
from memory.tokens import count_tokens, token_end_offsets

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[.!?…][\"'”’)\]*_])\s+|(?<=[。！？])")
_SPLITTERS = (re.compile(r"\n+"), _SENTENCE_END, re.compile(r"\s+"))


@dataclass(slots=True, eq=False)
class Piece:
    """A span that goes into a chunk whole, with the context it must repeat."""

    start: int
    end: int
    tokens: int
    kind: BlockKind
    prefix: str = ""  # repeated context that must open its chunk (a table header, a code fence)
    suffix: str = ""  # a closing code fence that must end its chunk


class Splitter:
    """Measures and splits spans of the cleaned document."""

    def __init__(self, clean: str) -> None:
        self.clean = clean

    def tokens(self, start: int, end: int) -> int:
        """Return the tokens of a span of the cleaned document."""
        return count_tokens(self.clean[start:end])

    def block_tokens(self, block: Block) -> int:
        """Return a block's tokens (counted once)."""
        if block.tokens < 0:
            block.tokens = self.tokens(block.start, block.end)
        return block.tokens

    def trim(self, start: int, end: int) -> tuple[int, int]:
        """Return a span without the blank space (and byte-order marks) at its ends."""
        clean = self.clean
        while start < end and (clean[start].isspace() or clean[start] == "\ufeff"):
            start += 1
        while end > start and (clean[end - 1].isspace() or clean[end - 1] == "\ufeff"):
            end -= 1
        return start, end

    def split_span(
        self, start: int, end: int, limit: int, level: int = 0, known: int | None = None
    ) -> list[Piece]:
        """Split a span into text pieces of at most `limit` tokens at the gentlest available boundary."""
        start, end = self.trim(start, end)
        if start >= end:
            return []
        total = known if known is not None else self.tokens(start, end)
        if total <= limit:
            return [Piece(start, end, total, "text")]
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

    def group(self, segments: list[tuple[int, int]], limit: int, level: int) -> list[Piece]:
        """Join consecutive segments into pieces of at most `limit` tokens."""
        pieces: list[Piece] = []
        group_start = -1
        group_end = -1
        group_tokens = 0

        def flush() -> None:
            nonlocal group_start
            if group_start < 0:
                return
            exact = self.tokens(group_start, group_end)
            if exact <= limit:
                pieces.append(Piece(group_start, group_end, exact, "text"))
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

    def cut_tokens(self, start: int, end: int, limit: int) -> list[Piece]:
        """Cut a run with no usable boundary between tokens (mid-word, never mid-character)."""
        offsets = token_end_offsets(self.clean[start:end])
        pieces: list[Piece] = []
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
                pieces.append(Piece(piece_start, piece_end, tokens, "text"))
            first = last
        return pieces

    def table_pieces(self, block: Block, limit: int) -> list[Piece]:
        """Split a table by rows, each piece repeating the header row."""
        rows = self.line_spans(block.start, block.end)
        if len(rows) < 3:
            return self.split_span(block.start, block.end, limit)
        header = self.clean[rows[0][0] : rows[1][1]]
        header_tokens = count_tokens(header)
        if header_tokens * 2 > limit:
            return self.split_span(block.start, block.end, limit)
        pieces: list[Piece] = []
        current: Piece | None = Piece(rows[0][0], rows[1][1], header_tokens, "table")
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
                current = Piece(row_start, row_end, header_tokens + 1, "table", prefix=header)
            current.end = row_end
            current.tokens += row_tokens + 1
        if current is not None:
            pieces.append(current)
        return pieces

    def code_pieces(self, block: Block, limit: int) -> list[Piece]:
        """Split a fenced code block by lines, each piece opened and closed by the fence."""
        lines = self.line_spans(block.start, block.end)
        opening = self.clean[lines[0][0] : lines[0][1]]
        fence = opening.strip()
        marker = fence[0] * (len(fence) - len(fence.lstrip(fence[0])))
        closed = len(lines) > 1 and self.clean[lines[-1][0] : lines[-1][1]].strip().startswith(marker)
        fence_tokens = count_tokens(opening) + count_tokens(marker) + 2
        if fence_tokens * 2 > limit:
            return self.split_span(block.start, block.end, limit)
        pieces: list[Piece] = []
        current: Piece | None = None
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
                current = Piece(
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
        """Return the (start, end) of every line of a span."""
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

    def block_pieces(self, block: Block, limit: int) -> list[Piece]:
        """Return a block as one piece, or split when it is over `limit` tokens."""
        tokens = self.block_tokens(block)
        if tokens <= limit:
            return [Piece(block.start, block.end, tokens, block.kind)]
        if block.kind == "table":
            return self.table_pieces(block, limit)
        if block.kind == "code":
            return self.code_pieces(block, limit)
        return self.split_span(block.start, block.end, limit, known=tokens)
