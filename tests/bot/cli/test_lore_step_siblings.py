"""Step-siblings: the children of a parent's spouse who is not one's parent, who share no parent with one (a
half-sister is a sister, never a stepsister), said by their sex (stepbrother, stepsister, step-sibling) with the
marriage they are through; a marriage kept for the GM makes no step-sibling a player reads of."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import THIRD_AGE_CALENDAR, ask_world, import_written, public_written

CAMPAIGN = "tullford"
FILES = {
    "calendar": THIRD_AGE_CALENDAR,
    "folk": """
characters:
  - {name: Gwen Tull, sex: female, born: 300, spouses: [{name: Tobin Tull, married: 330}]}
  - {name: Tobin Tull, sex: male, born: 298}
  - {name: Elin Tull, sex: female, born: 299, died: 328}
  - {name: Ned Tull, sex: male, born: 325, parents: [Gwen Tull]}
  - {name: Rose Tull, sex: female, born: 322, parents: [Tobin Tull, Elin Tull]}
  - {name: Kit Tull, sex: male, born: 324, parents: [Tobin Tull, Elin Tull]}
  - {name: Ysa Tull, born: 320, parents: [Tobin Tull]}
  - {name: Bea Tull, sex: female, born: 332, parents: [Gwen Tull, Tobin Tull]}
  - name: Hugh Marr
    sex: male
    born: 300
    spouse: Ada Marr  # secret
    gm_only: [spouse]  # secret
  - {name: Ada Marr, sex: female, born: 302}
  - {name: Col Marr, sex: male, born: 326, parents: [Hugh Marr]}
  - {name: Fay Marr, sex: female, born: 327, parents: [Ada Marr]}
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_parents_spouses_children_are_step_siblings_by_their_sex(cli: CliRunner, tmp_path: Path) -> None:
    through = "(through his mother Gwen Tull and her husband Tobin Tull)"
    asked = {
        "who are Ned's step-brothers?": f"Ned Tull's stepbrother is Kit Tull {through}",
        "who are Ned's stepsisters?": f"Ned Tull's stepsister is Rose Tull {through}",
        "who are Ned's step siblings?": f"Ned Tull's step-siblings are Kit Tull, Rose Tull and Ysa Tull {through}",
        "is Rose Ned's stepsister?": "Yes: Rose Tull is Ned Tull's stepsister",
        "is Kit Ned's step-brother?": "Yes: Kit Tull is Ned Tull's stepbrother",
        "who are Rose's stepbrothers?": "Rose Tull's stepbrother is Ned Tull (through her father Tobin Tull and his "
        "wife Gwen Tull)",
    }
    said = ask_world(cli, tmp_path, CAMPAIGN, list(asked), citations=False)
    for question, answer in asked.items():
        assert said[question].startswith(answer), (question, said[question])
    # One whose sex canon does not say is no stepbrother or stepsister, and is said to be unknown as either.
    assert "canon does not say whether Ysa Tull is a stepbrother" in said["who are Ned's step-brothers?"], (
        said
    )


def test_a_half_sister_is_no_stepsister(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["who are Rose's stepsisters?", "is Bea Ned's stepsister?", "who are Ned's sisters?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert "Bea" not in said[questions[0]], said
    assert not said[questions[1]].startswith("Yes"), said
    assert "Bea Tull" in said[questions[2]], said


def test_a_marriage_kept_for_the_gm_makes_no_step_sibling_a_player_reads_of(
    cli: CliRunner, tmp_path: Path
) -> None:
    questions = ["who are Col's stepsisters?", "is Fay Col's stepsister?", "how are Col and Fay related?"]
    gm = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=True, citations=False)
    player = ask_world(cli, tmp_path, CAMPAIGN, questions, citations=False)
    assert gm[questions[0]].startswith("Col Marr's stepsister is Fay Marr (through his father Hugh Marr"), gm
    assert gm[questions[1]].startswith("Yes: Fay Marr is Col Marr's stepsister"), gm
    assert "stepsister" in gm[questions[2]] or "stepbrother" in gm[questions[2]], gm
    # A player reads word for word what the world without that marriage gives.
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", questions, citations=False)
    assert not any(a.startswith(("Yes", "Col Marr's stepsister")) for a in player.values()), player
