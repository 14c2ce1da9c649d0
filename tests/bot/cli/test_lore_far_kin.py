"""Kin farther than two steps, by marriage and by adoption, in a small world of our own (the Reed Count: two houses
over four generations, a remarriage, a half-sister, an adoption, a reputed father beside a GM-only true one):
great-grandparents with the chain they are through, one side of a family, step-parents, in-laws; and a chain
through a GM-only person reads to a player word for word as in the same world without that person."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CALENDAR = """
eras:
  - {name: The Reed Count, abbreviation: RC, start: 1}
months: [Thaw, Bloom, Reaping, Frost]
today: 2 Reaping, 400 RC
"""
BRANNOCK = """
lineage: House Brannock
members:
  - name: Aldous Brannock
    sex: male
    born: 250
    died: 331
    spouse_of: [Gwenna Brannock]
    aliases: [The Old Bear]
    titles: [{title: Warden of the Ford, from: 300}]
  - {name: Gwenna Brannock, sex: female, born: 255, died: 320}
  - name: Bram Brannock
    sex: male
    born: 280
    parents: [Aldous Brannock, Gwenna Brannock]
    spouses: [{name: Maren Selwyn, married: 305}, {name: Liese Varn, married: 318}]
    titles: [{title: Warden of the Ford, from: 331, to: 360}]
  - {name: Ysolde Dunning, sex: female, born: 284, parents: [Aldous Brannock, Gwenna Brannock], spouse: Hal Dunning}
  - {name: Liese Varn, sex: female, born: 290, lineage: null, aliases: [{name: The Viper, gm_only: true}]}
  - name: Corin Brannock
    sex: male
    born: 308
    parents: [Bram Brannock, Maren Selwyn]
    spouse: Nessa Brannock
    titles: [{title: Warden of the Ford, from: 360}]
  - {name: Petra Brannock, sex: female, born: 320, parents: [Bram Brannock, Liese Varn]}
  - {name: Nessa Brannock, sex: female, born: 310, lineage: null}
  - {name: Lark Brannock, sex: female, born: 335, parents: [Corin Brannock, Nessa Brannock]}
  - name: Fenn Brannock
    sex: male
    born: 338
    adoptive_parents: [{name: Corin Brannock, adopted: 341}, {name: Nessa Brannock, adopted: 341}]
"""
SELWYN = """
lineage: House Selwyn
members:
  - {name: Cedric Selwyn, sex: male, born: 252, spouse_of: [Orla Selwyn]}
  - {name: Orla Selwyn, sex: female, born: 256}
  - {name: Maren Selwyn, sex: female, born: 286, died: 315, parents: [Cedric Selwyn, Orla Selwyn]}
  - {name: Tobias Selwyn, sex: male, born: 289, parents: [Cedric Selwyn, Orla Selwyn], aliases: [Drip]}
  - name: Ansel Selwyn
    sex: male
    born: 312
    died: 351
    aliases: [the Lantern]
    cause_of_death: crushed in the collapse of the Deep Stair
    parents: [Tobias Selwyn]
---
kind: timeline
events:
  - {name: Collapse of the Deep Stair, year: 351, participants: [Ansel Selwyn, Bram Brannock]}
"""
FOLK = """
characters:
  - {name: Hal Dunning, sex: male, born: 280, parents: [Edda Dunning]}
  - {name: Edda Dunning, sex: female, born: 255}
  - {name: Marta Rusk, sex: female, born: 250}
  - {name: Dov Brannock, sex: male, born: 360, parents: [Lark Brannock]}
"""
#: The true father the GM keeps, a person players never see, and the story players are told.
HIDDEN = """
characters:
  - {name: Gideon Rusk, sex: male, born: 278, visibility: gm_only, parents: [Marta Rusk]}
  - name: Hale Orrin
    titles: [{title: Warden of the Ford, from: 280, to: 300, gm_only: true}]
  - {name: Old Vane, sex: male, born: 260}
  - {name: Sera Vane, sex: female, born: 300, parents: [Old Vane], gm_only: [parents]}
  - {name: Tam Vane, sex: male, born: 330, parents: [Sera Vane]}
  - name: Wren Dunning
    sex: female
    born: 310
    reputed_parents: [Hal Dunning, Ysolde Dunning]
    parents: [Gideon Rusk, Ysolde Dunning]
    gm_only: [parents]
  - {name: Kit Dunning, sex: male, born: 340, parents: [Wren Dunning]}
  - name: Master Halloran
    sex: male
    ties: [{name: Corin Brannock, is: apprentice}, {name: Petra Brannock, is: apprentice, gm_only: true}]
"""
#: The same world had nobody written the true father, nor Petra's apprenticeship.
TOLD = """
characters:
  - {name: Wren Dunning, sex: female, born: 310, reputed_parents: [Hal Dunning, Ysolde Dunning]}
  - {name: Kit Dunning, sex: male, born: 340, parents: [Wren Dunning]}
  - {name: Master Halloran, sex: male, ties: [{name: Corin Brannock, is: apprentice}]}
  - {name: Hale Orrin}
  - {name: Old Vane, sex: male, born: 260}
  - {name: Sera Vane, sex: female, born: 300}
  - {name: Tam Vane, sex: male, born: 330, parents: [Sera Vane]}
"""


def _world(name: str, tmp_path: Path, wren: str) -> CliRunner:
    files = {"calendar": CALENDAR, "brannock": BRANNOCK, "selwyn": SELWYN, "folk": FOLK, "wren": wren}
    return import_written(name, tmp_path / name, files)


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Reed Count imported, the true father kept for the GM."""
    return _world("reeds", tmp_path, HIDDEN)


def _ask(
    cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False, name: str = "reeds"
) -> dict[str, str]:
    return ask_world(cli, tmp_path, name, questions, gm=gm, citations=False)


def test_kin_three_and_four_generations_out_are_said_with_their_chain(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who is Dov Brannock's great-grandfather?": "Dov Brannock's great-grandfather is Bram Brannock (through his"
        " mother Lark Brannock and her father Corin Brannock).",
        "who were dov's great great grandmothers": "Dov Brannock's great-great-grandmothers are Gwenna Brannock"
        " (died in year 320; through his mother Lark Brannock, her father Corin Brannock and his father Bram Brannock), and Orla"
        " Selwyn (through his mother Lark Brannock, her father Corin Brannock and his mother Maren Selwyn).",
        "Who are Aldous Brannock's great-grandchildren?": "Aldous Brannock's great-grandchildren are Lark Brannock"
        " (through his son Bram Brannock and his son Corin Brannock), Fenn Brannock (through his son Bram"
        " Brannock and his son Corin Brannock, by adoption), and Kit Dunning (through his daughter Ysolde Dunning"
        " and her daughter Wren Dunning).",
        "Who is Lark's great aunt?": "Lark Brannock's great-aunt is Ysolde Dunning (through her father Corin"
        " Brannock and his father Bram Brannock).",
        "Who are Tobias Selwyn's great-nephews and great-nieces?": "Tobias Selwyn's great-nephews and great-nieces"
        " are Lark Brannock (through his sister Maren Selwyn and her son Corin Brannock), and Fenn Brannock"
        " (through his sister Maren Selwyn and her son Corin Brannock, by adoption).",
        "Is Lark Brannock Cedric Selwyn's great-granddaughter?": "Yes: Lark Brannock is Cedric Selwyn's"
        " great-granddaughter.",
        "How are Dov Brannock and Aldous Brannock related?": "Dov Brannock is Aldous Brannock's"
        " great-great-grandson (through his son Bram Brannock, his son Corin Brannock and his daughter Lark"
        " Brannock).",
        "Are Fenn Brannock and Lark Brannock related?": "Yes: Fenn Brannock is Lark Brannock's brother (her"
        " father Corin Brannock's adopted son).",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


def test_one_side_of_a_family_is_those_through_a_parent_of_that_side(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who is Corin Brannock's paternal grandmother?": "Corin Brannock's grandmother on his father's side was"
        " Gwenna Brannock (died in year 320).",
        "who was corin's grandfather on his mother's side": "Corin Brannock's grandfather on his mother's side is"
        " Cedric Selwyn.",
        "Who are Corin's cousins on the mother's side?": "Corin Brannock's cousin on his mother's side was Ansel"
        " Selwyn (died in year 351).",
        "Who is Lark Brannock's maternal grandmother?": "Nothing the table knows names a grandmother of Lark"
        " Brannock on her mother's side.",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


def test_step_parents_and_in_laws_are_walked_through_a_marriage(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who is Corin Brannock's stepmother?": "Corin Brannock's stepmother is Liese Varn (his father Bram"
        " Brannock's wife).",
        # Bram's first wife died before Petra was born: no stepmother of hers.
        "Who is Petra Brannock's stepmother?": "Nothing the table knows says who Petra Brannock's stepmother is.",
        "Who is Liese Varn's stepson?": "Liese Varn's stepson is Corin Brannock (her husband Bram Brannock's son).",
        "Who are Nessa's parents-in-law?": "Nessa Brannock's parents-in-law are Bram Brannock and Maren Selwyn"
        " (died in year 315) (through her husband Corin Brannock).",
        "Who is Bram Brannock's daughter in law?": "Bram Brannock's daughter-in-law is Nessa Brannock (his son"
        " Corin Brannock's wife).",
        "Who is Ysolde's sister-in-law?": "Ysolde Dunning's sisters-in-law are Liese Varn and Maren Selwyn (died in"
        " year 315) (through her brother Bram Brannock).",
        "Who is Hal Dunning's brother-in-law?": "Hal Dunning's brother-in-law is Bram Brannock (his wife Ysolde"
        " Dunning's brother).",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


def test_a_child_taken_in_has_the_adoptive_family_said_by_adoption(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who is Fenn Brannock's grandfather?": "Fenn Brannock's grandfather is Bram Brannock (through his adoptive"
        " father Corin Brannock).",
        "Who is Fenn's aunt?": "Fenn Brannock's aunt is Petra Brannock (through his adoptive father Corin Brannock).",
        "Who is Lark Brannock's brother?": "Lark Brannock's brother is Fenn Brannock (her father Corin Brannock's"
        " adopted son).",
        "Who are Corin Brannock's children?": "Corin Brannock's children are Lark Brannock, and Fenn Brannock (by"
        " adoption).",
        "Does Nessa Brannock have a son?": "Yes: Nessa Brannock's son is Fenn Brannock (by adoption).",
        "Who is Fenn's adoptive grandfather?": "Fenn Brannock's grandfather is Bram Brannock (through his adoptive"
        " father Corin Brannock).",
        "Who is Lark's adoptive grandfather?": "Nothing the table knows names a grandfather of Lark Brannock by"
        " adoption.",
        "Who are Bram Brannock's grandchildren?": "Bram Brannock's grandchildren are Lark Brannock, and Fenn"
        " Brannock (through his son Corin Brannock, by adoption).",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


def test_both_words_of_one_tie_ask_the_whole_tie(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who are Corin Brannock's aunts and uncles?": "Corin Brannock's uncles and aunts are Ysolde Dunning and"
        " Tobias Selwyn.",
        "Who are Lark's uncles?": "Nothing the table knows names an uncle of Lark Brannock; Lark Brannock's aunt"
        " is Petra Brannock.",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


#: Questions whose chain runs through the GM's hidden father, or would.
THROUGH_HIDDEN = [
    "Who is Kit Dunning's great-grandmother?",
    "Who are Kit Dunning's great-grandparents?",
    "Who are Marta Rusk's great-grandchildren?",
    "Who are Marta Rusk's grandchildren?",
    "Who is Wren Dunning's paternal grandmother?",
    "Who is Wren's grandmother on her father's side?",
    "Who are Wren Dunning's grandparents?",
    "How are Kit Dunning and Marta Rusk related?",
    "Is Kit Dunning Marta Rusk's great-grandson?",
    "Who was Petra Brannock apprenticed to?",
    "Who did Master Halloran train?",
    "Was Petra apprenticed to Master Halloran?",
    "Is Petra Halloran's apprentice?",
    "Who was Warden of the Ford before Aldous Brannock?",
    "Who preceded the Old Bear as Warden of the Ford?",
    "Who was the first Warden of the Ford?",
    "Who was Warden of the Ford in 290?",
    "Who has held the office of Warden of the Ford?",
    "Who was Hale Orrin's successor?",
    # A public person behind a tie the GM keeps.
    "Who is Tam Vane's grandfather?",
    "Who is Tam Vane's maternal grandfather?",
    "Who are Old Vane's grandchildren?",
    "How are Tam Vane and Old Vane related?",
]


def test_a_chain_through_a_gm_only_person_reads_to_a_player_as_if_never_written(
    cli: CliRunner, tmp_path: Path
) -> None:
    hidden = _ask(cli, tmp_path, THROUGH_HIDDEN)
    told = _world("told", tmp_path, TOLD)
    assert _ask(told, tmp_path, THROUGH_HIDDEN, name="told") == hidden
    assert "Marta" not in " ".join(hidden[q] for q in THROUGH_HIDDEN[:2] + THROUGH_HIDDEN[4:7])
    assert hidden["Who is Wren Dunning's paternal grandmother?"] == (
        "Wren Dunning's grandmother on her father's side is Edda Dunning."
    )
    assert "Old Vane" not in hidden["Who is Tam Vane's grandfather?"]
    gm = _ask(cli, tmp_path, THROUGH_HIDDEN, gm=True)
    assert gm["Who is Tam Vane's maternal grandfather?"] == (
        "Tam Vane's grandfather on his mother's side is Old Vane."
    )
    assert gm["Who is Kit Dunning's great-grandmother?"] == (
        "Kit Dunning's great-grandmothers are Marta Rusk (through his mother Wren Dunning and her father Gideon"
        " Rusk), and Gwenna Brannock (died in year 320; through his mother Wren Dunning and her mother Ysolde"
        " Dunning)."
    )
    assert gm["Who are Marta Rusk's great-grandchildren?"] == (
        "Marta Rusk's great-grandchild is Kit Dunning (through her son Gideon Rusk and his daughter Wren Dunning)."
    )


def test_a_mentor_and_apprentices_are_asked_in_a_trades_words(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "Who was Corin Brannock apprenticed to?": "Corin Brannock was apprenticed to Master Halloran.",
        "whose apprentice was corin": "Corin Brannock was apprenticed to Master Halloran.",
        "Who did Corin apprentice under?": "Corin Brannock was apprenticed to Master Halloran.",
        "Who took Corin on as an apprentice?": "Corin Brannock was apprenticed to Master Halloran.",
        "Who did Halloran teach?": "Master Halloran trained Corin Brannock.",
        "Who was apprenticed to Master Halloran?": "Corin Brannock was apprenticed to Master Halloran.",
        "Is Corin Halloran's apprentice?": "Yes: Corin Brannock was apprenticed to Master Halloran.",
        "Was Master Halloran Corin's master?": "Yes: Corin Brannock was apprenticed to Master Halloran.",
        "Was Lark Brannock apprenticed to Master Halloran?": "Nothing the table knows says Lark Brannock was"
        " apprenticed to Master Halloran.",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads
    gm = _ask(cli, tmp_path, ["Who did Master Halloran train?", "Who was Petra apprenticed to?"], gm=True)
    assert gm == {
        "Who did Master Halloran train?": "Master Halloran trained Corin Brannock and Petra Brannock.",
        "Who was Petra apprenticed to?": "Petra Brannock was apprenticed to Master Halloran.",
    }


def test_a_person_is_found_by_an_epithet_in_any_question(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "What happened to the Lantern?": (
            "Ansel Selwyn was crushed in the collapse of the Deep Stair. "
            "Ansel Selwyn died in year 351, in the Collapse of the Deep Stair."
        ),
        "what happened to the lantern": (
            "Ansel Selwyn was crushed in the collapse of the Deep Stair. "
            "Ansel Selwyn died in year 351, in the Collapse of the Deep Stair."
        ),
        "How did the Lantern die?": "Ansel Selwyn was crushed in the collapse of the Deep Stair; he died in year"
        " 351, in the Collapse of the Deep Stair.",
        "Who is known as the Lantern?": "The Lantern is Ansel Selwyn.",
        "Who do they call the Old Bear?": "The Old Bear is Aldous Brannock.",
        "Which man was nicknamed the Drip?": "Drip is Tobias Selwyn.",
        "Who was the Old Bear's wife?": "Aldous Brannock was married to Gwenna Brannock.",
        "What happened to the Old Bear's son?": "Aldous Brannock's son is Bram Brannock; Bram Brannock took part in"
        " the Collapse of the Deep Stair.",
        "Who is the Drip's father?": "Tobias Selwyn's father is Cedric Selwyn.",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads


#: Questions naming someone by a name; {} is the name.
BY_NAME = [
    "Who is {}?",
    "Who is known as {}?",
    "What happened to {}?",
    "When was {} born?",
    "Who is {}'s daughter?",
    "Who is {}'s stepson?",
    "Tell me about {}.",
]


def test_a_gm_only_epithet_reads_to_a_player_as_a_name_nobody_knows(cli: CliRunner, tmp_path: Path) -> None:
    kept = _ask(cli, tmp_path, [q.format("the Viper") for q in BY_NAME])
    unknown = _ask(cli, tmp_path, [q.format("the Weasel") for q in BY_NAME])
    assert [a.replace("Viper", "Weasel") for a in kept.values()] == list(unknown.values())
    assert all(a.startswith("Nothing the table knows") for a in kept.values()), kept
    gm = _ask(cli, tmp_path, ["Who is the Viper's stepson?", "Who is the Viper's daughter?"], gm=True)
    assert gm == {
        "Who is the Viper's stepson?": "The Viper is Liese Varn's secret name. Liese Varn's stepson is Corin"
        " Brannock (her husband Bram Brannock's son).",
        "Who is the Viper's daughter?": "The Viper is Liese Varn's secret name. Liese Varn's daughter is Petra"
        " Brannock.",
    }


def test_an_office_asked_before_its_first_holder_names_no_one(cli: CliRunner, tmp_path: Path) -> None:
    first = (
        "Nothing the table knows says who was Warden of the Ford before Aldous Brannock; Aldous Brannock held it"
        " from year 300 to year 331, the first Warden of the Ford the table knows of."
    )
    reads = {
        "Who was Warden of the Ford before Aldous Brannock?": first,
        "who was warden before aldous": first,
        "Who preceded the Old Bear as Warden of the Ford?": first,
        "Who was Aldous's predecessor as Warden of the Ford?": first,
        "Who was Warden of the Ford before Bram?": "Before Bram Brannock, Aldous Brannock was Warden of the Ford"
        " (from year 300 to year 331).",
        "Who preceded Bram Brannock as Warden of the Ford?": "Before Bram Brannock, Aldous Brannock was Warden of"
        " the Ford (from year 300 to year 331).",
        "Who succeeded Aldous Brannock?": "After Aldous Brannock, Bram Brannock was Warden of the Ford (from year"
        " 331 to year 360).",
        "Who was the first Warden of the Ford?": "The first Warden of the Ford the table knows of is Aldous"
        " Brannock (from year 300 to year 331).",
        "Who was Warden of the Ford in 340?": "Bram Brannock was Warden of the Ford in year 340 (from year 331 to"
        " year 360).",
        "Who has held the office of Warden of the Ford?": "Warden of the Ford was held by Aldous Brannock (from"
        " year 300 to year 331), Bram Brannock (from year 331 to year 360) and Corin Brannock (since year 360).",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads
    gm = _ask(cli, tmp_path, ["Who was Warden of the Ford before Aldous Brannock?"], gm=True)
    assert gm == {
        "Who was Warden of the Ford before Aldous Brannock?": "Before Aldous Brannock, Hale Orrin was Warden of"
        " the Ford (from year 280 to year 300)."
    }


def test_something_else_asked_of_far_kin_reads_them_first(cli: CliRunner, tmp_path: Path) -> None:
    reads = {
        "When was Dov Brannock's great-grandmother born?": "Dov Brannock's great-grandmother was Maren Selwyn"
        " (died in year 315; through his mother Lark Brannock and her father Corin Brannock); Maren Selwyn was born in year 286.",
        "When was Nessa's father-in-law born?": "Nessa Brannock's father-in-law is Bram Brannock (her husband Corin"
        " Brannock's father); Bram Brannock is alive, born in year 280.",
        "Is Corin's stepmother alive?": "Yes: Corin Brannock's stepmother is Liese Varn (his father Bram Brannock's"
        " wife); Liese Varn is alive, born in year 290.",
    }
    assert _ask(cli, tmp_path, list(reads)) == reads
