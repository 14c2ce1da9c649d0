"""How /lore answers read, on a small world of our own (tests/fixtures/ternmoor): a title said once and with its
article, an event named by a common noun with "the" in running prose (a possessive or an article of its own
kept as written), a name written with "The" in lower case inside a sentence, "is married to" rather than a
label, and a deed answered only from what says it was done. On SQLite, then PostgreSQL; what is GM-only reads
to a player as what nobody knows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "ternmoor"
CAMPAIGN = "ternmoor"
FILES = ("places", "factions", "people", "cast", "world")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Ternmoor world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


#: Question -> its whole answer, as a player asks.
READS = {
    # The description names the title: one sentence, the title once and with its article.
    "who is the storm regent": "Odile Brack is the Storm Regent, who holds the Tern Isles for the absent heir.",
    # An office "of" somewhere reads bare; the description joins it, the subject said once.
    "whos the keeper of bells": "Pell Haskin was Keeper of Bells, a stooped bell-founder from Harrow Ford.",
    # A widow's spouse, dead, as she was married: no "is" the table knows to be over.
    "who is odile married to": (
        "Odile Brack was married to Pell Haskin (died on 2 Sunmonth, year 410 of the Age of Gulls)."
    ),
    # Event names: a common noun before "of" takes "the"; "The Long Thaw" lowers its article mid-sentence.
    "was odile at the siege of harrow ford": (
        "Yes: Odile Brack took part in the Siege of Harrow Ford on 7 Wavemonth, year 402 of the Age of Gulls."
    ),
    "was pell at the long thaw": "Yes: Pell Haskin took part in the Long Thaw in year 390 of the Age of Gulls.",
    "when did pell die": (
        "Pell Haskin died on 2 Sunmonth, year 410 of the Age of Gulls, in the Wreck of the Grey Tern."
    ),
    # Opening a sentence, such a name takes "The".
    "when was the siege of harrow ford": (
        "The Siege of Harrow Ford took place at Harrow Ford on 7 Wavemonth, year 402 of the Age of Gulls."
    ),
    "what happened at harrow ford": (
        "The Siege of Harrow Ford took place at Harrow Ford on 7 Wavemonth, year 402 of the Age of Gulls."
    ),
    # An event with no place: its day names its era, said once.
    "when was odile's oath": "Odile's Oath took place in year 398 of the Age of Gulls.",
    # How a death was, from the description: a bare "strangled" is done to her; "who killed" is his own deed.
    "how did maud die": (
        "Maud Fenwick was strangled in her cell; Maud Fenwick died in year 404 of the Age of Gulls."
    ),
    "how did garr die": (
        "Garr Holt died of a fever the winter after; Garr Holt died in year 399 of the Age of Gulls."
    ),
    # A faction written "The Bellwrights": lower case inside a sentence, capital where it opens one.
    "what faction is wynn in": "Wynn Tolly is a member of the Bellwrights.",
    "who leads the storm crown": "Odile Brack leads the Storm Crown.",
    "who took part in the siege of harrow ford": "Odile Brack and the Bellwrights took part in the Siege of Harrow Ford.",
    "was wynn at the siege of harrow ford": (
        "Nothing the table knows says Wynn Tolly took part in the Siege of Harrow Ford; canon names Odile Brack "
        "and the Bellwrights as taking part."
    ),
    "is the storm regent's husband alive": (
        "No: Odile Brack, the Storm Regent, is married to Pell Haskin; Pell Haskin died on 2 "
        "Sunmonth, year 410 of the Age of Gulls, in the Wreck of the Grey Tern."
    ),
    # A deed: from a description that says it was done to the one asked, never a name of the same stem (the
    # Storm Crown) nor the doer's own deed read backwards (Brother Aske crowned Odile; nobody crowned him).
    "who crowned odile": "Brother Aske is a blind priest of the tide, who crowned Odile on the shingle.",
    "who crowned the storm crown": "Nothing the table knows says who crowned the storm crown.",
    "who crowned aske": "Nothing the table knows says who crowned aske.",
    "who crowned the storm regent": "Nothing the table knows says who crowned the storm regent.",
    # A description holding the verb's stem in other words ("mended Pell's crown") says no crowning.
    "who crowned pell": "Nothing the table knows says who crowned pell.",
    "who mended pell's crown": "Rook Ambry is a tinker who mended Pell's crown of bells.",
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


def test_a_possessive_event_name_keeps_no_article(cli: CliRunner, tmp_path: Path) -> None:
    (oath,) = ask(cli, tmp_path, ["did odile take part in odile's oath"]).values()
    assert "took part in Odile's Oath" in oath and "the Odile's" not in oath


def test_a_gm_only_deed_reads_to_a_player_as_one_nobody_knows(cli: CliRunner, tmp_path: Path) -> None:
    hidden, nobody = "who poisoned pell", "who strangled pell"
    player = ask(cli, tmp_path, [hidden, nobody])
    assert player[hidden] == "Nothing the table knows says who poisoned pell."
    assert player[nobody] == "Nothing the table knows says who strangled pell."
    gm = ask(cli, tmp_path, [hidden], gm=True)
    assert (
        gm[hidden] == "Sister Vell is a tide-witch in the regent's pay, who poisoned Pell at the bell feast."
    )
