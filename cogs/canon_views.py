"""The review card's buttons and the rationale modal: they hold ids only and survive a restart.

Custom ids (each a `DynamicItem` template, registered when the extension loads in `setup_hook`):

    lk:proposal:{proposal_id}:accept | reject          decide one proposal
    lk:review:{scene_id}:accept_all                    accept every pending proposal without warnings
    lk:review:{scene_id}:commit                        write the accepted ones and close the review
    lk:review:{scene_id}:page:{page}:prev | next       show another page of the card
    lk:rationale:{proposal_id}                         the modal asking why a warned proposal is accepted
    lk:reject:{proposal_id}                            the modal asking (optionally) why one is rejected
    lk:batch:{campaign_id}:{action}:{batch}            the same controls for an import batch (no scene):
                                                       action accept_all | commit | page:{page}:prev|next

Every click re-reads the review from the database, re-checks that the user is a GM (an ephemeral refusal
otherwise) and edits the card in place. A decision the service refuses (a double click, two GMs at once, a
click after the commit) is answered ephemerally and changes nothing. Reject always asks for a rationale,
which may be left empty; Accept asks for one only when the proposal raises warnings. The modals are answered
by a listener on their custom ids (`submit_rationale`), not by the Modal object, so a modal opened before a
restart still works.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import discord

from bot.client import limits
from bot.client.client import user_message_for
from bot.client.replies import reply_ephemeral
from bot.services.canon_service import ANOTHER_SERVER, Review
from canon.campaigns import Campaign
from canon.errors import InvalidInput, NotAllowed
from canon.proposals import ProposalStatus, describe
from cogs import canon_embeds
from cogs.checks import actor_of, require_gm
from cogs.embeds import clip
from memory.scenes import SceneStatus

if TYPE_CHECKING:
    from bot.app import Services

log = logging.getLogger(__name__)

RATIONALE_MODAL = re.compile(r"lk:(?P<action>rationale|reject):(?P<id>[0-9]{1,19})")
RATIONALE_FIELD = "lk:rationale:text"
_ROWS_FOR_PROPOSALS = 4  # the fifth row holds paging, Accept all and Commit


def services_of(interaction: discord.Interaction) -> Services:
    """Return the services of the bot that received an interaction."""
    return cast("Services", interaction.client.services)  # type: ignore[attr-defined]


async def guarded(interaction: discord.Interaction, work: Callable[[], Awaitable[None]]) -> None:
    """Run a button's work; tell the user ephemerally about refusals (and log anything unexpected)."""
    try:
        await work()
    except Exception as error:
        text, _ = user_message_for(error)
        try:
            await reply_ephemeral(interaction, text)
        except discord.HTTPException:
            log.warning("could not tell the user about an error", exc_info=True)


def _reveals(message: discord.Message | None) -> bool:
    """Return whether a card may show GM-only proposals: only on an ephemeral card the GM asked for."""
    return bool(message is not None and message.flags.ephemeral)


def _check_guild(interaction: discord.Interaction, review: Review) -> None:
    if review.scene is not None and review.scene.guild_id not in (None, interaction.guild_id):
        raise NotAllowed(ANOTHER_SERVER)


async def _check_campaign(interaction: discord.Interaction, campaign_id: int) -> Campaign:
    """Return the campaign of a card, or refuse when it is not one of this server's campaigns."""
    guild = interaction.guild
    if guild is None:
        raise NotAllowed(ANOTHER_SERVER)
    # Any campaign of this server's tree: a promotion card of the parent may sit in a branch's channel.
    try:
        return await services_of(interaction).campaigns.of_guild(campaign_id, guild.id, guild.name)
    except NotAllowed:
        raise NotAllowed(ANOTHER_SERVER) from None


def _gm(interaction: discord.Interaction) -> None:
    require_gm(interaction, services_of(interaction).settings.gm_role)


# -- the buttons ----------------------------------------------------------------------------------------


class ProposalButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:proposal:(?P<id>[0-9]{1,19}):(?P<action>accept|reject)",
):
    """Accept or reject one proposal."""

    def __init__(
        self,
        proposal_id: int,
        accept: bool,
        *,
        row: int | None = None,
        warned: bool = False,
        number: int | None = None,
    ) -> None:
        # The label names the proposal by its number on the card, never by its id (ids have gaps).
        label = ("Accept" if accept else "Reject") + (f" #{number}" if number is not None else "")
        label += " ⚠️" if accept and warned else ""
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.danger,
                custom_id=f"lk:proposal:{proposal_id}:{'accept' if accept else 'reject'}",
                row=row,
            )
        )
        self.proposal_id = proposal_id
        self.accept = accept

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ProposalButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"] == "accept")

    async def callback(self, interaction: discord.Interaction) -> None:
        """Decide the proposal (a reject, or an accept despite warnings, asks for a rationale first)."""

        async def work() -> None:
            _gm(interaction)
            services = services_of(interaction)
            proposal = await services.canon.proposal(self.proposal_id)
            await _check_campaign(interaction, proposal.campaign_id)
            if proposal.scene_id is None and proposal.batch is None:
                raise InvalidInput("This proposal is not part of a scene's review.")
            if proposal.status == ProposalStatus.PENDING and (proposal.needs_rationale or not self.accept):
                await interaction.response.send_modal(
                    RationaleModal(
                        self.proposal_id,
                        proposal.warnings,
                        accept=self.accept,
                        about=describe(proposal.content),
                    )
                )
                return
            actor = actor_of(interaction, services.settings.gm_role)
            await services.canon.decide(self.proposal_id, accept=self.accept, actor=actor)
            review = await services.canon.review(
                proposal.scene_id, campaign_id=proposal.campaign_id, batch=proposal.batch
            )
            await show_review(interaction, review, canon_embeds.page_of(review, self.proposal_id))

        await guarded(interaction, work)


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:review:(?P<scene>[0-9]{1,19}):(?P<action>accept_all|commit)",
):
    """Accept all, or Commit, for one scene's review."""

    def __init__(self, scene_id: int, action: str, *, disabled: bool = False, row: int | None = None) -> None:
        labels = {"accept_all": "Accept all", "commit": "Commit"}
        styles = {"accept_all": discord.ButtonStyle.secondary, "commit": discord.ButtonStyle.primary}
        super().__init__(
            discord.ui.Button(
                label=labels[action],
                style=styles[action],
                custom_id=f"lk:review:{scene_id}:{action}",
                disabled=disabled,
                row=row,
            )
        )
        self.scene_id = scene_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReviewButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["scene"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Accept every unwarned pending proposal, or commit the scene."""

        async def work() -> None:
            _gm(interaction)
            if self.action == "commit":
                await commit(interaction, self.scene_id)
                return
            services = services_of(interaction)
            actor = actor_of(interaction, services.settings.gm_role)
            _check_guild(interaction, await services.canon.review(self.scene_id))
            await services.canon.accept_all(self.scene_id, actor)
            review = await services.canon.review(self.scene_id)
            await show_review(interaction, review, canon_embeds.first_pending_page(review))

        await guarded(interaction, work)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:review:(?P<scene>[0-9]{1,19}):page:(?P<page>[0-9]{1,6}):(?P<way>prev|next)",
):
    """Show another page of a review card."""

    def __init__(
        self, scene_id: int, page: int, way: str, *, disabled: bool = False, row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if way == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:review:{scene_id}:page:{page}:{way}",
                disabled=disabled,
                row=row,
            )
        )
        self.scene_id = scene_id
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["scene"]), int(match["page"]), match["way"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the page."""

        async def work() -> None:
            _gm(interaction)
            review = await services_of(interaction).canon.review(self.scene_id)
            _check_guild(interaction, review)
            await show_review(interaction, review, self.page)

        await guarded(interaction, work)


class BatchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"lk:batch:(?P<campaign>[0-9]{1,19}):"
        r"(?P<action>accept_all|commit|page:(?P<page>[0-9]{1,6}):(?P<way>prev|next)):(?P<batch>.{1,60})"
    ),
):
    """Accept all, Commit, or page through the review card of an import batch (proposals without a scene)."""

    def __init__(
        self, campaign_id: int, batch: str, action: str, *, disabled: bool = False, row: int | None = None
    ) -> None:
        page_way = action.split(":")
        labels = {"accept_all": "Accept all", "commit": "Commit", "prev": "◀ Previous", "next": "Next ▶"}
        styles = {"accept_all": discord.ButtonStyle.secondary, "commit": discord.ButtonStyle.primary}
        custom_id = f"lk:batch:{campaign_id}:{action}:{batch}"
        if len(custom_id) > 100:  # pragma: no cover - batch names are short (`extract:{source}:{time}`)
            raise InvalidInput("This batch's name is too long for a review card.")
        super().__init__(
            discord.ui.Button(
                label=labels[page_way[-1]],
                style=styles.get(page_way[0], discord.ButtonStyle.secondary),
                custom_id=custom_id,
                disabled=disabled,
                row=row,
            )
        )
        self.campaign_id = campaign_id
        self.batch = batch
        self.action = page_way[0]
        self.page = int(page_way[1]) if self.action == "page" else 0

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BatchButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["campaign"]), match["batch"], match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Accept every unwarned pending proposal, commit the batch, or show a page."""

        async def work() -> None:
            _gm(interaction)
            campaign = await _check_campaign(interaction, self.campaign_id)
            services = services_of(interaction)
            if self.action == "commit":
                await commit_batch(interaction, campaign, self.batch)
                return
            if self.action == "accept_all":
                actor = actor_of(interaction, services.settings.gm_role)
                await services.canon.accept_all(None, actor, campaign_id=self.campaign_id, batch=self.batch)
            review = await services.canon.review(None, campaign_id=self.campaign_id, batch=self.batch)
            page = self.page if self.action == "page" else canon_embeds.first_pending_page(review)
            await show_review(interaction, review, page)

        await guarded(interaction, work)


DYNAMIC_ITEMS = (ProposalButton, ReviewButton, PageButton, BatchButton)


# -- views ----------------------------------------------------------------------------------------------


def _proposal_buttons(view: discord.ui.View, review: Review, page: int) -> None:
    """Add Accept and Reject for each pending proposal of a page (two proposals a row, rows 0-3)."""
    numbers = canon_embeds.card_numbers(review)
    pending = [p for p in canon_embeds.page_proposals(review, page) if p.status == ProposalStatus.PENDING]
    for index, proposal in enumerate(pending[: _ROWS_FOR_PROPOSALS * 2]):
        row, number = index // 2, numbers[proposal.id]
        view.add_item(
            ProposalButton(proposal.id, True, row=row, warned=proposal.needs_rationale, number=number)
        )
        view.add_item(ProposalButton(proposal.id, False, row=row, number=number))


def review_view(review: Review, page: int) -> discord.ui.View:
    """Return the buttons of one page of a review card: Accept/Reject per pending proposal, then the controls.

    Rows 0-3 hold two pending proposals each (Accept, Reject); row 4 holds paging, Accept all and Commit.
    """
    page = canon_embeds.clamp_page(review, page)
    if review.scene is None:
        return _batch_view(review, page)
    scene_id = review.scene.id
    view = discord.ui.View(timeout=None)
    _proposal_buttons(view, review, page)
    pages = canon_embeds.page_count(review)
    if pages > 1:
        view.add_item(PageButton(scene_id, max(0, page - 1), "prev", disabled=page == 0, row=4))
        view.add_item(
            PageButton(scene_id, min(pages - 1, page + 1), "next", disabled=page >= pages - 1, row=4)
        )
    any_pending = any(p.status == ProposalStatus.PENDING for p in review.proposals)
    view.add_item(ReviewButton(scene_id, "accept_all", disabled=not any_pending, row=4))
    view.add_item(ReviewButton(scene_id, "commit", row=4))
    return view


def _batch_review_ids(review: Review) -> tuple[int, str]:
    assert review.batch is not None and review.proposals, "a batch card needs its batch and proposals"
    return review.proposals[0].campaign_id, review.batch


def _batch_view(review: Review, page: int) -> discord.ui.View:
    """Return the buttons of one page of an import batch's card (as `review_view`, batch controls)."""
    campaign_id, batch = _batch_review_ids(review)
    view = discord.ui.View(timeout=None)
    _proposal_buttons(view, review, page)
    pages = canon_embeds.page_count(review)
    if pages > 1:
        previous, following = max(0, page - 1), min(pages - 1, page + 1)
        view.add_item(BatchButton(campaign_id, batch, f"page:{previous}:prev", disabled=page == 0, row=4))
        view.add_item(
            BatchButton(campaign_id, batch, f"page:{following}:next", disabled=page >= pages - 1, row=4)
        )
    any_pending = any(p.status == ProposalStatus.PENDING for p in review.proposals)
    view.add_item(BatchButton(campaign_id, batch, "accept_all", disabled=not any_pending, row=4))
    view.add_item(BatchButton(campaign_id, batch, "commit", row=4))
    return view


def _batch_closed(review: Review) -> bool:
    """Return whether an import batch is done: nothing in it waits for a decision or a commit."""
    return not any(p.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED} for p in review.proposals)


def _closed_batch_view(review: Review) -> discord.ui.View:
    campaign_id, batch = _batch_review_ids(review)
    view = discord.ui.View(timeout=None)
    view.add_item(BatchButton(campaign_id, batch, "accept_all", disabled=True))
    view.add_item(BatchButton(campaign_id, batch, "commit", disabled=True))
    return view


def closed_view(scene_id: int) -> discord.ui.View:
    """Return the disabled controls of a committed review."""
    view = discord.ui.View(timeout=None)
    view.add_item(ReviewButton(scene_id, "accept_all", disabled=True))
    view.add_item(ReviewButton(scene_id, "commit", disabled=True))
    return view


def card_content(review: Review, page: int, *, reveal: bool) -> dict[str, Any]:
    """Return the embed and view of a card as it stands (open or committed).

    A card players see has no line, count or button for a GM-only proposal (`canon_embeds.as_seen`).
    """
    review = canon_embeds.as_seen(review, reveal=reveal)
    if review.scene is None:  # an import batch
        if _batch_closed(review):
            return {
                "embed": canon_embeds.committed_embed(review, [], reveal=reveal),
                "view": _closed_batch_view(review),
            }
        return {
            "embed": canon_embeds.review_embed(review, page, reveal=reveal),
            "view": _batch_view(review, page),
        }
    if review.scene.status == SceneStatus.COMPLETED:
        return {
            "embed": canon_embeds.committed_embed(review, [], reveal=reveal),
            "view": closed_view(review.scene.id),
        }
    return {
        "embed": canon_embeds.review_embed(review, page, reveal=reveal),
        "view": review_view(review, page),
    }


async def show_review(interaction: discord.Interaction, review: Review, page: int) -> None:
    """Edit the clicked card in place to show a page of the review as it now stands."""
    content = card_content(review, page, reveal=_reveals(interaction.message))
    if interaction.message is None:  # pragma: no cover - component interactions always carry their message
        await interaction.response.send_message(ephemeral=True, **content)
        return
    await interaction.response.edit_message(**content)


async def commit(interaction: discord.Interaction, scene_id: int) -> None:
    """Commit a scene's review, then bring this card and every other posted card to the final state."""
    services = services_of(interaction)
    if interaction.guild_id is None:  # pragma: no cover - review cards live in a server's channels
        raise NotAllowed(ANOTHER_SERVER)
    await interaction.response.defer()  # a big scene's commit may take longer than Discord's 3 s
    actor = actor_of(interaction, services.settings.gm_role)
    outcome = await services.canon.commit_scene(scene_id, actor, guild_id=interaction.guild_id)
    findings, heard = outcome.result.findings, outcome.heard
    clicked = interaction.message
    reveal = _reveals(clicked)
    # Players read the public cards: no word of a conflict that touches GM-only canon there.
    await interaction.edit_original_response(
        embed=canon_embeds.committed_embed(
            outcome.review, findings if reveal else heard, reveal=reveal, committed_by=actor.name
        ),
        view=closed_view(scene_id),
    )
    unheard = len(findings) - len(heard)
    if unheard and not reveal:
        await interaction.followup.send(
            f"{canon_embeds.WARN} {unheard} continuity conflict(s) touching GM-only canon were recorded too; "
            "see `/canon conflicts`.",
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
    public = canon_embeds.committed_embed(outcome.review, heard, reveal=False, committed_by=actor.name)
    for card in outcome.cards:
        if clicked is not None and card.message_id == clicked.id:
            continue
        try:
            message = interaction.client.get_partial_messageable(card.channel_id).get_partial_message(
                card.message_id
            )
            await message.edit(embed=public, view=closed_view(scene_id))
        except discord.HTTPException:  # a deleted card, or a channel we lost: the commit stands anyway
            log.warning("could not close review card %s", card.message_id, exc_info=True)


async def commit_batch(interaction: discord.Interaction, campaign: Campaign, batch: str) -> None:
    """Commit an import batch's accepted proposals and bring the clicked card to its final state."""
    services = services_of(interaction)
    await interaction.response.defer()
    actor = actor_of(interaction, services.settings.gm_role)
    outcome = await services.canon.commit_batch(campaign, batch, actor)
    reveal = _reveals(interaction.message)
    findings = outcome.result.findings if reveal else outcome.heard
    await interaction.edit_original_response(
        embed=canon_embeds.committed_embed(outcome.review, findings, reveal=reveal, committed_by=actor.name),
        view=_closed_batch_view(outcome.review),
        allowed_mentions=discord.AllowedMentions.none(),
    )


# -- the rationale modal --------------------------------------------------------------------------------


class RationaleModal(discord.ui.Modal):
    """Ask the GM why a proposal with continuity warnings is accepted anyway, or (optionally) why one is rejected."""

    def __init__(
        self, proposal_id: int, warnings: Sequence[dict[str, Any]], *, accept: bool = True, about: str = ""
    ) -> None:
        # Titled by what the proposal says, as the card shows it (the card numbers proposals, not by id).
        heading = "Accept despite warnings" if accept else "Reject"
        super().__init__(
            title=clip(f"{heading}: {about}" if about else heading, limits.MODAL_TITLE),
            custom_id=f"lk:{'rationale' if accept else 'reject'}:{proposal_id}",
            timeout=900,
        )
        first = next(iter(warnings), {})
        if accept:
            placeholder = str(first.get("message") or "It breaks continuity.")
        else:
            placeholder = "Optional: it is kept with the rejected proposal. Leave empty to just reject."
        self.add_item(
            discord.ui.Label(
                text="Why accept it anyway?" if accept else "Why reject it? (optional)",
                component=discord.ui.TextInput(
                    custom_id=RATIONALE_FIELD,
                    style=discord.TextStyle.paragraph,
                    placeholder=clip(placeholder, limits.MODAL_PLACEHOLDER),
                    required=accept,
                    min_length=1 if accept else 0,
                    max_length=1000,
                ),
            )
        )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Leave the answer to `submit_rationale`, which also works after a restart."""


def _field_value(components: Any, custom_id: str) -> str | None:
    if isinstance(components, dict):
        if components.get("custom_id") == custom_id and "value" in components:
            return str(components["value"])
        return _field_value(list(components.values()), custom_id)
    if isinstance(components, list):
        for item in components:
            found = _field_value(item, custom_id)
            if found is not None:
                return found
    return None


async def submit_rationale(
    interaction: discord.Interaction, proposal_id: int, *, accept: bool = True
) -> None:
    """Accept (a warned proposal) or reject one with the GM's rationale from the modal; update the card."""

    async def work() -> None:
        _gm(interaction)
        services = services_of(interaction)
        data = cast("dict[str, Any]", interaction.data or {})
        rationale = (_field_value(data.get("components", []), RATIONALE_FIELD) or "").strip() or None
        await _check_campaign(interaction, (await services.canon.proposal(proposal_id)).campaign_id)
        actor = actor_of(interaction, services.settings.gm_role)
        proposal = await services.canon.decide(proposal_id, accept=accept, actor=actor, rationale=rationale)
        if (proposal.scene_id is None and proposal.batch is None) or interaction.message is None:
            await reply_ephemeral(
                interaction, f"{'Accepted' if accept else 'Rejected'} proposal #{proposal_id}."
            )
            return
        review = await services.canon.review(
            proposal.scene_id, campaign_id=proposal.campaign_id, batch=proposal.batch
        )
        await show_review(interaction, review, canon_embeds.page_of(review, proposal_id))

    await guarded(interaction, work)
