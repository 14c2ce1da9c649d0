"""Who of the people the cards an answer reads speak of is dead, as the asker reads them, and when: a tie to the dead
reads in the past on those cards (`canon.wording.dead_ties`), and an answer naming one of them says when they died
("Pip Thorne's father was Aldric Thorne (died in year 340 of the Third Age)")."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from canon.calendar import UNKNOWN
from canon.graph import CanonReader
from canon.graph.deaths import deaths_of
from canon.graph.reader import current_state
from canon.models import EntityCard, StatementKind
from canon.wording import Wording
from memory.knowledge.retrieval.death_said import death_told

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
    found = await deaths_of(reader, people)
    names = {
        person.id: person.name
        for card in cards
        for view in card.relations
        for person in (view.subject, view.object)
        if person is not None
    }
    told = await _told_dead(reader, {i: names[i] for i in people if i not in found and i in names})
    return dataclasses.replace(words, deaths={**words.deaths, **found, **told})


async def _told_dead(reader: CanonReader, people: dict[int, str]) -> dict[int, tuple[str, int | None]]:
    """Return those of `people` (by id, with their names) whom canon has alive by a birth or gives no state, but
    whose description, as the reader reads it, tells their death ("He was shot dead outside the saloon"): dead,
    nobody knows when."""
    if not people:
        return {}
    said = await reader.statements(
        subject_ids=list(people), predicates=["description", "state"], with_evidence=False
    )
    dead: dict[int, tuple[str, int | None]] = {}
    for person, name in people.items():
        own = [s for s in said if s.subject_id == person]
        state = current_state(own)
        if state is not None and (state.value or "").strip().casefold() != "alive":
            continue  # missing, imprisoned, …: canon's state stands
        described = [s.value for s in own if s.kind == StatementKind.ATTRIBUTE and s.value]
        if described and death_told(name, described[-1]) is not None:
            dead[person] = (UNKNOWN, None)
    return dead


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
