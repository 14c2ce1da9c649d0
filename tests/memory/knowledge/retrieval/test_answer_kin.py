"""Kin answers from a family as read (`CanonFact.kin`): the sex a word names kept apart from what canon says, a
yes or no never inventing a "No", and what canon does not hold left to the passages."""

from __future__ import annotations

from memory.knowledge.answer_models import Kin
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_kin import kin_answer
from memory.knowledge.retrieval.answer_marriage import marriage_answer


def person(name: str, matched: str, kin: Kin | None = None) -> CanonFact:
    return CanonFact(
        entity_id=hash(name) % 1000,
        entity_name=name,
        entity_type="Person",
        matched=matched,
        match_score=100.0,
        hidden=False,
        description=None,
        facts=[],
        kin=kin,
    )


MIRA = Kin(
    ties={"siblings": ("Oska Vell", "Pim Vell"), "parents": ("Dov Vell",), "spouses": ("Ren Ash",)},
    sexes={"Oska Vell": "female", "Dov Vell": "male"},
    married={"Ren Ash": "in year 12 of the Long Quiet"},
)


def test_a_word_naming_a_sex_keeps_those_canon_says_are_of_it() -> None:
    facts = [person("Mira Vell", "Mira", MIRA)]
    assert kin_answer("who is mira's sister", facts) == (
        "Mira Vell's sister is Oska Vell; canon does not say whether Pim Vell is a sister. [1]",
        1,
    )
    assert kin_answer("does mira have a brother", facts) == (
        "Mira Vell's siblings are Oska Vell and Pim Vell; canon does not say whether Pim Vell is a brother. [1]",
        1,
    )
    assert kin_answer("who's mira's da", facts) == ("Mira Vell's father is Dov Vell. [1]", 1)
    assert kin_answer("how many siblings does mira have", facts) == (
        "Mira Vell has two siblings: Oska Vell and Pim Vell. [1]",
        1,
    )


def test_a_yes_or_no_says_what_canon_holds_never_an_invented_no() -> None:
    facts = [person("Mira Vell", "Mira", MIRA), person("Dov Vell", "Dov", Kin())]
    assert kin_answer("is Dov Mira's uncle", facts) == (
        "Nothing the table knows says Dov Vell is Mira Vell's uncle; canon says Dov Vell is Mira Vell's father. [1]",
        1,
    )
    assert kin_answer("is Dov Mira's dad", facts) == ("Yes: Dov Vell is Mira Vell's father. [1]", 1)


def test_a_tie_canon_does_not_hold_is_left_to_the_passages_unless_asked_yes_or_no() -> None:
    facts = [person("Mira Vell", "Mira", MIRA)]
    assert kin_answer("who are mira's cousins", facts) is None
    assert kin_answer("does mira have cousins", facts) == (
        "Nothing the table knows names cousins of Mira Vell. [1]",
        1,
    )
    # Something more is asked of the relative: not a kin question.
    assert kin_answer("where was mira's sister born", facts) is None


def test_a_marriage_reads_its_day_or_says_canon_does_not_know_it() -> None:
    facts = [person("Mira Vell", "Mira", MIRA), person("Ren Ash", "Ren", Kin())]
    assert marriage_answer("when did Mira and Ren get married?", facts) == (
        "Mira Vell married Ren Ash in year 12 of the Long Quiet. [1]",
        1,
    )
    assert marriage_answer(
        "when did Mira marry Oska?", [person("Mira Vell", "Mira", MIRA), person("Oska Vell", "Oska", Kin())]
    ) == (
        "Nothing the table knows says Mira Vell and Oska Vell married; Mira Vell is married to Ren Ash. [1]",
        1,
    )


def test_a_half_sibling_is_only_one_canon_makes_so() -> None:
    half = Kin(
        ties={
            "siblings": ("Oska Vell", "Pim Vell"),
            "half-siblings": ("Pim Vell",),
            "full-siblings": ("Oska Vell",),
        }
    )
    assert kin_answer("who is Mira's half-brother?", [person("Mira Vell", "Mira", half)]) == (
        "Mira Vell's half-sibling is Pim Vell; canon does not say whether Pim Vell is a half-brother. [1]",
        1,
    )
    # Siblings whose other parents canon does not name: none is said to be half.
    assert kin_answer("who are Mira's half siblings", [person("Mira Vell", "Mira", MIRA)]) == (
        "Nothing the table knows names half-siblings of Mira Vell; Mira Vell's siblings are Oska Vell and Pim "
        "Vell. [1]",
        1,
    )
