"""The answers to the review card's modals (`cogs.review_modals`): a decision with the GM's rationale, or an edit.

Answered by custom id from `cogs.canon.CanonCommands.on_interaction`, so a modal opened before a restart works.
"""

from __future__ import annotations

import discord

from bot.client import limits
from canon.errors import GameError
from canon.models import Viewer
from canon.wording import Wording, describe
from cogs import review_embeds
from cogs.canon_views import show_review
from cogs.checks import actor_of
from cogs.embeds import clip
from cogs.review_common import check_campaign, edited_note, gm, guarded, review_of
from cogs.review_modals import RATIONALE_FIELD, SHOW_REASON, edit_changes, typed_back
from cogs.services import services_of
from cogs.submitted import modal_values, text_value


async def submit_modal(interaction: discord.Interaction, action: str, proposal_id: int) -> None:
    """Answer a submitted modal (`cogs.review_modals`): decide with the GM's rationale, or apply an edit."""

    async def work() -> None:
        gm(interaction)
        services = services_of(interaction)
        values = modal_values(interaction)
        proposal = await services.reviews.proposal(proposal_id)
        campaign = await check_campaign(interaction, proposal.campaign_id)
        actor = actor_of(interaction, services.settings.gm_role)
        words = Wording(calendar=(await services.calendars.calendar(campaign, Viewer.GM)).words())
        if action == "edit":  # its dates were shown in the calendar's words: an untouched one changes nothing
            changes = edit_changes(proposal, values, words.calendar)
            try:
                proposal = await services.reviews.revise(proposal_id, changes, accept_as=actor)
            except GameError as error:  # a form cannot be shown again: what was typed goes back in words
                raise type(error)(error.message + typed_back(changes)) from error
            done = edited_note(proposal, words, changed=bool(changes))
        else:
            accept = action == "rationale"
            rationale = (text_value(interaction, RATIONALE_FIELD) or "").strip() or None
            shown = "public" in (values.get(SHOW_REASON) or ())
            proposal = await services.reviews.decide(
                proposal_id, accept=accept, actor=actor, rationale=rationale, rationale_public=shown
            )
            done = f"{'Accepted' if accept else 'Rejected'}: {describe(proposal.content, words)}."
        if (proposal.scene_id is None and proposal.batch is None) or interaction.message is None:
            await interaction.response.send_message(
                clip(done, limits.MESSAGE), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )
            return
        review = await review_of(interaction, proposal)
        await show_review(interaction, review, review_embeds.page_of(review, proposal_id), proposal_id)
        if action == "edit":  # the card shows the outcome; the GM reads in words what happened
            await interaction.followup.send(
                clip(done, limits.MESSAGE), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )

    await guarded(interaction, work)
