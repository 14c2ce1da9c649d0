"""Which sentence answers, among the passages that hold the fact: a rule that goes on in its next sentence, the
block a question names, an amount in the units asked; books laid out unlike the SRD."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer import compose
from memory.knowledge.retrieval.answer_step import reply
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


# A monster of another bestiary: a trait whose bold name the player says in another form ("regrowing").
HYDRA = passage(
    "## Ashen Hydra\n\n*Huge monstrosity, unaligned*\n\n"
    "The ashen hydra dies only if every head is severed and it doesn't regrow them by the end of its turn.\n\n"
    "***Regrowth.*** The ashen hydra grows two heads at the start of its turn for each head lost. "
    "If the ashen hydra takes cold damage, this trait doesn't function at the start of the hydra's next turn.\n\n"
    "***Ashen Breath.*** The hydra exhales cinders in a 30-foot cone.",
    "Monsters",
    "Ashen Hydra",
    chunk_id=5,
)


def test_the_block_a_question_names_answers_before_a_sentence_outside_it() -> None:
    said = reply(analyse("what stops an ashen hydra from regrowing its heads"), [], [HYDRA])
    assert said.known and "cold damage" in said.text
    assert "dies only if" not in said.text
    # A question naming no block of it gets the passage's best sentence as before.
    said = reply(analyse("how does an ashen hydra die"), [], [HYDRA])
    assert said.known and "dies only if every head is severed" in said.text
