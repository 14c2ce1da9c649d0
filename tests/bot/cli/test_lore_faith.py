"""Whom a person worships (`worships:` on a character or a family tree's member, one name or several), on a small
world of our own (the Salt Coast): tied to the gods a culture file's `deities` define, read by `/lore` ("who does
Mara worship", "who worships the Tide Mother"), kept for the GM alone by `gm_only: [worships]` (a player reads it
word for word as a person no file gives a faith, or a name nobody wrote), an empty name refused at its line. On
SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import SALT_ANNALS, SALT_CALENDAR, asker, import_written

CAMPAIGN = "saltfaith"
FILES = {
    "calendar": SALT_CALENDAR,
    "annals": SALT_ANNALS,
    "folk": """
characters:
  - name: Mara Quell
    worships: The Tide Mother
  - name: Osric Vane
    faith: [The Tide Mother, the old gods]
  - name: Isen Gale
    worships: The Tide Mother
    gm_only: [worships]
  - name: Cole Brun
---
lineage: House Brun
members:
  - name: Hale Brun
    worships: [Saint Orla]
---
factions:
  - name: The Brine Choir
    worships: Saint Orla
    gm_only: [worships]
  - name: The Net Menders
---
cultures:
  - name: The Reefolk
deities:
  - name: The Tide Mother
  - name: Saint Orla
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Salt Coast's people and gods imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "coast", FILES)


ask = asker(CAMPAIGN)


READS = {
    "who does Mara Quell worship?": "Mara Quell worships the Tide Mother.",
    "what is Osric Vane's religion?": "Osric Vane worships the Tide Mother and the old gods.",
    "who does Hale Brun worship?": "Hale Brun worships Saint Orla.",
    "who worships the Tide Mother?": "Mara Quell and Osric Vane worship the Tide Mother.",
    "who worships Saint Orla?": "Hale Brun worships Saint Orla.",
}


def test_a_player_reads_whom_a_person_worships_and_who_worships_a_god(cli: CliRunner, tmp_path: Path) -> None:
    assert {q: a for q, a in ask(cli, tmp_path, list(READS)).items() if a != READS[q]} == {}


def test_a_faith_kept_for_the_gm_reads_to_a_player_as_none_or_as_no_one(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = "who does {} worship?"
    player = ask(cli, tmp_path, [asked.format(n) for n in ("Isen Gale", "Cole Brun", "Brack Marrow")])
    hidden, none, nobody = (player[asked.format(n)] for n in ("Isen Gale", "Cole Brun", "Brack Marrow"))
    assert hidden == none.replace("Cole Brun", "Isen Gale") == nobody.replace("Brack Marrow", "Isen Gale")
    # A group's faith kept for the GM: neither the tie nor the words it is kept as reach a player.
    group = "what does {} worship?"
    player = ask(cli, tmp_path, [group.format(n) for n in ("the Brine Choir", "the Net Menders")])
    assert player[group.format("the Brine Choir")] == player[group.format("the Net Menders")].replace(
        "Net Menders", "Brine Choir"
    )
    for name in ("Isen Gale", "The Brine Choir"):
        card = cli.invoke(app, ["canon", "entity", name, "-c", CAMPAIGN]).output
        assert "Tide Mother" not in card and "Orla" not in card, card
    gm = ask(cli, tmp_path, [asked.format("Isen Gale"), "who worships the Tide Mother?"], gm=True)
    assert gm == {
        asked.format("Isen Gale"): "Isen Gale worships the Tide Mother.",
        "who worships the Tide Mother?": "Mara Quell, Osric Vane and Isen Gale worship the Tide Mother.",
    }


def test_an_empty_or_a_mapped_faith_is_refused_at_its_line(cli: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "more.yaml"
    path.write_text(
        'characters:\n  - name: Wenna Dray\n    worships: [The Tide Mother, ""]\n', encoding="utf-8"
    )
    said = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "nothing was written" in said, said
    assert 'line 3, column 33: item 2 of "worships" is empty: give a god\'s name' in said, said
    path.write_text(
        "characters:\n  - name: Wenna Dray\n    worships: {name: The Tide Mother}\n", encoding="utf-8"
    )
    said = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output
    assert "nothing was written" in said and "line 3, column" in said, said
