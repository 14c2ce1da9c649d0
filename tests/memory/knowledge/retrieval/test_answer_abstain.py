"""Abstaining on a book laid out unlike the others: a starship skirmish game's numbered rules and price lists.

A word asking how many ("max number of …") is what is asked, not what it is asked of; an abbreviation is held
by its long form's words; a price asked is answered only by a sentence saying one."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_holds import asked_value, holds_asked
from memory.knowledge.retrieval.answer_scope import off_subject, strange_words
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_unknown import another_kind
from tests.memory.knowledge.retrieval.test_answer import passage

DOCKING = passage(
    "4.2 DOCKING. A ship that ends its move touching a station may dock. Docking takes the whole turn; a docked "
    "ship cannot fire.",
    "Starfall Rules",
    "Part 4: Movement",
    "4.2 Docking",
    chunk_id=21,
)
SHUTTLES = passage(
    "4.7 SHUTTLES. A shuttle can carry no more than six crew at a time, and a crew member can board only one "
    "shuttle per turn.",
    "Starfall Rules",
    "Part 4: Movement",
    "4.7 Shuttles",
    chunk_id=22,
)
CHECKS = passage(
    "2.1 Hazard Difficulty Classes\n\nRoutine 8. Tricky 12. Perilous 16. Near impossible 22.",
    "Starfall Rules",
    "Part 2: Checks",
    "2.1 Hazard Difficulty Classes",
    chunk_id=23,
)
FUSE = passage(
    "6.3 FUSE CHARGE. Needs: a spool of copper wire. The charge breaches any hatch in one turn.",
    "Starfall Rules",
    "Part 6: Gear",
    "6.3 Fuse Charge",
    chunk_id=24,
)
PRICES = passage(
    "6.9 PRICE LIST. Grapple line costs 12 credits. Vacuum suit costs 40 credits. Ration pack costs 2 credits.",
    "Starfall Rules",
    "Part 6: Gear",
    "6.9 Price List",
    chunk_id=25,
)


def _quoted(text: str, number: int) -> ShortAnswer:
    citations = [Citation(number=number, kind="passage", label="Starfall", cited=True)]
    return ShortAnswer(text=f"{text} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def test_a_word_asking_how_many_is_not_what_the_answer_must_name() -> None:
    said = "A shuttle can carry no more than six crew at a time."
    for question in (
        "max number of crew on a shuttle",
        "maximum number of shuttle crew",
        "total count of crew",
    ):
        assert not off_subject(analyse(question), [SHUTTLES], said), question
    # What is asked of is still needed: a passage about docking does not answer about shuttles.
    assert off_subject(analyse("max number of crew on a shuttle"), [DOCKING], "Docking takes the whole turn.")


def test_an_abbreviation_is_held_by_its_long_form_in_the_headings() -> None:
    assert not off_subject(analyse("dc for a perilous hazard"), [CHECKS], "Perilous 16.", best=True)
    assert off_subject(
        analyse("dc for a perilous hazard"), [DOCKING], "Docking takes the whole turn.", best=True
    )


def test_the_number_asked_is_answered_from_a_lesser_passage() -> None:
    answer = reply(analyse("max number of crew on a shuttle"), [], [DOCKING, SHUTTLES])
    assert answer.known
    assert "no more than six crew" in answer.text


def test_a_price_asked_needs_a_sentence_saying_one() -> None:
    assert asked_value("how much does the copper wire for a fuse charge cost") is not None
    assert asked_value("what does a vacuum suit cost?") is not None
    assert asked_value("what is the price of a grapple line") is not None
    assert asked_value("how much damage does a fuse charge do") is None
    question = "how much does the copper wire for a fuse charge cost"
    assert not holds_asked(question, [], [FUSE], _quoted("Needs: a spool of copper wire.", 1))
    assert holds_asked(
        "what does a vacuum suit cost", [], [PRICES], _quoted("Vacuum suit costs 40 credits.", 1)
    )
    assert holds_asked("what does a ration pack cost", [], [PRICES], _quoted("It is free for crew.", 1))


def test_a_price_the_book_never_gives_is_nothing_known() -> None:
    for question in (
        "how much does the copper wire for a fuse charge cost",
        "what does the fuse charge's wire cost",
    ):
        answer = reply(analyse(question), [], [FUSE])
        assert not answer.known, question
        assert answer.text.startswith("Nothing the table knows")
    assert "40 credits" in reply(analyse("how much does a vacuum suit cost"), [], [PRICES]).text


def test_typos_of_a_real_name_are_still_found() -> None:
    # "shutle" is no word of the book but a misspelling of one the passages hold: not a strange word.
    assert strange_words(analyse("max number of crew on a shutle"), ["shutle"], [DOCKING, SHUTTLES]) == []
    assert strange_words(analyse("max number of crew on a zeppelin"), ["zeppelin"], [DOCKING, SHUTTLES]) == [
        "zeppelin"
    ]


BERTHS = passage(
    "5.1 BERTHS. A crew member in a common berth pays 1 credit per day; one in a private berth pays 3 credits "
    "per day.",
    "Starfall Rules",
    "Part 5: Downtime",
    "5.1 Berths",
    chunk_id=26,
)


def test_a_sentence_about_another_kind_of_the_thing_asked_is_no_answer() -> None:
    said = _quoted("A crew member in a common berth pays 1 credit per day.", 1)
    assert another_kind(analyse("how many credits per day is a luxury berth"), [], [BERTHS], said)
    assert not another_kind(analyse("how many credits per day is a common berth"), [], [BERTHS], said)
    # A count or a little word before the noun is no other kind: "one berth", "your berth".
    for text in ("You pay for one berth a day.", "It costs 9 credits.", "Your berth costs 9 credits."):
        assert not another_kind(analyse("how much is a luxury berth"), [], [BERTHS], _quoted(text, 1)), text
    # The question's qualifier in the passage quoted (its heading): the sentence is of the thing asked.
    assert not another_kind(analyse("how much is a berths fee"), [], [BERTHS], said)
    # "which hull" asks a kind: "hull" qualifies nothing.
    assert not another_kind(
        analyse("which hull docks fastest"), [], [DOCKING], _quoted("A ship docks fastest.", 1)
    )


def test_another_kind_of_the_thing_asked_is_nothing_known() -> None:
    answer = reply(analyse("how many credits per day is a luxury berth"), [], [BERTHS])
    assert not answer.known
    assert answer.text.startswith("Nothing the table knows")
    assert "3 credits" in reply(analyse("how many credits per day is a private berth"), [], [BERTHS]).text


def test_a_verb_before_a_name_the_sentence_goes_on_with_is_no_other_kind() -> None:
    # "fire plasma lance": "fire" acts on the Plasma Lance, as "charge" does in the sentence; the question goes
    # on with "lance" as the sentence does, so the two name one thing and neither word is a kind of it.
    lance = passage(
        "7.2 PLASMA LANCE. When you charge plasma lance cells, each one holds 4 shots.",
        "Starfall Rules",
        "Part 7: Arms",
        "7.2 Plasma Lance",
        chunk_id=27,
    )
    said = _quoted("When you charge plasma lance cells, each one holds 4 shots.", 1)
    assert not another_kind(
        analyse("can the gunner fire plasma lance cells more than 4 times"), [], [lance], said
    )
    # A qualifier before the whole name is still another kind: a "cold plasma" is not the plasma said.
    assert another_kind(analyse("how many shots does a cold plasma hold"), [], [lance], said)
