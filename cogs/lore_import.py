"""`/lore import`, as the GM sees it: the import in the private answer, then the long reading of its prose.

Reading a file into proposals takes one model call a piece (a 124 KiB file: over 300) and may outlast the
interaction's 15 minutes. So with `extract` the reading shows its progress, and then its review card, in a
message of a channel: the GM channel when the server has one (`/server gm-channel`, where GM-only proposals
show), else the channel of the command, where the card is as players see it (the GM gets the rest privately).
A narrator-only (hidden) file is never announced where players read: its reading shows in the GM's private
answer. Every card is remembered for its channel, so `/canon review` there finds it again.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.client import replies
from bot.client.limits import clip
from bot.services.lore_service import LoreImport
from bot.services.review import Review
from bot.services.roster_players import ServerMembers
from canon.campaigns import Campaign
from cogs import canon_cards, lore_import_embeds, progress, review_embeds
from cogs.canon_views import card_content
from cogs.checks import actor_of
from cogs.services import services_of
from memory.knowledge.source_models import ImportProgress, ImportStage

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()


class ImportProgressMessage:
    """Edit the private "thinking…" answer as an import goes on, at most once per `progress.PROGRESS_INTERVAL`."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction
        self.last = float("-inf")

    async def __call__(self, event: ImportProgress) -> None:
        """Show an import's progress (the answer replaces it)."""
        if event.stage == ImportStage.DONE:
            return
        now = time.monotonic()
        if now - self.last < progress.PROGRESS_INTERVAL:
            return
        self.last = now
        await replies.progress(self.interaction, lore_import_embeds.progress_text(event))


@dataclass(frozen=True)
class Destination:
    """Where the reading of a file shows: a channel, and whether only GMs read it."""

    channel: discord.abc.Messageable | None
    gm_only: bool


async def destination(interaction: discord.Interaction, outcome: LoreImport) -> Destination:
    """Return where the reading of an imported file shows (see the module docstring)."""
    services = services_of(interaction)
    guild = interaction.guild
    if guild is not None:
        settings = await services.ops.guild(guild.id)
        if settings.gm_channel_id:
            channel = guild.get_channel(settings.gm_channel_id)
            if isinstance(channel, discord.abc.Messageable):
                return Destination(channel, gm_only=True)
    hidden = outcome.report is not None and outcome.report.source.hidden
    here = interaction.channel
    if hidden or not isinstance(here, discord.abc.Messageable):
        return Destination(None, gm_only=False)
    return Destination(here, gm_only=False)


def reading_text(filename: str, read: int, total: int) -> str:
    """Render the progress of reading an imported file into proposals."""
    return progress.pieces_text(f"📖 Reading `{clip(filename, 150)}` into canon proposals", read, total)


#: Reads the imported file into proposals, telling a `Progress` of each piece.
ReadInto = Callable[[progress.Progress], Awaitable[LoreImport]]


async def read_prose(interaction: discord.Interaction, outcome: LoreImport, read: ReadInto) -> None:
    """Answer the import privately, then read its prose into proposals and show where the card is."""
    assert outcome.report is not None
    where = await destination(interaction, outcome)
    filename = outcome.filename
    status = None
    if where.channel is not None:
        status = await progress.post(where.channel, reading_text(filename, 0, 0))
    note = (
        f"Reading its prose into proposals: {status.jump_url}"
        if status is not None
        else "Reading its prose into proposals; the review card follows here."
    )
    first = await replies.answer(interaction, note, embed=lore_import_embeds.import_embed(outcome.report))
    editor = progress.message_editor(status) if status is not None else private_editor(interaction)
    try:
        result = await read(
            progress.Progress(editor, lambda done, total: reading_text(filename, done, total))
        )
    except BaseException:
        if status is not None:  # the GM hears why (the error handler); the channel, that it stopped
            with contextlib.suppress(discord.HTTPException):
                await status.edit(
                    content=f"📖 The reading of `{clip(filename, 150)}` stopped.", allowed_mentions=NONE
                )
        raise
    text = lore_import_embeds.extraction_text(result.stored, result.pieces, error=result.extraction_error)
    review = result.review
    services = services_of(interaction)
    if status is not None:
        shown = review if review is None or where.gm_only else review_embeds.as_seen(review, reveal=False)
        if shown is None:
            await status.edit(content=text, allowed_mentions=NONE)
        else:
            card = card_content(shown, review_embeds.first_pending_page(shown), reveal=where.gm_only)
            await status.edit(content=text, allowed_mentions=NONE, **card)
        if review is not None:
            await services.reviews.record_card(review, channel_id=status.channel.id, message_id=status.id)
            if not where.gm_only and review.secret:
                await canon_cards.tell_gm_secret_proposals(interaction, review)
        return
    await tell_gm_privately(interaction, text, review, fallback=first)


async def tell_gm_privately(
    interaction: discord.Interaction,
    text: str,
    review: Review | None,
    *,
    fallback: discord.Message | None,
) -> None:
    """Give the GM the reading's result and card privately, while the interaction lives; remember the card
    for the channel either way (`/canon review private:true` there finds it)."""
    services = services_of(interaction)
    message: discord.Message | None = None
    try:
        if review is not None:
            content = card_content(review, review_embeds.first_pending_page(review), reveal=True)
            message = await replies.answer(interaction, text, ephemeral=True, **content)
        else:
            message = await replies.answer(interaction, text, ephemeral=True)
    except discord.HTTPException as error:
        log.info("the GM's answer to an import could not be sent: %s", error)
    shown = message or fallback
    if review is not None and shown is not None and interaction.channel_id is not None:
        await services.reviews.record_card(review, channel_id=interaction.channel_id, message_id=shown.id)


async def import_dialogue(
    interaction: discord.Interaction, campaign: Campaign, filename: str, data: bytes
) -> None:
    """Import a dialogue file into a scene and give the GM, privately, what it did and the scene's card."""
    services = services_of(interaction)
    actor = actor_of(interaction, services.settings.gm_role)
    done = await services.dialogue.import_dialogue(campaign, filename, data, actor)
    scene = done.report.scene
    spoke = (
        f" The NPCs {', '.join(done.npcs)} spoke; they remember it once it is committed." if done.npcs else ""
    )
    waiting = bool(done.review.proposals)
    text = (
        f"📜 `{clip(filename, 150)}`: {done.lines} lines are now scene {scene.story_order}, "
        f"“{clip(scene.title, 150)}”.{spoke} "
        + (
            "Its proposals wait on the card below: nothing becomes canon until you accept them and press "
            "**Commit**."
            if waiting
            else "Nothing to review: the scene is complete."
        )
    )
    await tell_gm_privately(interaction, text, done.review if waiting else None, fallback=None)


def private_editor(interaction: discord.Interaction) -> progress.Edit:
    """Return an `Edit` that shows progress in the GM's private answer (until its token expires)."""

    async def edit(text: str) -> None:
        await interaction.edit_original_response(content=text, allowed_mentions=NONE)

    return edit


async def server_members(guild: discord.Guild | None) -> ServerMembers | None:
    """Return the server's members a roster's `player:` may name (their names and display names)."""
    if guild is None:
        return None
    if not guild.chunked:
        await guild.chunk()
    return ServerMembers.of(
        (m.id, m.display_name, (m.name, m.global_name or "", m.nick or ""))
        for m in guild.members
        if not m.bot
    )
