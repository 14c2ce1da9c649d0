"""The review card's controls: they hold ids only and survive a restart.

Custom ids (each a `DynamicItem` template, registered when the extension loads in `setup_hook`):

    lk:pick                                            pick the proposal of the page to act on (a select)
    lk:proposal:{proposal_id}:accept | reject | edit   act on the picked proposal
    lk:proposal:{proposal_id}:present                  mark it "known only to those present" (or unmark it)
    lk:review:{scene_id}:accept_all                    accept every pending proposal without warnings
    lk:review:{scene_id}:commit                        write the accepted ones and close the review
    lk:review:{scene_id}:page:{page}:prev | next       show another page of the card
    lk:batch:{campaign_id}:{action}:{batch}            the same controls for an import batch (no scene):
                                                       action accept_all | commit | page:{page}:prev|next

A card shows one page of proposals; the select picks one of the page's pending proposals, and Accept, Reject
and Edit act on it (the first pending one until another is picked). Every click re-reads the review from the
database, re-checks that the user is a GM (an ephemeral refusal otherwise) and edits the card in place. A
decision the service refuses (a double click, two GMs at once, a click after the commit) is answered
ephemerally and changes nothing. Reject always asks for a rationale, which may be left empty and is shown to
GMs only; Accept asks for one only when the proposal raises warnings; Edit opens a modal to correct the
proposal (`cogs.review_modals`).

Nothing is decided without the GM seeing it: a public card leaves GM-only proposals out, so its Accept all
leaves them undecided, and Commit waits until the GM decided them on a private card (`cogs.review_commit`, which
closes every card of the scene).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.client import limits
from bot.services.review import Review
from canon.errors import InvalidInput
from canon.proposals import ProposalStatus
from canon.wording import describe
from cogs import review_embeds, submitted
from cogs.checks import actor_of
from cogs.embeds import MessageContent, clip
from cogs.review_commit import commit, commit_batch
from cogs.review_common import (
    check_campaign,
    check_guild,
    focused,
    gm,
    guarded,
    remember_private,
    reveals,
    review_of,
    tell_not_accepted,
)
from cogs.review_modals import RationaleModal, open_edit
from cogs.review_present import PRESENT_LABEL, UNMARK_LABEL, press_present
from cogs.review_words import mark
from cogs.services import services_of
from memory.scenes import SceneStatus

__all__ = ["DYNAMIC_ITEMS", "card_content", "show_review"]

_PICK_ROW, _ACTION_ROW, _CONTROL_ROW = 0, 1, 2


# -- the controls ---------------------------------------------------------------------------------------


class ProposalPick(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"lk:pick"):
    """Pick the proposal of the page that Accept, Reject and Edit act on."""

    def __init__(self, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id="lk:pick",
                placeholder="Pick a proposal to decide or edit",
                options=options or [discord.SelectOption(label="-", value="0")],
                row=_PICK_ROW,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ProposalPick:
        """Rebuild the select from its custom id."""
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        """Show the card with the picked proposal's controls."""

        async def work() -> None:
            gm(interaction)
            values = submitted.picked(interaction)
            if not values or not values[0].isdigit():
                raise InvalidInput("Pick a proposal from the list.")
            proposal = await services_of(interaction).reviews.proposal(int(values[0]))
            review = await review_of(interaction, proposal)
            await show_review(interaction, review, review_embeds.page_of(review, proposal.id), proposal.id)

        await guarded(interaction, work)


class ProposalButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:proposal:(?P<id>[0-9]{1,19}):(?P<action>accept|reject|edit|present)",
):
    """Accept, reject or edit one proposal, or mark it known only to those present."""

    def __init__(
        self,
        proposal_id: int,
        action: str,
        *,
        warned: bool = False,
        number: int | None = None,
        marked: bool = False,
    ) -> None:
        # The label names the proposal by its number on the card, never by its id (ids have gaps).
        present = UNMARK_LABEL if marked else PRESENT_LABEL  # `marked`: pressing again takes the mark off
        label = {"accept": "Accept", "reject": "Reject", "edit": "Edit", "present": present}[action]
        label += (f" #{number}" if number is not None else "") + (
            " ⚠️" if action == "accept" and warned else ""
        )
        styles = {"accept": discord.ButtonStyle.success, "reject": discord.ButtonStyle.danger}
        super().__init__(
            discord.ui.Button(
                label=label,
                style=styles.get(action, discord.ButtonStyle.secondary),
                custom_id=f"lk:proposal:{proposal_id}:{action}",
                row=_ACTION_ROW,
            )
        )
        self.proposal_id = proposal_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ProposalButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Decide the proposal (a reject, or an accept despite warnings, asks for a rationale first), or
        open the modal that edits it."""

        async def work() -> None:
            gm(interaction)
            services = services_of(interaction)
            proposal = await services.reviews.proposal(self.proposal_id)
            review = await review_of(interaction, proposal)
            about = describe(proposal.content, review.words)
            if self.action == "edit":
                await open_edit(interaction, proposal, about)
                return
            if self.action == "present":
                await press_present(interaction, proposal, review, show_review, card_content)
                return
            accept = self.action == "accept"
            if proposal.status == ProposalStatus.PENDING and (proposal.needs_rationale or not accept):
                modal = RationaleModal(
                    self.proposal_id, proposal.warnings, accept=accept, about=about, words=review.words
                )
                await interaction.response.send_modal(modal)
                return
            actor = actor_of(interaction, services.settings.gm_role)
            await services.reviews.decide(self.proposal_id, accept=accept, actor=actor)
            review = await review_of(interaction, proposal)
            await show_review(interaction, review, review_embeds.page_of(review, self.proposal_id))

        await guarded(interaction, work)


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:review:(?P<scene>[0-9]{1,19}):(?P<action>accept_all|commit|confirm)",
):
    """Accept all, or Commit, for one scene's review (`confirm`: Commit again, past undecided proposals)."""

    def __init__(self, scene_id: int, action: str, *, disabled: bool = False) -> None:
        labels = {"accept_all": "Accept all", "commit": "Commit", "confirm": "Commit"}
        styles = {
            "accept_all": discord.ButtonStyle.secondary,
            "commit": discord.ButtonStyle.primary,
            "confirm": discord.ButtonStyle.danger,
        }
        super().__init__(
            discord.ui.Button(
                label=labels[action],
                style=styles[action],
                custom_id=f"lk:review:{scene_id}:{action}",
                disabled=disabled,
                row=_CONTROL_ROW,
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
        """Accept every unwarned pending proposal the card shows, or commit the scene."""

        async def work() -> None:
            gm(interaction)
            if self.action in {"commit", "confirm"}:
                await commit(
                    interaction,
                    self.scene_id,
                    confirmed=self.action == "confirm",
                    draw=card_content,
                    confirm=ReviewButton(self.scene_id, "confirm"),
                    closed=closed_view,
                )
                return
            services = services_of(interaction)
            actor = actor_of(interaction, services.settings.gm_role)
            review = await services.reviews.review(self.scene_id)
            check_guild(interaction, review)
            # A public card's Accept all leaves the GM-only proposals it does not show undecided.
            skip = () if reveals(interaction.message) else review.secret
            await services.reviews.accept_all(self.scene_id, actor, skip=skip)
            review = await services.reviews.review(self.scene_id)
            await show_review(interaction, review, review_embeds.first_pending_page(review))
            await tell_not_accepted(interaction, review, frozenset(skip))

        await guarded(interaction, work)


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:review:(?P<scene>[0-9]{1,19}):page:(?P<page>[0-9]{1,6}):(?P<way>prev|next)",
):
    """Show another page of a review card."""

    def __init__(self, scene_id: int, page: int, way: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Previous" if way == "prev" else "Next ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:review:{scene_id}:page:{page}:{way}",
                disabled=disabled,
                row=_CONTROL_ROW,
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
            gm(interaction)
            review = await services_of(interaction).reviews.review(self.scene_id)
            check_guild(interaction, review)
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

    def __init__(self, campaign_id: int, batch: str, action: str, *, disabled: bool = False) -> None:
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
                row=_CONTROL_ROW,
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
        """Accept every unwarned pending proposal the card shows, commit the batch, or show a page."""

        async def work() -> None:
            gm(interaction)
            campaign = await check_campaign(interaction, self.campaign_id)
            services = services_of(interaction)
            if self.action == "commit":
                await commit_batch(interaction, campaign, self.batch, closed=_closed_batch_view)
                return
            review = await services.reviews.review(None, campaign_id=self.campaign_id, batch=self.batch)
            if self.action == "accept_all":
                actor = actor_of(interaction, services.settings.gm_role)
                skip = () if reveals(interaction.message) else review.secret
                await services.reviews.accept_all(
                    None, actor, campaign_id=self.campaign_id, batch=self.batch, skip=skip
                )
                review = await services.reviews.review(None, campaign_id=self.campaign_id, batch=self.batch)
            page = self.page if self.action == "page" else review_embeds.first_pending_page(review)
            await show_review(interaction, review, page)
            if self.action == "accept_all":
                await tell_not_accepted(interaction, review, frozenset(skip))

        await guarded(interaction, work)


DYNAMIC_ITEMS = (ProposalPick, ProposalButton, ReviewButton, PageButton, BatchButton)


# -- views ----------------------------------------------------------------------------------------------


def _proposal_controls(view: discord.ui.View, review: Review, page: int, chosen: int | None) -> None:
    """Add the select of a page's pending proposals and Accept, Reject and Edit for the picked one."""
    numbers = review_embeds.card_numbers(review)
    pending = [p for p in review_embeds.page_proposals(review, page) if p.status == ProposalStatus.PENDING]
    picked = focused(review, page, chosen)
    if picked is None:
        return
    options = [
        discord.SelectOption(
            label=clip(f"#{numbers[p.id]} {describe(p.content, review.words)}", limits.SELECT_OPTION_TEXT),
            value=str(p.id),
            description=mark(p),
            default=p.id == picked.id,
        )
        for p in pending[: limits.SELECT_OPTIONS]
    ]
    view.add_item(ProposalPick(options))
    number = numbers[picked.id]
    view.add_item(ProposalButton(picked.id, "accept", warned=picked.needs_rationale, number=number))
    view.add_item(ProposalButton(picked.id, "reject", number=number))
    view.add_item(ProposalButton(picked.id, "edit", number=number))
    if review.scene is not None:
        marked = picked.id in review.present
        view.add_item(ProposalButton(picked.id, "present", number=number, marked=marked))


def review_view(review: Review, page: int, chosen: int | None = None) -> discord.ui.View:
    """Return the controls of one page of a review card.

    Row 0: the select of the page's pending proposals; row 1: Accept, Reject and Edit for the picked one
    (`chosen`, or the first pending); row 2: paging, Accept all and Commit.
    """
    page = review_embeds.clamp_page(review, page)
    if review.scene is None:
        return _batch_view(review, page, chosen)
    scene_id = review.scene.id
    view = discord.ui.View(timeout=None)
    _proposal_controls(view, review, page, chosen)
    pages = review_embeds.page_count(review)
    if pages > 1:
        view.add_item(PageButton(scene_id, max(0, page - 1), "prev", disabled=page == 0))
        view.add_item(PageButton(scene_id, min(pages - 1, page + 1), "next", disabled=page >= pages - 1))
    any_pending = any(p.status == ProposalStatus.PENDING for p in review.proposals)
    view.add_item(ReviewButton(scene_id, "accept_all", disabled=not any_pending))
    view.add_item(ReviewButton(scene_id, "commit"))
    return view


def _batch_review_ids(review: Review) -> tuple[int, str]:
    assert review.batch is not None and review.proposals, "a batch card needs its batch and proposals"
    return review.proposals[0].campaign_id, review.batch


def _batch_view(review: Review, page: int, chosen: int | None) -> discord.ui.View:
    """Return the controls of one page of an import batch's card (as `review_view`, batch controls)."""
    campaign_id, batch = _batch_review_ids(review)
    view = discord.ui.View(timeout=None)
    _proposal_controls(view, review, page, chosen)
    pages = review_embeds.page_count(review)
    if pages > 1:
        previous, following = max(0, page - 1), min(pages - 1, page + 1)
        view.add_item(BatchButton(campaign_id, batch, f"page:{previous}:prev", disabled=page == 0))
        view.add_item(BatchButton(campaign_id, batch, f"page:{following}:next", disabled=page >= pages - 1))
    any_pending = any(p.status == ProposalStatus.PENDING for p in review.proposals)
    view.add_item(BatchButton(campaign_id, batch, "accept_all", disabled=not any_pending))
    view.add_item(BatchButton(campaign_id, batch, "commit"))
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


def card_content(review: Review, page: int, *, reveal: bool, chosen: int | None = None) -> MessageContent:
    """Return the embed and view of a card as it stands (open or committed), `chosen` picked when pending.

    A card players see has no line, count or control for a GM-only proposal (`review_embeds.as_seen`).
    """
    review = review_embeds.as_seen(review, reveal=reveal)
    if review.scene is None:  # an import batch
        if _batch_closed(review):
            return {
                "embed": review_embeds.committed_embed(review, [], reveal=reveal),
                "view": _closed_batch_view(review),
            }
        return {
            "embed": review_embeds.review_embed(review, page, reveal=reveal),
            "view": _batch_view(review, review_embeds.clamp_page(review, page), chosen),
        }
    if review.scene.status == SceneStatus.COMPLETED:
        return {
            "embed": review_embeds.committed_embed(review, [], reveal=reveal),
            "view": closed_view(review.scene.id),
        }
    return {
        "embed": review_embeds.review_embed(review, page, reveal=reveal),
        "view": review_view(review, page, chosen),
    }


async def show_review(
    interaction: discord.Interaction, review: Review, page: int, chosen: int | None = None
) -> None:
    """Edit the clicked card in place to show a page of the review as it now stands."""
    reveal = reveals(interaction.message)
    content = card_content(review, page, reveal=reveal, chosen=chosen)
    if interaction.message is None:  # pragma: no cover - component interactions always carry their message
        await interaction.response.send_message(ephemeral=True, **content)
        return
    await interaction.response.edit_message(**content)
    if reveal:
        remember_private(interaction, review, interaction.message)
