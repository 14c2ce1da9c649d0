"""A rule asked in a player's words: how a value is worked out, a row counted in words, not another entry's line.

The passages are a starship game's, laid out unlike the SRD: a numbered table, a rule in prose, and a vessel's
stat list holding a line of the same name."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import same_word
from tests.memory.knowledge.retrieval.test_answer import passage

STRAIN = passage(
    "Long jumps through the void strain a crew, in five steps.\n\n"
    "| Level | Effect |\n|---|---|\n| 1 | Shaking hands |\n| 2 | Speed halved |\n| 3 | Blind spots |\n"
    "| 4 | Shield rating halved |\n| 5 | Unconscious |",
    "Hazards",
    "Jump Strain",
    chunk_id=1,
)
HOLD = passage(
    "A ship's cargo hold is measured in tonnes. Your cargo capacity is your hull rating multiplied by 20.",
    "Ships",
    "Hauling",
    "Cargo Capacity",
    chunk_id=2,
)
HAULER = passage(
    "*Freighter — Civilian Vessels*\n\n- **Cost** 90,000 cr\n- **Cargo Capacity** 400 tonnes\n- **Crew** 4",
    "Vessels",
    "Mule-class Hauler",
    chunk_id=3,
)


def test_a_number_in_words_is_the_figure_one_is_left_a_pronoun() -> None:
    assert same_word("four", "4") and same_word("twelve", "12") and not same_word("four", "5")
    assert not same_word("one", "1")
    answer = reply(analyse("what does jump strain level four do to u"), [], [STRAIN, HOLD])
    assert answer.known and "Shield rating halved" in answer.text


def test_how_a_value_is_worked_out_is_the_rule_not_another_entry_s_line_of_that_name() -> None:
    answer = reply(analyse("how do i calculate cargo capacity"), [], [HOLD, HAULER])
    assert answer.text == "Your cargo capacity is your hull rating multiplied by 20. [1]"
    # The hauler's own line answers when the hauler is named.
    named = reply(analyse("what is the cargo capacity of a mule-class hauler"), [], [HAULER, HOLD])
    assert named.known and "400 tonnes" in named.text


def test_a_stat_line_of_an_entry_the_question_does_not_name_is_no_answer() -> None:
    # The rule is not among the passages found: the hauler's line is about the hauler, not the rule asked.
    answer = reply(analyse("cargo capacity rule for my ship"), [], [HAULER, STRAIN])
    assert not answer.known
    assert not any(c.cited for c in answer.citations)
