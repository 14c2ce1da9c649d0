"""A glossary's terms in words, as `lorekeeper glossary` and `/lore glossary` say them.

A campaign's term may give a shipped term another meaning ("hp → Wounds, not the shipped hit points") or switch
it off ("armour: read as written"); removing a shipped term switches it off, and removing it again brings the
shipped meaning back. `mark` wraps a term (Discord's bold, escaped; on the command line, quotes in a sentence).
"""

from __future__ import annotations

from collections.abc import Callable


def _quoted(text: str) -> str:
    return f"“{text}”"


def entry_words(
    term: str, meaning: str, *, own: bool, shipped: str | None, mark: Callable[[str], str] = str
) -> str:
    """Return one term of a glossary's list: "gobbo → goblin", "hp → Wounds (not the shipped “hit points”)",
    "armour: read as written (the shipped “armor” is off)", "ac → armor class (shipped)"."""
    if not own:
        return f"{mark(term)} → {meaning} (shipped)"
    if meaning == term and shipped:
        return f"{mark(term)}: read as written (the shipped “{shipped}” is off)"
    return f"{mark(term)} → {meaning}" + (f" (not the shipped “{shipped}”)" if shipped else "")


def removal_words(
    term: str, removed: str | None, shipped: str | None, *, mark: Callable[[str], str] = _quoted
) -> str:
    """Return what removing a term did: the campaign's meaning removed, the shipped one read again, or the shipped
    one switched off (with how to bring it back)."""
    if removed is None:
        return (
            f"{mark(term)} is read as written in this campaign now, not as the shipped “{shipped}”. "
            "Remove it again to bring the shipped meaning back."
        )
    again = f"{mark(term)} is read as the shipped “{shipped}” again."
    if removed == term and shipped:
        return again
    return f"Removed from the glossary: {mark(term)} → {removed}." + (f" {again}" if shipped else "")
