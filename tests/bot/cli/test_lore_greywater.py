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
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "greywater"
CAMPAIGN = "greywater"
FILES = ("lands", "guilds", "thornes", "folk")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Greywater world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


_TAM = "On the fen roads Corin Vell calls himself Tam Reddle, since Scarp End still wants him for a debt."
_LOW_FENS = (
    "Ada Thorne, Nell Thorne and Wren Ashby live in Millbrook. Jory Thorne, Corin Vell and Bram Hollis live in Eelford. Old "
    "Hobb lived there and is dead."
)
_VALE = (
    "The Low Fens and the Quarry Hills are in the Greywater Vale. Millbrook (a town) and Eelford (a village) are "
    "in the Low Fens. Scarp End (a town) is in the Quarry Hills. The Cutting (a quarry) is in Scarp End."
)

#: Question -> its whole answer, as a player asks.
READS = {
    # A family tree's member placed and enrolled by the tree itself (`home`, `faction`, `factions`).
    "where does jory live": "Jory Thorne lives in Eelford.",
    "what faction is ada in": "Ada Thorne is a member of the Millers' Ring and the Thorne Family.",
    "what faction is jory in": (
        "Jory Thorne is a member of the Millers' Ring, the Stonecutters and the Thorne Family."
    ),
    # What became of someone: the state, and the sentence of the description telling it, said of them by name.
    "what happened to lise": (
        "Lise Thorne is missing. Lise Thorne went down into the Cutting in the spring of 611 and never came back up."
    ),
    "what became of lise thorne": (
        "Lise Thorne is missing. Lise Thorne went down into the Cutting in the spring of 611 and never came back up."
    ),
    # A false name written only in prose: its sentence, its pronoun the pedlar's name.
    "what is corin's real name": _TAM,
    "does corin go by another name": _TAM,
    "what alias does corin use": _TAM,
    "what name does corin use on the fen roads": _TAM,
    # A nickname canon gives (`aliases`), asked from either side.
    "does wren go by another name": "Wren Ashby is also called the Magpie.",
    "what is wren's nickname": "Wren Ashby is also called the Magpie.",
    "what is the magpie's real name": "The Magpie is Wren Ashby.",
    "who is the magpie": (
        "Wren Ashby, called the Magpie, is a thief of Millbrook, known on the mill quays as the Magpie. Wren Ashby "
        "lives in Millbrook."
    ),
    "does bram go by another name": "Nothing the table knows gives Bram Hollis another name.",
    # A trade, and what one is known for: the one sentence that says it, never the description after a colon.
    "what does bram do": "Bram Hollis is the ferryman at Eelford, who poles travellers across the Greywater for a copper.",
    "what does jory do for a living": "Jory Thorne is Ada's son, a mason who builds weirs for the millers.",
    "what is bram's job": (
        "Bram Hollis is the ferryman at Eelford, who poles travellers across the Greywater for a copper."
    ),
    "what trade deal did jory sign": "Nothing the table knows answers “what trade deal did jory sign?”.",
    "what is ada known for": "Ada Thorne is known for her apple brandy, which the whole vale buys.",
    "what is ada thorne famous for": "Ada Thorne is known for her apple brandy, which the whole vale buys.",
    # Who lives in a place: everyone; in a region, place by place; counted.
    "who lives in millbrook": "Ada Thorne, Nell Thorne and Wren Ashby live in Millbrook. Old Hobb lived there and is dead.",
    "who lives in eelford": "Jory Thorne, Corin Vell and Bram Hollis live in Eelford.",
    "who lives in the low fens": _LOW_FENS,
    "who are the residents of the low fens": _LOW_FENS,
    "how many people live in millbrook": (
        "Three people live in Millbrook: Ada Thorne, Nell Thorne and Wren Ashby. Old Hobb lived there and is dead."
    ),
    # How the dead died and where the imprisoned are held, as the description says it.
    "what happened to old hobb": (
        "Old Hobb drowned in the mill race the winter the ice broke. Old Hobb is dead."
    ),
    "what happened to tansy": "Tansy Reed is imprisoned, locked up in the Scarp End gaol since the harvest.",
    # A description opening on a bare noun, found by a nickname: one sentence, its subject named, never ",:".
    "who is tansy snare": (
        "Tansy Reed, called Tansy Snare, is a poacher of the fens, locked up in the Scarp End gaol since the "
        "harvest. Tansy Reed is imprisoned."
    ),
    "what does tansy do": "Tansy Reed is a poacher of the fens, locked up in the Scarp End gaol since the harvest.",
    # What lies in a region, at every depth, container by container; a kind asked narrows it.
    "what is in the greywater vale": _VALE,
    "what places are in the quarry hills": (
        "Scarp End (a town) is in the Quarry Hills. The Cutting (a quarry) is in Scarp End."
    ),
    "what towns are in the low fens": "Millbrook is the only town in the Low Fens.",
    "what towns are in the greywater vale": "Millbrook and Scarp End are towns in the Greywater Vale.",
    # Where a place is: the places holding it, nearest first.
    "where is eelford": "Eelford is in the Low Fens, in the Greywater Vale.",
    "where is the cutting": "The Cutting is in Scarp End, in the Quarry Hills, in the Greywater Vale.",
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}
    assert not [a for a in answers.values() if ",:" in a or "description:" in a]


#: What a player may not read, as the GM reads it; a player reads it as what nobody knows.
GM_READS = {
    # Maud Pell's home is GM-only and Silas Crane is: neither is listed nor counted for a player.
    "who lives in millbrook": (
        "Ada Thorne, Nell Thorne, Wren Ashby, Maud Pell and Silas Crane live in Millbrook. Old Hobb lived there and is dead."
    ),
    "how many people live in millbrook": (
        "Five people live in Millbrook: Ada Thorne, Nell Thorne, Wren Ashby, Maud Pell and Silas Crane. Old Hobb lived there "
        "and is dead."
    ),
    # A GM-only place within a town.
    "what is in millbrook": "The Smugglers' Cellar (a cellar) is in Millbrook.",
    # A family member's GM-only faction (`gm_only: [factions]` in the tree): neither said nor counted.
    "what faction is nell in": "Nell Thorne is a member of the Millers' Ring, the Stonecutters and the Thorne Family.",
    "how many members does the stonecutters have": (
        "The Stonecutters have three members: Jory Thorne, Lise Thorne and Nell Thorne."
    ),
    # A GM-only alias of a public person.
    "does bram go by another name": "Bram Hollis is also called the Toll Ghost.",
    # A GM-only person's false name.
    "what is silas crane's real name": (
        "Silas Crane is the Quiet Hand's fence, who trades under the name Master Lyle."
    ),
}


def test_what_is_gm_only_is_never_listed_nor_counted_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask(cli, tmp_path, list(GM_READS), gm=True)
    assert gm == GM_READS
    player = ask(cli, tmp_path, [*GM_READS, "who lives in the low fens", "what is in the greywater vale"])
    assert player["who lives in millbrook"] == READS["who lives in millbrook"]
    assert player["how many people live in millbrook"] == READS["how many people live in millbrook"]
    assert player["who lives in the low fens"] == _LOW_FENS
    assert player["what is in the greywater vale"] == _VALE
    # A town with nothing in it the player may see reads as one with nothing in it at all.
    nothing_within = ask(cli, tmp_path, ["what is in eelford"])["what is in eelford"]
    assert nothing_within.startswith("Eelford is a village of eel-trappers")
    assert player["what is in millbrook"].startswith("Millbrook is a mill town on the Greywater")
    assert "Cellar" not in player["what is in millbrook"]
    # A GM-only person's name, and a name only the GM's text gives, read like a name nobody knows.
    assert (
        player["what is silas crane's real name"]
        == "Nothing the table knows says what silas crane's real name is."
    )
    unknown = ask(cli, tmp_path, ["what is odo quill's real name"])["what is odo quill's real name"]
    assert unknown == "Nothing the table knows says what odo quill's real name is."
    assert (
        player["what faction is nell in"]
        == "Nell Thorne is a member of the Millers' Ring and the Thorne Family."
    )
    assert player["how many members does the stonecutters have"] == (
        "The Stonecutters have two members: Jory Thorne and Lise Thorne."
    )
    # A GM-only alias finds no one: it reads as a name nobody knows, and its bearer as one with no other name.
    assert player["does bram go by another name"] == "Nothing the table knows gives Bram Hollis another name."
    ghost = ask(cli, tmp_path, ["who is the toll ghost", "who is the pale rider"])
    assert ghost == {
        "who is the toll ghost": "Nothing the table knows says who the toll ghost is.",
        "who is the pale rider": "Nothing the table knows says who the pale rider is.",
    }
    assert not any(
        name in a for a in player.values() for name in ("Silas", "Maud", "Lyle", "Toll Ghost", "Cellar")
    )


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


def test_a_failed_import_with_its_calendar_counts_each_file_once(cli: CliRunner, tmp_path: Path) -> None:
    calendar = tmp_path / "calendar.yaml"
    calendar.write_text("months: [Thaw, Bloom]\n")
    good = tmp_path / "barrows.yaml"
    good.write_text("kind: gazetteer\nlocations:\n  - name: Barrow Hill\n")
    bad = tmp_path / "tollmen.yaml"
    bad.write_text("kind: characters\ncharacters:\n  - name: Tollman Rudd\n    home: nowhere_town\n")
    code, text, _ = _ingest(cli, calendar, good, bad)
    assert code == 1
    assert (
        text.strip().splitlines()[0]
        == f"Campaign “{CAMPAIGN}”: nothing written, 1 problem; 3 files not imported."
    ), text
    assert "calendar.yaml: not set: the world files were not imported" in text, text
