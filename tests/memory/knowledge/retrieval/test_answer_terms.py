"""What a question asks the meaning of (`answer_terms`), and the kind of thing it asks of a deed (`answer_asked`)."""

from __future__ import annotations

from memory.knowledge.retrieval.answer_asked import asked_kind, holds_kind
from memory.knowledge.retrieval.answer_terms import Term, asked_term, defines, measured_term


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


def test_what_does_x_do_asks_of_x_with_or_without_its_article() -> None:
    assert asked_term("what does overwatch do") == Term("overwatch", False)
    for question in ("what do i do", "what does it do", "what do you do"):
        assert asked_term(question) is None, question


def test_a_line_naming_x_in_passing_gives_way_to_its_definition_though_x_heads_a_price_list() -> None:
    from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
    from memory.knowledge.retrieval.answer_defined import defined_answer
    from tests.memory.knowledge.retrieval.test_answer import passage

    roster = passage(
        "## Roster\n\nEach gang lists its Muscle, its Overwatch and its loot.", "Gangs", chunk_id=1
    )
    prices = passage(
        "## Overwatch\n\n| Kit | Price |\n|---|---|\n| Scope | 4 |", "Market", "Overwatch", chunk_id=2
    )
    lexicon = passage(
        "LEXICON\n\nOVERWATCH. Holding your shot until a foe moves. You fire first when it does. (7.2)",
        "Lexicon",
        chunk_id=3,
    )
    quoted = ShortAnswer(
        text="Each gang lists its Muscle, its Overwatch and its loot. [1]",
        mode=AnswerMode.EXTRACTIVE,
        known=True,
        citations=[Citation(number=1, kind="passage", label="Gangs", cited=True)],
    )
    answer = defined_answer("what does overwatch do", [], [roster, prices, lexicon], quoted)
    assert answer is not None and answer.text.startswith("Overwatch: Holding your shot until a foe moves.")
    assert (
        "You fire first when it does. [3]" in answer.text
    )  # the whole entry, without its pointer to the rule


def test_how_long_one_x_is_is_said_by_a_definition_giving_an_amount() -> None:
    from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
    from memory.knowledge.retrieval.answer_defined import defined_answer
    from tests.memory.knowledge.retrieval.test_answer import passage

    assert measured_term("how far is a span?") == Term("span", False, True)
    assert asked_term("how far is a span?") is None  # not asked what a span is
    couriers = passage(
        "## Couriers\n\nCouriers are paid by the span. A span is what a courier rides in a day, some forty miles."
        "\n\nThe Amber Road is a span wide at the ford. The Amber Road is a trade route.",
        "Roads",
    )
    quoted = ShortAnswer(
        text="Couriers are paid by the span. [1]",
        mode=AnswerMode.EXTRACTIVE,
        known=True,
        citations=[Citation(number=1, kind="passage", label="Roads", cited=True)],
    )
    answer = defined_answer("how far is a span", [], [couriers], quoted)
    assert answer is not None and "some forty miles" in answer.text
    # a definition saying no amount does not say how long the road is: the answer given stands
    assert defined_answer("how long is the amber road", [], [couriers], quoted) is None
