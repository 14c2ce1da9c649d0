"""A person's ties dated (`ties:` items with `from:` and `to:`), on a small world of our own (the Salt Coast):
imported, read by `/lore` with their spans in the calendar's words ("since when are Mara and Osric rivals", "were
Mara and Hale ever allies", "who were Mara's allies in 615"), a tie over read in the past, a tie kept for the GM
read by a player word for word as a name nobody wrote, and a bad date refused at its line. On SQLite, then
PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import SALT_ANNALS, SALT_CALENDAR, asker, import_written

CAMPAIGN = "saltties"
FILES = {
    "calendar": SALT_CALENDAR,
    "annals": SALT_ANNALS,
    "folk": """
characters:
  - name: Mara Quell
    ties:
      - {name: Osric Vane, is: rival, from: 610 TR}
      - {name: Dunstan Reed, is: sworn enemy, from: 3 Thaw, 612 TR, to: 620 TR}
      - {name: Hale Brun, is: ally, from: 605 TR, to: 618 TR}
      - {name: Isen Gale, is: ally, from: 612 TR, gm_only: true}
      - name: Tamsin Roe
        is: ally
        from: 2 Bloom, 615 TR
      - {name: Cole Brun, is: friend}
  - name: Osric Vane
  - name: Dunstan Reed
  - name: Hale Brun
  - name: Isen Gale
  - name: Tamsin Roe
  - name: Cole Brun
""",
}
TR = "of the Tide Reckoning"


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Salt Coast's people imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "coast", FILES)


ask = asker(CAMPAIGN)


READS = {
    "since when are Mara Quell and Osric Vane rivals?": f"Mara Quell and Osric Vane have been rivals since year 610 {TR}.",
    "how long have Mara Quell and Dunstan Reed been sworn enemies?": (
        f"Mara Quell and Dunstan Reed were sworn enemies from 3 Thaw, year 612 {TR} to year 620 {TR}."
    ),
    "since when are Mara Quell and Cole Brun friends?": (
        "Mara Quell and Cole Brun are friends; nothing the table knows says since when."
    ),
    "were Mara Quell and Hale Brun ever allies?": (
        f"Yes: Mara Quell and Hale Brun were allies, from year 605 to 618 {TR}."
    ),
    "were Mara Quell and Hale Brun allies in 630?": (
        f"No: Mara Quell and Hale Brun were allies from year 605 to 618 {TR}, not in year 630."
    ),
    "are Mara Quell and Tamsin Roe allies?": f"Yes: Mara Quell and Tamsin Roe are allies, since 2 Bloom, year 615 {TR}.",
    "who were Mara Quell's allies in 615?": (
        f"In year 615, Mara Quell's allies were Hale Brun (from year 605 to 618 {TR}) and Tamsin Roe (since 2 "
        f"Bloom, year 615 {TR})."
    ),
    "who were Mara Quell's enemies in 615?": (
        f"In year 615, Mara Quell's enemy was Dunstan Reed (from 3 Thaw, year 612 {TR} to year 620 {TR})."
    ),
    # A tie over reads in the past, however it is asked.
    "how are Mara Quell and Dunstan Reed related?": (
        f"Mara Quell was an enemy of Dunstan Reed, from 3 Thaw, year 612 {TR} to year 620 {TR}."
    ),
}


def test_a_player_reads_a_tie_s_span_in_the_calendar_s_words(cli: CliRunner, tmp_path: Path) -> None:
    assert {q: a for q, a in ask(cli, tmp_path, list(READS)).items() if a != READS[q]} == {}


def test_a_tie_kept_for_the_gm_reads_to_a_player_as_a_name_nobody_wrote(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = [
        "were Mara Quell and {} ever allies?",
        "since when are Mara Quell and {} allies?",
        "who were {}'s allies in 615?",
    ]
    player = ask(cli, tmp_path, [q.format(n) for q in asked for n in ("Isen Gale", "Brack Marrow")])
    for question in asked:
        hidden, nobody = player[question.format("Isen Gale")], player[question.format("Brack Marrow")]
        assert hidden == nobody.replace("Brack Marrow", "Isen Gale"), (hidden, nobody)
    listed = ask(cli, tmp_path, ["who were Mara Quell's allies in 615?"])
    assert "Isen" not in listed["who were Mara Quell's allies in 615?"]
    card = cli.invoke(app, ["canon", "entity", "Mara Quell", "-c", CAMPAIGN]).output
    assert "Isen" not in card and "(since year 610 of the Tide Reckoning)" in card, card
    gm = ask(cli, tmp_path, [asked[1].format("Isen Gale")], gm=True)
    assert gm == {
        asked[1].format("Isen Gale"): f"Mara Quell and Isen Gale have been allies since year 612 {TR}."
    }


def _ingest(cli: CliRunner, tmp_path: Path, text: str) -> str:
    path = tmp_path / "more.yaml"
    path.write_text(text, encoding="utf-8")
    return cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output


def test_a_tie_s_bad_date_or_an_end_before_its_start_is_refused_at_its_line(
    cli: CliRunner, tmp_path: Path
) -> None:
    head = "characters:\n  - name: Wenna Dray\n    ties:\n"
    said = _ingest(cli, tmp_path, head + "      - {name: Osric Vane, is: rival, from: 4 Brinish, 612 TR}\n")
    assert "nothing was written" in said, said
    assert 'line 4, column 45: "from" is “4 Brinish, 612 TR”, which is no date' in said, said
    said = _ingest(
        cli, tmp_path, head + "      - {name: Osric Vane, is: ally, from: 620 TR, to: 3 Thaw, 612 TR}\n"
    )
    assert (
        'line 4, column 56: "to" (3 Thaw, 612 TR) is before "from" (620 TR): a tie holds from one to the other'
        in said
    ), said
    # One tie said on both sides: dated once, or the same on both.
    said = _ingest(
        cli,
        tmp_path,
        head + "      - {name: Tobin Dray, is: rival, from: 612 TR}\n"
        "  - name: Tobin Dray\n    ties: [{name: Wenna Dray, is: rival, from: 614 TR}]\n",
    )
    assert "line 6, column 19: this tie is dated otherwise than on line 4" in said, said
    card = cli.invoke(app, ["canon", "entity", "Wenna Dray", "-c", CAMPAIGN, "--as", "gm"]).output
    assert "Wenna Dray (" not in card, card


def test_a_card_says_a_tie_that_is_over_in_the_past_and_one_that_holds_in_the_present(cli: CliRunner) -> None:
    card = cli.invoke(app, ["canon", "entity", "Mara Quell", "-c", CAMPAIGN]).output
    assert f"Mara Quell was an ally of Hale Brun (from year 605 to 618 {TR})" in card, card
    assert f"Mara Quell was an enemy of Dunstan Reed (from 3 Thaw, year 612 {TR} to year 620 {TR})" in card, (
        card
    )
    assert f"Mara Quell is a rival of Osric Vane (since year 610 {TR})" in card, card
    assert "Mara Quell is a friend of Cole Brun" in card, card
    # From the other end, and as of a year the ties still held: the present.
    assert (
        "Mara Quell was an ally of Hale Brun"
        in cli.invoke(app, ["canon", "entity", "Hale Brun", "-c", CAMPAIGN]).output
    )
    then = cli.invoke(app, ["canon", "entity", "Mara Quell", "-c", CAMPAIGN, "--as-of", "615 TR"]).output
    assert f"Mara Quell is an ally of Hale Brun (from year 605 to 618 {TR})" in then, then
    assert "Mara Quell is an enemy of Dunstan Reed" in then and " was " not in then, then


def test_a_player_s_card_and_timeline_say_where_lines_came_from_without_files_or_line_numbers(
    cli: CliRunner,
) -> None:
    """A player reads "from the lore files": a file's line numbers would show a gap where a GM-only tie is
    written (Isen Gale's, between Dunstan Reed's and Tamsin Roe's); the GM reads the file and line."""
    for command in ("entity", "timeline"):
        player = cli.invoke(app, ["canon", command, "Mara Quell", "-c", CAMPAIGN]).output
        assert "from the lore files" in player and not re.search(r"line \d", player), player
        assert ".yaml" not in player, player
        gm = cli.invoke(app, ["canon", command, "Mara Quell", "-c", CAMPAIGN, "--as", "gm"]).output
        assert "folk.yaml, line 5" in gm and "[gm only]" in gm, gm
    near = cli.invoke(app, ["canon", "neighbours", "Mara Quell", "-c", CAMPAIGN]).output
    assert "Mara Quell is a rival of Osric Vane" in near and not re.search(r"line \d", near), near
