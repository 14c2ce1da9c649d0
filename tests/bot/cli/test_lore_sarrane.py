"""What a GM who wrote a world from the docs alone asked the YAML format to say, imported and read back through
`lorekeeper` on a small world of our own (tests/fixtures/sarrane): a missing person's card and answers, one alias
kept for the GM among public ones, an event's date in the calendar's words, a
marriage's date, an in-law of another lineage.

A field the world hides (its lines marked "# secret") reads to a player word for word as the same world without
it: the world is imported a second time without those lines, and the answers and cards compared.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "sarrane"
CAMPAIGN = "sarrane"
FILES = ("chronicle", "house", "folk")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


def card(cli: CliRunner, name: str, *, gm: bool = False, campaign: str = CAMPAIGN) -> str:
    """Return an entity's card as the command line prints it, its evidence's file and line left out."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return re.sub(r"from (?:absent|sarrane)/\w+\.yaml, line \d+", "from the file", result.output)


def _without_secrets(tmp_path: Path) -> Path:
    """Return a copy of the world without its GM-only lines: what a player's answers must read like."""
    folder = tmp_path / "absent"
    folder.mkdir()
    for name in (*FILES, "calendar"):
        lines = (WORLD / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if not line.rstrip().endswith("# secret")]
        (folder / f"{name}.yaml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


def test_a_missing_person_reads_as_missing_never_alive(cli: CliRunner, tmp_path: Path) -> None:
    haskel = card(cli, "Haskel Sarrane")
    assert "State: Haskel Sarrane is missing (born in year 631 of the Crown Years)" in haskel
    assert "alive" not in haskel
    # The states a status may name beside a birth: a prisoner, a death with no date.
    assert "State: Ilsa Sarrane is imprisoned (born in year 634 of the Crown Years)" in card(
        cli, "Ilsa Sarrane"
    )
    assert "State: Oren Sarrane is dead (born on 2 Palmtide, year 598 of the Crown Years)" in card(
        cli, "Oren Sarrane"
    )
    answers = ask(
        cli, tmp_path, ["is haskel sarrane alive", "is haskel sarrane dead", "is ilsa sarrane alive"]
    )
    assert answers == {
        "is haskel sarrane alive": "Nothing the table knows says whether Haskel Sarrane is alive; he is missing.",
        "is haskel sarrane dead": "Nothing the table knows says whether Haskel Sarrane is alive; he is missing.",
        "is ilsa sarrane alive": "Yes: Ilsa Sarrane is imprisoned (born in year 634 of the Crown Years).",
    }


def test_a_status_kept_for_the_gm_leaves_a_player_no_alive_in_its_place(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert "State: [gm only] Tamsin Sarrane is missing (born in year 640 of the Crown Years)" in card(
        cli, "Tamsin Sarrane", gm=True
    )
    absent = _without_secrets(tmp_path)
    import_world("absent", absent, FILES, "calendar.yaml", calendar_first=True)
    # The file without the secret says she was born, so alive; with it, the birth's "alive" would half-tell
    # that something else is true: a player reads the rest of her card, and no state.
    player, without = card(cli, "Tamsin Sarrane"), card(cli, "Tamsin Sarrane", campaign="absent")
    assert "alive" in without and "alive" not in player and "missing" not in player, player
    assert player.splitlines() == [line for line in without.splitlines() if not line.startswith("State:")]
    said = ask(cli, tmp_path, ["is tamsin sarrane alive"])
    assert (
        "alive," not in said["is tamsin sarrane alive"] and "missing" not in said["is tamsin sarrane alive"]
    )


ALIASES = [
    "who is the voice below",
    "who is the harbour witch",
    "what are mother quill's aliases",
    "who is mother quill",
]


def test_one_alias_kept_for_the_gm_is_no_name_a_player_finds_or_reads(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, ALIASES)
    assert (
        player["who is the harbour witch"]
        == "Mother Quill, called the Harbour Witch, is a fortune-teller of the docks."
    )
    assert player["what are mother quill's aliases"] == "Mother Quill is also called the Harbour Witch."
    absent = _without_secrets(tmp_path)
    import_world("absent", absent, FILES, "calendar.yaml", calendar_first=True)
    # The hidden alias asked by a player: the reply to a name nobody knows, word for word.
    assert player == ask(cli, tmp_path, ALIASES, campaign="absent")
    assert card(cli, "Mother Quill") == card(cli, "Mother Quill", campaign="absent")
    assert "Voice Below" not in card(cli, "Mother Quill") and "not found" not in card(cli, "Mother Quill")
    assert cli.invoke(app, ["canon", "entity", "The Voice Below", "-c", CAMPAIGN]).exit_code == 1
    gm = card(cli, "Mother Quill", gm=True)
    assert "Also known as: The Harbour Witch\n" in gm
    assert "[gm only] Mother Quill's secret aliases: The Voice Below" in gm
    said = ask(cli, tmp_path, ["what are mother quill's aliases", "who is the voice below"], gm=True)
    assert said == {
        "what are mother quill's aliases": "Mother Quill is also called the Harbour Witch or the Voice Below.",
        "who is the voice below": (  # the GM finds her by it, told it is her secret name
            "The Voice Below is Mother Quill's secret name. Mother Quill is a fortune-teller of the docks."
        ),
    }
    assert "Mother Quill (NPC)" in card(cli, "The Voice Below", gm=True)
    # Exported and imported again, the alias is still the GM's alone.
    archive = tmp_path / "sarrane.zip"
    assert cli.invoke(app, ["export", str(archive), "-c", CAMPAIGN]).exit_code == 0
    assert cli.invoke(app, ["import", str(archive), "--as", "copy"]).exit_code == 0
    assert card(cli, "Mother Quill", campaign="copy") == card(cli, "Mother Quill")
    assert card(cli, "Mother Quill", campaign="copy", gm=True) == gm
    assert ask(cli, tmp_path, ALIASES, campaign="copy") == player


def _ingest(cli: CliRunner, path: Path) -> tuple[int, dict[str, object]]:
    result = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN, "--json"])
    return result.exit_code, json.loads(result.stdout)["yaml"][0]


#: A bad item of a list of aliases -> what its problem says (at line 5, where the item is written).
BAD_ALIASES = {
    "{name: The Grey Man, gm_only: yes}": '"gm_only" must be true or false (without quotes), not "yes"',
    "{name: The Grey Man, hidden: true}": 'it holds "hidden"',
    "{gm_only: true}": "it needs both a name and gm_only",
    "[The Grey Man]": 'item 2 of "aliases" must be text',
}


@pytest.mark.parametrize("item", list(BAD_ALIASES))
def test_a_bad_alias_is_refused_at_its_line_and_nothing_is_written(
    cli: CliRunner, tmp_path: Path, item: str
) -> None:
    roster = tmp_path / "more.yaml"
    roster.write_text(
        f"kind: characters\ncharacters:\n  - name: Pell Rook\n    aliases:\n      - Old Pell\n      - {item}\n",
        encoding="utf-8",
    )
    code, report = _ingest(cli, roster)
    assert code == 1 and report["status"] == "failed", report
    (error,) = report["errors"]  # type: ignore[misc]
    assert error["line"] == 6 and BAD_ALIASES[item] in error["message"], error
    assert cli.invoke(app, ["canon", "entity", "Pell Rook", "-c", CAMPAIGN]).exit_code == 1


def test_an_event_dated_in_the_calendars_words_is_placed_on_that_day(cli: CliRunner, tmp_path: Path) -> None:
    burning = card(cli, "Burning of the Docks")
    assert "took place during the Crown Years (on 9 Scorch, year 668 of the Crown Years)" in burning
    assert "in fiction date: the night of the long tide" in burning
    asked = ask(cli, tmp_path, ["when did the burning of the docks happen"])
    assert asked == {
        "when did the burning of the docks happen": "The Burning of the Docks took place on 9 Scorch, year 668 of the "
        "Crown Years."
    }


#: An event's bad date -> the line of its problem and what it says.
BAD_DATES = {
    "date: 9 Scorch, 668 CY\n    year: 668": (4, '"date" and "year" both say when this event happened'),
    "date: 9 Scorch, 668 CY\n    month: 3": (4, '"date" and "month" both say when this event happened'),
    "date: 9 Harvestmoon, 668 CY": (
        4,
        "“Harvestmoon” is not a month of this calendar; the nearest is Harvest",
    ),
    "date: 31 Scorch, 668 CY": (4, "Scorch has 30 days"),
    "date: [668]": (4, '"date" must be a date'),
}


@pytest.mark.parametrize("field", list(BAD_DATES))
def test_a_bad_event_date_is_refused_at_its_line_and_nothing_is_written(
    cli: CliRunner, tmp_path: Path, field: str
) -> None:
    line, said = BAD_DATES[field]
    timeline = tmp_path / "more.yaml"
    timeline.write_text(
        f"kind: timeline\nevents:\n  - name: Rout of Pellmoor\n    {field}\n", encoding="utf-8"
    )
    code, report = _ingest(cli, timeline)
    assert code == 1 and report["status"] == "failed", report
    assert [(e["line"], said in e["message"]) for e in report["errors"]] == [(line, True)], report  # type: ignore[union-attr]
    assert cli.invoke(app, ["canon", "entity", "Rout of Pellmoor", "-c", CAMPAIGN]).exit_code == 1


def test_a_marriage_written_with_its_date_starts_then(cli: CliRunner, tmp_path: Path) -> None:
    # Oren is dead, on a day nobody dates: the marriage held from its day, and is said in the past.
    tie = "Oren Sarrane was married to Zera Ibarra (from 3 Frostfall, year 620 of the Crown Years)"
    assert tie in card(cli, "Zera Ibarra") and tie in card(cli, "Oren Sarrane")
    timeline = cli.invoke(app, ["canon", "timeline", "Zera Ibarra", "-c", CAMPAIGN]).output
    assert tie in timeline
    asked = ["when did oren sarrane marry zera ibarra", "when did zera ibarra marry oren sarrane"]
    assert ask(cli, tmp_path, asked) == {
        asked[0]: "Oren Sarrane married Zera Ibarra on 3 Frostfall, year 620 of the Crown Years.",
        asked[1]: "Zera Ibarra married Oren Sarrane on 3 Frostfall, year 620 of the Crown Years.",
    }


#: A marriage's bad date (a roster of two) -> the line of its problem and what it says.
BAD_MARRIAGES = {
    "spouses: [{name: Ada Rook, married: 3 Harvestmoon, 620 CY}]": (4, "“Harvestmoon” is not a month"),
    "spouses: [{name: Ada Rook, married: [620]}]": (4, '"married" must be a date'),
    "spouse: {name: Ada Rook, married: 620 CY}\n    spouses: [{name: Ada Rook, married: 621 CY}]": (
        5,
        "gives this marriage another date than line 4 does",
    ),
    "parents: [{name: Ada Rook, married: 620 CY}]": (4, 'it holds "married"'),
    "spouse: {name: Ada Rook, gm_only: true}": (4, "to keep it for the GM, list it in the entry's gm_only"),
    "spouse: {name: Ada Rook, married: 620 CY}\n  - name: Ada Rook\n    spouse: {name: Pell Rook, married: 621 CY}": (
        6,
        "gives this marriage another date than line 4 does",
    ),
}


@pytest.mark.parametrize("field", list(BAD_MARRIAGES))
def test_a_bad_marriage_date_is_refused_at_its_line_and_nothing_is_written(
    cli: CliRunner, tmp_path: Path, field: str
) -> None:
    line, said = BAD_MARRIAGES[field]
    roster = tmp_path / "more.yaml"
    text = f"kind: characters\ncharacters:\n  - name: Pell Rook\n    {field}\n"
    roster.write_text(text if "- name: Ada Rook" in text else text + "  - name: Ada Rook\n", encoding="utf-8")
    code, report = _ingest(cli, roster)
    assert code == 1 and report["status"] == "failed", report
    assert [(e["line"], said in e["message"]) for e in report["errors"]] == [(line, True)], report  # type: ignore[union-attr]
    assert cli.invoke(app, ["canon", "entity", "Pell Rook", "-c", CAMPAIGN]).exit_code == 1


def test_one_who_married_in_reads_as_a_member_of_their_own_lineage_or_none(
    cli: CliRunner, tmp_path: Path
) -> None:
    zera = card(cli, "Zera Ibarra")
    assert "Zera Ibarra is a member of House Ibarra (since year 604 of the Crown Years)" in zera
    assert "House Sarrane" not in zera
    assert "member of" not in card(cli, "Mira Vell")
    asked = ["who are the members of house sarrane", "who are the members of house ibarra"]
    assert ask(cli, tmp_path, asked) == {
        asked[0]: (
            "Haskel Sarrane, Ilsa Sarrane and Tamsin Sarrane are members of House Sarrane; the late Oren Sarrane was "
            "a member too."
        ),
        asked[1]: "Zera Ibarra is a member of House Ibarra.",
    }
    # The lineage's picture still draws them beside their spouses.
    drawn = cli.invoke(
        app, ["render", "tree", "House Sarrane", "-c", CAMPAIGN, "-o", str(tmp_path / "t.png")]
    )
    assert drawn.exit_code == 0 and "6 people" in drawn.output, drawn.output


def test_a_lineage_nobody_defines_is_refused_at_its_line_with_the_way_to_define_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    tree = tmp_path / "more.yaml"
    tree.write_text(
        "name: House Rook\nmembers:\n  - name: Ada Rook\n    lineage: House Vell\n", encoding="utf-8"
    )
    code, report = _ingest(cli, tree)
    assert code == 1
    (error,) = report["errors"]  # type: ignore[misc]
    assert error["line"] == 4 and '"lineage" of Ada Rook names “House Vell”' in error["message"], error
    assert "`name: House Vell` and `members: []`" in error["message"]
    assert cli.invoke(app, ["canon", "entity", "Ada Rook", "-c", CAMPAIGN]).exit_code == 1


def test_the_timeline_decides_an_eras_years_over_the_calendar(cli: CliRunner, tmp_path: Path) -> None:
    # The calendar names the era the timeline imported (years 1 onwards): years of its own are refused.
    block = tmp_path / "calendar.yaml"
    block.write_text("eras:\n  - {name: The Crown Years, abbreviation: CY, start: 5}\n", encoding="utf-8")
    refused = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, "--set", str(block)])
    assert refused.exit_code != 0
    assert (
        "The timeline says the Crown Years starts in year 1; the calendar says it starts in year 5."
        in refused.output
    )
    assert "Nothing changed." in refused.output
    # A timeline imported after a calendar that says other years: its years are used, and the import says so.
    assert cli.invoke(app, ["campaign", "create", "later"]).exit_code == 0
    block.write_text(
        (WORLD / "calendar.yaml")
        .read_text(encoding="utf-8")
        .replace("abbreviation: CY}", "abbreviation: CY, start: 5}"),
        encoding="utf-8",
    )
    assert cli.invoke(app, ["canon", "calendar", "-c", "later", "--set", str(block)]).exit_code == 0
    result = cli.invoke(app, ["ingest", str(WORLD / "chronicle.yaml"), "-c", "later", "--json"])
    (warning,) = json.loads(result.stdout)["yaml"][0]["warnings"]
    assert warning["message"] == (
        "The timeline says the Crown Years starts in year 1; the calendar says it starts in year 5. The timeline "
        "decides an era's years: its years are used. Give the calendar the same years, or leave start and end out "
        "of it."
    )
    shown = cli.invoke(app, ["canon", "calendar", "-c", "later"]).output
    assert "the Crown Years (CY, years 1 onwards)" in shown, shown
