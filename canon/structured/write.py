"""Ingest stage 4: the rows, under one changeset: entities, then statements (`statements`), evidence, retcons,
and a new version of each file's record.

Every row: authority `source`, confidence 1.0, canon level canon, and evidence of kind `yaml` with the file name
and line (the entry's line; for a relation, the line of the reference; for a state, the line of the date).
Nothing is ever deleted: what an import no longer says is retconned.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Table, select

from canon.campaigns import ChangesetRow
from canon.graph import bulk_insert, fold, insert_returning_ids, validity_columns
from canon.models import Authority, CanonLevel, EvidenceKind, Provenance, Statement
from canon.storage import utc_now
from canon.structured.facts import Fact
from canon.structured.planned import Planned
from canon.structured.resolve import Index
from canon.structured.state import IngestState
from canon.structured.tables import StructuredFileRow
from canon.structured.versions import CHUNK
from canon.tables import AliasRow, EntityRow, EvidenceRow, StatusChangeRow

# The columns of the evidence rows an import writes, in the order of its tuple rows.
EVIDENCE_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    "target_kind",
    "kind",
    "file",
    "note",
    "target_id",
    "line",
)
# Where a new fact went: (file, fact, its place among the new statements, the statement it replaces, whether it
# is the first of the import to state it: the others share its statement).
Placed = tuple[str, Fact, int, int | None, bool]
# Every entity row shares this one (never mutated) mapping: a bulk insert serialises each distinct object
# once, so 10,000 rows cost one JSON encoding instead of 10,000.
_NO_ATTRIBUTES: dict[str, Any] = {}


class Writer:
    """Write one ingest's rows under its changeset, and remember what it wrote for the checks and the records.

    - `replaced`: old entity id -> the entity replacing it; `removed`: entity id -> why it is retconned;
    - `created_rows`: the new entities' rows, by id, and `created_plans` the plans they come from;
    - `new_versions`: per changed file, slot -> [statement id, fingerprint];
    - `yaml_written`: the new YAML statements' ids (`written_where` tells each one's file and line);
      `new_statements`: the statements written (the new YAML facts and the ones carried over), as the checks
      read them; `dangling`: standing facts about entities this import retcons;
    - `placed`: where each new fact went among the new statements (`placed_ids`).
    """

    def __init__(
        self, state: IngestState, index: Index, planned: dict[str, Planned], changeset: ChangesetRow
    ):
        self.state = state
        self.index = index
        self.planned = planned
        self.changeset = changeset
        self.stamp = {
            "campaign_id": state.campaign_id,
            "changeset_id": changeset.id,
            "recorded_at": changeset.recorded_at,
        }
        # Evidence rows as tuples in `EVIDENCE_COLUMNS` order (tens of thousands: no dict each).
        self.evidence_rows: list[tuple[Any, ...]] = []
        self._evidence_bases: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.status_rows: list[dict[str, Any]] = []
        self.removed: dict[int, str] = {}
        self.replaced: dict[int, int] = {}
        self.created_rows: dict[int, dict[str, Any]] = {}
        self.created_plans: dict[int, Planned] = {}
        self.new_versions: dict[str, dict[str, list[Any]]] = {}
        self.yaml_written: set[int] = set()
        self.new_statements: list[Statement] = []
        self.dangling: list[int] = []
        self.placed: list[Placed] = []
        self.placed_ids: list[int] = []
        self._written_where: dict[int, tuple[str, int]] | None = None

    def written_where(self, statement_id: int) -> tuple[str, int]:
        """Return the file and line of a new YAML statement (the first file of the import that states it)."""
        if self._written_where is None:
            ids = self.placed_ids
            self._written_where = {
                ids[place]: (name, fact.line) for name, fact, place, _, first in self.placed if first
            }
        return self._written_where[statement_id]

    def evidence(self, kind: str, target: int, file: str, line: int) -> None:
        """Queue the `yaml` evidence of an entity or statement: this file, this line."""
        self.evidence_rows.append((*self.evidence_base(kind, file), target, line))

    def evidence_base(self, kind: str, file: str) -> tuple[Any, ...]:
        """Return the values of `EVIDENCE_COLUMNS` but the last two, for this kind of target and file."""
        # One row per entity and statement (tens of thousands in a big tree): the constant part is built once.
        base = self._evidence_bases.get((kind, file))
        if base is None:
            stamp = self.stamp
            base = self._evidence_bases[(kind, file)] = (
                stamp["campaign_id"],
                stamp["changeset_id"],
                stamp["recorded_at"],
                kind,
                EvidenceKind.YAML.value,
                file,
                None,
            )
        return base

    def retcon(self, kind: str, target: int, replacement: int | None, rationale: str) -> None:
        """Queue the retcon of an entity or statement (by `replacement`, if any)."""
        self.status_rows.append(
            {
                **self.stamp,
                "target_kind": kind,
                "target_id": target,
                "level": CanonLevel.RETCONNED.value,
                "replacement_id": replacement,
                "rationale": rationale,
            }
        )

    def provenance(self, authority: Authority, confidence: float) -> Provenance:
        """Return the provenance of a statement this changeset writes."""
        return Provenance(
            campaign_id=self.state.campaign_id,
            changeset_id=self.changeset.id,
            recorded_at=self.changeset.recorded_at,
            authority=authority,
            confidence=confidence,
        )

    async def write_entities(self) -> None:
        """Insert new and replacing entities in bulk; retcon the replaced and removed ones."""
        state, planned = self.state, self.planned
        to_insert = [p for p in planned.values() if p.action in ("create", "replace")]
        rows = [self._entity_row(plan) for plan in to_insert]
        if rows:
            ids = await insert_returning_ids(state.session, cast(Table, EntityRow.__table__), rows)
            for plan, new_id, row in zip(to_insert, ids, rows, strict=True):
                plan.entity_id = new_id
                self.created_rows[new_id] = row
                self.created_plans[new_id] = plan
                self.evidence("entity", new_id, plan.file, plan.entry.line)
                if plan.action == "replace" and plan.old_id is not None:
                    self.replaced[plan.old_id] = new_id
        for plan in planned.values():
            if plan.action == "adopt":
                assert plan.entity_id is not None
                self.evidence("entity", plan.entity_id, plan.file, plan.entry.line)
        for key in (k for k in self.index.old_entries if k not in self.index.defined):
            file, info = self.index.old_entries[key]
            self.removed[int(info["e"])] = f"Removed from {file} (it defined “{key}”)."
        already = await state.retconned("entity", [*self.replaced, *self.removed])
        for old, new in self.replaced.items():
            if old not in already:
                plan = next(p for p in planned.values() if p.old_id == old)
                self.retcon(
                    "entity",
                    old,
                    new,
                    f"Replaced by the entry “{plan.entry.id}” of {plan.file}, line {plan.entry.line}.",
                )
        for old, why in self.removed.items():
            if old not in already:
                self.retcon("entity", old, None, why)
                state.entity_counts["retconned"] += 1
        gone = sorted(old for old in self.removed if old not in already)
        table = EntityRow.__table__.c
        for start in range(0, len(gone), CHUNK):
            query = select(table.name).where(table.id.in_(gone[start : start + CHUNK])).order_by(table.name)
            state.retconned_names += list((await state.session.execute(query)).scalars())
        state.entity_counts.update(p.action for p in planned.values())
        await self._write_aliases()

    async def _write_aliases(self) -> None:
        """Give each entry's entity the `aliases` it lists and lacks (an alias is never taken away: it stays a
        name the entity was known by; the `aliases` fact says what the file lists now). Aliases the entry keeps
        GM-only (`gm_only: [aliases]`) are only that fact, the GM's: an entity's names are everyone's."""
        wanted: dict[int, list[str]] = {}
        for plan in self.planned.values():
            listed = plan.entry.attributes.get("aliases")
            if "aliases" in plan.entry.gm_only:
                continue  # names only the GM may read are no names a player's question finds the entity by
            if plan.entity_id is not None and isinstance(listed, list) and listed:
                wanted[plan.entity_id] = [str(alias) for alias in listed]
        if not wanted:
            return
        table = AliasRow.__table__.c
        have: set[tuple[int, str]] = set()
        # An entity this import creates has no alias yet: only the others' are read.
        ids = sorted(i for i in wanted if i not in self.created_rows)
        for start in range(0, len(ids), CHUNK):
            query = select(table.entity_id, table.alias_folded).where(
                table.entity_id.in_(ids[start : start + CHUNK])
            )
            have.update((int(e), str(a)) for e, a in (await self.state.session.execute(query)).all())
        rows: list[dict[str, Any]] = []
        for entity_id, aliases in wanted.items():
            for alias in aliases:
                clean = " ".join(alias.split())[:200]
                key = (entity_id, fold(clean))
                if clean and key not in have:
                    have.add(key)
                    rows.append(
                        {**self.stamp, "entity_id": entity_id, "alias": clean, "alias_folded": key[1]}
                    )
        await bulk_insert(self.state.session, AliasRow.__table__, rows)

    def _entity_row(self, plan: Planned) -> dict[str, Any]:
        ontology = self.state.ontology
        type_name = ontology.entity_type(plan.type)
        name = plan.name
        return {
            **self.stamp,
            **validity_columns(plan.validity),
            "type": type_name,
            "name": name,
            "name_folded": plan.folded or fold(name),
            "key": plan.entry.id,
            "kind": ontology.entity_types[type_name].kind.value,
            "visibility": plan.entry.visibility,
            "description": None,
            "attributes": _NO_ATTRIBUTES,
            "authority": Authority.SOURCE.value,
            "confidence": 1.0,
        }

    async def write_rows(self) -> None:
        """Insert the queued evidence and retcons, and a new version of the changed files' records."""
        session = self.state.session
        await bulk_insert(session, EvidenceRow.__table__, self.evidence_rows, columns=EVIDENCE_COLUMNS)
        await bulk_insert(session, StatusChangeRow.__table__, self.status_rows)
        self.status_rows = []
        self._save_versions()
        await session.flush()

    def _save_versions(self) -> None:
        """Write a new version of the record of every file this import wrote for (never update one in place:
        a branch forked earlier still reads the version it inherited)."""
        state = self.state
        by_file: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in state.changed_names}
        for key, plan in self.planned.items():
            by_file[plan.file][key] = {
                "e": plan.entity_id,
                "f": plan.fp,
                "t": plan.type,
                "l": plan.entry.line,
            }
        stamp = {"campaign_id": state.campaign_id, "changeset_id": self.changeset.id, "updated_at": utc_now()}
        for loaded in state.changed:
            assert loaded.result is not None
            state.session.add(
                StructuredFileRow(
                    **stamp,
                    file=loaded.name,
                    # The column holds 20 characters: a file of several documents' kinds may not fit.
                    kind=_stored_kind(loaded.result.kinds) or loaded.result.kind or "",
                    content_hash=loaded.content_hash,
                    entries=by_file[loaded.name],
                    statements=self.new_versions.get(loaded.name, {}),
                )
            )
        for version in state.versions.values():
            if version.file in state.changed_names or not version.dirty:
                continue
            # Another file's facts carried over to a replacing entity: the same file, repointed slots.
            state.session.add(
                StructuredFileRow(
                    **stamp,
                    file=version.file,
                    kind=version.kind,
                    content_hash=version.content_hash,
                    entries=version.entries,
                    statements=dict(version.statements),
                )
            )


def _stored_kind(kinds: tuple[str, ...]) -> str | None:
    """Return what a file's row says of its kinds: its kinds (a file of several YAML documents may have several),
    or "several kinds" where they do not fit the column."""
    text = ", ".join(kinds)
    return text if len(text) <= 20 else "several kinds" if text else None
