"""Canon questions that ask where, when, whether alive, or who someone is: answered from a card's sentences.

A card's facts are sentences already, with when they hold in the calendar's words (`entities.card_facts`:
"The Battle of Red Ford took place at Red Ford", "Aldric Vyr is dead (since year 352 of the Third Age)"). The
question's words rarely are the card's ("Where was the battle *fought*?"), so the kind of question picks the
sentence: a where-question a sentence placing the entity, a when-question one dated, an is-alive question one
saying its state (answered yes or no first); "Who is X?" gets what X is and two of the facts that matter most
(its state, what it is, where it is), never the whole card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences

__all__ = ["asked_kind", "kind_answer", "who_answer"]

_WHERE = re.compile(
    r"\b(?:took place at|took place in|is in|lives in|is at|is the seat of|happened at|happened in)\b"
)
_WHEN = re.compile(r"\((?:[^)]*\d[^)]*)\)|\btook place during\b|\bsince\b")
_STATE = re.compile(r"\bis (alive|dead|missing|destroyed|lost|imprisoned|cursed|undead)\b")
_DEAD = frozenset({"dead", "destroyed", "lost", "undead"})
#: Words that only say how a where/when/alive question is put ("where was it *fought*").
_EVENT_WORDS = frozenset(
    {
        *(
            "fought",
            "held",
            "happen",
            "happened",
            "take",
            "took",
            "place",
            "located",
            "live",
            "lives",
            "still",
        ),
        *("alive", "living", "dead", "die", "died", "born", "founded", "built", "year", "date", "time"),
    }
)


def asked_kind(question: str) -> str | None:
    """Return what a canon question asks: "where", "when", "alive", or None."""
    folded = question.casefold()
    if re.match(r"^\s*where\b", folded):
        return "where"
    if re.match(r"^\s*when\b", folded) or re.search(r"\bwhat (?:year|date|age)\b", folded):
        return "when"
    if re.search(r"\b(?:alive|dead|living|died|still live)\b", folded):
        return "alive"
    return None


def _named(fact: CanonFact, question: str) -> bool:
    """Return whether the question's remaining words (asking words aside) all name this entity."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    rest = [w for w in fold_words(question) if w not in _EVENT_WORDS and len(w) > 2]
    from memory.knowledge.retrieval.answer_words import key_words

    keys = set(key_words(question))
    return all(has_word(named, w) for w in rest if w in keys)


def kind_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the card sentence answering a where/when/is-alive question about the entity named, or None."""
    kind = asked_kind(question)
    if kind is None:
        return None
    for number, fact in enumerate(facts, 1):
        if not _named(fact, question):
            continue
        for line in fact.facts:
            if kind == "where" and _WHERE.search(line):
                return f"{line}. [{number}]", number
            if kind == "when" and _WHEN.search(line):
                return f"{line}. [{number}]", number
            state = _STATE.search(line) if kind == "alive" else None
            if state is not None:
                yes = "No" if state.group(1) in _DEAD else "Yes" if state.group(1) == "alive" else None
                said = f"{yes}: {line}" if yes else line
                return f"{said}. [{number}]", number
    return None


def who_answer(fact: CanonFact, number: int) -> str | None:
    """Return who or what an entity is: its description's first sentence and two facts that matter, or None."""
    said = sentences(fact.description or "")[:1]
    state = [f for f in fact.facts if _STATE.search(f)][:1]
    place = [f for f in fact.facts if _WHERE.search(f) and f not in state][:1]
    others = [f for f in fact.facts if f not in state and f not in place]
    chosen = (state + place + others)[: 3 - len(said)] if said else (state + place + others)[:3]
    if not said and not chosen:
        return None
    parts = [s if s.endswith((".", "!", "?", "…")) else s + "." for s in [*said, *chosen]]
    head = parts[0]
    if fact.entity_name.casefold() not in head.casefold():
        head = f"{fact.entity_name}: {head}"
    return " ".join([head, *parts[1:]]) + f" [{number}]"
