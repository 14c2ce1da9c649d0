"""What `/lore source original:true` says with (or instead of) a source's original file: pure functions."""

from __future__ import annotations

import io

import discord

from cogs.embeds import clip
from memory.knowledge.files import size_text
from memory.knowledge.source_models import OriginalFile

__all__ = ["original_file", "original_note"]


def _name(original: OriginalFile) -> str:
    title = discord.utils.escape_markdown(clip(original.title, 120))
    return f"**{title}** ({discord.utils.escape_markdown(clip(original.filename, 200))})"


def original_note(original: OriginalFile, *, campaign: str, limit: int) -> str:
    """Return the sentence sent with the original, or the one that says why it is not attached and where it is."""
    size = size_text(original.size_bytes)
    if original.missing:
        return (
            f"The original of {_name(original)} is no longer in the vault ({original.where}): the source still "
            "answers, but it cannot be re-read or exported. Import the file again to keep it."
        )
    if original.data is None:
        copy = f'lorekeeper vault copy "{original.filename}" --campaign "{campaign}" --to FILE'
        return (
            f"The original of {_name(original)} is {size}, more than Discord lets me attach here "
            f"({size_text(limit)}). It is kept in {original.where}; the bot's host can copy it out with "
            f"`{discord.utils.escape_markdown(clip(copy, 900))}`."
        )
    return f"The original of {_name(original)}, as it was imported ({size})."


def original_file(original: OriginalFile) -> discord.File | None:
    """Return the original as an attachment under its own file name (its folder left out), if it is sent."""
    if original.data is None:
        return None
    name = original.filename.rsplit("/", 1)[-1]
    return discord.File(io.BytesIO(original.data), filename=name)
