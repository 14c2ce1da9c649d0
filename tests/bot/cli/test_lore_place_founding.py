"""A place's founding date (`founded:` on a gazetteer's location or region), on a small world of our own (the Salt
Coast): imported, read by `/lore` in the calendar's words ("when was Saltgate founded", "how old is Saltgate"), kept
for the GM alone by `gm_only: [founded]` (a player reads it word for word as a place no file dates, or a name
nobody wrote), refused at its line when it is no date, and a founding its founder or an event held there cannot
fit warned of at import. On SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import SALT_CALENDAR, asker, import_written

CAMPAIGN = "saltcoast"
FILES = {
    "calendar": SALT_CALENDAR,
    "annals": """
kind: timeline
eras:
  - {name: The Tide Reckoning, abbreviation: TR, start: 1}
events:
  - name: The Salt Fair
    date: 2 Ember, 625 TR
    location: Saltgate
""",
    "coast": """
characters:
  - name: Ansel Wick
    born: 570 TR
---
locations:
  - name: Saltgate
    type: harbour town
    founder: Ansel Wick
    founded: 3 Bloom, 601 TR
  - name: Greywater
    founded: 590 TR
    gm_only: [founded]
  - name: Hollowmere
  - name: Mossbank
    founder: Ansel Wick
    founded: 595 TR
    gm_only: [founded]
  - name: Fenwick
    founder: Ansel Wick
regions:
  - name: The Salt Coast
    founded: 520 TR
  - name: The Reed Isles
    founded: 700 TR
---
factions:
  - name: The Salt Wardens
    founded: 600 TR
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Salt Coast imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "coast", FILES)


ask = asker(CAMPAIGN)


READS = {
    "when was Saltgate founded?": "Saltgate was founded on 3 Bloom, year 601 of the Tide Reckoning.",
    "how old is Saltgate?": (
        "Saltgate is 39 years old: founded on 3 Bloom, year 601 of the Tide Reckoning, and the story stands at "
        "2 Ember, year 640 of the Tide Reckoning."
    ),
    "how old is the Salt Coast?": (
        "The Salt Coast is about 120 years old: founded in year 520 of the Tide Reckoning, and the story stands "
        "at 2 Ember, year 640 of the Tide Reckoning."
    ),
    "how old is the Reed Isles?": (
        "The Reed Isles were founded in year 700 of the Tide Reckoning; canon holds no date for today to count "
        "their age from."
    ),
    "who founded Saltgate?": "Ansel Wick founded Saltgate.",
    # A group's founding is counted from the same way.
    "how old are the Salt Wardens?": (
        "The Salt Wardens are about 40 years old: founded in year 600 of the Tide Reckoning, and the story "
        "stands at 2 Ember, year 640 of the Tide Reckoning."
    ),
}


def test_a_player_reads_when_a_place_was_founded_and_how_old_it_is(cli: CliRunner, tmp_path: Path) -> None:
    assert {q: a for q, a in ask(cli, tmp_path, list(READS)).items() if a != READS[q]} == {}


def test_a_founding_kept_for_the_gm_reads_to_a_player_as_none_or_as_no_place(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = ["when was {} founded?", "how old is {}?"]
    player = ask(
        cli, tmp_path, [q.format(p) for q in asked for p in ("Greywater", "Hollowmere", "Brackwater")]
    )
    for question in asked:
        hidden, undated, nowhere = (
            player[question.format(p)] for p in ("Greywater", "Hollowmere", "Brackwater")
        )
        assert (
            hidden == undated.replace("Hollowmere", "Greywater") == nowhere.replace("Brackwater", "Greywater")
        )
        assert "590" not in hidden, hidden
    # A public founder stays, undated: as a place whose founding no file dates.
    player = ask(cli, tmp_path, [q.format(p) for q in asked for p in ("Mossbank", "Fenwick")])
    for question in asked:
        hidden, undated = player[question.format("Mossbank")], player[question.format("Fenwick")]
        assert hidden == undated.replace("Fenwick", "Mossbank") and "595" not in hidden, hidden
    card = cli.invoke(app, ["canon", "entity", "Mossbank", "-c", CAMPAIGN]).output
    assert "595" not in card and "Ansel Wick founded Mossbank" in card, card
    gm = ask(cli, tmp_path, ["when was Greywater founded?", "how old is Greywater?"], gm=True)
    assert gm["when was Greywater founded?"] == "Greywater was founded in year 590 of the Tide Reckoning."
    assert gm["how old is Greywater?"].startswith("Greywater is about 50 years old: founded in year 590"), gm


def test_a_founding_that_is_no_date_is_refused_at_its_line(cli: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "more.yaml"
    path.write_text("locations:\n  - name: Brinemouth\n    founded: 4 Brinish, 71 TR\n", encoding="utf-8")
    said = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "nothing was written" in said, said
    assert 'line 3, column 14: "founded" is “4 Brinish, 71 TR”, which is no date' in said, said


def test_a_founding_before_its_founder_s_birth_or_after_an_event_there_is_a_warning(
    cli: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "late.yaml"
    path.write_text(
        "characters:\n  - name: Osric Vane\n    born: 585 TR\n---\n"
        "locations:\n  - name: Brineholt\n    founder: Osric Vane\n    founded: 580 TR\n"
        "  - name: Brinemouth\n    founded: 630 TR\n---\n"
        "kind: timeline\nevents:\n  - name: The First Catch\n    date: 3 Thaw, 612 TR\n    location: Brinemouth\n",
        encoding="utf-8",
    )
    said = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "2 warnings" in said, said
    assert (
        "Osric Vane acts before being born (year 585 of the Tide Reckoning): “Osric Vane founded Brineholt” "
        "(year 580 of the Tide Reckoning)." in said
    ), said
    assert (
        "“The First Catch” is held at Brinemouth (3 Thaw, year 612 of the Tide Reckoning) before Brinemouth was "
        "founded (year 630 of the Tide Reckoning)." in said
    ), said
    assert "tide_reckoning" not in said, said
