"""How an event ended: who won a battle, what a treaty's terms were, as canon states it or its description tells.

Canon may state it: a timeline's `winner` (WON ties), `outcome` and `terms` are read first, as written.

A world-builder rarely types a battle's victor or a treaty's clauses as facts: the event's description says them
("The Reed Clans won the day and drove the Iron Host back across the river"; "By its terms the Iron Host keeps
the hill forts, …"). So:
- "Who won the battle of X?", "who won at X?" (the events at a place, `happenings.at_place`), "who lost …": the
  description's sentence saying who won, said of the event by name ("At the Battle of Otter Ford, the Reed Clans
  won the day …"); an event whose description says no victor is answered with that, and who took part;
- "What are the terms of the Treaty of X?", "what did the treaty say?": the sentences saying what was agreed,
  said of the treaty by name ("Under the Treaty of Hythe, the Iron Host keeps the hill forts, …").
Only the cards the asker may read are read: a GM-only event is no card of a player's, and answers as none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_words import sentences
from memory.knowledge.retrieval.happenings import asks_who_won

__all__ = ["outcome_answer"]

#: A sentence saying who won: a victory, a side beaten or put to flight.
_VICTORY = re.compile(
    r"\b(?:won|wins?|winning|victor(?:y|ies|ious|s)?|prevail(?:ed|s)?|triumph(?:ed|s)?|defeat(?:ed|s)?|"
    r"routed?|vanquish(?:ed|es)?|overc(?:a|o)me|beat(?:en)?|carried\s+the\s+(?:day|field)|"
    r"drove\s+(?:\w+\s+){1,4}(?:back|off|out)|put\s+(?:\w+\s+){1,4}to\s+flight|lost|fled|surrender(?:ed)?|"
    r"broke\s+the)\b",
    re.IGNORECASE,
)
#: Sentences naming a victory outright weigh more than those telling only of a flight or a loss.
_PLAIN_VICTORY = re.compile(r"\b(?:won|victor\w*|prevail\w*|triumph\w*|defeat\w*|routed?)\b", re.I)

_TERMS = re.compile(
    r"\bterms?\b|\bconditions?\b|\bclauses?\b|\bwhat\s+(?:did|does)\b.+\b(?:say|said|agree|state|decree|"
    r"settle|grant|promise|give|require|demand)\b|\bwhat\s+(?:was|were)\s+agreed\b",
    re.IGNORECASE,
)
#: A sentence saying what was agreed.
_AGREED = re.compile(
    r"\b(?:terms?|agree\w*|cede[sd]?|ceding|grant\w*|pay(?:s|ing)?|paid|swore|sworn|swear\w*|promis\w*|"
    r"bound|binds?|shall|must|keeps?|kept|returns?|returned|yield\w*|surrender\w*|tribute|tithe|"
    r"withdraw\w*|gives?|gave|recogni[sz]\w*|forbid\w*|forbade|marr(?:y|ies|ied)|hand(?:s|ed)?\s+over|"
    r"peace|accord|truce|border|conditions?|clauses?)\b",
    re.IGNORECASE,
)
_BY_TERMS = re.compile(r"^(?:by|under)\s+(?:its|the(?:se)?|their)\s+terms,?\s+", re.IGNORECASE)
_ITS = re.compile(r"^its\s+", re.IGNORECASE)
_IT = re.compile(r"^it\s+", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:The|A|An)\s")


def _lowered(sentence: str) -> str:
    """Return a sentence as it reads after a lead-in: its article in lower case ("the Reed Clans won …")."""
    return sentence[0].lower() + sentence[1:] if _ARTICLE.match(sentence) else sentence


def _said_of(event: str, sentence: str, lead: str) -> str:
    """Return a description's sentence said of its event by name: as written when it names it, its "it" or
    "its" the event's name, else after a lead-in naming it ("At the Battle of Otter Ford, the Reed Clans …")."""
    text = sentence.strip().rstrip(".")
    named = in_prose(event, "Event")
    opens = named[0].upper() + named[1:]
    if event.casefold() in text.casefold():
        return text
    by_terms = _BY_TERMS.match(text)
    if by_terms:
        return f"Under {named}, {_lowered(text[by_terms.end() :])}"
    if _ITS.match(text):
        return f"{opens}'s {text[_ITS.match(text).end() :]}"  # type: ignore[union-attr]
    if _IT.match(text):
        return f"{opens} {text[_IT.match(text).end() :]}"  # type: ignore[union-attr]
    return f"{lead} {named}, {_lowered(text)}"


def _told(fact: CanonFact) -> list[str]:
    return sentences(fact.description or attribute_value(fact, "description") or "")


def _stated_outcome(event: CanonFact) -> str | None:
    """Return how an event ended as canon states it (a timeline's `winner` and `outcome`): "The Reed Clans won the
    Battle of Otter Ford.", "The Battle of Otter Ford's outcome: the Iron Host withdrew.", or None."""
    winners = event.tied("WON")
    outcome = attribute_value(event, "outcome")
    named = in_prose(event.entity_name, "Event")
    said = [f"{names_list(winners, opens=True)} won {named}."] if winners else []
    if outcome:
        said.append(f"{possessive(named[0].upper() + named[1:])} outcome: {outcome.rstrip('.')}.")
    return " ".join(said) or None


def _winner(facts: Sequence[CanonFact], events: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    """Return how each event ended as canon states it, else its description's sentence saying who won, else that
    nothing says (with who took part in the event named; of a place, that none of its events says)."""
    said: list[str] = []
    first = 0
    for number, event in events:
        stated = _stated_outcome(event)
        if stated:
            said.append(f"{stated} [{number}]")
            first = first or number
            continue
        found = [s for s in _told(event) if _VICTORY.search(s)]
        found.sort(key=lambda s: not _PLAIN_VICTORY.search(s))
        if found:
            said.append(f"{_said_of(event.entity_name, found[0], 'At')}. [{number}]")
            first = first or number
    if said:
        return " ".join(said), first
    place = next(
        ((n, f) for n, f in enumerate(facts, 1) if not is_event(f) and f.matched == events[0][1].matched),
        None,
    )
    if place is not None:  # "who won at Hythe Quay": none of the events there says a victor
        number, there = place
        return f"Nothing the table knows says who won at {in_prose(there.entity_name)}. [{number}]", number
    number, event = events[0]
    named = in_prose(event.entity_name, "Event")
    sides = event.tied("PARTICIPATED_IN")
    who = f"; canon names {names_list(sides)} as taking part" if sides else ""
    return f"Nothing the table knows says who won {named}{who}. [{number}]", number


def _terms(events: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    for number, event in events:
        stated = attribute_value(event, "terms")  # a timeline's `terms`
        if stated:
            named = in_prose(event.entity_name, "Event")
            return f"The terms of {named}: {stated.rstrip('.')}. [{number}]", number
        told = _told(event)
        agreed = [s for s in told if re.search(r"\bterms?\b", s, re.I)] or [
            s for s in told if _AGREED.search(s)
        ]
        if agreed:
            said = " ".join(f"{_said_of(event.entity_name, s, 'Under')}." for s in agreed[:2])
            return f"{said} [{number}]", number
    return None


def outcome_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who won an event or what a treaty's terms were, as its description says (see the module
    docstring), or None."""
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f)]
    if not events:
        return None
    if asks_who_won(question):
        return _winner(facts, events)
    if _TERMS.search(question):
        return _terms(events)
    return None
