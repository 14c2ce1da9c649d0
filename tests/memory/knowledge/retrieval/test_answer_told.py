"""A description's sentence said of its subject by name, however the GM typed it: capitalised or not."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.answer_told import told_sentence


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        # Typed in Discord in lower case, as often as not.
        ("a healer of the hills", "Mirela Harrow is a healer of the hills"),
        ("A healer of the hills.", "Mirela Harrow is a healer of the hills"),
        ("the last of the hill-wives", "Mirela Harrow is the last of the hill-wives"),
        ("she keeps the shrine at Harrowgate.", "Mirela Harrow keeps the shrine at Harrowgate"),
        ("She keeps the shrine at Harrowgate.", "Mirela Harrow keeps the shrine at Harrowgate"),
        (
            "healer of the hills, feared by the abbey",
            "Mirela Harrow is a healer of the hills, feared by the abbey",
        ),
        ("Healer of the hills", "Mirela Harrow is a healer of the hills"),
        # Naming the subject: kept as written.
        ("Mirela Harrow mends bones for coin.", "Mirela Harrow mends bones for coin"),
        # Words that open a sentence without being a noun are not made one.
        ("born of the hill-mists", "Mirela Harrow: born of the hill-mists"),
    ],
)
def test_a_description_sentence_is_said_of_its_subject(sentence: str, said: str) -> None:
    assert told_sentence("Mirela Harrow", sentence) == said
