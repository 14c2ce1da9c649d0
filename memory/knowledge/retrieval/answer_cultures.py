"""The culture a person is of: "What culture is Maudry Vell?", "what culture does Odric Vell belong to", "what people
is Hale Reedborn from".

A character's or a family tree member's `culture` is their MEMBER_OF tie to a Culture; the answer says it plainly
("Maudry Vell is of the Fenfolk culture.", "was" of the dead). A person whose culture the asker may not see, none
written or kept for the GM, reads one sentence alike ("Nothing the table knows says what culture Jossa Wick is
of."): a player learns nothing of what the GM keeps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["culture_answer"]

_PEOPLE = ("NPC", "PC", "Person")
_ASKED = re.compile(
    r"^\s*(?:what|which)\s+(?:culture|people|folk)\s+"
    r"(?:is|was|are|were|does|did|do)\s+(?P<who>.+?)"
    r"(?:\s+(?:belong\s+to|come\s+from|from|of|part\s+of|a\s+member\s+of|born\s+into|born\s+to))?\s*[?.!]*\s*$"
)


def _folded(name: str) -> str:
    return " ".join(name.replace("’", "'").casefold().split())


def culture_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the culture of the person the question names (see the module docstring), or None."""
    asked = _ASKED.match(question.replace("’", "'").casefold())
    if asked is None:
        return None
    who = _folded(asked["who"])
    for number, fact in enumerate(facts, 1):
        if fact.entity_type not in _PEOPLE or who not in (_folded(fact.matched), _folded(fact.entity_name)):
            continue
        me = fact.entity_name.casefold()
        cultures = list(
            dict.fromkeys(
                r.object
                for r in fact.relations
                if r.predicate.upper() == "MEMBER_OF"
                and r.object_type == "Culture"
                and r.subject.casefold() == me
            )
        )
        if not cultures:
            return f"Nothing the table knows says what culture {fact.entity_name} is of. [{number}]", number
        verb = "was" if fact.state == "dead" else "is"
        bare = names_list(
            [c.removeprefix("The ") for c in cultures]
        )  # "the Fenfolk culture", "the Tarnish culture"
        noun = "culture" if len(cultures) == 1 else "cultures"
        return f"{fact.entity_name} {verb} of the {bare} {noun}. [{number}]", number
    return None
