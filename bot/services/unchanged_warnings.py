"""The warnings of the files an import found unchanged: read again so a GM who imports the same files twice still
reads what the checks say of them (the import itself skips loading an unchanged file)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from canon.campaign_calendar import CampaignCalendar
from canon.structured.files import load_files
from canon.structured.import_checks import import_checks
from canon.structured.reports import IngestReport
from canon.wording import Wording


async def with_unchanged_warnings(
    report: IngestReport,
    files: Sequence[tuple[str, bytes]],
    calendar_of: Callable[[], Awaitable[CampaignCalendar]],
    *,
    hidden: bool,
    max_bytes: int,
) -> IngestReport:
    """Return the report with the warnings of the files' own words (`import_checks`) of each file it found
    unchanged, first (as the file is read now: a file that no longer loads, its calendar changed since, adds
    none). Those across an unchanged file and a changed one of the same import are not found again."""
    same = {f.file for f in report.files if f.status == "unchanged"}
    if not same or report.status not in ("ingested", "unchanged"):
        return report
    given = [(name, data) for name, data in files if name in same]
    calendar = await calendar_of()
    loaded = await asyncio.to_thread(load_files, given, calendar=calendar, hidden=hidden, max_bytes=max_bytes)
    words = Wording(calendar=calendar.words())
    found = import_checks([f for f in loaded if f.result is not None and f.result.ok], words)
    if not found:
        return report
    return report.model_copy(update={"warnings": (*found, *report.warnings)})
