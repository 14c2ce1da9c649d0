"""The story's clock as a new GM meets it: dates on the campaign's own calendar, plain errors, no dead ends.

The real discord.py client against the emulator (tests/e2e/conftest.py)."""

from __future__ import annotations

from sqlalchemy import func, select

from memory.scene_tables import SceneRow
from tests.e2e.canon_flow import canon_counts, embed_text, latest_scene, proposals_of_scene, review_cards
from tests.e2e.conftest import World, embed_fields, scene_report, sql_run_below
from tests.e2e.test_continuity_e2e import import_yaml

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/archive/test_export_import.py", "tests/bot/services/test_structured_import.py"
)

TIMELINE = """\
kind: timeline
era: tidewater_age
name: The Tidewater Age
start: 1
events:
  - id: founding_of_saltmarch
    name: Founding of Saltmarch
    year: 112
"""

NO_TIDEWATER = (
    "There is no era “tidewater” in this campaign. This campaign's era is the Tidewater Age (years 1 onwards). "
    "Did you mean “year 12 of the Tidewater Age”?"
)


async def test_a_date_of_an_era_the_calendar_lacks_is_refused_where_a_scene_is_dated(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await import_yaml(world, "timeline.yaml", TIMELINE)
    refused = await emu.invoke(chan, gm, "scene start", title="Arrival", date="tidewater.year_12")
    assert refused.ephemeral and refused.content == NO_TIDEWATER, refused.content
    async with world.bot.services.db.session() as session:  # nothing started with a date nobody can place
        assert await session.scalar(select(func.count()).select_from(SceneRow)) == 0

    started = await emu.invoke(chan, gm, "scene start", title="Arrival", date="year 336 of the Tidewater Age")
    assert "year 336 of the Tidewater Age" in embed_text(started.message["embeds"][0])
    moved = await emu.invoke(chan, gm, "scene time", when="tidewater.year_12")
    assert moved.ephemeral and moved.content == NO_TIDEWATER, moved.content
    plain = await emu.invoke(chan, gm, "scene time", when="year 340")  # the campaign's only era holds it
    assert not plain.ephemeral and "year 340 of the Tidewater Age" in (plain.content or ""), plain.content
    assert (await latest_scene(world)).world_date == "tidewater_age.year_340"
    later = await emu.invoke(chan, gm, "scene time", when="two years later")
    assert "year 342 of the Tidewater Age" in (later.content or ""), later.content
    status = embed_fields((await emu.invoke(chan, world.pat, "scene status")).embeds[0])
    assert status["In-world date"] == "year 342 of the Tidewater Age", status  # where the table is, in words
    garbled = await emu.invoke(chan, gm, "scene time", when="year 0")
    assert garbled.ephemeral and garbled.content == (
        "Year 0 is in none of this campaign's eras. This campaign's era is the Tidewater Age (years 1 onwards)."
    ), garbled.content
    assert (await latest_scene(world)).world_date == "tidewater_age.year_342"


@SQL_RUN_BELOW
async def test_a_date_of_an_era_the_calendar_lacks_is_refused_in_proposals_canon_and_as_of(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)
    await emu.invoke(chan, gm, "canon add entity", name="Mara", type="NPC")
    before = await canon_counts(world)
    added = await emu.invoke(
        chan, gm, "canon add fact", subject="Mara", attribute="title", value="Queen", when="tidewater.year_12"
    )
    assert added.ephemeral and NO_TIDEWATER in (added.content or ""), added.content
    related = await emu.invoke(
        chan, gm, "canon add relationship", subject="Mara", relation="ally_of", object="Mara", since="x.1"
    )
    assert related.ephemeral and "There is no era “x” in this campaign" in (related.content or "")
    assert await canon_counts(world) == before  # nothing written

    await emu.invoke(chan, gm, "scene start", title="Arrival")
    await emu.send_message(chan, pat, "Mara falls.")
    proposed = await emu.invoke(
        chan, pat, "propose state", subject="Mara", state="dead", when="tidewater.year_12"
    )
    assert proposed.ephemeral and NO_TIDEWATER in (proposed.content or ""), proposed.content
    assert await proposals_of_scene(world, (await latest_scene(world)).id) == []
    fine = await emu.invoke(chan, pat, "propose state", subject="Mara", state="dead", when="year 12")
    assert fine.ephemeral and fine.embeds, fine.content
    (proposal,) = [
        p for p in await proposals_of_scene(world, (await latest_scene(world)).id) if "when" in p.content
    ]
    assert proposal.content["when"] == "tidewater_age.year_12"

    card = await emu.invoke(chan, pat, "canon entity", name="Mara", as_of_date="tidewater.year_12")
    assert card.ephemeral and card.content == NO_TIDEWATER, card.content
    shown = await emu.invoke(chan, pat, "canon entity", name="Mara", as_of_date="12 of the Tidewater Age")
    assert shown.embeds, shown.content


@SQL_RUN_BELOW
async def test_a_campaign_without_eras_takes_its_dates_as_before(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    started = await emu.invoke(chan, gm, "scene start", title="Arrival", date="412.3.17")
    assert "year 412" in embed_text(started.message["embeds"][0]), started.message


@SQL_RUN_BELOW
async def test_a_scene_card_says_its_status_and_a_short_scene_in_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="The Inn")
    await emu.send_message(chan, pat, "I order an ale.")
    running = embed_fields((await emu.invoke(chan, pat, "scene status")).embeds[0])
    assert running["Status"] == "Running" and running["Duration"] == "under a minute", running
    await emu.invoke(chan, pat, "propose fact", subject="Mara", attribute="title", value="Queen")
    await emu.invoke(chan, gm, "endscene")
    waiting = embed_fields((await emu.invoke(chan, pat, "scene status")).embeds[0])
    assert waiting["Status"] == "Waiting for the GM's canon review", waiting
    # The report left in the channel is not edited at the commit: its status says what stays true.
    scene = await latest_scene(world)
    await emu.click(review_cards(world)[0], f"lk:review:{scene.id}:accept_all", gm)
    await emu.click(review_cards(world)[0], f"lk:review:{scene.id}:commit", gm)
    posted = embed_fields(scene_report(emu, chan)["embeds"][0])
    assert posted["Status"] == "Ended; its canon review is below", posted


@SQL_RUN_BELOW
async def test_after_a_scene_ends_its_transcript_and_notes_use_the_channels_latest_scene(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="The Inn")
    await emu.send_message(chan, pat, "I order an ale.")
    await emu.invoke(chan, gm, "endscene")  # nothing proposed: the scene is done at once
    assert (await latest_scene(world)).status == "completed"

    transcript = await emu.invoke(chan, pat, "scene transcript")
    (text,) = transcript.files.values()
    assert "I order an ale." in text.decode()
    assert transcript.content == "Transcript of Scene 1: “The Inn” (ended): 1 turn.", transcript.content

    refused = await emu.invoke(chan, pat, "note add", text="Brann lies.", this_scene=True)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    kept = await emu.invoke(chan, gm, "note add", text="Brann lies.", this_scene=True)
    assert "scene 1, “The Inn” (ended)" in embed_text(kept.embeds[0]), embed_text(kept.embeds[0])
