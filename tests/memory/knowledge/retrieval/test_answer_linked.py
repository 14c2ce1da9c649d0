"""Two entries a question names, and the sentence of one naming the other: books laid out unlike the SRD."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_linked import linked
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

# A sci-fi book's gear, in plain paragraphs: the charm, and a foe whose write-up names it.
STUNNER = passage(
    "### Arc Stunner\n\nA palm-sized emitter. Roll 2 dice of shock on a touch; the target loses its next turn.",
    "Gear",
    "Arc Stunner",
)
WARDEN = passage(
    "### Void Warden\n\nTall, silent, and patient. It guards derelict ships.\n\n"
    "Grounded Shell: an arc stunner used against the warden discharges into its hull and does nothing. "
    "It takes double harm from cutting beams.",
    "Foes",
    "Void Warden",
    chunk_id=2,
)
# A fantasy book in one column of prose: the rule of sight, and a ritual whose text speaks of it.
NIGHTEYE = passage(
    "Some folk see in the dark as if it were twilight. Nighteye reaches thirty paces, to the edge of a shroud of ink.",
    "Senses",
    "Nighteye",
)
SHROUD = passage(
    "The caster fills a room with ink-black shadow for an hour. Even nighteye cannot pierce the shroud, "
    "and torches brought in gutter out.",
    "Rituals",
    "Shroud of Ink",
    chunk_id=2,
)


def test_the_sentence_of_one_entry_naming_the_other_answers_how_they_meet() -> None:
    question = analyse("can i just spam my arc stunner on the void warden or is there some catch")
    said = linked(question, [], [STUNNER, WARDEN])
    assert said is not None and "does nothing" in said.text and said.text.endswith("[2]")
    answer = reply(question, [], [STUNNER, WARDEN])
    assert answer.known and "discharges into its hull" in answer.text


def test_of_two_linking_sentences_the_one_saying_the_question_s_other_words_answers() -> None:
    question = analyse("does nighteye pierce the shroud of ink ritual")
    said = linked(question, [], [NIGHTEYE, SHROUD])
    assert said is not None and "cannot pierce the shroud" in said.text and said.text.endswith("[2]")


def test_entries_that_do_not_name_each_other_link_nothing() -> None:
    question = analyse("can i use my arc stunner while i have nighteye")
    assert linked(question, [], [STUNNER, NIGHTEYE]) is None
    # One entry named alone links nothing either.
    assert linked(analyse("what does the void warden guard"), [], [WARDEN, STUNNER]) is None


def test_a_title_inside_the_other_s_links_nothing() -> None:
    # The sense and the ritual granting it share a name: each naming "nighteye" says nothing of the other.
    ritual = passage(
        "The caster grants a willing friend nighteye until dawn.", "Rituals", "Nighteye", chunk_id=2
    )
    assert linked(analyse("how far does nighteye reach"), [], [NIGHTEYE, ritual]) is None


def test_a_list_naming_the_other_entry_among_many_links_nothing() -> None:
    gunner = passage(
        "Gunners learn by rank. Talents: rank 1: Steady Aim, Cover Fire; rank 2: Overwatch, Arc Stunner; rank 3: "
        "Suppress, Breach.",
        "Careers",
        "Gunner",
        chunk_id=2,
    )
    assert linked(analyse("what does the arc stunner do for a gunner"), [], [STUNNER, gunner]) is None


def test_a_title_named_only_inside_the_other_links_nothing() -> None:
    # "Warden" is named only as part of "Void Warden": the guard's line naming the void warden is no link.
    guard = passage("Wardens patrol the docks. A void warden outranks every one of them.", "Folk", "Warden")
    assert linked(analyse("what does the void warden guard"), [], [WARDEN, guard]) is None


def test_a_lesser_passage_s_sentence_naming_the_best_one_stays_the_answer() -> None:
    # The sense is the best passage and the question names it; the ritual's sentence naming it answers all the same.
    answer = reply(analyse("can nighteye pierce the shroud of ink"), [], [NIGHTEYE, SHROUD])
    assert answer.known and "cannot pierce the shroud" in answer.text
