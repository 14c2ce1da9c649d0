"""The sex of the people the cards an answer reads speak of by it, as the cards the table opens say them: "Maudry Vell
is Pell Vell's aunt", never "uncle or aunt" of a woman whose sex canon says (`canon.wording.relations.BY_SEX`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from canon.graph import CanonReader
from canon.models import EntityCard
from canon.wording import Wording
from canon.wording.relations import BY_SEX, SEX_ATTRIBUTES, sex_of

__all__ = ["card_sexes", "with_sexes"]


async def with_sexes(reader: CanonReader, cards: Sequence[EntityCard], words: Wording) -> Wording:
    """Return `words` knowing the sex of each person at either end of the cards' kin sentences, as the reader's
    viewer may read it (one read for all the cards): a sentence starts with one, an answer may name the other
    ("who are Osk Vell's goddaughters")."""
    people = {
        person.id
        for card in cards
        for view in card.relations
        if view.statement.predicate.upper() in BY_SEX
        for person in (view.subject, view.object)
        if person is not None and person.id not in words.sexes
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


def card_sexes(card: EntityCard, words: Wording) -> dict[str, str]:
    """Return the sex of the people a card's kin ties name, by name, as `words` knows it (`with_sexes`)."""
    found: dict[str, str] = {}
    for view in card.relations:
        if view.statement.predicate.upper() not in BY_SEX:
            continue
        for person in (view.subject, view.object):
            said = sex_of(words.sexes.get(person.id)) if person is not None else None
            if person is not None and said is not None:
                found[person.name] = said
    return found
