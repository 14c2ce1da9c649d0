"""The places around a place asked about, found on the canon graph as the asker may see it.

"Who lives in the Low Fens?" asks of the people living in the Low Fens and in every place within it; "What
towns are in the Greywater Vale?" of the places within it, at every depth, and so does "What happened in
Saltmarch?" (the events at its towns are read from their cards); "Where is the Cutting?" of the
places holding it, up to the widest. A place's card holds only its own neighbours (what is part of it, what it
is part of), so those around are found by reading their cards in turn (at most `_MOST` of them), and are given
to the answer as if the question had named them, after what it did name (`answer_places` reads them); so are
those living in them, for a residents' question (their cards say who has died), and the creatures inhabiting
them, for a question of the beasts there. A place
or a tie the asker may not see is on no card they read, so it is neither listed nor counted nor walked through.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.errors import GameError
from canon.graph import CanonReader
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.creature_words import asks_creatures

__all__ = [
    "around",
    "asks_around",
    "asks_happened",
    "asks_residents",
    "asks_where",
    "found_around",
    "kind_where",
]

_PLACES = ("Location",)
#: The most places read around the one asked (a region of many towns is said by its nearest ones).
_MOST = 40
#: Found around a place, not named: scored below anything the question names.
_AROUND_SCORE = 1.0

_RESIDENTS = re.compile(
    r"^\s*(?:who|how\s+many(?:\s+\w+)?)\s+(?:(?:still\s+)?(?:lives?|dwells?|resides?|lived|dwelt|resided)"
    r"|(?:are|were)\s+the\s+(?:residents|inhabitants|people|folk))\b"
    r"|\b(?:residents|inhabitants|dwellers)\s+of\b",
    re.IGNORECASE,
)
_CONTENTS = re.compile(
    r"^\s*(?:what|which)\s+(?:\w+\s+){0,2}?(?:is|are|lies?|was|were|can\s+be\s+found)\s+(?:in|within|inside)\b"
    r"|^\s*what\s+(?:does|did)\s+.+?\s+(?:contain|hold|include)\b",
    re.IGNORECASE,
)
_HAPPENED = re.compile(
    r"^\s*(?:what|which\s+events?)\s+(?:happened|took\s+place|went\s+on|occurred)\s+(?:at|in|on|within|inside)\b",
    re.IGNORECASE,
)
#: The kinds of place a where-question may ask by ("which region is Cinderkirk in").
_KINDS = (
    r"(regions?|provinces?|countr(?:y|ies)|kingdoms?|realms?|lands?|count(?:y|ies)|duch(?:y|ies)|shires?"
    r"|territor(?:y|ies)|nations?|continents?|cit(?:y|ies)|towns?|islands?)"
)
_BE = r"(?:is|are|was|were|lies|lie)"
_KIND_WHERE = (
    re.compile(rf"^\s*in\s+(?:which|what)\s+{_KINDS}\s+{_BE}\b", re.IGNORECASE),
    re.compile(rf"^\s*(?:which|what)\s+{_KINDS}\s+{_BE}\b.*\b(?:in|within|of)\W*$", re.IGNORECASE),
    re.compile(rf"\b{_BE}\s+(?:in|within|part\s+of)\s+(?:which|what)\s+{_KINDS}\b", re.IGNORECASE),
)
_WHERE = re.compile(r"^\s*where\s+(?:is|are|was|were|lies|lie)\b", re.IGNORECASE)


def asks_around(question: str) -> bool:
    """Return whether a question asks who lives in a place or what lies in it (the places within matter)."""
    return bool(_RESIDENTS.search(question) or _CONTENTS.search(question))


_LIVING = frozenset(
    {"lives", "live", "lived", "dwell", "dwells", "reside", "resides", "residents", "inhabitants", "dwellers"}
)


def asks_residents(question: str) -> bool:
    """Return whether a question about a place asks who lives there (not what lies there)."""
    return bool(set(question.casefold().replace("?", " ").split()) & (_LIVING | {"people", "folk"}))


def _match(entity_id: int, name: str) -> EntityMatch:
    return EntityMatch(entity_id=entity_id, matched=name, window=name, score=_AROUND_SCORE)


def asks_happened(question: str) -> bool:
    """Return whether a question asks what happened at a place (the places within it matter: a region's towns)."""
    return bool(_HAPPENED.search(question))


def found_around(fact: CanonFact) -> bool:
    """Return whether a card is one `around` found (a place within or holding the one asked), not one named."""
    return fact.match_score <= _AROUND_SCORE


def asks_where(question: str) -> bool:
    """Return whether a question asks where something is (the places holding a place matter), or which place of
    a kind holds it ("which region is Cinderkirk in", "Cinderkirk is in which region")."""
    return bool(_WHERE.search(question)) or kind_where(question) is not None


def kind_where(question: str) -> str | None:
    """Return the kind of place a question asks holds something, as one word ("region"), or None."""
    for pattern in _KIND_WHERE:
        if (found := pattern.search(question)) is not None:
            word = found[1].casefold()
            return f"{word[:-3]}y" if word.endswith("ies") else word.removesuffix("s")
    return None


async def around(reader: CanonReader, question: str, ranked: Sequence[EntityMatch]) -> list[EntityMatch]:
    """Return the places within the place a residents' or contents' question names first, or those holding the
    place a where-question names first, as matches after the named ones; none for any other question."""
    beasts = asks_creatures(question)  # the creatures there too (`answer_creatures`)
    down = asks_around(question) or asks_happened(question) or beasts
    if not ranked or not (down or asks_where(question)):
        return []
    try:
        card = await reader.card(ranked[0].entity_id, with_evidence=False)
    except GameError:
        return []
    if not reader.ontology.is_a(card.entity.type, _PLACES):
        return []
    seen = {m.entity_id for m in ranked}
    found: list[EntityMatch] = []
    residents = down and asks_residents(question)
    queue = [card]
    while queue and len(found) < _MOST:
        place = queue.pop(0)
        me = place.entity.id
        for view in place.relations:
            if view.object is None:
                continue
            lives = "INHABITS" if beasts else "LIVES_IN"
            if (residents or beasts) and view.statement.predicate.upper() == lives and view.object.id == me:
                # Those living there, read too: the dead among them no longer live there.
                if view.subject.id not in seen:
                    seen.add(view.subject.id)
                    found.append(_match(view.subject.id, view.subject.name))
                continue
            if view.statement.predicate.upper() != "PART_OF":
                continue
            other = view.subject if down and view.object.id == me else None
            if not down and view.subject.id == me:
                other = view.object
            if other is None or other.id in seen:
                continue
            seen.add(other.id)
            found.append(_match(other.id, other.name))
            try:
                queue.append(await reader.card(other.id, with_evidence=False))
            except GameError:
                continue
    return found
