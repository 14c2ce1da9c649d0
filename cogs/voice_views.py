"""The narration's Context button: GM only, holds the narration id, survives restarts.

Custom id: `lk:narration:{narration_id}:context` (a `DynamicItem`, registered when the voice extension loads).
A click re-checks that the user is a GM of the narration's campaign and answers ephemerally with the exact
prompt and context the narration was written from, as a Markdown file.
"""

from __future__ import annotations

import io
import re
from typing import Any

import discord

from canon.errors import NotAllowed
from cogs import voice_embeds
from cogs.checks import require_gm
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.services import services_of

NONE = discord.AllowedMentions.none()


class NarrationContextButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:narration:(?P<id>[0-9]{1,19}):context",
):
    """Show the GM what a narration was written from."""

    def __init__(self, narration_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Context",
                emoji="🔍",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:narration:{narration_id}:context",
            )
        )
        self.narration_id = narration_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> NarrationContextButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Send the narration's context to the GM, ephemerally."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            if interaction.guild is None:
                raise NotAllowed("This narration belongs to another server's campaign.")
            campaign = await campaign_here(interaction, allow_abandoned=True)
            record = await services.voice.narration(campaign, self.narration_id)
            data = voice_embeds.narration_context_text(record).encode("utf-8")
            await interaction.response.send_message(
                f"Narration #{record.id}: the exact prompt and the context chosen (and dropped).",
                file=discord.File(io.BytesIO(data), filename=f"narration-{record.id}-context.md"),
                ephemeral=True,
                allowed_mentions=NONE,
            )

        await guarded(interaction, work)


def narration_view(narration_id: int) -> discord.ui.View:
    """Return the view posted under a narration: its Context button."""
    view = discord.ui.View(timeout=None)
    view.add_item(NarrationContextButton(narration_id))
    return view
