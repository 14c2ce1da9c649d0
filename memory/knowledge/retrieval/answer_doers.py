"""Who did a deed at an event, as the event's description says it: "who handed Ysolde the Pearl Crown at the
coronation", "who crowned Queen Ysolde".

An event's card holds those who took part in it, and its description may say who did what there ("Archbishop
Fenn handed Queen Ysolde the Pearl Crown before the whole city"). A question asking a deed (not who was there)
is answered by that sentence, said of the event ("At the Coronation of Queen Ysolde, Archbishop Fenn handed …"),
when the sentence holds every word the question asks besides the event's own (or the deed the event is named for:
"crowned" of a coronation) and opens with the doer: one canon names as taking part whom the question does not
name. Never the list of those who took part: the admiral at the coronation handed nothing. Without such a
sentence the question is left to the others (`answer_happenings`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import TAKING_PART, is_event
from memory.knowledge.retrieval.answer_outcomes import said_of
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sentences
from memory.knowledge.retrieval.happenings import EVENT_NOUNS, asks_who_was_there, does_deed

__all__ = ["doer_answer"]

#: The capitalised words opening a sentence: its subject when it is a name ("Archbishop Fenn handed …").
_OPENING_NAME = re.compile(r"^(?:The\s+)?((?:[A-Z][\w'’-]*\s+)*[A-Z][\w'’-]*)\s+[a-z]")

#: Deeds a table says in other words than the description ("gave" the crown it "handed").
_ALIKE = (
    frozenset(
        {"give", "gave", "given", "hand", "handed", "present", "presented", "bestow", "bestowed", "grant"}
    ),
    frozenset({"kill", "killed", "slew", "slain", "slay", "murder", "murdered", "cut", "struck"}),
)

#: Words of a question that ask no deed: the event's kind, and who is asked ("who's the *one* that …").
_IDLE = EVENT_NOUNS | {"one", "person", "guy", "actually", "exactly"}


def _holds(said: set[str], word: str) -> bool:
    """Tell whether a sentence's words hold a word asked, or a deed alike."""
    return has_word(said, word) or any(word in alike and said & alike for alike in _ALIKE)


def _doer(sentence: str, event: CanonFact, question: str) -> str | None:
    """Return who opens a sentence as its doer: one who took part in the event, unnamed by the question."""
    opening = _OPENING_NAME.match(sentence.strip())
    if opening is None:
        return None
    asked = set(fold_words(question))
    for who in event.tied("PARTICIPATED_IN"):
        words = fold_words(who)
        if fold_words(opening[1]) == [w for w in words if w != "the"] and not set(words) <= asked:
            return who
    return None


def doer_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the sentence of an event's description saying who did the deed asked (see the module docstring),
    or None."""
    if not re.match(r"^\s*who\b", question.casefold()) or asks_who_was_there(question):
        return None
    for number, fact in enumerate(facts, 1):
        if not is_event(fact):
            continue
        own = set(fold_words(fact.entity_name))  # what found it may be the deed asked ("crowned")
        others = {w for f in facts if f is not fact for w in fold_words(f.matched)}
        asked = [w for w in key_words(question) if not has_word(own, w) and w not in others]
        if not asked or any(w in TAKING_PART for w in asked):
            continue  # "who fought at …": who took part
        if all(w in _IDLE for w in asked):
            continue
        deeds = [w for w in asked if w not in _IDLE and not does_deed(w, fact.entity_name)]
        for sentence in sentences(fact.description or attribute_value(fact, "description") or ""):
            said = set(fold_words(sentence))
            if all(_holds(said, w) for w in deeds) and _doer(sentence, fact, question):
                return f"{said_of(fact.entity_name, sentence, 'At')}. [{number}]", number
    return None
