"""The review card's "Only those present" button: what it says, and what the GM reads after pressing it.

The button itself is one of `cogs.canon_views.ProposalButton`'s actions (`lk:proposal:{id}:present`); this
module calls the one service (`bot.services.present_marks.PresentMarks`) and words its answer. A marked proposal
is GM-only, a player's own too (`canon.visibility.proposal_hidden`): it leaves the public card whole, and the GM
pressing the button there gets the private card it waits on.
"""

from __future__ import annotations

import discord

from bot.services.review import Review
from canon.proposals import Proposal
from canon.wording import Wording, describe
from cogs import review_embeds
from cogs.checks import actor_of
from cogs.review_common import Card, Show, remember_private, reveals, review_of
from cogs.services import services_of

NO_PINGS = discord.AllowedMentions.none()
PRESENT_LABEL = "Only those present"
UNMARK_LABEL = "Take the mark off"


def _names(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


async def toggle_present(interaction: discord.Interaction, proposal: Proposal, words: Wording) -> str:
    """Mark (or unmark) a proposal known only to those present; return what the GM reads, privately."""
    services = services_of(interaction)
    mark = await services.marks.toggle(proposal.id, actor_of(interaction, services.settings.gm_role))
    about = f"“{describe(proposal.content, words)}”"
    if not mark.marked:
        return (
            f"{about} is no longer marked: it stays GM-only, and nobody learns it at the commit. "
            "Edit it or propose it again to make it public."
        )
    who = (
        f"{_names(mark.characters)} will know it from this scene on"
        if mark.characters
        else "nobody who spoke in this scene plays a character yet, so nobody will learn it unless one does"
    )
    return (
        f"{about} is now GM-only and known only to those present: once committed, {who}. "
        "It is off the public card now and waits on your private card, whose button "
        f"“{UNMARK_LABEL}” takes the mark off."
    )


async def press_present(
    interaction: discord.Interaction, proposal: Proposal, review: Review, show: Show, card: Card
) -> None:
    """Toggle the mark, edit the clicked card, and tell the GM privately; pressed on the public card, which
    no longer shows the proposal, the answer carries the GM's private card with it picked."""
    note = await toggle_present(interaction, proposal, review.words)
    review = await review_of(interaction, proposal)
    page = review_embeds.page_of(review, proposal.id)
    await show(interaction, review, page)
    if reveals(interaction.message):
        await interaction.followup.send(note, ephemeral=True, allowed_mentions=NO_PINGS)
        return
    private = card(review, page, reveal=True, chosen=proposal.id)
    message = await interaction.followup.send(
        note, ephemeral=True, allowed_mentions=NO_PINGS, wait=True, **private
    )
    remember_private(interaction, review, message)
