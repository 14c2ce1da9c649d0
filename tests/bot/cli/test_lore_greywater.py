"""What /lore tells of people and places from a world of our own (tests/fixtures/greywater): a family placed
where it lives and in its guilds by its family tree alone, what a description alone says of someone (what became
of them, the other name they go by, what they do, what they are known for), who lives in a place, what lies in
a region and where a place is. On SQLite, then PostgreSQL; a GM-only resident, home or false name reads to a
player as what nobody knows, and is never listed nor counted.
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

WORLD = REPO / "tests" / "fixtures" / "greywater"
CAMPAIGN = "greywater"
FILES = ("lands", "guilds", "thornes", "folk")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Greywater world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


def ask(cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False) -> dict[str, str]:
    """Return each question's answer without its citation."""
    return ask_world(cli, tmp_path, CAMPAIGN, questions, gm=gm, citations=False)


#: Question -> its whole answer, as a player asks.
READS = {
    # A family tree's member placed and enrolled by the tree itself (`home`, `faction`, `factions`).
    "where does jory live": "Jory Thorne lives in Eelford.",
    "what faction is ada in": "Ada Thorne is a member of the Millers' Ring and the Thorne Family.",
    "what faction is jory in": (
        "Jory Thorne is a member of the Millers' Ring, the Stonecutters and the Thorne Family."
    ),
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


def _ingest(cli: CliRunner, *paths: Path) -> tuple[int, str, dict[str, object]]:
    """Return an import's exit code, its text and its JSON report."""
    files = [str(p) for p in paths]
    said = cli.invoke(app, ["ingest", *files, "-c", CAMPAIGN])
    as_json = cli.invoke(app, ["ingest", *files, "-c", CAMPAIGN, "--json"])
    (report,) = json.loads(as_json.stdout)["yaml"]
    return said.exit_code, said.output, report


def test_a_family_members_home_and_faction_are_checked_at_their_lines(cli: CliRunner, tmp_path: Path) -> None:
    tree = tmp_path / "pells.yaml"
    tree.write_text(
        "lineage: pell_family\n"
        "members:\n"
        "  - id: odo_pell\n"
        "    name: Odo Pell\n"
        "    home: nowhere_town\n"
        "    faction: millbrook\n"
        "  - id: tib_pell\n"
        "    name: Tib Pell\n"
        "    factions: [millers_ring, the_drowned_choir]\n",
        encoding="utf-8",
    )
    code, _, report = _ingest(cli, tree)
    assert code == 1 and report["status"] == "failed"
    said = {(e["line"], e["column"]): e["message"] for e in report["errors"]}  # type: ignore[union-attr]
    assert sorted(said) == [(5, 11), (6, 14), (9, 30)], said
    assert "nowhere_town" in said[(5, 11)] or "Nowhere Town" in said[(5, 11)]
    assert "Millbrook" in said[(6, 14)] and "Faction" in said[(6, 14)]
    assert "Drowned Choir" in said[(9, 30)] or "the_drowned_choir" in said[(9, 30)]
    tree.write_text("lineage: pell_family\nmembers:\n  - name: Odo Pell\n    home: [millbrook]\n")
    code, _, report = _ingest(cli, tree)
    (listed,) = report["errors"]  # type: ignore[misc]
    assert code == 1 and (listed["line"], listed["column"]) == (4, 11) and "got a list" in listed["message"]


def test_a_failed_import_says_the_other_files_were_not_imported_either(
    cli: CliRunner, tmp_path: Path
) -> None:
    good = tmp_path / "barrows.yaml"
    good.write_text("kind: gazetteer\nlocations:\n  - name: Barrow Hill\n    part_of: quarry_hills\n")
    bad = tmp_path / "tollmen.yaml"
    bad.write_text("kind: characters\ncharacters:\n  - name: Tollman Rudd\n    home: nowhere_town\n")
    code, text, report = _ingest(cli, good, bad)
    assert code == 1
    error = (
        "1 problem in tollmen.yaml; nothing was written. The other file of this import, barrows.yaml, was not "
        "imported either."
    )
    assert report["error"] == error
    lines = text.strip().splitlines()
    assert lines[:2] == [
        f"Campaign “{CAMPAIGN}”: nothing written, 1 problem; 2 files not imported.",
        f"  {error}",
    ]
    assert {f["file"]: f["status"] for f in report["files"]} == {  # type: ignore[union-attr]
        "barrows.yaml": "failed",
        "tollmen.yaml": "failed",
    }
    (alone,) = [line for line in ask(cli, tmp_path, ["where is barrow hill"]).values()]
    assert alone == "Nothing the table knows says where barrow hill is."
