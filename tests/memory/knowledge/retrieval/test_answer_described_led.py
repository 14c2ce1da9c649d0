"""A description the word search finds first and the meaning search lower: the passage answers, its subject named.

The book here is a herbalist's notebook (a table of traits, then short notes), unlike the reference books the
answer step was tuned on.
"""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_described import agreed, described, describes, word_led
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage
from tests.memory.knowledge.retrieval.test_answer_described import ranked

MIREWORT = passage(
    "| Trait | Note |\n| --- | --- |\n| Grows | peat bogs, under alder roots |\n| Season | late thaw |\n\n"
    "Mirewort has grey leaves that curl like fingers. Chewed, the root numbs the tongue; bound on a wound, the "
    "leaves stop the bleeding within a breath. Goats that graze it sleep for a day.",
    "Herbal",
    "Mirewort",
    chunk_id=1,
)
ASHCAP = passage(
    "Ashcap is a grey mushroom of burnt forests. Boiled twice it is safe to eat.",
    "Herbal",
    "Ashcap",
    chunk_id=2,
)
QUESTION = "which bog herb has curling grey leaves that stop bleeding?"


def test_a_has_question_describes_what_it_asks_for() -> None:
    assert describes(QUESTION)
    assert describes("which herb has grey leaves")
    assert not describes("what leaves does the mirewort have")


def test_the_word_search_first_and_the_meaning_search_lower_answer_a_description() -> None:
    led = ranked(MIREWORT, 1, 9)
    found = [led, ranked(ASHCAP, 5, 1)]
    assert word_led(found) and not agreed(led)
    answer = described(analyse(QUESTION), [], found, [], False)
    assert answer is not None and answer.text.startswith("Mirewort"), answer
    said = reply(analyse("bog herb whose curling grey leaves stop bleeding"), [], found)
    assert said.known and said.text.startswith("Mirewort"), said.text


def test_a_passage_the_meaning_search_did_not_find_or_ranked_far_does_not_answer() -> None:
    for semantic in (None, 40):
        found = [ranked(MIREWORT, 1, semantic), ranked(ASHCAP, 5, 1)]
        assert described(analyse(QUESTION), [], found, [], False) is None, semantic


FENREED = passage(
    "Fenreed is a bog herb with curling grey leaves. Pressed on a cut, it stops the bleeding.",
    "Herbal",
    "Fenreed",
    chunk_id=3,
)


def test_a_rival_both_searches_agree_on_holding_as_much_of_the_description_leaves_it_unknown() -> None:
    found = [ranked(MIREWORT, 1, 9), ranked(FENREED, 2, 1)]
    assert not word_led(found, analyse(QUESTION))
    assert described(analyse(QUESTION), [], found, [], False) is None


def test_a_rival_holding_little_of_the_description_does_not_stop_the_first() -> None:
    # Ashcap is agreed on by both searches, but it is grey and no more: no rival to the herb described.
    found = [ranked(MIREWORT, 1, 9), ranked(ASHCAP, 2, 1)]
    assert not word_led(found) and word_led(found, analyse(QUESTION))
    answer = described(analyse(QUESTION), [], found, [], False)
    assert answer is not None and answer.text.startswith("Mirewort"), answer


def test_a_description_the_passage_holds_too_little_of_stays_unknown_when_only_the_word_search_leads() -> (
    None
):
    # Half of its content words or more must be in the passage: "silver", "moon", "flowers", "sing" are not.
    question = analyse("which herb has silver flowers that sing under a full moon and heal bleeding?")
    assert described(question, [], [ranked(MIREWORT, 1, 9)], [], False) is None


def test_a_question_that_does_not_describe_needs_both_searches() -> None:
    question = analyse("do mirewort leaves stop bleeding of goats in a bog")
    assert not describes(question.text)
    assert described(question, [], [ranked(MIREWORT, 1, 9)], [], False) is None
