"""`/canon conflicts`' buttons and the reason modal: they hold the page only and survive a restart.

Custom ids (each a `DynamicItem` template, registered with the canon extension):

    lk:conflicts:{show}:{page}:prev | next              show another page (show: open | closed | all)
    lk:conflict:{id}:resolve | dismiss:{show}:{page}    ask why, in a modal, then close one conflict
    lk:conflictwhy:{id}:resolve | dismiss:{show}:{page} the modal, answered by `submit_reason`

Every click re-checks that the user is a GM (an ephemeral refusal otherwise) and reads the conflicts of the
campaign this channel plays in, so a conflict of another campaign is never found. The modal is answered by the
extension's listener on its custom id, so one opened before a restart still works.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.client import limits
from canon.conflicts import OPEN, ConflictPage, Show
from canon.wording import warning_sentence
from cogs import submitted
from cogs.checks import actor_of, require_gm
from cogs.conflict_embeds import conflict_page_embed
from cogs.embeds import MessageContent, clip
from cogs.places import campaign_here
from cogs.review_common import guarded
from cogs.services import services_of

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)
REASON_MODAL = re.compile(
    r"lk:conflictwhy:(?P<id>[0-9]{1,19}):(?P<action>resolve|dismiss):(?P<show>open|closed|all):(?P<page>[0-9]{1,6})"
)
REASON_FIELD = "lk:conflictwhy:text"
NONE = discord.AllowedMentions.none()
_ROWS_FOR_CONFLICTS = 4  # the fifth row holds paging


def _gm(interaction: discord.Interaction) -> None:
    require_gm(interaction, services_of(interaction).settings.gm_role)


async def page_of(interaction: discord.Interaction, show: Show, page: int) -> ConflictPage:
    """Return a page of the conflicts of the campaign this channel plays in."""
    campaign = await campaign_here(interaction)
    return await services_of(interaction).queries.conflict_page(campaign, show=show, page=page)


def page_view(page: ConflictPage) -> discord.ui.View:
    """Return Resolve and Dismiss for each open conflict of a page, and the paging buttons."""
    view = discord.ui.View(timeout=None)
    shown = [c for c in page.conflicts if c.status == OPEN][:_ROWS_FOR_CONFLICTS]
    for row, conflict in enumerate(shown):
        about = warning_sentence(conflict.message, page.words)  # the button says which conflict, in words
        for action in ("resolve", "dismiss"):
            view.add_item(ConflictButton(conflict.id, action, page.show, page.page, row=row, about=about))
    if page.pages > 1:
        view.add_item(PageButton(page.show, page.page, "prev", disabled=page.page == 0))
        view.add_item(PageButton(page.show, page.page, "next", disabled=page.page >= page.pages - 1))
    return view


def page_content(page: ConflictPage) -> MessageContent:
    """Return what a conflicts message shows for a page: its embed and its buttons."""
    return {"embed": conflict_page_embed(page), "view": page_view(page)}


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:conflicts:(?P<show>open|closed|all):(?P<page>[0-9]{1,6}):(?P<way>prev|next)",
):
    """Show the page before or after this one."""

    def __init__(self, show: Show, page: int, way: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label="◀ Newer" if way == "prev" else "Older ▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"lk:conflicts:{show.value}:{page}:{way}",
                row=_ROWS_FOR_CONFLICTS,
                disabled=disabled,
            )
        )
        self.show, self.page, self.way = show, page, way

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PageButton:
        """Rebuild the button from its custom id."""
        return cls(Show(match["show"]), int(match["page"]), match["way"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Edit the message to show the next or previous page."""

        async def work() -> None:
            _gm(interaction)
            target = self.page + (1 if self.way == "next" else -1)
            await interaction.response.edit_message(
                allowed_mentions=NONE, **page_content(await page_of(interaction, self.show, target))
            )

        await guarded(interaction, work)


class ConflictButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:conflict:(?P<id>[0-9]{1,19}):(?P<action>resolve|dismiss):(?P<show>open|closed|all):(?P<page>[0-9]{1,6})",
):
    """Resolve or dismiss one conflict: ask why first."""

    def __init__(
        self, conflict_id: int, action: str, show: Show, page: int, *, row: int | None = None, about: str = ""
    ) -> None:
        verb = "Resolve" if action == "resolve" else "Dismiss"
        super().__init__(
            discord.ui.Button(
                label=clip(f"{verb}: {about}" if about else f"{verb} this conflict", limits.BUTTON_LABEL),
                style=discord.ButtonStyle.success if action == "resolve" else discord.ButtonStyle.secondary,
                custom_id=f"lk:conflict:{conflict_id}:{action}:{show.value}:{page}",
                row=row,
            )
        )
        self.conflict_id, self.action, self.show, self.page = conflict_id, action, show, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ConflictButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["id"]), match["action"], Show(match["show"]), int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Open the modal asking why the conflict is resolved or dismissed."""

        async def work() -> None:
            _gm(interaction)
            await interaction.response.send_modal(
                ReasonModal(self.conflict_id, self.action, self.show, self.page)
            )

        await guarded(interaction, work)


class ReasonModal(discord.ui.Modal):
    """Ask the GM why a conflict is resolved (the rationale kept with it) or dismissed (never raised again)."""

    def __init__(self, conflict_id: int, action: str, show: Show, page: int) -> None:
        resolve = action == "resolve"
        super().__init__(
            title=f"{'Resolve' if resolve else 'Dismiss'} the conflict",
            custom_id=f"lk:conflictwhy:{conflict_id}:{action}:{show.value}:{page}",
            timeout=900,
        )
        placeholder = (
            "Type how it is settled (kept with the conflict)"
            if resolve
            else "Type why it is no problem (the same facts never raise it again)"
        )
        self.add_item(
            discord.ui.Label(
                text="Why is it resolved?" if resolve else "Why dismiss it?",
                component=discord.ui.TextInput(
                    custom_id=REASON_FIELD,
                    style=discord.TextStyle.paragraph,
                    placeholder=clip(placeholder, limits.MODAL_PLACEHOLDER),
                    required=True,
                    min_length=1,
                    max_length=1000,
                ),
            )
        )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Leave the answer to `submit_reason`, which also works after a restart."""


async def submit_reason(interaction: discord.Interaction, match: re.Match[str]) -> None:
    """Close the conflict with the GM's reason and show the page it was on, as it now stands."""

    async def work() -> None:
        _gm(interaction)
        services = services_of(interaction)
        reason = submitted.text_value(interaction, REASON_FIELD) or ""
        campaign = await campaign_here(interaction)
        actor = actor_of(interaction, services.settings.gm_role)
        dismiss = match["action"] == "dismiss"
        await services.admin.close_conflict(campaign, int(match["id"]), actor, dismiss=dismiss, reason=reason)
        page = await services.queries.conflict_page(
            campaign, show=Show(match["show"]), page=int(match["page"])
        )
        if interaction.message is None:  # pragma: no cover - opened from a button, so it has its message
            await interaction.response.send_message(
                ephemeral=True, allowed_mentions=NONE, **page_content(page)
            )
            return
        await interaction.response.edit_message(allowed_mentions=NONE, **page_content(page))

    await guarded(interaction, work)


DYNAMIC_ITEMS = (PageButton, ConflictButton)
