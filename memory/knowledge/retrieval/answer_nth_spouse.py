"""A marriage asked by its place in turn ("Who was Aldous's first wife?", "who is the second husband of Tove?",
"who was Bram's last wife?"), from the marriages the asker sees dated, in the order they began
(`Kin.married_order`): the one of that place, with when ("Aldous Corrow's first wife was Mirabel Corrow, married
in year 382 …"). A marriage before the last is over ("was"); the last holds while both live.

Of marriages the asker sees no date of, which came first is not said; of a place past the last, that nothing
names one. A marriage the asker may not see is no marriage: the places count those they see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import people_named

__all__ = ["nth_spouse_answer"]

_PLACES = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1, "latest": -1}
_NOUNS = {"wife": "female", "wives": "female", "husband": "male", "husbands": "male", "spouse": None}
_ASKED = re.compile(
    r"^\s*(?:who|whom)\s+(?:is|was|were)\s+(?:the\s+)?(?P<a>.*?)\b(?P<place>"
    + "|".join(_PLACES)
    + r")\s+(?P<noun>wife|husband|spouse)\b(?P<b>.*?)\s*\??\s*$",
    re.I,
)


def nth_spouse_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the spouse of the place in turn asked (see the module docstring), or None."""
    found = _ASKED.match(question.replace("’", "'"))
    if found is None:
        return None
    people = people_named(question, facts)
    if not people or people[0].kin is None:
        return None
    me, kin = people[0], people[0].kin
    name, number = me.entity_name, facts.index(me) + 1
    place, noun = found["place"].casefold(), found["noun"].casefold()
    sex = _NOUNS[noun]
    spouses = [s for s in kin.ties.get("spouses", ()) if sex is None or kin.sexes.get(s) in (sex, None)]
    if not spouses:
        return f"Nothing the table knows names a {noun} of {name}. [{number}]", number
    ordered = [s for s in kin.married_order if s in spouses]
    listed = ordered if len(ordered) == len(spouses) else spouses
    said = f"{name} {'was' if me.state == 'dead' else 'is'} married to {names_list(listed)}"
    if not set(spouses) <= set(kin.married_order):
        if len(spouses) == 1 and place == "first":
            return f"{possessive(name)} first {noun} was {spouses[0]}. [{number}]", number
        return f"{said}; canon does not say which marriage came first. [{number}]", number
    at = _PLACES[place]
    if at >= len(ordered):
        return f"Nothing the table knows names a {place} {noun} of {name}; {said}. [{number}]", number
    spouse = ordered[at]
    last = spouse == ordered[-1]
    dead = {f.entity_name for f in facts if f.state == "dead"}
    over = not last or me.state == "dead" or spouse in dead
    when = f", married {kin.married[spouse]}" if kin.married.get(spouse) else ""
    return f"{possessive(name)} {place} {noun} {'was' if over else 'is'} {spouse}{when}. [{number}]", number
