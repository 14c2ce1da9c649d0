"""`/wiki`: a personal link to the campaign wiki, privately; `/wiki revoke:` makes links stop working.

The link is signed for the person and the campaign of the channel (a branch's channel: the branch's own world),
expires, and shows what its holder may see through the bot: a player through their character's lens, the GM
everything with the GM-only parts marked. The bot's process serves the wiki when `wiki.enabled` is set (this cog
starts and stops it); with `wiki.base_url` alone, links point at a wiki served elsewhere (`lorekeeper wiki
serve`).
"""

from __future__ import annotations

import logging
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.wiki.server import WikiServer
from canon.errors import InvalidInput, NotAllowed
from canon.models import Viewer
from cogs.canon_options import viewer_of
from cogs.checks import is_gm
from cogs.places import campaign_here
from cogs.services import services_of

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()
MINE, EVERYONE = "my links", "everyone's links"
OFF = "The campaign wiki is not switched on for this bot: whoever runs the bot can turn it on."


def link_message(campaign: str, url: str, days: float, *, gm: bool) -> str:
    """Return the private answer carrying a personal link (in angle brackets: Discord shows no preview)."""
    sees = (
        "everything, the GM-only parts marked 🔒"
        if gm
        else "what you may see through the bot, as your character knows it"
    )
    return (
        f"Your personal link to the **{discord.utils.escape_markdown(campaign)}** wiki (it shows {sees}):\n"
        f"<{url}>\n"
        f"It works for {days:g} days. Keep it to yourself: whoever holds it reads what you may read. "
        "`/wiki revoke:my links` makes it stop working."
    )


class WikiCommands(commands.Cog):
    """The campaign wiki's links; the wiki's server in the bot's process when it is switched on."""

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.server: WikiServer | None = None

    async def cog_load(self) -> None:
        """Start serving the wiki when the settings switch it on (a failure is logged; the bot runs on)."""
        settings = self.bot.services.settings.wiki
        if not settings.enabled:
            return
        server = WikiServer(self.bot.services.wiki)
        try:
            await server.start()
        except OSError as error:
            log.error("the wiki cannot listen on %s:%s: %s", settings.host, settings.port, error.strerror)
            return
        self.server = server
        log.info(
            "the campaign wiki is served on %s:%s (%s)", settings.host, server.port, settings.public_url()
        )

    async def cog_unload(self) -> None:
        """Stop serving the wiki."""
        if self.server is not None:
            await self.server.stop()
            self.server = None

    @app_commands.command(name="wiki", description="Get your personal link to the campaign wiki (privately)")
    @app_commands.describe(revoke="Make links stop working: yours, or (GM) everyone's")
    @app_commands.guild_only()
    async def wiki(
        self, interaction: discord.Interaction, revoke: Literal["my links", "everyone's links"] | None = None
    ) -> None:
        """Answer privately with a personal wiki link, or revoke links."""
        services = services_of(interaction)
        settings = services.settings.wiki
        campaign = await campaign_here(interaction)
        viewer = viewer_of(interaction)
        links = services.wiki.links
        if revoke == EVERYONE:
            if viewer != Viewer.GM:
                raise NotAllowed(
                    "Only the GM may revoke everyone's wiki links; `/wiki revoke:my links` revokes yours."
                )
            await links.revoke_everyone(campaign.id)
            text = "Every wiki link to this campaign stops working now, the GM's too. Anyone may ask for a new one with `/wiki`."
        elif revoke == MINE:
            await links.revoke(campaign.id, interaction.user.id)
            text = "Your wiki links to this campaign stop working now. Ask for a new one with `/wiki`."
        else:
            if not (settings.enabled or settings.base_url):
                raise InvalidInput(OFF)
            token = await links.issue(campaign.id, interaction.user.id, gm=viewer == Viewer.GM)
            text = link_message(campaign.name, links.url(token), settings.link_days, gm=viewer == Viewer.GM)
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NONE)

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A member left the server (or was removed): their wiki links to its campaigns stop working."""
        if not payload.user.bot:
            await self.bot.services.wiki.links.member_left(payload.guild_id, payload.user.id)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        """A member lost the GM role (or the rights that make a GM): their GM wiki links stop working."""
        gm_role = self.bot.services.settings.gm_role
        if not after.bot and is_gm(before, gm_role) and not is_gm(after, gm_role):
            await self.bot.services.wiki.links.gm_role_lost(after.guild.id, after.id)


async def setup(bot: Lorekeeper) -> None:
    """Register `/wiki` (and serve the wiki when it is switched on)."""
    await bot.add_cog(WikiCommands(bot))
