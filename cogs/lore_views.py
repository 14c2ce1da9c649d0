"""The "Why these?" button of a `/lore` answer: it holds a retrieval-record id only and survives a restart.

Custom id (a `DynamicItem` template, registered when the extension loads):

    lk:lore:why:{retrieval_id}      show the retrieval inspector of a stored answer

A click re-reads the stored answer from the database, checks that it belongs to this server's campaign and that
the clicker asked it (or is a GM), and shows it ephemerally as the clicker may see it: a player never sees a
hidden source or GM-only canon, even in an answer a GM asked.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from canon.domain import Viewer
from canon.errors import NotAllowed
from cogs import lore_embeds
from cogs.checks import is_gm
from cogs.places import campaign_here
from cogs.review_common import guarded, services_of

NONE = discord.AllowedMentions.none()
NOT_YOURS = "Only the one who asked (or a GM) can open the reasons behind this answer."


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
        """Show the retrieval inspector to the asker (or a GM), ephemerally."""

        async def work() -> None:
            services = services_of(interaction)
            guild = interaction.guild
            if guild is None:
                raise NotAllowed("This answer belongs to another server's campaign.")
            campaign = await campaign_here(interaction, allow_abandoned=True)
            gm = is_gm(interaction.user, services.settings.gm_role)
            viewer = Viewer.GM if gm else Viewer.PLAYER
            record = await services.knowledge.get_retrieval(campaign.id, self.retrieval_id, viewer=viewer)
            if not gm and record.asker_id != interaction.user.id:
                raise NotAllowed(NOT_YOURS)
            await interaction.response.send_message(
                embed=lore_embeds.why_embed(record, viewer=viewer), ephemeral=True, allowed_mentions=NONE
            )

        await guarded(interaction, work)


DYNAMIC_ITEMS = (WhyButton,)


def answer_view(retrieval_id: int | None) -> discord.ui.View:
    """Return the buttons under an answer: "Why these?" (none when the answer was not stored)."""
    view = discord.ui.View(timeout=None)
    if retrieval_id is not None:
        view.add_item(WhyButton(retrieval_id))
    return view
