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

from canon.errors import GameError

__all__ = ["is_calendar_file", "restore_calendar", "set_calendars"]


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
        text = path.read_text(encoding="utf-8")
        lines = [line for line in text.splitlines() if line.strip().casefold() not in ("kind: calendar",)]
        try:
            view = await services.calendars.set_block(campaign, "\n".join(lines))
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
