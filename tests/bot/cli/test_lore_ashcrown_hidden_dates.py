"""Dates in the GM-only Sunken Reign of the Ashcrown world (tests/fixtures/ashcrown), on everything a player reads
that is dated there: a public person born in it and a public event that took place in it, asked of `lorekeeper lore`;
their entity card and timeline (`lorekeeper canon entity`, `canon timeline`), the timeline picture and the family
tree; the header and report of a scene dated in it. A player reads no date there, as for a date nobody knows: never the era's name, abbreviation or key; the GM
reads the era's name. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from typer.testing import CliRunner

from bot.app import build_canon
from bot.cli.main import app
from bot.services.calendars import CalendarService
from canon import campaigns
from canon.calendar import parse_date
from canon.models import Viewer
from canon.render.from_graph import family_tree_of, timeline_of
from canon.story_clock import date_and_key
from cogs import embeds
from memory.scene_service import SceneService
from memory.scenes import Actor
from tests.bot.cli.test_lore_ashcrown import CAMPAIGN, FILES, WORLD, cli
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more, import_world

__all__ = ["cli"]

#: A public person born in the GM-only era, and a public event that took place in it.
MARSH = """kind: characters
characters:
  - id: marra_quill
    name: Marra Quill
    born: sunken_reign.52.2.3
    status: alive
    home: ashcrown
    description: A reed-cutter of the marsh below the hill.
"""
STONES = """kind: timeline
events:
  - id: raising_of_the_marsh_stones
    name: Raising of the Marsh Stones
    era: sunken_reign
    year: 57
    month: 3
    day: 9
    location: ashcrown
    participants: [marra_quill]
    description: Marra Quill raised the marsh stones at Ashcrown.
"""
#: What no player may read: the era's name, its abbreviation, its key, or the dated years.
LEAK = re.compile(r"sunken|\bSR\b|\b5[27]\b|hidden|secret|GM", re.IGNORECASE)
ASKED = [
    "when was Marra Quill born",
    "who is Marra Quill",
    "when did the Raising of the Marsh Stones happen",
    "when was the Raising of the Marsh Stones",
    # Its year read on the player's calendar (57 and 52 are years After the Crowning too): nothing happened then.
    "what happened in year 57",
    "what happened in 57 AC",
    "who was born in 52 AC",
]


def _world(cli: CliRunner, tmp_path: Path) -> None:
    import_more(cli, CAMPAIGN, tmp_path, "marsh.yaml", MARSH)
    import_more(cli, CAMPAIGN, tmp_path, "stones.yaml", STONES)


def _canon(cli: CliRunner, *args: str, gm: bool = False) -> str:
    result = cli.invoke(app, ["canon", *args, "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_fact_and_an_event_dated_in_a_gm_only_era_read_with_no_date_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    _world(cli, tmp_path)
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    years = ASKED[-3:]
    assert not [a for q, a in player.items() if q not in years and LEAK.search(a)], player
    assert "Marra Quill" in player["who is Marra Quill"]
    # The question's own words said back, nothing found.
    assert [player[q] for q in years] == [f"Nothing the table knows says {q}." for q in years], player
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED, gm=True, citations=False)
    assert "year 52 of the Sunken Reign" in gm["when was Marra Quill born"], gm
    assert (
        "9 Highsun, year 57 of the Sunken Reign" in gm["when did the Raising of the Marsh Stones happen"]
    ), gm


def test_an_entity_card_and_timeline_in_a_gm_only_era_read_with_no_date_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    _world(cli, tmp_path)
    card = _canon(cli, "entity", "Marra Quill")
    timeline = _canon(cli, "timeline", "Raising of the Marsh Stones")
    for text in (card, timeline):
        assert "Marra Quill" in text or "Marsh Stones" in text
        assert not LEAK.search(text), text
    assert (
        "Marra Quill is alive" in card
        and "born" not in card.split("Marra Quill is alive", 1)[1].split("\n")[0]
    )
    gm_card = _canon(cli, "entity", "Marra Quill", gm=True)
    gm_timeline = _canon(cli, "timeline", "Raising of the Marsh Stones", gm=True)
    assert "3 Rainmoot, year 52 of the Sunken Reign" in gm_card, gm_card
    assert "9 Highsun, year 57 of the Sunken Reign" in gm_timeline, gm_timeline


async def _scene_texts(target: DatabaseTarget) -> dict[Viewer, str]:
    """Start a scene dated in the GM-only era, as `/scene start` does; return its header and report as each reads."""
    db = target.open()
    try:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, CAMPAIGN)
        scenes = SceneService(db)
        stored, key = date_and_key(parse_date("sunken_reign.60.1.3"))
        actor = Actor(id=1, name="Gina", is_gm=True)
        scene = await scenes.start_scene(
            campaign_id=campaign.id,
            guild_id=None,
            channel_id=7,
            title="Below the hill",
            location="Ashcrown",
            actor=actor,
            world_date=stored,
            world_key=key,
        )
        report = await scenes.report(scene.id)
        calendars = CalendarService(db, build_canon(db, scenes).access)
        said: dict[Viewer, str] = {}
        # The calendar a caller forgets to ask of is a player's: the header posted in the channel.
        for viewer, calendar in ((Viewer.PLAYER, await calendars.calendar(campaign)),
                                 (Viewer.GM, await calendars.calendar(campaign, Viewer.GM))):  # fmt: skip
            words = calendar.words()
            parts = [
                embeds.scene_started_embed(scene, words).to_dict(),
                embeds.scene_report_embed(report, heading="Scene ended", posted=True, words=words).to_dict(),
            ]
            said[viewer] = " ".join(
                [embeds.scene_time_text(scene, words)]
                + [f"{f['name']}: {f['value']}" for part in parts for f in part.get("fields", [])]
            )
        return said
    finally:
        await db.dispose()


def test_a_scene_dated_in_a_gm_only_era_has_no_date_in_its_header_for_a_player(
    cli_env: DatabaseTarget,
) -> None:
    import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)  # the world, no house rules
    said = asyncio.run(_scene_texts(cli_env))
    assert not LEAK.search(said[Viewer.PLAYER].replace("60", "")), said[Viewer.PLAYER]
    assert "60" not in said[Viewer.PLAYER] and "In-world date" not in said[Viewer.PLAYER]
    assert "is now an unknown date" in said[Viewer.PLAYER]
    assert "In-world date: 3 Emberly, year 60 of the Sunken Reign" in said[Viewer.GM]


async def _pictures(target: DatabaseTarget) -> dict[Viewer, tuple[object, object]]:
    """Return, as each reads them, the timeline picture's Marsh Stones (None when not drawn) and Marra's tree."""
    db = target.open()
    try:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, CAMPAIGN)
            access = build_canon(db, SceneService(db)).access
            drawn: dict[Viewer, tuple[object, object]] = {}
            for viewer in (Viewer.PLAYER, Viewer.GM):
                reader = await access.reader(session, campaign, viewer)
                events = (await timeline_of(reader)).events
                stones = next((e for e in events if e.name == "Raising of the Marsh Stones"), None)
                (marra,) = (await family_tree_of(reader, "Marra Quill")).people
                drawn[viewer] = (stones and (stones.year, stones.era), (marra.born, marra.died))
        return drawn
    finally:
        await db.dispose()


def test_the_timeline_picture_and_family_tree_place_nothing_by_a_gm_only_era_s_years_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    _world(cli, tmp_path)
    drawn = asyncio.run(_pictures(cli_env))
    # Undated for a player, as an event nobody dated: it stands nowhere on the year axis; no year under Marra.
    assert drawn[Viewer.PLAYER] == (None, (None, None))
    assert drawn[Viewer.GM][0] is not None and drawn[Viewer.GM][0][0] == 57  # type: ignore[index]
    assert drawn[Viewer.GM][1] == ("52", None)
