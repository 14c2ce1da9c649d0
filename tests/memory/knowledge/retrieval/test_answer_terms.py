"""What a question asks the meaning of (`answer_terms`), and the kind of thing it asks of a deed (`answer_asked`)."""

from __future__ import annotations

from memory.knowledge.retrieval.answer_asked import asked_kind, holds_kind
from memory.knowledge.retrieval.answer_terms import Term, asked_term, defines


def test_the_term_asked_in_the_tables_forms() -> None:
    assert asked_term("what's a wickwright?") == Term("wickwright", True)
    assert asked_term("What does 'ulvo' mean") == Term("ulvo", False)
    assert asked_term("define the word ulvo") == Term("ulvo", False)
    assert asked_term("what is the Greyhush exactly") == Term("Greyhush", True)
    assert asked_term("what does a wickwright do") == Term("wickwright", False)
    assert asked_term("who are the mirelings") == Term("mirelings", False)


def test_no_term_in_other_forms_or_empty_ones() -> None:
    for question in ("", "?", "what is", "what is of the lake", "how deep is the lake", "what is your name"):
        assert asked_term(question) is None, question
    assert asked_term("what is " + "very " * 7 + "long") is None  # no name runs that long


def test_a_definition_and_a_mention() -> None:
    assert defines("Mirelings are small grey folk.", "mireling")
    assert defines('In the fen-speech, "ulvo" means "keep faith".', "ulvo")
    assert defines("Ferrymen call the deepest channel the Black Throat.", "Black Throat")
    assert not defines("Children are told that Mirelings steal boots.", "mirelings")
    assert not defines("Every wickwright keeps a tally.", "wickwright")


def test_the_kind_asked_of_a_deed() -> None:
    assert asked_kind("who founded Corvelle") is not None
    assert asked_kind("who speaks deep speech") is None  # a rule's present tense
    assert asked_kind("when can I take a reaction") is None
    assert asked_kind("") is None
    assert not holds_kind("when did the quill mine close", "The Quill Mine was closed because of bad air.")
    assert holds_kind("when did the quill mine close", "The Quill Mine was closed in year 40.")
    # A name says no deed: the Drowning Fair tells nothing of when the town drowned.
    assert not holds_kind(
        "when did the old town drown", "The Drowning Fair is held each spring for the old town."
    )
    assert not holds_kind("how far is the shore", "Seven stones stand on the shore.")
    assert holds_kind("how far is the shore", "The shore is a day's ride away.")
    assert holds_kind("what colour is the sky", "anything")  # asks none of these


def test_a_sentence_ending_in_the_name_after_is_defines_it() -> None:
    assert defines(
        "The shortest day of the year, the 3rd of Frostwane, is the Feast of Nine Bells.",
        "Feast of Nine Bells",
    )
    assert not defines("The bells ring louder than the Feast of Nine Bells.", "Feast of Nine Bells")


def test_what_counts_as_x_asks_what_x_is() -> None:
    assert asked_term("what counts as a fumble?") == Term("fumble", True)
    assert defines("FUMBLE: Two ones on the same roll.", "fumble")
