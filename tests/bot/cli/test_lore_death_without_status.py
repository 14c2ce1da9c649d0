"""A death written without a `status`: a GM who names a killer (`killed_by:`), a cause (`cause_of_death:`) or a place
of death (`died_at:`) has said the person is dead, asked through `lorekeeper lore` of a small world of our own
(Harrowby). Every reader reads it alike: the card, `/lore`, continuity. A death only the GM knows leaves a player
reading what the file tells them, never the death."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import load_lore_file
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "harrowby"
CALENDAR = """
eras:
  - {name: The Mill Reckoning, abbreviation: MR, start: 1}
today: 1240 MR
"""
PEOPLE = """
characters:
  - name: Ysolde Marrow
    born: 1180
    killed_by: Hob Greave
  - name: Brannoc Vell
    born: 1170
    cause_of_death: drowned in the Mill Race
  - name: Tamsin Orle
    born: 1190
    died_at: Harrow Ford
  - name: Quill Dace
    born: 1185
    killed_by: Hob Greave
    gm_only: [killed_by]
  - name: Orrin Shale
    born: 1188
    killed_by: Hob Greave
    public_status: missing
    gm_only: [killed_by]
  - name: Hob Greave
    born: 1175
---
locations:
  - name: Harrow Ford
"""
#: The same people as a GM who wrote each state out says them: what every reader must read alike.
STATED = """
characters:
  - name: Ysolde Marrow
    born: 1180
    status: dead
    killed_by: Hob Greave
  - name: Brannoc Vell
    born: 1170
    status: dead
    cause_of_death: drowned in the Mill Race
  - name: Tamsin Orle
    born: 1190
    status: dead
    died_at: Harrow Ford
  - name: Quill Dace
    born: 1185
    status: dead
    gm_only: [status]
  - name: Orrin Shale
    born: 1188
    status: dead
    public_status: missing
  - name: Hob Greave
    born: 1175
---
locations:
  - name: Harrow Ford
"""
DEAD = ["Ysolde Marrow", "Brannoc Vell", "Tamsin Orle"]
QUESTIONS = [
    *(f"is {name} alive?" for name in [*DEAD, "Quill Dace", "Orrin Shale"]),
    *(f"how did {name} die?" for name in [*DEAD, "Quill Dace"]),
    "who killed Ysolde Marrow?",
    "who killed Quill Dace?",
    "who killed Orrin Shale?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Harrowby imported, and its copy with every state written out."""
    import_written(f"{CAMPAIGN}-stated", tmp_path / "stated", {"calendar": CALENDAR, "people": STATED})
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, {"calendar": CALENDAR, "people": PEOPLE})


def card(cli: CliRunner, campaign: str, name: str, *extra: str) -> str:
    """Return an entity's card as the command line prints it, without its evidence."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *extra])
    assert result.exit_code == 0, result.output
    return re.sub(r" — from \S+\.yaml, line \d+", "", result.output)


def test_a_killer_a_cause_or_a_place_of_death_says_the_person_is_dead(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    assert player["how did Ysolde Marrow die?"] == "Hob Greave killed Ysolde Marrow.", player
    assert player["how did Brannoc Vell die?"] == "Brannoc Vell drowned in the Mill Race.", player
    for name in DEAD:
        said = player[f"is {name} alive?"]
        assert "dead" in said and "alive" not in said.replace(f"is {name} alive", ""), said
        assert f"{name} is dead" in card(cli, CAMPAIGN, name), name
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert gm["who killed Quill Dace?"] == "Hob Greave killed Quill Dace.", gm
    assert "dead" in gm["is Quill Dace alive?"] and "dead" in gm["is Orrin Shale alive?"], gm
    assert "Quill Dace is dead" in card(cli, CAMPAIGN, "Quill Dace", "--as", "gm")


def test_every_reader_reads_the_death_as_if_the_status_were_written(cli: CliRunner, tmp_path: Path) -> None:
    for gm in (False, True):
        written = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=gm, citations=False)
        stated = ask_world(cli, tmp_path, f"{CAMPAIGN}-stated", QUESTIONS, gm=gm, citations=False)
        # The GM reads the killers the stated copy leaves out.
        asked = [q for q in QUESTIONS if not gm or not re.search("Quill|Orrin", q)]
        assert {q: written[q] for q in asked} == {q: stated[q] for q in asked}
    for name in [*DEAD, "Quill Dace", "Orrin Shale"]:
        assert card(cli, CAMPAIGN, name) == card(cli, f"{CAMPAIGN}-stated", name), name
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    assert checked.exit_code == 0 and checked.output.strip() == "No continuity problems.", checked.output


def test_a_killer_only_the_gm_knows_never_tells_a_player_the_death(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    for question in ("is Quill Dace alive?", "how did Quill Dace die?", "who killed Quill Dace?"):
        said = player[question]
        assert "dead" not in said and "Hob Greave" not in said, said
    told = player["is Orrin Shale alive?"]
    assert "missing" in told and "dead" not in told, told
    quill = card(cli, CAMPAIGN, "Quill Dace")
    assert "dead" not in quill and "Hob Greave" not in quill and "alive" not in quill, quill


@pytest.mark.parametrize(
    "field", ["killed_by: Ysolde Marrow", "cause_of_death: a fall", "died_at: Harrow Ford"]
)
def test_a_death_beside_a_living_status_is_refused_at_its_line(field: str) -> None:
    text = PEOPLE.replace("  - name: Hob Greave\n", f"  - name: Hob Greave\n    status: alive\n    {field}\n")
    problems = load_lore_file(text.encode(), "people.yaml").problems
    assert len(problems) == 1, problems
    (problem,) = problems
    key = field.split(":")[0]
    assert problem.line == 23 and f'"{key}" is given, but "status" is alive' in problem.message, problem
