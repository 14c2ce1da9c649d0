"""Chains of relations asked through `lorekeeper lore` of a small world of our own (the Quells and the Vales): "who
killed Mara's mother", "who is the father of the queen's husband" are answered by following each tie in the graph,
each step said ("Mara Quell's mother is Ysolde Quell; Hob Greave killed Ysolde Quell."). Each step is read as the
asker may see it: a tie kept for the GM is no step of a player's, whose answer is exactly what the same world
without the GM's lines (marked "# secret") gives. On SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "quells"
FILES = {
    "calendar": """
months: [Thawing, Greening, Sunfall, Frostmere]
""",
    "folk": """
characters:
  - name: Mara Quell
    sex: female
    parents: [Ysolde Quell]
  - name: Ysolde Quell
    sex: female
    killed_by: Hob Greave
  - name: Hob Greave
    sex: male
  - name: Queen Alys
    sex: female
    titles: [Queen]
    spouse: Orrin Vale
  - name: Orrin Vale
    sex: male
    parents: [Old Vale]
  - name: Old Vale
    sex: male
  - name: Tam Reed
    sex: male
    parents: [Ysolde Quell]  # secret
    gm_only: [parents]  # secret
  - name: Ned Ash
    sex: male
    parents: [Lia Ash]
  - name: Lia Ash
    sex: female
    killed_by: Hob Greave  # secret
    gm_only: [killed_by]  # secret
  - name: King Bran
    sex: male
    titles: [King]
    spouse: Sella Bran  # secret
    gm_only: [spouse]  # secret
  - name: Sella Bran
    sex: female
    parents: [Old Vale]
""",
}
ASKED = [
    "who killed Mara's mother?",
    "Who killed Mara Quell's mother?",
    "who is the father of the queen's husband?",
    "who is the father of Queen Alys's husband?",
    "who killed Tam Reed's mother?",
    "who killed Ned Ash's mother?",
    "who is the father of the king's wife?",
    "who killed the mother of Mara?",
    "who killed the mother of Tam Reed?",
]
MARA = "Mara Quell's mother is Ysolde Quell; Hob Greave killed Ysolde Quell."
ALYS = "Queen Alys is married to Orrin Vale; Orrin Vale's father is Old Vale."


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Quells imported, and their copy without the GM's lines."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", public_written(FILES))
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_each_step_of_a_chain_is_followed_and_said(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False, gm=True)
    assert gm == {
        ASKED[0]: MARA,
        ASKED[1]: MARA,
        ASKED[2]: ALYS,
        ASKED[3]: ALYS,
        ASKED[4]: "Tam Reed's mother is Ysolde Quell; Hob Greave killed Ysolde Quell.",
        ASKED[5]: "Ned Ash's mother is Lia Ash; Hob Greave killed Lia Ash.",
        ASKED[6]: "King Bran is married to Sella Bran; Sella Bran's father is Old Vale.",
        ASKED[7]: MARA,
        ASKED[8]: "Tam Reed's mother is Ysolde Quell; Hob Greave killed Ysolde Quell.",
    }


def test_a_step_kept_for_the_gm_reads_to_a_player_as_never_written(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED, citations=False)
    assert player == ask_world(cli, tmp_path, f"{CAMPAIGN}-public", ASKED, citations=False)
    assert player[ASKED[0]] == MARA and player[ASKED[2]] == ALYS
    assert player[ASKED[7]] == MARA
    # A hidden tie blocks the chain: nothing the table knows, and nothing of the GM's; "the mother of" a name
    # whose mother is the GM's reads as of a name nobody knows.
    assert player[ASKED[8]] == "Nothing the table knows says who killed the mother of Tam Reed."
    unknown = ask_world(cli, tmp_path, CAMPAIGN, ["who killed the mother of Zed Pogg?"], citations=False)
    assert unknown["who killed the mother of Zed Pogg?"] == player[ASKED[8]].replace("Tam Reed", "Zed Pogg")
    for blocked in [*ASKED[4:7], ASKED[8]]:
        assert player[blocked].startswith("Nothing the table knows"), player
        assert not any(w in player[blocked] for w in ("Ysolde", "Hob", "Sella", "Old Vale")), player
