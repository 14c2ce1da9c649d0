"""Ingest stage 5: the continuity checks on what the import wrote, and the YAML prevailing over prose and play.

The continuity rules (`canon.continuity`) run on the statements written (and on facts left about entities the
import retcons); their findings come back as warnings and are recorded in the conflicts table. A YAML fact that
contradicts a fact of lower authority (prose, play) on the same attribute, or on a limited relation slot (two
parents, one era per event ...), wins: the conflict is recorded as `contradicts_higher_authority`, citing both
sides with their evidence and naming the YAML fact as the one that prevails, and the other fact is kept but
superseded (retconned, replaced by the YAML fact). Of a limited slot only as many of the weakest facts go as
the limit needs. A GM's own word outranks YAML (`canon.models.AUTHORITY_RANK`): then nothing is superseded,
and the open conflict is the GM's to decide.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from canon.checks import (
    entities_snapshot,
    neighbourhood_snapshot,
    record_findings,
    whole_snapshot,
    with_evidence,
)
from canon.continuity import ConflictKind, Finding, Side, Snapshot, check, fingerprint
from canon.graph import bulk_insert
from canon.models import (
    AUTHORITY_RANK,
    Authority,
    CanonLevel,
    Entity,
    Statement,
    StatementKind,
    Visibility,
)
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState
from canon.structured.write import Writer
from canon.tables import StatusChangeRow
from canon.wording import Wording, warning_sentence
from canon.wording.relations import attribute_words, fact_sentence, is_or_are

# The checks read the neighbourhood of at most this many statements by id, else the whole campaign once ...
_NEIGHBOURHOOD_LIMIT = 400
# ... and the neighbourhood of at most this many existing entities touched by new facts.
_EXISTING_LIMIT = 1000
_VISIBILITY = {v.value: v for v in Visibility}


class Checks:
    """Check what one ingest wrote, and let its YAML facts prevail over facts of lower authority."""

    def __init__(self, w: Writer) -> None:
        self.w = w
        self.state: IngestState = w.state
        # Cardinality contradictions the YAML wins, by fingerprint: the weakest facts the slot's limit drops.
        self.over_limit: dict[str, list[int]] = {}

    async def run(self, written: list[int]) -> list[IngestWarning]:
        """Run the continuity rules on the new statements (and on facts left about retconned entities)."""
        focus = [*written, *self.w.dangling]
        if not focus:
            return []
        if self.w.dangling:
            snapshot = (
                await neighbourhood_snapshot(self.state.reader, focus)
                if len(focus) <= _NEIGHBOURHOOD_LIMIT
                else await whole_snapshot(self.state.reader)
            )
        else:
            snapshot = await self._snapshot()
        found = check(snapshot, focus=set(focus))
        findings = await with_evidence(self.state.reader, self._yaml_prevails(found, snapshot))
        findings, superseded = await self._supersede(findings, snapshot)
        new = {
            f.fingerprint for f in await record_findings(self.state.session, self.state.campaign_id, findings)
        }
        # The GM reads the warnings: dates in the campaign calendar's words (a GM-only era's too), never keys.
        words = Wording(calendar=(await self.state.reader.calendar()).words())
        return [
            IngestWarning(
                kind=f.kind.value,
                message=warning_sentence(f.message, words),
                sides=tuple(
                    words.calendar.in_words(
                        side.sentence
                        + (
                            " — " + "; ".join(e.describe() for e in side.evidence[:2])
                            if side.evidence
                            else ""
                        )
                    )
                    for side in f.sides
                ),
                statement_ids=f.statement_ids,
                entity_ids=f.entity_ids,
                prevailing_id=f.prevailing_id,
                superseded_ids=superseded.get(f.fingerprint, ()),
                new=f.fingerprint in new,
            )
            for f in findings
        ]

    async def _supersede(
        self, findings: list[Finding], snapshot: Snapshot
    ) -> tuple[list[Finding], dict[str, tuple[int, ...]]]:
        """Retcon the facts of lower authority a new YAML fact prevails over, each replaced by that YAML fact.

        Returns the findings (saying so in their message) and the superseded statement ids by fingerprint.
        """
        by_id = {s.id: s for s in snapshot.statements}
        losers: dict[int, tuple[int, str]] = {}  # superseded statement -> (the YAML fact, why)
        by_finding: dict[str, tuple[int, ...]] = {}
        for finding in findings:
            winner = by_id.get(finding.prevailing_id or 0)
            if finding.kind != ConflictKind.CONTRADICTS_HIGHER_AUTHORITY or winner is None:
                continue
            if winner.id not in self.w.yaml_written:
                continue  # an older YAML fact: the conflict was there before this import
            ids = self.over_limit.get(finding.fingerprint)
            if ids is None:
                ids = [
                    s.id
                    for s in (by_id.get(side.statement_id or 0) for side in finding.sides)
                    if s is not None and s.id not in self.w.yaml_written and _rank(s) < _rank(winner)
                ]
            file, line = self.w.written_where(winner.id)
            why = f"Contradicted by the YAML lore ({file}, line {line}), which prevails: superseded by #{winner.id}."
            for loser in (i for i in ids if i not in losers):
                losers[loser] = (winner.id, why)
            if ids:
                by_finding[finding.fingerprint] = tuple(sorted(ids))
        standing = set(losers) - await self.state.retconned("statement", losers)
        if not standing:
            return findings, {}
        for loser in sorted(standing):
            winner_id, why = losers[loser]
            self.w.retcon("statement", loser, winner_id, why)
        await bulk_insert(self.state.session, StatusChangeRow.__table__, self.w.status_rows)
        self.w.status_rows = []
        self.state.statement_counts["superseded"] += len(standing)
        superseded = {fp: tuple(i for i in ids if i in standing) for fp, ids in by_finding.items()}
        marked = []
        for finding in findings:
            gone = superseded.get(finding.fingerprint, ())
            if gone:
                listed = ", ".join(f"(fact {i})" for i in gone)
                note = f" The YAML fact is now the current one; superseded (kept, not deleted): {listed}."
                finding = finding.model_copy(update={"message": finding.message + note})
            marked.append(finding)
        return marked, {fp: ids for fp, ids in superseded.items() if ids}

    async def _snapshot(self) -> Snapshot:
        """Return the snapshot the checks read: what was just written, from memory, plus the existing entities
        it touches (their facts, neighbours and parents) from the database, or the whole campaign when
        those are many."""
        created = self.w.created_rows.keys()
        subjects = {s.subject_id for s in self.w.new_statements} - created
        # Existing entities the new facts only point at (a roster's factions): what a rule can pair with such
        # a relation is read of them, not all that is said about them.
        ends: dict[int, set[str]] = {}
        for s in self.w.new_statements:
            if s.object_id is not None and s.object_id not in created and s.object_id not in subjects:
                ends.setdefault(s.object_id, set()).add(s.predicate)
        if len(subjects) + len(ends) > _EXISTING_LIMIT:
            return await whole_snapshot(self.state.reader)
        # The new entities and every fact about them are in memory: the database is read for the rest only.
        base = (
            await entities_snapshot(self.state.reader, subjects, held=created, ends=ends)
            if subjects or ends
            else None
        )
        provenance = self.w.provenance(Authority.SOURCE, 1.0)
        entities: dict[int, Entity] = dict(base.entities) if base is not None else {}
        plans = self.w.created_plans
        for entity_id, row in self.w.created_rows.items():
            entities[entity_id] = Entity(
                id=entity_id,
                type=row["type"],
                name=row["name"],
                provenance=provenance,
                key=row["key"],
                kind=row["kind"],
                visibility=_VISIBILITY[row["visibility"]],
                validity=plans[entity_id].validity,  # the row's, as one object (shared by most entities)
            )
        statements = list(base.statements) if base is not None else []
        known = {s.id for s in statements}
        statements += [s for s in self.w.new_statements if s.id not in known]
        return Snapshot(
            entities=entities,
            statements=statements,
            dependencies=base.dependencies if base is not None else {},
            ontology=self.state.ontology,
        )

    def _yaml_prevails(self, findings: list[Finding], snapshot: Snapshot) -> list[Finding]:
        """Turn a limit broken by YAML facts plus facts of lower authority into a contradiction the YAML wins."""
        by_id = {s.id: s for s in snapshot.statements}
        yaml_ids = _LazyIds(self._yaml_ids)
        result: list[Finding] = []
        for finding in findings:
            if finding.kind != ConflictKind.CARDINALITY:
                result.append(finding)
                continue
            sides = [(side, by_id.get(side.statement_id or 0)) for side in finding.sides]
            ours = [(side, s) for side, s in sides if s is not None and s.id in yaml_ids]
            theirs = [(side, s) for side, s in sides if s is not None and s.id not in yaml_ids]
            if not ours or not theirs:
                result.append(finding)
                continue
            top = max(_rank(s) for _, s in ours)
            if any(_rank(s) >= top for _, s in theirs):
                result.append(finding)
                continue
            dropped = self._beyond_limit([s for _, s in ours], [s for _, s in theirs])
            said = "; ".join(side.sentence for side, _ in ours)
            other = "; ".join(f"{side.sentence} (from {_who(s)})" for side, s in theirs)
            message = f"{other} contradicts the YAML lore ({said}); the YAML prevails."
            ordered = tuple(side for side, _ in ours) + tuple(side for side, _ in theirs)
            statement_ids = tuple(sorted({s.id for _, s in ours} | {s.id for _, s in theirs}))
            kind = ConflictKind.CONTRADICTS_HIGHER_AUTHORITY
            prints = fingerprint(kind, statement_ids, finding.entity_ids)
            prevailing = next((s for _, s in ours if s.id in self.w.yaml_written), ours[0][1])
            self.over_limit[prints] = dropped
            result.append(
                Finding(
                    kind=kind,
                    message=message,
                    sides=ordered,
                    entity_ids=finding.entity_ids,
                    statement_ids=statement_ids,
                    prevailing_id=prevailing.id,
                    fingerprint=prints,
                )
            )
        known = {f.fingerprint for f in result}
        result += [
            f for f in self._attribute_contradictions(snapshot, yaml_ids) if f.fingerprint not in known
        ]
        return result

    def _yaml_ids(self) -> set[int]:
        """Return the ids of every YAML statement the campaign's files claim, this import's included."""
        yaml_ids = set(self.w.yaml_written)
        for claims in [*self.w.new_versions.values(), *(r.statements for r in self.state.versions.values())]:
            yaml_ids |= {int(v[0]) for v in claims.values()}
        return yaml_ids

    def _beyond_limit(self, ours: list[Statement], theirs: list[Statement]) -> list[int]:
        """Return the relations of lower authority a slot must lose to fit its limit beside the YAML's, weakest
        (then newest) first; one that names the same entity as a YAML relation agrees with it and stays."""
        group = [*ours, *theirs]
        rel = self.state.ontology.relation_types.get(group[0].predicate)
        ends = set.intersection(*({s.subject_id, s.object_id or s.subject_id} for s in group))
        if rel is None or not ends:
            return [s.id for s in theirs]
        anchor = min(ends)
        outgoing = all(s.subject_id == anchor for s in group)
        if rel.symmetric:
            limits = [x for x in (rel.max_incoming, rel.max_outgoing) if x is not None]
        else:
            limits = [x for x in ((rel.max_outgoing,) if outgoing else (rel.max_incoming,)) if x is not None]
        if not limits:
            return [s.id for s in theirs]

        def other_end(s: Statement) -> int | None:
            return s.object_id if s.subject_id == anchor else s.subject_id

        kept = {other_end(s) for s in ours}
        remaining = sorted(
            (s for s in theirs if other_end(s) not in kept),
            key=lambda s: (_rank(s), -s.provenance.changeset_id, -s.id),
        )
        dropped: list[int] = []
        while remaining and len(kept | {other_end(s) for s in remaining}) > min(limits):
            dropped.append(remaining.pop(0).id)
        return dropped

    def _attribute_contradictions(self, snapshot: Snapshot, yaml_ids: _LazyIds) -> list[Finding]:
        """Find facts of prose or play that give a new YAML attribute another value at an overlapping time.

        The continuity rules let a fact of play (dated by scene) supersede a timeless one; YAML lore is
        timeless when it gives no date, so it holds at every time, and a different value is a contradiction.
        """
        new_attributes = [
            s
            for s in self.w.new_statements
            if s.kind == StatementKind.ATTRIBUTE and s.id in self.w.yaml_written
        ]
        if not new_attributes:
            return []
        wanted = {(s.subject_id, s.predicate) for s in new_attributes}
        others: dict[tuple[int, str], list[Statement]] = defaultdict(list)
        written = self.w.yaml_written
        for s in snapshot.statements:
            key = (s.subject_id, s.predicate)
            if (
                key in wanted
                and s.kind == StatementKind.ATTRIBUTE
                and s.id not in written  # this import's own: YAML (asked first: the other files' are many)
                and s.id not in yaml_ids
                and s.provenance.level != CanonLevel.RETCONNED
            ):
                others[key].append(s)
        names = {i: e.name for i, e in snapshot.entities.items()}
        found: list[Finding] = []
        for ours in new_attributes:
            for theirs in others.get((ours.subject_id, ours.predicate), ()):
                if _normal(theirs.value) == _normal(ours.value) or not _world_overlap(ours, theirs):
                    continue
                found.append(_contradiction(ours, theirs, names.get(ours.subject_id, f"#{ours.subject_id}")))
        return found


class _LazyIds:
    """A set of ids built at the first question (the YAML statements of a big campaign's files: tens of
    thousands, wanted only when a finding or a contradicting fact must be told apart from them)."""

    def __init__(self, build: Callable[[], set[int]]) -> None:
        self._build = build
        self._ids: set[int] | None = None

    def __contains__(self, statement_id: object) -> bool:
        if self._ids is None:
            self._ids = self._build()
        return statement_id in self._ids


def _normal(value: str | None) -> str:
    return " ".join((value or "").casefold().split())


def _world_overlap(a: Statement, b: Statement) -> bool:
    """Tell whether two facts can hold at once on the world clock (a fact without world dates holds always)."""
    va, vb = a.validity, b.validity
    if va.world_from_key is None and va.world_until_key is None:
        return True
    if vb.world_from_key is None and vb.world_until_key is None:
        return True
    lo_a = va.world_from_key if va.world_from_key is not None else -(2**62)
    lo_b = vb.world_from_key if vb.world_from_key is not None else -(2**62)
    hi_a = va.world_until_key if va.world_until_key is not None else 2**62
    hi_b = vb.world_until_key if vb.world_until_key is not None else 2**62
    return max(lo_a, lo_b) <= min(hi_a, hi_b)


def _sentence(s: Statement, name: str) -> str:
    when = s.validity.describe()
    return fact_sentence(name, s.predicate, s.value or "") + (f" ({when})" if when else "")


def _contradiction(ours: Statement, theirs: Statement, name: str) -> Finding:
    """Return the conflict between a YAML fact and another one: the higher authority prevails."""
    rank_ours, rank_theirs = _rank(ours), _rank(theirs)
    if rank_ours > rank_theirs:
        prevailing: int | None = ours.id
        verdict = "the YAML prevails"
    elif rank_theirs > rank_ours:
        prevailing = theirs.id
        verdict = f"{_who(theirs)} prevails"
    else:
        prevailing = None
        verdict = "neither outranks the other"
    words = attribute_words(ours.predicate)
    message = (
        f"{name}'s {words} {is_or_are(words)} “{theirs.value}” according to {_who(theirs)}, contradicting "
        f"“{ours.value}” from the YAML lore; {verdict}."
    )
    sides = (
        Side(statement_id=ours.id, sentence=_sentence(ours, name), evidence=ours.evidence),
        Side(statement_id=theirs.id, sentence=_sentence(theirs, name), evidence=theirs.evidence),
    )
    kind = ConflictKind.CONTRADICTS_HIGHER_AUTHORITY
    statement_ids = tuple(sorted((ours.id, theirs.id)))
    entity_ids = (ours.subject_id,)
    return Finding(
        kind=kind,
        message=message,
        sides=sides,
        entity_ids=entity_ids,
        statement_ids=statement_ids,
        prevailing_id=prevailing,
        fingerprint=fingerprint(kind, statement_ids, entity_ids),
    )


def _rank(s: Statement) -> tuple[int, float]:
    return AUTHORITY_RANK[s.provenance.authority], s.provenance.confidence


_WHO = {
    Authority.GM: "the GM",
    Authority.SOURCE: "an imported source",
    Authority.PLAYER: "play",
    Authority.SYSTEM: "an inference",
}


def _who(s: Statement) -> str:
    words = _WHO[s.provenance.authority]
    return words if s.provenance.confidence >= 1 else f"{words}, confidence {s.provenance.confidence:g}"
