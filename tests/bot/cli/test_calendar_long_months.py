"""Dates on days past the 31st, in a small world of our own whose months run 40 to 45 days (the Sluice Age): the
card, the timeline picture, `/lore`, a scene's header and the continuity check all word and place "38 Silting"
as they do "14 Eelrun"; none shows the stored form."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.app import build_canon
from bot.cli.main import app
from bot.services.calendars import CalendarService
from canon import campaigns
from canon.models import Viewer
from canon.render.from_graph import timeline_of
from cogs import embeds
from memory.scene_service import SceneService
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, scene_on

CAMPAIGN = "sluice"
FILES = {
    "calendar": """
eras:
  - {name: The Sluice Age, abbreviation: SA, start: 413}
months:
  - {name: Eelrun, days: 40}
  - {name: Reedfall, days: 42}
  - {name: Mudwake, days: 45}
  - {name: Frostlock, days: 40}
  - {name: Tidemoot, days: 44}
  - {name: Silting, days: 45}
today: 45 Silting, 640 SA
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Dry Centuries, abbreviation: DC, start: 1, end: 412}
  - {name: The Sluice Age, abbreviation: SA, start: 413}
events:
  - name: Treaty of Stillwater
    date: 38 Silting, 638 SA
    description: The sluice lords signed at Stillwater.
  - name: Battle of Greyweir
    date: 14 Eelrun, 612 SA
    description: A fight at the weir.
  - name: Flooding of the Lower Locks
    date: 44 Tidemoot, 630 SA
    participants: [Bastien Marrow]
    description: The lower locks gave way.
""",
    "folk": """
characters:
  - name: Bastien Marrow
    description: A lockkeeper.
    home: Saltcomb
    born: 43 Mudwake, 590 SA
    died: 41 Tidemoot, 630 SA
---
locations:
  - name: Saltcomb
    type: town
    description: A salt town.
""",
}
STORED = "day_"


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Sluice Age imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "sluice", FILES)


def _canon(cli: CliRunner, *args: str, gm: bool = False) -> str:
    result = cli.invoke(app, ["canon", *args, "-c", CAMPAIGN, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_day_past_the_31st_is_worded_on_cards_as_any_other(cli: CliRunner) -> None:
    treaty = _canon(cli, "entity", "Treaty of Stillwater")
    bastien = _canon(cli, "entity", "Bastien Marrow", gm=True)
    assert "38 Silting, year 638 of the Sluice Age" in treaty, treaty
    assert "41 Tidemoot, year 630 of the Sluice Age" in bastien, bastien
    assert "43 Mudwake, year 590 of the Sluice Age" in _canon(cli, "timeline", "Bastien Marrow")
    for text in (treaty, bastien):
        assert STORED not in text and "sluice_age" not in text, text


def test_lore_tells_a_day_past_the_31st(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, ["when was the Treaty of Stillwater?"], citations=False)
    answer = said["when was the Treaty of Stillwater?"]
    assert "38 Silting" in answer and STORED not in answer, answer


def test_the_calendar_reads_back_the_stored_day_in_words(cli: CliRunner) -> None:
    read = _canon(cli, "calendar", "--read", "sluice_age.year_638.month_6.day_45")
    assert "45 Silting, year 638 of the Sluice Age" in read, read


async def _drawn_and_header(target: DatabaseTarget) -> tuple[dict[str, tuple[int | None, int | None]], str]:
    db = target.open()
    try:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, CAMPAIGN)
            scenes = SceneService(db)
            reader = await build_canon(db, scenes).access.reader(session, campaign, Viewer.PLAYER)
            events = (await timeline_of(reader)).events
            drawn = {e.name: (e.year, e.month) for e in events}
        scene = await scenes.current_scene(7)
        words = (await CalendarService(db, build_canon(db, scenes).access).calendar(campaign)).words()
        return drawn, embeds.scene_time_text(scene, words)
    finally:
        await db.dispose()


def test_the_timeline_picture_and_a_scene_place_a_day_past_the_31st(
    cli: CliRunner, cli_env: DatabaseTarget
) -> None:
    scene_on(cli_env, CAMPAIGN, "sluice_age.year_639.month_3.day_44")
    drawn, header = asyncio.run(_drawn_and_header(cli_env))
    assert drawn["Treaty of Stillwater"] == (638, 6)
    assert drawn["Battle of Greyweir"] == (612, 1)
    assert "44 Mudwake, year 639 of the Sluice Age" in header, header


def test_the_continuity_check_finds_a_deed_after_a_death_past_the_31st(cli: CliRunner) -> None:
    result = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    checked = result.output
    assert result.exit_code == 1 and "The dead acting" in checked, checked  # a problem found exits 1
    assert "Bastien Marrow" in checked and "Flooding of the Lower Locks" in checked, checked
    assert STORED not in checked, checked
