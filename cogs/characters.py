"""`/character claim|list|switch|set|release`: who plays which character.

Thin adapter: each command calls one `CharacterDesk` method and renders the answer. A claim is posted in the
channel with Approve and Refuse buttons for a GM (`cogs.character_views`); `set` and `release` are the GM's. A
member who leaves the server plays nothing more: their characters keep what they know for their next player.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.services.characters import CharacterDesk, Member
from canon.knowledge.characters import CharacterLink, LinkStatus
from cogs import character_views
from cogs.canon_options import Name, character_names
from cogs.checks import IN_SERVERS, actor_of, gm_only
from cogs.embeds import COLOUR, clip
from cogs.places import campaign_here

NONE = discord.AllowedMentions.none()


def member_of(user: discord.abc.User) -> Member:
    """Return a Discord user as the desk knows them."""
    return Member(id=user.id, name=user.display_name)


def roster_lines(links: list[CharacterLink]) -> list[str]:
    """Return one line per character or claim, in plain words."""
    lines = []
    for link in links:
        if link.status == LinkStatus.ASKED:
            lines.append(f"• {link.character}: {link.member_name} asked to play it (waiting for a GM)")
        else:
            active = " (active)" if link.active else ""
            lines.append(f"• {link.character}: played by {link.member_name}{active}")
    return lines


async def my_characters(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest the characters the user plays."""
    if interaction.guild is None:
        return []
    desk: CharacterDesk = interaction.client.services.characters  # type: ignore[attr-defined]
    campaign = await campaign_here(interaction)
    links = await desk.roster(campaign, member_id=interaction.user.id)
    typed = current.strip().casefold()
    names = dict.fromkeys(n.character for n in links if n.status == LinkStatus.PLAYS)
    return [
        app_commands.Choice(name=clip(n, 100), value=clip(n, 100)) for n in names if typed in n.casefold()
    ][:25]


class CharacterCommands(commands.Cog):
    """Player characters and their players."""

    character = app_commands.Group(
        name="character",
        description="Who plays which character",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.desk: CharacterDesk = bot.services.characters

    async def _say(self, interaction: discord.Interaction, text: str, *, ephemeral: bool = True) -> None:
        await interaction.response.send_message(text, ephemeral=ephemeral, allowed_mentions=NONE)

    @character.command(name="claim", description="Ask the GM to play a character")
    @app_commands.describe(name="The character you want to play")
    @app_commands.autocomplete(name=character_names)
    async def claim(self, interaction: discord.Interaction, name: Name) -> None:
        """Post a claim with buttons for a GM."""
        campaign = await campaign_here(interaction)
        link = await self.desk.claim(campaign, name, member_of(interaction.user))
        await interaction.response.send_message(allowed_mentions=NONE, **character_views.claim_content(link))

    @character.command(name="list", description="Who plays which character, and the claims waiting")
    async def list_characters(self, interaction: discord.Interaction) -> None:
        """Show the roster."""
        campaign = await campaign_here(interaction)
        lines = roster_lines(await self.desk.roster(campaign))
        embed = discord.Embed(title="Characters", colour=COLOUR)
        embed.description = clip(
            "\n".join(lines) or "Nobody plays a character yet: `/character claim` asks the GM for one.", 4000
        )
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)

    @character.command(name="switch", description="Play another of your characters")
    @app_commands.describe(name="One of the characters you play")
    @app_commands.autocomplete(name=my_characters)
    async def switch(self, interaction: discord.Interaction, name: Name) -> None:
        """Make one of the user's characters the active one."""
        campaign = await campaign_here(interaction)
        link = await self.desk.switch(campaign, name, member_of(interaction.user))
        await self._say(
            interaction, f"You now play {link.character}: your lore and cards show what they know."
        )

    @character.command(name="set", description="Give a character to a player (GM)")
    @app_commands.describe(name="The character", player="The player who plays it")
    @app_commands.autocomplete(name=character_names)
    @gm_only()
    async def set_character(
        self, interaction: discord.Interaction, name: Name, player: discord.Member
    ) -> None:
        """Link a member to a character."""
        campaign = await campaign_here(interaction)
        gm = actor_of(interaction, self.bot.services.settings.gm_role)
        link = await self.desk.assign(campaign, name, member_of(player), gm)
        active = " It is their active character." if link.active else ""
        await self._say(interaction, f"{link.member_name} plays {link.character} now.{active}")

    @character.command(name="release", description="Take a character back from a player (GM)")
    @app_commands.describe(name="The character", player="The player who plays it")
    @app_commands.autocomplete(name=character_names)
    @gm_only()
    async def release(self, interaction: discord.Interaction, name: Name, player: discord.Member) -> None:
        """Unlink a member from a character; the character keeps what it knows."""
        campaign = await campaign_here(interaction)
        gm = actor_of(interaction, self.bot.services.settings.gm_role)
        link = await self.desk.release(campaign, name, member_of(player), gm)
        await self._say(
            interaction,
            f"{link.member_name} no longer plays {link.character}; {link.character} keeps what they know.",
        )

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A member left the server (or was removed): their characters are theirs no more, with all they know."""
        if not payload.user.bot:
            await self.desk.member_left(payload.guild_id, payload.user.id)


async def setup(bot: Lorekeeper) -> None:
    """Register `/character` and the claim card's buttons."""
    await bot.add_cog(CharacterCommands(bot))
    bot.add_dynamic_items(*character_views.DYNAMIC_ITEMS)


async def teardown(bot: Lorekeeper) -> None:
    """Forget the claim card's buttons."""
    bot.remove_dynamic_items(*character_views.DYNAMIC_ITEMS)
