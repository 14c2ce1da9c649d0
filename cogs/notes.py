"""`/note add|list|done`: the GM's notes, ideas and TODOs, kept beside the campaign and never shown to players.

Thin adapter: every command is GM-only (`gm_only`), answers ephemerally, calls one `GmNoteDesk` method and
renders with `cogs.note_embeds`.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.services.gm_notes import GmNoteDesk
from cogs import note_embeds
from cogs.canon_options import entity_names
from cogs.checks import IN_SERVERS, actor_of, gm_only
from cogs.places import campaign_here

NONE = discord.AllowedMentions.none()


class NoteCommands(commands.Cog):
    """The GM's notes."""

    note = app_commands.Group(
        name="note",
        description="Your private GM notes: ideas, TODOs, secrets (GM)",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.desk: GmNoteDesk = bot.services.notes

    async def _send(self, interaction: discord.Interaction, embed: discord.Embed) -> None:
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)

    @note.command(name="add", description="Keep a private note, about entities or this scene (GM)")
    @app_commands.describe(
        text="The note",
        tags="Tags, separated by commas (like plot, vyr)",
        about="The entities it is about, separated by commas",
        this_scene="It is about this channel's scene",
    )
    @app_commands.autocomplete(about=entity_names)
    @gm_only()
    async def add(
        self,
        interaction: discord.Interaction,
        text: app_commands.Range[str, 1, 2000],
        tags: app_commands.Range[str, 1, 400] | None = None,
        about: app_commands.Range[str, 1, 1000] | None = None,
        this_scene: bool = False,
    ) -> None:
        """Keep a note."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.add(
            campaign,
            text,
            actor_of(interaction, self.bot.services.settings.gm_role),
            tags=tags,
            about=about,
            channel_id=interaction.channel_id if this_scene else None,
        )
        await self._send(interaction, note_embeds.notes_embed(shown, heading="Note kept"))

    @note.command(name="list", description="Find your notes by words, tag or entity (GM)")
    @app_commands.describe(
        search="Words the note contains",
        tag="A tag",
        about="An entity the note is about",
        include_done="Show done notes too",
        page="Which page (10 notes a page)",
    )
    @app_commands.autocomplete(about=entity_names)
    @gm_only()
    async def list_notes(
        self,
        interaction: discord.Interaction,
        search: app_commands.Range[str, 1, 200] | None = None,
        tag: app_commands.Range[str, 1, 40] | None = None,
        about: app_commands.Range[str, 1, 200] | None = None,
        include_done: bool = False,
        page: app_commands.Range[int, 1, 10_000] = 1,
    ) -> None:
        """List the notes matching every criterion given."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.search(
            campaign, words=search, tag=tag, about=about, include_done=include_done, page=page
        )
        heading = f"Your notes ({shown.page.total})" if shown.page.total else "Your notes"
        await self._send(interaction, note_embeds.notes_embed(shown, heading=heading))

    @note.command(name="done", description="Mark a note done, or open it again (GM)")
    @app_commands.describe(note="The note's number (#12 in /note list)", reopen="Open it again instead")
    @gm_only()
    async def done(
        self,
        interaction: discord.Interaction,
        note: app_commands.Range[int, 1, 10**15],
        reopen: bool = False,
    ) -> None:
        """Mark a note done."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.mark_done(campaign, note, done=not reopen)
        heading = "Note opened again" if reopen else "Note done"
        await self._send(interaction, note_embeds.notes_embed(shown, heading=heading))


async def setup(bot: Lorekeeper) -> None:
    """Register `/note`."""
    await bot.add_cog(NoteCommands(bot))
