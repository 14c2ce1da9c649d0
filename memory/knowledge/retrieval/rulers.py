"""Who rules a place: "Who rules Greyquay?", "Who governs the Lantern Keep?", "Who controls Saltcombe?".

Canon says a ruler in three ways: a relation (someone `RULES` the place), a title of the place ("Cassel Orrow is
Warden of Fenwatch", answered by `holders` and `answer_graph`), or a group whose seat the place is (`SEAT_OF`:
"Greyquay is the seat of the Ashen Corsairs of Morrow", with whoever leads them). A place canon says none of
these of is asked of the place it is part of, up a few levels ("Saltcombe is part of Duskholm; Maelis Orrow is
Queen of Duskholm"). The finder (`seated`) reads those groups, holders and larger places, as the asker may see
them, so their cards are among the facts; the answer (`ruler_answer`) says each step in canon's own sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, titles_naming
from canon.wording import relation_sentence
from canon.wording.relations import PHRASES
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = ["asks_ruler", "ruler_answer", "seated"]

_RULES = re.compile(
    r"^\s*who\s+(?:rules|ruled|governs|governed|reigns|reigned|holds|held|runs|ran|controls|controlled|"
    r"commands|commanded|owns|owned|is\s+in\s+charge\s+of|was\s+in\s+charge\s+of|reigns\s+over|"
    r"lords?\s+over|is\s+the\s+ruler\s+of|was\s+the\s+ruler\s+of)\s+(?P<held>.+)$"
)
#: How far up the places a place is part of the finder goes.
_LEVELS = 3
#: Found through the place asked: below the place itself, named.
_SCORE = 86.0
_ARTICLES = frozenset({"the", "a", "an"})


def asks_ruler(question: str) -> str | None:
    """Return the words naming what a "who rules …" question asks the ruler of ("greyquay"), or None."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    found = _RULES.match(folded)
    return found["held"] if found else None


async def seated(reader: CanonReader, question: str, named: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return, for a place a "who rules" question names, those canon says rule it: the groups seated there
    (their cards name who leads them) and, when canon says nothing of the place itself, the places it is part
    of with their groups and the holders of their titles. None when no ruler is asked."""
    held = asks_ruler(question)
    if held is None:
        return []
    have = {m.entity_id for m in named}
    found: list[EntityMatch] = []

    def add(entity_id: int, window: str) -> None:
        if entity_id not in have:
            have.add(entity_id)
            found.append(EntityMatch(entity_id=entity_id, matched=window, window=window, score=_SCORE))

    places = [m for m in named if set(fold_words(m.window)) <= set(fold_words(held))]
    for match in places[:1]:
        bare = " ".join(w for w in fold_words(match.matched) if w not in _ARTICLES)
        if bare and await titles_naming(reader, bare):
            break  # a title of the place itself ("Warden of Fenwatch"): its holders answer (`holders`)
        at = [match.entity_id]
        for _ in range(_LEVELS):
            ruled = await reader.statements(
                predicates=["SEAT_OF", "RULES"], subject_ids=at, object_ids=at, with_evidence=False
            )
            for s in ruled:
                if s.predicate.upper() == "SEAT_OF" and s.subject_id in at and s.object_id is not None:
                    add(s.object_id, match.window)
                elif s.predicate.upper() == "RULES" and s.object_id in at:
                    add(s.subject_id, match.window)
            if ruled:
                break
            larger = await reader.statements(predicates=["PART_OF"], subject_ids=at, with_evidence=False)
            at = [s.object_id for s in larger if s.object_id is not None]
            if not at:
                break
            titled = False
            for place in (await reader.entities(at)).values():
                add(place.id, place.name)
                bare = " ".join(w for w in fold_words(place.name) if w not in _ARTICLES)
                for statement in await titles_naming(reader, bare):
                    add(statement.subject_id, place.name)  # not by the title: it is said of the larger place
                    titled = True
            if titled:
                break
    return found


def _rules(place: CanonFact, facts: Sequence[CanonFact]) -> list[str]:
    """Return what canon says rules a place, as sentences: who rules it, the groups seated there and who leads
    them, the holders of a title of it."""
    me = place.entity_name.casefold()
    said = [
        relation_sentence("RULES", r.subject, place.entity_name)
        for r in place.relations
        if r.predicate.upper() == "RULES" and r.object.casefold() == me
    ]
    for r in place.relations:
        if r.predicate.upper() != "SEAT_OF" or r.subject.casefold() != me:
            continue
        said.append(relation_sentence("SEAT_OF", place.entity_name, r.object))
        group = next((f for f in facts if f.entity_name.casefold() == r.object.casefold()), None)
        leaders = [
            x.subject
            for x in (group.relations if group else [])
            if x.predicate.upper() == "LEADS" and x.object.casefold() == r.object.casefold()
        ]
        if leaders:
            said.append(
                relation_sentence("LEADS", names_list(list(dict.fromkeys(leaders)), opens=True), r.object)
            )
    of_place = re.compile(rf"^(?P<who>.+?) is (?:the )?[\w' -]+ of {re.escape(place.entity_name)}$")
    for fact in facts:
        related = {relation_sentence(p, fact.entity_name, place.entity_name) for p in PHRASES}
        for line in fact.facts:
            found = of_place.match(line)
            if found and found["who"] == fact.entity_name and line not in related:
                said.append(line)  # a title of the place: "Maelis Orrow is Queen of Duskholm"
    return said


def ruler_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who rules the place a "who rules" question names (see the module docstring), or None when canon
    says nothing of it or of the places it is part of."""
    held = asks_ruler(question)
    if held is None:
        return None
    asked = set(fold_words(held))
    found = next(((n, f) for n, f in enumerate(facts, 1) if set(fold_words(f.matched)) <= asked), None)
    if found is None:
        return None
    number, place = found
    steps: list[str] = []
    for _ in range(_LEVELS + 1):
        said = _rules(place, facts)
        if said:
            return "; ".join([*steps, *said]) + f". [{number}]", number
        me = place.entity_name.casefold()
        larger = next(
            (
                r.object
                for r in place.relations
                if r.predicate.upper() == "PART_OF" and r.subject.casefold() == me
            ),
            None,
        )
        parent = next((f for f in facts if larger and f.entity_name.casefold() == larger.casefold()), None)
        if parent is None:
            return None
        steps.append(relation_sentence("PART_OF", place.entity_name, parent.entity_name))
        place = parent
    return None
