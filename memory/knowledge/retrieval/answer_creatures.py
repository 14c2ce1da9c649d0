"""Creatures of a place: "Are there any dangerous beasts in the Mirefen?", "What lives in the Mirefen?", "what
monsters roam the Dry Downs?".

Answered from the creatures canon says inhabit the place or a place within it (a bestiary's `habitat`: the
relation INHABITS; a town of a region counts for the region, `places.around` reads the places within and the
creatures there, each card as the asker may see it), each with its description, then the places' own
descriptions telling of beasts there ("Gorse Hollow: Wild dogs hunt the gorse at dusk"), then the world bible's
sentences naming the place or a place within it that tell of beasts living or hunting there ("Marsh-wights haunt
the pools below Sallow Stair …"), from passages the asker may read; else nothing known. Whether a beast is
dangerous is left to the description: canon has no such field, and the answer never guesses one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import nothing_known, numbered
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_sizes import counts_people
from memory.knowledge.retrieval.answer_words import sections_of, sentences
from memory.knowledge.retrieval.creature_words import BEASTS, DWELLS, asks_creatures

__all__ = ["creatures_answer"]

#: A sentence telling of beasts in a place: a creature's word, or a verb of living, haunting or hunting.
_TELLS = re.compile(rf"\b(?:{BEASTS}|{DWELLS}|haunted|infest\w*|swarm\w*|wolves|wolf|dens?|lairs?)\b", re.I)
_PLACES = frozenset({"Location", "Region"})


def _names(sentence: str, name: str) -> bool:
    """Tell whether a sentence names a place: its whole name, "the" aside."""
    bare = re.sub(r"^the\s+", "", name, flags=re.I)
    return re.search(rf"\b{re.escape(bare)}\b", sentence, re.I) is not None


def creatures_answer(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the creatures of the place asked (see the module docstring), or None when the question asks no
    such thing or names no place."""
    if not asks_creatures(question):
        return None
    place = next((f for f in facts if f.entity_type in _PLACES), None)
    if place is None:
        return None
    citations = numbered(facts, results)
    places = [f for f in facts if f.entity_type in _PLACES]
    said: list[str] = []
    cited: list[int] = []
    listed: set[str] = set()
    for where in places:
        for name in where.tied("INHABITS"):
            if name.casefold() in listed:
                continue
            listed.add(name.casefold())
            beast = next((f for f in facts if f.entity_name.casefold() == name.casefold()), None)
            number = facts.index(beast if beast is not None else where) + 1
            at = in_prose(where.entity_name)
            if where is not place:
                at = f"{at}, in {in_prose(place.entity_name)}"
            told = (
                (beast.description or attribute_value(beast, "description") or "")
                if beast is not None
                else ""
            )
            told = told.strip().rstrip(".")
            lead = name[:1].upper() + name[1:]
            said.append(
                f"{lead} lives in {at}{': ' + told[:1].lower() + told[1:] if told else ''}. [{number}]"
            )
            cited.append(number)
    for where in places:  # a place's own description telling of beasts there ("Wild dogs hunt the gorse")
        description = where.description or attribute_value(where, "description") or ""
        for sentence in sentences(description):
            if _TELLS.search(sentence) and not counts_people(sentence):
                said.append(
                    f"{where.entity_name}: {sentence.strip().rstrip('.')}. [{facts.index(where) + 1}]"
                )
                cited.append(facts.index(where) + 1)
    for number, sentence in _told(results, len(facts) + 1, [p.entity_name for p in places]):
        if not any(n in sentence.casefold() for n in listed):
            said.append(f"{sentence.rstrip('.')}. [{number}]")
            cited.append(number)
    if not said:
        return ShortAnswer(
            text=nothing_known(question), mode=AnswerMode.NOTHING, known=False, citations=citations
        )
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in citations]
    return ShortAnswer(text=" ".join(said), mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)


def _told(results: Sequence[LoreResult], offset: int, places: Sequence[str]) -> list[tuple[int, str]]:
    """Return the sentences of the fact passages naming one of the places and telling of beasts there (not
    counting its people), each once, with its passage's number."""
    found: list[tuple[int, str]] = []
    for number, result in enumerate(results, offset):
        if not result.is_fact:
            continue
        for _, text in sections_of(result.text):
            for sentence in sentences(text):
                if (
                    any(_names(sentence, p) for p in places)
                    and _TELLS.search(sentence)
                    and not counts_people(sentence)
                    and sentence not in (s for _, s in found)
                ):
                    found.append((number, sentence))
    return found
