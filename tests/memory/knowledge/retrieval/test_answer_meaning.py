"""Meaning where words say too little (`answer_meaning`): the closest sentence answers a field the words missed, and
a line unrelated in meaning to the question is no answer.

The passages are a mech game's rules (bold-led paragraphs under "Frame Rules", a people under "Peoples"): a
layout and words unlike the reference books the thresholds were calibrated on. The real model reads them.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_meaning import MeaningReader, checked, closest, weakly_tied
from memory.knowledge.retrieval.answer_step import reply
from tests.helpers.knowledge_helpers import EMBEDDER, FailingEmbedder
from tests.memory.knowledge.retrieval.test_answer import passage
from tests.memory.knowledge.retrieval.test_answer_described import ranked

READER = MeaningReader(EMBEDDER)
#: The reader of a question the search corrected nothing in.
MEANING = READER.reading()

HAULING = passage(
    "A frame's reactor sets how much it can move and carry.\n\n"
    "**Towing.** A frame can drag or haul a disabled frame behind it, but its speed is halved while it does.\n\n"
    "**Cables.** The tow cable snaps when the towed frame is heavier than the frame pulling it.",
    "Frame Rules",
    "Hauling",
    chunk_id=1,
)
JETS = passage(
    "A frame with jump jets can leap 30 feet straight up once per round.",
    "Frame Rules",
    "Jump Jets",
    chunk_id=2,
)
RAMMING = passage(
    "When a frame takes damage from a drone within 5 meters, its pilot can make a ram attack against that drone.",
    "Frame Rules",
    "Ramming",
    chunk_id=3,
)
VOID_ELVES = passage(
    "Void elves were born on the dark side of the moon.\n\n**Cold Blood.** You take half damage from cold.",
    "Peoples",
    "Void Elves",
    chunk_id=4,
)
#: As both searches found them: the hauling rules first by words and by meaning, the jump jets second.
FOUND = [ranked(HAULING, 1, 1), ranked(JETS, 2, 3)]


def quoting(text: str, number: int = 1, count: int = 2) -> ShortAnswer:
    """Return an extractive answer quoting `text` from passage `number` of `count`."""
    citations = [
        Citation(number=n, kind="passage", label=f"passage {n}", cited=n == number)
        for n in range(1, count + 1)
    ]
    return ShortAnswer(text=f"{text} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def test_the_sentence_closest_in_meaning_answers_a_field_the_words_missed() -> None:
    answer = closest(
        analyse("if im dragging a wrecked frame around what happens to my speed"), [], FOUND, MEANING
    )
    assert answer is not None and answer.known
    assert answer.text == (
        "Towing: A frame can drag or haul a disabled frame behind it, but its speed is halved while it does. [1]"
    )
    assert [c.number for c in answer.citations if c.cited] == [1]


def test_a_sentence_far_in_meaning_does_not_answer_though_it_says_the_field() -> None:
    # It says "speed" and "dragging", but the player asks of a wrecked buddy in words the rule does not use.
    asked = analyse("if my mech is dragging a wrecked buddy around what happens to my speed")
    assert closest(asked, [], FOUND, MEANING) is None


def test_a_field_no_sentence_says_stays_nothing_known() -> None:
    # The cables line names the tow cable and is as close in meaning as an answer, but says no price.
    for question in ("tow cable cost?", "how much is a tow cable"):
        assert closest(analyse(question), [], FOUND, MEANING) is None, question


def test_a_question_asking_no_field_is_not_answered_by_meaning() -> None:
    # "The tow cable snaps when ..." is as close to this as an answer would be: only words could tell.
    assert closest(analyse("can a pilot tow two frames at once"), [], FOUND, MEANING) is None


def test_a_passage_the_searches_do_not_agree_on_is_not_read() -> None:
    asked = analyse("if im dragging a wrecked frame around what happens to my speed")
    assert closest(asked, [], [ranked(HAULING, 9, 14), ranked(JETS, 1, 2)], MEANING) is None


def test_a_line_unrelated_in_meaning_is_no_answer() -> None:
    # "make" is the one word shared; the echo charm is in no source.
    question = analyse("echo charm: can i use it to make a friend roll again")
    answer = quoting(RAMMING.text, count=1)
    assert weakly_tied(question, answer)
    said = checked(question, [], [RAMMING], answer, MEANING)
    assert not said.known and said.mode == AnswerMode.NOTHING
    assert (
        said.text == "Nothing the table knows answers “echo charm: can i use it to make a friend roll again”."
    )
    assert not any(c.cited for c in said.citations)


def test_a_line_in_other_words_under_the_heading_asked_about_stays() -> None:
    # No word of the question is in the line; its heading says what it is about.
    question = analyse("what are the void elves resistant to")
    answer = quoting("Cold Blood: You take half damage from cold.", count=1)
    assert weakly_tied(question, answer)
    assert checked(question, [], [VOID_ELVES], answer, MEANING) == answer


def test_a_line_tied_by_its_words_is_not_read_for_meaning() -> None:
    question = analyse("how high can jump jets leap")
    answer = quoting("A frame with jump jets can leap 30 feet straight up once per round.", number=2)
    assert not weakly_tied(question, answer)
    assert checked(question, [], FOUND, answer, MeaningReader(FailingEmbedder()).reading()) == answer


def test_without_the_model_the_words_answer_alone() -> None:
    reader = MeaningReader(FailingEmbedder()).reading()
    asked = analyse("if im dragging a wrecked frame around what happens to my speed")
    assert closest(asked, [], FOUND, reader) is None
    question = analyse("echo charm: can i use it to make a friend roll again")
    answer = quoting(
        "When a frame takes damage from a drone within 5 meters, its pilot can make a ram attack."
    )
    assert checked(question, [], [RAMMING, JETS], answer, reader) == answer


class CountingEmbedder:
    """The real model, counting the texts it is given."""

    model_name = EMBEDDER.model_name
    dimensions = EMBEDDER.dimensions

    def __init__(self) -> None:
        self.texts: list[str] = []

    @property
    def model_version(self) -> str:
        return EMBEDDER.model_version

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return EMBEDDER.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_a_text_read_once_is_not_embedded_again_and_few_are_kept() -> None:
    counting = CountingEmbedder()
    reader = MeaningReader(counting, cached=2)
    first = reader.similarity("towing speed", "Towing halves a frame's speed.")
    assert reader.similarity("towing speed", "Towing halves a frame's speed.") == first
    assert counting.texts == ["towing speed", "Towing halves a frame's speed."]
    reader.similarity("jump jets", "Jump jets leap 30 feet.")
    reader.similarity("towing speed", "Jump jets leap 30 feet.")
    # The oldest text was dropped when a third came: it is embedded again.
    assert counting.texts[-1] == "towing speed"


def test_the_answer_step_keeps_its_words_answer_when_meaning_is_given() -> None:
    question = analyse("how high can jump jets leap")
    assert reply(question, [], FOUND, meaning=MEANING) == reply(question, [], FOUND)


def test_a_misspelt_question_keeps_its_answer_read_as_the_search_corrected_it() -> None:
    typed = "what are the viod elfs resistant to"
    answer = quoting("Cold Blood: You take half damage from cold.", count=1)
    line = ["Peoples › Void Elves: Cold Blood: You take half damage from cold."]
    fixed = READER.reading({"viod": "void", "elfs": "elves"})
    as_typed = fixed.similarities(typed, line)
    as_fixed = fixed.similarities(typed, line, corrected_words=True)
    assert as_typed is not None and as_fixed is not None and as_fixed[0] > as_typed[0]
    assert checked(analyse(typed), [], [VOID_ELVES], answer, fixed) == answer


def test_the_closest_sentence_is_read_against_the_question_as_typed() -> None:
    # A correction may name something else ("toll the dead" read as "troll"): meaning adds an answer only when
    # the player's own words mean it.
    line = ["A frame with jump jets can leap 30 feet straight up once per round."]
    fixed = READER.reading({"jumb": "jump"})
    assert fixed.similarities("how high can jumb jets leap", line) == MEANING.similarities(
        "how high can jumb jets leap", line
    )


def test_a_text_the_search_embedded_is_read_from_its_vectors_not_embedded_again() -> None:
    counting = CountingEmbedder()
    question = "how fast does a frame tow"
    line = "Towing halves a frame's speed."
    searched = {question: EMBEDDER.embed_query(question)}
    given = MeaningReader(counting).reading(known=searched).similarities(question, [line])
    assert counting.texts == [line]
    # The same similarity as the question embedded with the line.
    assert given == MeaningReader(EMBEDDER).reading().similarities(question, [line])


def test_a_text_the_search_did_not_embed_is_embedded() -> None:
    counting = CountingEmbedder()
    searched = {"another question": EMBEDDER.embed_query("another question")}
    MeaningReader(counting).reading(known=searched).similarities("towing speed", ["Towing halves speed."])
    assert counting.texts == ["towing speed", "Towing halves speed."]


def test_a_line_in_the_books_word_for_a_word_asked_is_read_in_that_word_too() -> None:
    # The campaign's glossary reads "mechanic" as the book's "Cogsmith": far from the question as typed, the line
    # is near it in the book's words.
    question = analyse("how fast do you heal with a mechanic", {"mechanic": "cogsmith"})
    mending = passage("Grease returns at 1 a watch, or 4 a watch beside a Cogsmith.", "Rules", "2.3 Mending")
    answer = quoting(mending.text, count=1)
    assert weakly_tied(question, answer)
    assert checked(question, [], [mending], answer, MEANING) == answer
    assert not checked(
        analyse("how fast do you heal with a mechanic", {}), [], [mending], answer, MEANING
    ).known
