"""`/belief add|list|confirm|expose`: what characters believe that canon may not hold.

Thin adapter: each command calls one `BeliefDesk` method (`bot.services.beliefs`) and answers privately. Adding,
confirming and exposing are the GM's; `list` shows the GM every belief (or one character's) and a player the
beliefs of their active character, each marked as a belief.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.services.beliefs import BeliefDesk, BeliefShown
from cogs.canon_options import Name, Text, entity_names, played_characters
from cogs.checks import IN_SERVERS, actor_of, gm_only
from cogs.embeds import COLOUR, clip
from cogs.places import campaign_here
from memory.scenes import Actor

NONE = discord.AllowedMentions.none()


def belief_lines(shown: list[BeliefShown], *, gm: bool) -> list[str]:
    """Return one line per belief (the GM's with its number, to confirm or expose it by)."""
    return [f"• {b.sentence}" + (f" (belief {b.belief.id})" if gm else "") for b in shown]


class BeliefCommands(commands.Cog):
    """Beliefs and rumours of player characters."""

    belief = app_commands.Group(
        name="belief",
        description="What characters believe: rumours and lies, never canon",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.desk: BeliefDesk = bot.services.beliefs

    async def _say(self, interaction: discord.Interaction, title: str, lines: list[str], empty: str) -> None:
        embed = discord.Embed(title=clip(title, 256), colour=COLOUR)
        embed.description = clip("\n".join(lines) or empty, 4000)
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)

    def _gm(self, interaction: discord.Interaction) -> Actor:
        return actor_of(interaction, self.bot.services.settings.gm_role)

    @belief.command(name="add", description="Record what a character believes (GM)")
    @app_commands.describe(
        character="The player character who believes it",
        about="The entity it is about",
        attribute="What about it, in a few words (like treasure)",
        value="What they believe",
        source="Where they heard it (a drunk at the inn)",
    )
    @app_commands.autocomplete(character=played_characters, about=entity_names)
    @gm_only()
    async def add(
        self,
        interaction: discord.Interaction,
        character: Name,
        about: Name,
        attribute: app_commands.Range[str, 1, 60],
        value: Text,
        source: Text,
    ) -> None:
        """Record a belief."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.believe(
            campaign,
            self._gm(interaction),
            character=character,
            about=about,
            attribute=attribute,
            value=value,
            source=source,
            channel_id=interaction.channel_id,
        )
        await self._say(interaction, "Belief kept", belief_lines([shown], gm=True), "")

    @belief.command(name="list", description="What characters believe (yours, for a player)")
    @app_commands.describe(character="GM: one character (leave out for everyone)")
    @app_commands.autocomplete(character=played_characters)
    async def list_beliefs(self, interaction: discord.Interaction, character: Name | None = None) -> None:
        """List beliefs, each marked as a belief."""
        campaign = await campaign_here(interaction)
        asker = self._gm(interaction)
        shown = await self.desk.shown(campaign, asker, character=character if asker.is_gm else None)
        await self._say(interaction, "Beliefs", belief_lines(shown, gm=asker.is_gm), "No beliefs recorded.")

    @belief.command(name="confirm", description="Make a belief canon: it was true (GM)")
    @app_commands.describe(belief="The belief's number, as /belief list shows it")
    @gm_only()
    async def confirm(
        self, interaction: discord.Interaction, belief: app_commands.Range[int, 1, 2**53]
    ) -> None:
        """Confirm a belief."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.confirm(campaign, self._gm(interaction), belief)
        await self._say(interaction, "Belief confirmed", belief_lines([shown], gm=True), "")

    @belief.command(name="expose", description="Tell a character their belief is false (GM)")
    @app_commands.describe(belief="The belief's number, as /belief list shows it")
    @gm_only()
    async def expose(
        self, interaction: discord.Interaction, belief: app_commands.Range[int, 1, 2**53]
    ) -> None:
        """Expose a belief as false."""
        campaign = await campaign_here(interaction)
        shown = await self.desk.expose(campaign, self._gm(interaction), belief)
        await self._say(interaction, "Belief exposed", belief_lines([shown], gm=True), "")


async def setup(bot: Lorekeeper) -> None:
    """Register `/belief`."""
    await bot.add_cog(BeliefCommands(bot))
