"""Chunks: sections packed into chunks with their heading context (see `memory.chunking`).

Every chunk belongs to exactly one section and carries that section's heading path. Small sections become one
chunk each. Sibling sections are packed together (the chunk then carries the parent's path) only when that loses
nothing: sections whose titles repeat in the document are labels and are packed with their parent's text up to
`max_tokens`; sections with a unique title are entries, packed with a following sibling only while the chunk is
under `min_tokens`, and never under a glossary-like parent. A section too big for one chunk is split (`pieces`)
into balanced pieces; each piece after the first starts with a short overlap repeating the end of the previous
piece's last paragraph.

A GM-only section (`memory.chunking.secret`) is never packed with a public one, and the heading of an empty one is
never given to a public neighbour: every chunk is wholly secret or wholly public (`Chunk.secret`). The public
sections are chunked as if the secret ones were not there (titles and glossary entries are counted among public
sections only), so a player's passages are the same with or without them.
"""

from __future__ import annotations

import hashlib
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.chunking.blocks import Block, BlockKind
from memory.chunking.inert import OffsetMap, prepare
from memory.chunking.models import Chunk, ChunkingOptions
from memory.chunking.pieces import Piece, Splitter
from memory.chunking.tree import Node, apply_choices, build_tree, title_text, walk
from memory.tokens import count_tokens, truncate_to_tokens

_WORD_START = re.compile(r"(?<=\s)\S")
_SENTENCE_START = re.compile(r"(?<=[.!?…])\s+(?=\S)|(?<=[.!?…][\"'”’)\]*_])\s+(?=\S)")


@dataclass(slots=True, eq=False)
class Pack:
    """What becomes one chunk (or more, if rendering finds it too long): a span of one section."""

    start: int
    end: int
    tokens: int
    node: Node
    last_kind: BlockKind
    last_start: int
    prefix: str = ""
    suffix: str = ""
    has_entry: bool = False
    secret: bool = False


class Chunker:
    """Packs a document's sections into chunks and renders them with their heading context."""

    def __init__(self, clean: str, offsets: OffsetMap, title: str, options: ChunkingOptions) -> None:
        self.clean = clean
        self.splitter = Splitter(clean)
        self.offsets = offsets
        self.title = title_text(title)
        self.options = options
        self.max_tokens = options.max_tokens
        self.overlap = options.effective_overlap
        self.slack = max(8, options.max_tokens // 50)
        self.header_limit = options.max_tokens // 4
        self._header_tokens: dict[int, int] = {}
        self.title_counts: Counter[str] = Counter()
        #: Titles of public sections alone: what decides a public section's packing.
        self.public_title_counts: Counter[str] = Counter()
        #: Every section by where its heading starts, in document order (`gap_node`).
        self.headings: list[tuple[int, Node]] = []

    def header_lines(self, node: Node, before: int | None) -> list[str]:
        """Return the heading lines of a section's path (those above `before`), or the title."""
        lines = [
            "#" * n.level + " " + n.title
            for n in node.path()
            if n.title and (before is None or n.heading is None or n.heading.start < before)
        ]
        if not node.path() and self.title:
            lines = [self.title]
        return lines

    def budget(self, node: Node) -> int:
        """Return the body tokens a chunk of `node` may hold, leaving room for its full heading context."""
        key = id(node)
        if key not in self._header_tokens:
            header = "\n".join(self.header_lines(node, None))
            self._header_tokens[key] = min(count_tokens(header), self.header_limit) + 2 if header else 0
        return self.max_tokens - self._header_tokens[key] - self.slack

    def content_packs(self, node: Node, blocks: list[Block]) -> list[Pack]:
        """Group one section's own blocks into chunks, splitting it with overlap when it is too big."""
        budget = self.budget(node)
        total = sum(self.splitter.block_tokens(block) + 1 for block in blocks)
        if total <= budget:
            last = blocks[-1]
            return [Pack(blocks[0].start, last.end, total, node, last.kind, last.start, secret=node.secret)]
        limit = max(16, budget - self.overlap)
        pieces = [piece for block in blocks for piece in self.splitter.block_pieces(block, limit)]
        total = sum(piece.tokens + 1 for piece in pieces)
        target = total / max(1, math.ceil(total / limit))
        groups: list[list[Piece]] = []
        current: list[Piece] = []
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
        packs: list[Pack] = []
        for group in groups:
            pack = Pack(
                group[0].start,
                group[-1].end,
                sum(piece.tokens + 1 for piece in group),
                node,
                group[-1].kind,
                group[-1].start,
                prefix=group[0].prefix,
                suffix=group[-1].suffix,
                secret=node.secret,
            )
            if packs and not pack.prefix and packs[-1].last_kind in ("text", "heading"):
                tail = self.overlap_start(packs[-1].last_start, packs[-1].end)
                if tail < packs[-1].end:
                    pack.tokens += self.splitter.tokens(tail, packs[-1].end) + 1
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
            if self.splitter.tokens(candidates[middle], end) <= self.overlap:
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

    def is_glossary(self, node: Node) -> bool:
        """Return whether a section has so many entries that they are never merged."""
        entries = sum(1 for child in node.children if child.secret <= node.secret and self.is_entry(child))
        return entries >= self.options.glossary_min_entries

    def is_entry(self, node: Node) -> bool:
        """Return whether a section's title is unique in the document (an entry, not a label)."""
        counts = self.title_counts if node.secret else self.public_title_counts
        return counts[node.title.casefold()] < 2

    def section_packs(self, node: Node) -> list[Pack]:
        """Chunk a section and its subsections; packs come out in document order."""
        units: list[tuple[list[Pack], bool]] = []  # (packs, is an entry)
        if node.content:
            blocks = ([node.heading] if node.heading is not None else []) + node.content
            units.append((self.content_packs(node, blocks), False))
        for child in node.children:
            packs = self.section_packs(child)
            if packs:
                units.append((packs, self.is_entry(child)))
        glossary = self.is_glossary(node)
        budget = self.budget(node)
        out: list[Pack] = []
        current: Pack | None = None
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
                current = Pack(
                    current.start,
                    pack.end,
                    current.tokens + pack.tokens + 1,
                    node,
                    pack.last_kind,
                    pack.last_start,
                    prefix=current.prefix,
                    suffix=pack.suffix,
                    has_entry=current.has_entry or pack.has_entry,
                    secret=current.secret,
                )
                continue
            if current is not None:
                out.append(current)
            current = pack
        if current is not None:
            out.append(current)
        return out

    def may_join(self, current: Pack, following: Pack, budget: int) -> bool:
        """Return whether a pack may be merged into the one before it."""
        if current.suffix or following.prefix or current.secret != following.secret:
            return False
        if current.tokens + following.tokens + 1 > budget:
            return False
        if current.has_entry or following.has_entry:
            return current.tokens < self.options.min_tokens
        return True

    def run(self, root: Node) -> list[Chunk]:
        """Return the chunks of the document's section tree."""
        for node in walk(root):
            if node.heading is not None:
                self.title_counts[node.title.casefold()] += 1
                if not node.secret:
                    self.public_title_counts[node.title.casefold()] += 1
                self.headings.append((node.heading.start, node))
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
                        secret=pack.secret,
                    )
                )
        return chunks

    def gap_node(self, start: int, end: int, root: Node) -> Node:
        """Return the section a gap belongs to: its first GM-only heading if it holds one, else where it starts."""
        starts = [at for at, _ in self.headings]
        first, stop = bisect_left(starts, start), bisect_left(starts, end)
        secret = next((n for _, n in self.headings[first:stop] if n.secret), None)
        if secret is not None:
            return secret
        before = bisect_right(starts, start)
        return self.headings[before - 1][1] if before else root

    def cover_gaps(self, packs: list[Pack], root: Node) -> list[Pack]:
        """Give headings of empty sections (and any other stray text) to the neighbouring chunk.

        A gap that holds a GM-only heading goes only to a GM-only neighbour; otherwise it becomes a chunk of its own.
        """
        if not packs:
            start, end = self.splitter.trim(0, len(self.clean))
            if start >= end:
                return []
            first = next((n for n in walk(root) if n.heading is not None), root)
            node = self.gap_node(start, end, first)
            return [
                Pack(start, end, self.splitter.tokens(start, end), node, "text", start, secret=node.secret)
            ]
        out: list[Pack] = []
        covered = 0
        for pack in packs:
            gap_start, gap_end = self.splitter.trim(covered, pack.start)
            if gap_start < gap_end:
                node = self.gap_node(gap_start, gap_end, root)
                if not pack.prefix and node.secret <= pack.secret:
                    pack.start = gap_start
                elif out and not out[-1].suffix and node.secret <= out[-1].secret:
                    out[-1].end = gap_end
                else:
                    out.append(Pack(gap_start, gap_end, 0, node, "text", gap_start, secret=node.secret))
            out.append(pack)
            covered = max(covered, pack.end)
        gap_start, gap_end = self.splitter.trim(covered, len(self.clean))
        if gap_start < gap_end:
            node = self.gap_node(gap_start, gap_end, root)
            if not out[-1].suffix and node.secret <= out[-1].secret:
                out[-1].end = gap_end
            else:
                out.append(Pack(gap_start, gap_end, 0, node, "text", gap_start, secret=node.secret))
        return out

    def render(self, pack: Pack) -> list[tuple[str, str, int, int, int]]:
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
                for piece in self.splitter.split_span(start, end, limit)
            ]
        return [self.compose(header, pack, start, end) for start, end in spans]

    def compose(self, header: str, pack: Pack, start: int, end: int) -> tuple[str, str, int, int, int]:
        """Return (text, body, start, end, tokens) of one span of a pack."""
        body = self.clean[start:end]
        if pack.prefix:
            body = pack.prefix + "\n" + body
        if pack.suffix:
            body = body + "\n" + pack.suffix
        text = header + "\n\n" + body if header else body
        return text, body, start, end, count_tokens(text)


def chunk_markdown(
    text: str,
    title: str,
    options: ChunkingOptions | None = None,
    *,
    choices: Sequence[Mapping[str, Any]] = (),
) -> list[Chunk]:
    """Split a decoded (and NFC-normalised) markdown document into chunks; see the module docstring.

    `choices`: the GM's sections hidden or shown after import (`memory.knowledge.sections`), applied over the
    file's own marks, so each such section is chunked on its own as a marked one is."""
    options = options or ChunkingOptions()
    clean, offsets, blocks = prepare(text)
    root = build_tree(clean, blocks)
    apply_choices(root, choices)
    return Chunker(clean, offsets, title, options).run(root)
