"""How `/lore glossary` shows the table's words: the campaign's own first, then the shipped ones."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client import limits
from bot.services.glossary import GlossaryEntry
from cogs.embeds import COLOUR, clip

__all__ = ["changed_line", "list_embed"]


def _line(entry: GlossaryEntry) -> str:
    return f"**{discord.utils.escape_markdown(entry.term)}** → {discord.utils.escape_markdown(entry.meaning)}"


def list_embed(entries: Sequence[GlossaryEntry]) -> discord.Embed:
    """Return the glossary as an embed: the campaign's terms, then the shipped ones (clipped to fit)."""
    own = [_line(e) for e in entries if e.own]
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
    embed.add_field(
        name="This campaign's words",
        value=clip("\n".join(own), limits.FIELD_VALUE) if own else "None yet.",
        inline=False,
    )
    embed.add_field(
        name="Shipped with Lorekeeper", value=clip(", ".join(shipped), limits.FIELD_VALUE), inline=False
    )
    return embed


def changed_line(entry: GlossaryEntry, done: str) -> str:
    """Return the one line saying a term was added or removed."""
    return f"Glossary: {_line(entry)} {done}. `/lore glossary list` shows them all."
