"""The sex of the people the cards an answer reads speak of by it, as the cards the table opens say them: "Maudry Vell
is Pell Vell's aunt", never "uncle or aunt" of a woman whose sex canon says (`canon.wording.relations.BY_SEX`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from canon.graph import CanonReader
from canon.models import EntityCard
from canon.wording import Wording
from canon.wording.relations import BY_SEX, SEX_ATTRIBUTES

__all__ = ["with_sexes"]


async def with_sexes(reader: CanonReader, cards: Sequence[EntityCard], words: Wording) -> Wording:
    """Return `words` knowing the sex of each person the cards' kin sentences start with, as the reader's viewer
    may read it (one read for all the cards)."""
    people = {
        view.subject.id
        for card in cards
        for view in card.relations
        if view.statement.predicate.upper() in BY_SEX and view.subject.id not in words.sexes
    }
    if not people:
        return words
    sexes = dict(words.sexes)
    for fact in await reader.statements(
        subject_ids=sorted(people), predicates=SEX_ATTRIBUTES, with_evidence=False
    ):
        if fact.value:
            sexes.setdefault(fact.subject_id, str(fact.value))
    return dataclasses.replace(words, sexes=sexes)
