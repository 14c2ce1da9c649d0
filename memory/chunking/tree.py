"""Sections: headings form a tree; a heading closes every open section of the same or a deeper level.

Skipped levels (`####` straight after `#`) and jumps back up are handled. A section's heading path is the titles
from the top (`# Title`, `## Section`, ...), with emphasis markers, link URLs, anchors and invisible characters
removed.
A heading marked GM-only (`memory.chunking.secret`) loses its marker from the title and makes its section and every
section under it secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory.chunking.blocks import ATX_CLOSING, Block
from memory.chunking.secret import marked_comment, secret_title

_MAX_TITLE_CHARS = 200
_SPACES = re.compile(r"\s+")
_EMPHASIS = re.compile(r"\*\*|__")
# Invisible characters that can hide or reorder a title when it is shown (ZWJ/ZWNJ stay: scripts need them).
_INVISIBLE = re.compile("[\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_LINK = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)")
_ANCHOR = re.compile(r"[ \t]*\{#[^{}]*\}$")


def title_text(raw: str) -> str:
    """Return a heading's title as shown: no link URLs, emphasis, anchors or invisible characters."""
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
class Node:
    """A section: its heading (None for the document itself), its own blocks and its subsections."""

    level: int
    title: str
    heading: Block | None
    parent: Node | None
    content: list[Block] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    #: For the GM alone: its heading is marked, or a section above it is (then the GM's choices, `apply_choices`).
    secret: bool = False
    #: Its own heading (or the comment under it) is marked GM-only.
    marked: bool = False

    def path(self) -> list[Node]:
        """Return the sections from the top down to this one (the document itself left out)."""
        nodes: list[Node] = []
        node: Node | None = self
        while node is not None and node.heading is not None:
            nodes.append(node)
            node = node.parent
        nodes.reverse()
        return nodes


def heading_title(clean: str, block: Block) -> str:
    """Return the title of a heading block of the cleaned document."""
    raw = clean[block.start : block.end]
    if block.setext:
        raw = " ".join(line.strip() for line in raw.split("\n")[:-1])
    else:
        raw = raw.strip().lstrip("#")
        raw = ATX_CLOSING.sub("", raw)
    return title_text(raw)


def build_tree(clean: str, blocks: list[Block]) -> Node:
    """Return the document's section tree (the root is the document itself)."""
    root = Node(0, "", None, None)
    stack = [root]
    for block in blocks:
        if block.kind != "heading":
            top = stack[-1]
            if not top.content and top.heading is not None and marked_comment(clean[block.start : block.end]):
                top.secret = top.marked = True  # `<!-- gm-only -->` as the first thing under a heading
            top.content.append(block)
            continue
        while stack[-1].level >= block.level:
            stack.pop()
        title, marked = secret_title(heading_title(clean, block))
        node = Node(block.level, title, block, stack[-1], secret=marked or stack[-1].secret, marked=marked)
        stack[-1].children.append(node)
        stack.append(node)
    return root


def walk(node: Node) -> Iterator[Node]:
    """Yield a section and every section below it, in document order."""
    yield node
    for child in node.children:
        yield from walk(child)


def apply_choices(root: Node, choices: Sequence[Mapping[str, Any]]) -> None:
    """Apply the GM's choices of sections hidden or shown over the file's marks (the latest covering one wins).

    A choice names a section by its heading path and covers it and everything under it; a section no choice covers
    is secret when its own heading is marked or its parent is secret.
    """
    if not choices:
        return
    wanted = [(tuple(str(t) for t in c.get("path") or []), bool(c.get("hidden"))) for c in choices]
    for node in walk(root):
        if node.heading is None:
            continue
        path = tuple(n.title for n in node.path())
        chosen = [hidden for prefix, hidden in wanted if prefix and path[: len(prefix)] == prefix]
        parent = node.parent.secret if node.parent is not None else False
        node.secret = chosen[-1] if chosen else (node.marked or parent)
