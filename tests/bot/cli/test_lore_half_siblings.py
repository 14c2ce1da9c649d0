"""Full and half siblings, and a birth set against the parents' marriage, asked through `lorekeeper lore` of a
small world of our own (the Penhallows of the Mirefen): two people sharing one parent canon names are
half-siblings, two sharing both full ones, and of one whose other parent a player does not see nothing is said
either way; "was X born out of wedlock" gives its verdict with both dates, or what is known without one. A
player reads what the same files without the GM's lines (marked "# secret") would say; a GM-only name reads as a
name nobody knows. On SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "penhallow"
FILES = {
    "calendar": """
eras:
  - {name: The Lantern Count, abbreviation: LC, start: 1}
months: [Ashmonth, Thawing, Greening, Highsun, Reaping, Frostfall]
today: 1 Thawing, 420 LC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Lantern Count, abbreviation: LC, start: 1}
events: []
""",
    "folk": """
characters:
  - name: Aldous Penhallow
    sex: male
    spouse: {name: Ysolde Penhallow, married: 3 Greening 402 LC}
  - name: Ysolde Penhallow
    sex: female
  - name: Brisa Tanner
    sex: female
  - name: Garrick Voss
    sex: male
  - name: Merrit Penhallow
    sex: male
    born: 400 LC
    parents: [Aldous Penhallow, Ysolde Penhallow]
  - name: Caddie Penhallow
    sex: female
    born: 405 LC
    parents: [Aldous Penhallow, Ysolde Penhallow]
  - name: Rook Tanner
    sex: male
    born: 398 LC
    parents: [Aldous Penhallow, Brisa Tanner]
  - name: Lune Penhallow
    sex: female
    born: 406 LC
    parents:
      - Ysolde Penhallow
      - {name: Garrick Voss, gm_only: true}  # secret
  - name: Odo Marl
    sex: male
    spouse: {name: Wenna Marl, married: 9 Reaping 409 LC}
  - name: Wenna Marl
    sex: female
  - name: Pell Marl
    sex: male
    born: 407 LC  # secret
    gm_only: [born]  # secret
    parents: [Odo Marl, Wenna Marl]
  - name: Hobb Rye
    sex: male
    spouse: {name: Ketta Rye, married: 1 Ashmonth 408 LC}  # secret
    gm_only: [spouse]  # secret
  - name: Ketta Rye
    sex: female
  - name: Tamsin Rye
    sex: female
    born: 404 LC
    parents: [Hobb Rye, Ketta Rye]
  - name: Sable Quenn  # secret
    visibility: gm_only  # secret
    parents: [Garrick Voss]  # secret
""",
}
PUBLIC = public_written(FILES)

HALVES = {
    "who is Merrit's brother?": "Merrit Penhallow's half-brother is Rook Tanner.",
    "who are Merrit's siblings?": (
        "Merrit Penhallow's siblings are Caddie Penhallow, Rook Tanner (a half-brother) and Lune Penhallow."
    ),
    "who are Merrit's half-siblings?": (
        "Merrit Penhallow's half-sibling is Rook Tanner; canon does not say whether Lune Penhallow is a full or a "
        "half sister."
    ),
    "is Rook Merrit's brother?": (
        "Rook Tanner is Merrit Penhallow's half-brother: they share one parent, Aldous Penhallow."
    ),
    "is Rook Merrit's full brother?": (
        "No: Rook Tanner is Merrit Penhallow's half-brother: they share one parent, Aldous Penhallow."
    ),
    "is Caddie Merrit's full sister?": (
        "Yes: Caddie Penhallow is Merrit Penhallow's full sister: both are children of Aldous Penhallow and "
        "Ysolde Penhallow."
    ),
    "is Caddie Merrit's half sister?": (
        "No: Caddie Penhallow is Merrit Penhallow's full sister: both are children of Aldous Penhallow and "
        "Ysolde Penhallow."
    ),
    "how many brothers does Caddie have?": "Caddie Penhallow has two brothers: Merrit Penhallow and Rook Tanner (a half-brother).",
    "how is Rook related to Caddie?": "Rook Tanner is Caddie Penhallow's half-brother.",
    "is Rook an only child?": "No: Rook Tanner's half-siblings are Caddie Penhallow and Merrit Penhallow.",
    # Lune's father is the GM's: a player reads the one parent she sees, and nothing of full or half.
    "who is Lune's sister?": "Lune Penhallow's sister is Caddie Penhallow.",
    "is Lune Merrit's half-sister?": (
        "Lune Penhallow is Merrit Penhallow's sister; canon does not say whether a full or a half sister."
    ),
    "is Lune Merrit's full sister?": (
        "Lune Penhallow is Merrit Penhallow's sister; canon does not say whether a full or a half sister."
    ),
}
#: What the GM reads where it differs: Lune's father makes her a half-sister.
HALVES_GM = {
    "who are Merrit's siblings?": (
        "Merrit Penhallow's siblings are Caddie Penhallow, Rook Tanner (a half-brother) and Lune Penhallow (a "
        "half-sister)."
    ),
    "who are Merrit's half-siblings?": "Merrit Penhallow's half-siblings are Rook Tanner and Lune Penhallow.",
    "who is Lune's sister?": (
        "Lune Penhallow's half-sister is Caddie Penhallow; canon does not say whether Sable Quenn is a sister."
    ),
    "is Lune Merrit's half-sister?": (
        "Yes: Lune Penhallow is Merrit Penhallow's half-sister: they share one parent, Ysolde Penhallow."
    ),
    "is Lune Merrit's full sister?": (
        "No: Lune Penhallow is Merrit Penhallow's half-sister: they share one parent, Ysolde Penhallow."
    ),
}

WEDLOCK = {
    "was Merrit born before his parents married?": (
        "Yes: Merrit Penhallow was born in year 400 of the Lantern Count, before Aldous Penhallow and Ysolde "
        "Penhallow married on 3 Greening, year 402 of the Lantern Count."
    ),
    "was Merrit born out of wedlock?": (
        "Yes: Merrit Penhallow was born in year 400 of the Lantern Count, before Aldous Penhallow and Ysolde "
        "Penhallow married on 3 Greening, year 402 of the Lantern Count."
    ),
    "was Caddie born out of wedlock?": (
        "No: Caddie Penhallow was born in year 405 of the Lantern Count, after Aldous Penhallow and Ysolde "
        "Penhallow married on 3 Greening, year 402 of the Lantern Count."
    ),
    "was Caddie born after her parents' wedding?": (
        "Yes: Caddie Penhallow was born in year 405 of the Lantern Count, after Aldous Penhallow and Ysolde "
        "Penhallow married on 3 Greening, year 402 of the Lantern Count."
    ),
    "is Rook illegitimate?": (
        "Rook Tanner was born in year 398 of the Lantern Count; nothing the table knows says Aldous Penhallow "
        "and Brisa Tanner married."
    ),
    "was Lune born out of wedlock?": (
        "Lune Penhallow was born in year 406 of the Lantern Count; nothing the table knows names both parents "
        "of Lune Penhallow."
    ),
    # Pell's birth and the Ryes' marriage are the GM's: what is known, never a verdict.
    "was Pell born out of wedlock?": (
        "Nothing the table knows says when Pell Marl was born; Odo Marl and Wenna Marl married on 9 Reaping, "
        "year 409 of the Lantern Count."
    ),
    "was Tamsin born before her parents married?": (
        "Tamsin Rye was born in year 404 of the Lantern Count; nothing the table knows says Hobb Rye and Ketta "
        "Rye married."
    ),
}
WEDLOCK_GM = {
    "was Lune born out of wedlock?": (
        "Lune Penhallow was born in year 406 of the Lantern Count; nothing the table knows says Ysolde "
        "Penhallow and Garrick Voss married."
    ),
    "was Pell born out of wedlock?": (
        "Yes: Pell Marl was born in year 407 of the Lantern Count, before Odo Marl and Wenna Marl married on 9 "
        "Reaping, year 409 of the Lantern Count."
    ),
    "was Tamsin born before her parents married?": (
        "Yes: Tamsin Rye was born in year 404 of the Lantern Count, before Hobb Rye and Ketta Rye married on 1 "
        "Ashmonth, year 408 of the Lantern Count."
    ),
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Penhallow world imported, and its copy without the secrets."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", PUBLIC)
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def _asked(
    cli: CliRunner, tmp_path: Path, questions: list[str], campaign: str = CAMPAIGN, *, gm: bool = False
):
    return ask_world(cli, tmp_path, campaign, questions, gm=gm, citations=False)


def test_half_and_full_siblings_and_births_read_as_canon_makes_them(cli: CliRunner, tmp_path: Path) -> None:
    expected = {**HALVES, **WEDLOCK}
    questions = list(expected)
    player = _asked(cli, tmp_path, questions)
    assert {q: a for q, a in player.items() if a != expected[q]} == {}
    # A player reads exactly what the files without the GM's lines say.
    assert _asked(cli, tmp_path, questions, f"{CAMPAIGN}-public") == player
    gm = _asked(cli, tmp_path, questions, gm=True)
    told = {**expected, **HALVES_GM, **WEDLOCK_GM}
    assert {q: a for q, a in gm.items() if a != told[q]} == {}


def test_typos_unknown_and_gm_only_names(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        "who are Merit's half-siblings?",
        "is Rook Merrit's full brothr?",
        "was Sable Quenn born out of wedlock?",
        "was Zorvan Quell born out of wedlock?",
        "who are Sable Quenn's half-siblings?",
        "who are Zorvan Quell's half-siblings?",
    ]
    said = _asked(cli, tmp_path, questions)
    assert said["who are Merit's half-siblings?"] == HALVES["who are Merrit's half-siblings?"]
    assert said["is Rook Merrit's full brothr?"] == HALVES["is Rook Merrit's full brother?"]
    # A GM-only name reads to a player as a name nobody knows.
    for hidden, unknown in ((2, 3), (4, 5)):
        assert said[questions[hidden]].replace("Sable Quenn", "X") == said[questions[unknown]].replace(
            "Zorvan Quell", "X"
        ), said
    gm = _asked(cli, tmp_path, ["who are Sable Quenn's half-siblings?"], gm=True)
    assert "Lune Penhallow" in gm["who are Sable Quenn's half-siblings?"], gm
