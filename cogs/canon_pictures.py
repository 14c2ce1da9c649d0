"""`/canon tree <person or lineage>` and the picture of `/canon timeline` (no name, or an era's name).

An extension of its own that adds `tree` to the `/canon` group of `cogs.canon` (load it after that one) and
gives `cogs.canon`'s timeline command the picture to send. Thin: resolve the campaign and the viewer, call
`bot.services.pictures.PictureService`, attach the PNG. Replies are ephemeral, like every canon lookup: a GM's picture
may show GM-only people and events, a player's never does. When the campaign wiki is on, the reply carries a line
to the same picture at full size there, through the person's own link.
"""

from __future__ import annotations

import io

import discord
from discord import app_commands

from bot.client import limits, replies
from bot.client.client import Lorekeeper
from bot.services.pictures import PictureService
from bot.wiki.html import name_path
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.models import Viewer
from canon.render import Picture
from cogs import canon_options
from cogs.canon_options import entity_names
from cogs.checks import guild_only_message
from cogs.embeds import COLOUR, clip
from cogs.services import services_of
from cogs.subcommands import add_to_group, remove_from_group

NONE = discord.AllowedMentions.none()


def pictures_of(interaction: discord.Interaction) -> PictureService:
    """Return the picture service of the bot answering the interaction."""
    return services_of(interaction).pictures


async def _campaign(interaction: discord.Interaction) -> Campaign:
    campaign = await canon_options.campaign_of(interaction)
    if campaign is None:
        raise InvalidInput(guild_only_message())
    return campaign


async def full_size_line(interaction: discord.Interaction, campaign: Campaign, path: str) -> str | None:
    """Return the line pointing to the picture at full size on the campaign wiki, through the person's own link
    (a GM's shows all, a player's what they may see), or None when the wiki is off."""
    wiki = services_of(interaction).wiki
    if not (wiki.settings.enabled or wiki.settings.base_url):  # served here, or by `lorekeeper wiki serve`
        return None
    gm = canon_options.viewer_of(interaction) == Viewer.GM
    token = await wiki.links.issue(campaign.id, interaction.user.id, gm=gm)
    return (
        f"[Open it at full size on the wiki]({wiki.links.url(token)}{path}) (your own link: do not share it)."
    )


async def send_picture(
    interaction: discord.Interaction, picture: Picture, filename: str, *, full_size: str | None = None
) -> None:
    """Send a picture as an ephemeral reply with the PNG attached (the interaction must be deferred), with
    the line to the picture at full size on the wiki when there is one."""
    embed = discord.Embed(
        title=clip(picture.title, limits.EMBED_TITLE),
        colour=COLOUR,
        description=full_size,
    )
    embed.set_image(url=f"attachment://{filename}")
    await replies.answer(
        interaction, embed=embed, file=discord.File(io.BytesIO(picture.png), filename=filename)
    )


async def send_timeline(interaction: discord.Interaction, era: str | None) -> None:
    """Answer `/canon timeline` with the picture of the whole timeline, or of one era."""
    campaign = await _campaign(interaction)
    viewer = canon_options.viewer_of(interaction)
    if not interaction.response.is_done():
        await replies.think(interaction)
    lens = await canon_options.lens_of(interaction, campaign)
    picture = await pictures_of(interaction).timeline(campaign, era, viewer=viewer, knowing=lens)
    line = await full_size_line(interaction, campaign, "timeline")
    await send_picture(interaction, picture, "timeline.png", full_size=line)


async def names_an_era(interaction: discord.Interaction, name: str) -> bool:
    """Tell whether `/canon timeline <name>` names an era (a picture) rather than an entity (a list)."""
    campaign = await _campaign(interaction)
    viewer: Viewer = canon_options.viewer_of(interaction)
    return await pictures_of(interaction).is_era(campaign, name, viewer=viewer)


@app_commands.command(name="tree", description="Draw the family tree of a person or a lineage")
@app_commands.describe(
    name="A person (with ancestors and descendants) or a lineage (all its members)",
    generations="How many generations up and down from a person (default 3)",
)
@app_commands.autocomplete(name=entity_names)
async def tree(
    interaction: discord.Interaction,
    name: app_commands.Range[str, 1, 200],
    generations: app_commands.Range[int, 1, 6] = 3,
) -> None:
    """Draw a family tree: generations in rows, spouses side by side, parents joined to children."""
    campaign = await _campaign(interaction)
    viewer = canon_options.viewer_of(interaction)
    await replies.think(interaction)
    picture = await pictures_of(interaction).family_tree(
        campaign,
        name,
        viewer=viewer,
        up=generations,
        down=generations,
        knowing=await canon_options.lens_of(interaction, campaign),
    )
    path = f"tree/{name_path(picture.subject)}"
    line = await full_size_line(interaction, campaign, path) if picture.subject else None
    await send_picture(interaction, picture, "family-tree.png", full_size=line)


async def setup(bot: Lorekeeper) -> None:
    """Add `/canon tree` to the `/canon` group (cogs.canon must be loaded first)."""
    add_to_group(bot, "canon", [tree], extension="cogs.canon_pictures", owner="cogs.canon")


async def teardown(bot: Lorekeeper) -> None:
    """Take `/canon tree` away again."""
    remove_from_group(bot, "canon", [tree])
