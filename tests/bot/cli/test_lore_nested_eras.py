"""A bare year asked of a calendar whose eras nest (Brinmoor): year 612 lies in the Salt Age and in the Long Calm,
an era canon sets within it, so "what happened in 612?" reads one year; a year one era alone holds
reads as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "brinmoor"
FILES = {
    "calendar": """
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1, end: 500}
  - {name: The Salt Age, abbreviation: SA, start: 501}
months: [Rime, Bloom, Sear, Wane]
today: 1 Bloom, 640 SA
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1, end: 500}
  - {name: The Salt Age, abbreviation: SA, start: 501}
  - name: The Long Calm
    abbreviation: LC
    parent_era: The Salt Age
    start: 610
    end: 630
events:
  - name: Raising of the Tidewall
    date: 3 Sear, 612 SA
    participants: [Hale Brune]
  - name: Burning of the Reedhall
    date: 499 RA
""",
    "folk": """
characters:
  - name: Hale Brune
    born: 580 SA
  - name: Ness Brune
    born: 612 SA
  - name: Lark Brune
    born: 600 SA
    adoptive_parents: [{name: Hale Brune, adopted: 2 Bloom, 612 SA}]
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_bare_year_in_an_era_and_its_sub_era_reads_one_way(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["what happened in 612?", "what happened in 612 SA?", "who was born in 612?"]
    for gm in (False, True):
        said = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=gm, citations=False)
        assert "Raising of the Tidewall" in said["what happened in 612?"], said
        assert said["what happened in 612?"] == said["what happened in 612 SA?"], said
        assert "Ness Brune" in said["who was born in 612?"], said
        # A child taken in that year is among what happened in it.
        assert (
            "Lark Brune was adopted by Hale Brune on 2 Bloom, year 612 of the Salt Age" in said[questions[0]]
        )


def test_a_year_one_era_holds_reads_in_it_as_before(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, ["what happened in 499?"], citations=False)
    assert "Burning of the Reedhall" in said["what happened in 499?"], said


def test_a_year_its_era_never_reached_is_said_plainly(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        "what happened in 612 RA?",
        "who was born in year 40 of the Salt Age?",
        "what happened in 499 RA?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert said[questions[0]] == (
        "Year 612 of the Reed Age never came: the Reed Age ended in year 500. Year 612 falls in the Salt Age."
    ), said
    assert said[questions[1]] == (
        "Year 40 of the Salt Age never came: the Salt Age began in year 501. Year 40 falls in the Reed Age."
    ), said
    assert "Burning of the Reedhall" in said[questions[2]], said
