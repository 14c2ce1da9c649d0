"""Split an imported markdown document into retrievable chunks along its headings.

Pure functions, no I/O. The caller decodes (UTF-8) and NFC-normalises the document; this package only reads it.

How a document becomes chunks:

1. Blocks (`blocks`). Lines are scanned once (CommonMark-like): fenced code blocks (whose `#` lines are code, not
   headings), ATX (`#`..`######`) and setext (`===`/`---` under a paragraph) headings, GFM pipe tables, YAML
   front matter, and paragraphs (everything else, lists and HTML included, separated by blank lines).
2. Inert text (`inert`). Outside code blocks, images `![alt](src)`, reference images `![alt][ref]` and HTML `<img>` tags
   become `[image: alt]` (their URLs are dropped). Links `[text](url)` are left exactly as written: text and
   URL stay as plain text, nothing is fetched. HTML, `<script>` included, is kept as literal text: nothing
   downstream renders HTML, and keeping it lets an operator see what a file tried to do. Line endings become
   `\\n`. `char_start`/`char_end` always refer to the caller's original string.
3. Sections (`tree`). Headings form a tree; a heading closes every open section of the same or a deeper level, so
   skipped levels (`####` straight after `#`) and jumps back up are handled. A section's heading path is the
   titles from the top (`# Title`, `## Section`, ...), with emphasis markers and link URLs removed.
4. Chunks (`chunker`, splitting in `pieces`). Every chunk belongs to exactly one section and carries that section's heading path. Small sections
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

from memory.chunking.chunker import chunk_markdown
from memory.chunking.inert import inert_markdown
from memory.chunking.models import CHUNKING_VERSION, Chunk, ChunkingOptions

__all__ = [
    "CHUNKING_VERSION",
    "Chunk",
    "ChunkingOptions",
    "chunk_markdown",
    "inert_markdown",
]
