"""What a GM says in a world's fields rather than its prose, imported and asked through `lorekeeper lore`, on a
small world of our own (tests/fixtures/fenreach): a person's sex (kin words), a death's cause, where a prisoner
is held, a parent outside the family tree, a spouse, one parent or one faction of several kept for the GM, a place's population and aliases, who won a battle and its outcome, a treaty's terms, and the
calendar's `today:` ages count to. On SQLite, then PostgreSQL.

Each field the world hides (`gm_only`, its lines marked "# secret") reads to a player word for word as the same
world without it: the world is imported a second time without those lines, and the answers and cards compared.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world, scene_on
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "fenreach"
CAMPAIGN = "fenreach"
FILES = ("places", "factions", "folk", "hales", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set (its `today:` too), then the world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


BORN_850 = "born in year 850 of the Lantern Age"
TODAY = "12 Reaping, year 880 of the Lantern Age"

#: Question -> its whole answer, as a player asks.
READS = {
    # A cause of death: a noun is the cause, a verb reads after the name; then the death's date.
    "how did maud fenn die": (
        "Maud Fenn's cause of death was a winter fever; she died in year 870 of the Lantern Age."
    ),
    "how did elsbeth die": (
        "Elsbeth Hale was poisoned by a rival house; she died in year 871 of the Lantern Age."
    ),
    # Where a prisoner is held: the state and the place.
    "where is bram keel held": "Bram Keel is imprisoned; Bram Keel is held at the Salt Gaol.",
    # Who won, and how it ended; an outcome with no winner; the terms as written.
    "who won the battle of cinder ford": (
        "At the Battle of Cinder Ford, the winner was the Fen Wardens, and the outcome was the raiders fled north "
        "and never crossed the ford again."
    ),
    "who won the siege of wickham": (
        "At the Siege of Wickham, the outcome was a truce after forty days; neither side took the abbey."
    ),
    "what were the terms of the treaty of wickham": (
        "Under the Treaty of Wickham, the Ash Raiders keep the northern moors and pay the Wardens a tithe of peat."
    ),
    # A place's population, as written (a number or words), and a place found by its alias.
    "how many people live in fenreach": "Fenreach's population is 2400.",
    "what's the population of fenreach": "Fenreach's population is 2400.",
    "what is the population of the reach": "Fenreach's population is 2400.",
    "how many people live in the fens": "The Fens' population is a few thousand marsh folk.",
    "how many live at wickham abbey": "Wickham Abbey's population is forty sisters and their lay servants.",
    "how many people live in cinder ford": (
        "Nothing the table knows says how many people live in Cinder Ford; Cinder Ford is a ford."
    ),
    "where is reach town": "Fenreach is in the Fens.",
    # Sex makes kin words: a brother, a sister, a father.
    "who is wynn's brother": "Wynn Hale's brother is Aldous Hale.",
    "who is aldous's sister": "Aldous Hale's sister is Wynn Hale.",
    "who is aldous hale's father": "Aldous Hale's father is Corvin Hale.",
    "who is wynn hale's mum": "Wynn Hale's mother was Elsbeth Hale (died in year 871 of the Lantern Age).",
    # A character's spouse (`spouse:`), read from both ends.
    "who was maud fenn married to": "Maud Fenn was married to Old Harl.",  # she is dead
    "who is old harl's wife": "Old Harl was married to Maud Fenn.",  # he is dead too
    # Ages count to the calendar's today: no scene is played yet.
    "how old is bram keel": f"Bram Keel is about 30 years old, {BORN_850}; the story stands at {TODAY}.",
    "how old is isolde wren": (
        f"Isolde Wren is 28 years old, born on 3 Thaw, year 852 of the Lantern Age; the story stands at {TODAY}."
    ),
}


def test_fields_answer_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


#: The questions a GM-only field answers, and the GM's answer.
SECRETS = {
    "how did old harl die": "Old Harl drowned in Cinder Ford; he died in year 875 of the Lantern Age.",
    "where is nessa crane held": "Nessa Crane is imprisoned; Nessa Crane is held at Wickham Abbey.",
    "who won the battle of black mire": "At the Battle of Black Mire, the winner was the Ash Raiders.",
    "what were the terms of the pact of the salt gaol": (
        "Under the Pact of the Salt Gaol, Bram Keel goes free if he names his buyers."
    ),
    "who is tobin ash's father": "Tobin Ash's father is Corvin Hale.",
    "who are corvin hale's children": "Corvin Hale's children are Aldous Hale, Tobin Ash and Wynn Hale.",
    "who is wynn's brother": "Wynn Hale's brothers are Aldous Hale and Tobin Ash.",
    # `spouses:` hidden by `gm_only: [spouse]`: one secret, however it is written.
    "who is nessa crane married to": "Nessa Crane is married to Bram Keel.",
    "who is bram keel's wife": "Bram Keel is married to Nessa Crane.",
    # One parent of two, one faction of two, kept for the GM (`{name: ..., gm_only: true}`).
    "who is pip marsh's father": "Pip Marsh's father was Old Harl (died in year 875 of the Lantern Age).",
    "who are pip marsh's parents": (
        "Pip Marsh's parents are Ida Marsh and Old Harl (died in year 875 of the Lantern Age)."
    ),
    "who are the members of the ash raiders": "Bram Keel and Isolde Wren are members of the Ash Raiders.",
    "is isolde wren a member of the ash raiders": "Yes: Isolde Wren is a member of the Ash Raiders.",
}
#: The cards a GM-only field is on (a parent's tie is on the child's card and the parent's).
HIDING = (
    "Old Harl",
    "Nessa Crane",
    "Bram Keel",
    "Battle of Black Mire",
    "Pact of the Salt Gaol",
    "Tobin Ash",
    "Corvin Hale",
    "Ida Marsh",
    "Pip Marsh",
    "Isolde Wren",
    "The Ash Raiders",
    "The Fen Wardens",
)


def _without_secrets(tmp_path: Path) -> Path:
    """Return a copy of the world without its GM-only lines: what a player's answers must read like."""
    folder = tmp_path / "absent"
    folder.mkdir()
    for name in (*FILES, "calendar"):
        lines = (WORLD / f"{name}.yaml").read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if not line.rstrip().endswith("# secret")]
        (folder / f"{name}.yaml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder


def _card(cli: CliRunner, name: str, campaign: str, *, gm: bool = False) -> str:
    """Return an entity's card as the command line prints it, its evidence's file and line left out (the two
    worlds' files differ there)."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *(["--as", "gm"] if gm else [])])
    assert result.exit_code == 0, result.output
    return re.sub(r"from (?:absent|fenreach)/\w+\.yaml, line \d+", "from the file", result.output)


def test_gm_only_fields_read_to_a_player_as_if_never_written(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask(cli, tmp_path, list(SECRETS), gm=True)
    assert {q: a for q, a in gm.items() if a != SECRETS[q]} == {}
    player = ask(cli, tmp_path, list(SECRETS))
    assert all(player[q] != SECRETS[q] for q in SECRETS), player
    absent = _without_secrets(tmp_path)
    import_world("absent", absent, FILES, "calendar.yaml", calendar_first=True)
    assert player == ask(cli, tmp_path, list(SECRETS), campaign="absent")
    for name in HIDING:
        mine, none = _card(cli, name, CAMPAIGN), _card(cli, name, "absent")
        assert mine == none, name
    assert "Old Harl's cause of death: drowned in Cinder Ford" in _card(cli, "Old Harl", CAMPAIGN, gm=True)


def test_a_card_says_father_or_mother_where_the_viewer_knows_the_sex(cli: CliRunner) -> None:
    wynn = _card(cli, "Wynn Hale", CAMPAIGN)
    # A dead mother was her mother: the tie outlives her, said in the past of her (`canon.wording.dead_ties`).
    assert "Corvin Hale is Wynn Hale's father" in wynn and "Elsbeth Hale was Wynn Hale's mother" in wynn
    assert "parent" not in wynn
    assert "Corvin Hale is Aldous Hale's father" in _card(cli, "Corvin Hale", CAMPAIGN)
    # Ida Marsh's sex is the GM's: the GM's card says mother, a player's the word it would say without it
    # (and the whole card as the world without it: `test_gm_only_fields_read_to_a_player_as_if_never_written`).
    assert "Ida Marsh is Pip Marsh's mother" in _card(cli, "Pip Marsh", CAMPAIGN, gm=True)
    pip = _card(cli, "Pip Marsh", CAMPAIGN)
    assert "Ida Marsh is Pip Marsh's parent" in pip and "mother" not in pip
    timeline = cli.invoke(app, ["canon", "timeline", "Pip Marsh", "-c", CAMPAIGN]).output
    assert "Ida Marsh is Pip Marsh's parent" in timeline and "mother" not in timeline
    gm_timeline = cli.invoke(app, ["canon", "timeline", "Pip Marsh", "-c", CAMPAIGN, "--as", "gm"]).output
    assert "Ida Marsh is Pip Marsh's mother" in gm_timeline


def test_a_card_says_the_fields_in_words(cli: CliRunner) -> None:
    bram = _card(cli, "Bram Keel", CAMPAIGN)
    assert "Bram Keel's sex: male" in bram and "Bram Keel is held at the Salt Gaol" in bram
    assert "Maud Fenn's cause of death: a winter fever" in _card(cli, "Maud Fenn", CAMPAIGN)
    battle = _card(cli, "Battle of Cinder Ford", CAMPAIGN)
    assert "The Fen Wardens won the Battle of Cinder Ford" in battle
    assert "outcome: the raiders fled north and never crossed the ford again" in battle
    # The values as players write them ("she/her", "Male", "m") are stated as the two words kin reads.
    cards = {name: _card(cli, name, CAMPAIGN) for name in ("Isolde Wren", "Old Harl")}
    assert "Isolde Wren's sex: female" in cards["Isolde Wren"] and "Old Harl's sex: male" in cards["Old Harl"]
    # A hidden sex is the GM's alone (the cards compared with the world without it: above).
    assert "Nessa Crane's sex: female" in _card(cli, "Nessa Crane", CAMPAIGN, gm=True)
    assert "sex" not in _card(cli, "Nessa Crane", CAMPAIGN)


def test_today_is_the_story_date_until_a_later_scene(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    # A scene dated before today (a flashback) leaves the story at today.
    scene_on(cli_env, CAMPAIGN, "lantern_age.870", channel=7, title="At the gaol")
    (early,) = ask(cli, tmp_path, ["how old is bram keel"]).values()
    assert early == f"Bram Keel is about 30 years old, {BORN_850}; the story stands at {TODAY}."
    # A scene dated later wins.
    scene_on(cli_env, CAMPAIGN, "lantern_age.885.2.1", channel=8, title="At the gaol")
    (later,) = ask(cli, tmp_path, ["how old is bram keel"]).values()
    assert later == (
        f"Bram Keel is about 35 years old, {BORN_850}; the story stands at 1 Sowing, year 885 of the Lantern Age."
    )


def _ingest(cli: CliRunner, *paths: Path, replace: bool = False) -> tuple[int, dict[str, object]]:
    result = cli.invoke(
        app, ["ingest", *map(str, paths), "-c", CAMPAIGN, "--json", *(["--replace"] if replace else [])]
    )
    return result.exit_code, json.loads(result.stdout)["yaml"][0]


#: A field's bad value -> where it is refused and what the problem says.
BAD = {
    "sex: yes": (4, '"sex" must be one of male, female, man, woman, m, f, he, she, he/him, she/her'),
    "cause_of_death: a fever\n    status: alive": (4, '"cause_of_death" is given, but "status" is alive'),
    "held_at: The Fen Wardens": (4, "Location"),
    "spouse: The Fen Wardens": (4, "Person"),
    "parents: [{name: Old Harl, gm_only: yes}]": (
        4,
        '"gm_only" must be true or false (without quotes), not "yes"',
    ),
}


@pytest.mark.parametrize("field", list(BAD))
def test_a_bad_field_is_refused_at_its_line_and_nothing_is_written(
    cli: CliRunner, tmp_path: Path, field: str
) -> None:
    line, said = BAD[field]
    roster = tmp_path / "more.yaml"
    roster.write_text(f"kind: characters\ncharacters:\n  - name: Pell Rook\n    {field}\n", encoding="utf-8")
    code, report = _ingest(cli, roster)
    assert code == 1 and report["status"] == "failed", report
    (error,) = report["errors"]  # type: ignore[misc]
    assert error["line"] == line and said in error["message"], error
    assert cli.invoke(app, ["canon", "entity", "Pell Rook", "-c", CAMPAIGN]).exit_code == 1


@pytest.mark.parametrize(
    ("field", "said"),
    [
        ("winner: Cinder Ford", "Cinder Ford"),  # a place wins nothing
        ("gm_only: [year]", '"gm_only" lists "year", which is not a field it can hide'),
    ],
)
def test_an_event_field_is_refused_at_its_line(cli: CliRunner, tmp_path: Path, field: str, said: str) -> None:
    timeline = tmp_path / "more.yaml"
    timeline.write_text(
        f"kind: timeline\nevents:\n  - name: Rout of Pellmoor\n    era: The Lantern Age\n    year: 881\n    {field}\n",
        encoding="utf-8",
    )
    code, report = _ingest(cli, timeline)
    assert code == 1
    (error,) = report["errors"]  # type: ignore[misc]
    assert error["line"] == 6 and said in error["message"], error
    assert cli.invoke(app, ["canon", "entity", "Rout of Pellmoor", "-c", CAMPAIGN]).exit_code == 1


def test_a_changed_field_is_imported_again_as_a_difference(cli: CliRunner, tmp_path: Path) -> None:
    changed = tmp_path / "fenreach"  # the same name within the campaign: its folder and its name
    changed.mkdir()
    text = (WORLD / "folk.yaml").read_text(encoding="utf-8")
    (changed / "folk.yaml").write_text(
        text.replace("cause_of_death: a winter fever", "cause_of_death: the marsh cough"), encoding="utf-8"
    )
    code, report = _ingest(cli, changed / "folk.yaml", replace=True)
    assert code == 0, report
    statements = report["statements"]
    assert statements["changed"] == 1 and statements["created"] == 0, report  # the old value retconned by it
    (answer,) = ask(cli, tmp_path, ["how did maud fenn die"]).values()
    assert (
        answer == "Maud Fenn's cause of death was the marsh cough; she died in year 870 of the Lantern Age."
    )


def test_a_today_the_calendar_cannot_read_is_refused_and_the_calendar_kept(
    cli: CliRunner, tmp_path: Path
) -> None:
    block = tmp_path / "calendar.yaml"
    text = (WORLD / "calendar.yaml").read_text(encoding="utf-8")
    block.write_text(text.replace("today: 12 Reaping, 880 LA", "today: 12 Harvest, 880 LA"), encoding="utf-8")
    result = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, "--set", str(block)])
    assert result.exit_code != 0
    assert "The calendar's today, “12 Harvest, 880 LA”, is no date of this calendar: " in result.output
    shown = cli.invoke(app, ["canon", "calendar", "-c", CAMPAIGN])
    assert "Today is 12 Reaping, 880 LA." in shown.output
