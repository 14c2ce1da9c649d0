"""A life's words read from a description: how someone died, where they are held; and "whos" read as two words."""

from __future__ import annotations

import pytest

from memory.knowledge.question import spelled_out
from memory.knowledge.retrieval.lives import death_cause, held_at


@pytest.mark.parametrize(
    ("description", "said"),
    [
        ("A harbour pilot who drowned in the Weeping Sound.", "Dunmore Pike drowned in the Weeping Sound"),
        ("Orrin's son, drowned at sea.", "Dunmore Pike drowned at sea"),
        (
            "An old soldier. He was slain at the ford by raiders.",
            "Dunmore Pike was slain at the ford by raiders",
        ),
        ("The smuggler queen. She poisoned Lord Orrin's wine.", None),  # a deed done, not a death
        ("A tall captain who hunts smugglers.", None),
        (None, None),
    ],
)
def test_a_death_is_read_from_the_description_that_says_it(description: str | None, said: str | None) -> None:
    assert death_cause("Dunmore Pike", description) == said


@pytest.mark.parametrize(
    ("description", "said"),
    [
        (
            "A smuggler poet, held in the Glass Gaol since the revolt.",
            "held in the Glass Gaol since the revolt",
        ),
        ("Maren's brother, kept in the Glass Gaol for plotting.", "kept in the Glass Gaol for plotting"),
        ("A masked singer, chained beneath the keep.", "chained beneath the keep"),
        ("A singer who kept the old songs.", None),  # "kept" without a place is no prison
        ("A lamplighter's apprentice.", None),
    ],
)
def test_where_someone_is_held_is_read_from_the_description(description: str, said: str | None) -> None:
    assert held_at(description) == said


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("whos the grey wren", "who is the grey wren"),
        ("Who's the Ash Fox?", "Who is the Ash Fox?"),
        ("whats the glass gaol", "what is the glass gaol"),
        ("wheres sefa held", "where is sefa held"),
        ("who is the ember queen", "who is the ember queen"),
        ("whose sword is this", "whose sword is this"),
        ("how's maren", "how is maren"),
    ],
)
def test_a_question_word_run_into_is_is_read_as_two_words(typed: str, read: str) -> None:
    assert spelled_out(typed) == read
