"""Questions typed in the table's forms that the books write otherwise: read through, not declined.

A fraction in figures ("3/4") is the books' "three-quarters"; an ordinal in figures ("2nd") is the word
"second"; a number only sets the case asked ("the 2nd use"), never names what it is asked of; the table's word
for what the books say otherwise ("formula") is a way of asking, never a name no book holds. A word no source
holds that names something ("a gorgonaut") still makes the answer "nothing known".
"""

from __future__ import annotations

from memory.knowledge.glossary import expand
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scope import strange_words
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import same_word
from tests.memory.knowledge.retrieval.test_answer import passage

SHELTER = passage(
    "## Shelter\n\nRocks, hulls and thick reeds can shelter a skiff from a volley. A skiff behind **half "
    "shelter** has a +1 bonus to AC. A skiff behind **three-quarters shelter** has a +3 bonus to AC and can't "
    "be boarded.",
    "Seafaring",
    "Shelter",
    chunk_id=1,
)
HAULING = passage(
    "#### Hauling\n\nYour hauling load is your Brawn score multiplied by 20. This is the weight in pounds that "
    "you can drag across a deck.",
    "Using Ability Scores",
    "Brawn",
    "Hauling",
    chunk_id=2,
)
OVERLOAD = passage(
    "## Stormcaller: Overload\n\n*Stormcaller feature, level 10*\n\nYou can pour a storm into one spell. "
    "The first time you do so, nothing ill happens. If you use this feature again before a long rest, you take "
    "3d8 lightning damage for each level of the spell.",
    "Class Features",
    "Stormcaller: Overload",
    chunk_id=3,
)


def test_a_fraction_in_figures_is_read_as_the_books_write_it() -> None:
    assert expand("3/4 shelter")[0] == "three-quarters shelter"
    answer = reply(analyse("3/4 shelter AC bonus"), [], [SHELTER])
    assert answer.known and "+3 bonus" in answer.text and "+1" not in answer.text
    # A fraction books print in figures ("a challenge of 1/2") stays as typed.
    assert expand("monsters of challenge 1/2")[0] == "monsters of challenge 1/2"


def test_an_ordinal_in_figures_is_the_word_and_a_number_never_names_the_subject() -> None:
    assert same_word("2nd", "second") and same_word("second", "2nd")
    assert not same_word("2nd", "seconds")
    # "2nd" is said nowhere in the passage ("again"): it sets the case asked, the feature is named.
    answer = reply(analyse("overload 2nd use dmg"), [], [OVERLOAD])
    assert answer.known and "3d8 lightning damage" in answer.text


def test_the_tables_word_for_a_sum_is_a_way_of_asking_not_an_unknown_name() -> None:
    asked = analyse("hauling load formula for brawn")
    assert strange_words(asked, ["formula"], [HAULING]) == []
    answer = reply(asked, [], [HAULING], unknown=["formula"])
    assert answer.known and "multiplied by 20" in answer.text


def test_a_word_no_source_holds_that_names_something_still_says_nothing_known() -> None:
    asked = analyse("what is the brawn formula of a gorgonaut")
    assert strange_words(asked, ["formula", "gorgonaut"], [HAULING]) == ["gorgonaut"]
    answer = reply(asked, [], [HAULING], unknown=["formula", "gorgonaut"])
    assert not answer.known and answer.text.startswith("Nothing the table knows")
    for question, unknown in (
        ("gorgonaut 2nd use dmg", ["gorgonaut"]),
        ("3/4 gorgonaut AC bonus", ["gorgonaut"]),
    ):
        said = reply(analyse(question), [], [OVERLOAD, SHELTER], unknown=unknown)
        assert not said.known, question
