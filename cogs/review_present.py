"""The review card's "Only those present" button: what it says, and what the GM reads after pressing it.

The button itself is one of `cogs.canon_views.ProposalButton`'s actions (`lk:proposal:{id}:present`); this
module calls the one service (`bot.services.present_marks.PresentMarks`) and words its answer.
"""

from __future__ import annotations

import discord

from canon.models import Authority
from canon.proposals import Proposal
from canon.wording import Wording, describe
from cogs.checks import actor_of
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
    # A player's proposal stays on the public card as they wrote it (`canon.visibility.proposal_hidden`).
    where = (
        "The players still see it on the card, as its proposer wrote it"
        if proposal.authority == Authority.PLAYER
        else "It is off the public card now: /canon review private:true shows it to you"
    )
    return (
        f"{about} is now GM-only and known only to those present: once committed, {who}. "
        f"{where}; its button “{UNMARK_LABEL}” there undoes it."
    )
