"""A GM's label leading a paragraph ("Secret:", "**GM only:**", "DM notes —") is no part of the sentences read."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.answer_words import sentences


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "Secret: The toll-men have skimmed a tenth of every toll.",
            "The toll-men have skimmed a tenth of every toll.",
        ),
        ("**GM only:** A drowned mine lies under the moor.", "A drowned mine lies under the moor."),
        ("DM notes — the duke poisoned his brother.", "The duke poisoned his brother."),
        ("(GM only) The abbot pays the raiders.", "The abbot pays the raiders."),
        ("Keeper only: the cult waits below.", "The cult waits below."),
        # Words that only begin like a label are the sentence's own.
        ("Secrets of the deep are many and old.", "Secrets of the deep are many and old."),
        ("The GM only rolls once for the weather.", "The GM only rolls once for the weather."),
    ],
)
def test_a_gm_label_is_not_quoted(text: str, said: str) -> None:
    assert sentences(f"## The Ledger (GM only)\n\n{text}") == [said]
