"""Kin a family tree does not draw but a file says outright (a character's `ties`: "Wenlow Orme is Saska Orme's
niece"), read as the asker may see it, for the family `kin.kin_of` walks: an aunt or uncle, a niece or nephew, a
grandparent or grandchild whose parent nobody wrote, a cousin. Each holds both ways: the niece's aunt is the aunt's
niece, in the words of the other end."""

from __future__ import annotations

from typing import Protocol

#: Each tie of a family, by the relation that says it outright and the end the others are at: "subject" (those
#: who are the relation's subject: the person's uncles and aunts), "object" (its nieces and nephews) or "either".
DECLARED: dict[str, tuple[str, str]] = {
    "uncles and aunts": ("AUNT_OR_UNCLE_OF", "subject"),
    "nephews and nieces": ("AUNT_OR_UNCLE_OF", "object"),
    "grandparents": ("GRANDPARENT_OF", "subject"),
    "grandchildren": ("GRANDPARENT_OF", "object"),
    "cousins": ("COUSIN_OF", "either"),
}


class _Ties(Protocol):
    async def ties(self, entity_id: int, predicate: str, end: str) -> list[int]: ...


async def declared_kin(cards: _Ties, entity_id: int) -> dict[str, list[int]]:
    """Return the people each tie of a family holds by a relation saying it outright (none: no entry)."""
    found: dict[str, list[int]] = {}
    for tie, (predicate, end) in DECLARED.items():
        ids = await cards.ties(entity_id, predicate, end)
        if ids:
            found[tie] = ids
    return found
