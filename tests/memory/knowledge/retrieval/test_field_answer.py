"""A table's column named with its unit or its measure ("Mass (t)", "Armour rating") is the field a question asks."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

HULLS = passage(
    "## Hulls\n\n| Hull | Mass (t) | Jump band | Speed rating | Cost [cr] |\n|---|---|---|---|---|\n"
    "| Skiff | 40 | Short | 9 | 9,000 |\n| Corvette | 1,200 | Long | 6 | 310,000 |\n"
    "| Brig | 5,500 | Deep | 3 | 2,400,000 |",
    "Shipyard",
    "Hulls",
)


def test_a_column_named_with_its_unit_answers_the_field_asked() -> None:
    answer = reply(analyse("corvette mass"), [], [HULLS])
    assert answer.known and "1,200" in answer.text and "Corvette" in answer.text
    answer = reply(analyse("how much does a brig cost"), [], [HULLS])
    assert answer.known and "2,400,000" in answer.text


def test_a_column_named_with_its_measure_answers_the_field_asked() -> None:
    answer = reply(analyse("what's the speed of a brig"), [], [HULLS])
    assert answer.known and "Brig" in answer.text and " 3" in answer.text, answer.text


BEASTS = passage(
    "## Ash Hound\n\nMGT 2 | AGI 4 | WIL 1 | VIT 9 | ARM 0\n\nA hound of cinders that hunts by the smell of oil.",
    "Bestiary",
    "Ash Hound",
)


def test_a_stat_line_joined_by_bars_is_read_and_its_abbreviated_label_is_the_players_word() -> None:
    answer = reply(analyse("what is an ash hound's agility"), [], [BEASTS])
    assert answer.known and "AGI is 4" in answer.text, answer.text
    answer = reply(analyse("ash hound vitality?"), [], [BEASTS])
    assert answer.known and "9" in answer.text.replace("[1]", ""), answer.text
