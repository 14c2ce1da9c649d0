"""The claim card's buttons: a GM approves or refuses a player's claim on a character; they survive a restart.

Custom ids (`DynamicItem` templates, registered with the characters extension):

    lk:claim:{link id}:approve | refuse     decide one claim

Every click re-checks that the user is a GM (a player's click is refused ephemerally) and reads the claim of
the campaign this channel plays in, so a claim of another campaign is never found.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from canon.knowledge.characters import CharacterLink, LinkStatus
from cogs.checks import actor_of, require_gm
from cogs.embeds import COLOUR, MessageContent
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.services import services_of

NONE = discord.AllowedMentions.none()


def claim_text(link: CharacterLink) -> str:
    """Return what a claim card says, as the claim now stands."""
    who, name = link.member_name, link.character
    if link.status == LinkStatus.ASKED:
        return f"{who} asks to play {name}. A GM approves or refuses it with the buttons below."
    if link.status == LinkStatus.PLAYS:
        return f"{who} plays {name} now (approved by {link.decided_by or 'the GM'})."
    if link.status == LinkStatus.LEFT:
        return f"{who} left the server; their claim on {name} was withdrawn."
    if link.status == LinkStatus.REFUSED:
        return f"{who}'s claim on {name} was refused by {link.decided_by or 'the GM'}."
    return f"{who} no longer plays {name}."


def claim_content(link: CharacterLink) -> MessageContent:
    """Return a claim card: its words, and its buttons while the claim waits for a GM."""
    embed = discord.Embed(title=f"Claim: {link.character}", description=claim_text(link), colour=COLOUR)
    view = discord.ui.View(timeout=None)
    if link.status == LinkStatus.ASKED:
        view.add_item(ClaimButton(link.id, "approve"))
        view.add_item(ClaimButton(link.id, "refuse"))
    return {"embed": embed, "view": view}


class ClaimButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:claim:(?P<id>[0-9]{1,19}):(?P<action>approve|refuse)",
):
    """Approve or refuse one claim (GM)."""

    def __init__(self, link_id: int, action: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Approve" if action == "approve" else "Refuse",
                style=discord.ButtonStyle.success if action == "approve" else discord.ButtonStyle.danger,
                custom_id=f"lk:claim:{link_id}:{action}",
            )
        )
        self.link_id, self.action = link_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ClaimButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Decide the claim and show the card as it now stands."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            campaign = await campaign_here(interaction)
            link = await services.characters.decide(
                campaign,
                self.link_id,
                approve=self.action == "approve",
                gm=actor_of(interaction, services.settings.gm_role),
            )
            await interaction.response.edit_message(allowed_mentions=NONE, **claim_content(link))

        await guarded(interaction, work)


DYNAMIC_ITEMS = (ClaimButton,)
