"""The campaign's calendar through Discord: the GM sets it, everyone reads it, and dates are typed in its words.

The real discord.py client against the emulator (tests/e2e/conftest.py)."""

from __future__ import annotations

from sqlalchemy import select

from canon.campaigns import CampaignRow
from canon.tables import EntityRow
from tests.e2e.canon_flow import embed_text, latest_scene, proposals_of_scene, review_cards
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_continuity_e2e import import_yaml

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

TIMELINE = """\
kind: timeline
era: 3rd_age
name: The Third Age
start: 1
end: 600
"""

CALENDAR = """\
eras:
  - {name: The Third Age, abbreviation: TA}
  - {name: The Fourth Age, abbreviation: FoA, start: 601}
months:
  - {name: Frostmoon, days: 30}
  - {name: Hearthmoon, days: 31}
  - {name: Greenmoon, days: 30}
seasons:
  - {name: spring, months: [Greenmoon]}
"""


async def stored_calendar(world: World) -> object:
    async with world.bot.services.db.session() as session:
        rows = (await session.execute(select(CampaignRow))).scalars().all()
        return [(row.settings or {}).get("calendar") for row in rows]


async def test_the_gm_sets_the_calendar_and_the_table_types_dates_in_its_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)

    refused = await emu.invoke(chan, pat, "calendar set", text=CALENDAR)
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    assert await stored_calendar(world) == [None]

    bad = await emu.invoke(chan, gm, "calendar set", text="eras: [{name: Old Age, start: 10, end: 5}]")
    assert bad.ephemeral and "ends (year 5) before it starts (year 10)" in (bad.content or ""), bad.content
    clash = await emu.invoke(chan, gm, "calendar set", text="eras: [{name: Other, abbreviation: Third Age}]")
    assert clash.ephemeral and "would name two things" in (clash.content or ""), clash.content
    assert await stored_calendar(world) == [None]  # nothing written

    attached = emu.make_attachment("calendar.yaml", CALENDAR)
    done = await emu.invoke(chan, gm, "calendar set", file=attached)
    assert "the Third Age (TA, years 1–600)" in (done.content or ""), done.content
    assert "Frostmoon (30 days)" in (done.content or "")

    shown = await emu.invoke(chan, pat, "calendar show")
    assert shown.ephemeral and "the Fourth Age (FoA, years 601 onwards)" in (shown.content or "")
    assert not shown.files  # the block to edit is the GM's

    read = await emu.invoke(chan, pat, "calendar read", date="the 3rd of Frostmoon, 1042")
    assert read.content == "That is 3 Frostmoon, year 1042 of the Fourth Age.", read.content
    typo = await emu.invoke(chan, pat, "calendar read", date="Thrid Age 363")
    assert typo.ephemeral and typo.content == (
        "“Thrid Age” is not an era of this calendar; the nearest is the Third Age. "
        "Did you mean “year 363 of the Third Age”?"
    ), typo.content
    choices = await emu.autocomplete(chan, pat, "scene start", "date", "363 TA")
    assert [c["value"] for c in choices] == ["year 363 of the Third Age"]
    wide = await emu.autocomplete(chan, pat, "propose fact", "when", "３６３ TA")
    assert [c["value"] for c in wide] == ["year 363 of the Third Age"]

    started = await emu.invoke(chan, gm, "scene start", title="Arrival", date="17 Hearthmoon, 363 TA")
    assert "17 Hearthmoon, year 363 of the Third Age" in embed_text(started.message["embeds"][0])
    moved = await emu.invoke(chan, gm, "scene time", when="three days later")
    assert "is now 20 Hearthmoon, year 363 of the Third Age" in (moved.content or ""), moved.content
    too_long = await emu.invoke(chan, gm, "scene time", when="the 31st of Frostmoon, 363")
    assert too_long.ephemeral and too_long.content == (
        "Frostmoon has 30 days, so there is no 31st of Frostmoon. "
        "Did you mean “30 Frostmoon, year 363 of the Third Age”?"
    ), too_long.content
    assert (await latest_scene(world)).world_date == "3rd_age.year_363.month_2.day_20"

    await emu.send_message(chan, pat, "Mara was crowned the spring before.")
    proposed = await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Queen", when="a year earlier"
    )
    assert proposed.embeds, proposed.content
    scene = await latest_scene(world)
    (fact,) = [p for p in await proposals_of_scene(world, scene.id) if p.content.get("attribute") == "title"]
    assert fact.content["when"] == "3rd_age.year_362.month_2.day_20"
    two = await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Queen", when="363 TA 1210"
    )
    assert two.ephemeral and "names more than one year (363 and 1210)" in (two.content or "")

    cleared = await emu.invoke(chan, gm, "calendar clear")
    assert "cleared" in (cleared.content or "") and "Frostmoon" not in (cleared.content or "")
    assert await stored_calendar(world) == [{}]


@SQL_RUN_BELOW
async def test_a_timelines_era_abbreviation_is_part_of_the_calendar(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    await import_yaml(
        world,
        "timeline.yaml",
        TIMELINE.replace("name: The Third Age", "name: The Third Age\nabbreviation: TA"),
    )
    read = await emu.invoke(chan, pat, "calendar read", date="363 TA")
    assert read.content == "That is year 363 of the Third Age.", read.content
    shown = await emu.invoke(chan, pat, "calendar show")
    assert "This campaign's era is the Third Age (TA, years 1–600)." in (shown.content or ""), shown.content
    beyond = await emu.invoke(chan, pat, "calendar read", date="year 700")
    assert beyond.ephemeral and beyond.content == (
        "Year 700 is in none of this campaign's eras. This campaign's era is the Third Age (TA, years 1–600)."
    ), beyond.content
    gm = world.gm
    typo = await emu.invoke(chan, gm, "campaign fork", name="What if", at_date="Thrid Age 400")
    assert typo.ephemeral and "Did you mean “year 400 of the Third Age”?" in (typo.content or ""), (
        typo.content
    )
    forked = await emu.invoke(chan, gm, "campaign fork", name="What if", at_date="400 TA")
    assert "its world up to year 400 of the Third Age" in embed_text(forked.embeds[0]), forked.embeds


@SQL_RUN_BELOW
async def test_the_edit_form_shows_dates_in_words_and_reads_them_back(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)
    await emu.invoke(chan, gm, "calendar set", text=CALENDAR)
    await emu.invoke(chan, gm, "canon add entity", name="Ysolde", type="NPC")
    await emu.invoke(chan, gm, "scene start", title="The docks", date="17 Hearthmoon, 363 TA")
    await emu.send_message(chan, pat, "Ysolde keeps the docks now.")
    await emu.invoke(chan, pat, "propose state", subject="Ysolde", state="wounded")
    await emu.invoke(chan, gm, "endscene")
    scene = await latest_scene(world)
    (row,) = [p for p in await proposals_of_scene(world, scene.id) if p.content.get("state")]
    (card,) = review_cards(world)
    opened = await emu.click(card, f"lk:proposal:{row.id}:edit", gm)
    fields = {c["component"]["custom_id"]: c["component"] for c in opened.modal["components"]}
    assert fields["lk:edit:when"]["value"] == "17 Hearthmoon, year 363 of the Third Age"  # never a key

    bad = await emu.submit_modal(opened, gm, {"lk:edit:when": "the 31st of Frostmoon, 363"})
    assert bad.ephemeral and "Frostmoon has 30 days" in (bad.content or ""), bad.content
    moved = await emu.submit_modal(opened, gm, {"lk:edit:when": "three days later"})
    assert moved.response_type == 7, moved.content
    (after,) = [p for p in await proposals_of_scene(world, scene.id) if p.id == row.id]
    assert after.content["when"] == "3rd_age.year_363.month_2.day_20"


@SQL_RUN_BELOW
async def test_the_gm_sets_the_calendar_in_words_and_a_bad_one_is_refused_in_words(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await import_yaml(world, "timeline.yaml", TIMELINE)
    for typed in ("Third Age: the age of kings", "The world is old, and its moons are named after frost"):
        refused = await emu.invoke(chan, gm, "calendar set", text=typed)
        said = refused.content or ""
        assert refused.ephemeral and said.startswith("That is not a calendar this campaign can read"), said
        assert "such as: “This campaign's era is the Third Age (years 1–600)." in said, said
        assert "Extra inputs" not in said and "Input should" not in said
    wrong = await emu.invoke(chan, gm, "calendar set", text="eras: [{name: The Third Age, start: one}]")
    assert (wrong.content or "").startswith(
        "In the calendar, “start” of the 1st era must be a whole number. Type it as /calendar show says it"
    ), wrong.content
    assert await stored_calendar(world) == [None]  # nothing written

    done = await emu.invoke(
        chan,
        gm,
        "calendar set",
        text="Eras: the Third Age (TA). Months: Frostmoot (30 days), Hearthmoon (31 days). "
        "Seasons: winter (Frostmoot and Hearthmoon).",
    )
    assert "the Third Age (TA, years 1–600)" in (done.content or ""), done.content
    read = await emu.invoke(chan, gm, "calendar read", date="3 Frostmoot 363 TA")
    assert read.content == "That is 3 Frostmoot, year 363 of the Third Age.", read.content

    shown = (await emu.invoke(chan, gm, "calendar show")).content or ""
    sentences = " ".join(
        line for line in shown.splitlines() if line.startswith(("This", "A year", "Seasons"))
    )
    again = await emu.invoke(chan, gm, "calendar set", text=sentences)  # what the bot writes reads back
    assert "The campaign's calendar is set." in (again.content or ""), again.content
    assert (await emu.invoke(chan, gm, "calendar show")).content == shown


@SQL_RUN_BELOW
async def test_a_glossary_term_for_an_era_is_read_in_dates_and_dates_stay_in_the_calendar_s_words(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)  # the Third Age, without an abbreviation
    await emu.invoke(chan, gm, "calendar set", text="Months: Frostmoot (30 days), Hearthmoon (31 days).")
    unknown = await emu.invoke(chan, pat, "calendar read", date="3 Frostmoot 363 TA")
    assert unknown.ephemeral and "“TA” is not a word of this campaign's calendar" in (unknown.content or "")

    await emu.invoke(chan, gm, "lore glossary add", term="TA", meaning="Third Age")
    read = await emu.invoke(chan, pat, "calendar read", date="3 Frostmoot 363 TA")
    assert read.content == "That is 3 Frostmoot, year 363 of the Third Age.", read.content
    started = await emu.invoke(chan, gm, "scene start", title="Frost", date="3 Frostmoot 363 TA")
    assert "3 Frostmoot, year 363 of the Third Age" in embed_text(started.message["embeds"][0])
    shown = await emu.invoke(chan, pat, "calendar show")
    assert (
        "the Third Age (years 1–600)" in (shown.content or "") and "ta" not in (shown.content or "").split()
    )
    # A glossary term that is already a month's name stays the month's.
    await emu.invoke(chan, gm, "lore glossary add", term="Frostmoot", meaning="Third Age")
    month = await emu.invoke(chan, pat, "calendar read", date="Frostmoot 363")
    assert month.content == "That is Frostmoot of year 363 of the Third Age.", month.content


@SQL_RUN_BELOW
async def test_a_world_file_s_dates_are_read_in_the_calendar_s_words(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await import_yaml(world, "timeline.yaml", TIMELINE)
    await emu.invoke(chan, gm, "calendar set", text="Months: Frostmoot (30 days), Hearthmoon (31 days).")
    await emu.invoke(chan, gm, "lore glossary add", term="TA", meaning="Third Age")
    people = "characters:\n  - name: Ser Aldric\n    born: 3 Frostmoot 300 TA\n    died: {died}\n"

    refused = await import_yaml(world, "people.yaml", people.format(died="3 Frostmoot 363 XA"))
    said = embed_text(refused.embeds[0])
    assert "1 problem in people.yaml; nothing was written." in said, said
    assert "“XA” is not a word of this campaign's calendar" in said and "3rd_age.300" not in said
    async with world.bot.services.db.session() as session:  # nothing written
        assert (
            await session.execute(select(EntityRow).where(EntityRow.name == "Ser Aldric"))
        ).first() is None

    done = await import_yaml(world, "people.yaml", people.format(died="17 Hearthmoon, 363 TA"))
    assert "Not imported" not in embed_text(done.embeds[0]), embed_text(done.embeds[0])
    card = embed_text((await emu.invoke(chan, gm, "canon entity", name="Ser Aldric")).embeds[0])
    assert "17 Hearthmoon, year 363 of the Third Age" in card, card


async def test_the_accept_anyway_form_says_the_warning_in_the_calendars_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)
    await emu.invoke(chan, gm, "calendar set", text=CALENDAR)
    await emu.invoke(chan, gm, "canon add entity", name="Ysolde", type="NPC")
    await emu.invoke(chan, gm, "canon add state", subject="Ysolde", state="dead", when="2 Frostmoon, 300 TA")
    await emu.invoke(chan, gm, "scene start", title="The docks", date="17 Hearthmoon, 363 TA")
    await emu.send_message(chan, pat, "Ysolde waves from the quay.")
    await emu.invoke(chan, pat, "propose state", subject="Ysolde", state="alive")
    await emu.invoke(chan, gm, "endscene")
    (row,) = await proposals_of_scene(world, (await latest_scene(world)).id)
    opened = await emu.click(review_cards(world)[0], f"lk:proposal:{row.id}:accept", gm)
    (label,) = opened.modal["components"]
    # As the card says it: the era and the month by their names, capitals and all.
    assert "2 Frostmoon, year 300 of the Third Age" in label["description"], label["description"]


async def test_a_calendar_without_room_for_canons_dates_is_refused(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await import_yaml(world, "timeline.yaml", TIMELINE)
    added = await emu.invoke(chan, gm, "canon add event", name="The Drowning", when="day 31 of month 11, 298")
    assert added.embeds, added.content
    short = await emu.invoke(chan, gm, "calendar set", text="months: Frostmoon, Thawmoon, Seedmoon")
    assert short.ephemeral and (short.content or "").startswith(
        "Canon already has dates in month 11, and this calendar's year has 3 months: give it at least 11"
    ), short.content
    thirty = await emu.invoke(chan, gm, "calendar set", text="days_per_month: 30")
    assert "Canon already has a date on day 31 of month 11" in (thirty.content or ""), thirty.content
    assert await stored_calendar(world) == [None]  # nothing changed
    eleven = "months:\n" + "\n".join(f"  - {{name: Moon {n}, days: 31}}" for n in range(1, 12))
    roomy = await emu.invoke(chan, gm, "calendar set", text=eleven)
    assert (roomy.content or "").startswith("The campaign's calendar is set."), roomy.content


#: The Third Age, and a GM-only era after it that the calendar block names too; the GM's today falls in it.
HIDDEN_ERA = """\
kind: timeline
eras:
  - era: 3rd_age
    name: The Third Age
    start: 1
  - era: drowned_years
    name: The Drowned Years
    abbreviation: DY
    start: 700
    visibility: gm_only
"""
HIDDEN_TODAY = """\
eras:
  - {name: The Third Age, abbreviation: TA}
  - {name: The Drowned Years, abbreviation: DY}
months:
  - {name: Frostmoon, days: 30}
today: 3 Frostmoon, year 710 of the Drowned Years
"""


@SQL_RUN_BELOW
async def test_a_gm_only_era_and_a_today_in_it_are_no_player_s_calendar(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", HIDDEN_ERA)
    done = await emu.invoke(chan, gm, "calendar set", text=HIDDEN_TODAY)
    assert "Today is 3 Frostmoon, year 710 of the Drowned Years." in (done.content or ""), done.content
    gm_shown = (await emu.invoke(chan, gm, "calendar show")).content or ""
    assert (
        "the Drowned Years (DY, years 700 onwards, GM only)" in gm_shown
        and "Today is 3 Frostmoon" in gm_shown
    )  # marked as the GM's
    shown = (await emu.invoke(chan, pat, "calendar show")).content or ""
    assert shown.startswith("This campaign's era is the Third Age (TA, years 1 onwards)."), shown
    assert not any(word in shown for word in ("Drowned", "DY", "Today", "710")), shown
    # The hidden era reads for a player as an era nobody made up reads, word for word.
    hidden = await emu.invoke(chan, pat, "calendar read", date="year 710 of the Drowned Years")
    other = await emu.invoke(chan, pat, "calendar read", date="year 710 of the Sodden Years")
    assert hidden.ephemeral and hidden.content == (other.content or "").replace("Sodden", "Drowned")
    assert (await emu.invoke(chan, pat, "calendar read", date="710 DY")).content == (
        (await emu.invoke(chan, pat, "calendar read", date="710 QX")).content or ""
    ).replace("QX", "DY")
    mine = await emu.invoke(chan, gm, "calendar read", date="710 DY")
    assert mine.content == "That is year 710 of the Drowned Years.", mine.content
