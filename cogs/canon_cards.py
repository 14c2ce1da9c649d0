"""Where review cards go: a public card as a message of the channel, a private one as the GM's answer.

A public card outlives the interaction that asked for it (a channel message, remembered for the commit, which
closes it); the GM's private answer links to it and, when GM-only proposals are left out of it, carries them
on a private card. A private card of an import batch is remembered for its channel, so that `/canon review`
there finds the batch again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.client import replies
from bot.services.review import Review
from canon.errors import InvalidInput
from cogs import review_embeds
from cogs.canon_views import card_content
from cogs.embeds import counted
from cogs.review_common import remember_private
from cogs.services import services_of

if TYPE_CHECKING:
    from bot.app import Services

log = logging.getLogger(__name__)


async def post_public_card(
    channel: discord.abc.Messageable, services: Services, review: Review
) -> discord.Message:
    """Post a review card where everyone sees it, as a message of the channel (it outlives any interaction),
    and remember it for the commit. GM-only proposals are left out without a trace (`review_embeds.as_seen`)."""
    shown = review_embeds.as_seen(review, reveal=False)
    content = card_content(shown, review_embeds.first_pending_page(shown), reveal=False)
    try:
        message = await channel.send(allowed_mentions=discord.AllowedMentions.none(), **content)
    except discord.Forbidden:
        raise InvalidInput(
            "I may not post in this channel: give me Send Messages and Embed Links here, or ask for the card "
            "with `/canon review private:true`."
        ) from None
    await services.reviews.record_card(review, channel_id=message.channel.id, message_id=message.id)
    return message


def secret_note(review: Review) -> str:
    """Return what the GM reads above the private card of the proposals a public card leaves out."""
    n = len(review.secret)
    return f"{counted(n, 'GM-only proposal')} {'is' if n == 1 else 'are'} not on the public card; decide them here."


async def post_review(interaction: discord.Interaction, review: Review, *, private: bool = False) -> None:
    """Answer with a review card: privately (GM-only proposals shown), or posted for everyone in the channel.

    A public card is a channel message, linked in the GM's private answer; when it leaves GM-only proposals
    out, that answer carries the private card to decide them. A private card of an import batch is remembered
    for its channel, so that `/canon review` there finds it again.
    """
    services = services_of(interaction)
    if private:
        content = card_content(review, review_embeds.first_pending_page(review), reveal=True)
        message = await replies.answer(interaction, ephemeral=True, **content)
        remember_private(interaction, review, message)
        if review.scene is None and message is not None and interaction.channel_id is not None:
            await services.reviews.record_card(
                review, channel_id=interaction.channel_id, message_id=message.id
            )
        return
    channel = interaction.channel
    if not isinstance(channel, discord.abc.Messageable):
        raise InvalidInput("Review cards are posted in a server's text channels.")
    message = await post_public_card(channel, services, review)
    posted = f"The review card is posted for everyone here: [open the review]({message.jump_url})."
    if review.secret:
        content = card_content(review, review_embeds.first_pending_page(review), reveal=True)
        message = await replies.answer(
            interaction, f"{posted}\n{secret_note(review)}", ephemeral=True, **content
        )
        remember_private(interaction, review, message)
        return
    await replies.answer(interaction, posted, ephemeral=True)


async def tell_gm_secret_proposals(interaction: discord.Interaction, review: Review) -> None:
    """Give the GM the private card of the proposals a public card left out, while the interaction lives.

    Past its 15 minutes the GM finds them with `/canon review private:true` in the channel.
    """
    content = card_content(review, review_embeds.first_pending_page(review), reveal=True)
    try:
        message = await replies.answer(interaction, secret_note(review), ephemeral=True, **content)
        remember_private(interaction, review, message)
    except discord.HTTPException as error:
        log.info(
            "could not give the GM the private card of review %s: %s", review.scene or review.batch, error
        )
