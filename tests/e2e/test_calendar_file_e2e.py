"""A calendar file imported from Discord (`/lore import`, with the world's files as `file2`), as `lorekeeper ingest`
imports it (`bot.services.calendar_files`): set first, its eras the campaign's, dates in its words; imported again
changed, the GM confirms the replacement and the calendar and canon change together; a calendar refused is
answered at its line, with the same words as the command line's, and nothing is written.

The real discord.py client against the emulator (tests/e2e/conftest.py)."""

from __future__ import annotations

from typing import Any

from bot.offline.emulator.messages import custom_ids
from tests.e2e.conftest import World
from tests.e2e.test_world_prep_e2e import everything

CALENDAR = """\
kind: calendar
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1, end: 600}
  - {name: The Salt Age, abbreviation: SA, start: 601}
months: [Thawing, Greening, Sunfall, Frostmere]
"""
EVENTS = """\
kind: timeline
events:
  - name: Siege of Osk
    date: 3 Greening, 450 RA
  - name: Flood of Harl
    date: 620 SA
"""


async def _import(world: World, calendar: str, *more: tuple[str, str]) -> Any:
    emu = world.emu
    files = {f"file{n + 2}": emu.make_attachment(name, text) for n, (name, text) in enumerate(more)}
    first = emu.make_attachment("calendar.yaml", calendar)
    return await emu.invoke(world.channel, world.gm, "lore import", file=first, **files)


async def _shown(world: World, who: Any) -> str:
    return everything((await world.emu.invoke(world.channel, who, "calendar show")).message)


async def test_a_calendar_file_is_imported_from_discord_with_the_world_s_files(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    done = await _import(world, CALENDAR, ("events.yaml", EVENTS))
    assert "Not imported" not in everything(done.message), everything(done.message)
    shown = await _shown(world, pat)
    assert "the Reed Age (RA, years 1–600) and the Salt Age (SA, years 601 onwards)" in shown, shown
    assert "Greening" in shown
    asked = await emu.invoke(chan, pat, "lore ask", question="when was the Siege of Osk?")
    assert "3 Greening, year 450 of the Reed Age" in everything(asked.message), everything(asked.message)
    flood = await emu.invoke(chan, pat, "lore ask", question="when was the Flood of Harl?")
    assert "year 620 of the Salt Age" in everything(flood.message), everything(flood.message)

    # Imported again with the Salt Age kept for the GM: the GM confirms, and a player's calendar loses it.
    hidden = CALENDAR.replace("start: 601}", "start: 601, visibility: gm_only}")
    held = await _import(world, hidden)
    assert held.message is not None and "Replace calendar.yaml?" in everything(held.message)
    assert "Salt" in await _shown(world, pat)  # nothing written yet: the calendar as it was
    (button,) = [
        c for c in custom_ids(held.message.get("components", [])) if c.startswith("lk:lore:replace:")
    ]
    await emu.click(held.message, button, gm)
    assert "Salt" not in await _shown(world, pat)
    assert "the Salt Age (SA, years 601 onwards, GM only)" in await _shown(world, gm)
    # The next question reads the calendar anew: the era is the GM's now, and no date of a player's.
    flood = await emu.invoke(chan, pat, "lore ask", question="when was the Flood of Harl?")
    assert "Salt" not in everything(flood.message), everything(flood.message)


async def test_a_calendar_file_refused_on_discord_is_refused_at_its_line(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await _import(world, CALENDAR, ("events.yaml", EVENTS))
    bad = CALENDAR.replace("end: 600", "end: 500") + "seasons: [{name: wet, months: [Mudmonth]}]\n"
    refused = await _import(world, bad, ("more.yaml", "kind: timeline\nevents:\n  - name: Fall of Tarrow\n"))
    said = everything(refused.message)
    # The command line's words (tests/bot/cli/test_calendar_file_again.py), at the same line and column.
    assert "calendar.yaml: line 6, column 18: The season “wet” names “Mudmonth”" in said, said
    assert "The other file of this import, more.yaml, was not imported either." in said, said
    assert "the Reed Age (RA, years 1–600)" in await _shown(world, pat)  # nothing changed
    asked = await emu.invoke(chan, world.gm, "canon entity", name="Fall of Tarrow")
    told = everything(asked.message) + (asked.content or "")
    assert "Nothing in this campaign's canon is called “Fall of Tarrow”" in told, told
