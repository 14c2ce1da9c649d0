"""A person's tie to a family (a lineage: a house, a family tree), not to a person.

"How is Wystan related to the royal family?", "Is Quenby part of House Drevanne?", "Does Merel belong to House
Drevanne?": the answer says how the person is tied to the lineage, from what the asker may see: a member ("Merel
Drevanne is a member of House Drevanne by birth, the daughter of Pellinor Drevanne"), one who married in ("Quenby
Lorne is the husband of Merel Drevanne of House Drevanne"), or the nearest relative who is a member, two steps out
at most ("Wystan Lorne is the grandson of Ilvara Drevanne of House Drevanne"). A tie the table only believes (a
reputed parent, `kin_reputed`) is said as believed. Where none is found, that nothing the table knows ties them:
never a "No" canon does not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import in_prose
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import ASKING, tie_noun
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.kin import TIES

__all__ = ["house_answer"]

#: What one is to a relative of each tie: a parent's child, a grandchild's grandparent, ….
_INVERSE = {
    "spouses": "spouses",
    "parents": "children",
    "children": "parents",
    "siblings": "siblings",
    "grandparents": "grandchildren",
    "grandchildren": "grandparents",
    "uncles and aunts": "nephews and nieces",
    "nephews and nieces": "uncles and aunts",
    "cousins": "cousins",
}
#: Words a question of a tie to a family may hold besides the names and the words of asking.
_TIE_WORDS = frozenset(
    {
        *(
            "part",
            "member",
            "belong",
            "belongs",
            "tie",
            "tied",
            "ties",
            "connected",
            "connection",
            "relation",
        ),
        *("by", "blood", "marriage", "from", "royal", "house", "line", "lineage", "bloodline", "dynasty"),
    }
)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did)\b", re.I)


def house_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how the person a question names is tied to the lineage it names (see the module docstring), or
    None when it names no lineage and person, or asks something more."""
    # A lineage the question names, not one found by a word of asking alone ("family" of "the Royal Family").
    houses = [f for f in facts if f.entity_type == "Lineage" and set(fold_words(f.matched)) - ASKING]
    people = [f for f in facts if f.kin is not None and f not in houses]
    if not houses or not people:
        return None
    named = {w for f in (houses[0], people[0]) for w in (*fold_words(f.matched), *fold_words(f.entity_name))}
    if not all(w in ASKING or w in named or w in _TIE_WORDS for w in fold_words(question)):
        return None
    house, person = houses[0], people[0]
    number = facts.index(person) + 1
    text = _tie(person, house, bool(_YES_NO.match(question)))
    return f"{text}. [{number}]", number


def _tie(person: CanonFact, house: CanonFact, yes_no: bool) -> str:
    kin = person.kin
    assert kin is not None
    lineage = in_prose(house.entity_name)
    members = {
        r.subject
        for f in (house, person)
        for r in f.relations
        if r.predicate.upper() == "MEMBER_OF" and r.object == house.entity_name
    }
    name = person.entity_name
    sex = kin.sexes.get(name)
    if name in members:
        born = [
            p for p in kin.ties.get("parents", ()) if p in members and p not in kin.reputed.get("parents", ())
        ]
        said = f"{name} is a member of {lineage}"
        if born:
            said += f" by birth, the {tie_noun('children', sex, False)} of {names_list(born)}"
        return f"Yes: {said}" if yes_no else said
    for tie in TIES:
        kept = [n for n in kin.ties.get(tie, ()) if n in members]
        if not kept:
            continue
        noun = tie_noun(_INVERSE[tie], sex, False)
        known = " known as" if set(kept) <= set(kin.reputed.get(tie, ())) else ""
        said = f"{name} is{known} the {noun} of {names_list(kept)} of {lineage}"
        if yes_no:
            return f"Nothing the table knows makes {name} a member of {lineage}; {said}"
        return said
    return f"Nothing the table knows ties {name} to {lineage}"
