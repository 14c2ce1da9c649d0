"""`/canon reveal`, `/canon unreveal` and `/canon known`: who knows what of the GM's hidden canon.

An extension of its own that adds three commands to the `/canon` group of `cogs.canon` (load it after that one).
Thin: each calls one `KnowledgeDesk` method (`bot.services.knowledge`) and answers privately in plain words.
Revealing and undoing are the GM's; `known` shows the GM everyone's knowledge (or one character's) and a player
what their own active character knows.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.client.client import Lorekeeper
from bot.services.knowledge import KnownItem
from canon.errors import GameError
from canon.models import Viewer
from cogs.canon_options import (
    MAX_CHOICES,
    Choices,
    Name,
    Text,
    campaign_of,
    date_choices,
    entity_names,
    fact_names,
    played_characters,
)
from cogs.checks import actor_of, gm_only
from cogs.embeds import COLOUR, clip
from cogs.places import campaign_here
from cogs.services import services_of
from cogs.subcommands import add_to_group, remove_from_group

NONE = discord.AllowedMentions.none()


def known_lines(items: list[KnownItem], *, gm: bool) -> list[str]:
    """Return one line per reveal: what, who (for the GM), since when, and (GM) whether undone."""
    lines = []
    for item in items:
        text = f"• {item.what} ({item.since})"
        if gm:
            text = f"• {item.said} ({item.since}) — {item.reveal.reason}"
            if item.reveal.undone_at is not None:
                text = f"~~{text}~~ undone by {item.reveal.undone_by}"
        lines.append(text)
    return lines


async def standing_reveals(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the standing reveals (GM) whose words start with or hold what is typed; each shows its words
    and sends back its handle, which `/canon unreveal` understands as it does the words."""
    services = services_of(interaction)
    asker = actor_of(interaction, services.settings.gm_role)
    if not asker.is_gm:
        return []
    try:
        campaign = await campaign_of(interaction)
        items = await services.reveals.known(campaign, asker, standing=True) if campaign else []
    except GameError:
        return []
    typed = current.casefold().split()
    fits = [i for i in items if all(w in i.said.casefold() for w in typed)]
    return [
        app_commands.Choice(name=clip(i.said, 100), value=f"reveal {i.reveal.id}") for i in fits[:MAX_CHOICES]
    ]


def known_embed(title: str, lines: list[str], empty: str) -> discord.Embed:
    """Return a list of reveals as an embed."""
    embed = discord.Embed(title=clip(title, 256), colour=COLOUR)
    embed.description = clip("\n".join(lines) or empty, 4000)
    return embed


@app_commands.command(name="reveal", description="Let characters learn a hidden fact or entity (GM)")
@app_commands.describe(
    to="Who learns it: characters separated by commas, “the party” or “those present” (this scene's)",
    reason="How they learn it (a letter, an overheard talk): kept as evidence",
    fact="The fact: type some of its words (like “Duke spy”) and pick it from the list",
    entity="A hidden entity: they learn who or what it is",
    source="A hidden source's title: its passages answer their /lore questions",
    from_date="From when they know it, on the campaign's calendar (default: the scene's date)",
)
@app_commands.autocomplete(fact=fact_names, entity=entity_names, to=played_characters, from_date=date_choices)
@gm_only()
async def reveal(
    interaction: discord.Interaction,
    to: Name,
    reason: Text,
    fact: Name | None = None,
    entity: Name | None = None,
    source: Name | None = None,
    from_date: app_commands.Range[str, 1, 100] | None = None,
) -> None:
    """Record that characters know something hidden, with the reason and the scene."""
    services = services_of(interaction)
    campaign = await campaign_here(interaction)
    fact_id = await services.facts.pick(campaign, fact, viewer=Viewer.GM) if fact else None
    items = await services.reveals.reveal(
        campaign,
        actor_of(interaction, services.settings.gm_role),
        to=to,
        reason=reason,
        fact=fact_id,
        entity=entity,
        source=source,
        from_date=from_date,
        channel_id=interaction.channel_id,
    )
    embed = known_embed("Revealed", known_lines(items, gm=True), "Nothing was revealed.")
    embed.set_footer(text="Undo one with /canon unreveal, picking it by its words; it stays in the history.")
    await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)


@app_commands.command(name="unreveal", description="Undo a reveal: the character no longer knows it (GM)")
@app_commands.describe(
    reveal="The reveal: type some of its words (like “Sable heir”) and pick it from the list",
    reason="Why it is undone",
)
@app_commands.autocomplete(reveal=standing_reveals)
@gm_only()
async def unreveal(interaction: discord.Interaction, reveal: Name, reason: Text) -> None:
    """Undo a reveal, keeping it in the history."""
    services = services_of(interaction)
    campaign = await campaign_here(interaction)
    gm = actor_of(interaction, services.settings.gm_role)
    item = await services.reveals.undo(
        campaign, await services.reveals.pick(campaign, gm, reveal), gm, reason
    )
    text = f"Undone: {item.who} no longer knows {item.what}. The reveal stays in the history, marked undone."
    await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NONE)


@app_commands.command(name="known", description="What characters know of hidden canon (yours, for a player)")
@app_commands.describe(character="GM: one character (leave out for everyone); players see their own")
@app_commands.autocomplete(character=played_characters)
async def known(interaction: discord.Interaction, character: Name | None = None) -> None:
    """List reveals: the GM's of everyone or one character, a player's of their active character."""
    services = services_of(interaction)
    campaign = await campaign_here(interaction)
    asker = actor_of(interaction, services.settings.gm_role)
    items = await services.reveals.known(  # the GM reads the history, undone reveals struck through
        campaign, asker, character=character if asker.is_gm else None, standing=not asker.is_gm
    )
    if asker.is_gm:
        title = f"What {character} knows" if character else "Who knows what"
        empty = "Nothing hidden has been revealed yet: `/canon reveal` lets characters learn something."
    else:
        active = await services.characters.active(campaign, interaction.user.id)
        title = f"What {active.character if active else 'your character'} knows beyond public canon"
        empty = "Nothing beyond public canon yet."
    lines = known_lines(items, gm=asker.is_gm)
    await interaction.response.send_message(
        embed=known_embed(title, lines, empty), ephemeral=True, allowed_mentions=NONE
    )


COMMANDS: tuple[app_commands.Command[Any, Any, None], ...] = (reveal, unreveal, known)


async def setup(bot: Lorekeeper) -> None:
    """Add the knowledge commands to the `/canon` group (cogs.canon must be loaded first)."""
    add_to_group(bot, "canon", COMMANDS, extension="cogs.knowledge", owner="cogs.canon")


async def teardown(bot: Lorekeeper) -> None:
    """Take the knowledge commands away again."""
    remove_from_group(bot, "canon", COMMANDS)
