"""How the GM's notes read: a list page, one note, and the notes under an entity card's GM view. Pure functions.

Notes are the GM's alone: every embed here goes to a GM, ephemerally. A note's text is the GM's own words,
shown escaped (never as markdown that pings or links) and clipped to Discord's limits.
"""

from __future__ import annotations

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_VALUE, clip, fit_lines
from bot.services.gm_notes import NoteShown
from cogs.embeds import COLOUR, escape_with_mentions
from memory.notes import GmNote


def note_line(note: GmNote, shown: NoteShown) -> str:
    """Return one note as a line: number, done mark, text, tags, what it is about."""
    mark = "✅ " if note.done else ""
    bits = [f"**#{note.id}** {mark}{escape_with_mentions(clip(note.text, 300))}"]
    if note.tags:
        bits.append("· " + ", ".join(f"`{t}`" for t in note.tags))
    about = [shown.entities.get(e, "an entity no longer in canon") for e in note.entity_ids]
    if note.scene_id is not None:
        about.append(shown.scenes.get(note.scene_id, "a scene"))
    if about:
        bits.append("· about " + escape_with_mentions(", ".join(about)))
    return " ".join(bits)


def notes_embed(shown: NoteShown, *, heading: str) -> discord.Embed:
    """Render a page of notes (or the one note just added or closed)."""
    page = shown.page
    embed = discord.Embed(title=clip(heading, EMBED_TITLE), colour=COLOUR)
    if not page.notes:
        embed.description = "No note matches. Add one with `/note add`."
        return embed
    lines = [note_line(note, shown) for note in page.notes]
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    if page.pages > 1:
        embed.set_footer(
            text=f"Page {page.page} of {page.pages} ({page.total} notes). Only you can see these notes."
        )
    else:
        embed.set_footer(text="Only you can see these notes; `/note done` closes one.")
    return embed


def add_card_notes(embed: discord.Embed, notes: list[GmNote]) -> discord.Embed:
    """Add the GM's open notes about the entity to its card (the GM's view only)."""
    if not notes:
        return embed
    lines = [f"#{n.id} {escape_with_mentions(clip(n.text, 200))}" for n in notes]
    embed.add_field(name="🔒 Your notes", value=fit_lines(lines, FIELD_VALUE), inline=False)
    return embed
