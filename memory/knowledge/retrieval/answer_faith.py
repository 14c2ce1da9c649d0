"""Whom someone worships, and who worships a god, from the cards as the asker may see them:

- "Who does Mara Quell worship?", "what is Mara's religion (faith)?", "which gods does Mara pray to?": a person's
  gods (the WORSHIPS ties of their `worships:`) and the words naming no god ("the old gods"), as their fact
  `religion` keeps them: "Osric Vane worships the Tide Mother and the old gods.";
- "Who worships the Tide Mother?", "who prays to Saint Orla?": everyone the god's card says WORSHIPS it (people,
  groups, peoples): "Mara Quell and Osric Vane worship the Tide Mother."

A faith kept for the GM (`gm_only: [worships]`) is on no player's card: the question reads as of one whose file
never said it (None here, and the other forms answer as they would).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["faith_answer"]

_WORSHIPS = "WORSHIPS"
_PEOPLE = frozenset({"Person", "NPC", "PC"})
_RELIGION = re.compile(r"religion")
#: "who worships X", "who prays to X", "who follows X" (a god named).
_WHO_WORSHIPS = re.compile(
    r"^\s*(?:who|which\s+\w+|what\s+\w+)\s+(?:worships?|worshipp?ed|prays?\s+to|prayed\s+to|reveres?)\b"
)
#: "who does X worship", "what is X's religion", "which gods does X pray to", "X's faith".
_WHOM = re.compile(
    r"\b(?:(?:does|did|do)\b.*\b(?:worship|pray\s+to|revere)|religion|faith|(?:gods?|goddess|deity)\s+(?:does|did))\b"
)


def faith_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return whom the person named worships, or who worships the god named (see the module docstring), or
    None."""
    folded = " ".join(question.casefold().replace("’", "'").split())
    if _WHO_WORSHIPS.match(folded):
        return _worshippers(facts)
    if _WHOM.search(folded):
        return _gods(facts)
    return None


def _worshippers(facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who worships the first god named that any reader-visible card says is worshipped."""
    for number, fact in enumerate(facts, 1):
        if fact.entity_type != "Deity":
            continue
        who = fact.tied(_WORSHIPS)
        if not who:
            continue
        verb = "worships" if len(who) == 1 and not who[0].startswith("The ") else "worship"
        return f"{names_list(who, opens=True)} {verb} {in_prose(fact.entity_name)}. [{number}]", number
    return None


def _gods(facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return whom the first person named worships: the gods they are tied to, then the words of their
    `religion` naming none."""
    for number, fact in enumerate(facts, 1):
        if fact.entity_type not in _PEOPLE:
            continue
        gods = fact.tied(_WORSHIPS, to_me=False)
        said = fact.typed(_RELIGION)
        known = {g.casefold() for g in gods}
        words = [w.strip() for w in said[1].split(", ")] if said else []
        gods += [w for w in words if w and w.casefold() not in known]
        if not gods:
            continue
        return f"{fact.entity_name} worships {names_list(gods)}. [{number}]", number
    return None
