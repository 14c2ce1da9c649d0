"""A question asking by how much a field goes up is answered by the sentence saying the change, of the thing it
names by title (an item), not by the field's value of a creature it names too."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_change import asks_change
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

LIZARD = passage(
    "## Riding Lizard\n\n*Large beast, unaligned*\n\n- **Armor Class** 12\n- **Speed** 40 ft., climb 30 ft.",
    "Creatures",
    "Riding Lizard",
    chunk_id=1,
)
SADDLE = passage(
    "## Saddle of Swiftness\n\n*Wondrous item, uncommon*\n\nThis saddle is stitched with silver thread. While it "
    "is strapped to a mount, it increases the mount's speed by 20 feet.",
    "Treasures",
    "Saddle of Swiftness",
    chunk_id=2,
)


def test_the_change_said_by_the_item_named_answers_how_much_a_field_goes_up() -> None:
    said = reply(
        analyse("I strapped a saddle of swiftness on my riding lizard. How much does its speed go up?"),
        [],
        [LIZARD, SADDLE],
    )
    assert said.known and "by 20 feet" in said.text and "40 ft" not in said.text


def test_a_field_asked_without_a_change_is_the_field_s_value() -> None:
    said = reply(analyse("riding lizard speed?"), [], [LIZARD, SADDLE])
    assert said.known and "40 ft" in said.text


def test_what_asks_a_change() -> None:
    assert asks_change("how much does its walking speed go up")
    assert asks_change("by how much does the saddle increase speed")
    assert not asks_change("how much does a saddle cost")
    assert not asks_change("does speed go up")
