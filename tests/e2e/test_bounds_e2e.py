"""Numbers and dates anyone types past what can be stored get a clear answer naming the range, never an error id.

The real discord.py client against the emulator, on SQLite and PostgreSQL (an overflow there is an int64
column refusing a year, or Python's datetime refusing a time zone's reading of it).
"""

from __future__ import annotations

from bot.offline.emulator.interactions import InteractionResult
from canon.calendar import REAL_TIME_RANGE, YEAR_RANGE
from tests.e2e.conftest import World, sql_run_below

HUGE_DATE = "3rd_age.year_99999999999999999999"
ERROR_ID_TEXT = "give the bot's host this id"


def refused(reply: InteractionResult, wanted: str) -> None:
    """The command answered privately with a message naming `wanted`, not with an error id."""
    text = reply.content or ""
    assert reply.ephemeral and ERROR_ID_TEXT not in text, text
    assert wanted in text, text


@sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py")
async def test_a_year_past_the_calendar_is_refused_by_every_command_that_takes_a_date(world: World) -> None:
    emu, chan = world.emu, world.channel
    added = await emu.invoke(chan, world.gm, "canon add entity", name="Brann", type="Person")
    assert added.embeds and added.embeds[0]["title"] == "Written to canon"
    # Looking canon up, as a player.
    refused(await emu.invoke(chan, world.pat, "canon asof", name="Brann", date=HUGE_DATE), YEAR_RANGE)
    refused(await emu.invoke(chan, world.pat, "canon entity", name="Brann", as_of_date=HUGE_DATE), YEAR_RANGE)
    # Writing it, as the GM.
    refused(
        await emu.invoke(chan, world.gm, "canon add state", subject="Brann", state="dead", when=HUGE_DATE),
        YEAR_RANGE,
    )
    refused(await emu.invoke(chan, world.gm, "canon add event", name="The flood", when=HUGE_DATE), YEAR_RANGE)
    # Proposing it, as a player in a scene.
    await emu.invoke(chan, world.gm, "scene start", title="Far future")
    refused(
        await emu.invoke(chan, world.pat, "propose state", subject="Brann", state="dead", when=HUGE_DATE),
        YEAR_RANGE,
    )
    refused(await emu.invoke(chan, world.pat, "propose event", name="The flood", when=HUGE_DATE), YEAR_RANGE)


async def test_a_belief_time_before_the_first_day_is_refused_naming_the_range(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "canon add entity", name="Brann", type="Person")
    reply = await emu.invoke(
        chan, world.pat, "canon asof", name="Brann", believed_at="0001-01-01T00:00+14:00"
    )
    refused(reply, REAL_TIME_RANGE)
    fine = await emu.invoke(chan, world.pat, "canon asof", name="Brann", believed_at="2999-01-01T00:00+14:00")
    assert fine.embeds and "Brann" in fine.embeds[0]["title"], fine.content


async def test_the_last_minute_of_year_9999_in_the_last_time_zone_is_refused_naming_the_range(
    world: World,
) -> None:
    emu, chan = world.emu, world.channel
    zone = await emu.invoke(chan, world.gm, "timezone set", zone="Etc/GMT+12")
    assert "Etc/GMT+12" in (zone.content or ""), zone.content
    reply = await emu.invoke(chan, world.gm, "session schedule", title="The end", when="9999-12-31 23:59")
    refused(reply, REAL_TIME_RANGE)
