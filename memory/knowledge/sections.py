"""GM-only sections of a source: which chunks they hold, the GM's choices after import, a section named in words.

A chunk is in a GM-only section when its file marked the section (`memory.chunking.secret`), unless the GM chose
otherwise after import: each choice names a section by its heading path and hides or reveals it (with everything
under it); choices are applied in the order made, the latest for a section replacing an earlier one, and they stay
with the source when a new version of its file is imported. A chunk belongs to a chosen section when its heading
path lies under the section's, or when the section's heading is inside it (a small section packed with its
siblings: the whole chunk follows the choice, so hiding never leaves a hidden heading's text public).

Pure functions over plain values; `memory.knowledge.section_rows` reads and writes the rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from canon.errors import InvalidInput

__all__ = [
    "PATH_SEPARATOR",
    "Section",
    "choose",
    "chunk_hidden",
    "find_section",
    "path_words",
    "sections_of",
]

PATH_SEPARATOR = " › "


class Section(BaseModel):
    """A section of a source as the GM picks it: its heading path, whether it is hidden, its chunks."""

    model_config = ConfigDict(frozen=True)

    path: tuple[str, ...]
    hidden: bool
    chunks: int

    @property
    def words(self) -> str:
        """Return the section as people name it ("Greyhaven › The Duke's Plot")."""
        return path_words(self.path)


def path_words(path: Sequence[str]) -> str:
    """Return a heading path in words."""
    return PATH_SEPARATOR.join(path)


def _inner(path: Sequence[str], heading_text: str) -> list[str]:
    """Return the headings inside a chunk (its heading text's lines beyond its path)."""
    return [line for line in heading_text.splitlines() if line and line not in path]


def _under(chunk_path: Sequence[str], inner: Sequence[str], section: Sequence[str]) -> bool:
    """Return whether a chunk belongs to a section: its path lies under it, or the section's heading is in it."""
    if not section:
        return False
    if tuple(chunk_path[: len(section)]) == tuple(section):
        return True
    return tuple(section[: len(chunk_path)]) == tuple(chunk_path) and section[-1] in inner


def chunk_hidden(
    chunk_path: Sequence[str], heading_text: str, marked: bool, choices: Iterable[dict[str, Any]]
) -> bool:
    """Return whether a chunk is in a GM-only section: marked in the file, then the GM's choices in order."""
    hidden = marked
    inner = _inner(chunk_path, heading_text)
    for choice in choices:
        if _under(chunk_path, inner, choice.get("path") or []):
            hidden = bool(choice.get("hidden"))
    return hidden


def choose(choices: Sequence[dict[str, Any]], path: Sequence[str], hidden: bool) -> list[dict[str, Any]]:
    """Return the choices with a section hidden or revealed (replacing an earlier choice for that section)."""
    kept = [c for c in choices if list(c.get("path") or []) != list(path)]
    return [*kept, {"path": list(path), "hidden": hidden}]


def sections_of(chunks: Iterable[tuple[Sequence[str], str, bool]]) -> list[Section]:
    """Return a source's sections in document order, from its chunks' (heading path, heading text, hidden)."""
    found: dict[tuple[str, ...], list[int]] = {}
    for path, heading_text, hidden in chunks:
        paths = [tuple(path[: n + 1]) for n in range(len(path))]
        paths += [(*path, title) for title in _inner(path, heading_text)]
        for key in paths:
            counts = found.setdefault(key, [0, 0])
            counts[0] += 1
            counts[1] += int(hidden)
    return [Section(path=key, hidden=total == secret, chunks=total) for key, (total, secret) in found.items()]


def find_section(sections: Sequence[Section], typed: str) -> Section:
    """Return the section a GM named: its whole heading path, or a heading found once; else say what to type."""
    wanted = " ".join(typed.split()).casefold()
    if not wanted:
        raise InvalidInput("Name the section by its heading, e.g. “The Duke's Plot”.")
    exact = [s for s in sections if s.words.casefold() == wanted]
    if exact:
        return exact[0]
    by_title = [s for s in sections if s.path and s.path[-1].casefold() == wanted]
    if len(by_title) == 1:
        return by_title[0]
    if len(by_title) > 1:
        options = "; ".join(s.words for s in by_title[:3])
        raise InvalidInput(
            f"More than one section is called “{typed.strip()}”: pick one by its path ({options})."
        )
    raise InvalidInput(
        f"This source has no section called “{typed.strip()[:80]}”: `/lore source` lists its sections."
    )
