"""How someone died, told by the event a file says they died in (a timeline event's `deaths:`, DIED_IN): "how did
Tamsin die?" of one whose card says no cause is answered with the death in that event and its day in the
calendar's words, then the event's own telling of it, each sentence citing its card ("Tamsin Vey died in the
Drowning at the Grey Ford on 2 Thawmoon, year 345 of the Third Age. [1] Tamsin Vey was swept from her ferry in the
spring flood … [2]"). The event's card is read beside the question (`happenings.death_events`); only what the asker
may see is on it, so a death kept for the GM is none to a player. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import sentences
from memory.knowledge.retrieval.named_in import names_one

__all__ = ["died_in_event"]

_ON = re.compile(r" took place (?P<when>(?:on|in) .+)$")


def _told(event: CanonFact, name: str) -> str | None:
    """Return the sentence of the event's description naming the one who died in it, or None."""
    head = f"{possessive(event.entity_name)} description: "
    described = event.description or next((f[len(head) :] for f in event.facts if f.startswith(head)), "")
    for sentence in sentences(described):
        if names_one(sentence, name):
            return sentence.strip().rstrip(".")
    return None


def died_in_event(fact: CanonFact, number: int, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how and when one died as the event they died in tells it (see the module docstring), or None when
    canon puts them in no such event, or its card is not read."""
    for name in reversed(fact.tied("DIED_IN", to_me=False)):
        event = next((f for f in facts if f.entity_name == name and f.entity_type == "Event"), None)
        if event is None:
            continue
        when = next((m["when"] for line in event.facts if (m := _ON.search(line))), None)
        said = f"{fact.entity_name} died in {in_prose(name, 'Event')}" + (f" {when}" if when else "")
        told = _told(event, fact.entity_name)
        at = facts.index(event) + 1
        if told is None:
            return f"{said}. [{at}]", at
        return f"{said}. [{number}] {told}. [{at}]", at
    return None
