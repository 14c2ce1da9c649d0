"""`/scene start|status|transcript` and `/endscene`: the scene lifecycle in a channel."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import Lorekeeper
from canon.errors import InvalidInput
from cogs import embeds
from cogs.checks import actor_of, gm_only, guild_only_message
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
        campaign = await self.bot.services.campaigns.for_guild(guild.id, guild.name)
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

    @app_commands.command(name="endscene", description="End the scene in this channel (GM)")
    @app_commands.guild_only()
    @gm_only()
    async def endscene(self, interaction: discord.Interaction) -> None:
        """Stop logging, and post the scene's summary."""
        _guild(interaction)
        await self.scenes.current_scene(interaction.channel_id or 0)  # refuse before the public "thinking…"
        await interaction.response.defer(thinking=True)
        report = await self.scenes.end_scene(interaction.channel_id or 0)
        await interaction.followup.send(
            embed=embeds.scene_report_embed(report, heading="Scene ended"), allowed_mentions=NONE
        )


async def setup(bot: Lorekeeper) -> None:
    """Register the scene commands."""
    await bot.add_cog(SceneCommands(bot))
