"""An era's years told twice: by a timeline this import brings and by the calendar the GM set. The timeline
decides (its years are canon, with their evidence); the import says so, as a warning, when the two differ."""

from __future__ import annotations

from collections.abc import Sequence

from canon.calendar_checks import other_years
from canon.campaign_calendar import CALENDAR_SETTINGS
from canon.campaigns import CampaignRow
from canon.structured.files import LoadedFile
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState

#: The kind of the warning: the calendar's years for an era are not the timeline's.
CALENDAR_YEARS = "calendar_years"


async def calendar_years_differ(state: IngestState, changed: Sequence[LoadedFile]) -> list[IngestWarning]:
    """Return a warning for the first era this import's timelines give other years than the calendar does."""
    eras = {
        entry.id: (entry.name, entry.attributes.get("start"), entry.attributes.get("end"))
        for loaded in changed
        if loaded.result is not None
        for entry in loaded.result.entries
        if entry.entity_type == "Era"
    }
    if not eras:
        return []
    campaign = await state.session.get(CampaignRow, state.campaign_id)
    block = ((campaign.settings or {}) if campaign is not None else {}).get(CALENDAR_SETTINGS)
    said = other_years(block, eras) if block else None
    if said is None:
        return []
    advice = (
        "The timeline decides an era's years: its years are used. Give the calendar the same years, or leave"
    )
    return [IngestWarning(kind=CALENDAR_YEARS, message=f"{said} {advice} start and end out of it.")]
