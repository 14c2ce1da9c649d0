"""`/scene start|status|transcript|narrator|cast|similar` and `/endscene`: the scene lifecycle in a channel."""

from __future__ import annotations

import contextlib
import io
import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import limits, replies
from bot.client.client import Lorekeeper
from canon.errors import InvalidInput
from canon.models import Viewer
from canon.story_clock import date_and_key, scene_time
from canon.wording import PLAIN
from cogs import canon_cards, canon_options, embeds, progress, voice_embeds
from cogs.canon_options import CALENDAR_DATE_HELP, date_choices
from cogs.checks import IN_SERVERS, actor_of, gm_only, guild_of
from cogs.places import campaign_here
from cogs.recaps import post_recap
from memory.scene_service import SceneService

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()


class SceneCommands(commands.Cog):
    """Start a scene, see how it goes, download its transcript, end it."""

    scene = app_commands.Group(
        name="scene",
        description="Run the scene in this channel",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.scenes: SceneService = bot.services.scenes

    @scene.command(name="start", description="Start a scene in this channel (GM)")
    @app_commands.describe(
        title="What the scene is called",
        location="Where it takes place (a place of canon, or any words)",
        date=CALENDAR_DATE_HELP,
    )
    @app_commands.autocomplete(date=date_choices)
    @gm_only()
    async def start(
        self,
        interaction: discord.Interaction,
        title: app_commands.Range[str, 1, 200] | None = None,
        location: app_commands.Range[str, 1, 200] | None = None,
        date: app_commands.Range[str, 1, 120] | None = None,
    ) -> None:
        """Start logging this channel's messages as the turns of a new scene."""
        guild = guild_of(interaction)
        campaign = await campaign_here(interaction)
        calendars = self.bot.services.calendars
        world_date: str | None = None
        world_key: int | None = None
        if date:
            calendar = await calendars.calendar(campaign, Viewer.GM)  # the GM types any era's
            world_date, world_key = date_and_key(scene_time(date, None, calendar))
        scene = await self.scenes.start_scene(
            campaign_id=campaign.id,
            guild_id=guild.id,
            channel_id=interaction.channel_id or 0,
            title=title,
            location=location,
            actor=actor_of(interaction, self.bot.services.settings.gm_role),
            world_date=world_date,
            world_key=world_key,
            location_id=await self.bot.services.queries.place_named(campaign, location),
        )
        await interaction.response.send_message(
            # Posted in the channel: its date as players read it (one in a GM-only era is none).
            embed=embeds.scene_started_embed(
                scene, (await calendars.calendar(campaign)).words() if date else PLAIN.calendar
            ),
            allowed_mentions=NONE,
        )

    @scene.command(name="time", description="Move the scene's in-world date (GM)")
    @app_commands.describe(
        when="A date as your table says it (the list suggests your calendar's words), or a step: next spring"
    )
    @app_commands.autocomplete(when=date_choices)
    @gm_only()
    async def time(self, interaction: discord.Interaction, when: app_commands.Range[str, 1, 120]) -> None:
        """Move the running scene's date: facts proposed from now on are dated by it."""
        guild_of(interaction)
        campaign = await campaign_here(interaction)
        calendar = await self.bot.services.calendars.calendar(campaign, Viewer.GM)
        scene = await self.scenes.set_time(interaction.channel_id or 0, when, calendar)
        # Posted in the channel: the date as players read it (one in a GM-only era is none).
        text = embeds.scene_time_text(scene, (await self.bot.services.calendars.calendar(campaign)).words())
        await interaction.response.send_message(text, allowed_mentions=NONE)

    @scene.command(name="status", description="Show the scene running in this channel")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the current scene's turns, participants and duration."""
        guild_of(interaction)
        scene = await self.scenes.current_scene(interaction.channel_id or 0)
        report = await self.scenes.report(scene.id)
        campaign = await campaign_here(interaction)
        words = (
            await self.bot.services.calendars.calendar(campaign, canon_options.viewer_of(interaction))
        ).words()
        await interaction.response.send_message(
            embed=embeds.scene_report_embed(report, heading="Scene", words=words),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @scene.command(name="transcript", description="Download this channel's scene as a Markdown file")
    async def transcript(self, interaction: discord.Interaction) -> None:
        """Attach the transcript of the current scene (or the one under review, else the latest ended one), in
        parts if it is long."""
        guild_of(interaction)
        current = await self.scenes.latest_scene(interaction.channel_id or 0)
        await replies.think(interaction)
        scene, turns = await self.scenes.transcript(current.id)
        size = getattr(interaction, "filesize_limit", None) or limits.FILE_BYTES
        parts = limits.split_text_file(embeds.transcript_text(scene, turns), size)
        names = embeds.transcript_file_names(scene, len(parts))
        files = [
            discord.File(io.BytesIO(part), filename=name) for part, name in zip(parts, names, strict=True)
        ]
        text = embeds.transcript_note(scene, len(turns), len(parts))
        for index in range(0, len(files), limits.FILES):
            await replies.answer(
                interaction, text if index == 0 else None, files=files[index : index + limits.FILES]
            )

    # -- the game-master's voice (narrator mode, cast, similar moments) ---------------------------

    @scene.command(name="narrator", description="Turn the narrator on or off in this scene (GM)")
    @app_commands.describe(mode="on: the narrator answers the players' turns; off: only /narrate")
    @gm_only()
    async def narrator(self, interaction: discord.Interaction, mode: Literal["on", "off"]) -> None:
        """Switch narrator mode for the channel's running scene."""
        guild_of(interaction)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        scene = await self.bot.services.voice.set_narrator(interaction.channel_id or 0, mode == "on", actor)
        await interaction.response.send_message(voice_embeds.narrator_mode_text(scene), allowed_mentions=NONE)

    @scene.command(name="cast", description="Say an NPC is in this scene, so it remembers it (GM)")
    @app_commands.describe(npc="The NPC", remove="Take the NPC out of the cast instead")
    @app_commands.autocomplete(npc=canon_options.entity_names)
    @gm_only()
    async def cast(
        self, interaction: discord.Interaction, npc: app_commands.Range[str, 1, 200], remove: bool = False
    ) -> None:
        """Add an NPC to (or remove it from) the scene's cast."""
        guild_of(interaction)
        campaign = await campaign_here(interaction)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        name, changed = await self.bot.services.voice.cast(
            campaign, interaction.channel_id or 0, npc, actor, remove=remove
        )
        await interaction.response.send_message(
            voice_embeds.cast_text(name, changed, remove=remove), ephemeral=True, allowed_mentions=NONE
        )

    @scene.command(name="similar", description="Find committed scenes like a moment you describe")
    @app_commands.describe(text="The moment, in a few words")
    async def similar(self, interaction: discord.Interaction, text: app_commands.Range[str, 1, 300]) -> None:
        """List the scenes whose summaries are closest to the text."""
        guild_of(interaction)
        campaign = await campaign_here(interaction)
        await replies.think(interaction)
        moments = await self.bot.services.voice.similar_scenes(campaign, text)
        await replies.answer(interaction, embed=voice_embeds.moments_embed(text, moments))

    @app_commands.command(name="endscene", description="End the scene in this channel (GM)")
    @app_commands.guild_only()
    @gm_only()
    async def endscene(self, interaction: discord.Interaction) -> None:
        """Stop logging, post the scene's report and its recap or, when canon was proposed, the review card.

        Reading a long transcript into proposals may outlast the interaction's 15 minutes: the progress, the
        summary and the review card are messages of the channel, and the GM's private answer links to them.
        """
        guild_of(interaction)
        channel = interaction.channel
        if not isinstance(channel, discord.abc.Messageable):
            raise InvalidInput("Scenes are played in a server's text channels.")
        canon = self.bot.services.canon
        # Refuse (no scene, one under review, one being ended) before anything is posted.
        scene = await canon.endable_scene(interaction.channel_id or 0)
        await replies.think(interaction)
        status = await progress.post(channel, embeds.scene_ending_text(scene))
        await replies.answer(interaction, embeds.scene_ending_answer(scene, status.jump_url))
        show = progress.Progress(progress.message_editor(status), embeds.scene_reading_text)
        try:
            report, review = await canon.end_scene(scene.channel_id, progress=show)
        except BaseException:
            with contextlib.suppress(discord.HTTPException):  # the GM hears why (the error handler)
                await status.delete()
            raise
        # Left in the channel: its date as players read it (one in a GM-only era is none).
        words = (await self.bot.services.calendars.calendar(await campaign_here(interaction))).words()
        ended = embeds.scene_report_embed(report, heading="Scene ended", posted=True, words=words)
        await status.edit(content=None, embed=ended)
        if not review.proposals:  # complete already: its recap now (else the commit posts it)
            await _tell_gm(interaction, embeds.scene_ended_answer(scene, status.jump_url, 0))
            await post_recap(self.bot, scene.id, scene.channel_id)
            return
        card = await canon_cards.post_public_card(channel, self.bot.services, review)
        await _tell_gm(interaction, embeds.scene_ended_answer(scene, card.jump_url, len(review.proposals)))
        if review.secret:
            await canon_cards.tell_gm_secret_proposals(interaction, review)


async def _tell_gm(interaction: discord.Interaction, text: str) -> None:
    """Replace the GM's private answer with where the ended scene now stands (past the interaction's 15
    minutes the answer can no longer be edited: the channel's messages say it all the same)."""
    try:
        await interaction.edit_original_response(
            content=text, allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException as error:
        log.info("could not tell the GM where the ended scene stands: %s", error)


async def setup(bot: Lorekeeper) -> None:
    """Register the scene commands."""
    await bot.add_cog(SceneCommands(bot))
