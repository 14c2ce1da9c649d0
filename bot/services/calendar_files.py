"""A campaign's calendar given as a file with the world's YAML files, on Discord (`/lore import`) and on the command
line (`lorekeeper ingest`) alike: set first, so that the files' dates may be written in its words, and put back as
it was when the files are not imported.

A calendar file is one whose top level is a calendar (it lists `months:`, the way `/calendar set` takes it), or
says `kind: calendar`. It is set as `/calendar set` sets one (`CalendarService.set_block`: checked before it is
stored, and any cache of the calendar told), and its `eras:` are imported with the world's files as eras of canon
(`calendar_eras`), each at its line of the calendar file. Imported again changed, the file states its eras again:
an era renamed, moved or made the GM's changes in canon as a timeline's would, and the calendar's own eras of its
earlier import are no conflict for it. A calendar refused is refused at its line (the line naming the word or era
the refusal names), and then nothing of the import is written: the calendar as it was, canon as it was.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import yaml

from bot.services.calendar_eras import calendar_block, calendar_eras, folded_name
from bot.services.calendars import CalendarService
from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign
from canon.errors import GameError
from canon.models import Viewer
from canon.structured.records import LoreProblem
from canon.structured.reports import IngestReport, not_imported_either
from canon.wording import in_prose
from canon.wording.counts import counted

__all__ = ["CalendarsFirst", "calendars_first", "is_calendar_file", "put_back", "refused_report"]

#: A word or a name a refusal quotes: “ra”, “Mudmonth”.
_QUOTED = re.compile(r"“([^”]+)”")


def is_calendar_file(data: bytes) -> bool:
    """Tell whether a YAML file is the campaign's calendar rather than world lore (see the module docstring)."""
    try:
        found = yaml.safe_load(data.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError):
        return False  # the structured importer says what is wrong with it
    if not isinstance(found, dict):
        return False
    kind = str(found.get("kind", "")).strip().casefold()
    return kind == "calendar" or (not kind and "months" in found and "events" not in found)


@dataclass
class CalendarsFirst:
    """What setting the calendar files of an import did: the world's other files, the eras part of each calendar
    file (imported with them), the calendars set (file name and the calendar in sentences), the problems of those
    refused (at their lines), and the block as it was before (to put back)."""

    world: list[tuple[str, bytes]]
    eras: list[tuple[str, bytes]] = field(default_factory=list)
    done: list[tuple[str, str]] = field(default_factory=list)
    problems: list[LoreProblem] = field(default_factory=list)
    before: str | None = None


async def calendars_first(
    calendars: CalendarService,
    structured: StructuredImportService,
    campaign: Campaign,
    files: Sequence[tuple[str, bytes]],
) -> CalendarsFirst:
    """Set the calendar files among `files` (name, content), in order (see the module docstring). When one is
    refused, those set before it are put back: the caller writes nothing of the import."""
    chosen = [(name, data) for name, data in files if is_calendar_file(data)]
    step = CalendarsFirst(world=[(name, data) for name, data in files if not is_calendar_file(data)])
    if not chosen:
        return step
    step.before = (await calendars.view(campaign)).block
    async with calendars.db.session() as session:
        canon_eras = await (await calendars.access.reader(session, campaign, Viewer.GM)).canon_eras()
    for name, data in chosen:
        text = data.decode("utf-8")
        own = await structured.entries_of(campaign, name) & canon_eras.keys()  # its eras of an earlier import
        known = {str(era[0]) for key, era in canon_eras.items() if key not in own}
        part = calendar_eras(text, name, [d for _, d in step.world], known)
        gone = _gone(text, {key: str(canon_eras[key][0]) for key in own})
        if gone and (dropped := await _still_dated(calendars, campaign, name, text, gone)):
            step.problems.append(dropped)
            continue
        if part is None and own:  # it lists none of its eras any more: those are retconned (asked first)
            part = (name, b"kind: timeline\neras: []\n")
        if part is not None:
            step.eras.append(part)
        try:
            view = await calendars.set_block(campaign, calendar_block(text), restated=own)
        except GameError as error:
            step.problems.append(refused_at(name, text, error.message))
            continue
        step.done.append((name, view.sentences))
    if step.problems and step.done:
        await put_back(calendars, campaign, step)
    return step


def as_calendars(report: IngestReport, eras: Sequence[tuple[str, bytes]]) -> IngestReport:
    """Return an import's report with each calendar file said as one ("world/calendar.yaml (calendar)"), not as
    the timeline its eras are imported by (`eras`: the calendar files' eras, each as its file's name and text)."""
    names = {name for name, _ in eras}
    files = tuple(f.model_copy(update={"kind": "calendar"}) if f.file in names else f for f in report.files)
    return report.model_copy(update={"files": files})


async def put_back(calendars: CalendarService, campaign: Campaign, step: CalendarsFirst) -> None:
    """Put back the calendar block as it was before `calendars_first` (none: cleared): the import wrote
    nothing."""
    await calendars.set_block(campaign, step.before or "")
    step.done.clear()


def refused_at(name: str, text: str, message: str) -> LoreProblem:
    """Return a calendar's refusal at its line: the last line naming a word the refusal quotes (“ra”, “wet”), or
    the first naming the era it names (the Reed Age), else the file's first line."""
    said = [(m.casefold(), True) for m in _QUOTED.findall(message)]
    said += [(folded_name(m), False) for m in re.findall(r"\bthe ((?:[A-Z][\w'-]*\s?)+)", message)]
    lines = list(enumerate(text.splitlines(), 1))
    for wanted, last in said:  # a word said twice ("RA" of two eras) is refused where it is said again
        pattern = re.compile(rf"(?<![\w-]){re.escape(wanted.strip())}(?![\w-])", re.IGNORECASE)
        for number, line in reversed(lines) if last else lines:
            found = pattern.search(line)
            if found and wanted.strip():
                return LoreProblem(file=name, line=number, column=found.start() + 1, message=message)
    return LoreProblem(file=name, line=1, column=1, message=message)


def refused_report(campaign: Campaign, step: CalendarsFirst, names: Sequence[str]) -> IngestReport:
    """Return the report of an import a calendar file's refusal stopped: each refusal at its line, and every
    file of the import left out (`names`: all of them, the calendar files too)."""
    ordered = tuple(sorted(step.problems, key=lambda p: (p.file, p.line, p.column)))
    bad = sorted({p.file for p in ordered})
    either = not_imported_either(bad, list(names))
    return IngestReport(
        campaign_id=campaign.id,
        status="failed",
        errors=ordered,
        error=f"{counted(len(ordered), 'problem')} in {', '.join(bad)}; nothing was written.{either}",
    )


def _gone(text: str, own: dict[str, str]) -> dict[str, str]:
    """Return the eras of a calendar file's earlier import (by key: name) that it no longer lists, by name or by
    its `key:`."""
    try:
        found = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}
    listed = found.get("eras") if isinstance(found, dict) else None
    said = [era for era in listed or () if isinstance(era, dict)] if isinstance(listed, list) else []
    names = {folded_name(str(era.get("name", ""))) for era in said}
    keys = {str(era["key"]) for era in said if era.get("key")}
    return {key: name for key, name in own.items() if key not in keys and folded_name(name) not in names}


async def _still_dated(
    calendars: CalendarService, campaign: Campaign, file: str, text: str, gone: dict[str, str]
) -> LoreProblem | None:
    """Return the refusal of a calendar file that drops (or renames without its key) an era canon still dates
    something in, at its `eras:` line; None when nothing is dated in the eras it drops."""
    async with calendars.db.session() as session:
        reader = await calendars.access.reader(session, campaign, Viewer.GM)
        eras = {e.id: e for e in (await reader.all_entities(types=("Era",))).values() if e.key in gone}
        found = await reader.statements(object_ids=eras, predicates=("OCCURRED_DURING",), with_evidence=False)
        dated = [(s.subject_id, s.object_id) for s in found if s.object_id is not None]
        if not dated:
            return None
        subject, object_id = dated[0]
        era, thing = eras[object_id], (await reader.entities([subject])).get(subject)
        dated = [d for d in dated if d[1] == object_id]  # those in the era named
    named = in_prose(thing.name, thing.type) if thing else "events"
    what = f"{named} and {len(dated) - 1:,} more" if thing and len(dated) > 1 else named
    line = next((n for n, said in enumerate(text.splitlines(), 1) if said.startswith("eras:")), 1)
    return LoreProblem(
        file=file,
        line=line,
        column=1,
        message=(
            f"{in_prose(era.name, 'Era')[:1].upper()}{in_prose(era.name, 'Era')[1:]}, an era of this file's earlier import, is no longer among its eras, and canon dates "
            f"{what} in it: to rename it, write its new name with its key (`key: {era.key}`), so what "
            "is dated in it follows; to drop it, first date those in another era. Nothing changed."
        ),
    )
