"""Commit a review card: write its accepted proposals, then bring every card of its scene (or the clicked card of
an import batch) to the final state.

Nothing is written without the GM seeing it: Commit waits until the GM decided the GM-only proposals on a private
card (it shows that card, privately, and says which). A commit closes every card of its scene: the public ones
(recorded in the database) and the GM's private ones this process showed (`cogs.review_common.PrivateCards`).

The Commit buttons are `cogs.canon_views`', which passes in what this module draws: the card (`card_content`), the
button that confirms a commit past undecided proposals, and the closed controls (that module holds this one's
buttons, so it cannot be imported from here).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

from bot.services.canon_service import CommitOutcome
from bot.services.review import Review
from canon.campaigns import Campaign
from canon.errors import NotAllowed
from cogs import canon_embeds, review_embeds
from cogs.checks import actor_of
from cogs.embeds import counted
from cogs.recaps import post_recap
from cogs.review_common import (
    Card,
    asked_first,
    check_guild,
    close_private,
    remember_private,
    reveals,
    waiting_note,
)
from cogs.services import services_of
from memory.scenes import SceneStatus

log = logging.getLogger(__name__)


async def commit(
    interaction: discord.Interaction,
    scene_id: int,
    *,
    confirmed: bool = False,
    draw: Card,
    confirm: discord.ui.Item[Any],
    closed: Callable[[int], discord.ui.View],
) -> None:
    """Commit a scene's review, then bring this card and every other card of the scene to the final state.

    While a GM-only proposal is undecided nothing is committed: the GM gets the private card, picked on it.
    While others are undecided, the GM is first asked, privately, with a Commit button of its own (`confirm`,
    so a restart between the two presses changes nothing) that commits past them. `draw` draws a card,
    `confirm` is that Commit button and `closed` draws a closed card's controls (`cogs.canon_views`').
    """
    services = services_of(interaction)
    if interaction.guild_id is None:  # pragma: no cover - review cards live in a server's channels
        raise NotAllowed("Review cards live in a server's channels.")
    review = await services.reviews.review(scene_id)
    check_guild(interaction, review)
    waiting = review.hidden_undecided()
    if waiting and review.scene is not None and review.scene.status != SceneStatus.COMPLETED:
        first = waiting[0].id
        content = draw(review, review_embeds.page_of(review, first), reveal=True, chosen=first)
        await interaction.response.send_message(
            waiting_note(review, waiting),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
            **content,
        )
        remember_private(interaction, review, await interaction.original_response())
        return
    if not confirmed and await asked_first(interaction, review, confirm):
        return
    await interaction.response.defer()  # a big scene's commit may take longer than Discord's 3 s
    actor = actor_of(interaction, services.settings.gm_role)
    outcome = await services.canon.commit_scene(scene_id, actor, guild_id=interaction.guild_id)
    findings, heard = outcome.result.findings, outcome.heard
    settled = outcome.result.overridden().keys()  # accepted with the GM's reason: nothing left open
    clicked = interaction.message
    reveal = reveals(clicked)
    # Players read the public cards: no word of a conflict that touches GM-only canon there.
    await interaction.edit_original_response(
        content=None,
        embed=review_embeds.committed_embed(
            outcome.review,
            findings if reveal else heard,
            reveal=reveal,
            committed_by=actor.name,
            accepted=settled,
        ),
        view=closed(scene_id),
    )
    unheard = len(findings) - len(heard)
    if unheard and not reveal:
        await interaction.followup.send(
            f"{canon_embeds.WARN} {counted(unheard, 'continuity conflict')} touching GM-only canon "
            f"{'was' if unheard == 1 else 'were'} recorded too; "
            "see `/canon conflicts`.",
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
    public = review_embeds.committed_embed(
        outcome.review, heard, reveal=False, committed_by=actor.name, accepted=settled
    )
    await _close_public(interaction, outcome, public, lambda: closed(scene_id))
    private = review_embeds.committed_embed(
        outcome.review, findings, reveal=True, committed_by=actor.name, accepted=settled
    )
    await close_private(
        interaction.client,
        scene_id,
        {"embed": private, "view": closed(scene_id)},
        skip=clicked.id if clicked is not None else None,
    )
    if outcome.review.scene is not None:
        await post_recap(interaction.client, scene_id, outcome.review.scene.channel_id)


async def _close_public(
    interaction: discord.Interaction,
    outcome: CommitOutcome,
    embed: discord.Embed,
    closed: Callable[[], discord.ui.View],
) -> None:
    """Bring the scene's public cards (recorded in the database), but the clicked one, to the final state."""
    clicked = interaction.message
    for card in outcome.cards:
        if clicked is not None and card.message_id == clicked.id:
            continue
        try:
            message = interaction.client.get_partial_messageable(card.channel_id).get_partial_message(
                card.message_id
            )
            await message.edit(embed=embed, view=closed())
        except discord.HTTPException:  # a deleted card, or a channel we lost: the commit stands anyway
            log.warning("could not close review card %s", card.message_id, exc_info=True)


async def commit_batch(
    interaction: discord.Interaction,
    campaign: Campaign,
    batch: str,
    *,
    closed: Callable[[Review], discord.ui.View],
) -> None:
    """Commit an import batch's accepted proposals and bring the clicked card to its final state (`closed`
    draws its closed controls, `cogs.canon_views`')."""
    services = services_of(interaction)
    await interaction.response.defer()
    actor = actor_of(interaction, services.settings.gm_role)
    outcome = await services.canon.commit_batch(campaign, batch, actor)
    reveal = reveals(interaction.message)
    findings = outcome.result.findings if reveal else outcome.heard
    await interaction.edit_original_response(
        embed=review_embeds.committed_embed(
            outcome.review,
            findings,
            reveal=reveal,
            committed_by=actor.name,
            accepted=outcome.result.overridden().keys(),
        ),
        view=closed(outcome.review),
        allowed_mentions=discord.AllowedMentions.none(),
    )
