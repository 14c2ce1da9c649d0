"""Running the continuity rules against the database: snapshots of the graph, and the conflicts table.

`canon.continuity` is pure; this module feeds it. A check around new statements loads only their
neighbourhood (the entities they touch, those entities' relations and parents); the whole-graph check loads
every standing row of the campaign's lineage once. Findings are recorded by fingerprint, so a problem found
again is not reported as new.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.continuity import (
    OCCURRED_DURING,
    PARENT_OF,
    PART_OF,
    SUB_ERA_OF,
    Finding,
    Side,
    Snapshot,
    check,
)
from canon.graph import CanonReader, lineage_filter
from canon.ontology import Ontology
from canon.storage import utc_now
from canon.tables import ConflictRow, DependencyRow, StatementRow


async def _dependencies(
    reader: CanonReader, statement_ids: Collection[int] | None
) -> dict[int, list[tuple[str, int]]]:
    """Return what each statement depends on (every dependency of the lineage when `statement_ids` is None)."""
    found: dict[int, list[tuple[str, int]]] = {}
    if statement_ids is None:
        query = select(
            DependencyRow.statement_id, DependencyRow.depends_on_kind, DependencyRow.depends_on_id
        ).where(lineage_filter(DependencyRow, reader.steps))
        for statement_id, kind, target in (await reader.session.execute(query)).all():
            found.setdefault(statement_id, []).append((kind, target))
        return found
    ids = list(statement_ids)
    for start in range(0, len(ids), 500):
        query = select(
            DependencyRow.statement_id, DependencyRow.depends_on_kind, DependencyRow.depends_on_id
        ).where(
            DependencyRow.statement_id.in_(ids[start : start + 500]),
            lineage_filter(DependencyRow, reader.steps),
        )
        for statement_id, kind, target in (await reader.session.execute(query)).all():
            found.setdefault(statement_id, []).append((kind, target))
    return found


# What the rules read of the entities at the other end of a relation: parents' lives (their states), an
# event's era (its sub-era links), a place's containers. Nothing else of theirs can take part in
# a finding about the entities a check is around, and reading all of it pulls in most of a dense graph.
_NEIGHBOUR_PREDICATES = ("state", PARENT_OF, PART_OF, SUB_ERA_OF)


async def neighbourhood_snapshot(reader: CanonReader, statement_ids: Collection[int]) -> Snapshot:
    """Return a snapshot around some statements: their entities and those entities' neighbourhood (see
    `entities_snapshot`), and what the statements rely on (a retconned fact they cite)."""
    seed = await reader.statements(statement_ids=statement_ids, include_retconned=True, with_evidence=False)
    entity_ids = {s.subject_id for s in seed} | {s.object_id for s in seed if s.object_id is not None}
    relied = [
        target for targets in (await _dependencies(reader, statement_ids)).values() for target in targets
    ]
    entity_ids |= {target for kind, target in relied if kind == "entity"}
    return await entities_snapshot(
        reader, entity_ids, relied_on=[target for kind, target in relied if kind == "statement"]
    )


async def entities_snapshot(
    reader: CanonReader,
    entity_ids: Collection[int],
    *,
    relied_on: Collection[int] = (),
    held: Collection[int] = (),
    ends: Mapping[int, Collection[str]] | None = None,
) -> Snapshot:
    """Return a snapshot of some entities: everything said about them, and of the entities at the other end
    what the rules read (their states, parents, containers and sub-eras); `relied_on` adds statements.

    `held` are entities the caller already holds, with every statement about them (an import's new entities):
    they are neither read nor followed as neighbours, and the caller adds them to the snapshot.

    `ends` are entities that new facts (about held entities) only point at, each with the predicates of those
    relations: of them only what a rule can pair with such a relation is read, their neighbours' facts (states,
    parents, containers, sub-eras) and their relations of those predicates (the limits of a slot, both ways
    for a symmetric one); not everything said about them."""
    ids = set(entity_ids)
    pointed = {i: p for i, p in (ends or {}).items() if i not in ids}
    # Of an entity new facts only point at, the entity alone serves most relations: its facts are read only
    # where a rule pairs such a relation with them.
    wanted = {i: p for i, p in pointed.items() if any(_pairs_with_facts(x, reader.ontology) for x in p)}
    if not ids and not wanted and not relied_on:
        entities = await reader.entities(
            pointed.keys() - set(held), include_retconned=True, with_aliases=False
        )
        return Snapshot(entities=entities, statements=[], dependencies={}, ontology=reader.ontology)
    if wanted:
        statements = await reader.statements(
            where=[_about(ids, wanted)], include_retconned=True, with_evidence=False
        )
    else:
        statements = await reader.statements(
            subject_ids=ids, object_ids=ids, include_retconned=True, with_evidence=False
        )
    known = {s.id for s in statements}
    if relied_on:
        cited = await reader.statements(statement_ids=relied_on, include_retconned=True, with_evidence=False)
        statements += [s for s in cited if s.id not in known]
        known |= {s.id for s in cited}
    related = {s.subject_id for s in statements} | {
        s.object_id for s in statements if s.object_id is not None
    }
    extra = related - ids - wanted.keys() - set(held)
    if extra:
        more = await reader.statements(
            subject_ids=extra,
            predicates=_NEIGHBOUR_PREDICATES,
            include_retconned=True,
            with_evidence=False,
        )
        statements += [s for s in more if s.id not in known]
        related |= {s.subject_id for s in more} | {s.object_id for s in more if s.object_id is not None}
    entities = await reader.entities(
        (related | ids | pointed.keys()) - set(held), include_retconned=True, with_aliases=False
    )
    dependencies = await _dependencies(reader, [s.id for s in statements])
    return Snapshot(
        entities=entities, statements=statements, dependencies=dependencies, ontology=reader.ontology
    )


def _pairs_with_facts(predicate: str, ontology: Ontology) -> bool:
    """Tell whether a rule can pair a new relation of this predicate with facts of the entity it points at:
    the parents of a child and the child's life, the containers of a place (two places at once), the parent
    eras of an era (an event's era bounds), and the other relations a limit counts at that end. Everything
    else a rule reads of that entity is the entity itself (its name, dates, standing)."""
    if predicate in (PARENT_OF, PART_OF, SUB_ERA_OF, OCCURRED_DURING):
        return True
    rel = ontology.relation_types.get(predicate)
    if rel is None:
        return False
    limited = rel.max_incoming is not None or (rel.symmetric and rel.max_outgoing is not None)
    return limited or rel.single_place


def _about(ids: Collection[int], pointed: Mapping[int, Collection[str]]) -> ColumnElement[bool]:
    """Return the condition on statements `entities_snapshot` reads: every one about `ids`, and of the entities
    `pointed` at their neighbours' facts and their relations of the predicates pointing at them."""
    c = StatementRow.__table__.c
    predicates = sorted({p for found in pointed.values() for p in found})
    ends = sorted(pointed)
    clauses: list[ColumnElement[bool]] = [
        and_(c.subject_id.in_(ends), c.predicate.in_(sorted({*_NEIGHBOUR_PREDICATES, *predicates}))),
        and_(c.object_id.in_(ends), c.predicate.in_(predicates)),
    ]
    if ids:
        clauses += [c.subject_id.in_(sorted(ids)), c.object_id.in_(sorted(ids))]
    return or_(*clauses)


async def whole_snapshot(reader: CanonReader) -> Snapshot:
    """Return a snapshot of the campaign's whole graph (evidence is attached to findings afterwards)."""
    entities = await reader.all_entities(include_retconned=True)
    statements = await reader.statements(include_retconned=True, with_evidence=False)
    dependencies = await _dependencies(reader, None)
    return Snapshot(
        entities=entities, statements=statements, dependencies=dependencies, ontology=reader.ontology
    )


async def findings_around(reader: CanonReader, statement_ids: Collection[int]) -> list[Finding]:
    """Return the continuity findings that involve some statements (new or hypothetical ones)."""
    if not statement_ids:
        return []
    snapshot = await neighbourhood_snapshot(reader, statement_ids)
    return await with_evidence(reader, check(snapshot, focus=set(statement_ids)))


async def whole_graph_findings(reader: CanonReader) -> list[Finding]:
    """Return every continuity finding of the campaign's graph, each side with its evidence."""
    return await with_evidence(reader, check(await whole_snapshot(reader)))


async def with_evidence(reader: CanonReader, findings: list[Finding]) -> list[Finding]:
    """Attach the evidence of every side of the findings (snapshots are loaded without it: it is big)."""
    if not findings:
        return findings
    statement_ids = sorted({side.statement_id for f in findings for side in f.sides if side.statement_id})
    entity_ids = sorted({side.entity_id for f in findings for side in f.sides if side.entity_id})
    evidence = {
        "statement": await reader.evidence("statement", statement_ids),
        "entity": await reader.evidence("entity", entity_ids),
    }

    def attach(side: Side) -> Side:
        kind, target = ("statement", side.statement_id) if side.statement_id else ("entity", side.entity_id)
        found = evidence[kind].get(target or 0)
        return side.model_copy(update={"evidence": tuple(found)}) if found and not side.evidence else side

    return [f.model_copy(update={"sides": tuple(attach(s) for s in f.sides)}) for f in findings]


async def record_findings(
    session: AsyncSession,
    campaign_id: int,
    findings: Sequence[Finding],
    *,
    accepted: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Record findings in the conflicts table; return those never seen before (for "post only new conflicts").

    `accepted` maps the fingerprints of findings the GM accepted anyway to the rationale given; they are
    recorded as accepted, every other new finding as open.
    """
    if not findings:
        return []
    prints = [f.fingerprint for f in findings]
    known = set(
        (
            await session.execute(
                select(ConflictRow.fingerprint).where(
                    ConflictRow.campaign_id == campaign_id, ConflictRow.fingerprint.in_(prints)
                )
            )
        ).scalars()
    )
    now = utc_now()
    overridden = accepted or {}
    new: list[Finding] = []
    for finding in findings:
        if finding.fingerprint in known:
            continue
        known.add(finding.fingerprint)
        new.append(finding)
        session.add(
            ConflictRow(
                campaign_id=campaign_id,
                kind=finding.kind.value,
                fingerprint=finding.fingerprint,
                message=finding.message,
                details=finding.model_dump(mode="json"),
                status="accepted" if finding.fingerprint in overridden else "open",
                rationale=overridden.get(finding.fingerprint),
                first_seen_at=now,
                last_seen_at=now,
            )
        )
    await session.flush()
    return new


class RecordedConflict(BaseModel):
    """A conflict as recorded: what was found, when, and whether and how it was closed (`canon.conflicts`)."""

    model_config = ConfigDict(frozen=True)

    id: int
    kind: str
    message: str
    #: The finding as the check recorded it (stored as JSON, read back typed).
    details: Finding
    status: str
    rationale: str | None
    first_seen_at: dt.datetime
    resolution: str | None = None
    closed_at: dt.datetime | None = None
    closed_by: str | None = None


def conflict_from_row(r: ConflictRow) -> RecordedConflict:
    """Return a recorded conflict from its row."""
    return RecordedConflict(
        id=r.id,
        kind=r.kind,
        message=r.message,
        details=Finding.model_validate(r.details),
        status=r.status,
        rationale=r.rationale,
        first_seen_at=r.first_seen_at,
        resolution=r.resolution,
        closed_at=r.closed_at,
        closed_by=r.closed_by,
    )


async def recorded_conflicts(
    session: AsyncSession, campaign_id: int, *, limit: int = 50
) -> list[RecordedConflict]:
    """Return the campaign's recorded conflicts, newest first."""
    query = (
        select(ConflictRow)
        .where(ConflictRow.campaign_id == campaign_id)
        .order_by(ConflictRow.id.desc())
        .limit(limit)
    )
    return [conflict_from_row(r) for r in (await session.execute(query)).scalars()]
