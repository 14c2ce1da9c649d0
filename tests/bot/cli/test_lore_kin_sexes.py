"""Kin said by each one's own sex: a father is a father, however asked ("late father", "real father"), a woman
named as someone's godparent, step-parent or in-law is a godmother, a stepmother, a mother-in-law (never the word
the question or the file used), one canon gives no sex is said so; and "real" (true, biological, birth) asks the
truth behind a tie the table only believes or took up later, never read as "parent"."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import THIRD_AGE_CALENDAR, ask_world, import_written, public_written

CAMPAIGN = "brannock"
FILES = {
    "calendar": THIRD_AGE_CALENDAR,
    "folk": """
characters:
  - {name: Hale Brann, sex: male, born: 290}
  - {name: Mira Brann, sex: female, born: 295}
  - {name: Ash Brann, born: 296}
  - name: Wynn Brann
    sex: female
    born: 320
    parents: [Hale Brann, Mira Brann]
    adoptive_parents: [{name: Corm Tull, adopted: 330}]
    ties:
      - {name: Osk Vell, is: godparent}
      - {name: Ida Vell, is: godfather}
      - {name: Lun Vell, is: godparent}
      - {name: Rena Dray, is: stepfather}
      - {name: Kell Dray, is: father-in-law}
  - {name: Corm Tull, sex: male, born: 290}
  - {name: Osk Vell, sex: male, born: 290}
  - {name: Ida Vell, sex: female, born: 290}
  - {name: Lun Vell, born: 290}
  - {name: Rena Dray, sex: female, born: 290}
  - {name: Kell Dray, sex: female, born: 290}
  - {name: Pell Brann, sex: male, born: 322, parents: [Hale Brann, Ash Brann]}
  - {name: Aldric Thorne, sex: male, born: 290}
  - {name: Maud Thorne, sex: female, born: 295, spouse: Brann Ashby}
  - {name: Brann Ashby, sex: male, born: 292}
  - name: Pip Thorne
    sex: male
    born: 325
    reputed_parents: [Brann Ashby, Maud Thorne]
    parents: [Aldric Thorne, Maud Thorne]  # secret
    gm_only: [parents]  # secret
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_parent_is_said_by_sex_however_asked(cli: CliRunner, tmp_path: Path) -> None:
    asked = {
        "who is Pell's late father?": "Pell Brann's father is Hale Brann.",
        "who is Pell's father?": "Pell Brann's father is Hale Brann.",
        "who is Hale's eldest son?": "Hale Brann's son is Pell Brann.",
        "who is Hale's only daughter?": "Hale Brann's daughter is Wynn Brann.",
        # A parent canon gives no sex is no mother said: canon does not say which.
        "who is Pell's dear mother?": "Pell Brann's parents are Hale Brann and Ash Brann; canon does not say "
        "whether Ash Brann is a mother.",
    }
    said = ask_world(cli, tmp_path, CAMPAIGN, list(asked), citations=False)
    assert said == asked


def test_real_asks_the_truth_behind_an_adoption_or_a_story(cli: CliRunner, tmp_path: Path) -> None:
    adopted = "Wynn Brann was adopted by Corm Tull in year 330."
    believed = "Pip Thorne is known as Brann Ashby's son; canon does not say it is true."
    questions = [
        "who is Wynn's true mother?",
        "who is Wynn's biological father?",
        "who is Pip's real father?",
        "who is Pip's biological father?",
    ]
    gm = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=True, citations=False)
    assert gm[questions[0]] == f"Wynn Brann's birth mother is Mira Brann; {adopted}", gm
    assert gm[questions[1]] == f"Wynn Brann's birth father is Hale Brann; {adopted}", gm
    assert gm[questions[2]] == f"Pip Thorne's real father is Aldric Thorne; {believed}", gm
    assert gm[questions[3]] == f"Pip Thorne's biological father is Aldric Thorne; {believed}", gm
    # A player reads what is believed, and that canon does not say it is true: word for word as in the world where
    # the GM keeps no other father.
    player = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert player[questions[2]] == believed == player[questions[3]], player
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", questions, citations=False)


def test_a_tie_by_rite_or_marriage_is_said_by_the_sex_of_each(cli: CliRunner, tmp_path: Path) -> None:
    asked = {
        "who is Wynn's godfather?": "Wynn Brann's godfather is Osk Vell; canon does not say whether Lun Vell is a "
        "godfather.",
        "who is Wynn's godmother?": "Wynn Brann's godmother is Ida Vell; canon does not say whether Lun Vell is a "
        "godmother.",
        "who are Wynn's godparents?": "Wynn Brann's godparents are Osk Vell, Ida Vell and Lun Vell.",
        "who is Wynn's stepfather?": "Nothing the table knows names Wynn Brann's stepfather; Wynn Brann's "
        "stepmother is Rena Dray.",
        "who is Wynn's stepmother?": "Wynn Brann's stepmother is Rena Dray.",
        "who is Wynn's father-in-law?": "Nothing the table knows names Wynn Brann's father-in-law; Wynn Brann's "
        "mother-in-law is Kell Dray.",
        "who are Osk's goddaughters?": "Osk Vell's goddaughter is Wynn Brann.",
        "who is Rena's stepson?": "Nothing the table knows names Rena Dray's stepson; Rena Dray's stepdaughter is "
        "Wynn Brann.",
        "who is Lun's godson?": "Nothing the table knows names Lun Vell's godson; Lun Vell's goddaughter is Wynn Brann.",
    }
    said = ask_world(cli, tmp_path, CAMPAIGN, list(asked), citations=False)
    assert said == asked
