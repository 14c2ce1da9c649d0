"""Kin asked in forms of their own: "Is Wystan an only child?", "Whose son is Wystan?".

- "Is X an only child?": the brothers and sisters canon names ("No: Merel Drevanne's brother is Tamber Drevanne"),
  or that nothing the table knows names one: canon never says someone has none;
- "Whose son is X?", "whose daughter was X?", "whose child is X?": X's parents ("Wystan Lorne is the son of Merel
  Drevanne and Quenby Lorne"), a parent the table only believes said as believed (`kin_reputed`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_halves import listing
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import people_named, tie_noun
from memory.knowledge.retrieval.kin_reputed import believed, plain_ties

__all__ = ["kin_form_answer"]

_ONLY_CHILD = re.compile(
    r"^\s*(?:is|was)\s+(?P<who>.+?)\s+(?:an?\s+|the\s+)?only\s+(?:child|kid|son|daughter)\s*\??\s*$", re.I
)
_WHOSE = re.compile(
    r"^\s*whose\s+(?:son|daughter|child|kid|boy|girl)\s+(?:is|was)\s+(?P<who>.+?)\s*\??\s*$", re.I
)


def kin_form_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to an only-child or a whose-child question (see the module docstring), or None."""
    only, whose = _ONLY_CHILD.match(question), _WHOSE.match(question)
    if only is None and whose is None:
        return None
    people = people_named(question, facts)
    if not people or people[0].kin is None:
        return None
    person, kin = people[0], people[0].kin
    number = facts.index(person) + 1
    name = person.entity_name
    if only is not None:
        siblings = list(kin.ties.get("siblings", ()))
        if not siblings:
            return f"Nothing the table knows names a brother or sister of {name}. [{number}]", number
        sexes = {kin.sexes.get(s) for s in siblings}
        sex = sexes.pop() if len(sexes) == 1 else None
        return f"No: {listing(name, kin, 'siblings', sex, siblings)}. [{number}]", number
    parents = list(plain_ties(kin, "parents").ties.get("parents", ()))
    said = (
        [f"{name} is the {tie_noun('children', kin.sexes.get(name), False)} of {names_list(parents)}"]
        if parents
        else []
    )
    said += believed(name, kin, "parents", None)
    if not said:
        return f"Nothing the table knows names a parent of {name}. [{number}]", number
    return f"{'; '.join(said)}. [{number}]", number
