"""How the GM's NPC-memory tools read: a filtered page, an edit, a deletion, a scope's counts. Pure functions.

Every embed goes to a GM, ephemerally. Memory texts are the NPCs' words (data): escaped, never pinging.
"""

from __future__ import annotations

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_VALUE, clip, fit_lines
from cogs.embeds import escape_with_mentions
from memory.memory_ops import MemoryPage, ScopeInfo
from memory.npc_memory import MemoryRecord

COLOUR = discord.Colour.teal()


def record_line(memory: MemoryRecord, score: float | None = None) -> str:
    """Return one memory as a line: whose, score, importance, categories, private mark, text and its number."""
    bits = [escape_with_mentions(memory.npc_name)]
    if score is not None:
        bits.append(f"· score {score:.2f}")
    bits.append(f"· importance {memory.importance:.2f}")
    if memory.categories:
        bits.append("· " + ", ".join(f"`{c}`" for c in memory.categories))
    if memory.meta:
        bits.append("· " + escape_with_mentions(", ".join(f"{k}={v}" for k, v in memory.meta.items())))
    if memory.private:
        bits.append("· 🔒 private")
    return " ".join(bits) + ": " + escape_with_mentions(clip(memory.content, 300)) + f" (memory {memory.id})"


def page_embed(title: str, page: MemoryPage) -> discord.Embed:
    """Render a page of found memories."""
    embed = discord.Embed(title=clip(title, EMBED_TITLE), colour=COLOUR)
    lines = [record_line(f.memory, f.score) for f in page.found]
    embed.description = fit_lines(lines, EMBED_DESCRIPTION) if lines else "No memory meets these criteria."
    embed.set_footer(
        text=f"Page {page.page} of {page.pages} · {page.total} memories · /npc memory-edit changes one"
    )
    return embed


def edited_embed(memory: MemoryRecord) -> discord.Embed:
    """Render a memory after the GM edited it."""
    embed = discord.Embed(
        title=clip(f"{memory.npc_name}'s memory changed (memory {memory.id})", EMBED_TITLE), colour=COLOUR
    )
    embed.description = record_line(memory)
    return embed


def deleted_text(count: int) -> str:
    """Render what a deletion by criteria did."""
    if not count:
        return "No memory meets these criteria: nothing was deleted."
    return f"Deleted {count} memor{'y' if count == 1 else 'ies'} (and the links to them); NPCs no longer recall them."


def scope_embed(info: ScopeInfo, scopes: dict[str, int], names: dict[str, str]) -> discord.Embed:
    """Render a scope's counts, and the campaign's scopes (named: the NPC and scene they are)."""
    embed = discord.Embed(
        title=clip(f"Memories in {names.get(info.scope, info.scope)}", EMBED_TITLE), colour=COLOUR
    )
    when = (
        f"oldest {discord.utils.format_dt(info.oldest, 'd')}, newest {discord.utils.format_dt(info.newest, 'd')}"
        if info.oldest and info.newest
        else "none yet"
    )
    lines = [f"{info.count} memories ({info.private} private); {when}."]
    if info.per_category:
        lines.append("By category: " + ", ".join(f"{c} {n}" for c, n in info.per_category.items()))
    if info.per_kind:
        lines.append("By kind: " + ", ".join(f"{k} {n}" for k, n in info.per_kind.items()))
    embed.description = escape_with_mentions("\n".join(lines))
    listed = [f"{escape_with_mentions(names.get(s, s))}: {n}" for s, n in scopes.items()]
    if listed:
        embed.add_field(name="Scopes", value=fit_lines(listed, FIELD_VALUE), inline=False)
    return embed
