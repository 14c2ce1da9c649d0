"""An entity's card as `/lore` answers read it: its lines in the calendar's words, its ties, state, life and offices
over time, as the asker may see them; and the families of the people a kin question names (`retrieval.kin`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from canon.graph import CanonReader
from canon.models import Entity, EntityCard, Viewer
from canon.ontology import Ontology
from canon.visibility import entity_hidden
from canon.wording import PLAIN, Wording, in_prose
from canon.wording.statements import for_a_card, told_words
from memory.knowledge.answer_models import Relation
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_ago import card_happened
from memory.knowledge.retrieval.answer_founded import card_founding
from memory.knowledge.retrieval.bonds import card_bonds, tensed_bonds
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.card_deaths import card_deaths
from memory.knowledge.retrieval.card_sexes import card_sexes
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.kin import kin_of
from memory.knowledge.retrieval.lives import birth_line, card_life, card_status, died_in
from memory.knowledge.retrieval.offices import card_offices, event_key, tensed, today_key
from memory.knowledge.retrieval.steps import Step
from memory.knowledge.retrieval.tenures import card_holds
from memory.leaks import card_secrets

#: The most people of a question whose families are read (each reads a few dozen cards).
_KIN_READ = 4


def card_facts(
    card: EntityCard, limit: int, ontology: Ontology | None = None, words: Wording = PLAIN
) -> list[str]:
    """Return an entity card's state, facts and relations as sentences, with when they hold in the calendar's
    words, without repeats, at most `limit`.

    Of a single-valued attribute stated more than once, only its last value in story order is kept: an answer
    must never read a value the story has since replaced as the current one (nor lose the current one to
    `limit`). The values of an attribute the ontology declares many-valued are all kept.
    """
    last = {view.statement.predicate: view for view in card.facts}
    kept = [
        view
        for view in card.facts
        if last[view.statement.predicate] is view
        or is_many(ontology, card.entity.type, view.statement.predicate)
    ]
    views = ([card.state] if card.state is not None else []) + kept + list(card.relations)
    status = card_status(card, ontology)
    facts = [told_words(view, words, Viewer.PLAYER, status if view is card.state else None) for view in views]
    event = died_in(card)
    if event and facts and card.state is not None:
        facts[0] += f", in {in_prose(words.name(event), 'Event')}"
    if card.state is None and status is not None:  # "status: dead" with no dates: the status is the state
        facts.insert(0, f"{words.name(card.entity.name)} is {words.name(status)}")
    born = birth_line(card, words)
    if born is not None:
        facts.insert(1, born)
    day = card.entity.validity.world_from if card.entity.type == "Event" else None
    if day and words.dated(day) and not any(" took place " in f for f in facts):
        # An event dated in no era and at no place says its day all the same ("… took place on 2 Thawmoon, …").
        facts.append(f"{words.name(card.entity.name)} took place {words.when(day)}")
    return list(dict.fromkeys(facts))[:limit]


#: The most entities a count names (it says how many there are in all).
_COUNT_NAMED = 12


def count_cards(word: str, entities: Sequence[Entity]) -> list[CanonFact]:
    """Return the entities a "How many factions are there?" counts as short cards saying so (no card read)."""
    return [
        CanonFact(
            entity_id=e.id,
            entity_name=e.name,
            entity_type=e.type,
            matched=word,
            match_score=80.0,
            hidden=entity_hidden(e),
            description=None,
            facts=[f"{e.name} is one of {len(entities)} {word}"],
            score=0.8,
        )
        for e in entities[:_COUNT_NAMED]
    ]


def is_many(ontology: Ontology | None, entity_type: str, predicate: str) -> bool:
    """Return whether the ontology declares an attribute of a type many-valued (several values at once)."""
    if ontology is None:
        return False
    spec = ontology.attribute(entity_type, predicate)[1]
    return spec is not None and spec.many


def card_state(card: EntityCard, ontology: Ontology | None = None) -> str | None:
    """Return an entity card's current state tag ("alive", "dead"), or None when it shows none; a living
    person's status that is a state ("missing", "undead") is theirs (`card_status`)."""
    status = card_status(card, ontology)
    if status is not None:
        return status
    value = card.state.statement.value if card.state is not None else None
    return str(value).strip().casefold() if value else None


def is_terminal(ontology: Ontology, state: str | None) -> bool:
    """Return whether the ontology calls a state terminal (dead, destroyed): nothing living is in it."""
    tag = ontology.states.tags.get(state) if state else None
    return tag is not None and tag.terminal


def card_relations(card: EntityCard, words: Wording = PLAIN) -> list[Relation]:
    """Return an entity card's relations as parts, for answers from the graph (a date hidden from the `words`'
    reader, in a GM-only era, as one nobody knows: no age or order is counted from it)."""
    return [
        Relation(
            subject=view.subject.name,
            predicate=view.statement.predicate,
            object=view.object.name,
            since=words.seen(view.statement.validity.world_from),
            object_type=view.object.type,
        )
        for view in card.relations
        if view.object is not None
    ]


async def with_kin(reader: CanonReader, facts: list[CanonFact], words: Wording) -> list[CanonFact]:
    """Return the cards with the families of the first few people among them (`retrieval.kin`)."""
    # Those the question names itself first, then those a step found ("is Pell Oswin's son": Oswin's family).
    ordered = sorted(facts, key=lambda f: f.step_span is not None)
    people = [f.entity_id for f in ordered if reader.ontology.is_a(f.entity_type, ("Person", "Deity"))]
    return [
        f.model_copy(update={"kin": await kin_of(reader, f.entity_id, words)})
        if f.entity_id in people[:_KIN_READ]
        else f
        for f in facts
    ]


def card_fact(
    card: EntityCard,
    m: EntityMatch,
    ontology: Ontology,
    config: SearchConfig,
    words: Wording,
    now: str | None,
    step: Step | None,
) -> CanonFact:
    """Return an entity's card as the answers read it, found by `m`: its lines, ties, life and offices over time as
    the asker may see them (`now`: the story's date)."""
    entity = card.entity
    offices = card_offices(card, words, today_key(now))
    bonds = card_bonds(card, words, today_key(now))
    state = card_state(card, ontology)
    # A dead man "lived in" his town, and a tie that is over reads in the past ("led the Guild (from … to …)"), as
    # his card says them at the story's date.
    lived = replace(for_a_card(words, card.state), tensed=True, now_key=today_key(now))
    return CanonFact(
        entity_id=entity.id,
        entity_name=entity.name,
        entity_type=entity.type,
        matched=m.window,
        match_score=round(min(m.score, 100.0), 1),
        hidden=entity_hidden(entity),
        description=entity.description,
        facts=tensed_bonds(
            tensed(card_facts(card, config.max_facts_per_entity, ontology, lived), entity.name, offices),
            entity.name,
            bonds,
        ),
        score=round(min(m.score, 100.0) / 100, 4),
        relations=card_relations(card, words),
        state=state,
        state_terminal=is_terminal(ontology, state),
        life=card_life(card, words, now),
        founding=card_founding(card, words, now),
        happened=card_happened(card, words, now),
        offices=offices,
        holds=card_holds(card, words, today_key(now)),
        bonds=bonds,
        sexes=card_sexes(card, words),
        deaths=card_deaths(card, words),
        when_key=event_key(card, words),
        secrets=tuple(card_secrets(card)),
        step=step.said if step is not None and entity.id in step.found else None,
        step_span=step.span if step is not None and entity.id in step.found else None,
        shared=m.shared,
    )
