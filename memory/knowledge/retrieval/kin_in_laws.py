"""A person's in-laws as a whole ("Who are Brannoc's in-laws?", "who are the in-laws of Tove?"): the
parents-in-law, siblings-in-law and children-in-law `kin_far` walks, each tie in its own sentence with the chain
it runs through ("Brannoc Corrow's father-in-law is Rothgar Vell (his wife Liane Vell's father); …"), or that
nothing the table knows names one. Every step is read as the asker may see it: a marriage kept for the GM gives a player no in-law.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_halves import listing

__all__ = ["in_laws_answer"]

_ASKED = re.compile(
    r"^\s*(?:who\s+(?:are|were|is)|name|list|tell\s+me)\s+(?:the\s+)?(?:(?P<owner>.+?)(?:'s|s'|')\s+in[\s-]*laws"
    r"|in[\s-]*laws\s+of\s+(?P<of>.+?))\s*[?.!]*\s*$",
    re.I,
)
#: The ties that make one's in-laws, nearest first.
_TIES = ("parents-in-law", "siblings-in-law", "children-in-law")


def in_laws_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return a person's in-laws (see the module docstring), or None of another question."""
    found = _ASKED.match(question.replace("’", "'"))
    if found is None:
        return None
    asked = (found["owner"] or found["of"] or "").casefold()
    people = [
        f for f in facts if f.kin is not None and re.search(rf"\b{re.escape(f.matched.casefold())}\b", asked)
    ]
    if not people:
        return None
    owner = max(people, key=lambda f: len(f.matched))
    kin, name, number = owner.kin, owner.entity_name, facts.index(owner) + 1
    assert kin is not None
    parts = []
    for tie in _TIES:
        names = list(kin.ties.get(tie, ()))
        if names:
            sexes = {kin.sexes.get(n) for n in names}
            parts.append(listing(name, kin, tie, sexes.pop() if len(sexes) == 1 else None, names))
    if not parts:
        return f"Nothing the table knows names in-laws of {name}. [{number}]", number
    return f"{'; '.join(parts)}. [{number}]", number
