"""Ties between people that are neither a parent's nor a marriage (`ties:`), asked through `lorekeeper lore` of a
small world of our own (the Ormes of Dunhallow): a mentor and an apprentice, a secret rival, a friend, and kin the
tree does not draw (a niece, a cousin, a grandmother), each answered from both ends in the other end's word, and a
tie the GM keeps read by a player as if the file never said it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import load_lore_file
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "dunhallow"
CALENDAR = """
eras:
  - {name: The Count of Bells, abbreviation: CB, start: 1}
months: [Firstbell, Midbell, Lastbell]
today: 1 Midbell, 420 CB
"""
FOLK = """
characters:
  - name: Saska Orme
    sex: female
    ties:
      - {name: Idrel Vask, is: mentor}
      - {name: Mirren Orme, is: niece}
      - {name: Cade Harrow, is: rival, gm_only: true}   # secret
      - {name: Tam Orme, is: cousin}
      - {name: Brisk Tallow, is: friend}
  - name: Idrel Vask
    sex: male
    ties: [{name: Joss Wick, is: apprentice}]
  - name: Mirren Orme
    sex: female
  - name: Cade Harrow
    sex: male
    description: A lamp-oil merchant of the lower town.
  - name: Tam Orme
    sex: male
    ties: [{name: Orla Fenwick, is: grandmother}]
  - name: Brisk Tallow
  - name: Joss Wick
  - name: Orla Fenwick
    sex: female
"""
FILES = {"calendar": CALENDAR, "folk": FOLK}
QUESTIONS = [
    "who is Saska Orme's mentor?",
    "who taught Saska Orme?",
    "who are Idrel Vask's apprentices?",
    "who are Saska Orme's rivals?",
    "who are Cade Harrow's rivals?",
    "who are Saska Orme's friends?",
    "who is Mirren Orme's aunt?",
    "who is Saska Orme's niece?",
    "who are Tam Orme's cousins?",
    "who is Saska Orme's cousin?",
    "who is Tam Orme's grandmother?",
    "who are Orla Fenwick's grandchildren?",
    "how are Saska Orme and Mirren Orme related?",
    "how are Saska Orme and Idrel Vask related?",
    "how is Cade Harrow related to Saska Orme?",
    "who is Cade Harrow?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Ormes imported, and their copy without the secret."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", public_written(FILES))
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_each_tie_is_answered_from_both_ends_in_the_other_ends_word(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert said["who is Saska Orme's mentor?"] == "Saska Orme's mentor is Idrel Vask.", said
    assert said["who taught Saska Orme?"] == "Saska Orme's mentor is Idrel Vask.", said
    assert (
        said["who are Idrel Vask's apprentices?"] == "Idrel Vask's apprentices are Joss Wick and Saska Orme."
    ), said
    assert said["who are Saska Orme's rivals?"] == "Saska Orme's rival is Cade Harrow.", said
    assert said["who are Cade Harrow's rivals?"] == "Cade Harrow's rival is Saska Orme.", said
    assert said["who are Saska Orme's friends?"] == "Saska Orme's friend is Brisk Tallow.", said
    assert said["who is Mirren Orme's aunt?"] == "Mirren Orme's aunt is Saska Orme.", said
    assert said["who is Saska Orme's niece?"] == "Saska Orme's niece is Mirren Orme.", said
    assert said["who are Tam Orme's cousins?"] == "Tam Orme's cousin is Saska Orme.", said
    assert said["who is Saska Orme's cousin?"] == "Saska Orme's cousin is Tam Orme.", said
    assert said["who is Tam Orme's grandmother?"] == "Tam Orme's grandmother is Orla Fenwick.", said
    assert said["who are Orla Fenwick's grandchildren?"] == "Orla Fenwick's grandchild is Tam Orme.", said
    assert said["how are Saska Orme and Mirren Orme related?"] == "Saska Orme is Mirren Orme's aunt.", said
    assert said["how are Saska Orme and Idrel Vask related?"] == "Idrel Vask is Saska Orme's mentor.", said
    assert said["how is Cade Harrow related to Saska Orme?"] == "Saska Orme is a rival of Cade Harrow.", said


def test_a_tie_the_gm_keeps_reads_for_a_player_as_if_never_written(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = ask_world(cli, tmp_path, f"{CAMPAIGN}-public", QUESTIONS, citations=False)
    assert player == public
    assert "Cade" not in player["who are Saska Orme's rivals?"], player
    assert "rival" not in player["how is Cade Harrow related to Saska Orme?"], player


def test_the_cards_say_each_tie_in_the_words_of_its_sex(cli: CliRunner) -> None:
    result = cli.invoke(app, ["canon", "entity", "Saska Orme", "-c", CAMPAIGN])
    assert result.exit_code == 0, result.output
    for line in (
        "Saska Orme is Mirren Orme's aunt",
        "Saska Orme is Tam Orme's cousin",
        "Saska Orme is a friend of Brisk Tallow",
        "Idrel Vask is Saska Orme's mentor",
    ):
        assert line in result.output, result.output
    assert "Cade" not in result.output


def test_the_same_world_again_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    again = cli.invoke(app, ["ingest", str(tmp_path / CAMPAIGN / "folk.yaml"), "-c", CAMPAIGN])
    assert again.exit_code == 0 and "nothing written" in again.output, again.output


def test_a_tie_is_one_edge_however_many_sides_say_it_and_hidden_when_one_side_hides_it() -> None:
    text = (
        "characters:\n  - name: Saska Orme\n    ties: [{name: Cade Harrow, is: rival, gm_only: true}]\n"
        "  - name: Cade Harrow\n    ties: [{name: Saska Orme, is: rival}]\n"
    )
    result = load_lore_file(text, "folk.yaml")
    assert result.ok, result.problems
    assert [(r.type, r.source_id, r.target_id, r.line, r.visibility) for r in result.relations] == [
        ("RIVAL_OF", "saska_orme", "cade_harrow", 3, "gm_only")
    ]


def test_a_tie_without_a_word_or_with_an_unknown_one_is_refused_at_its_line() -> None:
    text = (
        "characters:\n  - name: Saska Orme\n    ties:\n      - {name: Idrel Vask, is: landlord}\n"
        "      - {name: Idrel Vask}\n  - name: Idrel Vask\n"
    )
    problems = [str(p) for p in load_lore_file(text, "folk.yaml").problems]
    assert problems[0].startswith('folk.yaml: line 4, column 32: "is" must be one of: mentor, teacher'), (
        problems
    )
    assert problems[0].endswith('; got "landlord"'), problems
    assert problems[1] == 'folk.yaml: line 5, column 9: missing required field "tie" or "is"', problems


def test_a_tie_naming_nobody_is_refused_at_its_line_in_the_words_the_file_writes(
    cli: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "more.yaml"
    path.write_text(
        "characters:\n  - name: Nessa Brook\n    ties:\n      - {name: Idrel Vsak, is: student}\n"
        "      - {name: Wenna Crane, is: aunt}\n",
        encoding="utf-8",
    )
    said = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "nothing was written" in said, said
    assert (
        'line 4, column 16: the "apprentice" tie of Nessa Brook names “Idrel Vsak”, which is no entry' in said
    ), said
    assert 'did you mean "Idrel Vask"' in said, said
    assert 'line 5, column 16: the "aunt or uncle" tie of Nessa Brook names “Wenna Crane”' in said, said
    assert "ties:" not in said, said
