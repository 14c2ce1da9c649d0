"""What of a chunk is embedded: three short views per chunk, a prose view, a title view and a names view.

all-MiniLM-L6-v2 was trained on short texts and reads at most 256 WordPiece tokens, and embedding cost grows
with length. Measured on the SRD dev questions (`bench/lore_quality.py`), the first 256 tokens of a chunk as
written (a monster's stat block comes before what makes it special) made a weaker vector than a short view that
puts the descriptive prose first, and a vector of the title alone adds what the model knows about a name:

- prose view: the section title and its parent, then the chunk's prose paragraphs in document order, then its
  list/table/number-heavy paragraphs, markdown marks removed, cut to `PROSE_TOKENS` o200k tokens (about 62
  WordPiece tokens);
- title view: the section title and its parent ("Sahuagin (Bestiary)");
- names view: the title, the entry's kind line and the names the section gives its parts: inner headings,
  named entries (`***Fear Aura.*** Any creature...`, a bold label whose value is a sentence, not a short field
  value) and the first cells of table rows ("Pit Fiend (Bestiary): Large fiend (devil), lawful evil. Fear Aura,
  Magic Resistance, Bite..."). A question about what something does ("which devil radiates an aura of fear")
  meets the names of what it does, which the prose view, cut short, often leaves out.

Retrieval takes, per chunk, the best of its similarities. Both views are derived from the chunk text, so
`reindex` rebuilds them; the chunk text itself (what is shown and searched by words) is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.tokens import truncate_to_tokens

__all__ = [
    "BASE_VIEWS_VERSION",
    "NAMES_TOKENS",
    "PROSE_TOKENS",
    "VIEWS",
    "VIEWS_VERSION",
    "names_view",
    "prose_view",
    "title_view",
]

#: The prose and title views: vectors made with them stay valid while the names view is added beside them.
BASE_VIEWS_VERSION = "prose64+title-1"
#: Bump when the views change: vectors made from other views are stale (except `BASE_VIEWS_VERSION`'s, whose
#: two views are still today's: a campaign holding them is searched by them while its names views are built).
VIEWS_VERSION = BASE_VIEWS_VERSION + "+names48-1"
#: The views of a chunk, by their letter in the vector id (`memory.vector_index.vector_id`).
VIEWS = ("p", "t", "n")
PROSE_TOKENS = 64
NAMES_TOKENS = 48

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]")
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
_MARKS = re.compile(r"[*_`>#|]+")
_SPACES = re.compile(r"[ \t]+")
_INNER_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$")
#: A named entry: `***Fear Aura.*** Any creature…`, `- **Keen Smell.** The…`, `**Aura of Dread:** Each…`.
_NAMED = re.compile(r"^\s*(?:[-*+•]\s+)?\*{2,3}([^*]{2,60}?)[.:]?\*{2,3}[.:]?\s+(.+)$")
_KIND = re.compile(r"^\s*[*_]([^*_].{2,120}?)[*_]\s*$")
_ROW = re.compile(r"^\s*\|\s*([^|]+?)\s*\|")
_TABLE_RULE = re.compile(r"^[\s|:-]+$")


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


def _is_sentence(value: str) -> bool:
    """Return whether a bold label's value reads as a sentence (a named entry), not a short field value."""
    words = value.split()
    return (
        len(words) >= 6
        and value.rstrip().endswith((".", "!", "?", ":"))
        and sum(ch.isalpha() for ch in value) > 2 * sum(ch.isdigit() for ch in value)
    )


def names_view(heading_path: Sequence[str], text: str, *, tokens: int = NAMES_TOKENS) -> str:
    """Return the names view of a chunk: title, kind line and the names of its parts, cut short."""
    names: list[str] = []
    kind = ""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        if (heading := _INNER_HEADING.match(line)) is not None:
            names.append(heading.group(1))
        elif (named := _NAMED.match(line)) is not None:
            if _is_sentence(named.group(2)):
                names.append(named.group(1))
        elif (italic := _KIND.match(line)) is not None and not kind:
            kind = italic.group(1)
        elif (
            (row := _ROW.match(line)) is not None
            and not _TABLE_RULE.match(line)
            # The first row of a table is its header: its first cell names a column, not a thing.
            and number > 0
            and lines[number - 1].lstrip().startswith("|")
        ):
            names.append(row.group(1))
    title = title_view(heading_path)
    clean = [_SPACES.sub(" ", _MARKS.sub("", name)).strip() for name in names]
    seen = {h.casefold() for h in heading_path} | ({title.casefold()} if title else set())
    unique = []
    for name in clean:
        if name and name.casefold() not in seen and not name.replace(" ", "").isdigit():
            seen.add(name.casefold())
            unique.append(name)
    head = f"{title}: {kind}." if kind else f"{title}:" if title else ""
    return truncate_to_tokens(" ".join(part for part in (head, ", ".join(unique)) if part), tokens)
