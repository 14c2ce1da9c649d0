"""Claims a Canon passage's sentences make about its own subject, read as fields; nothing else is read."""

from __future__ import annotations

import pytest

from memory.knowledge.fields import Field
from memory.knowledge.prose_claims import prose_fields

PATH = ["Gazetteer", "Greyhaven"]


def test_the_two_plain_shapes_of_a_claim_are_read_as_fields_of_the_heading() -> None:
    text = (
        "A walled port of grey stone. Greyhaven's ruler is Queen Maren Vell. The population of Greyhaven is 9,000.\n"
        "Greyhaven’s harbour master is Tamsin of the Reach."
    )
    assert prose_fields(PATH, text) == [
        Field("Greyhaven", "ruler", "Queen Maren Vell"),
        Field("Greyhaven", "population", "9,000"),
        Field("Greyhaven", "harbour master", "Tamsin of the Reach"),
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Greyhaven's ruler is old and tired.",  # not a name or a number
        "Greyhaven's ruler was Lord Aldous Crane.",  # the past disagrees with nothing
        "Greyhaven's ruler is Queen Maren, who is kind.",  # the sentence goes on past the value
        "Westhaven's ruler is Lord Crane.",  # not a subject the passage's headings name
        "In spring, Greyhaven's ruler is Queen Maren.",  # not a sentence that starts with the claim
        "Greyhaven's history is Long.",  # a word no attribute is
        "The harbour of Greyhaven is the Grey Basin.",  # "the ..." is no name this reads
        "- Greyhaven's ruler is Queen Maren.",  # a list item: read as a field, if at all
    ],
)
def test_sentences_that_are_not_plain_claims_are_not_read(sentence: str) -> None:
    assert prose_fields(PATH, sentence) == []


def test_a_passage_without_headings_claims_nothing() -> None:
    assert prose_fields([], "Greyhaven's ruler is Queen Maren.") == []
