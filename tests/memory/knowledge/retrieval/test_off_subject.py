"""A sentence quoted from a lesser passage must be about what the question asks (`answer_scope.off_subject`).

The passages are another game's (a starship setting), in a layout the rule was not tuned on."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scope import named_otherwise, off_subject
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

TURNS = passage(
    "Starships take turns in the order of their pilots' checks. A ship that moves first gains no bonus.",
    "Starship Combat",
    "Turn Order",
    chunk_id=1,
)
WRAITH = passage(
    "Ash wraiths haunt burned colonies.\n\n**Claw.** Melee Attack: +6 to hit, reach 5 ft., one target. "
    "Hit: 2d6 + 3 fire damage.",
    "Alien Archive",
    "Ash Wraith",
    chunk_id=2,
)
BIKE = passage(
    "A hover bike carries one rider. It can travel 400 feet in a round and climb 20 feet.",
    "Gear",
    "Vehicles",
    "Hover Bike",
    chunk_id=3,
)


def test_a_lesser_passage_s_line_sharing_only_the_question_s_other_words_is_no_answer() -> None:
    # No source is about the feat: the wraith's claw shares "to hit" only.
    answer = reply(analyse("does the deadly aim feat give -2 to hit"), [], [TURNS, WRAITH])
    assert not answer.known and answer.mode == AnswerMode.NOTHING
    assert answer.text == "Nothing the table knows answers “does the deadly aim feat give -2 to hit”."
    assert not any(c.cited for c in answer.citations)


def test_a_lesser_passage_about_the_subject_still_answers_typos_forgiven() -> None:
    for question in (
        "how far can a hover bike travel in a round",
        "how far can a hvoer bike travel in a round",
    ):
        answer = reply(analyse(question), [], [TURNS, BIKE])
        assert answer.known, question
        # Led by the entry's name when the question names it ("It" names the bike only under its heading).
        assert answer.text in (
            "It can travel 400 feet in a round and climb 20 feet. [2]",
            "Hover Bike: It can travel 400 feet in a round and climb 20 feet. [2]",
        )


def test_which_kind_fits_a_description_is_answered_by_the_entry_described() -> None:
    # "beast" is the kind asked, not a name no heading holds.
    answer = reply(analyse("which beast haunts burned colonies"), [], [TURNS, WRAITH])
    assert answer.text == "Ash wraiths haunt burned colonies. [2]"


def test_a_block_s_bold_name_names_each_of_its_sentences() -> None:
    # "Hit: ..." is the Claw's, though the line quoted does not say "claw".
    assert not off_subject(analyse("claw damage of an ash wraith"), [WRAITH], "Hit: 2d6 + 3 fire damage.")
    assert off_subject(analyse("bite damage of an ash wraith"), [WRAITH], "Hit: 2d6 + 3 fire damage.")


def test_off_subject_needs_the_first_naming_word_and_half_of_them() -> None:
    asked = analyse("hover bike speed")
    assert not off_subject(asked, [BIKE], "It can travel 400 feet in a round.")
    # The first naming word missing: a line about another vehicle does not answer.
    assert off_subject(asked, [WRAITH], "Ash wraiths haunt burned colonies.")
    # Half of the naming words held but not the first: still not about it.
    assert off_subject(analyse("plasma bike speed"), [BIKE], "It can travel 400 feet in a round.")
    # The table's chatter and "i'm" name nothing; nothing quoted, nothing to judge.
    assert not off_subject(analyse("hey guys i'm asking hover bike speed"), [BIKE], "It can travel 400 feet.")
    assert not off_subject(asked, [], "")


GARAGE = passage(
    "Every hover bike needs a charged cell. A pilot who spends a full hour at a dock restores one cell.\n\n"
    "Dwarves of the belt never ride them.",
    "Gear",
    "Docking",
    chunk_id=4,
)


def test_the_best_passage_s_line_naming_none_of_the_subject_is_no_answer() -> None:
    # Its line shares the question's rule words only: no heading or word of it names the lance asked about.
    answer = reply(analyse("plasma lance vortex: restore one cell per hour at a dock?"), [], [GARAGE, TURNS])
    assert not answer.known and answer.mode == AnswerMode.NOTHING
    # One naming word held is enough for the best passage ("hover bike" is said in its line).
    said = reply(analyse("hover bike: restore one cell per hour at a dock?"), [], [GARAGE, TURNS])
    assert said.known and "[1]" in said.text


def test_an_irregular_plural_names_its_singular() -> None:
    elf = passage("An elf does not sleep but meditates for 4 hours a day.", "Peoples", "Elf", chunk_id=5)
    assert not off_subject(analyse("do elves sleep"), [elf], "An elf meditates for 4 hours a day.", best=True)
    assert off_subject(analyse("do orcs sleep"), [elf], "They meditate for 4 hours a day.", best=True)


SHROUD = passage(
    "Field Manual\n\n### Shroud of Embers\n\nWhile the shroud is raised, allies within 15 feet of you cannot be "
    "set alight, and their heat damage is halved.",
    "Psionic Orders",
    "Cinder Adept: Shroud of Embers",
    chunk_id=6,
)


def test_a_title_word_joined_by_of_to_a_word_the_passage_holds_nowhere_names_another_entry() -> None:
    # "shroud of frost" is no "Shroud of Embers": the passage says nothing of frost, though it shares the rest.
    asked = analyse("what does being set alight do to a cinder adept's shroud of frost")
    assert named_otherwise(asked, SHROUD)
    answer = reply(asked, [], [SHROUD, TURNS])
    assert not answer.known and answer.mode == AnswerMode.NOTHING
    assert not any(c.cited for c in answer.citations)


def test_a_title_named_as_written_or_joined_to_a_word_the_passage_holds_still_answers() -> None:
    for question in (
        "what does the cinder adept's shroud of embers do to heat damage",
        "does a shroud of heat stop allies being set alight",  # "heat" is the passage's own word
    ):
        asked = analyse(question)
        assert not named_otherwise(asked, SHROUD), question
        assert reply(asked, [], [SHROUD, TURNS]).known, question
    # A word before the title's is often the question's verb, never read as a qualifier.
    assert not named_otherwise(analyse("what stops a shroud from working"), SHROUD)
