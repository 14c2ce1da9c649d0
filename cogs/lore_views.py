"""The buttons of a `/lore` answer (**Sources** and the GM's "Why these?": each holds a retrieval-record id only
and survives a restart) and the GM's confirmation of a YAML import that replaces earlier files.

Custom ids (`DynamicItem` templates, registered when the extension loads):

    lk:lore:src:{retrieval_id}      show the numbered sources (passages, canon facts) of a stored answer
    lk:lore:why:{retrieval_id}      show the retrieval inspector (scores and reasons) of a stored answer: GM only
    lk:lore:replace:{token}         import the held files, replacing the earlier ones (GM only; the upload is
                                    held in memory for 15 minutes, so after a restart the GM imports again)

A click re-reads the stored answer from the database, checks that it belongs to this server's campaign and that
the clicker asked it (or is a GM), and shows it ephemerally as the clicker may see it: a player never sees a
hidden source or GM-only canon, even in an answer a GM asked. Scores and reasons are the GM's: a player's answer
carries no "Why these?" button, and a player's click on one is refused.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from canon.errors import NotAllowed
from canon.models import Viewer
from cogs import lore_answer_embeds, lore_embeds, lore_import_embeds
from cogs.canon_options import lens_of
from cogs.checks import actor_of, is_gm, require_gm
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.services import services_of

NONE = discord.AllowedMentions.none()
NOT_YOURS = "Only the one who asked (or a GM) can open the sources of this answer."
GM_ONLY = "The scores and reasons behind an answer are for the GM. Press **Sources** to read the passages."


class WhyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:lore:why:(?P<id>[0-9]{1,19})",
):
    """Show the scores and reasons behind a stored answer."""

    def __init__(self, retrieval_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Why these?",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:lore:why:{retrieval_id}",
            )
        )
        self.retrieval_id = retrieval_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> WhyButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the retrieval inspector to a GM, ephemerally."""

        async def work() -> None:
            services = services_of(interaction)
            guild = interaction.guild
            if guild is None:
                raise NotAllowed("This answer belongs to another server's campaign.")
            if not is_gm(interaction.user, services.settings.gm_role):
                raise NotAllowed(GM_ONLY)
            campaign = await campaign_here(interaction, allow_abandoned=True)
            viewer = Viewer.GM
            record = await services.knowledge.get_retrieval(campaign.id, self.retrieval_id, viewer=viewer)
            await interaction.response.send_message(
                embed=lore_embeds.why_embed(record, viewer=viewer), ephemeral=True, allowed_mentions=NONE
            )

        await guarded(interaction, work)


class SourcesButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:lore:src:(?P<id>[0-9]{1,19})",
):
    """Show the numbered sources behind a stored answer."""

    def __init__(self, retrieval_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Sources",
                style=discord.ButtonStyle.primary,
                custom_id=f"lk:lore:src:{retrieval_id}",
            )
        )
        self.retrieval_id = retrieval_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SourcesButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the sources ephemerally, as the clicker may see them (a GM's own answer: the GM and its asker)."""

        async def work() -> None:
            services = services_of(interaction)
            if interaction.guild is None:
                raise NotAllowed("This answer belongs to another server's campaign.")
            campaign = await campaign_here(interaction, allow_abandoned=True)
            gm = is_gm(interaction.user, services.settings.gm_role)
            viewer = Viewer.GM if gm else Viewer.PLAYER
            # Each source is shown as the clicker's own character may read it, whoever asked.
            lens = None if gm else await lens_of(interaction, campaign)
            record = await services.knowledge.get_retrieval(
                campaign.id, self.retrieval_id, viewer=viewer, knowing=lens
            )
            # A player's answer holds only what players may see (a public one is read by the whole table).
            if not gm and record.viewer != Viewer.PLAYER.value and record.asker_id != interaction.user.id:
                raise NotAllowed(NOT_YOURS)
            await interaction.response.send_message(
                embed=lore_answer_embeds.passages_embed(record, viewer=viewer, knowing=lens),
                ephemeral=True,
                allowed_mentions=NONE,
            )

        await guarded(interaction, work)


def answer_view(
    retrieval_id: int | None, *, viewer: Viewer = Viewer.PLAYER, sources: int = 1
) -> discord.ui.View:
    """Return the buttons under an answer: Sources (when it has any to open), and "Why these?" for the GM
    (none when not stored)."""
    view = discord.ui.View(timeout=None)
    if retrieval_id is not None:
        if sources:
            view.add_item(SourcesButton(retrieval_id))
        if viewer == Viewer.GM:
            view.add_item(WhyButton(retrieval_id))
    return view


class ReplaceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:lore:replace:(?P<token>[0-9a-f]{16})",
):
    """Confirm a YAML import that replaces files imported before (GM only)."""

    def __init__(self, token: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Replace and retcon",
                style=discord.ButtonStyle.danger,
                custom_id=f"lk:lore:replace:{token}",
            )
        )
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplaceButton:
        """Rebuild the button from its custom id."""
        return cls(match["token"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Import the held files, replacing the earlier ones, and show what was written."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            campaign = await campaign_here(interaction)
            await interaction.response.defer()
            actor = actor_of(interaction, services.settings.gm_role)
            report = await services.imports.confirm_structured(self.token, campaign, actor)
            names = ", ".join(report.replaced_files) or ", ".join(f.file for f in report.files)
            await interaction.edit_original_response(
                embed=lore_import_embeds.structured_embed(report, names), view=None, allowed_mentions=NONE
            )

        await guarded(interaction, work)


DYNAMIC_ITEMS = (SourcesButton, WhyButton, ReplaceButton)


def replace_view(token: str) -> discord.ui.View:
    """Return the GM's button that confirms a replacing YAML import."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReplaceButton(token))
    return view
