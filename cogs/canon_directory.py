"""`/canon list [type] [filter]`: a paged, searchable directory of what canon knows, and entity cards that link on.

Custom ids (`DynamicItem` templates, registered with the canon extension, so they survive a restart):

    lk:dir:{page}:{prev|next}:{type}:{filter}     another page of the same listing
    lk:open                                       a select of entities (by id): opens the picked one's card

Every click reads canon again as the clicker may see it: a player never gets a GM-only entity, not as a line,
a count or a page. The listing and the cards are private answers.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.client import limits
from bot.services.directory import MAX_FILTER, DirectoryPage
from canon.errors import InvalidInput
from canon.models import NOW, EntityCard, Viewer
from canon.visibility import Knowing, visible_views
from canon.wording import PLAIN, Wording
from canon.wording.proposals import type_words
from cogs import entity_embeds, submitted
from cogs.canon_options import entity_types, lens_of, viewer_of
from cogs.embeds import COLOUR, MessageContent, clip
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.secret_marks import GM_KEY, LOCK, gm_lock
from cogs.services import services_of

NONE = discord.AllowedMentions.none()
_KIND = 30


def directory_embed(page: DirectoryPage, viewer: Viewer) -> discord.Embed:
    """Render one page of the directory: names and types, GM-only ones marked for the GM."""
    what = f"{page.kind} entries" if page.kind else "Everything canon knows"
    title = what + (f" matching “{page.text}”" if page.text else "")
    embed = discord.Embed(title=clip(title, limits.EMBED_TITLE), colour=COLOUR)
    # A player reads what their character knows as plain knowledge: no lock (`cogs.secret_marks`).
    lines = [
        (f"{LOCK} " if gm_lock(viewer, entry.hidden) else "")
        + f"{discord.utils.escape_markdown(entry.name)} · {entry.type}"
        for entry in page.entries
    ]
    embed.description = "\n".join(lines) if lines else empty_words(page)
    footer = f"Page {page.page + 1} of {page.pages} · pick one below to open its card"
    if viewer == Viewer.GM:
        footer += f" · {GM_KEY}"
    embed.set_footer(text=footer)
    return embed


def empty_words(page: DirectoryPage) -> str:
    """Return what an empty page says: nothing matches the words given, or canon has nothing of the kind yet."""
    if page.text:
        return f"Nothing canon knows matches “{page.text}”: try a word of a name, or leave the filter empty."
    if page.kind:
        return f"Canon knows no {type_words(page.kind)} yet: it fills as the story goes on."
    return "Nothing here yet: canon fills as the story goes on."


class DirectoryButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:dir:(?P<page>[0-9]{1,5}):(?P<way>prev|next):(?P<kind>[A-Za-z0-9_]{0,30}):(?P<text>.{0,40})",
):
    """Show another page of a directory listing."""

    def __init__(self, page: int, way: str, kind: str, text: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if way == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:dir:{page}:{way}:{kind[:_KIND]}:{text[:MAX_FILTER]}",
                disabled=disabled,
                row=1,
            )
        )
        self.page, self.kind, self.text = page, kind, text

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DirectoryButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["page"]), match["way"], match["kind"], match["text"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Edit the listing in place to show the page, as the clicker may see it."""

        async def work() -> None:
            content = await listing(interaction, self.kind or None, self.text or None, self.page)
            await interaction.response.edit_message(**content)

        await guarded(interaction, work)


class OpenEntity(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"lk:open"):
    """Open the card of a picked entity (from a directory page or an entity card's relations)."""

    def __init__(self, options: list[discord.SelectOption] | None = None, *, placeholder: str = "") -> None:
        super().__init__(
            discord.ui.Select(
                custom_id="lk:open",
                placeholder=placeholder or "Open a card",
                options=options or [discord.SelectOption(label="-", value="0")],
                row=0,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> OpenEntity:
        """Rebuild the select from its custom id."""
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        """Answer privately with the picked entity's card (as the clicker may see it)."""

        async def work() -> None:
            values = submitted.picked(interaction)
            if not values or not values[0].isdigit():
                raise InvalidInput("Pick an entry from the list.")
            campaign = await campaign_here(interaction)
            viewer = viewer_of(interaction)
            queries = services_of(interaction).queries
            lens = await lens_of(interaction, campaign)
            card, words = await queries.worded_card(campaign, f"#{values[0]}", viewer=viewer, knowing=lens)
            await interaction.response.send_message(
                ephemeral=True, allowed_mentions=NONE, **card_content(card, viewer, words, lens)
            )

        await guarded(interaction, work)


DYNAMIC_ITEMS = (DirectoryButton, OpenEntity)


def card_content(
    card: EntityCard, viewer: Viewer, words: Wording = PLAIN, knowing: Knowing | None = None
) -> MessageContent:
    """Return an entity card's embed and, when it has related entities the viewer may see, the select of them."""
    content: MessageContent = {
        "embed": entity_embeds.entity_card_embed(card, viewer=viewer, as_of=NOW, words=words, knowing=knowing)
    }
    related: dict[int, str] = {}
    for relation in visible_views(card.relations, viewer, knowing):
        other = relation.object if relation.subject.id == card.entity.id else relation.subject
        if other is not None and other.id != card.entity.id:
            related.setdefault(other.id, f"{other.name} · {other.type}")
    if related:
        view = discord.ui.View(timeout=None)
        options = [
            discord.SelectOption(label=clip(label, limits.SELECT_OPTION_TEXT), value=str(entity_id))
            for entity_id, label in list(related.items())[: limits.SELECT_OPTIONS]
        ]
        view.add_item(OpenEntity(options, placeholder="Open the card of someone or something related"))
        content["view"] = view
    return content


async def listing(
    interaction: discord.Interaction, kind: str | None, text: str | None, page: int
) -> MessageContent:
    """Return the embed and controls of a directory page, read as the user may see canon."""
    campaign = await campaign_here(interaction)
    viewer = viewer_of(interaction)
    lens = await lens_of(interaction, campaign)
    found = await services_of(interaction).directory.page(
        campaign, viewer, kind=kind, text=text, page=page, knowing=lens
    )
    view = discord.ui.View(timeout=None)
    if found.entries:
        options = [
            discord.SelectOption(
                label=clip(e.name, limits.SELECT_OPTION_TEXT), value=str(e.id), description=e.type
            )
            for e in found.entries
        ]
        view.add_item(OpenEntity(options, placeholder="Open a card"))
    if found.pages > 1:
        kind_id, text_id = found.kind or "", found.text or ""
        view.add_item(
            DirectoryButton(max(0, found.page - 1), "prev", kind_id, text_id, disabled=found.page == 0)
        )
        view.add_item(
            DirectoryButton(
                min(found.pages - 1, found.page + 1),
                "next",
                kind_id,
                text_id,
                disabled=found.page >= found.pages - 1,
            )
        )
    return {"embed": directory_embed(found, viewer), "view": view}


def attach(group: app_commands.Group) -> None:
    """Add `/canon list` to the canon command group."""

    @group.command(
        name="list", description="Browse the people, places, factions, items and events canon knows"
    )
    @app_commands.describe(
        type="Only this type (its kinds included), like Person or Location", filter="Part of a name"
    )
    @app_commands.autocomplete(type=entity_types)
    async def list_entities(
        interaction: discord.Interaction,
        type: app_commands.Range[str, 1, _KIND] | None = None,
        filter: app_commands.Range[str, 1, MAX_FILTER] | None = None,
    ) -> None:
        """Answer privately with the first page of the directory."""
        await interaction.response.send_message(
            ephemeral=True, allowed_mentions=NONE, **await listing(interaction, type, filter, 0)
        )
