"""What of a chunk is embedded: two short views per chunk, a prose view and a title view.

all-MiniLM-L6-v2 was trained on short texts and reads at most 256 WordPiece tokens, and embedding cost grows
with length. Measured on the SRD dev questions (`bench/lore_quality.py`), the first 256 tokens of a chunk as
written (a monster's stat block comes before what makes it special) made a weaker vector than a short view that
puts the descriptive prose first, and a vector of the title alone adds what the model knows about a name:

- prose view: the section title and its parent, then the chunk's prose paragraphs in document order, then its
  list/table/number-heavy paragraphs, markdown marks removed, cut to `PROSE_TOKENS` o200k tokens (about 62
  WordPiece tokens);
- title view: the section title and its parent ("Sahuagin (Bestiary)").

Retrieval takes, per chunk, the better of its two similarities. Both views are derived from the chunk text, so
`reindex` rebuilds them; the chunk text itself (what is shown and searched by words) is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.tokens import truncate_to_tokens

__all__ = ["PROSE_TOKENS", "VIEWS_VERSION", "prose_view", "title_view"]

#: Bump when the views change: vectors made from other views are stale.
VIEWS_VERSION = "prose64+title-1"
PROSE_TOKENS = 64

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]")
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
_MARKS = re.compile(r"[*_`>#|]+")
_SPACES = re.compile(r"[ \t]+")


def _is_data(paragraph: str) -> bool:
    """Return whether a paragraph is mostly numbers, a table or a list of short items (a stat block)."""
    text = paragraph.strip()
    if text.startswith("|"):
        return True
    letters = sum(ch.isalpha() for ch in text)
    if letters == 0:
        return True
    digits = sum(ch.isdigit() for ch in text)
    if digits / letters > 0.12:
        return True
    lines = [line for line in text.splitlines() if line.strip()]
    bullets = sum(1 for line in lines if line.lstrip().startswith(("- ", "* ", "+ ")))
    return bullets >= 2 and bullets >= 0.8 * len(lines) and sum(len(line) for line in lines) / len(lines) < 90


def title_view(heading_path: Sequence[str], fallback: str = "") -> str:
    """Return the title view of a chunk: its section title and, in brackets, the parent section's."""
    if not heading_path:
        return fallback
    title = heading_path[-1]
    return f"{title} ({heading_path[-2]})" if len(heading_path) > 1 else title


def prose_view(heading_path: Sequence[str], text: str, *, tokens: int = PROSE_TOKENS) -> str:
    """Return the prose view of a chunk: titles, prose paragraphs first, data paragraphs last, cut short."""
    paragraphs = [p for p in _PARAGRAPHS.split(text) if p.strip()]
    body = [p for p in paragraphs if not (_HEADING.match(p.strip()) and "\n" not in p.strip())]
    prose = [p for p in body if not _is_data(p)]
    data = [p for p in body if _is_data(p)]
    titles = " › ".join(reversed(list(heading_path)[-2:]))
    parts = [titles] + [_SPACES.sub(" ", _MARKS.sub("", p)).strip() for p in prose + data]
    return truncate_to_tokens("\n".join(part for part in parts if part), tokens)
