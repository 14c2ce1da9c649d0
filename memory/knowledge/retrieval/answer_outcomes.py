"""How an event ended, as canon states it or its description tells: who won a battle, what a treaty's terms were.

Canon states it in a timeline's `winner` (WON ties), `outcome` and `terms`, or in a fact the GM typed ("winner:
…"): those are read first ("At the Battle of Otter Ford, the winner was the Reed Clans").

A world-builder rarely types a battle's victor or a treaty's clauses as facts: the event's description says them
("The Reed Clans won the day and drove the Iron Host back across the river"; "By its terms the Iron Host keeps
the hill forts, …"). So:
- "Who won the battle of X?", "who won at X?" (the events at a place, `happenings.at_place`), "who lost …": the
  description's sentence saying who won, said of the event by name ("At the Battle of Otter Ford, the Reed Clans
  won the day …"); an event whose description says no victor is answered with that, and who took part;
- "What are the terms of the Treaty of X?", "what did the treaty say?": the sentences saying what was agreed,
  said of the treaty by name ("Under the Treaty of Hythe, the Iron Host keeps the hill forts, …"); of a treaty
  canon says no terms of (as the asker may see it), its outcome, as what is known of what it settled.
Only the cards the asker may read are read: a GM-only event is no card of a player's, and answers as none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import attribute_words
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_lives import asks_how_died
from memory.knowledge.retrieval.answer_words import sentences
from memory.knowledge.retrieval.happenings import asks_who_won
from memory.knowledge.retrieval.told_truths import told_beside

__all__ = ["outcome_answer", "said_of"]

#: A sentence saying who won: a victory, a side beaten or put to flight.
_VICTORY = re.compile(
    r"\b(?:won|wins?|winning|victor(?:y|ies|ious|s)?|prevail(?:ed|s)?|triumph(?:ed|s)?|defeat(?:ed|s)?|"
    r"routed?|vanquish(?:ed|es)?|overc(?:a|o)me|beat(?:en)?|carried\s+the\s+(?:day|field)|"
    r"drove\s+(?:\w+\s+){1,4}(?:back|off|out)|put\s+(?:\w+\s+){1,4}to\s+flight|lost|fled|surrender(?:ed)?|"
    r"broke\s+the|broken\s+by|lifted\s+by|relieved\s+by|fell\s+to|captured|seized|conquered|overran|"
    r"took\s+the\s+(?:day|field|city|town|castle|keep|fort|hill|walls?|gate))\b",
    re.IGNORECASE,
)
#: Sentences naming a victory outright weigh more than those telling only of a flight or a loss.
_PLAIN_VICTORY = re.compile(r"\b(?:won|victor\w*|prevail\w*|triumph\w*|defeat\w*|routed?)\b", re.I)

#: Asking how an event ended, which a victory answers: "what was the outcome of …", "how did … end".
_ENDED = re.compile(
    r"^\s*(?:what\s+(?:was|is)\s+the\s+(?:outcome|result|upshot)\s+of|"
    r"how\s+did\s+.+?\s+(?:end|turn\s+out|go)\s*\??$|who\s+(?:was|were)\s+the\s+(?:victors?|winners?))",
    re.IGNORECASE,
)
_TERMS = re.compile(
    r"\bterms?\b|\bconditions?\b|\bclauses?\b|\bwhat\s+(?:did|does)\b.+\b(?:say|said|agree|state|decree|"
    r"settle|grant|promise|give|require|demand|establish|decide|guarantee|stipulate|provide|do)\b|\bwhat\s+(?:was|were)\s+agreed\b|"
    r"^\s*what\s+(?:was|is)\s+in\b",
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
#: Typed facts of an event saying who won it, or what it agreed.
_WINNER_FACTS = re.compile(r"winners?|victors?|won[\s_]+by|victorious|outcome|result", re.IGNORECASE)
_TERMS_FACTS = re.compile(r"terms|conditions|clauses|provisions|articles", re.IGNORECASE)
_BY_TERMS = re.compile(r"^(?:by|under)\s+(?:its|the(?:se)?|their)\s+terms,?\s+", re.IGNORECASE)
#: A sentence opening on the event's kind rather than its name ("The treaty ceded …", "The battle ended …").
_KIND = re.compile(
    r"^(?:the|this)\s+(?:treaty|pact|accord|agreement|compact|truce|peace|charter|alliance|battle|siege|fight|"
    r"war|duel|skirmish|raid|clash|rebellion|revolt|uprising)\s+",
    re.IGNORECASE,
)
_ITS = re.compile(r"^its\s+", re.IGNORECASE)
_IT = re.compile(r"^it\s+", re.IGNORECASE)


#: Words that open a sentence with a capital they lose after a lead-in ("Dozens of reed-cutters were slain").
_COMMON_LEAD = re.compile(
    r"^(?:The|A|An|Some|Many|Most|All|Half|Dozens|Hundreds|Scores|Few|Several|No|None|Both|Each|Every|Two|Three|"
    r"Four|Five|Ten|Twenty|Soldiers|Men|Folk|Raiders|Riders)\s"
)


def _lowered(sentence: str) -> str:
    """Return a sentence as it reads after a lead-in: its article or common opening word in lower case ("the Reed
    Clans won …", "dozens of reed-cutters were slain"); a name as written."""
    return sentence[0].lower() + sentence[1:] if _COMMON_LEAD.match(sentence) else sentence


def said_of(event: str, sentence: str, lead: str) -> str:
    """Return a description's sentence said of its event by name: as written when it names it, its "it" or
    "its" the event's name, else after a lead-in naming it ("At the Battle of Otter Ford, the Reed Clans …")."""
    text = sentence.strip().rstrip(".")
    named = in_prose(event, "Event")
    opens = named[0].upper() + named[1:]
    if event.casefold() in text.casefold():
        return text
    kind = _KIND.match(text)
    if kind:  # "The treaty ceded …": "The Treaty of Hythe ceded …"
        return f"{opens} {text[kind.end() :]}"
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


def _winner(
    facts: Sequence[CanonFact], events: Sequence[tuple[int, CanonFact]], *, sure: bool = True
) -> tuple[str, int] | None:
    """Return the sentence of each event saying who won, else that nothing says (with who took part in the
    event named; of a place, that none of its events says)."""
    said: list[str] = []
    first = 0
    for number, event in events:
        found = [s for s in _told(event) if _VICTORY.search(s)]
        found.sort(key=lambda s: not _PLAIN_VICTORY.search(s))
        typed = _typed_winner(event)
        if typed:  # "winner: the Reed Clans", typed rather than told
            said.append(f"{typed}. [{number}]")
        elif found:
            said.append(f"{said_of(event.entity_name, found[0], 'At')}. [{number}]")
        first = first or (number if typed or found else 0)
    if said or not sure:
        return (" ".join(said), first) if said else None
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


#: A typed fact saying how an event ended rather than who won it.
_OUTCOME = re.compile(r"outcome|result", re.IGNORECASE)


def _typed_winner(event: CanonFact) -> str | None:
    """Return who won an event as canon states it: its WON ties (a timeline's `winner`), with how it ended when a
    typed fact says so ("At the Battle of Otter Ford, the winner was the Reed Clans, and the outcome was …"), else
    a typed fact alone ("At …, the outcome was a truce"), or None."""
    named = in_prose(event.entity_name, "Event")
    winners = event.tied("WON")
    typed = event.typed(_WINNER_FACTS)
    said = f"{attribute_words(typed[0])} was {in_prose(typed[1]).rstrip('.')}" if typed else None
    if not winners:
        return f"At {named}, the {said}" if said else None
    won = (
        f"the winner was {names_list(winners)}"
        if len(winners) == 1
        else f"the winners were {names_list(winners)}"
    )
    also = f", and the {said}" if said and typed and _OUTCOME.fullmatch(typed[0]) else ""
    return f"At {named}, {won}{also}"


def _terms(events: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    for number, event in events:
        typed = event.typed(_TERMS_FACTS)
        if typed:  # "terms: …", typed rather than told
            named = in_prose(event.entity_name, "Event")
            # "Under the Treaty of Kessa, the Brine Compact pays …": the terms as a sentence, never pasted raw.
            return f"Under {named}, {_lowered(typed[1].strip().rstrip('.'))}. [{number}]", number
        told = _told(event)
        agreed = [s for s in told if re.search(r"\bterms?\b", s, re.I)] or [
            s for s in told if _AGREED.search(s)
        ]
        if agreed:
            said = " ".join(f"{said_of(event.entity_name, s, 'Under')}." for s in agreed[:2])
            return f"{said} [{number}]", number
    return _outcome(events)


def _outcome(events: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    """Return the outcome of the first event asked its terms that canon says no terms of (as the asker may see
    it): what is known of what it settled, as of a world that never wrote any terms."""
    for number, event in events:
        outcome = (attribute_value(event, "outcome") or "").strip().rstrip(".")
        if outcome:
            return (
                f"The outcome of {in_prose(event.entity_name, 'Event')} was {_lowered(outcome)}. [{number}]",
                number,
            )
    return None


def outcome_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who won an event or what a treaty's terms were, as its description says (see the module
    docstring), or None."""
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f)]
    if not events:
        return None
    if asks_who_won(question):
        return told_beside(_winner(facts, events), events[0][1], "outcome")
    if _ENDED.search(question) and not asks_how_died(question):
        # "how did the battle end": the victor when a sentence says one ("how did X meet his end" is a death);
        # the GM is told what players are told beside the true outcome
        return told_beside(_winner(facts, events, sure=False), events[0][1], "outcome")
    if _TERMS.search(question):
        return _terms(events)
    return None
