"""The rules about relations that exclude each other: two places at once, exclusive relations, cardinality."""

from __future__ import annotations

from collections.abc import Mapping

from canon.continuity.base import CheckerBase
from canon.continuity.findings import ConflictKind, join_names, make_finding
from canon.continuity.intervals import (
    STORY_CLOCK,
    cliques,
    clock_cliques,
    has_world,
    overlapping_pairs,
    successive,
    when_text,
)
from canon.models import Statement


class RelationRules(CheckerBase):
    """Two places, exclusive relations and cardinality (rules 2, 3 and 4)."""

    # -- 2. two places ---------------------------------------------------------------------------------

    def _ancestors_of(self, place: int) -> frozenset[int]:
        found = self._ancestors.get(place)
        if found is not None:
            return found
        seen: set[int] = set()
        stack = list(self.part_of.get(place, ()))
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            known = self._ancestors.get(current)
            if known is not None:
                seen |= known
            else:
                stack.extend(self.part_of.get(current, ()))
        result = frozenset(seen)
        self._ancestors[place] = result
        return result

    def _apart(self, a: Statement, b: Statement) -> bool:
        pa, pb = a.object_id, b.object_id
        if pa == pb or pa is None or pb is None:
            return False
        return pb not in self._ancestors_of(pa) and pa not in self._ancestors_of(pb)

    def _two_places(self, places: Mapping[int, list[Statement]]) -> None:
        for entity_id, group in places.items():
            if len(group) < 2 or len({s.object_id for s in group}) < 2:
                continue
            for a, b in overlapping_pairs(group, self.timeless_predicates, self._apart):
                name = self.name(entity_id)
                message = (
                    f"{name} is in two places at once: {self.name(a.object_id)} ({when_text(a.validity)}) "
                    f"and {self.name(b.object_id)} ({when_text(b.validity)}), and neither lies within the other."
                )
                ids = {entity_id, a.object_id or entity_id, b.object_id or entity_id}
                self.add(make_finding(ConflictKind.TWO_PLACES, message, (self.side(a), self.side(b)), ids))

    # -- 3. exclusive relations ------------------------------------------------------------------------

    def _exclusive(self, buckets: Mapping[tuple[int, int, int], list[Statement]]) -> None:
        relation_types = self.ontology.relation_types

        def excludes(a: Statement, b: Statement) -> bool:
            return b.predicate in relation_types[a.predicate].exclusive_with

        for group in buckets.values():
            if len(group) < 2 or len({s.predicate for s in group}) < 2:
                continue
            for a, b in overlapping_pairs(group, self.timeless_predicates, excludes):
                message = (
                    f"“{self.sentence(a)}” ({when_text(a.validity)}) and “{self.sentence(b)}” ({when_text(b.validity)}) "
                    f"hold at overlapping times, but {a.predicate} and {b.predicate} exclude each other."
                )
                ids = {a.subject_id, b.subject_id} | {i for i in (a.object_id, b.object_id) if i is not None}
                self.add(
                    make_finding(ConflictKind.EXCLUSIVE_RELATIONS, message, (self.side(a), self.side(b)), ids)
                )

    # -- 4. cardinality --------------------------------------------------------------------------------

    def _cardinality(self, groups: Mapping[tuple[str, int, bool], list[Statement]]) -> None:
        relation_types = self.ontology.relation_types
        for (predicate, anchor, outgoing), group in groups.items():
            rel = relation_types[predicate]
            if rel.symmetric:
                limits = [x for x in (rel.max_incoming, rel.max_outgoing) if x is not None]
                limit = min(limits)
            else:
                found = rel.max_outgoing if outgoing else rel.max_incoming
                if found is None:
                    continue
                limit = found
            if len(group) <= limit:
                continue
            if len({_counterpart(s, anchor, outgoing, rel.symmetric) for s in group}) <= limit:
                continue
            if limit == 1 and successive(group, self.timeless_predicates):
                continue
            reported: list[frozenset[int]] = []
            for clock, clique in cliques(group, self.timeless_predicates, supersede=limit == 1):
                members = self._clock_consistent(clock, clique)
                others = list(
                    dict.fromkeys(_counterpart(s, anchor, outgoing, rel.symmetric) for s in members)
                )
                if len(others) <= limit:
                    continue
                ids = frozenset(s.id for s in members)
                if any(ids <= other for other in reported):
                    continue
                reported = [other for other in reported if not other <= ids] + [ids]
                self._report_cardinality(predicate, anchor, outgoing, limit, members, others)

    @staticmethod
    def _clock_consistent(clock: str, clique: list[Statement]) -> list[Statement]:
        """Keep a story-clock set only where world dates do not already tell its members apart."""
        if clock != STORY_CLOCK:
            return clique
        dated = [s for s in clique if has_world(s.validity)]
        if len(dated) == len(clique):
            return []
        undated = [s for s in clique if not has_world(s.validity)]
        if len(dated) < 2:
            return undated + dated
        together = clock_cliques(dated, True, False)
        best = max(together, key=len) if together else dated[:1]
        return undated + best

    def _report_cardinality(
        self,
        predicate: str,
        anchor: int,
        outgoing: bool,
        limit: int,
        members: list[Statement],
        others: list[int],
    ) -> None:
        members = sorted(members, key=lambda s: s.id)
        listed = join_names([self.name(o) for o in others])
        words = predicate.replace("_", " ").lower()
        if outgoing:
            message = (
                f"{self.name(anchor)} has {len(others)} “{words}” relations at overlapping times ({listed}), "
                f"but {predicate} allows at most {limit}."
            )
        else:
            message = (
                f"{len(others)} “{words}” relations point at {self.name(anchor)} at overlapping times "
                f"(from {listed}), but {predicate} allows at most {limit}."
            )
        sides = [self.side(s) for s in members]
        self.add(make_finding(ConflictKind.CARDINALITY, message, sides, {anchor, *others}))


def _counterpart(s: Statement, anchor: int, outgoing: bool, symmetric: bool) -> int:
    """Return the entity at the other end of a relation from the anchor its cardinality is counted at."""
    if symmetric:
        return (s.object_id or 0) if s.subject_id == anchor else s.subject_id
    return (s.object_id or 0) if outgoing else s.subject_id
