"""A question that sets its scene before it asks: the asking clause answered of the passage the scene names."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scene import asking_clauses
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

# A sci-fi book's foes and gear, in short paragraphs with bold-less labels.
CRAWLER = passage(
    "### Acid Crawler\n\nArmor 3. Speed 6 metres.\n\n"
    "Corroding Hide: a metal blade that strikes the crawler pits at once and deals 1 less harm until a tech "
    "repairs it.",
    "Foes",
    "Acid Crawler",
)
MEDKIT = passage(
    "### Field Medkit\n\nA pouch of gel and staples that weighs 2 kilograms. A medic spends 10 minutes to patch a downed "
    "crewmate back to 1 wound. Each kit holds enough gel for four patches.",
    "Gear",
    "Field Medkit",
    chunk_id=2,
)
PINNED = passage(
    "### Pinned\n\nA pinned trooper cannot move. Shots at a pinned trooper from close range gain a bonus die.",
    "States",
    "Pinned",
    chunk_id=3,
)


def test_the_asking_clause_after_the_scene_is_read_apart() -> None:
    said = "we boarded the derelict and my merc hacked at an acid crawler, what happens to her blade"
    assert asking_clauses(said) == ["what happens to her blade"]
    two = "our medic has a field medkit in her pack. how much does it weigh and how many patches does it hold"
    assert asking_clauses(two) == ["how much does it weigh", "how many patches does it hold"]
    # A question that asks first, or a scene too short to be one, is read whole.
    assert asking_clauses("what happens to a blade that strikes an acid crawler, and why") == []
    assert asking_clauses("crawler, what armor") == []


def test_a_scene_first_question_is_answered_from_the_passage_it_names() -> None:
    question = analyse(
        "we boarded the derelict and my merc hacked at an acid crawler, what happens to her blade"
    )
    answer = reply(question, [], [CRAWLER, MEDKIT])
    assert answer.known and "pits at once" in answer.text and answer.text.endswith("[1]")


def test_each_asking_clause_after_a_scene_is_answered() -> None:
    question = analyse(
        "our medic is stuck with a field medkit in her pack while the reactor burns. how much does it weigh and how many "
        "patches does it hold"
    )
    answer = reply(question, [], [MEDKIT, CRAWLER])
    assert answer.known and "2 kilograms" in answer.text and "four patches" in answer.text


def test_a_yes_no_clause_after_a_scene_says_yes_or_no_first() -> None:
    question = analyse(
        "my trooper is pinned behind a crate and a raider walks up close, does he gain a bonus die"
    )
    answer = reply(question, [], [PINNED, CRAWLER])
    assert answer.text.startswith("Yes") and "[1]" in answer.text


def test_a_scene_naming_no_passage_stays_unanswered() -> None:
    question = analyse("we boarded the derelict at dawn and the lights died, what happens to the air")
    assert not reply(question, [], [CRAWLER, MEDKIT]).known


SHIELDS = passage(
    "### Barrier Charge\n\nA barrier charge soaks harm before wounds do. Charges from two emitters can't be added "
    "together: keep the larger.",
    "Rules",
    "Barrier Charge",
    chunk_id=4,
)


def test_a_sentence_saying_not_answers_no_whatever_amount_the_table_names() -> None:
    # The sum the player works out is in no sentence: "can't be added together" is no to any sum.
    question = analyse(
        "the medic gives me 6 barrier charge, then the tech gives me 4 more. can they be added together to 10?"
    )
    answer = reply(question, [], [SHIELDS, MEDKIT])
    assert answer.text.startswith("No") and "[1]" in answer.text
    # Without a "not", an amount no sentence holds still leaves the sentence to speak for itself.
    asked = analyse("can barrier charges soak 10 harm")
    assert not reply(asked, [], [SHIELDS]).text.startswith(("Yes", "No"))


def test_a_name_before_two_unmarked_asking_clauses_is_read_as_a_scene() -> None:
    assert asking_clauses("field medkit how much does it weigh and how many patches does it hold") == [
        "how much does it weigh",
        "how many patches does it hold",
    ]
    # One clause after a name is the question itself.
    assert asking_clauses("field medkit how much does it weigh") == []
