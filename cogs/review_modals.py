"""The review card's modals: why a proposal is accepted despite warnings or rejected, and the GM's correction.

Custom ids: `lk:rationale:{proposal_id}` (accept despite warnings), `lk:reject:{proposal_id}` (why, optional),
`lk:edit:{proposal_id}` (correct a proposal's fields before deciding it). They are answered by a listener on
their custom ids (`cogs.canon.CanonCommands.on_interaction`), not by the Modal object, so a modal opened before
a restart still works. Every field sits in a Label, as Discord documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import discord

from bot.client import limits
from canon.date_reading import examples
from canon.errors import Conflict
from canon.models import Viewer
from canon.proposals import (
    EDITABLE,
    OPTIONAL,
    FactContent,
    Proposal,
    ProposalStatus,
    ProposalType,
    ProposalWarning,
)
from canon.wording import PLAIN, CalendarWords, Wording, warning_sentence
from canon.wording.dates import PLAIN_CALENDAR
from canon.wording.relations import attribute_words
from cogs.embeds import clip
from cogs.review_common import check_campaign
from cogs.services import services_of
from cogs.submitted import ModalValue

MODAL = re.compile(r"lk:(?P<action>rationale|reject|edit):(?P<id>[0-9]{1,19})")
RATIONALE_FIELD = "lk:rationale:text"
SHOW_REASON = "lk:reject:shown"
EDIT_FIELD = "lk:edit:{}"
ATTRIBUTE_PICK = "lk:edit:attribute_pick"
_LABELS = {
    "attribute": "What about it (like title)",
    "value": "Its value",
    "when": "From when (a date of the calendar)",
    "relation": "The relation",
    "since": "Since (a date of the calendar)",
    "until": "Until (a date of the calendar)",
    "state": "The state (like dead or wounded)",
    "name": "The name",
    "description": "A description",
}
#: The hints in the reason boxes (what to write, never an answer).
ACCEPT_HINT = "Type what makes it true anyway (the whole table reads it on the card)"
REJECT_HINT = "Type a reason, or leave this empty"
_MAX = {"value": 1000, "description": 2000, "attribute": 60, "name": 200}


class RationaleModal(discord.ui.Modal):
    """Ask the GM why a proposal with continuity warnings is accepted anyway, or (optionally) why one is rejected."""

    def __init__(
        self,
        proposal_id: int,
        warnings: Sequence[ProposalWarning],
        *,
        accept: bool = True,
        about: str = "",
        words: Wording = PLAIN,
    ) -> None:
        # Titled by what the proposal says, as the card shows it (the card numbers proposals, not by id).
        heading = "Accept despite warnings" if accept else "Reject"
        super().__init__(
            title=clip(f"{heading}: {about}" if about else heading, limits.MODAL_TITLE),
            custom_id=f"lk:{'rationale' if accept else 'reject'}:{proposal_id}",
            timeout=900,
        )
        # A placeholder is a hint, never the warning: grey text in the box reads as an answer already given.
        first = next(iter(warnings), None)
        # In the campaign calendar's words, as the card says it (the plain calendar knows no era's name).
        warning = warning_sentence(
            (first.message if first is not None else "") or "It breaks continuity.", words
        )
        placeholder = ACCEPT_HINT if accept else REJECT_HINT
        self.add_item(
            discord.ui.Label(
                text="Why accept it anyway?" if accept else "Why reject it? (optional)",
                description=clip(f"The warning: {warning}", limits.MODAL_DESCRIPTION) if accept else None,
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

        if not accept:
            self.add_item(
                discord.ui.Label(
                    text="Who reads the reason?",
                    description="Left unpicked, only GMs read it.",
                    component=discord.ui.Select(
                        custom_id=SHOW_REASON,
                        required=False,
                        min_values=0,
                        max_values=1,
                        # Nothing preselected, and a hint that names no choice (it would read as picked).
                        placeholder="Pick who may read it",
                        options=[
                            discord.SelectOption(label="Only GMs", value="private"),
                            discord.SelectOption(label="Everyone at the table", value="public"),
                        ],
                    ),
                )
            )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Leave the answer to the listener, which also works after a restart."""


class EditModal(discord.ui.Modal):
    """Let the GM correct a pending proposal's fields (value, attribute, date ...) before deciding it.

    For a fact, a select offers the attribute names its subject's type declares and those canon already uses,
    so that a typed `captaincy` can become the `title` canon knows.
    """

    def __init__(
        self,
        proposal: Proposal,
        *,
        about: str = "",
        attributes: Sequence[str] = (),
        words: CalendarWords = PLAIN_CALENDAR,
        example: str = "",
    ) -> None:
        """`example`: a date in the campaign calendar's words (`canon.date_reading.examples`), the date boxes'
        hint."""
        super().__init__(
            title=clip(f"Edit: {about}" if about else "Edit the proposal", limits.MODAL_TITLE),
            custom_id=f"lk:edit:{proposal.id}",
            timeout=900,
        )
        current = proposal.content.model_dump(mode="json")
        for name in EDITABLE[proposal.type]:
            value = current.get(name)
            self.add_item(
                discord.ui.Label(
                    text=_LABELS[name],
                    component=discord.ui.TextInput(
                        custom_id=EDIT_FIELD.format(name),
                        style=discord.TextStyle.paragraph
                        if name in {"value", "description"}
                        else discord.TextStyle.short,
                        default=_shown(_said(value, name, words), name),
                        placeholder=clip(f"like {example}", limits.MODAL_PLACEHOLDER)
                        if name in DATE_FIELDS and example
                        else None,
                        required=name not in OPTIONAL,
                        max_length=_MAX.get(name, 100),
                    ),
                )
            )
        known = [a for a in dict.fromkeys(attributes) if a][: limits.SELECT_OPTIONS]
        if proposal.type == ProposalType.FACT and known:
            self.add_item(
                discord.ui.Label(
                    text="Or an attribute canon knows",
                    description="Picking one replaces the name typed above.",
                    component=discord.ui.Select(
                        custom_id=ATTRIBUTE_PICK,
                        placeholder="Pick an attribute name (optional)",
                        required=False,
                        min_values=0,
                        max_values=1,
                        options=[
                            discord.SelectOption(label=clip(attribute_words(a), 100), value=a[:100])
                            for a in known
                        ],
                    ),
                )
            )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Leave the answer to the listener, which also works after a restart."""


#: The fields that hold a date: shown in words, read back on the calendar.
DATE_FIELDS = frozenset({"when", "since", "until"})


def _said(value: Any, name: str, words: CalendarWords) -> Any:
    """Return a field's value as the GM reads it: a date in the campaign calendar's words (read back on submit)."""
    return words.date(value) if name in DATE_FIELDS and isinstance(value, str) and value else value


def _shown(value: Any, name: str) -> str | None:
    """Return a field's current value as the edit modal shows it (None for an empty one)."""
    return clip(str(value), _MAX.get(name, 100)) if value else None


def edit_changes(
    proposal: Proposal, values: Mapping[str, ModalValue], words: CalendarWords = PLAIN_CALENDAR
) -> dict[str, str | None]:
    """Return the corrections of an edit modal's values for a proposal: only the fields the GM changed (a field
    submitted as the modal showed it changes nothing; a picked attribute name wins)."""
    changes: dict[str, str | None] = {}
    current = proposal.content.model_dump(mode="json")
    for name in EDITABLE[proposal.type]:
        typed = values.get(EDIT_FIELD.format(name))
        shown = _shown(_said(current.get(name), name, words), name) or ""
        if typed is None or str(typed).strip() == shown.strip():
            continue
        changes[name] = str(typed)
    picked = values.get(ATTRIBUTE_PICK)
    if (
        isinstance(picked, list)
        and picked
        and proposal.type == ProposalType.FACT
        and picked[0] != current.get("attribute")
    ):
        changes["attribute"] = picked[0]
    return changes


def typed_back(changes: Mapping[str, str | None]) -> str:
    """Return the corrections of a refused edit as the GM typed them, to copy into Edit again (a refused form
    closes, and Discord cannot open it again with what was in it)."""
    typed = [
        f"{_LABELS.get(name, name).split(' (')[0]}: “{value}”" for name, value in changes.items() if value
    ]
    if not typed:
        return ""
    return " Nothing was changed. What you typed, to copy into Edit again: " + "; ".join(typed) + "."


async def open_edit(interaction: discord.Interaction, proposal: Proposal, about: str) -> None:
    """Open the modal that corrects a pending proposal, offering the attribute names of its subject's type."""
    if proposal.status != ProposalStatus.PENDING:
        raise Conflict(f"This proposal was already {proposal.status}; it can no longer be edited.")
    services = services_of(interaction)
    attributes: list[str] = []
    campaign = await check_campaign(interaction, proposal.campaign_id)
    calendar = await services.calendars.calendar(campaign, Viewer.GM)
    words = calendar.words()  # its dates shown in the calendar's words, and a hint written in them
    if isinstance(proposal.content, FactContent):
        ref = proposal.content.subject
        subject = f"#{ref.entity_id}" if ref.entity_id is not None else ref.name
        attributes = await services.queries.attribute_names(campaign, "", viewer=Viewer.GM, subject=subject)
    await interaction.response.send_modal(
        EditModal(proposal, about=about, attributes=attributes, words=words, example=examples(calendar)[-1])
    )
