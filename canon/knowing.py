"""What characters know: a player's lens (`Knowing`), each thing a character learned and from when (`Learned`).

The lens is data only. Whether what it holds lets a player see hidden canon is the visibility rule's to say
(`canon.visibility`: `entity_seen`, `statement_seen`, `passages_seen`, ...), and only there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from canon.models import NOW, AsOf


@dataclass(frozen=True, slots=True)
class Learned:
    """One thing a character learned: an entity, statement or source, from an in-world date or scene on.

    `ends` are a statement's subject and object (their names come with it); `recorded_at` is when the reveal was
    written (for "as believed at"); `undone_at` when it was undone, if it was.
    """

    kind: str
    target_id: int
    world_from_key: int | None = None
    story_from: int | None = None
    ends: tuple[int, ...] = ()
    recorded_at: dt.datetime | None = None
    undone_at: dt.datetime | None = None

    def holds_at(self, as_of: AsOf) -> bool:
        """Return whether the character knows it at an as-of point (learned by then, not undone by then)."""
        if (
            as_of.world_key is not None
            and self.world_from_key is not None
            and self.world_from_key > as_of.world_key
        ):
            return False
        if as_of.scene is not None and self.story_from is not None and self.story_from > as_of.scene:
            return False
        if as_of.believed_at is not None:
            if self.recorded_at is not None and self.recorded_at > as_of.believed_at:
                return False
            return self.undone_at is None or self.undone_at > as_of.believed_at
        return self.undone_at is None


@dataclass(frozen=True, slots=True)
class Known:
    """What a lens lets through at one point: entities whole, entities by name only, statements, sources."""

    entities: frozenset[int] = frozenset()
    named: frozenset[int] = frozenset()
    statements: frozenset[int] = frozenset()
    sources: frozenset[int] = frozenset()


NOTHING_KNOWN = Known()


@dataclass(frozen=True)
class Knowing:
    """A player's lens: the characters they see through (entity ids) and everything they learned, with when.

    The viewer stays a player (`Viewer.PLAYER`); this lens adds what the characters know to public canon.
    """

    characters: tuple[int, ...]
    learned: tuple[Learned, ...] = ()
    _cache: dict[AsOf, Known] = field(default_factory=dict, compare=False, repr=False)

    def at(self, as_of: AsOf) -> Known:
        """Return what the characters know at an as-of point."""
        found = self._cache.get(as_of)
        if found is None:
            ids: dict[str, set[int]] = {"entity": set(), "statement": set(), "source": set()}
            named: set[int] = set()
            for item in self.learned:
                if item.kind in ids and item.holds_at(as_of):
                    ids[item.kind].add(item.target_id)
                    if item.kind == "statement":
                        named.update(item.ends)
            found = self._cache[as_of] = Known(
                frozenset(ids["entity"]),
                frozenset(named),
                frozenset(ids["statement"]),
                frozenset(ids["source"]),
            )
        return found


def shared_knowing(lenses: Sequence[Knowing | None], as_of: AsOf = NOW) -> Knowing | None:
    """Return the lens of what every one of several lenses knows at a point (all who hear one NPC's reply).

    None (public canon only) when there is no lens, or when one of them is None: one listener who plays
    nothing reads the reply too, so it may hold only what is public.
    """
    if not lenses or any(lens is None for lens in lenses):
        return None
    knowns = [lens.at(as_of) for lens in lenses if lens is not None]
    entities = frozenset.intersection(*(k.entities for k in knowns))
    statements = frozenset.intersection(*(k.statements for k in knowns))
    sources = frozenset.intersection(*(k.sources for k in knowns))
    ends = {i.target_id: i.ends for lens in lenses if lens is not None for i in lens.learned}
    learned = (
        *(Learned("entity", e) for e in sorted(entities)),
        *(Learned("statement", s, ends=ends.get(s, ())) for s in sorted(statements)),
        *(Learned("source", s) for s in sorted(sources)),
    )
    characters = tuple(dict.fromkeys(c for lens in lenses if lens is not None for c in lens.characters))
    return Knowing(characters=characters, learned=learned)


def with_learned(knowing: Knowing | None, item: Learned) -> Knowing:
    """Return a lens that knows one thing more (what the GM lets an NPC tell those who hear it)."""
    if knowing is None:
        return Knowing(characters=(), learned=(item,))
    return Knowing(characters=knowing.characters, learned=(*knowing.learned, item))
