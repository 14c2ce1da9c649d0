"""A child taken in during a year, among what happened in it: "what happened in 452?" tells the adoption dated
that year beside the events ("Pip Corrow was adopted by Edric Corrow and Sabine Marr on 6 Harvestide, year 452 of
the Lantern Age"). `taken_in_year` finds the children (the ADOPTIVE_PARENT_OF and FOSTER_PARENT_OF ties dated in
the year, as the asker may see them); `taken_in_told` says each from the child's card."""

from __future__ import annotations

import re

from canon.graph.reader import CanonReader
from canon.models import Statement
from memory.knowledge.models import CanonFact

__all__ = ["taken_in_told", "taken_in_year"]

_TAKEN_IN = (("ADOPTIVE_PARENT_OF", "adopted", "adoptive"), ("FOSTER_PARENT_OF", "fostered", "foster"))


async def taken_in_year(reader: CanonReader, year: int) -> list[Statement]:
    """Return the ties taking a child in that hold from a day (or month, or the whole) of a year."""
    ties = await reader.statements(predicates=[p for p, _v, _w in _TAKEN_IN], with_evidence=False)
    first = year * 10000
    return [
        s
        for s in ties
        if s.validity.world_from_key is not None and first <= s.validity.world_from_key <= first + 9999
    ]


def taken_in_told(fact: CanonFact, year: str) -> str | None:
    """Return who took a child in during the year asked (`year`: its number), as the card says it ("Pip Corrow was
    adopted by Edric Corrow and Sabine Marr on 6 Harvestide, year 452 of the Lantern Age"), or None."""
    me = fact.entity_name
    said: list[str] = []
    for predicate, verb, word in _TAKEN_IN:
        dated: dict[str, list[str]] = {}
        for parent in fact.tied(predicate):
            line = re.compile(
                rf"^{re.escape(parent)} is {re.escape(me)}'s {word} \w+ \(since (?P<when>.+)\)$"
            )
            when = next((m["when"] for f in fact.facts if (m := line.match(f))), None)
            if when and re.search(rf"\byear {re.escape(year)}\b", when):
                dated.setdefault(when, []).append(parent)
        for when, parents in dated.items():
            names = " and ".join([", ".join(parents[:-1]), parents[-1]] if len(parents) > 1 else parents)
            at = "in" if when.startswith("year") else "on"
            said.append(f"{verb} by {names} {at} {when}")
    return f"{me} was {' and '.join(said)}" if said else None
