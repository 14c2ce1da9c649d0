"""Which sentence answers, among the passages that hold the fact: a rule that goes on in its next sentence, the
block a question names, an amount in the units asked; books laid out unlike the SRD."""

from __future__ import annotations

from memory.knowledge.retrieval.answer import compose
from tests.memory.knowledge.retrieval.test_answer import passage

# A talent of a game of blood magic: the rule, then a sentence going on from it.
SURGE = passage(
    "## Bloodfire Surge\n\nYou can burn your own blood to strike harder: your next hit deals an extra 1d8 fire "
    "damage. If you call on the surge again before you finish a long rest, you lose 2d6 hit points for each Vigor "
    "die you spend. Each time you call on the surge again before finishing a long rest, the hit points lost per "
    "Vigor die increase by 1d6.",
    "Talents",
    "Bloodfire Surge",
)


def test_a_sentence_going_on_from_the_one_before_is_quoted_with_it_in_the_books_order() -> None:
    answer = compose("what happens if I use bloodfire surge a second time before a long rest", [], [SURGE])
    assert answer.known
    # "Each time … increase by 1d6" alone would not say what is lost the second time.
    assert answer.text.index("lose 2d6 hit points") < answer.text.index("increase by 1d6")


def test_a_sentence_that_stands_alone_is_quoted_alone() -> None:
    answer = compose("how much fire damage does bloodfire surge add", [], [SURGE])
    assert answer.known and "extra 1d8 fire damage" in answer.text
    assert "lose 2d6" not in answer.text
