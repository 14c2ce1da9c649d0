"""`/canon conflicts`' second message: Canon sources that disagree, both places, and a button per side.

Custom id (a `DynamicItem` template, registered with the canon extension):

    lk:srcdis:{key}:{side}      the GM picks the source that prevails (key: the disagreement's handle)

Every click re-checks that the user is a GM (an ephemeral refusal otherwise) and reads the disagreements of the
campaign this channel plays in, so one of another campaign is never found. Open ones come first; a settled one
says which source prevails and why (the GM's pick, or the campaign's source order set with `/lore order`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord

from bot.client.limits import fit_lines
from cogs.checks import actor_of, require_gm
from cogs.embeds import DONE_COLOUR, WARNING_COLOUR, MessageContent, clip, escape
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.services import services_of
from memory.knowledge.disagreement_admin import Judged

__all__ = ["DYNAMIC_ITEMS", "DisagreementButton", "content", "embed_of"]

NONE = discord.AllowedMentions.none()
_SHOWN = 5  # one row of buttons each
_SIDES = 4
_DESCRIPTION = 4000


def _block(number: int, judged: Judged) -> str:
    d = judged.disagreement
    lines = [f"**{number}. {escape(clip(d.subject, 80))}: {escape(clip(d.label, 60))}**"]
    for side in d.sides:
        mark = " ✅ prevails" if judged.prevailing is not None and side == judged.prevailing else ""
        lines.append(f"• “{escape(clip(side.value, 150))}” in {escape(clip(side.place, 150))}{mark}")
    if judged.prevailing is None:
        lines.append("Open: nothing is guessed until you pick the source that prevails.")
    return "\n".join(lines)


def embed_of(found: Sequence[Judged]) -> discord.Embed:
    """Render the disagreements between Canon sources, open ones first, each with both places."""
    ordered = sorted(found, key=lambda j: not j.open)
    opened = sum(1 for j in found if j.open)
    embed = discord.Embed(
        title=f"Canon sources that disagree: {opened} open, {len(found) - opened} settled",
        colour=WARNING_COLOUR if opened else DONE_COLOUR,
    )
    blocks = [_block(n, j) for n, j in enumerate(ordered, 1)]
    blocks.append(
        "Pick the source that prevails with its button, or set an order for every disagreement with "
        "`/lore order` (highest first). Answers then give the prevailing source and say the other disagrees."
    )
    embed.description = fit_lines(blocks, _DESCRIPTION)
    return embed


def view_of(found: Sequence[Judged]) -> discord.ui.View:
    """Return a row of buttons for each of the first disagreements: one per source that may prevail."""
    view = discord.ui.View(timeout=None)
    ordered = sorted(found, key=lambda j: not j.open)
    for row, judged in enumerate(ordered[:_SHOWN]):
        for index, side in enumerate(judged.disagreement.sides[:_SIDES]):
            view.add_item(DisagreementButton(judged.disagreement.key, index, label=side.filename, row=row))
    return view


def content(found: Sequence[Judged]) -> MessageContent:
    """Return what the disagreements message shows: its embed and its buttons."""
    return {"embed": embed_of(found), "view": view_of(found)}


class DisagreementButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:srcdis:(?P<key>[0-9a-f]{16}):(?P<side>[0-9]{1,2})",
):
    """Pick the source that prevails in one disagreement."""

    def __init__(self, key: str, side: int, *, label: str = "", row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=clip(f"{label} prevails", 80) if label else "This source prevails",
                style=discord.ButtonStyle.primary,
                custom_id=f"lk:srcdis:{key}:{side}",
                row=row,
            )
        )
        self.key, self.side = key, side

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DisagreementButton:
        """Rebuild the button from its custom id."""
        return cls(match["key"], int(match["side"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Keep the GM's pick and show the disagreements as they now stand."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            campaign = await campaign_here(interaction)
            desk = services.knowledge.disagreements
            found = {j.disagreement.key: j for j in await desk.find(campaign.id)}
            judged = found.get(self.key)
            sides = judged.disagreement.sides if judged is not None else ()
            filename = sides[self.side].filename if self.side < len(sides) else ""
            actor = actor_of(interaction, services.settings.gm_role)
            await desk.decide(campaign.id, self.key, filename, actor.name)
            await interaction.response.edit_message(
                allowed_mentions=NONE, **content(await desk.find(campaign.id))
            )

        await guarded(interaction, work)


DYNAMIC_ITEMS = (DisagreementButton,)
