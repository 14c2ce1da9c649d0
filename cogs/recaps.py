"""`/recap [scenes]` and the recap a completed scene posts in its channel: the campaign journal, for the table.

A recap is made of what players may read (`bot.recaps`), so it is posted where everyone sees it. The scene's
recap is posted once the scene is complete: by `/endscene` when nothing was proposed, else by the commit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.client.limits import FIELD_VALUE, fit_lines
from bot.services.recaps import PersonalRecap
from cogs.canon_embeds import shrink_to_limit
from cogs.checks import actor_of
from cogs.embeds import COLOUR, clip, escape
from cogs.places import campaign_here
from cogs.services import services_of, services_of_client
from memory.journal import Recap

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()


def recap_lines(recap: Recap) -> list[str]:
    """Return a recap's body as lines: the summary, then what became canon (what a retcon has since taken out
    struck through, with what canon says now), who was there, the turns cited."""
    lines: list[str] = []
    if recap.summary:
        lines.append(escape(recap.summary))
    standing = recap.standing()
    if standing:
        lines.append("**Now part of the story:** " + "; ".join(escape(f) for f in standing))
    elif not recap.summary and not recap.retconned:
        lines.append("Nothing new became part of the story in this scene.")
    if recap.retconned:
        gone = "; ".join(
            f"~~{escape(r.fact)}~~" + (f" → now {escape(r.now)}" if r.now else "") for r in recap.retconned
        )
        told = " The summary tells the scene as it was played." if recap.summary else ""
        lines.append(f"**Since retconned, no longer canon:** {gone}.{told}")
    if recap.present:
        lines.append("**Who was there:** " + ", ".join(escape(p) for p in recap.present))
    for turn in recap.cited:
        lines.append(f"> Turn {turn.number}, {escape(turn.author)}: “{escape(turn.text)}”")
    return lines


def recap_embed(recap: Recap) -> discord.Embed:
    """Render one scene's recap, as the channel reads it once the scene is complete."""
    embed = discord.Embed(
        title=clip(f"Recap of scene {recap.story_order}: {recap.title}", 256), colour=COLOUR
    )
    embed.description = fit_lines(recap_lines(recap), 4000)
    embed.set_footer(text="Kept in the campaign journal: /recap shows the last scenes again.")
    return shrink_to_limit(embed)


def previously_embed(recaps: Sequence[Recap]) -> discord.Embed:
    """Render the last scenes' recaps as a "Previously on…", oldest first."""
    embed = discord.Embed(title="Previously on…", colour=COLOUR)
    if not recaps:
        embed.description = "No scene has been committed yet: the journal is empty. It fills as scenes end."
        return embed
    for recap in recaps[:10]:
        embed.add_field(
            name=clip(f"Scene {recap.story_order}: {recap.title}", 256),
            value=fit_lines(recap_lines(recap), FIELD_VALUE),
            inline=False,
        )
    return shrink_to_limit(embed)


def personal_embed(personal: PersonalRecap) -> discord.Embed:
    """Render a player's own recap: each scene's public recap, then what their character learned in it."""
    embed = discord.Embed(title=clip(f"Previously on… as {personal.character} lived it", 256), colour=COLOUR)
    if not personal.recaps:
        embed.description = "No scene has been committed yet: the journal is empty. It fills as scenes end."
        return embed
    for recap in personal.recaps[:10]:
        lines = recap_lines(recap)
        learned = personal.learned.get(recap.scene_id, [])
        if learned:  # after the summary: a long recap cuts its cited turns first, never this
            lines.insert(
                1 if recap.summary else 0,
                f"**What {escape(personal.character)} learned:** "
                + "; ".join(escape(i.what) for i in learned),
            )
        heard = personal.heard.get(recap.scene_id, [])
        if heard:  # beliefs, each sentence saying it is one
            lines.insert(1 if recap.summary else 0, "**Heard:** " + " ".join(escape(h) for h in heard))
        embed.add_field(
            name=clip(f"Scene {recap.story_order}: {recap.title}", 256),
            value=fit_lines(lines, FIELD_VALUE),
            inline=False,
        )
    embed.set_footer(text="For you alone. Everything your character knows: /canon known.")
    return shrink_to_limit(embed)


async def post_recap(client: discord.Client, scene_id: int, channel_id: int) -> None:
    """Post a completed scene's recap in its channel (a failure is logged: the scene stays committed).

    A scene imported from a dialogue file has no Discord channel (a negative id): its recap is not posted,
    `/recap` reads it like any other."""
    if channel_id <= 0:
        return
    try:
        services = services_of_client(client)
        recap = await services.recaps.recap_scene(scene_id)
        channel = client.get_partial_messageable(channel_id)
        await channel.send(embed=recap_embed(recap), allowed_mentions=NONE)
    except Exception:
        log.warning("could not post the recap of scene %s", scene_id, exc_info=True)


class RecapCommands(commands.Cog):
    """Read the last scenes' recaps again."""

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot

    @app_commands.command(name="recap", description="Post the last scenes' recaps: previously on…")
    @app_commands.describe(
        scenes="How many of the last scenes (1 to 10, default 3)",
        mine="Yes: your own recap, for you alone, with what your character learned in those scenes",
    )
    @app_commands.guild_only()
    async def recap(
        self,
        interaction: discord.Interaction,
        scenes: app_commands.Range[int, 1, 10] = 3,
        mine: bool = False,
    ) -> None:
        """Post "Previously on…" with the recaps of the campaign's last scenes (or show a player their own)."""
        campaign = await campaign_here(interaction)
        services = services_of(interaction)
        if mine:
            asker = actor_of(interaction, services.settings.gm_role)
            personal = await services.recaps.mine(campaign, asker, scenes)
            await interaction.response.send_message(
                embed=personal_embed(personal), ephemeral=True, allowed_mentions=NONE
            )
            return
        recaps = await services.recaps.latest(campaign, scenes)
        await interaction.response.send_message(embed=previously_embed(recaps), allowed_mentions=NONE)


async def setup(bot: Lorekeeper) -> None:
    """Register `/recap`."""
    await bot.add_cog(RecapCommands(bot))
