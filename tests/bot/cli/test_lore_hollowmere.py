"""Kin, ages and marriages as /lore answers them, on a small world of our own (tests/fixtures/hollowmere): a
family told by parents, and one told by children lists (siblings, grandparents, uncles, cousins are walked from
them), kin words as players type them, the sex of two people and a marriage with its day said in play, a wedding
in the timeline, a GM-only parent and a GM-only child, a first name two people share, heirs canon names. On SQLite, then PostgreSQL; what is GM-only reads to a player as what nobody knows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world, scene_on
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "hollowmere"
CAMPAIGN = "hollowmere"
FILES = ("moss", "quill", "folk", "happenings")
#: What play says beside the files: two people's sex, a marriage with the day it began; and for the GM alone,
#: Tove's sex and a sister of Cole's.
PLAYED = (
    ["fact", "Brann Moss", "sex", "male"],
    ["fact", "Ilsa Moss", "gender", "she/her"],
    [
        "relationship",
        "Wren Moss",
        "SPOUSE_OF",
        "Brann Tally",
        "--since",
        "4 Reaping, year 375 of the Reed Reckoning",
    ],
    ["fact", "Tove Moss", "sex", "female", "--gm-only"],
    ["relationship", "Cole Moss", "SIBLING_OF", "Nessa Crane", "--gm-only"],
)


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the Hollowmere world imported, its calendar set, and play's facts."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    for played in PLAYED:
        result = runner.invoke(app, ["canon", "add", *played, "-c", CAMPAIGN])
        assert result.exit_code == 0, result.output
    return runner


ask = asker(CAMPAIGN)


#: Question -> its whole answer, as a player asks.
KIN = {
    # Two steps out, walked from the parents the tree gives.
    "who are Tove's siblings": "Tove Moss' sibling is Brann Moss.",
    "who are Arlen Moss's grandchildren": "Arlen Moss' grandchildren are Brann Moss, Tove Moss and Wren Moss.",
    "who are tove's grandparents": (
        "Tove Moss' grandparents are Arlen Moss and Hesta Moss (died in year 360 of the Reed Reckoning)."
    ),
    "who are Wren's cousins": "Wren Moss' cousins are Brann Moss and Tove Moss.",
    "how many grandchildren does Arlen have": (
        "Arlen Moss has three grandchildren: Brann Moss, Tove Moss and Wren Moss."
    ),
    # A word naming a sex keeps those canon says are of it, and says when canon does not say one's sex.
    "does Tove have a brother": "Yes: Tove Moss' brother is Brann Moss.",
    "who is Tove's mum": "Tove Moss' mother is Ilsa Moss.",
    "who is Tove's dad": (
        "Tove Moss' parents are Bram Moss and Ilsa Moss; canon does not say whether Bram Moss is a father."
    ),
    "who is Tove's uncle": "Tove Moss' uncle or aunt is Cole Moss; canon does not say whether Cole Moss is an uncle.",
    "who are cole's nephews": "Cole Moss' nephew is Brann Moss; canon does not say whether Tove Moss is a nephew.",
    "who are Bram's kids": "Bram Moss' children are Brann Moss and Tove Moss.",
    "who is Bram's wife": "Bram Moss is married to Ilsa Moss.",
    "who is Wren's husband": "Wren Moss is married to Brann Tally.",
    # Yes or no: the tie, or what canon does say of the two, never a "No" it does not say.
    "is Ilsa Tove's mother": "Yes: Ilsa Moss is Tove Moss' mother.",
    "is Cole Tove's uncle": "Cole Moss is Tove Moss' uncle or aunt; canon does not say which.",
    "are Tove and Brann Moss siblings": "Yes: Brann Moss is Tove Moss' sibling.",
    "are Tove and Wren siblings": (
        "Nothing the table knows says Wren Moss is Tove Moss' sibling; canon says Wren Moss is Tove Moss' cousin."
    ),
    "is Bram Tove's uncle": (
        "Nothing the table knows says Bram Moss is Tove Moss' uncle; canon says Bram Moss is Tove Moss' parent."
    ),
    # A whole family, and how two people are kin.
    "who are Tove's relatives": (
        "Tove Moss' family, as canon knows it: parents Bram Moss and Ilsa Moss; sibling Brann Moss; grandparents "
        "Arlen Moss and Hesta Moss; uncle or aunt Cole Moss; cousin Wren Moss."
    ),
    "how is Wren related to Tove": "Wren Moss is Tove Moss' cousin.",
    "is Nessa related to Tove": "Nothing the table knows says how Nessa Crane and Tove Moss are related.",
    # Marriages: the tie's own start, else a wedding both took part in, else that canon does not say when.
    "when did Bram and Ilsa get married": (
        "Bram Moss married Ilsa Moss on 9 Haying, year 348 of the Reed Reckoning, at the Reedholt Wedding."
    ),
    "when did Wren marry": "Wren Moss married Brann Tally on 4 Reaping, year 375 of the Reed Reckoning.",
    # A question asked of kin two steps out, or named as the table types it, reads the step first.
    "when was Tove's dad born": (
        "Tove Moss' parents are Bram Moss and Ilsa Moss; canon does not say whether Bram Moss is a father; Bram Moss "
        "is alive, born on 12 Haying, year 325 of the Reed Reckoning."
    ),
    "is Tove's mum alive": (
        "Yes: Tove Moss' mother is Ilsa Moss; Ilsa Moss is alive, born in year 327 of the Reed Reckoning."
    ),
    "when did Tove's grandmother die": (
        "Tove Moss' grandparents are Arlen Moss and Hesta Moss (died in year 360 of the Reed Reckoning); canon does "
        "not say which are grandmothers. Nothing the table knows says Arlen Moss died; Arlen Moss is alive, born in year 301 of the Reed Reckoning. Hesta "
        "Moss died in year 360 of the Reed Reckoning."
    ),
    # A wedding with no tie of marriage in canon: the one other who took part in it.
    "when did Sella and Jory get married": (
        "Sella Quill married Jory Hale in year 344 of the Reed Reckoning, at the Mill Handfasting."
    ),
    # Asked of kin: each found once, a marriage said once of both its ends.
    "when did Tove's parents get married": (
        "Tove Moss' parents are Bram Moss and Ilsa Moss; Bram Moss married Ilsa Moss on 9 Haying, year 348 of the "
        "Reed Reckoning, at the Reedholt Wedding."
    ),
    "how old is Tove's brother": (
        "Tove Moss' brother is Brann Moss; Brann Moss was born in year 353 of the Reed Reckoning; canon holds no "
        "date for today to count an age from."
    ),
    "when did Cole and Maren get married": (
        "Cole Moss is married to Maren Moss; nothing the table knows says when they married."
    ),
}


def test_kin_and_marriages_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(KIN))
    assert {q: a for q, a in answers.items() if a != KIN[q]} == {}


def test_a_gm_only_tie_or_sex_reads_to_a_player_as_unknown(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["who is Bram's daughter", "who are Cole's siblings"]
    assert ask(cli, tmp_path, questions) == {
        "who is Bram's daughter": (
            "Bram Moss' children are Brann Moss and Tove Moss; canon does not say whether Tove Moss is a daughter."
        ),
        "who are Cole's siblings": "Cole Moss' sibling is Bram Moss.",
    }
    assert ask(cli, tmp_path, questions, gm=True) == {
        "who is Bram's daughter": (
            "Bram Moss' daughter is Tove Moss; canon does not say whether Dagny Moss is a daughter."
        ),
        "who are Cole's siblings": "Cole Moss' siblings are Nessa Crane and Bram Moss.",
    }


def test_a_gm_only_parent_or_child_makes_no_kin_for_a_player(cli: CliRunner, tmp_path: Path) -> None:
    # Sella and Jory share only Osk Quill, a GM-only parent; Dagny is Bram's GM-only daughter.
    # Jory and Sella each have a public mother beside Osk: half-siblings, to the GM alone.
    questions = [
        "who are Jory's siblings",
        "is Sella Quill Jory's sister",
        "who are Wren's cousins",
        "who are Jory's half-siblings",
    ]
    player = ask(cli, tmp_path, questions)
    assert player == {
        "who are Jory's siblings": "Nothing the table knows says who Jory's siblings are.",
        "is Sella Quill Jory's sister": "Nothing the table knows says Sella Quill is Jory Hale's sister.",
        "who are Wren's cousins": "Wren Moss' cousins are Brann Moss and Tove Moss.",
        "who are Jory's half-siblings": "Nothing the table knows says who Jory's half-siblings are.",
    }
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm == {
        "who are Jory's siblings": "Jory Hale's half-sibling is Sella Quill.",
        "is Sella Quill Jory's sister": "Sella Quill is Jory Hale's brother or sister; canon does not say which.",
        "who are Wren's cousins": "Wren Moss' cousins are Brann Moss, Dagny Moss and Tove Moss.",
        "who are Jory's half-siblings": "Jory Hale's half-sibling is Sella Quill.",
    }


#: Heirs only as canon says them (a title, a description), never by birth order: Tove is older than Brann, but
#: nothing names an heir of Cole or Bram.
HEIRS = {
    "who is Arlen's heir": "Tove Moss is Heir of the Reedholt; Arlen Moss is Warden of the Reedholt.",
    "who is heir to the Reedholt": "Tove Moss is Heir of the Reedholt.",
    "who is Brann Tally's heir": (
        "Orla Tally is Brann Tally's niece, named in his will as heir to the east-bank ferry."
    ),
    "who is Cole's heir": "Nothing the table knows names an heir of Cole Moss.",
    "who is the Warden of the Reedholt's heir": (
        "Tove Moss is Heir of the Reedholt; Arlen Moss is Warden of the Reedholt."
    ),
    "is Tove Arlen's heir": "Yes: Tove Moss is Heir of the Reedholt; Arlen Moss is Warden of the Reedholt.",
    "is Brann Moss Arlen's heir": (
        "Nothing the table knows says Brann Moss is Arlen Moss' heir; canon says Tove Moss is Heir of the Reedholt."
    ),
    "is Tove heir to the east-bank ferry": (
        "Nothing the table knows says Tove Moss is heir to the east-bank ferry; canon says Tove Moss is Heir of the "
        "Reedholt."
    ),
    "who is Bram's heir": "Nothing the table knows names an heir of Bram Moss.",
}


def test_an_heir_is_who_canon_says_it_is(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(HEIRS))
    assert {q: a for q, a in answers.items() if a != HEIRS[q]} == {}


#: Ages by first names: who is older, an age with no date for now, a first name two people share.
AGES = {
    "who is older, Tove or Wren": (
        "Tove Moss is older, born on 2 Thawing, year 350 of the Reed Reckoning; Wren Moss was born in year 356 of "
        "the Reed Reckoning."
    ),
    "is Wren older than Tove": (
        "No: Tove Moss is older, born on 2 Thawing, year 350 of the Reed Reckoning; Wren Moss was born in year 356 "
        "of the Reed Reckoning."
    ),
    "how old is Tove": (
        "Tove Moss was born on 2 Thawing, year 350 of the Reed Reckoning; canon holds no date for today to count "
        "an age from."
    ),
    "how old was Hesta when she died": (
        "Hesta Moss was about 56 years old: born on 4 Greening, year 304 of the Reed Reckoning, died in year 360 of "
        "the Reed Reckoning."
    ),
    "how old is Nessa": "Nothing the table knows says how old Nessa is.",
    "is Tove older than Nessa": (
        "Nothing the table knows says when Nessa Crane was born; Tove Moss was born on 2 Thawing, year 350 of the "
        "Reed Reckoning."
    ),
    # "Brann" is Brann Moss's and Brann Tally's: never one chosen in silence.
    "how old is Brann": "Two people are called Brann: Brann Moss and Brann Tally; which one do you mean?",
    "is Tove older than Brann": "Two people are called Brann: Brann Moss and Brann Tally; which one do you mean?",
    "who is Brann's mother": "Two people are called Brann: Brann Moss and Brann Tally; which one do you mean?",
    "how old is Brann Tally": (
        "Brann Tally was born in year 340 of the Reed Reckoning; canon holds no date for today to count an age "
        "from."
    ),
    # Sella Marsh is GM-only: to a player, Sella is Sella Quill alone.
    "how old is Sella": (
        "Sella Quill was born in year 340 of the Reed Reckoning; canon holds no date for today to count an age "
        "from."
    ),
}


def test_ages_read_by_first_names_and_a_shared_one_asks_which(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(AGES))
    assert {q: a for q, a in answers.items() if a != AGES[q]} == {}
    (gm,) = ask(cli, tmp_path, ["how old is Sella"], gm=True).values()
    assert gm == "Two people are called Sella: Sella Marsh and Sella Quill; which one do you mean?"


def test_an_age_now_counts_to_the_story_date(cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path) -> None:
    scene_on(cli_env, CAMPAIGN, "reed_reckoning.375.4.4", title="At the mill")
    answers = ask(cli, tmp_path, ["how old is Tove", "how old is Brann Tally", "how old is Hesta"])
    assert answers == {
        # Born on a day: whole years to the story's day; born in a year only: about.
        "how old is Tove": (
            "Tove Moss is 25 years old, born on 2 Thawing, year 350 of the Reed Reckoning; the story stands at 4 "
            "Reaping, year 375 of the Reed Reckoning."
        ),
        "how old is Brann Tally": (
            "Brann Tally is about 35 years old, born in year 340 of the Reed Reckoning; the story stands at 4 "
            "Reaping, year 375 of the Reed Reckoning."
        ),
        # The dead are as old as they were when they died.
        "how old is Hesta": (
            "Hesta Moss was about 56 years old: born on 4 Greening, year 304 of the Reed Reckoning, died in year 360 "
            "of the Reed Reckoning."
        ),
    }


def test_a_chain_of_kin_is_read_tie_by_tie_as_the_asker_sees_it(cli: CliRunner, tmp_path: Path) -> None:
    # Each tie is read from the one before, through the asker's view; a tie naming no one, or several, says so.
    parents = (
        "Tove Moss' parents are Bram Moss and Ilsa Moss; canon does not say whether Bram Moss is a father"
    )
    questions = [
        "who is tove's dad's brother's wife",
        "who is Tove's brother's wife",
        "who is Tove's mum's sister",
        "who is tove's grandma's husband",
        "who is cole's brother's son",
    ]
    player = ask(cli, tmp_path, questions)
    assert player["who is tove's dad's brother's wife"] == (
        f"{parents}; Bram Moss' sibling is Cole Moss; canon does not say whether Cole Moss is a brother; "
        "Cole Moss is married to Maren Moss; Maren Moss is Wren Moss' parent. "
        "Maren Moss is alive, born in year 331 of the Reed Reckoning."
    )
    assert player["who is Tove's brother's wife"] == (
        "Tove Moss' brother is Brann Moss; nothing the table knows says who Brann Moss' wife is."
    )
    assert player["who is Tove's mum's sister"] == (
        "Tove Moss' mother is Ilsa Moss; nothing the table knows says who Ilsa Moss' sister is."
    )
    assert player["who is tove's grandma's husband"] == (
        "Tove Moss' grandparents are Arlen Moss and Hesta Moss (died in year 360 of the Reed Reckoning); canon does "
        "not say which are grandmothers; whose husband do you mean?"
    )
    assert player["who is cole's brother's son"].startswith(
        "Cole Moss' sibling is Bram Moss; canon does not say whether Bram Moss is a brother; "
        "Bram Moss' son is Brann Moss; "
    )
    gm = ask(cli, tmp_path, questions[-1:], gm=True)
    assert gm["who is cole's brother's son"] == (
        "Cole Moss' siblings are Nessa Crane and Bram Moss; canon does not say which are brothers; "
        "whose son do you mean?"
    )
