"""Kin farther out than `kin.kin_of`'s two steps, by marriage and by adoption, each with the chain it runs through.

- great-grandparents and great-grandchildren, any number of "great"s out (`far_tie`): the parents' parents'
  parents, and so on; great-uncles and great-aunts (a grandparent's siblings), great-nephews and great-nieces (a
  sibling's grandchildren); second cousins (a great-uncle's or great-aunt's grandchildren);
- kin through a child taken in (ADOPTIVE_PARENT_OF): an adopted child is a child, "by adoption"; an adoptive
  parent's parents are grandparents, their other children brothers and sisters, their siblings uncles and aunts;
  said by the chain ("through his adoptive father Corin Brannock");
- step-parents (a parent's spouse who is no parent), step-children (a spouse's child who is no child),
  step-siblings (a step-parent's child who shares no parent with one);
- in-laws: a spouse's parents, a child's spouse, a spouse's sibling and a sibling's spouse.

Every step is read through the asker's cards (`kin._Cards`): a person or a tie the asker may not see walks nowhere,
so a chain through a GM-only parent reads to a player as if that link were never written. `sides` keeps, for the
ties walked through a parent (grandparents, uncles and aunts, cousins, great-grandparents), which parent each one
is through: "on her father's side" (`kin_sides`).
"""

from __future__ import annotations

from typing import Protocol

from canon.models import EntityCard
from canon.wording.relations import SEX_ATTRIBUTES, possessive, sex_of

__all__ = ["MOST_GREATS", "FarKin", "far_kin", "far_tie"]

#: How many "great"s out the walk goes (a great-great-great-grandparent).
MOST_GREATS = 3
#: The most people of one generation walked on (a great house's descendants: the cards read stay few).
_WIDEST = 48

#: A step's nouns by the sex of the one stepped to (male, female, not said).
_STEP_NOUNS: dict[str, tuple[str, str, str]] = {
    "parent": ("father", "mother", "parent"),
    "adoptive parent": ("adoptive father", "adoptive mother", "adoptive parent"),
    "child": ("son", "daughter", "child"),
    "adopted child": ("adopted son", "adopted daughter", "adopted child"),
    "spouse": ("husband", "wife", "spouse"),
    "sibling": ("brother", "sister", "sibling"),
}
_PRONOUNS = {"male": "his", "female": "her"}


class _Cards(Protocol):
    names: dict[int, str]

    async def card(self, entity_id: int) -> EntityCard | None: ...
    async def ties(self, entity_id: int, predicate: str, end: str) -> list[int]: ...
    async def parents(self, entity_id: int) -> list[int]: ...
    async def children(self, entity_id: int) -> list[int]: ...
    async def siblings(self, entity_id: int) -> list[int]: ...


Path = tuple[tuple[str, int], ...]


class FarKin:
    """The ties found (each a list of ids), the chain each one is through in words, and the parent each is on the
    side of."""

    def __init__(self) -> None:
        self.ties: dict[str, list[int]] = {}
        self.via: dict[str, dict[int, str]] = {}
        self.sides: dict[str, dict[int, int]] = {}
        #: Of each step-parent, the parent they are the spouse of.
        self.spouse_of: dict[int, int] = {}

    def add(self, tie: str, found: int, via: str = "", side: int | None = None) -> None:
        if found not in self.ties.setdefault(tie, []):
            self.ties[tie].append(found)
            if via:
                self.via.setdefault(tie, {})[found] = via
        if side is not None:
            self.sides.setdefault(tie, {}).setdefault(found, side)


def far_tie(steps: int, up: bool) -> str:
    """Return the tie `steps` generations up or down: "grandparents" (2), "great-grandchildren" (3), …"""
    return f"{'great-' * (steps - 2)}grand{'parents' if up else 'children'}"


async def far_kin(cards: _Cards, me: int, near: dict[str, list[int]]) -> FarKin:
    """Return the kin beyond `near` (the ties `kin.kin_of` walked) as the module docstring says."""
    far = FarKin()
    card = await cards.card(me)
    if card is not None:
        cards.names.setdefault(me, card.entity.name)
    parents = near.get("parents", [])
    adoptive = await cards.ties(me, "ADOPTIVE_PARENT_OF", "subject")
    for step in (*parents, *adoptive):
        kind = "adoptive parent" if step not in parents else "parent"
        for grand in await _up(cards, step):
            said = await _said(cards, me, ((kind, step),))
            if grand not in await cards.parents(step):
                said = f"{said}, by adoption"
            far.add("grandparents", grand, said if kind != "parent" or "adoption" in said else "", step)
            for other in await cards.siblings(grand):
                if other not in await _up(cards, step):
                    via = await _said(cards, me, ((kind, step), ("parent", grand)))
                    far.add("great-uncles and great-aunts", other, via, step)
                    for child in await cards.children(other) if kind == "parent" else ():
                        for second in (await cards.children(child))[:_WIDEST]:
                            via = await _said(
                                cards, me, ((kind, step), ("parent", grand), ("sibling", other))
                            )
                            far.add("second cousins", second, via, step)
        for uncle in await cards.siblings(step):
            if uncle not in parents and uncle != me:
                via = await _said(cards, me, ((kind, step),)) if kind != "parent" else ""
                far.add("uncles and aunts", uncle, via, step)
                for cousin in await cards.children(uncle) if kind == "parent" else ():
                    far.add("cousins", cousin, "", step)
        for other in await _down(cards, step) if kind != "parent" else await _adopted(cards, step):
            if other != me and other not in near.get("siblings", []):
                last = ("adopted child", other) if kind == "parent" else None
                far.add("siblings", other, await _said(cards, me, ((kind, step),), *(last or ("", None))))
    children = near.get("children", [])
    await _generations(cards, me, far, up=True)
    await _generations(cards, me, far, up=False)
    for child in await _adopted(cards, me):
        if child not in children:
            far.add("children", child, "by adoption")
    for child in await _down(cards, me):
        for grand in await _down(cards, child):
            adopted = grand not in await cards.children(child)
            said = await _said(cards, me, (("child" if child in children else "adopted child", child),))
            if child in children and not adopted:
                continue
            far.add("grandchildren", grand, f"{said}, by adoption" if adopted else said)
    for sibling in near.get("siblings", []):
        for child in await _down(cards, sibling):
            for other in await _down(cards, child):
                via = await _said(cards, me, (("sibling", sibling), ("child", child)))
                adopted = other not in await cards.children(child)
                far.add("great-nephews and great-nieces", other, f"{via}, by adoption" if adopted else via)
    await _by_marriage(cards, me, far, near)
    return far


async def _up(cards: _Cards, entity_id: int) -> list[int]:
    return list(dict.fromkeys([*await cards.parents(entity_id), *await _adopters(cards, entity_id)]))


async def _adopters(cards: _Cards, entity_id: int) -> list[int]:
    return await cards.ties(entity_id, "ADOPTIVE_PARENT_OF", "subject")


async def _adopted(cards: _Cards, entity_id: int) -> list[int]:
    return await cards.ties(entity_id, "ADOPTIVE_PARENT_OF", "object")


async def _down(cards: _Cards, entity_id: int) -> list[int]:
    return list(dict.fromkeys([*await cards.children(entity_id), *await _adopted(cards, entity_id)]))


async def _generations(cards: _Cards, me: int, far: FarKin, *, up: bool) -> None:
    """Walk from the grandparents (or grandchildren) out, a generation at a time, each one found with its chain."""
    layer: list[tuple[int, Path]] = [(me, ())]
    for steps in range(1, MOST_GREATS + 3):
        following: list[tuple[int, Path]] = []
        for person, path in layer:
            born = await (cards.parents(person) if up else cards.children(person))
            taken = await (
                _adopters(cards, person) if up else cards.ties(person, "ADOPTIVE_PARENT_OF", "object")
            )
            for other in (*born, *taken):
                if other == me or any(other == p for _, p in path):
                    continue
                kind = (
                    ("parent" if up else "child")
                    if other in born
                    else ("adoptive parent" if up else "adopted child")
                )
                following.append((other, (*path, (kind, other))))
        layer = following[:_WIDEST]
        if steps < 3:
            continue
        tie = far_tie(steps, up)
        for other, path in layer:
            side = path[0][1] if up else None
            said = await _said(cards, me, path[:-1])
            if path[-1][0] in ("adoptive parent", "adopted child"):
                said = f"{said}, by adoption" if said else "by adoption"
            far.add(tie, other, said, side)


async def _by_marriage(cards: _Cards, me: int, far: FarKin, near: dict[str, list[int]]) -> None:
    """Add the step-parents, step-children and in-laws, each with the chain it is through."""
    parents, children = near.get("parents", []), near.get("children", [])
    spouses, siblings = near.get("spouses", []), near.get("siblings", [])
    for parent in parents:
        for other in await cards.ties(parent, "SPOUSE_OF", "either"):
            if other not in parents and other != me and await _lived_beside(cards, other, me):
                far.add("step-parents", other, await _said(cards, me, (("parent", parent),), "spouse", other))
                far.spouse_of.setdefault(other, parent)
    for step in far.ties.get("step-parents", []):  # a step-parent's children who share no parent with me
        via = await _said(cards, me, (("parent", far.spouse_of[step]), ("spouse", step)))
        for other in await cards.children(step):
            if other != me and other not in siblings and not set(await cards.parents(other)) & set(parents):
                far.add("step-siblings", other, via)
    for spouse in spouses:
        for other in await cards.children(spouse):
            if other not in children and other != me and await _lived_beside(cards, me, other):
                far.add("step-children", other, await _said(cards, me, (("spouse", spouse),), "child", other))
        for other in await cards.parents(spouse):
            far.add("parents-in-law", other, await _said(cards, me, (("spouse", spouse),), "parent", other))
        for other in await cards.siblings(spouse):
            if other != me:
                far.add(
                    "siblings-in-law", other, await _said(cards, me, (("spouse", spouse),), "sibling", other)
                )
    for child in children:
        for other in await cards.ties(child, "SPOUSE_OF", "either"):
            if other != me:
                far.add(
                    "children-in-law", other, await _said(cards, me, (("child", child),), "spouse", other)
                )
    for sibling in siblings:
        for other in await cards.ties(sibling, "SPOUSE_OF", "either"):
            if other != me and other not in spouses:
                far.add(
                    "siblings-in-law", other, await _said(cards, me, (("sibling", sibling),), "spouse", other)
                )


async def _lived_beside(cards: _Cards, elder: int, child: int) -> bool:
    """Return whether a step-parent lived when the step-child was born, as far as the cards' dates say (a father's
    first wife who died before his child by another was born is no stepmother of that child)."""
    died = await _when(cards, elder, "dead")
    born = await _when(cards, child, "alive")
    return died is None or born is None or died >= born


async def _when(cards: _Cards, entity_id: int, state: str) -> int | None:
    card = await cards.card(entity_id)
    keys = [
        v.statement.validity.world_from_key
        for v in (card.states if card else ())
        if str(v.statement.value).casefold() == state and v.statement.validity.world_from_key is not None
    ]
    return min(keys, default=None)


async def sex(cards: _Cards, entity_id: int) -> str | None:
    """Return the sex a person's card says, as the asker may read it, or None."""
    card = await cards.card(entity_id)
    said = [
        sex_of(v.statement.value)
        for v in (card.facts if card else ())
        if v.statement.predicate in SEX_ATTRIBUTES
    ]
    return said[-1] if said else None


def _noun(kind: str, said: str | None) -> str:
    nouns = _STEP_NOUNS[kind]
    return nouns[0] if said == "male" else nouns[1] if said == "female" else nouns[2]


async def _said(cards: _Cards, me: int, path: Path, last: str = "", to: int | None = None) -> str:
    """Return a chain in words: "through his mother Lark Brannock and her father Corin Brannock"; with `last`, what
    the one found is to the chain's end: "his father Bram Brannock's wife"."""
    if not path:
        return ""
    parts: list[str] = []
    before = me
    for kind, person in path:
        owner = _PRONOUNS.get(await sex(cards, before) or "") or possessive(_name(cards, before))
        parts.append(f"{owner} {_noun(kind, await sex(cards, person))} {_name(cards, person)}")
        before = person
    if last and to is not None:
        return f"{possessive(parts[-1])} {_noun(last, await sex(cards, to))}"
    return "through " + (f"{', '.join(parts[:-1])} and {parts[-1]}" if len(parts) > 1 else parts[0])


def _name(cards: _Cards, entity_id: int) -> str:
    return cards.names.get(entity_id, "")
