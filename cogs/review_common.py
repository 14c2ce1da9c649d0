"""What every control of a review card shares: the services, the checks a click passes, and the GM's private cards.

A private card is an ephemeral message: nobody but Discord keeps it, and the bot may edit it only through the
token of an interaction that showed it (for 15 minutes). `PrivateCards` remembers, in this process, the newest
such token of each private card of a scene, so that the commit closes those cards too. One edited after the
token expired, or after a restart, shows the closed review the next time it is clicked.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.client import limits
from bot.client.client import user_message_for
from bot.client.replies import reply_ephemeral
from bot.services.review import ANOTHER_SERVER, Review
from canon.campaigns import Campaign
from canon.errors import InvalidInput, NotAllowed
from canon.gate import kept_when_undecided
from canon.proposals import Proposal, ProposalStatus
from canon.wording import Wording, describe, warning_sentence
from cogs import review_embeds
from cogs.checks import require_gm
from cogs.embeds import MessageContent, clip
from cogs.review_words import not_accepted_note, undecided_note
from cogs.services import services_of
from memory.scenes import SceneStatus

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

#: `cogs.canon_views`' `show_review` and `card_content`, passed in to the modules of its buttons' actions (that
#: module holds their buttons, so they cannot import it).
Show = Callable[[discord.Interaction, Review, int], Awaitable[None]]
Card = Callable[..., MessageContent]


async def guarded(interaction: discord.Interaction, work: Callable[[], Awaitable[None]]) -> None:
    """Run a control's work; tell the user ephemerally about refusals (and log anything unexpected)."""
    try:
        await work()
    except Exception as error:
        text, _ = user_message_for(error)
        try:
            await reply_ephemeral(interaction, text)
        except discord.HTTPException:
            log.warning("could not tell the user about an error", exc_info=True)


def reveals(message: discord.Message | None) -> bool:
    """Return whether a card may show GM-only proposals: only on an ephemeral card the GM asked for."""
    return bool(message is not None and message.flags.ephemeral)


def check_guild(interaction: discord.Interaction, review: Review) -> None:
    """Refuse a click on a card of another server's scene."""
    if review.scene is not None and review.scene.guild_id not in (None, interaction.guild_id):
        raise NotAllowed(ANOTHER_SERVER)


async def check_campaign(interaction: discord.Interaction, campaign_id: int) -> Campaign:
    """Return the campaign of a card, or refuse when it is not one of this server's campaigns."""
    guild = interaction.guild
    if guild is None:
        raise NotAllowed(ANOTHER_SERVER)
    # Any campaign of this server's tree: a promotion card of the parent may sit in a branch's channel.
    try:
        return await services_of(interaction).campaigns.of_guild(campaign_id, guild.id, guild.name)
    except NotAllowed:
        raise NotAllowed(ANOTHER_SERVER) from None


def gm(interaction: discord.Interaction) -> None:
    """Refuse (ephemerally, through `guarded`) anyone but a GM."""
    require_gm(interaction, services_of(interaction).settings.gm_role)


async def review_of(interaction: discord.Interaction, proposal: Proposal) -> Review:
    """Return the review a proposal belongs to, after checking it is one of this server's."""
    services = services_of(interaction)
    await check_campaign(interaction, proposal.campaign_id)
    if proposal.scene_id is None and proposal.batch is None:
        raise InvalidInput("This proposal is not part of a scene's review.")
    return await services.reviews.review(
        proposal.scene_id, campaign_id=proposal.campaign_id, batch=proposal.batch
    )


def focused(review: Review, page: int, chosen: int | None = None) -> Proposal | None:
    """Return the proposal a page's controls act on: the chosen one when pending there, else its first pending."""
    pending = [p for p in review_embeds.page_proposals(review, page) if p.status == ProposalStatus.PENDING]
    return next((p for p in pending if p.id == chosen), pending[0] if pending else None)


def waiting_note(review: Review, waiting: list[Proposal]) -> str:
    """Return what the GM reads when Commit waits for GM-only proposals (shown to the GM alone)."""
    numbers = review_embeds.card_numbers(review)
    listed = "; ".join(
        f"#{numbers[p.id]} {clip(describe(p.content, review.words), 120)}" for p in waiting[:5]
    )
    more = f" and {len(waiting) - 5} more" if len(waiting) > 5 else ""
    return clip(
        f"Nothing was committed yet: {_count(len(waiting))} for your decision ({listed}{more}). "
        "Decide on this private card, then press Commit again.",
        limits.MESSAGE,
    )


async def asked_first(
    interaction: discord.Interaction, review: Review, confirm: discord.ui.Item[Any]
) -> bool:
    """Ask the GM, privately, before a commit drops undecided proposals; return whether it asked.

    Only a scene under review is asked about (a checkpoint drops nothing: undecided proposals wait for the
    scene's end), and only when the policy would drop one (what it keeps loses nothing). `confirm` is the
    button that commits past them: its own custom id, so a restart between the two presses changes nothing.
    """
    undecided = [p for p in review.proposals if p.status == ProposalStatus.PENDING]
    if review.scene is None or review.scene.status != SceneStatus.REVIEW:
        return False
    if all(kept_when_undecided(p, review.policy) for p in undecided):
        return False
    numbers = review_embeds.card_numbers(review)
    ask = discord.ui.View(timeout=None)
    ask.add_item(confirm)
    await interaction.response.send_message(
        undecided_note(
            [
                (numbers[p.id], describe(p.content, review.words), kept_when_undecided(p, review.policy))
                for p in undecided
            ],
            review.policy,
        ),
        view=ask,
        ephemeral=True,
        allowed_mentions=discord.AllowedMentions.none(),
    )
    return True


def edited_note(proposal: Proposal, words: Wording, *, changed: bool = True) -> str:
    """Return what the GM reads after an Edit: accepted (as corrected, or as it was when nothing was changed),
    or still pending because it now needs a reason."""
    about = describe(proposal.content, words)
    if proposal.status == ProposalStatus.REJECTED:  # renamed to an entity canon has: that entity is meant
        return f"Not added: {proposal.rationale}" if proposal.rationale else f"Rejected: {about}."
    if proposal.status == ProposalStatus.ACCEPTED:
        return (
            f"Corrected and accepted: {about}."
            if changed
            else f"Nothing was changed; accepted as it was: {about}."
        )
    asked = next((w for w in proposal.warnings if w.new_attribute and w.suggestions), None)
    if asked is not None and not proposal.needs_rationale:
        close = " or ".join(n.replace("_", " ") for n in asked.suggestions)
        typed = str(getattr(proposal.content, "attribute", "")).replace("_", " ")
        return (
            f"{'Corrected' if changed else 'Nothing was changed'}: {about}. “{typed}” is new to the campaign; "
            f"did you mean {close}? It is still undecided: Edit it again to use that name, or press Accept to "
            f"keep “{typed}” as a new kind of detail."
        )
    return (
        f"{'Corrected' if changed else 'Nothing was changed'}: {about}. It "
        f"{'now conflicts' if changed else 'conflicts'} with canon, so it is still undecided: press Accept and give "
        "a reason to accept it anyway, or Reject it."
    )


def _count(n: int) -> str:
    return "a GM-only proposal waits" if n == 1 else f"{n} GM-only proposals wait"


class PrivateCards:
    """The GM's private review cards of each scene, with the newest interaction webhook that may edit each."""

    def __init__(self) -> None:
        self._cards: dict[int, dict[int, discord.Webhook]] = {}

    def remember(self, scene_id: int, webhook: discord.Webhook, message_id: int) -> None:
        """Remember a private card of a scene (a newer token replaces an older one: it lives longer)."""
        self._cards.setdefault(scene_id, {})[message_id] = webhook

    def take(self, scene_id: int) -> list[tuple[discord.Webhook, int]]:
        """Return and forget the private cards of a scene."""
        return [(hook, message) for message, hook in self._cards.pop(scene_id, {}).items()]


_PRIVATE: weakref.WeakKeyDictionary[discord.Client, PrivateCards] = weakref.WeakKeyDictionary()


def private_cards(client: discord.Client) -> PrivateCards:
    """Return the private cards a bot showed in this process."""
    return _PRIVATE.setdefault(client, PrivateCards())


def remember_private(
    interaction: discord.Interaction, review: Review, message: discord.Message | Any | None
) -> None:
    """Remember an ephemeral card of a scene's review shown through this interaction (others are ignored)."""
    if review.scene is None or message is None or not getattr(message, "id", None):
        return
    private_cards(interaction.client).remember(review.scene.id, interaction.followup, message.id)


async def close_private(
    client: discord.Client, scene_id: int, content: MessageContent, *, skip: int | None = None
) -> None:
    """Bring the private cards of a committed scene to their final state (but `skip`, edited already)."""
    for webhook, message_id in private_cards(client).take(scene_id):
        if message_id == skip:
            continue
        try:
            await webhook.edit_message(
                message_id, content=None, allowed_mentions=discord.AllowedMentions.none(), **content
            )
        except (discord.HTTPException, ValueError):  # its token expired: a click shows it closed
            log.info("could not close private review card %s", message_id, exc_info=True)


async def tell_not_accepted(interaction: discord.Interaction, review: Review, skip: frozenset[int]) -> None:
    """Tell the GM, privately, which proposals Accept all left undecided because they conflict with canon, and
    why (after the card was edited in answer): nothing is skipped without a word. `skip`: those the card hid."""
    left = [
        p
        for p in review.proposals
        if p.status == ProposalStatus.PENDING and p.needs_rationale and p.id not in skip
    ]
    if not left:
        return
    numbers, words = review_embeds.card_numbers(review), review_embeds.review_words(review)
    skipped = [
        (
            numbers[p.id],
            clip(describe(p.content, words), 150),
            warning_sentence(next(w.message for w in p.warnings if not w.new_attribute) or "", words),
        )
        for p in left
    ]
    note = limits.clip(not_accepted_note(skipped), limits.MESSAGE)
    await interaction.followup.send(note, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
