"""`/lore library list | attach | detach | import`: shared library sources, read by many campaigns.

An extension of its own that adds the `library` subgroup to the `/lore` group of `cogs.lore` (load it after that
one). A GM lists what the campaign may read and attaches or detaches it (instant: nothing is copied); a server's
administrator (Manage Server) adds a file to the server's library, for every campaign of the server. The
installation's library, for every server, is the bot operator's: `lorekeeper library import`. Each command
calls one `SharedLibrary` method (`memory.knowledge.library`) and answers privately, in words (no ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

import discord
from discord import app_commands

from bot.client import replies
from bot.client.client import Lorekeeper
from bot.client.limits import fit_lines
from canon.errors import GameError
from cogs import lore_import_embeds
from cogs.attachments import read_attachment
from cogs.checks import gm_only, is_gm
from cogs.embeds import COLOUR, clip, escape
from cogs.places import campaign_here
from cogs.services import services_of
from cogs.subcommands import add_to_group, remove_from_group
from memory.knowledge.library import LibrarySource
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ImportOutcome

NONE = discord.AllowedMentions.none()
T = TypeVar("T")
SourceName = app_commands.Range[str, 1, 500]

library = app_commands.Group(name="library", description="Shared rules and references many campaigns read")


def scope_words(item: LibrarySource) -> str:
    """Return who may read a library source, in words."""
    return "every campaign of this bot" if item.guild_id is None else "this server's campaigns"


def library_line(item: LibrarySource) -> str:
    """Return one library source as a line: title, file, class, who may read it, whether this campaign does."""
    source = item.source
    state = "✅ attached here" if item.attached else "not attached here"
    others = item.campaigns - (1 if item.attached else 0)
    shared = f" · read by {others} other campaign{'s' if others != 1 else ''}" if others > 0 else ""
    return (
        f"**{escape(clip(source.title, 80))}** ({escape(clip(source.filename, 80))}) — "
        f"{source.knowledge_class.label} · for {scope_words(item)} · {state}{shared}"
    )


def library_embed(items: Sequence[LibrarySource]) -> discord.Embed:
    """Render the library sources a campaign may read, attached ones first."""
    embed = discord.Embed(title="Shared library", colour=COLOUR)
    if not items:
        embed.description = (
            "The library is empty. A server administrator adds a file for this server's campaigns with "
            "/lore library import; the bot's host adds one for every campaign with `lorekeeper library import`."
        )
        return embed
    ordered = sorted(items, key=lambda i: (not i.attached, i.source.title.casefold()))
    lines = [library_line(item) for item in ordered]
    lines.append("")
    lines.append("/lore library attach lets this campaign's answers cite one; /lore library detach stops it.")
    embed.description = fit_lines(lines, 4000)
    return embed


def changed_line(item: LibrarySource, attached: bool) -> str:
    """Return the answer to an attach or a detach."""
    name = f"**{escape(clip(item.source.title, 120))}**"
    if attached:
        return f"Attached {name} from the shared library: this campaign's /lore answers cite it from now on."
    return f"Detached {name}: this campaign's answers no longer cite it. It stays in the library."


async def library_names(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest the library sources this campaign may read, to GMs only (a player gets nothing)."""
    services = services_of(interaction)
    if not is_gm(interaction.user, services.settings.gm_role):
        return []
    try:
        campaign = await campaign_here(interaction)
        found = await services.knowledge.library.available(campaign.id)
    except GameError:
        return []
    detaching = interaction.command is not None and interaction.command.name == "detach"
    typed = str(current or "").strip().casefold()
    choices = []
    for item in found:
        if detaching and not item.attached:
            continue
        title, filename = item.source.title, item.source.filename
        if typed and typed not in title.casefold() and typed not in filename.casefold():
            continue
        if len(filename) <= 100:
            choices.append(app_commands.Choice(name=clip(f"{title} ({filename})", 100), value=filename))
    return choices[:25]


class ServerAdminRefusal(app_commands.CheckFailure):
    """A check failure whose message is shown to the user as is (as `cogs.checks.NotGM`)."""


def server_admin_only() -> Callable[[T], T]:
    """Return a check letting only a server administrator (Manage Server) add to the server's library."""

    def predicate(interaction: discord.Interaction) -> bool:
        member = interaction.user
        permissions = getattr(member, "guild_permissions", None)
        if permissions is None or not (permissions.manage_guild or permissions.administrator):
            raise ServerAdminRefusal(
                "Only a server administrator (the Manage Server permission) can add to this server's library: "
                "every campaign of the server reads it. A GM attaches what is there with /lore library attach."
            )
        return True

    return app_commands.check(predicate)


@library.command(name="list", description="The shared library: what this campaign may read, and reads (GM)")
@gm_only()
async def list_library(interaction: discord.Interaction) -> None:
    """List the library sources this campaign may attach, and the attached ones."""
    campaign = await campaign_here(interaction)
    items = await services_of(interaction).knowledge.library.available(campaign.id)
    await interaction.response.send_message(embed=library_embed(items), ephemeral=True, allowed_mentions=NONE)


@library.command(name="attach", description="Let this campaign's answers cite a shared library source (GM)")
@app_commands.describe(source="The library source's title or file name")
@app_commands.autocomplete(source=library_names)
@gm_only()
async def attach(interaction: discord.Interaction, source: SourceName) -> None:
    """Attach a library source to this campaign."""
    campaign = await campaign_here(interaction)
    by = interaction.user.display_name
    item = await services_of(interaction).knowledge.library.attach(campaign.id, source, by=by)
    await interaction.response.send_message(changed_line(item, True), ephemeral=True, allowed_mentions=NONE)


@library.command(
    name="detach", description="Stop this campaign's answers citing a shared library source (GM)"
)
@app_commands.describe(source="The attached library source's title or file name")
@app_commands.autocomplete(source=library_names)
@gm_only()
async def detach(interaction: discord.Interaction, source: SourceName) -> None:
    """Detach a library source from this campaign."""
    campaign = await campaign_here(interaction)
    item = await services_of(interaction).knowledge.library.detach(campaign.id, source)
    await interaction.response.send_message(changed_line(item, False), ephemeral=True, allowed_mentions=NONE)


@library.command(name="import", description="Add a rules file to this server's shared library (server admin)")
@app_commands.describe(
    file="A file of rules or references every campaign of this server may read (no secrets)",
    knowledge_class="reference (default) or inspiration",
)
@app_commands.rename(knowledge_class="class")
@server_admin_only()
async def import_file(
    interaction: discord.Interaction,
    file: discord.Attachment,
    knowledge_class: Literal["reference", "inspiration"] | None = None,
) -> None:
    """Import a file into this server's library."""
    guild = interaction.guild
    assert guild is not None  # the /lore group is guild-only
    services = services_of(interaction)
    services.imports.check_upload(file.filename, file.size)
    await replies.think(interaction)
    data = await read_attachment(file)
    chosen = KnowledgeClass(knowledge_class) if knowledge_class else None
    report = await services.knowledge.library.import_bytes(
        file.filename, data, guild_id=guild.id, knowledge_class=chosen
    )
    note = (
        "It is in this server's shared library: a GM attaches it to a campaign with /lore library attach."
        if report.outcome != ImportOutcome.DUPLICATE
        else None
    )
    await replies.answer(interaction, note, embed=lore_import_embeds.import_embed(report))


async def setup(bot: Lorekeeper) -> None:
    """Add `/lore library` to the `/lore` group (cogs.lore must be loaded first)."""
    add_to_group(bot, "lore", [library], extension="cogs.lore_library", owner="cogs.lore")


async def teardown(bot: Lorekeeper) -> None:
    """Take `/lore library` away again."""
    remove_from_group(bot, "lore", [library])
