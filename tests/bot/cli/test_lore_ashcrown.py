"""How /lore reads the calendar's words before the shipped glossary's, on a small world of our own
(tests/fixtures/ashcrown): years After the Crowning ("12 AC", the glossary's armor class), a month called Max (its
maximum) and a GM-only era abbreviated "SR" (its short rest), asked in several forms; a campaign without the
calendar, where "AC" is still armor class; a term the GM adds outranks the calendar. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "ashcrown"
CAMPAIGN = "ashcrown"
FILES = ("places", "folk", "chronicle", "hidden")


def ingest(runner: CliRunner, campaign: str, path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(path), "-c", campaign])
    assert result.exit_code == 0 and "problem" not in result.output, result.output


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database: the Ashcrown world with its calendar and house rules, and a campaign of the
    house rules alone (no calendar)."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    ingest(runner, CAMPAIGN, WORLD / "rules.md")
    assert runner.invoke(app, ["campaign", "create", "plain"]).exit_code == 0
    ingest(runner, "plain", WORLD / "rules.md")
    return runner


#: What happened in a year: each event on its day, then what it was.
GRANARY = (
    "The Burning of the Granary took place at Ashcrown on 5 Max, year 12 of After the Crowning. The royal granary "
    "burned in a dry wind; Wenna Holt carried the seed-grain out."
)
HILL_FORT = (
    "The Founding of the Hill Fort took place at Ashcrown in year 3 of the Dawn Reckoning. The first stones of the "
    "hill fort were laid by the clans of the Dawn Reckoning."
)
ARMOR_CLASS = (
    "Your armor class is 10 plus your Dexterity modifier, plus the bonus of the armor and shield you wear."
)
SHORT_REST = "A short rest is at least 1 hour long."

#: Question -> its whole answer, as a player asks in Ashcrown.
READS = {
    "what happened in 12 AC": GRANARY,
    "what happened in AC 12": GRANARY,
    "events of 12 AC": GRANARY,
    "events of AC 12": GRANARY,
    "what happened in Max of 12 AC": GRANARY,
    "what happened in the year 12 AC": GRANARY,
    "who was born in 12 AC": "Wenna Holt was born on 14 Rainmoot, year 12 of After the Crowning.",
    "who died in 14 AC": "Osric Marl died on 20 Max, year 14 of After the Crowning.",
    "how old was Edric in 12 AC": "Edric Vale was about 10 years old in 12 AC: born in year 2.",
    # "DR" is no shipped term: read as it always was.
    "what happened in 3 DR": HILL_FORT,
    "events of DR 3": HILL_FORT,
    # The house rules still answer in their own words.
    "how is armor class calculated": ARMOR_CLASS,
    "how long is a long rest": "A long rest is at least 8 hours of sleep or light activity.",
}


def test_the_calendar_s_words_outrank_the_shipped_glossary(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


def test_without_the_era_ac_is_armor_class(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["what is AC", "how is AC calculated", "how do I work out my AC", "events of 12 AC"]
    answers = ask_world(cli, tmp_path, "plain", asked, citations=False)
    assert answers == {
        "what is AC": ARMOR_CLASS,
        "how is AC calculated": ARMOR_CLASS,
        "how do I work out my AC": ARMOR_CLASS,
        "events of 12 AC": "Nothing the table knows answers “events of 12 AC”.",
    }


def test_a_gm_only_era_s_abbreviation_is_read_for_a_player_as_in_any_campaign(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = ["what happened in 55 SR", "events of SR 55", "how long is an SR", "what happened in 56 SR"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    # "SR" is a short rest for a player, as in a campaign without the hidden era: nothing hints at it.
    assert player == dict.fromkeys(asked, SHORT_REST)
    plain = ask_world(cli, tmp_path, "plain", asked, citations=False)
    assert plain == player
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[:2], gm=True, citations=False)
    drowned = (
        "The Drowning of the Old Court took place at Ashcrown in year 55 of the Sunken Reign. The old court sank "
        "into the marsh below the hill."
    )
    assert gm == dict.fromkeys(asked[:2], drowned)


def listed(cli: CliRunner, campaign: str) -> dict[str, tuple[str, bool]]:
    result = cli.invoke(app, ["glossary", "list", "-c", campaign, "--json"])
    assert result.exit_code == 0, result.output
    return {e["term"]: (e["meaning"], e["own"]) for e in json.loads(result.stdout)}


def test_the_glossary_lists_the_shipped_terms_a_question_is_read_through(cli: CliRunner) -> None:
    # "ac", "max" and "sr" (the GM's calendar has the hidden era) are the calendar's here, not the glossary's.
    assert not {"ac", "max", "sr"} & listed(cli, CAMPAIGN).keys()
    assert listed(cli, CAMPAIGN)["lr"] == ("long rest", False)
    assert {"ac", "max", "sr", "lr"} <= listed(cli, "plain").keys()


def test_a_term_the_gm_added_outranks_the_calendar(cli: CliRunner, tmp_path: Path) -> None:
    # This table says "AC" for armor class, and its GM chose that over the era's abbreviation.
    added = cli.invoke(app, ["glossary", "add", "AC", "armor class", "-c", CAMPAIGN])
    assert added.exit_code == 0, added.output
    asked = ["what is AC", "what happened in 12 After the Crowning", "what happened in 12 AC"]
    answers = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert answers["what is AC"] == ARMOR_CLASS
    assert answers["what happened in 12 After the Crowning"] == GRANARY  # the era by its name
    assert "Burning of the Granary" not in answers["what happened in 12 AC"]
    assert listed(cli, CAMPAIGN)["ac"] == ("armor class", True)


#: The calendar with a today in the GM-only Sunken Reign, which the block names too (its abbreviation, its span).
HIDDEN_TODAY = (WORLD / "calendar.yaml").read_text(encoding="utf-8").replace(
    "months:", "  - {name: The Sunken Reign, abbreviation: SR}\nmonths:"
) + "today: 3 Emberly, year 60 of the Sunken Reign\n"
AGES = ["how old is Edric", "how old is Wenna Holt", "what happened in 55 SR", "how long is an SR"]


def set_calendar(cli: CliRunner, tmp_path: Path, text: str) -> None:
    path = tmp_path / "calendar.yaml"
    path.write_text(text, encoding="utf-8")
    result = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, "--set", str(path)])
    assert result.exit_code == 0, result.output


def test_a_today_in_a_gm_only_era_is_no_date_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    before = ask_world(cli, tmp_path, CAMPAIGN, AGES, citations=False)
    set_calendar(cli, tmp_path, HIDDEN_TODAY)
    player = ask_world(cli, tmp_path, CAMPAIGN, AGES, citations=False)
    # Word for word the answers of the campaign before its GM set a today: no age counted, no era named.
    assert player == before
    assert player["how old is Edric"] == (
        "Edric Vale was born in year 2; canon holds no date for today to count an age from."
    )
    assert player["how long is an SR"] == SHORT_REST
    assert not any("Sunken" in answer or "60" in answer for answer in player.values())
    gm = ask_world(cli, tmp_path, CAMPAIGN, AGES[:2], gm=True, citations=False)
    assert gm["how old is Edric"] == (
        "Edric Vale is about 58 years old, born in year 2; the story stands at 3 Emberly, year 60 of the Sunken "
        "Reign."
    )


def test_a_today_in_an_era_a_player_may_see_counts_their_ages(cli: CliRunner, tmp_path: Path) -> None:
    set_calendar(
        cli, tmp_path, HIDDEN_TODAY.replace("year 60 of the Sunken Reign", "year 20 of After the Crowning")
    )
    player = ask_world(cli, tmp_path, CAMPAIGN, AGES[:1], citations=False)
    assert player["how old is Edric"] == (
        "Edric Vale is about 18 years old, born in year 2; the story stands at 3 Emberly, year 20 of After the "
        "Crowning."
    )
