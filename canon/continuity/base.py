"""`CheckerBase`: what every rule of a check reads: the snapshot, the relations' roles, names in words."""

from __future__ import annotations

from canon.continuity.findings import (
    CAUSED,
    DEEDS,
    OCCURRED_AT,
    OCCURRED_DURING,
    PARENT_OF,
    PART_OF,
    PARTICIPATION,
    PRECEDED,
    SUB_ERA_OF,
    Finding,
    Side,
    Snapshot,
)
from canon.continuity.intervals import validity_text
from canon.models import Statement, StatementKind
from canon.wording.relations import fact_sentence, relation_sentence, state_sentence

ROLE_SINGLE_PLACE = 1
ROLE_EXCLUSIVE = 2
ROLE_MAX_IN = 4
ROLE_MAX_OUT = 8
ROLE_ACT = 16
ROLE_PARTICIPATION = 32
ROLE_SPECIAL = 64  # PARENT_OF, PART_OF, OCCURRED_DURING, OCCURRED_AT, SUB_ERA_OF, CAUSED, PRECEDED


class CheckerBase:
    """The state of one check: the snapshot, each relation's roles, the findings so far, and how to name things.

    `run` (in `canon.continuity.checker.Checker`) fills the groups the rules share: retconned rows, parents,
    containing places and parent eras.
    """

    retconned_entities: set[int]
    retconned_statements: dict[int, Statement]
    parents: dict[int, list[Statement]]
    part_of: dict[int, list[int]]
    sub_era: dict[int, list[int]]

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.ontology = snapshot.ontology
        self.entities = snapshot.entities
        self.findings: list[Finding] = []
        relation_types = self.ontology.relation_types
        self.timeless_predicates = frozenset(n for n, r in relation_types.items() if not r.temporal)
        self.roles: dict[str, int] = {}
        for name, rel in relation_types.items():
            role = 0
            if rel.single_place:
                role |= ROLE_SINGLE_PLACE
            if rel.exclusive_with:
                role |= ROLE_EXCLUSIVE
            if rel.max_incoming is not None:
                role |= ROLE_MAX_IN
            if rel.max_outgoing is not None:
                role |= ROLE_MAX_OUT
            if name in PARTICIPATION:
                role |= ROLE_PARTICIPATION
            elif rel.temporal or name in DEEDS:
                role |= ROLE_ACT
            if name in (PARENT_OF, PART_OF, OCCURRED_DURING, OCCURRED_AT, SUB_ERA_OF, CAUSED, PRECEDED):
                role |= ROLE_SPECIAL
            self.roles[name] = role
        self.exclusive_component = self._exclusive_components()
        self.tags = self.ontology.states.tags
        self._ancestors: dict[int, frozenset[int]] = {}

    def _exclusive_components(self) -> dict[str, tuple[int, bool]]:
        """Return relation type -> (component id, whether every type of the component is symmetric)."""
        relation_types = self.ontology.relation_types
        components: dict[str, tuple[int, bool]] = {}
        for index, name in enumerate(sorted(relation_types)):
            if name in components or not relation_types[name].exclusive_with:
                continue
            group, stack = {name}, [name]
            while stack:
                for other in relation_types[stack.pop()].exclusive_with:
                    if other not in group and other in relation_types:
                        group.add(other)
                        stack.append(other)
            symmetric = all(relation_types[g].symmetric for g in group)
            for g in group:
                components[g] = (index, symmetric)
        return components

    # -- naming ----------------------------------------------------------------------------------------

    def name(self, entity_id: int | None) -> str:
        if entity_id is None:
            return "?"
        entity = self.entities.get(entity_id)
        return entity.name if entity is not None else f"#{entity_id}"

    def sentence(self, s: Statement) -> str:
        """Say a fact as the cards do ("Kara is an ally of Lenn"): a finding's sides are read by the GM."""
        subject = self.name(s.subject_id)
        if s.kind == StatementKind.RELATION:
            return relation_sentence(s.predicate, subject, self.name(s.object_id))
        if s.kind == StatementKind.STATE:
            return state_sentence(subject, s.value or "unknown", s.via)
        return fact_sentence(subject, s.predicate, s.value or "")

    def side(self, s: Statement) -> Side:
        text = validity_text(s.validity)
        sentence = self.sentence(s) + (f" ({text})" if text else "")
        return Side(statement_id=s.id, sentence=sentence, evidence=s.evidence)

    def entity_side(self, entity_id: int, sentence: str) -> Side:
        return Side(entity_id=entity_id, sentence=sentence)

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)
