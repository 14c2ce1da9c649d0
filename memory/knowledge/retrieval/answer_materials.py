"""What a thing is made of: "What is the Dawn Lance made of?", "what are the Tolling Bells made from", "what
material is the Iron Crown".

The answer is the thing's `made_of` as its card says it ("The Dawn Lance is made of ash wood and silver."), never
who made it. A thing the asker may see no stuff of, none written or kept for the GM, reads the one sentence
"Nothing the table knows says what the Eel Hook is made of.": a player learns nothing of what the GM keeps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from canon.wording.relations import names_many
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["material_answer"]

_ASKED = re.compile(
    r"^\s*what(?:'s|\s+(?:is|are|was|were))\s+(?P<thing>.+?)\s+(?:made|forged|wrought|built|crafted|cast)"
    r"\s+(?:out\s+of|of|from)\s*[?.!]*\s*$"
    r"|^\s*what\s+(?:material|materials|stuff)\s+(?:is|are|was|were)\s+(?P<other>.+?)\s*"
    r"(?:made\s+(?:of|from)\s*)?[?.!]*\s*$"
)


def _folded(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.replace("’", "'").casefold().split()))


def material_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what the thing the question names is made of (see the module docstring), or None."""
    asked = _ASKED.match(question.replace("’", "'").casefold())
    if asked is None:
        return None
    thing = _folded(asked["thing"] or asked["other"])
    for number, fact in enumerate(facts, 1):
        if thing not in (_folded(fact.matched), _folded(fact.entity_name)):
            continue
        stuff = attribute_value(fact, "made of")
        verb = "are" if names_many(fact.entity_name) else "is"
        if stuff:
            made = names_list([s.strip() for s in stuff.split(",") if s.strip()])
            return f"{fact.entity_name} {verb} made of {made}. [{number}]", number
        if fact.entity_type == "Item":  # none written, or kept for the GM: one sentence alike
            name = in_prose(fact.entity_name)
            return f"Nothing the table knows says what {name} {verb} made of. [{number}]", number
    return None
