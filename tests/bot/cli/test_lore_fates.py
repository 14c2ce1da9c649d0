"""Deaths, outcomes and upbringings written with what the table believes beside the truth, asked through `lorekeeper
lore` of a small world of our own (Reedmarch): who killed someone, a cause of death and an event's outcome the
table is told in place of a truth the GM keeps, and a child adopted and fostered later than birth, whose father by
blood the GM keeps. A player reads exactly what a file that never wrote the secrets gives; the GM reads the truth
and what players are told beside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "reedmarch"
CALENDAR = """
eras:
  - {name: The Reed Count, abbreviation: RC, start: 1}
months: [Thaw, Sowing, Reaping, Frost]
today: 1 Sowing, 1230 RC
"""


def _world(chronicle_outcome: str, folk: str) -> dict[str, str]:
    return {
        "calendar": CALENDAR,
        "chronicle": f"""
kind: timeline
eras:
  - name: The Reed Count
    abbreviation: RC
    start: 1
    events:
      - name: Siege of Marrowgate
        year: 1210
        participants: [Hob Greave, Ysolt Dunmere]
{chronicle_outcome}
""",
        "folk": folk,
    }


FILES = _world(
    """        outcome: The Dunmere garrison opened the gate to the besiegers for a bribe.
        public_outcome: The garrison held until relief came.""",
    """
characters:
  - name: Ysolt Dunmere
    sex: female
    born: 1180
    died: 1212
    cause_of_death: poisoned by her steward
    public_cause_of_death: a winter fever
  - name: Hob Greave
    sex: male
    born: 1175
  - name: Wenna Tull
    sex: female
    born: 1200
    parents: [Ysolt Dunmere, {name: Hob Greave, gm_only: true}]
    adoptive_parents: [{name: Corm Tull, adopted: 3 Reaping, 1205 RC}]
    foster_parents: [{name: Old Mag, fostered: 1203}]
  - name: Corm Tull
    sex: male
    born: 1170
    ties:
      - {name: Pell Tull, is: godson}
      - {name: Ansel Brae, is: stepfather}
      - {name: Hob Greave, is: brother-in-law, gm_only: true}
  - name: Old Mag
    sex: female
  - name: Pell Tull
    sex: male
  - name: Ansel Brae
    sex: male
  - name: Sef Rook
    sex: male
    status: dead
    killed_by: Hob Greave
    gm_only: [killed_by]
  - name: Idda Rook
    sex: female
    status: dead
    killed_by: Ysolt Dunmere
""",
)
#: The same world as a file that never wrote the secrets would say it: what a player must read alike.
PUBLIC = _world(
    "        outcome: The garrison held until relief came.",
    """
characters:
  - name: Ysolt Dunmere
    sex: female
    born: 1180
    died: 1212
    cause_of_death: a winter fever
  - name: Hob Greave
    sex: male
    born: 1175
  - name: Wenna Tull
    sex: female
    born: 1200
    parents: [Ysolt Dunmere]
    adoptive_parents: [{name: Corm Tull, adopted: 3 Reaping, 1205 RC}]
    foster_parents: [{name: Old Mag, fostered: 1203}]
  - name: Corm Tull
    sex: male
    born: 1170
    ties:
      - {name: Pell Tull, is: godson}
      - {name: Ansel Brae, is: stepfather}
  - name: Old Mag
    sex: female
  - name: Pell Tull
    sex: male
  - name: Ansel Brae
    sex: male
  - name: Sef Rook
    sex: male
    status: dead
  - name: Idda Rook
    sex: female
    status: dead
    killed_by: Ysolt Dunmere
""",
)
QUESTIONS = [
    "who killed Ysolt Dunmere?",
    "how did Ysolt Dunmere die?",
    "who killed Sef Rook?",
    "who killed Idda Rook?",
    "how did Idda Rook die?",
    "what was the outcome of the Siege of Marrowgate?",
    "how did the Siege of Marrowgate end?",
    "who adopted Wenna Tull?",
    "who fostered Wenna Tull?",
    "was Wenna Tull adopted?",
    "who are Wenna Tull's parents?",
    "who is Wenna Tull's father?",
    "who is Wenna Tull's mother?",
    "who is Wenna Tull's adoptive father?",
    "who is Pell Tull's godfather?",
    "who are Corm Tull's godchildren?",
    "who is Corm Tull's stepfather?",
    "how are Corm Tull and Hob Greave related?",
    "who is Corm Tull's brother-in-law?",
    "who is Hob Greave?",
    "who is Wenna Tull?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Reedmarch imported, and its copy without the secrets."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", PUBLIC)
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def card(cli: CliRunner, campaign: str, name: str, *extra: str, evidence: bool = False) -> str:
    """Return an entity's card as the command line prints it (to the GM at the terminal, the evidence names the
    file and line), without its evidence unless asked."""
    result = cli.invoke(app, ["canon", "entity", name, "-c", campaign, *extra])
    assert result.exit_code == 0, result.output
    return result.output if evidence else re.sub(r" — from \S+\.yaml, line \d+", "", result.output)


def test_a_player_reads_the_story_told_as_if_the_truth_were_never_written(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, citations=False)
    public = ask_world(cli, tmp_path, f"{CAMPAIGN}-public", QUESTIONS, citations=False)
    assert player == public
    assert player["how did Ysolt Dunmere die?"] == (
        "Ysolt Dunmere's cause of death was a winter fever; she died in year 1212."
    ), player
    assert player["who killed Idda Rook?"] == "Ysolt Dunmere killed Idda Rook.", player
    assert player["who killed Ysolt Dunmere?"] == (
        "Nothing the table knows names who killed Ysolt Dunmere; Ysolt Dunmere's cause of death was a winter fever."
    ), player
    assert player["who killed Sef Rook?"] == "Nothing the table knows says who killed Sef Rook.", player
    assert player["how did Idda Rook die?"] == "Ysolt Dunmere killed Idda Rook.", player
    assert player["what was the outcome of the Siege of Marrowgate?"] == (
        "At the Siege of Marrowgate, the outcome was the garrison held until relief came."
    ), player
    assert player["who adopted Wenna Tull?"] == (
        "Wenna Tull was adopted by Corm Tull on 3 Reaping, year 1205 of the Reed Count."
    ), player
    assert player["who are Wenna Tull's parents?"] == (
        "Wenna Tull's birth mother was Ysolt Dunmere (died in year 1212); Wenna Tull was adopted by Corm Tull on 3 "
        "Reaping, year 1205 of the Reed Count and fostered by Old Mag from year 1203."
    ), player
    assert player["who is Wenna Tull's father?"] == (
        "Wenna Tull was adopted by Corm Tull on 3 Reaping, year 1205 of the Reed Count."
    ), player
    assert player["who is Pell Tull's godfather?"] == "Pell Tull's godfather is Corm Tull.", player
    assert player["who is Corm Tull's stepfather?"] == "Corm Tull's stepfather is Ansel Brae.", player
    for said in player.values():
        assert not re.search(r"bribe|poison|steward|Players are told|Hob Greave's|secret", said), said
    for name in ("Ysolt Dunmere", "Wenna Tull", "Hob Greave", "Sef Rook", "Corm Tull"):
        assert card(cli, CAMPAIGN, name) == card(cli, f"{CAMPAIGN}-public", name), name
    wenna = card(cli, CAMPAIGN, "Wenna Tull")
    assert "Corm Tull is Wenna Tull's adoptive father (since 3 Reaping, year 1205 of the Reed Count)" in wenna
    assert "Old Mag is Wenna Tull's foster mother (since year 1203)" in wenna, wenna
    assert "Hob Greave" not in wenna, wenna


def test_the_gm_reads_the_truth_and_what_players_are_told(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(cli, tmp_path, CAMPAIGN, QUESTIONS, gm=True, citations=False)
    assert gm["how did Ysolt Dunmere die?"] == (
        "Ysolt Dunmere was poisoned by her steward; she died in year 1212. Players are told Ysolt "
        "Dunmere's cause of death was a winter fever."
    ), gm
    assert gm["what was the outcome of the Siege of Marrowgate?"] == (
        "At the Siege of Marrowgate, the outcome was the Dunmere garrison opened the gate to the besiegers for a "
        "bribe. Players are told the Siege of Marrowgate's outcome was the garrison held until relief came."
    ), gm
    assert gm["who killed Sef Rook?"] == "Hob Greave killed Sef Rook.", gm
    assert gm["who is Wenna Tull's father?"] == (
        "Wenna Tull's birth father is Hob Greave; Wenna Tull was adopted by Corm Tull on 3 Reaping, year 1205 of "
        "the Reed Count."
    ), gm
    assert gm["how are Corm Tull and Hob Greave related?"] == "Corm Tull is Hob Greave's brother-in-law.", gm
    assert gm["who is Corm Tull's brother-in-law?"] == "Corm Tull's brother-in-law is Hob Greave.", gm
    ysolt = card(cli, CAMPAIGN, "Ysolt Dunmere", "--as", "gm", evidence=True)
    assert "[gm only] Ysolt Dunmere's cause of death: poisoned by her steward — from " in ysolt, ysolt
    assert "Players are told Ysolt Dunmere's cause of death: a winter fever — from " in ysolt, ysolt
    # The GM reads the file as imported, with its line: the name they gave it.
    assert re.search(r"— from \S*folk\.yaml, line \d+", ysolt), ysolt
    assert "world bible" not in ysolt, ysolt


def test_continuity_reads_the_truth_and_never_the_story_told(cli: CliRunner) -> None:
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    assert checked.exit_code == 0 and checked.output.strip() == "No continuity problems.", checked.output
