"""Where someone comes from: the name they were born with, where they were born, the family they were born into.

- "What was Queen Ilvara's maiden name?", "what was X's name at birth?", "what was X born as?": a person's
  `birth_name` ("Ilvara Drevanne was born Ilvara Soth");
- "Where is Ilvara from originally?", "where was X born?", "what is X's birthplace?": their `birthplace`
  (BORN_IN: "Ilvara Drevanne was born in Yarrowby");
- "What family was Ilvara born into?", "what house was X born into?": the lineage they are a member of (one who
  married into another house stays a member of their own: "Ilvara Drevanne was born into House Soth").

Each is read from the card as the asker may see it: a field kept for the GM is no player's, and the question is
left to the other answers (a place a description gives, the passages).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.named_in import FORMER_NAME

__all__ = ["origin_answer"]

_BIRTH_NAME = re.compile(
    r"\b(?:maiden|birth|born|original|family)\s+(?:name|surname)\b|\bname\s+(?:at|before|from)\s+(?:birth|"
    r"marriage|she\s+wed|she\s+married|he\s+wed|he\s+married)\b|\bborn\s+as\b|\bwhat\s+was\s+.+\s+born\s*\??$"
    r"|\bn[eé]e\b",
    re.I,
)
_BIRTHPLACE = re.compile(
    r"^\s*where\s+(?:is|was|does|did)\s+.+?\s+(?:from|come\s+from|hail\s+from|born|hails\s+from)\b"
    r"|\b(?:birthplace|birth\s*place|place\s+of\s+birth|home\s*town|native\s+(?:town|land|city|village))\b",
    re.I,
)
_BORN_INTO = re.compile(
    r"\b(?:family|house|lineage|clan|line|dynasty|bloodline)\b.*\bborn\s+(?:into|to|of|in)\b"
    r"|\bborn\s+into\b|\bborn\s+(?:a|an)\s+[A-Z]",
    re.I,
)


def origin_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return where the person a question asks of comes from (see the module docstring), or None."""
    for number, fact in enumerate(facts, 1):
        if fact.entity_type not in ("Person", "NPC", "PC"):
            continue
        said = _said(question, fact)
        if said is not None:
            return f"{said}. [{number}]", number
    return None


def _said(question: str, fact: CanonFact) -> str | None:
    name = fact.entity_name
    if _BORN_INTO.search(question):
        houses = [
            r.object
            for r in fact.relations
            if r.predicate.upper() == "MEMBER_OF" and r.subject == name and r.object_type == "Lineage"
        ]
        if houses:
            return f"{name} was born into {names_list(list(dict.fromkeys(houses)), 'Lineage')}"
    if _BIRTH_NAME.search(question) or FORMER_NAME.search(question):
        born = attribute_value(fact, "birth name")
        if born:
            return f"{name} was born {born}"
    if _BIRTHPLACE.search(question) or _BORN_INTO.search(question):
        places = [r.object for r in fact.relations if r.predicate.upper() == "BORN_IN" and r.subject == name]
        if places:
            return f"{name} was born in {in_prose(places[0])}"
    return None
