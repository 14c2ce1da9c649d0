"""Ingest stage 4, statements: write only the difference between what the files say and what they said before.

- a slot whose fact is unchanged keeps its statement; a fact another file (or slot) already states identically
  is that statement, with evidence from this file too;
- a slot whose value changed: the old statement is retconned and the new one `replaces` it; a slot that
  disappeared: its statement is retconned (never deleted);
- standing statements about an entity that was replaced (whoever wrote them) are carried over: retconned, and
  written again about the replacing entity, with `replaces`.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, cast

from sqlalchemy import Table

from canon.graph import VALIDITY_COLUMNS, CanonWriter, insert_returning_ids
from canon.models import Authority, Evidence, EvidenceKind, Statement
from canon.structured.changes import ADDED, GONE, REPLACED
from canon.structured.facts import Fact, statement_fingerprint
from canon.structured.versions import CHUNK, FileVersion
from canon.structured.write import Placed, Writer
from canon.tables import StatementRow

# The columns of a new YAML statement's row, in the order `_new_rows` gives them: those every statement of one
# validity shares (the changeset's, the validity's, authority and confidence), then its own (`via` stays NULL).
STATEMENT_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    *VALIDITY_COLUMNS,
    "authority",
    "confidence",
    "kind",
    "subject_id",
    "predicate",
    "object_id",
    "value",
    "visibility",
    "replaces_id",
)
_STATEMENTS = cast(Table, StatementRow.__table__)
_SOURCE = Authority.SOURCE.value
# A validity's columns (its fields bear their names).
_validity_values = attrgetter(*VALIDITY_COLUMNS)
# A fact waiting for its statement: (file, fact, the statement its slot held before, if any).
_Undecided = tuple[str, Fact, int | None]
# A statement carried over: (the old one, its copy about the replacing entity, its placeholder, the record
# slots to repoint: (file record, slot, fingerprint)).
_Carried = tuple[Statement, Statement, int, list[tuple[FileVersion, str, str]]]


async def write_statements(w: Writer, facts: dict[str, dict[str, Fact]]) -> list[int]:
    """Write what changed; share identical facts; retcon what is gone; carry over facts of replaced entities.

    Returns the ids of the statements written (new YAML facts and carried-over ones), for the checks.
    """
    state = w.state
    old_claims: dict[str, dict[str, list[Any]]] = {
        name: state.versions[name].statements for name in state.changed_names if name in state.versions
    }
    pending = await _keep_and_share(w, facts, old_claims)
    # Old statements nobody states any more are retconned (by the fact now in their slot, if any). The other
    # files' claims are read only when there are old ones (a re-import): a first import has none.
    gone: dict[int, tuple[str, str]] = {}  # old statement id -> (file, slot)
    if any(old_claims.values()):
        others = [v for name, v in state.versions.items() if name not in state.changed_names]
        still_claimed = {int(v[0]) for r in others for v in r.statements.values()}
        still_claimed |= {int(v[0]) for c in w.new_versions.values() for v in c.values()}
        for name, old in old_claims.items():
            for slot, (statement_id, _fp) in old.items():
                if int(statement_id) not in still_claimed:
                    gone[int(statement_id)] = (name, slot)
    already = await state.retconned("statement", gone)
    placed, rows = _new_rows(w, pending, gone, already)
    canon_writer = CanonWriter(state.session, w.changeset, state.ontology, deferred=True)
    carried = await _carry_over(w, canon_writer, set(gone))
    await _find_dangling(w, set(gone))
    ids = await insert_returning_ids(state.session, _STATEMENTS, rows, columns=STATEMENT_COLUMNS)
    mapping = await canon_writer.flush()
    written = _record_new(w, facts, placed, ids)
    # The new statement in each slot whose old one is gone (its replacement).
    slot_ids = {(name, fact.slot): ids[place] for name, fact, place, _, _ in placed} if gone else {}
    for original, copy, placeholder, record_slots in carried:
        new_id = mapping[placeholder]
        written.append(new_id)
        w.new_statements.append(dataclasses.replace(copy, id=new_id))
        w.retcon(
            "statement",
            original.id,
            new_id,
            "Carried over to the entity that replaced its subject or object.",
        )
        for record, slot, fp in record_slots:
            record.statements[slot] = [new_id, fp]
            record.dirty = True
    for statement_id, (name, slot) in gone.items():
        if statement_id in already:
            continue
        replacement = slot_ids.get((name, slot))
        why = f"Changed in {name}." if replacement is not None else f"No longer stated in {name}."
        w.retcon("statement", statement_id, replacement, why)
        state.statement_counts["retconned"] += 1
        state.slot_changes.setdefault(name, []).append((REPLACED if replacement is not None else GONE, slot))
    state.statement_counts["carried_over"] += len(carried)
    return written


async def _keep_and_share(
    w: Writer, facts: dict[str, dict[str, Fact]], old_claims: dict[str, dict[str, list[Any]]]
) -> list[_Undecided]:
    """Keep the statement of every slot whose fact is unchanged, share those another slot or file states;
    return the facts that need a new statement."""
    unchanged = shared_count = 0
    undecided: list[_Undecided] = []
    for name, own in facts.items():
        old = old_claims.get(name, {})
        claims: dict[str, list[Any]] = {}
        w.new_versions[name] = claims
        for slot, fact in own.items():
            before = old.get(slot)
            if before is None:
                undecided.append((name, fact, None))
            elif before[1] == fact.fp:
                claims[slot] = [int(before[0]), fact.fp]
                unchanged += 1
            else:
                undecided.append((name, fact, int(before[0])))
    shareable = await _shareable(w, {fact.fp for _, fact, _ in undecided})
    if not shareable:
        pending = undecided
    else:
        pending = []
        old_ids = {name: {int(v[0]) for v in claims.values()} for name, claims in old_claims.items()}
        for name, fact, slot_was in undecided:
            shared = shareable.get(fact.fp)
            if shared is None:
                pending.append((name, fact, slot_was))
                continue
            w.new_versions[name][fact.slot] = [shared, fact.fp]
            if shared in old_ids.get(name, ()):
                unchanged += 1
            else:
                w.evidence("statement", shared, name, fact.line)
                shared_count += 1
    counts = w.state.statement_counts
    counts["unchanged"] += unchanged
    counts["shared"] += shared_count
    return pending


def _new_rows(
    w: Writer, pending: list[_Undecided], gone: dict[int, Any], already: set[int]
) -> tuple[list[Placed], list[tuple[Any, ...]]]:
    """Return each fact's place among the new statements and their rows, in `STATEMENT_COLUMNS` order; a fact
    two files of this import state alike is one statement (written for the first, shared by the others).

    A fact becomes its row directly (no dict, no intermediate statement): the columns every statement of one
    validity shares are built once per validity.
    """
    placed: list[Placed] = []
    rows: list[tuple[Any, ...]] = []
    first_of: dict[str, int] = {}  # fingerprint -> place in `rows`
    stamp = (w.state.campaign_id, w.changeset.id, w.changeset.recorded_at)
    heads: dict[int, tuple[Any, ...]] = {}  # the shared columns, by identity of the validity
    changed = shared = 0
    for name, fact, slot_was in pending:
        replaces = slot_was if slot_was is not None and slot_was in gone and slot_was not in already else None
        fp = fact.fp
        if fp in first_of:
            placed.append((name, fact, first_of[fp], None, False))
            shared += 1
            continue
        validity = fact.validity
        head = heads.get(id(validity))
        if head is None:
            head = heads[id(validity)] = (*stamp, *_validity_values(validity), _SOURCE, 1.0)
        place = first_of[fp] = len(rows)
        rows.append(
            (
                *head,
                fact.kind._value_,
                fact.subject_id,
                fact.predicate,
                fact.object_id,
                fact.value,
                fact.visibility._value_,
                replaces,
            )
        )
        placed.append((name, fact, place, replaces, True))
        if replaces is not None:
            changed += 1
        elif slot_was is None and name in w.state.versions:  # a fact a file imported before now adds
            w.state.slot_changes.setdefault(name, []).append((ADDED, fact.slot))
    counts = w.state.statement_counts
    counts["shared"] += shared
    counts["changed"] += changed
    counts["created"] += len(rows) - changed
    return placed, rows


def _record_new(
    w: Writer, facts: dict[str, dict[str, Fact]], placed: list[Placed], ids: list[int]
) -> list[int]:
    """Note each new statement in its file's record, with its evidence; return the ids written."""
    provenance = w.provenance(Authority.SOURCE, 1.0)
    written: list[int] = []
    new_statements, records, evidence_rows = w.new_statements, w.new_versions, w.evidence_rows
    bases = {name: w.evidence_base("statement", name) for name in facts}
    for name, fact, place, replaces, first in placed:
        statement_id = ids[place]
        records[name][fact.slot] = [statement_id, fact.fp]
        evidence_rows.append((*bases[name], statement_id, fact.line))
        if not first:
            continue  # stated by an earlier file of this import too: evidence only
        written.append(statement_id)
        new_statements.append(
            Statement(
                statement_id,
                fact.kind,
                fact.subject_id,
                fact.predicate,
                provenance,
                fact.object_id,
                fact.value,
                None,
                fact.visibility,
                fact.validity,
                replaces,
                (),
            )
        )
    w.yaml_written.update(written)
    w.placed, w.placed_ids = placed, ids
    return written


async def _find_dangling(w: Writer, leaving: set[int]) -> None:
    """Note the standing facts (other files', prose, play) about entities this import retcons: checked too."""
    removed = list(w.removed)
    for start in range(0, len(removed), CHUNK):
        chunk = removed[start : start + CHUNK]
        for s in await w.state.reader.statements(subject_ids=chunk, object_ids=chunk, with_evidence=False):
            if s.id not in leaving:
                w.dangling.append(s.id)


async def _shareable(w: Writer, fingerprints: set[str]) -> dict[str, int]:
    """Return standing statements another slot or file already wrote with these fingerprints."""
    if not fingerprints:
        return {}
    candidates: dict[str, int] = {}
    for version in w.state.versions.values():
        for statement_id, fp in version.statements.values():
            if fp in fingerprints:
                candidates.setdefault(str(fp), int(statement_id))
    dead = await w.state.retconned("statement", candidates.values())
    return {fp: sid for fp, sid in candidates.items() if sid not in dead}


async def _carry_over(w: Writer, canon_writer: CanonWriter, leaving: set[int]) -> list[_Carried]:
    """Re-write the standing statements about replaced entities about their replacements."""
    if not w.replaced:
        return []
    state = w.state
    old_ids = list(w.replaced)
    statements: dict[int, Statement] = {}
    for start in range(0, len(old_ids), CHUNK):
        chunk = old_ids[start : start + CHUNK]
        for s in await state.reader.statements(subject_ids=chunk, object_ids=chunk):
            statements[s.id] = s
    record_slots: dict[int, list[tuple[FileVersion, str]]] = {}
    for version in state.versions.values():
        if version.file in state.changed_names:
            continue
        for slot, (statement_id, _fp) in version.statements.items():
            if int(statement_id) in statements:
                record_slots.setdefault(int(statement_id), []).append((version, slot))
    carried: list[_Carried] = []
    for s in sorted(statements.values(), key=lambda s: s.id):
        if s.id in leaving:
            continue  # a changed file's own fact: re-written from the file, or retconned
        subject = w.replaced.get(s.subject_id, s.subject_id)
        obj = w.replaced.get(s.object_id, s.object_id) if s.object_id is not None else None
        evidence = [e.model_copy(update={"changeset_id": None}) for e in s.evidence]
        evidence.append(
            Evidence(kind=EvidenceKind.YAML, note=f"Carried over from #{s.id}: its entity was replaced.")
        )
        placeholder = await canon_writer.add_statement(
            kind=s.kind,
            subject_id=subject,
            predicate=s.predicate,
            object_id=obj,
            value=s.value,
            via=s.via,
            validity=s.validity,
            authority=s.provenance.authority,
            confidence=s.provenance.confidence,
            visibility=s.visibility,
            replaces_id=s.id,
            evidence=evidence,
        )
        fp = statement_fingerprint(
            s.kind.value, subject, s.predicate, obj, s.value, s.validity, s.visibility.value
        )
        copy = dataclasses.replace(
            s,
            subject_id=subject,
            object_id=obj,
            replaces_id=s.id,
            provenance=w.provenance(s.provenance.authority, s.provenance.confidence),
            evidence=tuple(evidence),
        )
        slots = [(record, slot, fp) for record, slot in record_slots.get(s.id, [])]
        carried.append((s, copy, placeholder, slots))
    return carried
