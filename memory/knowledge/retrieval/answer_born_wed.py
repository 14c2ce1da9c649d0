"""A birth set before or after a marriage: "Was Ilse born before her parents married?", "was Bram born after his
parents' wedding".

Two dates compared, never whether the one asked is married: the birth of the one named (as the asker may see it:
a birth hidden from them reads as one canon does not give) and, where a step read the parents, their marriage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_kin import people_named
from memory.knowledge.retrieval.kin import MARRIAGE

__all__ = ["born_by_marriage"]

_BORN_THEN = re.compile(r"^\s*(?:was|were|is)\s+.+?\s+born\s+(?:before|after|ahead\s+of|prior\s+to)\s+", re.I)


def born_by_marriage(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the birth of the one asked and the marriage it is set against, or that canon does not say when
    they were born; None when the question is not of this form or names nobody whose family was read."""
    if not _BORN_THEN.match(question) or not MARRIAGE.search(question):
        return None
    people = [f for f in people_named(question, facts) if not f.step_span]
    if not people:
        return None
    me = people[0]
    number = facts.index(me) + 1
    life = me.life
    born = life.born_words if life is not None and life.born_key is not None else None
    text = (
        f"{me.entity_name} was born {born}"
        if born
        else f"Nothing the table knows says when {me.entity_name} was born"
    )
    wed = _parents_wed(me, facts)
    return f"{text}{'; ' + wed if wed else ''}. [{number}]", number


def _parents_wed(me: CanonFact, facts: Sequence[CanonFact]) -> str | None:
    """Return when the parents of the one asked married, from a parent's card a step read, or None."""
    parents = set(me.kin.ties.get("parents", ())) if me.kin is not None else set()
    for fact in facts:
        if fact.entity_name in parents and fact.kin is not None:
            for spouse, when in fact.kin.married.items():
                if spouse in parents:
                    return f"{fact.entity_name} married {spouse} {when}"
    return None
