"""A campaign with its own calendar through Discord: every path that says a date says it in the calendar's words.

The review card's picker, the public recap and "Previously on…", `/retcon` and `/canon conflicts` name the
months ("3 Frostmoot") and the eras with their capitals ("the Third Age"), never "day 3 of month 5"."""

from __future__ import annotations

from canon.campaign_calendar import calendar_from
from canon.date_reading import read_date
from tests.e2e.canon_flow import embed_text, latest_scene, plain, review_cards
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_continuity_e2e import import_yaml
from tests.e2e.test_recap_e2e import recaps_posted

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")

TIMELINE = """\
kind: timeline
era: third_age
name: The Third Age
start: 1
end: 600
"""

CALENDAR = """\
eras:
  - {key: third_age, name: The Third Age, abbreviation: TA}
months: [Deepwinter, Thaw, Seedtime, Highsun, Frostmoot, Lastlight]
"""

DEATH = "Oswin Harrow dies on 3 Frostmoot, year 363 of the Third Age"
BIRTH = "Mirela Harrow is born in year 330 of the Third Age"


def in_words(text: str) -> None:
    """Assert a text says its dates in the calendar's words: month names, the era with its capitals."""
    assert "Frostmoot" in text, text
    assert "of month" not in text and "the third age" not in text and "third_age" not in text, text


async def play_the_scene(world: World) -> None:
    """The GM sets the calendar; in scene 1 Oswin dies, Mirela's birth and the Harrows' seat are proposed."""
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "timeline.yaml", TIMELINE)
    set_ = await emu.invoke(chan, gm, "calendar set", text=CALENDAR)
    assert "Frostmoot" in (set_.content or ""), set_.content
    for name, kind in (("Oswin Harrow", "NPC"), ("Mirela Harrow", "NPC"), ("The Harrows", "Faction")):
        await emu.invoke(chan, gm, "canon add entity", name=name, type=kind)
    await emu.invoke(chan, gm, "scene start", title="The frost", date="3 Frostmoot, 363 TA")
    await emu.send_message(chan, pat, "Oswin falls through the ice and does not come up.")
    for options in (
        {"subject": "Oswin Harrow", "state": "dead", "when": "3 Frostmoot, 363 TA"},
        {"subject": "Mirela Harrow", "state": "alive", "when": "year 330"},
    ):
        told = await emu.invoke(chan, pat, "propose state", turns="1", **options)
        assert told.embeds, told.content
    await emu.invoke(chan, pat, "propose fact", subject="The Harrows", attribute="seat", value="Coldwater")
    await emu.invoke(chan, gm, "endscene")


async def test_the_review_picker_and_the_recaps_say_the_calendars_months(world: World) -> None:
    await play_the_scene(world)
    emu, chan, gm = world.emu, world.channel, world.gm
    (card,) = review_cards(world)
    labels = [
        o["label"]
        for row in card["components"]
        for c in row["components"]
        if c["type"] == 3
        for o in c["options"]
    ]
    picked = " | ".join(labels)
    in_words(picked)
    assert any(DEATH in label for label in labels), labels
    assert any(BIRTH in label for label in labels), labels
    assert any("The Harrows' headquarters: Coldwater" in label for label in labels), labels

    scene = await latest_scene(world)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    (recap,) = recaps_posted(world)
    text = embed_text(recap["embeds"][0])
    assert text.startswith("Recap of scene 1")
    in_words(text)
    assert DEATH in text and BIRTH in text and "The Harrows' headquarters: Coldwater" in text, text
    previously = embed_text((await emu.invoke(chan, world.quinn, "recap")).embeds[0])
    in_words(previously)
    assert DEATH in previously, previously


async def test_retcon_and_conflicts_say_the_calendars_months(world: World) -> None:
    await play_the_scene(world)
    emu, chan, gm = world.emu, world.channel, world.gm
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    # Dead on 3 Frostmoot, then wounded on 9 Frostmoot: a change of state the world forbids, with its dates.
    await emu.invoke(
        chan, gm, "canon add state", subject="Oswin Harrow", state="wounded", when="9 Frostmoot, 363 TA"
    )
    listed = await emu.invoke(chan, gm, "canon conflicts")
    conflicts = embed_text(listed.embeds[0])
    assert "conflict" in conflicts.casefold(), conflicts
    in_words(conflicts)
    assert "Oswin Harrow died on 3 Frostmoot, year 363 of the Third Age" in conflicts, conflicts

    (choice,) = [
        c for c in await emu.autocomplete(chan, gm, "retcon", "fact", "Oswin dead") if "dead" in c["name"]
    ]
    retconned = await emu.invoke(chan, gm, "retcon", fact=choice["value"], rationale="He was only stunned")
    said = embed_text(retconned.embeds[0])
    assert said.startswith("Retcon"), said
    in_words(said)
    assert "3 Frostmoot, year 363 of the Third Age" in said, said
    # "Previously on…" read after the retcon finds the fact it told, in the calendar's words, and strikes it.
    previously = plain(embed_text((await emu.invoke(chan, world.quinn, "recap")).embeds[0])).replace("**", "")
    assert f"Since retconned, no longer canon: ~~{DEATH}~~" in previously, previously


def test_what_the_sentences_say_reads_back_as_the_same_date() -> None:
    calendar = calendar_from(
        {
            "eras": [{"key": "third_age", "name": "The Third Age", "abbreviation": "TA"}],
            "months": ["Deepwinter", "Thaw", "Seedtime", "Highsun", "Frostmoot"],
        },
        {"third_age": ("The Third Age", 1, 600)},
    )
    for key in ("third_age.year_363.month_5.day_3", "third_age.year_330", "third_age.year_363.month_5"):
        said = calendar.words().when(key)
        assert said.startswith(("on ", "in ")) and "of month" not in said
        assert str(read_date(said, calendar).date) == key, said
