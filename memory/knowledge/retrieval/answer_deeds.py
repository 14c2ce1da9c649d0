"""Yes/no questions about taking part: "Did Harrak fight at Cindershoal?", "Was Ilin at the Battle of Cindershoal?".

Canon says who took part in an event (`PARTICIPATED_IN`) and where an event took place (`OCCURRED_AT`); the cards
found hold both, as far as the asker may see them. A question naming someone and an event (or a place where events
took place) is answered "Yes: …" with the event (and its place and day) when canon holds it. When canon does not,
the answer says so and what canon does say (who took part), never "No": canon lists who took part, not who did not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import relation_sentence
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_words import fold_words, has_word

__all__ = ["took_part_answer"]

_YES_NO = re.compile(r"^\s*(?:did|was|were|has|had|is)\b")
#: Words asking whether someone took part, beside the names ("fight at", "present at", "in the battle").
_TAKING_PART = re.compile(
    r"\b(?:fight|fought|battle|take part|took part|part in|join|joined|present|there|at|in|attend|attended|"
    r"involved|serve|served|sail|sailed|march|marched)\b"
)

#: A death asked ("did Hild die in the sinking"): a question of a life, not of taking part.
_DYING = re.compile(r"\b(?:die|died|killed|slain|perish|perished)\b")


def _took_part(fact: CanonFact, event: str) -> bool:
    name = fact.entity_name.casefold()
    return any(
        r.predicate.upper() == "PARTICIPATED_IN"
        and r.subject.casefold() == name
        and r.object.casefold() == event
        for r in fact.relations
    )


def _events_at(place: CanonFact) -> list[str]:
    """Return the events that took place at a place, as its card holds them."""
    me = place.entity_name.casefold()
    return [
        r.subject
        for r in place.relations
        if r.predicate.upper() == "OCCURRED_AT" and r.object.casefold() == me
    ]


def _day_line(event: CanonFact, who: str) -> str | None:
    """Return the event card's sentence of someone taking part, with its day ("… took part in X on 12 …")."""
    head = relation_sentence("PARTICIPATED_IN", who, event.entity_name)
    return next((line for line in event.facts if line.startswith(head)), None)


def took_part_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return whether someone named took part in an event named, or in one at a place named (see the module
    docstring), or None when the question asks no such thing."""
    folded = question.casefold()
    if (
        not _YES_NO.match(folded)
        or not _TAKING_PART.search(folded)
        or _DYING.search(folded)
        or len(facts) < 2
    ):
        return None
    people = [(n, f) for n, f in enumerate(facts, 1) if (not is_event(f) and f.life is not None) or f.state]
    for number, person in people:
        for other in facts:
            if other is person:
                continue
            if is_event(other):
                events = [other.entity_name]
            else:
                events = _events_at(other)
                if not events:
                    continue
            done = [e for e in events if _took_part(person, e.casefold())]
            if done:
                said = _day_line(other, person.entity_name) if is_event(other) else None
                if said is None:
                    done_words = names_list(done, "Event")
                    said = relation_sentence("PARTICIPATED_IN", person.entity_name, done_words)
                    if not is_event(other):
                        said += f", at {other.entity_name}"
                return f"Yes: {said}. [{number}]", number
            if is_event(other):
                return _not_said(person, other, number)
            text = (
                f"Nothing the table knows says {person.entity_name} took part in "
                f"{names_list(events, 'Event')}, which took "
                f"place at {other.entity_name}"
            )
            return f"{text}. [{number}]", number
    return None


def _not_said(person: CanonFact, event: CanonFact, number: int) -> tuple[str, int]:
    """Return that canon does not say someone took part in an event, and who canon says did."""
    text = f"Nothing the table knows says {relation_sentence('PARTICIPATED_IN', person.entity_name, event.entity_name)}"
    others = event.tied("PARTICIPATED_IN")
    if others:
        text += f"; canon names {names_list(others)} as taking part"
    return f"{text}. [{number}]", number


#: A deed asked: "who crowned X", "what slew Y" (a verb in the past tense after who or what).
_DEED_ASKED = re.compile(
    r"^\s*(?:who|what)\s+(?P<verb>[a-z]{2,}ed|stole|took|gave|bought|sold|brought|found|hid|broke|built|"
    r"wrote|fought|sought|lost|slew|struck|bit|shot|sank|burnt|won|led|bound)\b"
)


def deed_verb(question: str) -> str | None:
    """Return the verb of a deed a question asks ("crowned" of "who crowned the Ember Queen"), or None."""
    found = _DEED_ASKED.match(question.casefold())
    return found["verb"] if found else None


def done_to(line: str, deed: str, fact: CanonFact) -> bool:
    """Tell whether a card's sentence says a deed done to the card's entity: its very verb (never a word of the
    same stem, "crowned" is no "Ember Crown"), then the entity's name or the words that found it ("Nell Quarrow
    killed Orrin Vaske" on Orrin's card; not "…, who crowned Odile" on the card of the one who crowned her)."""
    found = re.search(rf"\b{re.escape(deed)}\b(?P<after>.*)", line, re.IGNORECASE)
    if found is None:
        return False
    after = set(fold_words(found["after"]))
    return any(w in after for w in (*fold_words(fact.entity_name), *fold_words(fact.matched)))


def says_deed(sentence: str, question: str) -> bool:
    """Tell whether a sentence says the deed a question asks, done to the one it names: the very verb, then a
    word the question names after it ("who crowned Tamsin": "…, who crowned Tamsin"; never "mended Pell's crown"
    for "who crowned Pell"). A question that asks no deed is said by any sentence."""
    deed = deed_verb(question)
    if deed is None:
        return True
    found = re.search(rf"\b{re.escape(deed)}\b(?P<after>.*)", sentence, re.IGNORECASE)
    if found is None:
        return False
    asked = question.casefold().split(deed, 1)[1]
    named = [w for w in fold_words(asked) if w not in ("the", "a", "an", "of")]
    after = set(fold_words(found["after"]))
    return any(has_word(after, w) for w in named)
