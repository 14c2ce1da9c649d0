"""A sentence told of an event, said so that it names the event: "What came of the Burning of Osk?" answered with
its description's "The reeves fled and never came back." reads "The Burning of Osk: The reeves fled and never came
back.", never the sentence alone (which burning?) nor the sentence read as what the event is ("The Burning of Osk
is the reeves fled …"). A sentence naming the event already (every word of its name but the small ones, in any
form: "the burning of Osk") stays as written."""

from __future__ import annotations

from canon.wording import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["names_event", "said_of_event", "told_of"]

_SMALL = frozenset({"the", "of", "a", "an", "at", "in", "on", "and"})


def names_event(text: str, name: str) -> bool:
    """Tell whether a text names the event: every word of its name but the small ones."""
    words = [w for w in fold_words(name) if w not in _SMALL]
    said = set(fold_words(text))
    return bool(words) and all(w in said for w in words)


def said_of_event(name: str, sentence: str) -> str:
    """Return a sentence of an event's, without its closing stop, naming the event (see the module docstring)."""
    text = sentence.strip().rstrip(".")
    if names_event(text, name):
        return text
    named = in_prose(name, "Event")
    return f"{named[:1].upper()}{named[1:]}: {text}"


def told_of(fact: CanonFact, sentence: str) -> str:
    """Return a sentence of a card's description said of its subject by name: an event's as above, anyone
    else's as `answer_told.told_sentence` says it ("She is known for …": "Ada Thorne is known for …")."""
    if is_event(fact):
        return said_of_event(fact.entity_name, sentence)
    return told_sentence(fact.entity_name, sentence)
