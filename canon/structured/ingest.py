"""Ingest structured lore into a campaign's canon graph: exactly, through the ontology, all or nothing.

`load_files` reads and validates YAML files (CPU only; run it off the event loop). `ingest` writes what they
say into the canon graph inside the caller's transaction, under ONE changeset (`ChangesetKind.YAML_IMPORT`),
and returns an `IngestReport`. The files of one call are ingested together: they may refer to each other, and
to entities the campaign already has. When any file has a problem, or an id is defined nowhere, nothing is
written and the report lists every error with file, line and column.

The stages, each in its module:

1. `resolve`: every id the files define or use, and where it is defined (the files, the campaign's other
   YAML files, canon by key or by name);
2. `plan`: the entity each entry will be (kept, adopted, created, or replacing an old one), and every edge
   checked against the ontology;
3. `facts`: what each file states, slot by slot (attributes, life states, relations), with fingerprints;
4. `write` and `statements`: the entities, then only the difference against what the campaign remembers of
   each file (`versions`), with evidence; what a file no longer says is retconned, never deleted;
5. `prevail`: the continuity checks on what was written, and the YAML prevailing over prose and play.

What a file becomes: each entry an entity of the loader's type, its YAML id the entity's `key` (an Era's
validity is its bounds, an Event's its date; the entity row carries no description: descriptions are facts
like every other attribute, so that editing one changes a fact, not the entity); attributes become attribute
statements, born and died the states `alive` and `dead`, relation records relation statements.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import ChangesetKind, lineage, open_changeset
from canon.errors import Conflict
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology
from canon.structured.changes import say_changes
from canon.structured.era_years import calendar_years_differ
from canon.structured.facts import FactBuilder, event_dates
from canon.structured.files import LoadedFile, content_hash, file_hashes, load_files
from canon.structured.import_checks import import_checks
from canon.structured.office_checks import office_warnings
from canon.structured.plan import check_endpoints, entity_ids, plan_entities
from canon.structured.prevail import Checks
from canon.structured.reports import (
    ChangeCounts,
    FileReport,
    IngestReport,
    IngestWarning,
    done_report,
    failed_report,
)
from canon.structured.resolve import build_index
from canon.structured.standing import open_conflicts
from canon.structured.state import IngestState
from canon.structured.statements import write_statements
from canon.structured.ties import keep_ties
from canon.structured.told import secrets_told_elsewhere
from canon.structured.versions import known_hashes, load_records
from canon.structured.write import Writer
from canon.wording import Wording

__all__ = [
    "ChangeCounts",
    "FileReport",
    "IngestReport",
    "IngestWarning",
    "LoadedFile",
    "content_hash",
    "file_hashes",
    "ingest",
    "known_hashes",
    "load_files",
]


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
        return await _ingest(session, campaign_id, files, ontology, actor_id, actor_name)
    finally:
        if collecting:
            gc.enable()


async def _ingest(
    session: AsyncSession,
    campaign_id: int,
    files: Sequence[LoadedFile],
    ontology: Ontology,
    actor_id: int | None,
    actor_name: str | None,
) -> IngestReport:
    started = time.perf_counter()
    problems = [p for loaded in files if loaded.result is not None for p in loaded.result.problems]
    if problems:
        return failed_report(campaign_id, files, {}, problems, started)
    steps = await lineage(session, campaign_id)
    reader = CanonReader(session, steps, ontology, viewer=Viewer.GM)
    # Nothing to write when every file is known unchanged: the statement maps are not needed then.
    versions = await load_records(session, steps, statements=any(f.result is not None for f in files))
    for loaded in files:
        known = versions.get(loaded.name)
        if loaded.result is None and (known is None or known.content_hash != loaded.content_hash):
            raise Conflict(f"{loaded.name} changed while it was being imported; import it again.")
    changed = [
        f
        for f in files
        if f.result is not None
        and (versions.get(f.name) is None or versions[f.name].content_hash != f.content_hash)
    ]
    state = IngestState(
        session, campaign_id, ontology, files, steps, reader, versions, changed, actor_id, actor_name, started
    )
    if not changed:
        # Nothing written, but the files' warnings still stand: the loader's, and the conflicts left open.
        standing = await open_conflicts(state, files)  # the files' own checks: `with_unchanged_warnings`
        return done_report(state, "unchanged", None, standing)
    index = await build_index(state)
    if state.errors:
        return failed_report(campaign_id, files, versions, state.errors, started)
    keep_ties(state, index)  # a faction's `worships: Saint Orla`: WORSHIPS the god, when there is one
    planned = await plan_entities(state, index)
    if state.errors:
        return failed_report(campaign_id, files, versions, state.errors, started)
    check_endpoints(state, index, planned)
    if state.errors:
        return failed_report(campaign_id, files, versions, state.errors, started)
    names = ", ".join(f.name for f in changed)
    changeset = await open_changeset(
        session,
        campaign_id,
        ChangesetKind.YAML_IMPORT,
        actor_id=actor_id,
        actor_name=actor_name,
        rationale=f"YAML import: {names}",
    )
    writer = Writer(state, index, planned, changeset)
    await writer.write_entities()
    ids = entity_ids(index, planned)
    builder = FactBuilder(
        ids,
        planned,
        await event_dates(state, index, planned),
        attribute_name=lambda type_name, name: state.ontology.attribute(type_name, name)[0],
    )
    facts = builder.facts(changed)
    told = await secrets_told_elsewhere(state, facts)
    written = await write_statements(writer, facts)
    await say_changes(state, ids)
    await writer.write_rows()
    warnings = [
        *import_checks(files, Wording(calendar=(await state.reader.calendar()).words())),
        *told,
        *await calendar_years_differ(state, changed),
        *await office_warnings(state, changed, ids),
        *await Checks(writer).run(written),
    ]
    return done_report(state, "ingested", changeset.id, warnings)
