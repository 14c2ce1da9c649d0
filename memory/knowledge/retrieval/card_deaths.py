"""Who of the people the cards an answer reads speak of is dead, as the asker reads them, and when: a tie to the dead
reads in the past on those cards (`canon.wording.dead_ties`), and an answer naming one of them says when they died
("Pip Thorne's father was Aldric Thorne (died in year 340 of the Third Age)")."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from canon.calendar import UNKNOWN
from canon.graph import CanonReader
from canon.graph.deaths import deaths_of
from canon.models import EntityCard
from canon.wording import Wording

__all__ = ["card_death", "card_deaths", "died_words", "with_deaths"]


async def with_deaths(reader: CanonReader, cards: Sequence[EntityCard], words: Wording) -> Wording:
    """Return `words` knowing who of those at either end of the cards' ties is dead (one read for all)."""
    people = {
        i
        for card in cards
        for view in card.relations
        if view.object is not None
        for i in (view.subject.id, view.object.id)
        if i not in words.deaths
    }
    if not people:
        return words
    return dataclasses.replace(words, deaths={**words.deaths, **await deaths_of(reader, people)})


def died_words(words: Wording, death: tuple[str, int | None]) -> str:
    """Return when one died as an answer says it after "died" ("in year 340 of the Third Age"), or "" when the
    reader knows no date of it."""
    return words.when(death[0]) if death[0] != UNKNOWN and words.dated(death[0]) else ""


def card_deaths(card: EntityCard, words: Wording) -> dict[str, str]:
    """Return those a card's ties name who are dead as `words` knows (`with_deaths`), by name, with when each died
    in words ("" when not known)."""
    found: dict[str, str] = {}
    for view in card.relations:
        for person in (view.subject, view.object):
            if person is not None and person.id != card.entity.id and person.id in words.deaths:
                found[person.name] = died_words(words, words.deaths[person.id])
    return found


def card_death(card: EntityCard) -> tuple[str, int | None] | None:
    """Return when a card's entity died, as its state says it (stored, as a key), or None when it is not dead."""
    state = card.state
    if state is None or (state.statement.value or "").strip().casefold() != "dead":
        return None
    v = state.statement.validity
    return v.world_from or UNKNOWN, v.world_from_key
