"""How `/lore glossary` shows the table's words: the campaign's own first, then the shipped ones."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client import limits
from bot.services.glossary import GlossaryEntry, GlossaryRemoval
from canon.wording.glossary import entry_words, removal_words
from cogs.embeds import COLOUR

__all__ = ["changed_line", "list_embed", "removed_line"]


def _bold(text: str) -> str:
    return f"**{discord.utils.escape_markdown(text)}**"


def _line(entry: GlossaryEntry) -> str:
    return f"{_bold(entry.term)} → {discord.utils.escape_markdown(entry.meaning)}"


def _own_line(entry: GlossaryEntry) -> str:
    """Return one of the campaign's terms, saying the shipped meaning it replaces or switches off."""
    return entry_words(
        entry.term, discord.utils.escape_markdown(entry.meaning), own=True, shipped=entry.shipped, mark=_bold
    )


def list_embed(entries: Sequence[GlossaryEntry]) -> discord.Embed:
    """Return the glossary as an embed: the campaign's terms, then the shipped ones, each over as many fields as
    they take; what the embed cannot hold is counted in a last line ("… and 12 more")."""
    own = [_own_line(e) for e in entries if e.own]
    shipped = [_line(e) for e in entries if not e.own]
    embed = discord.Embed(
        title="Glossary",
        description=(
            "/lore reads these words in questions as the books' words. "
            "The GM adds the table's own with `/lore glossary add`. "
            "A word the campaign's calendar gives (an era, its abbreviation, a month) is read as the calendar's."
        ),
        colour=COLOUR,
    )
    if not own:
        embed.add_field(name="This campaign's words", value="None yet.", inline=False)
    left = _fields(embed, "This campaign's words", own, "\n")
    left += _fields(embed, "Shipped with Lorekeeper", shipped, ", ", skip=left)
    if left:
        embed.set_footer(text=f"… and {left} more.")
    return embed


#: Room kept in the embed for the footer that counts what did not fit.
_FOOTER_ROOM = 40


def _fields(embed: discord.Embed, name: str, lines: Sequence[str], sep: str, *, skip: int = 0) -> int:
    """Add `lines` to `embed` joined by `sep`, in fields of whole lines named `name` (then "`name` (more)"),
    while the embed's limits hold; return how many lines did not fit. `skip`: lines already left out (none
    are added after them, so the list never resumes past a gap)."""
    if skip:
        return len(lines)
    value: list[str] = []
    for at, line in enumerate(lines):
        joined = sep.join([*value, line])
        if len(joined) <= limits.FIELD_VALUE:
            value.append(line)
            continue
        if not _added(embed, name, sep.join(value)):
            return len(lines) - at + len(value)
        name, value = f"{name.split(' (')[0]} (more)", [line]
    if value and not _added(embed, name, sep.join(value)):
        return len(value)
    return 0


def _added(embed: discord.Embed, name: str, value: str) -> bool:
    """Add one field when the embed can take it (its fields and its whole length); say whether it was added."""
    if len(embed.fields) >= limits.EMBED_FIELDS - 1 or len(embed) + len(name) + len(value) > (
        limits.EMBED_TOTAL - _FOOTER_ROOM
    ):
        return False
    embed.add_field(name=name, value=value, inline=False)
    return True


def changed_line(entry: GlossaryEntry, done: str) -> str:
    """Return the one line saying a term was added."""
    return f"Glossary: {_line(entry)} {done}. `/lore glossary list` shows them all."


def removed_line(removal: GlossaryRemoval) -> str:
    """Return the line saying what removing a term did (a shipped one is switched off)."""
    said = removal_words(removal.term, removal.removed, removal.shipped, mark=_bold)
    return f"{said} `/lore glossary list` shows them all."
