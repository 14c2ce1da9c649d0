"""How someone died, where only words tell it: their own description ("Gored by a marsh boar …"), or an event's
that names them whole ("… Issa Corvane was taken by the fever …"). The answer quotes the world's words; a
description telling another's death ("whose brother drowned") is none of theirs; a sentence naming another of
the same family name is not told of them; an event kept for the GM tells a player nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "marrowfen"
FILES = {
    "calendar": """
eras:
  - {name: The Reed Count, abbreviation: RC, start: 1}
months: [Sedge, Rush, Bittern, Mire]
today: 1 Sedge, 210 RC
""",
    "folk": """
characters:
  - name: Hobb Ferrant
    description: A punt-keeper of the eastern channels. Gored by a marsh boar in the rushes below Kettle Weir.
  - name: Dama Ossory
    born: 150
    description: A reed-cutter's widow. She was poisoned at the harvest moot by her own steward.
  - name: Tully Wren
    born: 160
    description: A fowler whose brother drowned in Kettle Weir.
  - {name: Issa Corvane, born: 170}
  - {name: Brand Corvane, born: 140}
  - {name: Pell Ashby, born: 165}
---
kind: timeline
events:
  - name: The Fever Summer
    year: 201
    deaths: [Brand Corvane]
    description: The marsh fever came up the channels. Issa Corvane was carried off by the fever in its second week.
  - name: The Drowned Ledger                                           # secret
    year: 204                                                          # secret
    visibility: gm_only                                                # secret
    description: Pell Ashby was drowned in the sluice to hide the tithe books.  # secret
""",
}
ASKED = [
    "how did Hobb Ferrant die?",
    "how did Dama Ossory die?",
    "how did Tully Wren die?",
    "how did Issa Corvane die?",
    "how did Brand Corvane die?",
    "how did Pell Ashby die?",
]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_death_told_only_in_words_is_answered_in_the_worlds_words(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert said[ASKED[0]] == "Hobb Ferrant was gored by a marsh boar in the rushes below Kettle Weir.", said
    assert said[ASKED[1]] == "Dama Ossory was poisoned at the harvest moot by her own steward.", said
    assert said[ASKED[2]].startswith("Nothing the table knows says Tully Wren died; Tully Wren is alive"), (
        said
    )
    assert said[ASKED[3]] == "Issa Corvane was carried off by the fever in its second week.", said
    # Brand died in the event, but the sentence telling a death is Issa's: no word of it is his.
    assert said[ASKED[4]].startswith("Brand Corvane died in the Fever Summer in year 201"), said
    assert "Issa" not in said[ASKED[4]], said
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED[5:], gm=True, citations=False)
    assert gm[ASKED[5]] == "Pell Ashby was drowned in the sluice to hide the tithe books.", gm


def test_a_secret_events_telling_is_no_players(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED)
    assert "sluice" not in player[ASKED[5]], player
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", ASKED)
