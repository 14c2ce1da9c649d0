"""How many people live in a place: "how many people live in X", "what is X's population", "how big is X".

A place's people are counted in a typed fact (the ontology's `population`: "Ashby's population: 200") or in a
sentence of its description that gives a number of people ("Some four thousand souls dwell within its walls").
The answer is that fact or that sentence, said of the place; where canon gives none, it says that nothing known
says how many live there (or how big it is), and what kind of place it is when canon says. Never the description's
other sentences: a market town's wool is no count of its people.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, sentences

__all__ = ["asks_size", "counts_people", "size_answer"]

_PEOPLE = (
    r"(?:people|persons|souls|folk|folks|inhabitants|residents|citizens|villagers|townsfolk|townsmen|households|"
    r"families|hearths|dwellers|men|women|mouths|fishers|farmers|families)"
)
_ASKS = re.compile(
    rf"\bpopulation\b|\bpopulous\b|\bhow\s+many\s+(?:{_PEOPLE}|\w+)\s+(?:(?:live|lives|living|dwell|dwells|reside|resides|inhabit|inhabits|"
    rf"are\s+there|are|is)\s+)?(?:in|at|on)\b|\bhow\s+many\s+{_PEOPLE}\s+(?:does|do|did|call|live|dwell|reside|"
    rf"are\s+there\s*\??$)|^\s*how\s+(?:big|large|small)\s+(?:is|was)\b|\bsize\s+of\b",
    re.IGNORECASE,
)
_NUMBER = (
    r"(?:\d[\d,.]*|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|score|few|several)(?:[\s-]+(?:and\s+)?"
    r"(?:one|two|three|four|five|six|seven|eight|nine|hundred|thousand|million|dozen|score|of))*)"
)
#: A sentence giving a number of people: "four thousand souls", "barely sixty folk", "the population is 9,000".
_COUNTED = re.compile(
    rf"\b{_NUMBER}\s+(?:\w+\s+)?{_PEOPLE}\b|\bpopulation\b[^.]*?\b{_NUMBER}\b|\b{_NUMBER}\b[^.]*?\bpopulation\b",
    re.IGNORECASE,
)
_POPULATION = re.compile(r"population|inhabitants|people|residents", re.IGNORECASE)
#: A sentence's verb: without one, a description's sentence says what the place is ("The great river city …").
_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|lives?|lived|dwells?|dwelt|holds?|held|numbers?|counts?|houses?|shelters?)\b"
)
_PLACES = frozenset({"Location", "Region", "Plane"})
_ARTICLE = re.compile(r"^(?:The|A|An|Some|About|Barely|Nearly|Almost|Over|Under|Perhaps|Roughly)\s")


def _said_of(place: str, sentence: str) -> str:
    """Return a description's sentence said of its place: as written when it names it, else after "In …"."""
    text = sentence.strip().rstrip(".")
    if place.casefold() in text.casefold():
        return text
    if re.match(r"^(?:A|An|The)\s", text) and not _VERB.search(text):
        return told_sentence(place, text)  # "The great river city of the south, home to …": what it is
    lowered = text[0].lower() + text[1:] if _ARTICLE.match(text) else text
    return f"In {in_prose(place)}, {lowered}"


def asks_size(question: str) -> bool:
    """Tell whether a question asks how many people live in a place, or how big it is."""
    return bool(_ASKS.search(question.replace("’", "'")))


def counts_people(sentence: str) -> bool:
    """Tell whether a sentence gives a number of people ("About forty thousand people live in …")."""
    return bool(_COUNTED.search(sentence))


def size_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how many people live in the place asked about (see the module docstring), or None when the
    question asks no such thing or names no place."""
    if not asks_size(question):
        return None
    asked = set(fold_words(question.replace("’", "'")))
    found = next(
        (
            (n, f)
            for n, f in enumerate(facts, 1)
            if f.entity_type in _PLACES and not is_event(f) and set(fold_words(f.matched)) <= asked
        ),
        None,
    )  # the place the question names (by its name or an alias), not one found beside it
    if found is None:
        return None
    number, place = found
    typed = place.typed(_POPULATION)
    if typed:  # "population: 200", typed rather than told
        return f"{possessive(place.entity_name)} {typed[0]} is {typed[1].rstrip('.')}. [{number}]", number
    told = sentences(place.description or attribute_value(place, "description") or "")
    counted = [s for s in told if counts_people(s)]
    if counted:
        return f"{_said_of(place.entity_name, counted[0])}. [{number}]", number
    if place.tied("LIVES_IN"):
        return None  # those canon says live there are named (`answer_places`): a count of its own
    name = in_prose(place.entity_name, place.entity_type)
    big = re.match(r"^\s*how\s+(?:big|large|small)\b", question, re.IGNORECASE)
    said = f"how big {name} is" if big else f"how many people live in {name}"
    kind = attribute_value(place, "type")
    what = f"; {place.entity_name} is {'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}" if kind else ""
    return f"Nothing the table knows says {said}{what}. [{number}]", number
