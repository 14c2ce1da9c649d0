"""Ties to the dead (`canon.wording.dead_ties`): a tie that ends with a life reads in the past once either of the two
is dead, until the death; kin, which outlives a death, reads in the past only of the dead one, never of the
living; a death the reader does not know of changes nothing."""

from __future__ import annotations

import dataclasses

from canon.calendar import UNKNOWN
from canon.models import StatementKind, StatementView, Viewer
from canon.wording import Wording
from canon.wording.statements import statement_sentence, statement_words
from tests.canon.wording.test_hidden_era_dates import GM_WORDS as GM_CALENDAR
from tests.helpers.canon_samples import ref, statement

WORDS = Wording(calendar=GM_CALENDAR)
SUBJECT, OTHER = 1, 2  # `statement`'s subject is entity 1, "Mara"
DIED = ("after_the_crowning.12", 120000)


def _tie(predicate: str) -> StatementView:
    return statement(7, StatementKind.RELATION, predicate, obj=ref(OTHER, "Hale Brun"))


def _dead(*ids: int, when: tuple[str, int | None] = DIED) -> Wording:
    return dataclasses.replace(WORDS, deaths=dict.fromkeys(ids, when))


def test_a_tie_ending_with_a_life_is_over_at_either_death() -> None:
    for dead in (SUBJECT, OTHER):
        said = statement_words(_tie("MENTOR_OF"), _dead(dead), Viewer.GM, evidence=False)
        assert said.startswith("Mara was Hale Brun's mentor (until "), said
    assert statement_sentence(_tie("RIVAL_OF"), _dead(OTHER)) == "Mara was a rival of Hale Brun"
    assert statement_sentence(_tie("MENTOR_OF"), WORDS) == "Mara is Hale Brun's mentor"
    # A death nobody dates ends it all the same, with no end said.
    undated = statement_words(
        _tie("FRIEND_OF"), _dead(OTHER, when=(UNKNOWN, None)), Viewer.GM, evidence=False
    )
    assert undated == "Mara was a friend of Hale Brun (from scene 2)", undated


def test_kin_reads_in_the_past_of_the_dead_one_alone() -> None:
    assert statement_sentence(_tie("PARENT_OF"), _dead(SUBJECT)).startswith("Mara was Hale Brun's ")
    # The living parent of a dead child is still the parent.
    assert statement_sentence(_tie("PARENT_OF"), _dead(OTHER)).startswith("Mara is Hale Brun's ")
    assert statement_words(_tie("SIBLING_OF"), _dead(SUBJECT), Viewer.GM, evidence=False) == (
        "Mara was Hale Brun's sibling (from scene 2)"
    )
