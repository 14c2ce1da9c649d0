"""`check`: every continuity rule over a snapshot, in one pass that sorts the statements into what each rule reads."""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from canon.continuity.attributes import AttributeRules
from canon.continuity.base import (
    ROLE_ACT,
    ROLE_EXCLUSIVE,
    ROLE_MAX_IN,
    ROLE_MAX_OUT,
    ROLE_PARTICIPATION,
    ROLE_SINGLE_PLACE,
    ROLE_SPECIAL,
)
from canon.continuity.causes import CauseRules
from canon.continuity.claims import ClaimRules
from canon.continuity.findings import (
    KIND_ORDER,
    OCCURRED_AT,
    OCCURRED_DURING,
    PARENT_OF,
    PART_OF,
    SUB_ERA_OF,
    Finding,
    Snapshot,
)
from canon.continuity.life_dates import LifeDateRules
from canon.continuity.lives import LifeRules
from canon.continuity.relations import RelationRules
from canon.models import CanonLevel, Statement, StatementKind


def check(snapshot: Snapshot, *, focus: Collection[int] | None = None) -> list[Finding]:
    """Return the continuity findings of a snapshot, or with `focus` only those involving these statements."""
    # Large snapshots allocate millions of small containers; the cyclic collector would rescan the snapshot's
    # objects many times over for nothing (nothing here makes cycles), so it waits until the check is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        findings = Checker(snapshot).run()
    finally:
        if collecting:
            gc.enable()
    if focus is not None:
        wanted = set(focus)
        findings = [f for f in findings if not wanted.isdisjoint(f.statement_ids)]
    return findings


@dataclass
class _Groups:
    """The standing statements sorted into what each rule reads."""

    with_dependencies: list[Statement] = field(default_factory=list)
    states: dict[int, list[Statement]] = field(default_factory=lambda: defaultdict(list))
    attributes: dict[tuple[int, str], list[Statement]] = field(default_factory=dict)
    places: dict[int, list[Statement]] = field(default_factory=dict)
    exclusive: dict[tuple[int, int, int], list[Statement]] = field(default_factory=dict)
    cardinality: dict[tuple[str, int, bool], list[Statement]] = field(default_factory=dict)
    acts: dict[int, list[Statement]] = field(default_factory=lambda: defaultdict(list))
    occurred: list[Statement] = field(default_factory=list)
    held: list[Statement] = field(default_factory=list)  # an event OCCURRED_AT a place
    causal: list[Statement] = field(default_factory=list)


class Checker(LifeRules, LifeDateRules, RelationRules, ClaimRules, AttributeRules, CauseRules):
    """One check of a snapshot: `run` groups the statements, then applies every rule."""

    def run(self) -> list[Finding]:
        """Return the findings of every rule, one per fingerprint, in a stable order."""
        groups = self._group()
        self._relies_on_retconned(groups.with_dependencies)
        lives = {entity_id: self._life(entity_id, group) for entity_id, group in groups.states.items()}
        self._dead_acting(lives, groups.acts)
        self._two_places(groups.places)
        self._exclusive(groups.exclusive)
        self._cardinality(groups.cardinality)
        self._births(lives)
        self._life_dates(groups.states, groups.attributes)
        self._eras(groups.occurred)
        self._attributes(groups.attributes)
        self._causes(groups.causal)
        self._not_yet_born(lives, groups.acts)
        self._held_before_founding(groups.held, groups.attributes)
        self._axioms(self.snapshot.statements)

        unique = {f.fingerprint: f for f in self.findings}
        return sorted(unique.values(), key=lambda f: (KIND_ORDER[f.kind], f.statement_ids, f.entity_ids))

    def _group(self) -> _Groups:
        """Sort the standing statements into what each rule reads, in one pass (the check's hot loop)."""
        groups = _Groups()
        retconned = CanonLevel.RETCONNED
        self.retconned_entities = {i for i, e in self.entities.items() if e.provenance.level == retconned}
        self.retconned_statements = {}
        self.parents, self.part_of, self.sub_era = defaultdict(list), defaultdict(list), defaultdict(list)
        dependencies = self.snapshot.dependencies
        states, attributes, places, acts = groups.states, groups.attributes, groups.places, groups.acts
        exclusive, occurred = groups.exclusive, groups.occurred
        roles, components = self.roles, self.exclusive_component
        relation_types = self.ontology.relation_types
        retconned_entities = self.retconned_entities
        state_kind, attribute_kind = StatementKind.STATE, StatementKind.ATTRIBUTE

        for s in self.snapshot.statements:
            if s.provenance.level == retconned:
                self.retconned_statements[s.id] = s
                continue
            if dependencies and s.id in dependencies:
                groups.with_dependencies.append(s)
            subject = s.subject_id
            obj = s.object_id
            if retconned_entities and (subject in retconned_entities or obj in retconned_entities):
                self._touches_retconned_entity(s)
                continue
            kind = s.kind
            if kind == state_kind:
                states[subject].append(s)
                continue
            if kind == attribute_kind:
                key = (subject, s.predicate)
                group = attributes.get(key)
                if group is None:
                    attributes[key] = [s]
                else:
                    group.append(s)
                continue
            predicate = s.predicate
            role = roles.get(predicate, 0)
            if not role or obj is None:
                continue
            # An act is dated by play or in the world: a scene, a GM's command or an import may record it.
            dated = s.validity.story_from is not None or s.validity.world_from_key is not None
            if role & ROLE_PARTICIPATION or (role & ROLE_ACT and dated):
                acts[subject].append(s)
            if role & ROLE_SINGLE_PLACE:
                group = places.get(subject)
                if group is None:
                    places[subject] = [s]
                else:
                    group.append(s)
            if role & ROLE_EXCLUSIVE:
                component, all_symmetric = components[predicate]
                if all_symmetric:
                    exclusive.setdefault((component, min(subject, obj), max(subject, obj)), []).append(s)
                else:
                    exclusive.setdefault((component, subject, obj), []).append(s)
                    if relation_types[predicate].symmetric:
                        exclusive.setdefault((component, obj, subject), []).append(s)
            if role & (ROLE_MAX_IN | ROLE_MAX_OUT):
                self._count(groups.cardinality, s, role, relation_types[predicate].symmetric)
            if role & ROLE_SPECIAL:
                if predicate == PARENT_OF:
                    self.parents[obj].append(s)
                elif predicate == PART_OF:
                    self.part_of[subject].append(obj)
                elif predicate == SUB_ERA_OF:
                    self.sub_era[subject].append(obj)
                elif predicate == OCCURRED_DURING:
                    occurred.append(s)
                elif predicate == OCCURRED_AT:
                    groups.held.append(s)
                else:
                    groups.causal.append(s)
        return groups

    @staticmethod
    def _count(
        cardinality: dict[tuple[str, int, bool], list[Statement]], s: Statement, role: int, symmetric: bool
    ) -> None:
        """Count a relation toward the cardinality limits of both its ends (an outgoing and an incoming group)."""
        predicate, subject, obj = s.predicate, s.subject_id, s.object_id or 0
        if symmetric:
            cardinality.setdefault((predicate, subject, True), []).append(s)
            cardinality.setdefault((predicate, obj, True), []).append(s)
            return
        if role & ROLE_MAX_IN:
            card_key = (predicate, obj, False)
            group = cardinality.get(card_key)
            if group is None:
                cardinality[card_key] = [s]
            else:
                group.append(s)
        if role & ROLE_MAX_OUT:
            cardinality.setdefault((predicate, subject, True), []).append(s)
