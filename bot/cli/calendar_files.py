"""A campaign's calendar given to `lorekeeper ingest` with the world's YAML files: set first, so that the files'
dates may be written in its words, and put back as it was when the files are not imported.

A calendar file is one whose top level is a calendar (it lists `months:`, the way `lorekeeper canon calendar
--set` takes it), or says `kind: calendar`. The GM's command line sets it as `/calendar set` would: checked before
it is stored, refused with a sentence, nothing changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.cli.calendar_eras import calendar_block, calendar_eras
from canon.errors import GameError

__all__ = ["calendar_parts", "is_calendar_file", "restore_calendar", "set_calendars"]


def is_calendar_file(path: Path) -> bool:
    """Tell whether a YAML file is the campaign's calendar rather than world lore (see the module docstring)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False  # the structured importer says what is wrong with it
    if not isinstance(data, dict):
        return False
    kind = str(data.get("kind", "")).strip().casefold()
    return kind == "calendar" or (not kind and "months" in data and "events" not in data)


async def set_calendars(
    services: Any, campaign: Any, paths: list[Path]
) -> tuple[list[dict[str, str]], str | None, bool]:
    """Set each calendar file given, in order; return what each did ({"file", "text"} or {"file", "error"}), the
    calendar block as it was before (to put back), and whether one was set."""
    if not paths:
        return [], None, False
    before = (await services.calendars.view(campaign)).block
    done: list[dict[str, str]] = []
    changed = False
    for path in paths:
        try:  # without `kind: calendar` and its eras' `visibility` (the era `calendar_eras` imports says it)
            view = await services.calendars.set_block(campaign, calendar_block(path))
        except GameError as error:
            done.append({"file": path.name, "error": error.message})
            continue
        changed = True
        done.append({"file": path.name, "text": view.sentences})
    return done, before, changed


async def restore_calendar(
    services: Any, campaign: Any, before: str | None, done: list[dict[str, str]]
) -> list[dict[str, str]]:
    """Put back the calendar block as it was before `set_calendars` (none: cleared), the world's files not
    imported; return what each calendar file did then: nothing."""
    await services.calendars.set_block(campaign, before or "")
    return [{"file": c["file"], "error": "not set: the world files were not imported"} for c in done]


async def calendar_parts(
    services: Any, campaign: Any, calendars: list[Path], others: list[Path]
) -> list[tuple[str, bytes]]:
    """Return the timeline parts that make the eras the calendar files list eras of canon (`calendar_eras`),
    each named as its calendar file is; those canon or the world's other files define already left out."""
    if not calendars:
        return []
    from bot.services.structured_import import campaign_path
    from canon.models import Viewer

    async with services.db.session() as session:
        reader = await services.access.reader(session, campaign, Viewer.GM)
        known = {era[0] for era in (await reader.canon_eras()).values()}
    parts = [calendar_eras(path, campaign_path(path), others, known) for path in calendars]
    return [part for part in parts if part is not None]
