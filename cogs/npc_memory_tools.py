"""`/npc memory-edit|memory-delete|memory-scopes`: the GM edits, deletes by criteria and counts NPC memories.

Added to the `/npc` group of `cogs.voice` (load it first), beside `/npc memories` (which filters and searches).
Each command is GM-only, answers ephemerally and calls one `NpcMemoryDesk` method.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.client import replies
from bot.client.client import Lorekeeper
from bot.services.npc_memories import NpcMemoryDesk
from cogs import npc_memory_embeds
from cogs.canon_options import entity_names
from cogs.checks import gm_only
from cogs.places import campaign_here
from cogs.services import services_of
from cogs.subcommands import add_to_group, remove_from_group


def _desk(interaction: discord.Interaction) -> NpcMemoryDesk:
    return services_of(interaction).npc_memories


@app_commands.command(
    name="memory-edit", description="Change an NPC memory's text, importance or categories (GM)"
)
@app_commands.describe(
    memory="The memory's number (from /npc memories)",
    text="Its new text, in the NPC's words",
    importance="How much it matters, 0 to 1",
    categories="Its categories, separated by commas ('-' for none)",
    private="Only you may see it: the NPC never speaks from it",
    meta="Metadata: key=value pairs separated by commas",
)
@gm_only()
async def memory_edit(
    interaction: discord.Interaction,
    memory: app_commands.Range[int, 1, 10**15],
    text: app_commands.Range[str, 1, 4000] | None = None,
    importance: app_commands.Range[float, 0.0, 1.0] | None = None,
    categories: app_commands.Range[str, 1, 400] | None = None,
    private: bool | None = None,
    meta: app_commands.Range[str, 1, 400] | None = None,
) -> None:
    """Edit one memory; a new text is embedded again, so it is found and recalled by it."""
    campaign = await campaign_here(interaction)
    await replies.think(interaction)
    cleared = "" if categories is not None and categories.strip() == "-" else categories
    record = await _desk(interaction).edit(
        campaign, memory, text=text, importance=importance, categories=cleared, private=private, meta=meta
    )
    await replies.answer(interaction, embed=npc_memory_embeds.edited_embed(record))


@app_commands.command(
    name="memory-delete", description="Delete the NPC memories that meet every criterion (GM)"
)
@app_commands.describe(
    npc="Whose memories",
    category="Memories with this category",
    older_than_days="Memories older than this many days",
    meta="Memories with this metadata (key=value, ...)",
)
@app_commands.autocomplete(npc=entity_names)
@gm_only()
async def memory_delete(
    interaction: discord.Interaction,
    npc: app_commands.Range[str, 1, 200] | None = None,
    category: app_commands.Range[str, 1, 40] | None = None,
    older_than_days: app_commands.Range[float, 0.0, 100_000.0] | None = None,
    meta: app_commands.Range[str, 1, 400] | None = None,
) -> None:
    """Delete by combined criteria (at least one)."""
    campaign = await campaign_here(interaction)
    await replies.think(interaction)
    desk = _desk(interaction)
    query = await desk.query(
        campaign, npc=npc, categories=category, meta=meta, older_than_days=older_than_days
    )
    gone = await desk.delete(campaign, query)
    await replies.answer(interaction, npc_memory_embeds.deleted_text(len(gone)))


@app_commands.command(name="memory-scopes", description="How many memories each scope holds (GM)")
@app_commands.describe(npc="One NPC's scope (leave empty for the whole campaign)")
@app_commands.autocomplete(npc=entity_names)
@gm_only()
async def memory_scopes(
    interaction: discord.Interaction, npc: app_commands.Range[str, 1, 200] | None = None
) -> None:
    """Show a scope's counts (oldest, newest, per category) and the campaign's scopes."""
    campaign = await campaign_here(interaction)
    await replies.think(interaction)
    desk = _desk(interaction)
    info = await desk.scope_info(campaign, npc=npc)
    scopes = await desk.scopes(campaign)
    names = await desk.scope_names(campaign, [info.scope, *scopes])
    await replies.answer(interaction, embed=npc_memory_embeds.scope_embed(info, scopes, names))


COMMANDS: tuple[app_commands.Command[Any, Any, None], ...] = (memory_edit, memory_delete, memory_scopes)


async def setup(bot: Lorekeeper) -> None:
    """Add the memory tools to the `/npc` group (cogs.voice must be loaded first)."""
    add_to_group(bot, "npc", COMMANDS, extension="cogs.npc_memory_tools", owner="cogs.voice")


async def teardown(bot: Lorekeeper) -> None:
    """Take the memory tools away again."""
    remove_from_group(bot, "npc", COMMANDS)
