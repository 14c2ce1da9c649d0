"""A birth set against the parents' marriage: "Was Ilse born before her parents married?", "was Bram born after
his parents' wedding", "was Ilse born out of wedlock?", "is Bram illegitimate?".

The two dates, as the asker may see them: the birth of the one named (a birth hidden from them reads as one canon
does not give) and the marriage of the two parents they see (`Kin.parents_married`). With both, the verdict and
both dates ("Yes: Merrit Penhallow was born in year 400 of …, before Aldous Penhallow and Ysolde Penhallow
married on 3 Greening, year 402 of …"); with one missing or hidden, what is known and that canon does not say,
never a verdict: a player reads what a file without the GM's lines would say. Dates too coarse to set apart (a
birth in the year of the wedding, its day unsaid) are said without a verdict too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import DateError, compare, parse_date
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import people_named
from memory.knowledge.retrieval.kin import MARRIAGE

__all__ = ["born_by_marriage"]

_BORN_THEN = re.compile(
    r"^\s*(?:was|were|is)\s+.+?\s+born\s+(?P<side>before|after|ahead\s+of|prior\s+to)\s+", re.I
)
#: "born out of wedlock", "in wedlock", "illegitimate", "a bastard", "born outside marriage".
_WEDLOCK = re.compile(
    r"^\s*(?:was|were|is|are)\s+.+?\b(?P<side>out\s+of\s+wedlock|in\s+wedlock|illegitimate|legitimate|"
    r"(?:a\s+)?bastard|(?:born\s+)?outside\s+(?:of\s+)?(?:a\s+)?marriage|(?:born\s+)?within\s+(?:a\s+)?marriage)"
    r"\b",
    re.I,
)
#: The forms asking whether the birth came first ("out of wedlock"); the others ask whether it came after.
_FIRST = re.compile(r"before|ahead|prior|out\s+of|^illegitimate|bastard|outside", re.I)


def born_by_marriage(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the birth of the one asked set against their parents' marriage (see the module docstring); None
    when the question is not of this form or names nobody whose family was read."""
    then = _BORN_THEN.match(question)
    asked = then if then is not None and MARRIAGE.search(question) else _WEDLOCK.match(question)
    if asked is None:
        return None
    people = [f for f in people_named(question, facts) if not f.step_span]
    if not people:
        return None
    me = people[0]
    number = facts.index(me) + 1
    name = me.entity_name
    life = me.life
    born, born_on = (
        (life.born_words, life.born) if life is not None and life.born_key is not None else (None, None)
    )
    parents = list(me.kin.ties.get("parents", ())) if me.kin is not None else []
    wed = me.kin.parents_married if me.kin is not None else None
    couple = names_list(parents)
    if born and born_on and wed and wed[1]:
        order = _order(born_on, wed[1])
        if order is not None:
            first = _FIRST.search(asked.group("side")) is not None
            yes = "Yes" if (order == "before") == first else "No"
            return (
                f"{yes}: {name} was born {born}, {order} {couple} married {wed[0]}. [{number}]",
                number,
            )
    said = [f"{name} was born {born}" if born else f"Nothing the table knows says when {name} was born"]
    if wed and wed[1]:
        said.append(f"{couple} married {wed[0]}")
    elif wed:
        said.append(f"{couple} married, and nothing the table knows says when")
    elif len(parents) == 2:
        said.append(f"nothing the table knows says {couple} married")
    else:
        said.append(f"nothing the table knows names both parents of {name}")
    if born and wed and wed[1]:
        said.append("canon does not say which came first")
    return f"{'; '.join(said)}. [{number}]", number


def _order(born: str, married: str) -> str | None:
    """Return "before" or "after" when the birth is certainly on one side of the marriage, else None."""
    try:
        said = compare(parse_date(born), parse_date(married))
    except DateError:
        return None
    return said if said in ("before", "after") else None
