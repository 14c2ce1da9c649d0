"""An amount asked of a thing named only inside another's section: the sentence naming it and the amount."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

_TOWN = passage(
    "# Brackwell\n\nBrackwell sits on nine arches over the river. The bridge-toll was raised after the flood. "
    "A cart pays a bridge toll of two copper bits at every arch it crosses.",
    "World",
    "Brackwell",
)


def test_an_amount_asked_of_a_thing_named_in_anothers_section_is_the_sentence_saying_it() -> None:
    answer = reply(analyse("how much is the bridge toll?"), [], [_TOWN])
    assert answer.known, answer.text
    assert answer.text.startswith("A cart pays a bridge toll of two copper bits"), answer.text


def test_a_sentence_naming_the_thing_without_an_amount_after_it_is_no_answer() -> None:
    town = passage(
        "# Brackwell\n\nBrackwell sits on nine arches over the river. The bridge toll was raised after the flood.",
        "World",
        "Brackwell",
    )
    answer = reply(analyse("how much is the bridge toll?"), [], [town])
    assert not answer.known, answer.text
