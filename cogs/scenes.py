"""`/scene start|status|transcript|narrator|cast|similar` and `/endscene`: the scene lifecycle in a channel."""

from __future__ import annotations

import io
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Lorekeeper
from canon.errors import InvalidInput
from cogs import canon_options, canon_views, embeds, voice_embeds
from cogs.checks import actor_of, gm_only, guild_only_message
from cogs.places import campaign_here
from memory.scenes import SceneService

NONE = discord.AllowedMentions.none()


def _guild(interaction: discord.Interaction) -> discord.Guild:
    if interaction.guild is None:
        raise InvalidInput(guild_only_message())
    return interaction.guild


class SceneCommands(commands.Cog):
    """Start a scene, see how it goes, download its transcript, end it."""

    scene = app_commands.Group(name="scene", description="Run the scene in this channel", guild_only=True)

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.scenes: SceneService = bot.services.scenes

    @scene.command(name="start", description="Start a scene in this channel (GM)")
    @app_commands.describe(title="What the scene is called", location="Where it takes place")
    @gm_only()
    async def start(
        self,
        interaction: discord.Interaction,
        title: app_commands.Range[str, 1, 200] | None = None,
        location: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        """Start logging this channel's messages as the turns of a new scene."""
        guild = _guild(interaction)
        campaign = await campaign_here(interaction)
        scene = await self.scenes.start_scene(
            campaign_id=campaign.id,
            guild_id=guild.id,
            channel_id=interaction.channel_id or 0,
            title=title,
            location=location,
            actor=actor_of(interaction, self.bot.services.settings.gm_role),
        )
        await interaction.response.send_message(
            embed=embeds.scene_started_embed(scene), allowed_mentions=NONE
        )

    @scene.command(name="status", description="Show the scene running in this channel")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the current scene's turns, participants and duration."""
        _guild(interaction)
        scene = await self.scenes.current_scene(interaction.channel_id or 0)
        report = await self.scenes.report(scene.id)
        await interaction.response.send_message(
            embed=embeds.scene_report_embed(report, heading="Scene"), ephemeral=True, allowed_mentions=NONE
        )

    @scene.command(name="transcript", description="Download this channel's scene as a Markdown file")
    async def transcript(self, interaction: discord.Interaction) -> None:
        """Attach the transcript of the current scene (or the one under review)."""
        _guild(interaction)
        current = await self.scenes.current_scene(interaction.channel_id or 0)
        await interaction.response.defer(ephemeral=True, thinking=True)
        scene, turns = await self.scenes.transcript(current.id)
        data = embeds.transcript_text(scene, turns).encode("utf-8")
        file = discord.File(io.BytesIO(data), filename=f"scene-{scene.story_order}.md")
        await interaction.followup.send(
            f"Transcript of “{scene.title}”: {len(turns)} turns.",
            file=file,
            ephemeral=True,
            allowed_mentions=NONE,
        )

    # -- the game-master's voice (narrator mode, cast, similar moments) ---------------------------

    @scene.command(name="narrator", description="Turn the narrator on or off in this scene (GM)")
    @app_commands.describe(mode="on: the narrator answers the players' turns; off: only /narrate")
    @gm_only()
    async def narrator(self, interaction: discord.Interaction, mode: Literal["on", "off"]) -> None:
        """Switch narrator mode for the channel's running scene."""
        _guild(interaction)
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
        _guild(interaction)
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
        _guild(interaction)
        campaign = await campaign_here(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        moments = await self.bot.services.voice.similar_scenes(campaign, text)
        await interaction.followup.send(
            embed=voice_embeds.moments_embed(text, moments), ephemeral=True, allowed_mentions=NONE
        )

    @app_commands.command(name="endscene", description="End the scene in this channel (GM)")
    @app_commands.guild_only()
    @gm_only()
    async def endscene(self, interaction: discord.Interaction) -> None:
        """Stop logging, post the scene's summary and, when canon was proposed, the review card."""
        _guild(interaction)
        channel_id = interaction.channel_id or 0
        # Refuse (no scene, or one already under review) before the public "thinking…" that would show it.
        await self.scenes.endable_scene(channel_id)
        await interaction.response.defer(thinking=True)
        # Should another /endscene win the race meanwhile, the error handler takes this public "thinking…"
        # back and refuses privately (`reply_ephemeral`).
        report, review = await self.bot.services.canon.end_scene(channel_id)
        await interaction.followup.send(
            embed=embeds.scene_report_embed(report, heading="Scene ended"), allowed_mentions=NONE
        )
        if review.proposals:
            await canon_views.post_review(interaction, review)


async def setup(bot: Lorekeeper) -> None:
    """Register the scene commands."""
    await bot.add_cog(SceneCommands(bot))
