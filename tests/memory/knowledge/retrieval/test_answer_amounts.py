"""What a question asks, read from its form: an amount asked by the field it names, a rule over its example."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer import asks_measure, compose
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import examples
from tests.memory.knowledge.retrieval.test_answer import passage

# A homebrew system's layouts, not the SRD's: a feat with no kind line, a rule under a plain heading, an example
# written as a paragraph of its own that goes on past its first sentence.
WARDING_TOUCH = passage(
    "## Warding Touch\n\nTaken at rank 2.\n\nYou keep a pool of warding light that refills at each dawn. "
    "From that pool you may grant a total of wards equal to your rank times 3.\n\n"
    "Spending the pool takes your whole turn.",
    "Talents",
    "Warding Touch",
)
DEEP_WATER = passage(
    "# Hazards\n\n## Deep Water\n\nA swimmer holds their air for a number of heartbeats equal to ten times "
    "their Grit.\n\nFor instance, a swimmer of Grit 2 holds their air for twenty heartbeats. Then, out of air "
    "under the deep water, the swimmer drowns after 3 turns.",
    "Hazards",
    "Deep Water",
)


def test_a_field_naming_a_measure_asks_an_amount() -> None:
    assert asks_measure(["size"]) and asks_measure(["pool size"]) and asks_measure(["cost"])
    assert not asks_measure(["alignment"]) and not asks_measure(["damage"]) and not asks_measure([])


def test_a_measure_asked_of_a_named_passage_is_answered_by_the_sentence_saying_an_amount() -> None:
    answer = reply(analyse("warding touch pool size?"), [], [WARDING_TOUCH])
    assert answer.known and "rank times 3" in answer.text, answer.text
    assert "refills at each dawn" not in answer.text


def test_every_sentence_of_a_paragraph_opening_an_example_is_an_example() -> None:
    shown = examples(DEEP_WATER.text)
    assert any(s.startswith("For instance") for s in shown)
    assert any(s.startswith("Then, out of air") for s in shown)
    assert not any("ten times" in s for s in shown)


def test_the_rule_answers_before_the_sentence_after_its_example() -> None:
    answer = compose("how long can a swimmer hold their air in deep water", [], [DEEP_WATER])
    assert answer.known and "ten times their Grit" in answer.text, answer.text
    assert "drowns after 3 turns" not in answer.text
