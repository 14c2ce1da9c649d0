"""Ingest structured lore into a campaign's canon graph: exactly, through the ontology, all or nothing.

`load_files` reads and validates YAML files (CPU only; run it off the event loop). `ingest` writes what they
say into the canon graph inside the caller's transaction, under ONE changeset (`ChangesetKind.YAML_IMPORT`),
and returns an `IngestReport`. The files of one call are ingested together: they may refer to each other, and
to entities the campaign already has (by key).

What a file becomes (authority `source`, confidence 1.0, canon level canon, evidence `yaml` with the file
name and the line of the entry, or of the reference for a relation):

- each entry: an entity of the loader's type, its YAML id as the entity's `key`, its name and visibility.
  An Era's validity is its bounds (start/end), an Event's is its date; other entities are timeless. The
  entity row carries no description: descriptions are facts like every other attribute, so that editing one
  changes a fact, not the entity.
- attributes (description, species, alignment, coordinates, titles, ...): attribute statements.
- life events: born -> state `alive` from the birth date, died -> state `dead` from the death date
  (an `unknown` date writes no state).
- relations: exactly the loader's records (`LoreRelation`), with their validity and visibility.

Resolution: an id used in a file must be defined in it, in another file of the same call, or in the
campaign's canon (an entity with that key, or one a YAML file of the campaign defined); otherwise it is an
error at its line, and nothing is written. An entry whose id is new but whose name and type match exactly one
standing keyless entity (made in play or from prose) adopts that entity instead of duplicating it.

Re-ingest: `StructuredFileRow` remembers, per (campaign, file name), the content hash, the entity of each
entry and the statement filling each slot (`attr|key|name`, `state|key|alive`, `rel|TYPE|src|dst`) with its
fingerprint. It is kept by version (a new row per changeset, never updated): a campaign compares a file with
its own latest version, else the one its nearest ancestor had at the fork (a branch forked before its parent
re-imported a file still knows what it inherited). The same file again writes nothing; a changed file writes
only the difference (in the importing campaign, never in its ancestors):

- a slot whose value changed: the old statement is retconned and the new one `replaces` it;
- a slot that disappeared: its statement is retconned (never deleted); an entry that disappeared: its
  entity is retconned too;
- an entry whose name, type, visibility or (Era/Event) dates changed: a new entity with the same key
  replaces it (the old one is retconned, pointing at the new one), and every standing statement about the
  old entity is carried over (retconned and re-written about the new one, with `replaces`), whoever wrote it.
- a fact two files state identically is one statement with evidence from both.

Checks on ingest: the continuity rules (`canon.continuity`) run on the statements written here (a child born
before a parent or after both parents died, an event outside its era, the dead taking part in an event, and
the rest) and come back as warnings, recorded in the conflicts table. A YAML fact that contradicts a fact of
lower authority (prose, play) on the same attribute or the same limited relation slot wins: the conflict is
recorded as `contradicts_higher_authority`, citing both sides with their evidence and naming the YAML fact as
the one that prevails, and the other fact is kept but superseded (retconned, replaced by the YAML fact, so
that cards and as-of reads show the YAML value and a timeline still shows the other, marked). Of a relation
slot only as many of the weakest facts go as the slot's limit needs. A GM's direct word outranks YAML
(`canon.domain.AUTHORITY_RANK`): then nothing is superseded, and the open conflict is the GM's to decide.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, JsonValue
from sqlalchemy import Table, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from canon.calendar import DEFAULT_RULES, CalendarRules, DateError, WorldDate, parse_date
from canon.campaigns import ChangesetKind, LineageStep, lineage, open_changeset
from canon.checks import (
    entities_snapshot,
    neighbourhood_snapshot,
    record_findings,
    whole_snapshot,
    with_evidence,
)
from canon.continuity import ConflictKind, Finding, Side, Snapshot, check, fingerprint, world_key
from canon.domain import (
    ALWAYS,
    AUTHORITY_RANK,
    Authority,
    CanonLevel,
    Entity,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    Validity,
    Viewer,
    Visibility,
)
from canon.errors import Conflict, InvalidInput
from canon.graph import (
    CanonReader,
    CanonWriter,
    bulk_insert,
    fold,
    insert_returning_ids,
    lineage_filter,
    validity_columns,
)
from canon.models import AliasRow, EntityRow, EvidenceRow, StatusChangeRow
from canon.ontology import Ontology
from canon.storage import utc_now
from canon.structured.loader import DEFAULT_MAX_BYTES, load_lore_file
from canon.structured.models import StructuredFileRow
from canon.structured.schemas import LoadResult, LoreEntry, LoreProblem, LoreRelation

__all__ = [
    "ChangeCounts",
    "FileReport",
    "IngestReport",
    "IngestWarning",
    "LoadedFile",
    "content_hash",
    "file_hashes",
    "ingest",
    "load_files",
]

# Entity types whose validity is their data (bounds, date): a change there replaces the entity.
_DATED_TYPES = frozenset({"Era", "Event"})
# Attributes that are not attribute statements: they become the entity's validity or its states.
_NOT_ATTRIBUTES: dict[str, frozenset[str]] = {
    "Era": frozenset({"start", "end"}),
    "Event": frozenset({"date"}),
    "Person": frozenset({"born", "died"}),
}
_LIFE_STATES = {"born": "alive", "died": "dead"}
_VISIBILITY = {v.value: v for v in Visibility}
_CHUNK = 400
# The checks read the neighbourhood of at most this many statements by id, else the whole campaign once ...
_NEIGHBOURHOOD_LIMIT = 400
# ... and the neighbourhood of at most this many existing entities touched by new facts.
_EXISTING_LIMIT = 1000
_NAME_LIMIT = 200
# Every entity row shares this one (never mutated) mapping: a bulk insert serialises each distinct object
# once, so 10,000 rows cost one JSON encoding instead of 10,000.
_NO_ATTRIBUTES: dict[str, Any] = {}
_SEP = "\x1f"


# --------------------------------------------------------------------------------------------- reports


class ChangeCounts(BaseModel):
    """How many entities or statements an ingest created, changed, kept, carried over and retconned.

    `superseded`: facts of prose or play a YAML fact contradicted and prevailed over (kept, retconned).
    """

    model_config = ConfigDict(frozen=True)

    created: int = 0
    changed: int = 0
    unchanged: int = 0
    retconned: int = 0
    adopted: int = 0
    carried_over: int = 0
    shared: int = 0
    superseded: int = 0


class IngestWarning(BaseModel):
    """A continuity finding about the ingested facts: kind, sentence, the facts on each side.

    `superseded_ids`: the facts of lower authority this ingest superseded by the prevailing YAML fact.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    message: str
    sides: tuple[str, ...] = ()
    statement_ids: tuple[int, ...] = ()
    entity_ids: tuple[int, ...] = ()
    prevailing_id: int | None = None
    superseded_ids: tuple[int, ...] = ()
    new: bool = True


_FileStatus = Literal["created", "updated", "unchanged", "failed"]


class FileReport(BaseModel):
    """What became of one file: its kind, whether it changed, and its entries by entity type."""

    model_config = ConfigDict(frozen=True)

    file: str
    kind: str | None
    status: _FileStatus
    content_hash: str
    entries: int = 0
    counts: dict[str, int] = {}


class IngestReport(BaseModel):
    """The outcome of one ingest: per file, counts, warnings, or the errors (and then nothing was written)."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    status: Literal["ingested", "unchanged", "failed"]
    changeset_id: int | None = None
    files: tuple[FileReport, ...] = ()
    counts: dict[str, int] = {}
    entities: ChangeCounts = ChangeCounts()
    statements: ChangeCounts = ChangeCounts()
    warnings: tuple[IngestWarning, ...] = ()
    errors: tuple[LoreProblem, ...] = ()
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Tell whether the files were ingested (or were already, unchanged)."""
        return self.status != "failed"

    def summary(self) -> str:
        """Return the report as lines for a person: what was written, the warnings, or the errors."""
        names = ", ".join(f.file for f in self.files) or "no file"
        if self.status == "failed":
            bad = ", ".join(sorted({e.file for e in self.errors})) or names
            lines = [f"Nothing was written: {len(self.errors)} problem(s) in {bad}."]
            lines += [str(e) for e in self.errors]
            return "\n".join(lines)
        counts = ", ".join(f"{n} {t}" for t, n in sorted(self.counts.items())) or "no entries"
        if self.status == "unchanged":
            return f"{names}: unchanged ({counts}); nothing new was written."
        e, s = self.entities, self.statements
        lines = [
            f"Ingested {names} (changeset #{self.changeset_id}): {counts}.",
            f"Entities: {e.created} new, {e.changed} replaced, {e.adopted} adopted, {e.unchanged} unchanged, "
            f"{e.retconned} retconned. Facts: {s.created} new, {s.changed} changed, {s.unchanged} unchanged, "
            f"{s.retconned} retconned, {s.carried_over} carried over"
            + (f", {s.superseded} of prose or play superseded by the YAML." if s.superseded else "."),
        ]
        for f in self.files:
            lines.append(f"  {f.file} ({f.kind}): {f.status}, {f.entries} entries")
        if self.warnings:
            lines.append(f"{len(self.warnings)} warning(s):")
            lines += [f"  ! [{w.kind}] {w.message}" for w in self.warnings]
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class LoadedFile:
    """One file of an ingest: its name, content hash, and the loader's result (None: unchanged, not loaded)."""

    name: str
    content_hash: str
    result: LoadResult | None


def content_hash(data: bytes) -> str:
    """Return the content hash a file is remembered by (sha256, hex)."""
    return hashlib.sha256(data).hexdigest()


def file_hashes(files: Sequence[tuple[str, bytes]]) -> dict[str, str]:
    """Return each file's content hash by name."""
    return {name: content_hash(data) for name, data in files}


def load_files(
    files: Sequence[tuple[str, bytes]],
    *,
    skip: Iterable[str] = (),
    calendar_rules: CalendarRules = DEFAULT_RULES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    hidden: bool = False,
) -> list[LoadedFile]:
    """Load and validate each file strictly (CPU-bound: run it in a worker thread for big files).

    Files named in `skip` are not loaded (their content is known unchanged). `hidden` makes every entry and
    relation GM-only, whatever the file says.
    """
    skipped = set(skip)
    loaded: list[LoadedFile] = []
    seen: dict[str, int] = Counter()
    for name, data in files:
        seen[name] += 1
        digest = content_hash(data)
        if name in skipped:
            loaded.append(LoadedFile(name, digest, None))
            continue
        result = load_lore_file(data, name, max_bytes=max_bytes, calendar_rules=calendar_rules)
        if hidden and result.ok:
            result = _hide(result)
        loaded.append(LoadedFile(name, digest, result))
    doubles = [name for name, count in seen.items() if count > 1]
    if doubles:
        raise InvalidInput(
            f"Two files of one import share the name {', '.join(doubles)}; a file is remembered by its name, "
            "so rename one of them."
        )
    return loaded


def _hide(result: LoadResult) -> LoadResult:
    entries = tuple(e.model_copy(update={"visibility": "gm_only"}) for e in result.entries)
    relations = tuple(r.model_copy(update={"visibility": "gm_only"}) for r in result.relations)
    return result.model_copy(update={"entries": entries, "relations": relations})


# --------------------------------------------------------------------------------------------- records


@dataclass
class _Record:
    """What one file produced, as remembered: the version of its record the campaign sees."""

    file: str
    kind: str
    content_hash: str
    entries: dict[str, dict[str, Any]]
    statements: dict[str, list[Any]]
    dirty: bool = False


async def _visible_versions(
    session: AsyncSession, steps: Sequence[LineageStep], *columns: Any
) -> dict[str, Any]:
    """Return, per file name, the version of its record the campaign sees (a row of `id`, `file` and `columns`).

    A file's record is kept by version (one row per changeset that wrote it, never updated): a campaign sees
    its own latest version, else that of the nearest ancestor among those written at or before the fork.
    """
    table = StructuredFileRow.__table__.c
    query = select(table.id, table.campaign_id, table.file, table.changeset_id, *columns).where(
        or_(
            *(
                (table.campaign_id == step.campaign_id) & (table.changeset_id <= step.up_to_changeset)
                for step in steps
            )
        )
    )
    distance = {step.campaign_id: index for index, step in enumerate(steps)}
    found: dict[str, Any] = {}
    for row in (await session.execute(query)).all():
        current = found.get(row.file)
        if current is None or (distance[row.campaign_id], -row.changeset_id) < (
            distance[current.campaign_id],
            -current.changeset_id,
        ):
            found[row.file] = row
    return found


async def load_records(
    session: AsyncSession, steps: Sequence[LineageStep], *, statements: bool = True
) -> dict[str, _Record]:
    """Return what each YAML file produced in a campaign, as the campaign sees it (see `_visible_versions`).

    `statements=False` leaves out the (big) statement maps, for when only entries and hashes matter.
    """
    versions = await _visible_versions(session, steps)
    ids = sorted(row.id for row in versions.values())
    query = select(StructuredFileRow)
    if not statements:
        query = query.options(defer(StructuredFileRow.statements))
    found: dict[str, _Record] = {}
    for start in range(0, len(ids), _CHUNK):
        chosen = query.where(StructuredFileRow.id.in_(ids[start : start + _CHUNK]))
        for row in (await session.execute(chosen)).scalars():
            found[row.file] = _Record(
                file=row.file,
                kind=row.kind,
                content_hash=row.content_hash,
                entries=dict(row.entries or {}),
                statements=dict(row.statements or {}) if statements else {},
            )
    return found


async def known_hashes(session: AsyncSession, campaign_id: int) -> dict[str, str]:
    """Return the content hash of every YAML file the campaign remembers, by file name (a light query:
    the same versions as `load_records`, without reading what the files produced)."""
    steps = await lineage(session, campaign_id)
    table = StructuredFileRow.__table__.c
    versions = await _visible_versions(session, steps, table.content_hash)
    return {file: row.content_hash for file, row in versions.items()}


# --------------------------------------------------------------------------------------------- facts


# The columns of the evidence rows an import writes, in the order of its tuple rows.
_EVIDENCE_COLUMNS = (
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


@dataclass(slots=True)
class _Fact:
    slot: str
    kind: StatementKind
    subject_id: int
    predicate: str
    object_id: int | None
    value: str | None
    validity: Validity
    visibility: Visibility
    line: int
    fp: str


@dataclass(slots=True)
class _Known:
    """An id the files may refer to: its entity, type, and where it is defined."""

    entity_id: int | None
    type: str
    where: str


@dataclass(slots=True)
class _Planned:
    """The entity an entry will be: kept, adopted, created or replacing an old one."""

    entry: LoreEntry
    file: str
    fp: str
    validity: Validity
    action: Literal["keep", "adopt", "create", "replace"]
    old_id: int | None = None
    entity_id: int | None = None
    type: str = ""
    folded: str = ""


def _entity_fingerprint(entity_type: str, name: str, visibility: str, validity: Validity) -> str:
    text = _SEP.join((entity_type, name, visibility, validity.world_from or "", validity.world_until or ""))
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


_blake = hashlib.blake2b


def _statement_fingerprint(
    kind: str,
    subject_id: int,
    predicate: str,
    object_id: int | None,
    value: str | None,
    validity: Validity,
    visibility: str,
) -> str:
    text = _SEP.join(
        (
            kind,
            str(subject_id),
            predicate,
            "" if object_id is None else str(object_id),
            "" if value is None else value,
            validity.world_from or "",
            validity.world_until or "",
            visibility,
        )
    )
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def _fingerprint_of(s: Statement) -> str:
    return _statement_fingerprint(
        s.kind.value, s.subject_id, s.predicate, s.object_id, s.value, s.validity, s.visibility.value
    )


def _clean_name(name: str) -> str:
    return " ".join(name.split())


def _date_text(date: WorldDate | None) -> tuple[str | None, int | None]:
    if date is None:
        return None, None
    return (None if date.is_unknown else str(date)), world_key(date)


def _date_validity(
    start: tuple[str | None, int | None], end: tuple[str | None, int | None] = (None, None)
) -> Validity:
    return Validity(start[0], start[1], end[0], end[1])  # world_from, _key, world_until, _key


def _entity_validity(entry: LoreEntry) -> Validity:
    attributes = entry.attributes
    if entry.entity_type == "Era":
        start, end = attributes.get("start"), attributes.get("end")
        return _date_validity(
            _date_text(WorldDate(era=entry.id, year=start) if isinstance(start, int) else None),
            _date_text(WorldDate(era=entry.id, year=end) if isinstance(end, int) else None),
        )
    if entry.entity_type == "Event":
        text = attributes.get("date")
        if isinstance(text, str):
            try:
                return _date_validity(_date_text(parse_date(text)))
            except DateError:  # pragma: no cover - the loader wrote it in canonical form
                return ALWAYS
    return ALWAYS


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, int) or float(value).is_integer() else str(value)


def _value_text(value: JsonValue) -> str | None:
    """Return an attribute's value as statement text (None: nothing to state)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, list):
        items = [t for t in (_value_text(v) for v in value) if t]
        return ", ".join(items) or None
    if isinstance(value, dict):
        return ", ".join(f"{k}={_value_text(v)}" for k, v in value.items()) or None
    return str(value)  # pragma: no cover


# --------------------------------------------------------------------------------------------- ingest


async def ingest(
    session: AsyncSession,
    campaign_id: int,
    files: Sequence[LoadedFile],
    ontology: Ontology,
    *,
    actor_id: int | None = None,
    actor_name: str | None = None,
) -> IngestReport:
    """Write the files into the campaign's canon graph (in the caller's transaction) and return the report.

    Files whose `result` is None are known unchanged (their hash must match what the campaign remembers).
    When any file has a problem, or an id is defined nowhere, nothing is written and the report lists every
    error with file, line and column.
    """
    # A big import allocates hundreds of thousands of small objects next to the loaded files' records, and
    # no cycles; the cyclic collector would rescan them all again and again (most of the time of a
    # 10,000-person tree). It waits until the import is done (other tasks only see collection delayed).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return await _Ingest(session, campaign_id, files, ontology, actor_id, actor_name).run()
    finally:
        if collecting:
            gc.enable()


class _Ingest:
    def __init__(
        self,
        session: AsyncSession,
        campaign_id: int,
        files: Sequence[LoadedFile],
        ontology: Ontology,
        actor_id: int | None,
        actor_name: str | None,
    ) -> None:
        self.session = session
        self.campaign_id = campaign_id
        self.files = list(files)
        self.ontology = ontology
        self.actor_id = actor_id
        self.actor_name = actor_name
        self.started = time.perf_counter()
        self.errors: list[LoreProblem] = []
        self.entity_counts: Counter[str] = Counter()
        self.statement_counts: Counter[str] = Counter()
        self.removed: dict[int, str] = {}  # entity id -> why it is retconned
        self.replaced: dict[int, int] = {}  # old entity id -> the entity replacing it
        self.new_records: dict[str, dict[str, list[Any]]] = {}
        self.yaml_written: set[int] = set()
        self.new_statements: list[Statement] = []
        self.dangling: list[int] = []  # standing facts about entities this import retcons
        self.created_rows: dict[int, dict[str, Any]] = {}
        self.written_at: dict[int, tuple[str, int]] = {}  # new YAML statement id -> (file, line)
        # Cardinality contradictions the YAML wins, by fingerprint: the weakest facts the slot's limit drops.
        self.over_limit: dict[str, list[int]] = {}

    # -- the run --------------------------------------------------------------------------------------

    async def run(self) -> IngestReport:
        for loaded in self.files:
            if loaded.result is not None:
                self.errors += loaded.result.problems
        if self.errors:
            return self._failed()
        self.steps = await lineage(self.session, self.campaign_id)
        self.reader = CanonReader(self.session, self.steps, self.ontology, viewer=Viewer.GM)
        # Nothing to write when every file is known unchanged: the statement maps are not needed then.
        self.records = await load_records(
            self.session, self.steps, statements=any(f.result is not None for f in self.files)
        )
        for loaded in self.files:
            known = self.records.get(loaded.name)
            if loaded.result is None and (known is None or known.content_hash != loaded.content_hash):
                raise Conflict(f"{loaded.name} changed while it was being imported; import it again.")
        self.changed = [
            f
            for f in self.files
            if f.result is not None
            and (self.records.get(f.name) is None or self.records[f.name].content_hash != f.content_hash)
        ]
        if not self.changed:
            return self._report("unchanged", None, [])
        await self._index()
        if self.errors:
            return self._failed()
        await self._plan_entities()
        if self.errors:
            return self._failed()
        self._check_endpoints()
        if self.errors:
            return self._failed()
        return await self._write()

    # -- what the files define and refer to -----------------------------------------------------------

    async def _index(self) -> None:
        """Find every id the files define or use: in the files, the campaign's other YAML files, or canon."""
        self.changed_names = {f.name for f in self.changed}
        self.defined: dict[str, tuple[LoadedFile, LoreEntry]] = {}
        for loaded in self.changed:
            assert loaded.result is not None
            for entry in loaded.result.entries:
                first = self.defined.get(entry.id)
                if first is not None:
                    self._error(
                        loaded.name,
                        entry.line,
                        entry.column,
                        f'"{entry.id}" is already defined in {first[0].name} at line {first[1].line}; an id '
                        "is defined in one file only",
                    )
                    continue
                self.defined[entry.id] = (loaded, entry)
        # Ids defined by the campaign's other YAML files (and unchanged files of this call).
        self.owned: dict[str, tuple[str, dict[str, Any]]] = {}
        self.owned_entities: set[int] = set()
        for record in self.records.values():
            for key, info in record.entries.items():
                self.owned_entities.add(int(info["e"]))
                if record.file in self.changed_names:
                    continue
                self.owned[key] = (record.file, info)
                if key in self.defined:
                    loaded, entry = self.defined[key]
                    self._error(
                        loaded.name,
                        entry.line,
                        entry.column,
                        f'"{key}" is already defined in {record.file} (line {info.get("l", "?")}), imported '
                        "earlier; an id is defined in one file only",
                    )
        self.old_entries: dict[str, tuple[str, dict[str, Any]]] = {}
        for name in self.changed_names:
            previous = self.records.get(name)
            if previous is not None:
                for key, info in previous.entries.items():
                    self.old_entries[key] = (name, info)
        # Keys to look up in canon: referenced ids no file defines, and defined ids no record knows.
        referenced = {
            u.target_id
            for f in self.changed
            for u in (f.result.unresolved if f.result is not None else ())
            if u.target_id not in self.defined and u.target_id not in self.owned
        }
        fresh = {k for k in self.defined if k not in self.old_entries}
        # Ids this import removes from their file are defined nowhere any more (their entities are retconned).
        leaving = {k: file for k, (file, _) in self.old_entries.items() if k not in self.defined}
        referenced -= set(leaving)
        self.canon_keys = await self._entities_by_key(referenced | fresh)
        self.known: dict[str, _Known] = {}
        for key, (loaded, entry) in self.defined.items():
            self.known[key] = _Known(None, entry.entity_type, f"{loaded.name} at line {entry.line}")
        for key, (file, info) in self.owned.items():
            self.known[key] = _Known(
                int(info["e"]), str(info.get("t", "")), f"{file} (line {info.get('l', '?')})"
            )
        for key, row in self.canon_keys.items():
            self.known.setdefault(key, _Known(row.id, row.type, f"the campaign's canon (entity #{row.id})"))
        by_name = await self._entities_named_like(referenced - set(self.known))
        for key, rows in by_name.items():
            if len(rows) == 1:
                row = rows[0]
                self.known[key] = _Known(row.id, row.type, f"the campaign's canon (“{row.name}”, #{row.id})")
        fitting: dict[tuple[str, tuple[str, ...]], bool] = {}

        def fits(type_name: str, expected: tuple[str, ...]) -> bool:
            # Answered once per question: the thousands of dates of a big tree all ask it about one era.
            key = (type_name, expected)
            found = fitting.get(key)
            if found is None:
                found = fitting[key] = self.ontology.is_a(type_name, expected)
            return found

        for loaded in self.changed:
            assert loaded.result is not None
            for u in loaded.result.unresolved:
                target = self.known.get(u.target_id)
                if target is None and len(by_name.get(u.target_id, ())) > 1:
                    listed = ", ".join(f"{r.name} ({r.type} #{r.id})" for r in by_name[u.target_id][:5])
                    self._error(
                        u.file,
                        u.line,
                        u.column,
                        f'"{u.field}" of "{u.source_id}" refers to "{u.target_id}", which could be several '
                        f"entities of the campaign's canon: {listed}",
                    )
                elif target is None and u.target_id in leaving:
                    self._error(
                        u.file,
                        u.line,
                        u.column,
                        f'"{u.field}" of "{u.source_id}" refers to "{u.target_id}", which this import removes '
                        f"from {leaving[u.target_id]}",
                    )
                elif target is None:
                    kinds = " or ".join(u.expected_types) or "entity"
                    self._error(
                        u.file,
                        u.line,
                        u.column,
                        f'"{u.field}" of "{u.source_id}" refers to "{u.target_id}", which is defined nowhere: '
                        "not in this file, not in the other files of this import, and not in the campaign's "
                        f"canon (expected {_article(kinds)} {kinds})",
                    )
                elif u.expected_types and not fits(target.type, u.expected_types):
                    self._error(
                        u.file,
                        u.line,
                        u.column,
                        f'"{u.field}" of "{u.source_id}" must refer to {_article(u.expected_types[0])} '
                        f'{" or ".join(u.expected_types)}; "{u.target_id}" is the {target.type} of '
                        f"{target.where}",
                    )

    async def _entities_by_key(self, keys: set[str]) -> dict[str, Any]:
        """Return the standing entities (visible through the lineage) with these keys, by key."""
        found: dict[str, Any] = {}
        key_list = sorted(keys)
        table = EntityRow.__table__
        for start in range(0, len(key_list), _CHUNK):
            chunk = key_list[start : start + _CHUNK]
            query = select(table).where(table.c.key.in_(chunk), lineage_filter(table.c, self.steps))
            rows = list((await self.session.execute(query)).all())
            retconned = await self._retconned("entity", [r.id for r in rows])
            for row in sorted(rows, key=lambda r: r.id):
                if row.id not in retconned:
                    found[row.key] = row
        return found

    async def _entities_named_like(self, keys: set[str]) -> dict[str, list[Any]]:
        """Return standing entities whose name or alias is what a key spells (`crimson_pact`: Crimson Pact).

        Entities made in play or with `/canon add` have no key; a YAML file may still name them by id.
        "The" in front of the name counts too (`crimson_pact`: The Crimson Pact).
        """
        spelled: dict[str, str] = {}
        for key in keys:
            words = fold(key.replace("_", " ").replace("-", " "))
            spelled[words] = key
            spelled[f"the {words}"] = key
        if not spelled:
            return {}
        table = EntityRow.__table__
        aliases = AliasRow.__table__
        found: dict[str, dict[int, Any]] = {}
        names = sorted(spelled)
        for start in range(0, len(names), _CHUNK):
            chunk = names[start : start + _CHUNK]
            by_alias = select(aliases.c.entity_id, aliases.c.alias_folded).where(
                aliases.c.alias_folded.in_(chunk), lineage_filter(aliases.c, self.steps)
            )
            alias_of = {
                entity_id: folded for entity_id, folded in (await self.session.execute(by_alias)).all()
            }
            query = select(table).where(
                or_(table.c.name_folded.in_(chunk), table.c.id.in_(list(alias_of))),
                lineage_filter(table.c, self.steps),
            )
            rows = list((await self.session.execute(query)).all())
            retconned = await self._retconned("entity", [r.id for r in rows])
            for row in rows:
                if row.id in retconned:
                    continue
                folded = row.name_folded if row.name_folded in spelled else alias_of.get(row.id)
                if folded in spelled:
                    found.setdefault(spelled[folded], {})[row.id] = row
        return {key: sorted(rows.values(), key=lambda r: r.id) for key, rows in found.items()}

    async def _retconned(self, kind: str, ids: Iterable[int]) -> set[int]:
        """Return which of these entities or statements are retconned (as seen from the campaign)."""
        id_list = sorted(set(ids))
        found: set[int] = set()
        sc = StatusChangeRow.__table__.c
        for start in range(0, len(id_list), _CHUNK):
            query = select(sc.target_id).where(
                sc.target_kind == kind,
                sc.target_id.in_(id_list[start : start + _CHUNK]),
                lineage_filter(sc, self.steps),
            )
            found |= set((await self.session.execute(query)).scalars())
        return found

    # -- entities -------------------------------------------------------------------------------------

    async def _plan_entities(self) -> None:
        """Decide for every entry: keep its entity, adopt one from canon, create one, or replace one."""
        self.planned: dict[str, _Planned] = {}
        adopt_by_name: dict[str, list[str]] = {}
        for key, (loaded, entry) in self.defined.items():
            name = _clean_name(entry.name)
            if len(name) > _NAME_LIMIT:
                self._error(
                    loaded.name, entry.line, entry.column, f'"name" is longer than {_NAME_LIMIT} characters'
                )
                continue
            validity = _entity_validity(entry)
            fp = _entity_fingerprint(entry.entity_type, name, entry.visibility, validity)
            plan = _Planned(entry, loaded.name, fp, validity, "create", type=entry.entity_type)
            self.planned[key] = plan
            old = self.old_entries.get(key)
            if old is not None:
                info = old[1]
                plan.old_id = int(info["e"])
                plan.type = str(info.get("t") or entry.entity_type)
                plan.action = "keep" if info.get("f") == fp else "replace"
                continue
            row = self.canon_keys.get(key)
            if row is not None:
                self._adopt(plan, row)
                continue
            plan.folded = fold(name)
            adopt_by_name.setdefault(plan.folded, []).append(key)
        if adopt_by_name:
            await self._adopt_by_name(adopt_by_name)
        retconned = await self._retconned(
            "entity", [p.old_id for p in self.planned.values() if p.old_id is not None and p.action == "keep"]
        )
        for plan in self.planned.values():
            if plan.action == "keep" and plan.old_id in retconned:
                plan.action = "replace"  # retconned meanwhile (by a GM): the file says it exists, so it does
        for plan in self.planned.values():
            if plan.action in ("keep", "adopt"):
                plan.entity_id = plan.old_id

    def _adopt(self, plan: _Planned, row: Any) -> None:
        """Take over an existing entity: as it is when it matches the entry, else through a replacement."""
        plan.old_id = row.id
        entry = plan.entry
        wanted = entry.entity_type
        same_type = row.type == wanted or self.ontology.is_a(row.type, [wanted])
        plan.type = row.type if same_type else wanted
        same = (
            same_type
            and row.name == _clean_name(entry.name)
            and row.visibility == entry.visibility
            and (
                wanted not in _DATED_TYPES
                or (row.world_from, row.world_until) == (plan.validity.world_from, plan.validity.world_until)
            )
        )
        plan.action = "adopt" if same else "replace"

    async def _adopt_by_name(self, candidates: dict[str, list[str]]) -> None:
        """Adopt standing keyless entities whose name (and a compatible type) is exactly an entry's."""
        names = sorted(candidates)
        table = EntityRow.__table__
        for start in range(0, len(names), _CHUNK):
            chunk = names[start : start + _CHUNK]
            query = select(table).where(
                table.c.name_folded.in_(chunk), table.c.key.is_(None), lineage_filter(table.c, self.steps)
            )
            rows = [r for r in (await self.session.execute(query)).all() if r.id not in self.owned_entities]
            retconned = await self._retconned("entity", [r.id for r in rows])
            by_name: dict[str, list[Any]] = {}
            for row in rows:
                if row.id not in retconned:
                    by_name.setdefault(row.name_folded, []).append(row)
            for folded, found in by_name.items():
                keys = candidates.get(folded, [])
                if len(keys) != 1:
                    continue  # two entries share the name: adopting one would be a guess
                plan = self.planned[keys[0]]
                wanted = plan.entry.entity_type
                fitting = [r for r in found if r.type == wanted or self.ontology.is_a(r.type, [wanted])]
                if len(fitting) == 1:
                    self._adopt(plan, fitting[0])

    # -- facts ----------------------------------------------------------------------------------------

    def _entity_ids(self) -> dict[str, int]:
        """Return the entity id of every key the files define or use (every entity exists by now)."""
        ids = {key: known.entity_id for key, known in self.known.items() if known.entity_id is not None}
        for key, plan in self.planned.items():
            assert plan.entity_id is not None
            ids[key] = plan.entity_id
        return ids

    def _check_endpoints(self) -> None:
        """Report relations the ontology does not allow between the types at their ends (before any write)."""
        allowed: dict[tuple[str, str, str], str | None] = {}
        # The type of every key (a planned entry's, else the known entity's), in one map: a big tree asks it
        # for tens of thousands of ends.
        types = {key: known.type for key, known in self.known.items()}
        types.update((key, plan.type) for key, plan in self.planned.items())
        for loaded in self.changed:
            assert loaded.result is not None
            for relation in loaded.result.relations:
                ends = (relation.type, types[relation.source_id], types[relation.target_id])
                if ends not in allowed:
                    try:
                        self.ontology.check_endpoints(*ends)
                        allowed[ends] = None
                    except InvalidInput as error:
                        allowed[ends] = error.message
                problem = allowed[ends]
                if problem is not None:
                    self._error(
                        loaded.name,
                        relation.line,
                        relation.column,
                        f'"{relation.field}" cannot be written: {problem}',
                    )

    def _facts(self) -> dict[str, dict[str, _Fact]]:
        """Return, per changed file, the facts it states by slot (every entity id is real by now)."""
        facts: dict[str, dict[str, _Fact]] = {}
        self._validities: dict[tuple[int, int], Validity] = {}
        self._dates: dict[int, tuple[str | None, int | None]] = {}
        self._ids = self._entity_ids()
        for loaded in self.changed:
            assert loaded.result is not None
            own: dict[str, _Fact] = {}
            facts[loaded.name] = own
            lives: dict[str, list[Any]] = {}
            for life in loaded.result.life_events:
                lives.setdefault(life.entity_id, []).append(life)
            for entry in loaded.result.entries:
                if entry.id not in self.planned:
                    continue
                self._entry_facts(entry, lives.get(entry.id, ()), own)
            self._relation_facts(loaded.result.relations, own)
        return facts

    def _validity(self, start: WorldDate | None, end: WorldDate | None = None) -> Validity:
        # By identity: the loader shares one WorldDate per date text, and hashing pydantic models is slow.
        key = (id(start), id(end))
        found = self._validities.get(key)
        if found is None:
            found = self._validities[key] = _date_validity(self._date(start), self._date(end))
        return found

    def _date(self, date: WorldDate | None) -> tuple[str | None, int | None]:
        if date is None:
            return None, None
        found = self._dates.get(id(date))
        if found is None:
            found = self._dates[id(date)] = (None if date.is_unknown else str(date), world_key(date))
        return found

    def _entry_facts(self, entry: LoreEntry, lives: Iterable[Any], own: dict[str, _Fact]) -> None:
        subject = self._ids[entry.id]
        visibility = _VISIBILITY[entry.visibility]
        skipped = _NOT_ATTRIBUTES.get(entry.entity_type, frozenset())
        for name, raw in entry.attributes.items():
            if name in skipped:
                continue
            value = _value_text(raw)
            if value is None:
                continue
            slot = f"attr|{entry.id}|{name}"
            fp = _statement_fingerprint("attribute", subject, name, None, value, ALWAYS, visibility.value)
            own[slot] = _Fact(
                slot, StatementKind.ATTRIBUTE, subject, name, None, value, ALWAYS, visibility, entry.line, fp
            )
        if entry.entity_type not in ("Person", "Creature", "Deity"):
            return
        for life in lives:
            state = _LIFE_STATES.get(life.event)
            if state is None or life.date.is_unknown:
                continue
            validity = self._validity(life.date)
            slot = f"state|{entry.id}|{state}"
            fp = _statement_fingerprint("state", subject, "state", None, state, validity, visibility.value)
            own[slot] = _Fact(
                slot, StatementKind.STATE, subject, "state", None, state, validity, visibility, life.line, fp
            )

    async def _event_dates(self) -> None:
        """Find the date of every event named by an undated OCCURRED_AT (a gazetteer's `events_held`).

        A timeline's `location` and a gazetteer's `events_held` say the same thing, where an event took
        place; the timeline dates it from the event and the gazetteer cannot. Dated alike, the two are one
        fact (one statement with evidence from both files) instead of the same edge twice.
        """
        self.event_dates: dict[str, Validity] = {}
        wanted = {
            r.source_id
            for f in self.changed
            for r in (f.result.relations if f.result is not None else ())
            if r.type == "OCCURRED_AT" and r.valid_from is None
        }
        elsewhere: dict[int, str] = {}
        for key in wanted:
            plan = self.planned.get(key)
            if plan is not None:
                self.event_dates[key] = plan.validity
            elif self.known[key].entity_id is not None:
                elsewhere[int(self.known[key].entity_id or 0)] = key
        table = EntityRow.__table__.c
        ids = sorted(elsewhere)
        for start in range(0, len(ids), _CHUNK):
            query = select(table.id, table.world_from, table.world_from_key).where(
                table.id.in_(ids[start : start + _CHUNK])
            )
            for entity_id, world_from, world_from_key in (await self.session.execute(query)).all():
                self.event_dates[elsewhere[entity_id]] = Validity(
                    world_from=world_from, world_from_key=world_from_key
                )

    def _relation_facts(self, relations: Iterable[LoreRelation], own: dict[str, _Fact]) -> None:
        """Add the fact of each relation record (one loop: a big tree has tens of thousands)."""
        ids, validity_of, event_dates = self._ids, self._validity, self.event_dates
        # The fingerprint's text of each validity (its world bounds), by identity like the validities.
        bounds: dict[int, str] = {}
        relation_kind = StatementKind.RELATION
        for relation in relations:
            kind, source_id, target_id = relation.type, relation.source_id, relation.target_id
            source, target = ids[source_id], ids[target_id]
            validity = validity_of(relation.valid_from, relation.valid_until)
            if kind == "OCCURRED_AT" and relation.valid_from is None:
                validity = event_dates.get(source_id, validity)
            if kind == "SPOUSE_OF" and target_id < source_id:
                slot = f"rel|{kind}|{target_id}|{source_id}"
            else:
                slot = f"rel|{kind}|{source_id}|{target_id}"
            bound = bounds.get(id(validity))
            if bound is None:
                bound = bounds[id(validity)] = (
                    f"{validity.world_from or ''}{_SEP}{validity.world_until or ''}"
                )
            visibility = relation.visibility
            # _statement_fingerprint("relation", source, kind, target, None, validity, visibility), inlined.
            text = f"relation{_SEP}{source}{_SEP}{kind}{_SEP}{target}{_SEP}{_SEP}{bound}{_SEP}{visibility}"
            own[slot] = _Fact(
                slot,
                relation_kind,
                source,
                kind,
                target,
                None,
                validity,
                _VISIBILITY[visibility],
                relation.line,
                _blake(text.encode(), digest_size=10).hexdigest(),
            )

    # -- writing --------------------------------------------------------------------------------------

    async def _write(self) -> IngestReport:
        names = ", ".join(f.name for f in self.changed)
        self.changeset = await open_changeset(
            self.session,
            self.campaign_id,
            ChangesetKind.YAML_IMPORT,
            actor_id=self.actor_id,
            actor_name=self.actor_name,
            rationale=f"YAML import: {names}",
        )
        self.stamp = {
            "campaign_id": self.campaign_id,
            "changeset_id": self.changeset.id,
            "recorded_at": self.changeset.recorded_at,
        }
        # Evidence rows as tuples in `_EVIDENCE_COLUMNS` order (tens of thousands: no dict each).
        self.evidence_rows: list[tuple[Any, ...]] = []
        self.evidence_bases: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.status_rows: list[dict[str, Any]] = []
        await self._write_entities()
        await self._event_dates()
        facts = self._facts()
        written = await self._write_statements(facts)
        await bulk_insert(self.session, EvidenceRow.__table__, self.evidence_rows, columns=_EVIDENCE_COLUMNS)
        await bulk_insert(self.session, StatusChangeRow.__table__, self.status_rows)
        self._save_records()
        await self.session.flush()
        warnings = await self._check(written)
        return self._report("ingested", self.changeset.id, warnings)

    def _evidence(self, kind: str, target: int, file: str, line: int) -> None:
        self.evidence_rows.append((*self._evidence_base(kind, file), target, line))

    def _evidence_base(self, kind: str, file: str) -> tuple[Any, ...]:
        # One row per entity and statement (tens of thousands in a big tree): the constant part is built once,
        # the values of `_EVIDENCE_COLUMNS` but the last two.
        base = self.evidence_bases.get((kind, file))
        if base is None:
            stamp = self.stamp
            base = self.evidence_bases[(kind, file)] = (
                stamp["campaign_id"],
                stamp["changeset_id"],
                stamp["recorded_at"],
                kind,
                EvidenceKind.YAML.value,
                file,
                None,
            )
        return base

    def _retcon(self, kind: str, target: int, replacement: int | None, rationale: str) -> None:
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

    async def _write_entities(self) -> None:
        """Insert new and replacing entities in bulk; retcon the replaced and removed ones."""
        to_insert = [p for p in self.planned.values() if p.action in ("create", "replace")]
        rows = []
        for plan in to_insert:
            entry = plan.entry
            type_name = self.ontology.entity_type(plan.type)
            name = _clean_name(entry.name)
            rows.append(
                {
                    **self.stamp,
                    **validity_columns(plan.validity),
                    "type": type_name,
                    "name": name,
                    "name_folded": plan.folded or fold(name),
                    "key": entry.id,
                    "kind": self.ontology.entity_types[type_name].kind.value,
                    "visibility": entry.visibility,
                    "description": None,
                    "attributes": _NO_ATTRIBUTES,
                    "authority": Authority.SOURCE.value,
                    "confidence": 1.0,
                }
            )
        if rows:
            ids = await insert_returning_ids(self.session, _table(EntityRow), rows)
            for plan, new_id, row in zip(to_insert, ids, rows, strict=True):
                plan.entity_id = new_id
                self.created_rows[new_id] = row
                self._evidence("entity", new_id, plan.file, plan.entry.line)
                if plan.action == "replace" and plan.old_id is not None:
                    self.replaced[plan.old_id] = new_id
        for plan in self.planned.values():
            if plan.action == "adopt":
                assert plan.entity_id is not None
                self._evidence("entity", plan.entity_id, plan.file, plan.entry.line)
        for key in (k for k in self.old_entries if k not in self.defined):
            file, info = self.old_entries[key]
            self.removed[int(info["e"])] = f"Removed from {file} (it defined “{key}”)."
        already = await self._retconned("entity", [*self.replaced, *self.removed])
        for old, new in self.replaced.items():
            if old not in already:
                plan = next(p for p in self.planned.values() if p.old_id == old)
                self._retcon(
                    "entity",
                    old,
                    new,
                    f"Replaced by the entry “{plan.entry.id}” of {plan.file}, line {plan.entry.line}.",
                )
        for old, why in self.removed.items():
            if old not in already:
                self._retcon("entity", old, None, why)
                self.entity_counts["retconned"] += 1
        self.entity_counts.update(p.action for p in self.planned.values())

    async def _write_statements(self, facts: dict[str, dict[str, _Fact]]) -> list[int]:
        """Write what changed; share identical facts; retcon what is gone; carry over facts of replaced entities."""
        writer = CanonWriter(self.session, self.changeset, self.ontology, deferred=True)
        old_claims: dict[str, dict[str, list[Any]]] = {
            name: self.records[name].statements for name in self.changed_names if name in self.records
        }
        others = [r for name, r in self.records.items() if name not in self.changed_names]
        claimed_elsewhere = {int(v[0]) for r in others for v in r.statements.values()}

        # 1. Slots whose fact is unchanged keep their statement; the rest may share one or need a new one.
        undecided: list[tuple[str, _Fact, int | None]] = []  # (file, fact, the slot's old statement)
        for name, own in facts.items():
            old = old_claims.get(name, {})
            claims: dict[str, list[Any]] = {}
            self.new_records[name] = claims
            for slot, fact in own.items():
                before = old.get(slot)
                if before is not None and before[1] == fact.fp:
                    claims[slot] = [int(before[0]), fact.fp]
                    self.statement_counts["unchanged"] += 1
                else:
                    undecided.append((name, fact, int(before[0]) if before is not None else None))
        shareable = await self._shareable({fact.fp for _, fact, _ in undecided})
        pending: list[tuple[str, _Fact, int | None]] = []
        for name, fact, slot_was in undecided:
            shared = shareable.get(fact.fp)
            if shared is None:
                pending.append((name, fact, slot_was))
                continue
            self.new_records[name][fact.slot] = [shared, fact.fp]
            old_ids = {int(v[0]) for v in old_claims.get(name, {}).values()}
            if shared in old_ids:
                self.statement_counts["unchanged"] += 1
            else:
                self._evidence("statement", shared, name, fact.line)
                self.statement_counts["shared"] += 1

        # 2. Old statements nobody states any more are retconned (by the fact now in their slot, if any).
        still_claimed = claimed_elsewhere | {int(v[0]) for c in self.new_records.values() for v in c.values()}
        gone: dict[int, tuple[str, str]] = {}  # old statement id -> (file, slot)
        for name, old in old_claims.items():
            for slot, (statement_id, _fp) in old.items():
                if int(statement_id) not in still_claimed:
                    gone[int(statement_id)] = (name, slot)
        already = await self._retconned("statement", gone)

        # 3. New statements, in bulk; a fact two files of this import state alike is one statement.
        # Each fact's place in `queued` (the statements to write), its placeholder once they are queued.
        placeholders: list[tuple[str, _Fact, int, int | None]] = []
        queued: list[tuple[StatementKind, int, str, int | None, str | None, Validity, Visibility, int | None]]
        queued = []
        first_of: dict[str, int] = {}  # fingerprint -> place in `queued`
        counts = self.statement_counts
        for name, fact, slot_was in pending:
            replaces = (
                slot_was if slot_was is not None and slot_was in gone and slot_was not in already else None
            )
            fp = fact.fp
            if fp in first_of:
                placeholders.append((name, fact, first_of[fp], None))
                counts["shared"] += 1
                continue
            place = first_of[fp] = len(queued)
            queued.append(
                (
                    fact.kind,
                    fact.subject_id,
                    fact.predicate,
                    fact.object_id,
                    fact.value,
                    fact.validity,
                    fact.visibility,
                    replaces,
                )
            )
            placeholders.append((name, fact, place, replaces))
            counts["changed" if replaces is not None else "created"] += 1
        queued_as = writer.queue_statements(queued, authority=Authority.SOURCE, confidence=1.0)
        carried = await self._carry_over(writer, set(gone))
        await self._find_dangling(set(gone))
        mapping = await writer.flush()
        provenance = self._provenance(Authority.SOURCE, 1.0)
        written: list[int] = []
        written_at, new_statements, records = self.written_at, self.new_statements, self.new_records
        evidence_rows = self.evidence_rows
        ids = [mapping[placeholder] for placeholder in queued_as]
        bases = {name: self._evidence_base("statement", name) for name in facts}
        for name, fact, place, replaces in placeholders:
            statement_id = ids[place]
            records[name][fact.slot] = [statement_id, fact.fp]
            evidence_rows.append((*bases[name], statement_id, fact.line))
            if statement_id in written_at:
                continue  # stated by an earlier file of this import too: evidence only
            written.append(statement_id)
            written_at[statement_id] = (name, fact.line)
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
        self.yaml_written.update(written)
        # The new statement in each slot whose old one is gone (its replacement).
        slot_ids = {(name, fact.slot): ids[place] for name, fact, place, _ in placeholders} if gone else {}
        for original, copy, placeholder, record_slots in carried:
            new_id = mapping[placeholder]
            written.append(new_id)
            self.new_statements.append(dataclasses.replace(copy, id=new_id))
            self._retcon(
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
            self._retcon("statement", statement_id, replacement, why)
            self.statement_counts["retconned"] += 1
        self.statement_counts["carried_over"] += len(carried)
        return written

    async def _find_dangling(self, leaving: set[int]) -> None:
        """Note the standing facts (other files', prose, play) about entities this import retcons: checked too."""
        removed = list(self.removed)
        for start in range(0, len(removed), _CHUNK):
            chunk = removed[start : start + _CHUNK]
            for s in await self.reader.statements(subject_ids=chunk, object_ids=chunk, with_evidence=False):
                if s.id not in leaving:
                    self.dangling.append(s.id)

    async def _shareable(self, fingerprints: set[str]) -> dict[str, int]:
        """Return standing statements another slot or file already wrote with these fingerprints."""
        if not fingerprints:
            return {}
        candidates: dict[str, int] = {}
        for record in self.records.values():
            for statement_id, fp in record.statements.values():
                if fp in fingerprints:
                    candidates.setdefault(str(fp), int(statement_id))
        dead = await self._retconned("statement", candidates.values())
        return {fp: sid for fp, sid in candidates.items() if sid not in dead}

    def _provenance(self, authority: Authority, confidence: float) -> Provenance:
        return Provenance(
            campaign_id=self.campaign_id,
            changeset_id=self.changeset.id,
            recorded_at=self.changeset.recorded_at,
            authority=authority,
            confidence=confidence,
        )

    async def _carry_over(
        self, writer: CanonWriter, leaving: set[int]
    ) -> list[tuple[Statement, Statement, int, list[tuple[_Record, str, str]]]]:
        """Re-write the standing statements about replaced entities about their replacements.

        Returns (old statement, its copy without id, placeholder, record slots to repoint) for each.
        """
        if not self.replaced:
            return []
        old_ids = list(self.replaced)
        statements: dict[int, Statement] = {}
        for start in range(0, len(old_ids), _CHUNK):
            chunk = old_ids[start : start + _CHUNK]
            for s in await self.reader.statements(subject_ids=chunk, object_ids=chunk):
                statements[s.id] = s
        record_slots: dict[int, list[tuple[_Record, str]]] = {}
        for record in self.records.values():
            if record.file in self.changed_names:
                continue
            for slot, (statement_id, _fp) in record.statements.items():
                if int(statement_id) in statements:
                    record_slots.setdefault(int(statement_id), []).append((record, slot))
        carried: list[tuple[Statement, Statement, int, list[tuple[_Record, str, str]]]] = []
        for s in sorted(statements.values(), key=lambda s: s.id):
            if s.id in leaving:
                continue  # a changed file's own fact: re-written from the file, or retconned
            subject = self.replaced.get(s.subject_id, s.subject_id)
            obj = self.replaced.get(s.object_id, s.object_id) if s.object_id is not None else None
            evidence = [e.model_copy(update={"changeset_id": None}) for e in s.evidence]
            evidence.append(
                Evidence(kind=EvidenceKind.YAML, note=f"Carried over from #{s.id}: its entity was replaced.")
            )
            placeholder = await writer.add_statement(
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
            fp = _statement_fingerprint(
                s.kind.value, subject, s.predicate, obj, s.value, s.validity, s.visibility.value
            )
            copy = dataclasses.replace(
                s,
                subject_id=subject,
                object_id=obj,
                replaces_id=s.id,
                provenance=self._provenance(s.provenance.authority, s.provenance.confidence),
                evidence=tuple(evidence),
            )
            slots = [(record, slot, fp) for record, slot in record_slots.get(s.id, [])]
            carried.append((s, copy, placeholder, slots))
        return carried

    def _save_records(self) -> None:
        """Write a new version of the record of every file this import wrote for (never update one in place:
        a branch forked earlier still reads the version it inherited)."""
        now = utc_now()
        by_file: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in self.changed_names}
        for key, plan in self.planned.items():
            by_file[plan.file][key] = {
                "e": plan.entity_id,
                "f": plan.fp,
                "t": plan.type,
                "l": plan.entry.line,
            }
        stamp = {"campaign_id": self.campaign_id, "changeset_id": self.changeset.id, "updated_at": now}
        for loaded in self.changed:
            assert loaded.result is not None
            self.session.add(
                StructuredFileRow(
                    **stamp,
                    file=loaded.name,
                    kind=loaded.result.kind or "",
                    content_hash=loaded.content_hash,
                    entries=by_file[loaded.name],
                    statements=self.new_records.get(loaded.name, {}),
                )
            )
        for record in self.records.values():
            if record.file in self.changed_names or not record.dirty:
                continue
            # Another file's facts carried over to a replacing entity: the same file, repointed slots.
            self.session.add(
                StructuredFileRow(
                    **stamp,
                    file=record.file,
                    kind=record.kind,
                    content_hash=record.content_hash,
                    entries=record.entries,
                    statements=dict(record.statements),
                )
            )

    # -- checks ---------------------------------------------------------------------------------------

    async def _check(self, written: list[int]) -> list[IngestWarning]:
        """Run the continuity rules on the new statements (and on facts left about retconned entities)."""
        focus = [*written, *self.dangling]
        if not focus:
            return []
        if self.dangling:
            snapshot = (
                await neighbourhood_snapshot(self.reader, focus)
                if len(focus) <= _NEIGHBOURHOOD_LIMIT
                else await whole_snapshot(self.reader)
            )
        else:
            snapshot = await self._snapshot()
        found = check(snapshot, focus=set(focus))
        findings = await with_evidence(self.reader, self._yaml_prevails(found, snapshot))
        findings, superseded = await self._supersede(findings, snapshot)
        new = {f.fingerprint for f in await record_findings(self.session, self.campaign_id, findings)}
        return [
            IngestWarning(
                kind=f.kind.value,
                message=f.message,
                sides=tuple(
                    side.sentence
                    + (" — " + "; ".join(e.describe() for e in side.evidence[:2]) if side.evidence else "")
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
            if winner.id not in self.written_at:
                continue  # an older YAML fact: the conflict was there before this import
            ids = self.over_limit.get(finding.fingerprint)
            if ids is None:
                ids = [
                    s.id
                    for s in (by_id.get(side.statement_id or 0) for side in finding.sides)
                    if s is not None and s.id not in self.written_at and _rank(s) < _rank(winner)
                ]
            file, line = self.written_at[winner.id]
            why = f"Contradicted by the YAML lore ({file}, line {line}), which prevails: superseded by #{winner.id}."
            for loser in (i for i in ids if i not in losers):
                losers[loser] = (winner.id, why)
            if ids:
                by_finding[finding.fingerprint] = tuple(sorted(ids))
        standing = set(losers) - await self._retconned("statement", losers)
        if not standing:
            return findings, {}
        self.status_rows = []
        for loser in sorted(standing):
            winner_id, why = losers[loser]
            self._retcon("statement", loser, winner_id, why)
        await bulk_insert(self.session, StatusChangeRow.__table__, self.status_rows)
        self.statement_counts["superseded"] += len(standing)
        superseded = {fp: tuple(i for i in ids if i in standing) for fp, ids in by_finding.items()}
        marked = []
        for finding in findings:
            gone = superseded.get(finding.fingerprint, ())
            if gone:
                listed = ", ".join(f"#{i}" for i in gone)
                note = f" The YAML fact is now the current one; superseded (kept, not deleted): {listed}."
                finding = finding.model_copy(update={"message": finding.message + note})
            marked.append(finding)
        return marked, {fp: ids for fp, ids in superseded.items() if ids}

    async def _snapshot(self) -> Snapshot:
        """Return the snapshot the checks read: what was just written, from memory, plus the existing entities
        it touches (their facts, neighbours and parents) from the database, or the whole campaign when
        those are many."""
        touched = {s.subject_id for s in self.new_statements} | {
            s.object_id for s in self.new_statements if s.object_id is not None
        }
        existing = touched - set(self.created_rows)
        if len(existing) > _EXISTING_LIMIT:
            return await whole_snapshot(self.reader)
        base = await entities_snapshot(self.reader, existing) if existing else None
        provenance = self._provenance(Authority.SOURCE, 1.0)
        entities: dict[int, Entity] = dict(base.entities) if base is not None else {}
        for entity_id, row in self.created_rows.items():
            entities[entity_id] = Entity(
                id=entity_id,
                type=row["type"],
                name=row["name"],
                provenance=provenance,
                key=row["key"],
                kind=row["kind"],
                visibility=_VISIBILITY[row["visibility"]],
                validity=Validity(
                    world_from=row["world_from"],
                    world_from_key=row["world_from_key"],
                    world_until=row["world_until"],
                    world_until_key=row["world_until_key"],
                ),
            )
        statements = list(base.statements) if base is not None else []
        known = {s.id for s in statements}
        statements += [s for s in self.new_statements if s.id not in known]
        return Snapshot(
            entities=entities,
            statements=statements,
            dependencies=base.dependencies if base is not None else {},
            ontology=self.ontology,
        )

    def _yaml_prevails(self, findings: list[Finding], snapshot: Snapshot) -> list[Finding]:
        """Turn a limit broken by YAML facts plus facts of lower authority into a contradiction the YAML wins."""
        by_id = {s.id: s for s in snapshot.statements}
        yaml_ids = set(self.yaml_written)
        for claims in [*self.new_records.values(), *(r.statements for r in self.records.values())]:
            yaml_ids |= {int(v[0]) for v in claims.values()}
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
            prevailing = next((s for _, s in ours if s.id in self.written_at), ours[0][1])
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

    def _beyond_limit(self, ours: list[Statement], theirs: list[Statement]) -> list[int]:
        """Return the relations of lower authority a slot must lose to fit its limit beside the YAML's, weakest
        (then newest) first; one that names the same entity as a YAML relation agrees with it and stays."""
        group = [*ours, *theirs]
        rel = self.ontology.relation_types.get(group[0].predicate)
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

    def _attribute_contradictions(self, snapshot: Snapshot, yaml_ids: set[int]) -> list[Finding]:
        """Find facts of prose or play that give a new YAML attribute another value at an overlapping time.

        The continuity rules let a fact of play (dated by scene) supersede a timeless one; YAML lore is
        timeless when it gives no date, so it holds at every time, and a different value is a contradiction.
        """
        new_attributes = [
            s for s in self.new_statements if s.kind == StatementKind.ATTRIBUTE and s.id in self.yaml_written
        ]
        if not new_attributes:
            return []
        wanted = {(s.subject_id, s.predicate) for s in new_attributes}
        others: dict[tuple[int, str], list[Statement]] = defaultdict(list)
        for s in snapshot.statements:
            key = (s.subject_id, s.predicate)
            if (
                key in wanted
                and s.kind == StatementKind.ATTRIBUTE
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

    # -- reports --------------------------------------------------------------------------------------

    def _error(self, file: str, line: int, column: int, message: str) -> None:
        self.errors.append(LoreProblem(file=file, line=line, column=column, message=message))

    def _file_reports(self, status_of: Mapping[str, _FileStatus]) -> list[FileReport]:
        reports: list[FileReport] = []
        for loaded in self.files:
            counts: Counter[str] = Counter()
            kind: str | None = None
            if loaded.result is not None:
                counts.update(e.entity_type for e in loaded.result.entries)
                kind = loaded.result.kind
            else:
                record = self.records.get(loaded.name) if hasattr(self, "records") else None
                if record is not None:
                    counts.update(str(info.get("t")) for info in record.entries.values())
                    kind = record.kind
            reports.append(
                FileReport(
                    file=loaded.name,
                    kind=kind,
                    status=status_of.get(loaded.name, "unchanged"),
                    content_hash=loaded.content_hash,
                    entries=sum(counts.values()),
                    counts=dict(sorted(counts.items())),
                )
            )
        return reports

    def _failed(self) -> IngestReport:
        errors = tuple(sorted(self.errors, key=lambda p: (p.file, p.line, p.column)))
        bad = {p.file for p in errors}
        failed: dict[str, _FileStatus] = {name: "failed" for name in bad}
        files = self._file_reports(failed)
        return IngestReport(
            campaign_id=self.campaign_id,
            status="failed",
            files=tuple(files),
            errors=errors,
            error=f"{len(errors)} problem(s) in {', '.join(sorted(bad))}; nothing was written.",
            seconds=round(time.perf_counter() - self.started, 4),
        )

    def _report(
        self,
        status: Literal["ingested", "unchanged"],
        changeset_id: int | None,
        warnings: list[IngestWarning],
    ) -> IngestReport:
        status_of: dict[str, _FileStatus] = {}
        if status == "ingested":
            for loaded in self.changed:
                status_of[loaded.name] = "updated" if loaded.name in self.records else "created"
        files = self._file_reports(status_of)
        counts: Counter[str] = Counter()
        for f in files:
            counts.update(f.counts)
        e, s = self.entity_counts, self.statement_counts
        return IngestReport(
            campaign_id=self.campaign_id,
            status=status,
            changeset_id=changeset_id,
            files=tuple(files),
            counts=dict(sorted(counts.items())),
            entities=ChangeCounts(
                created=e["create"],
                changed=e["replace"],
                unchanged=e["keep"],
                adopted=e["adopt"],
                retconned=e["retconned"],
            ),
            statements=ChangeCounts(
                created=s["created"],
                changed=s["changed"],
                unchanged=s["unchanged"],
                retconned=s["retconned"],
                carried_over=s["carried_over"],
                shared=s["shared"],
                superseded=s["superseded"],
            ),
            warnings=tuple(warnings),
            seconds=round(time.perf_counter() - self.started, 4),
        )


def _table(model: Any) -> Table:
    """Return a model's table, typed as a table (for bulk inserts)."""
    return cast(Table, model.__table__)


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
    return f"{name}: {s.predicate} = {s.value}" + (f" ({when})" if when else "")


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
    message = (
        f"{name}'s {ours.predicate} is “{theirs.value}” according to {_who(theirs)}, contradicting "
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


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"
