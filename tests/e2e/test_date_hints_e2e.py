"""Every hint that shows how a date is written speaks the campaign's own calendar, through the real client and
the emulator: the suggestions of a date option, the Edit form's date boxes, the answer to a date it cannot read.
The commands' descriptions are the same for every campaign, so they hold no example date of any world."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.canon_flow import latest_scene, proposals_of_scene, review_cards
from tests.e2e.conftest import World

CALENDAR = """\
eras:
  - {name: The Tidewater Age, abbreviation: TW, start: 0}
months:
  - {name: Saltmoon, days: 30}
  - {name: Kelpmoon, days: 30}
  - {name: Brinemoon, days: 30}
"""
YEAR, DAY = "year 1 of the Tidewater Age", "17 Brinemoon, year 1 of the Tidewater Age"
#: A fixed in-world date in a description: a year of an era, a day of a month, the old examples' words.
FIXED = re.compile(r"\byear -?\d+\b|\b\d+ [A-Z][a-z]+moon\b|Third Age|Hearthmoon|Frostfall|\b\d+ TA\b")


def descriptions(commands: list[dict[str, Any]]) -> list[str]:
    """Return every description of the synced commands, their options' and their subcommands'."""
    found: list[str] = []
    stack = list(commands)
    while stack:
        item = stack.pop()
        found.append(str(item.get("description") or ""))
        stack += item.get("options") or []
    return found


async def test_date_hints_are_written_in_the_campaigns_own_calendar(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    assert (await emu.invoke(chan, gm, "calendar set", text=CALENDAR)).ephemeral
    shown = [*emu.global_commands, *(c for cs in emu.guild_commands.values() for c in cs)]
    assert shown
    fixed = [d for d in descriptions(shown) if FIXED.search(d)]
    assert not fixed, fixed

    # An empty date option suggests how to write one, in this calendar's words (the GM's reveal date too).
    for user, command, option in (
        (pat, "propose fact", "when"),
        (pat, "canon entity", "as_of_date"),
        (gm, "canon reveal", "from_date"),
        (gm, "scene start", "date"),
    ):
        choices = await emu.autocomplete(chan, user, command, option, "")
        assert [c["name"] for c in choices] == [YEAR, DAY], (command, choices)

    # A date it cannot read is answered with an example in the same words.
    odd = await emu.invoke(chan, pat, "canon entity", name="Aldric", as_of_date="year 5 of the Frost Age")
    assert odd.ephemeral and "Tidewater Age" in (odd.content or ""), odd.content

    # The Edit form's date boxes hint in the calendar's words.
    await emu.invoke(chan, gm, "scene start", title="The tide")
    await emu.send_message(chan, pat, "The harbour floods.")
    await emu.invoke(chan, pat, "propose event", name="The flood")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    (proposal,) = await proposals_of_scene(world, (await latest_scene(world)).id)
    opened = await emu.click(card, f"lk:proposal:{proposal.id}:edit", gm)
    boxes = {c["component"]["custom_id"]: c["component"] for c in opened.modal["components"]}
    assert boxes["lk:edit:when"]["placeholder"] == f"like {DAY}", boxes["lk:edit:when"]
