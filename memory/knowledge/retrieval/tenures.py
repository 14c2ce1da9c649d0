"""Who led, ruled or held something over time: a faction's leaders one after another, an item's holders, a place's
lords. Canon says it as ties with spans (LEADS, RULES, POSSESSES valid from one date to another: a faction's
`leaders`, an item's `holders`) and as titles held for a span that name it ("Warden-Captain of the Gullwardens",
"Lady of Corvel Keep": `retrieval.offices`).

`card_holds` reads the ties with their spans off the card of what was held, as the asker may see them (a tie kept
for the GM is on no player's card); `tenure_holders` brings, for a question asking who led or ruled a faction or a
place named, the cards of everyone canon says held a title naming it, so their spans are among the facts;
`answer_tenures` answers from both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph.reader import CanonReader, facts_holding
from canon.models import EntityCard, Validity
from canon.wording import PLAIN, Wording
from canon.wording.tense import dated_span
from memory.knowledge.answer_models import Hold
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.offices import HELD_TITLE

__all__ = ["HELD_TIES", "asks_tenure", "card_holds", "tenure_holders"]

#: The ties held for a span, from the holder to what is held.
HELD_TIES = ("LEADS", "RULES", "POSSESSES")
#: The types whose leaders or lords over time a question may ask, by the titles naming them.
_TITLED_TYPES = ("Faction", "Lineage", "Location")
#: Words that ask who led, ruled or held something, and when.
_ASKS = re.compile(
    r"\b(?:lead|leads|led|leader|leaders|leading|head|heads|headed|rule|rules|ruled|ruler|rulers|reign\w*|"
    r"govern\w*|lord|lords|lady|ladies|before|after|preceded|succeeded|successor|predecessor|first|how\s+long|"
    r"in\s+(?:the\s+)?(?:year\s+)?-?\d+|current|currently|now|today)\b"
)
_MOST = 12
_SCORE = 86.0
_ARTICLES = frozenset({"the", "a", "an"})


def asks_tenure(question: str) -> bool:
    """Return whether a question asks who led, ruled or held something, or when ("who led X before Y")."""
    folded = " ".join(question.casefold().replace("’", "'").replace("?", " ").split())
    return bool(re.match(r"^\s*(?:who|whom|how\s+long)\b", folded)) and _ASKS.search(folded) is not None


def card_holds(card: EntityCard, words: Wording = PLAIN, now: int | None = None) -> tuple[Hold, ...]:
    """Return who the card says led, ruled or held its entity (`HELD_TIES`, it the tie's object), in the order they
    began, each with its span as the asker may read it: over when it ended before today, held today otherwise."""
    me = card.entity.id
    found: list[Hold] = []
    for view in card.relations:
        s = view.statement
        if s.predicate.upper() not in HELD_TIES or s.object_id != me or view.subject is None:
            continue
        v = s.validity
        start, end, ended, current = dated_span(words, v, now)
        found.append(
            Hold(
                holder=view.subject.name,
                predicate=s.predicate.upper(),
                start_key=start,
                end_key=end,
                span=words.span(Validity(world_from=v.world_from, world_until=v.world_until))
                if start is not None or end is not None
                else "",
                ended=ended,
                current=current,
            )
        )
    found.sort(key=lambda h: (h.start_key is None, h.start_key or 0))
    return tuple(found)


async def tenure_holders(
    reader: CanonReader, question: str, named: Sequence[EntityMatch]
) -> list[EntityMatch]:
    """Return, for a question asking who led or ruled a faction or a place it names (`asks_tenure`), those canon
    says held a title naming it for a span (the asker may see), as matches found by that title; of a place no
    title names, the group seated there and the holders of titles naming it. None otherwise."""
    if not asks_tenure(question) or not named:
        return []
    have = {m.entity_id for m in named}
    entities = await reader.entities([m.entity_id for m in named[:3]])
    found: list[EntityMatch] = []
    for match in named[:3]:
        entity = entities.get(match.entity_id)
        if entity is None or not reader.ontology.is_a(entity.type, _TITLED_TYPES):
            continue
        titled = await _titled(reader, entity.name, have)
        found += titled
        if not titled and reader.ontology.is_a(entity.type, ("Faction", "Lineage")):
            found += await _led_as(reader, entity.id, have)  # "Grand Master": the title its leader holds
        if titled or not reader.ontology.is_a(entity.type, ("Location",)):
            continue
        # A place no title names: ruled by whoever led the group seated there ("who ruled Fenholt in 420").
        seats = await reader.statements(predicates=["SEAT_OF"], subject_ids=[entity.id], with_evidence=False)
        groups = await reader.entities([s.object_id for s in seats if s.object_id is not None])
        for group in groups.values():
            if group.id not in have:
                have.add(group.id)
                found.append(
                    EntityMatch(entity_id=group.id, matched=group.name, window=group.name, score=_SCORE)
                )
            found += await _titled(reader, group.name, have)
    return found[:_MOST]


async def _led_as(reader: CanonReader, group_id: int, have: set[int]) -> list[EntityMatch]:
    """Return those canon says held, for a span, a title the group's leader holds ("Grand Master"), as matches
    found by that title (the answer keeps the group's own members)."""
    led = await reader.statements(predicates=["LEADS"], object_ids=[group_id], with_evidence=False)
    leaders = [s.subject_id for s in led]
    held = (
        await reader.statements(predicates=[HELD_TITLE], subject_ids=leaders, with_evidence=False)
        if leaders
        else []
    )
    found: list[EntityMatch] = []
    for title in dict.fromkeys(s.value or "" for s in held):
        bare = " ".join(w for w in fold_words(title) if w not in _ARTICLES)
        for statement in await facts_holding(reader, (HELD_TITLE,), [bare]) if bare else []:
            said = statement.value or ""
            if (
                statement.subject_id in have
                or " ".join(w for w in fold_words(said) if w not in _ARTICLES) != bare
            ):
                continue
            have.add(statement.subject_id)
            found.append(EntityMatch(entity_id=statement.subject_id, matched=said, window=said, score=_SCORE))
    return found[:_MOST]


async def _titled(reader: CanonReader, name: str, have: set[int]) -> list[EntityMatch]:
    """Return those canon says held a title naming `name` for a span (the asker may see), as matches found by
    that title; each once (`have`)."""
    bare = " ".join(w for w in fold_words(name) if w not in _ARTICLES)
    found: list[EntityMatch] = []
    for statement in await facts_holding(reader, (HELD_TITLE,), [bare]) if bare else []:
        if statement.subject_id in have or len(found) >= _MOST:
            continue
        have.add(statement.subject_id)
        title = statement.value or ""
        found.append(EntityMatch(entity_id=statement.subject_id, matched=title, window=title, score=_SCORE))
    return found
