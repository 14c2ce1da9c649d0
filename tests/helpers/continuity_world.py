"""A small hand-built world for the continuity rule tests: entities, statements with their provenance and validity, and the sides of a finding."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from canon.calendar import parse_date
from canon.continuity import (
    ConflictKind,
    Finding,
    Side,
    Snapshot,
    check,
    world_key,
)
from canon.models import (
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    Validity,
)
from canon.ontology import base_ontology

T0 = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def provenance(
    authority: Authority = Authority.GM, confidence: float = 1.0, *, retconned: bool = False
) -> Provenance:
    return Provenance(
        campaign_id=1,
        changeset_id=1,
        recorded_at=T0,
        authority=authority,
        confidence=confidence,
        level=CanonLevel.RETCONNED if retconned else CanonLevel.CANON,
    )


def validity(
    wf: str | None = None, wu: str | None = None, sf: int | None = None, su: int | None = None
) -> Validity:
    """Build a validity from date texts, keyed with `world_key` as the writers will."""
    return Validity(
        world_from=wf,
        world_from_key=world_key(parse_date(wf)) if wf else None,
        world_until=wu,
        world_until_key=world_key(parse_date(wu)) if wu else None,
        story_from=sf,
        story_until=su,
    )


class World:
    """A hand-built snapshot: entities and statements with evidence that says where each came from."""

    def __init__(self) -> None:
        self.entities: dict[int, Entity] = {}
        self.statements: list[Statement] = []
        self.dependencies: dict[int, list[tuple[str, int]]] = {}
        self._ids = itertools.count(1)

    def entity(
        self,
        name: str,
        type_: str = "NPC",
        *,
        key: str | None = None,
        retconned: bool = False,
        authority: Authority = Authority.GM,
        **dates: Any,
    ) -> int:
        entity_id = next(self._ids)
        self.entities[entity_id] = Entity(
            id=entity_id,
            type=type_,
            name=name,
            key=key,
            kind=base_ontology().entity_types[type_].kind.value,
            validity=validity(**dates),
            provenance=provenance(retconned=retconned, authority=authority),
        )
        return entity_id

    def _add(
        self,
        kind: StatementKind,
        subject: int,
        predicate: str,
        *,
        obj: int | None = None,
        value: str | None = None,
        via: str | None = None,
        authority: Authority = Authority.GM,
        confidence: float = 1.0,
        retconned: bool = False,
        replaces: int | None = None,
        depends_on: list[tuple[str, int]] | None = None,
        statement_id: int | None = None,
        **dates: Any,
    ) -> Statement:
        sid = statement_id if statement_id is not None else 100 + len(self.statements)
        v = validity(**dates)
        if v.story_from is not None:
            evidence = (
                Evidence(kind=EvidenceKind.TURNS, scene_id=v.story_from, turn_from=sid, turn_to=sid + 1),
            )
        else:
            evidence = (Evidence(kind=EvidenceKind.YAML, file="lore.yaml", line=sid),)
        statement = Statement(
            id=sid,
            kind=kind,
            subject_id=subject,
            predicate=predicate,
            object_id=obj,
            value=value,
            via=via,
            validity=v,
            replaces_id=replaces,
            provenance=provenance(authority, confidence, retconned=retconned),
            evidence=evidence,
        )
        self.statements.append(statement)
        if depends_on:
            self.dependencies[sid] = depends_on
        return statement

    def state(self, subject: int, value: str, **kw: Any) -> Statement:
        return self._add(StatementKind.STATE, subject, "state", value=value, **kw)

    def rel(self, subject: int, predicate: str, obj: int, **kw: Any) -> Statement:
        return self._add(StatementKind.RELATION, subject, predicate, obj=obj, **kw)

    def attr(self, subject: int, predicate: str, value: str, **kw: Any) -> Statement:
        return self._add(StatementKind.ATTRIBUTE, subject, predicate, value=value, **kw)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.entities, list(self.statements), self.dependencies, base_ontology())

    def check(self, focus: list[int] | None = None) -> list[Finding]:
        return check(self.snapshot(), focus=focus)


def only(findings: list[Finding], kind: ConflictKind) -> Finding:
    """Return the one finding, asserting it is of `kind` and alone."""
    assert [f.kind for f in findings] == [kind], [f.message for f in findings]
    return findings[0]


def side_of(finding: Finding, statement: Statement) -> Side:
    found = [s for s in finding.sides if s.statement_id == statement.id]
    assert len(found) == 1, finding.sides
    return found[0]
