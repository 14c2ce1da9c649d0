"""Structured lore (YAML) import: the use case that owns its transaction, and the hook `lorekeeper ingest` calls.

`StructuredImportService.import_files` reads what the campaign remembers of the files (a read session),
validates the changed ones in a worker thread (CPU-bound; the loader is strict and reports every problem),
then writes them into the canon graph in ONE transaction through `db.run` (`canon.structured.ingest`); a small
import (a few tens of KB) does all three in that one transaction. When any problem exists nothing is written
and the report lists the errors (file, line, column, message).

A file is known by the name it declares (a top-level `source:` key), else by its path within the campaign (a
path given on the command line, relative to the working directory; a Discord attachment's file name). An
import that would replace a file imported before under that name AND retcon what it said is not written
unless the caller says `replace=True`: without it, such an import is rolled back and its report (status
`confirm`) says what it would retcon; one that retcons nothing is written by that same run.

Entry points:
- `lorekeeper ingest FILE.yaml... --campaign C [--json] [--replace]` (`bot.cli.lore` calls `ingest_yaml`);
- Discord: `/lore import` routes `.yaml`/`.yml` attachments to `StructuredImportService.import_files`
  (GM only), asks before replacing, and answers with the counts by type and warnings, or the error list.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.roster_players import ServerMembers, link_players, roster_problems
from bot.services.unchanged_warnings import with_unchanged_warnings
from canon import offload
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, lineage
from canon.errors import InvalidInput
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology, base_ontology
from canon.storage import Database
from canon.structured.files import LoadedFile, declared_source, remembered_names
from canon.structured.ingest import IngestReport, file_hashes, ingest, known_hashes, load_files
from canon.structured.loader import DEFAULT_MAX_BYTES
from canon.structured.reports import failed_report
from canon.structured.versions import load_records
from memory.scenes import Actor

YAML_SUFFIXES = (".yaml", ".yml")
#: Imports of this many bytes or more plan and write on a loop of their own (`canon.offload.write_apart`):
#: their seconds of Python between queries would otherwise hold the bot's event loop.
APART_BYTES = 256 * 1024
#: Imports of at most this many bytes are read, loaded and written in one transaction, loaded on the loop: a
#: typical file (about 100 entries, 10 to 30 KB) loads in a few milliseconds, less than a read session first
#: and a worker thread's hand-over cost on a busy machine.
INLINE_BYTES = 32 * 1024
#: How long an import waiting for its replacement to be confirmed is kept, and how many are kept at most.
PENDING_SECONDS = 15 * 60
PENDING_LIMIT = 20
EXPIRED = (
    "This replacement is no longer waiting: it was confirmed already, or 15 minutes passed, or the bot restarted. "
    "Nothing was written; import the file again."
)


@dataclass(frozen=True)
class PendingImport:
    """An import that would replace earlier files, held until the GM confirms it (in memory: uploads are not
    kept on disk, so a restart forgets it and the GM imports again)."""

    campaign_id: int
    files: tuple[tuple[str, bytes], ...]
    hidden: bool
    held_at: float
    members: ServerMembers | None = None


class StructuredImportService:
    """Import structured-lore YAML files into a campaign's canon graph, exactly and all or nothing."""

    def __init__(self, db: Database, ontology_for: Any = None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.db = db
        # `ontology_for(campaign)` gives the campaign's ontology (CanonService.ontology_for); default: the base.
        self.ontology_for = ontology_for
        self.max_bytes = max_bytes
        self._pending: dict[str, PendingImport] = {}

    def hold(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        *,
        hidden: bool = False,
        members: ServerMembers | None = None,
    ) -> str:
        """Keep an import that waits for the GM to confirm a replacement; return its token."""
        while len(self._pending) >= PENDING_LIMIT:
            self._pending.pop(next(iter(self._pending)))
        token = secrets.token_hex(8)
        self._pending[token] = PendingImport(campaign.id, tuple(files), hidden, time.monotonic(), members)
        return token

    def take(self, token: str, campaign: Campaign) -> PendingImport:
        """Return what `hold` kept, no longer held; `InvalidInput` when it no longer waits."""
        pending = self._pending.get(token)
        if pending is None or pending.campaign_id != campaign.id:
            raise InvalidInput(EXPIRED)
        del self._pending[token]
        if time.monotonic() - pending.held_at > PENDING_SECONDS:
            raise InvalidInput(EXPIRED)
        return pending

    async def confirm(self, token: str, campaign: Campaign, actor: Actor | None = None) -> IngestReport:
        """Import what `hold` kept, replacing the earlier files; `InvalidInput` when it no longer waits."""
        pending = self.take(token, campaign)
        return await self.import_files(
            campaign, pending.files, actor, hidden=pending.hidden, replace=True, members=pending.members
        )

    async def entries_of(self, campaign: Campaign, name: str) -> set[str]:
        """Return the ids of the entries a file of this name wrote in the campaign when it was last imported
        (none: never imported)."""
        async with self.db.session() as session:
            records = await load_records(session, await lineage(session, campaign.id), statements=False)
        found = records.get(name)
        return set(found.entries) if found is not None else set()

    def _ontology(self, campaign: Campaign) -> Ontology:
        if self.ontology_for is not None:
            found: Ontology = self.ontology_for(campaign)
            return found
        extension = campaign.settings.get("ontology")
        return base_ontology().extended(extension) if extension else base_ontology()

    async def import_bytes(
        self, campaign: Campaign, filename: str, data: bytes, actor: Actor | None = None
    ) -> IngestReport:
        """Import one YAML file given as bytes (a Discord attachment); see `import_files`."""
        return await self.import_files(campaign, [(filename, data)], actor)

    async def import_paths(
        self,
        campaign: Campaign,
        paths: Sequence[Path],
        actor: Actor | None = None,
        *,
        hidden: bool = False,
        replace: bool = True,
        extra: Sequence[tuple[str, bytes]] = (),
    ) -> IngestReport:
        """Import YAML files from disk together (they may refer to each other), and `extra` files given as their
        names and text (a calendar file's eras); see `import_files`."""
        files: list[tuple[str, bytes]] = list(extra)
        for path in paths:
            try:
                size = path.stat().st_size
                if size > self.max_bytes:
                    raise InvalidInput(
                        f"{path.name} is {size:,} bytes; a lore file may be at most {self.max_bytes:,} bytes "
                        "(split it into several files)."
                    )
                files.append((campaign_path(path), path.read_bytes()))
            except OSError as error:
                raise InvalidInput(f"{path} cannot be read: {error.strerror or error}.") from None
        return await self.import_files(campaign, files, actor, hidden=hidden, replace=replace)

    async def import_files(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        actor: Actor | None = None,
        *,
        hidden: bool = False,
        replace: bool = True,
        members: ServerMembers | None = None,
    ) -> IngestReport:
        """Import (file name, bytes) pairs together into a campaign's canon, in one transaction.

        A roster's `player:` names members of the server (`members`, from Discord; the command line has none,
        and takes Discord ids only): they play those characters once the import is written
        (`bot.services.roster_players`); a name that finds no single member is an error at its line.

        A file is remembered by the `source:` it declares, else by the name given: importing the same content
        again writes nothing ("unchanged"), changed content writes only the difference. `hidden` makes every
        entry GM-only. Without `replace`, an import that would retcon what an earlier file of the same name
        said writes nothing and reports status `confirm` with what it would retcon.
        """
        if not files:
            raise InvalidInput("Give at least one YAML file to import.")
        bad = [name for name, _ in files if not name.lower().endswith(YAML_SUFFIXES)]
        if bad:
            raise InvalidInput(f"Structured lore files end in .yaml or .yml: {', '.join(bad)}.")
        files = [(declared_source(data) or name, data) for name, data in files]
        async with self.db.session() as session:
            files = remembered_names(files, await known_hashes(session, campaign.id))
        # The loaded files are hundreds of thousands of small objects without cycles, alive from the load to
        # the end of the ingest: the cyclic collector (paused by the loader and the ingest while they run)
        # would scan them all between the two. It waits until they are freed, then has little to scan.
        collecting = gc.isenabled()
        gc.disable()
        try:
            report = await self._import(campaign, files, actor, hidden, replace, members)
        finally:
            if collecting:
                gc.enable()

        async def calendar() -> CampaignCalendar:
            async with self.db.session() as session:
                return await _calendar(session, campaign.id, self._ontology(campaign))

        return await with_unchanged_warnings(report, files, calendar, hidden=hidden, max_bytes=self.max_bytes)

    async def _import(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        actor: Actor | None,
        hidden: bool,
        replace: bool,
        members: ServerMembers | None = None,
    ) -> IngestReport:
        hashes = file_hashes(files)
        ontology = self._ontology(campaign)
        if sum(len(data) for _, data in files) <= INLINE_BYTES:
            return await self._import_small(
                campaign, files, hashes, ontology, actor, hidden, replace, members
            )
        async with self.db.session() as session:
            remembered = await known_hashes(session, campaign.id)
            calendar = await _calendar(session, campaign.id, ontology)
        unchanged = {name for name, digest in hashes.items() if remembered.get(name) == digest}
        replacing = any(remembered.get(name) not in (None, digest) for name, digest in hashes.items())
        load = functools.partial(
            load_files,
            files,
            skip=unchanged,
            max_bytes=self.max_bytes,
            hidden=hidden,
            hashes=hashes,
            calendar=calendar,
        )
        actor_id = actor.id if actor is not None else None
        actor_name = actor.name if actor is not None else None
        to_load = sum(len(data) for name, data in files if name not in unchanged)
        if to_load >= APART_BYTES:
            # A large import loads, plans and writes in the worker process (`canon.offload.write_in_process`):
            # its seconds of Python, and the freeing of what it loaded, never hold the bot's interpreter.
            apart = _Apart(tuple(files), frozenset(unchanged), self.max_bytes, hidden, hashes, calendar)
            args = (campaign.id, apart, ontology, actor_id, actor_name, members, replacing and not replace)
            try:
                report: IngestReport = await offload.write_in_process(self.db, _import_apart, *args)
            except _DryRun as done:
                return _to_confirm(done.report)
            return report
        loaded = await asyncio.to_thread(load)

        async def work(session: AsyncSession) -> IngestReport:
            return await _with_players(session, campaign.id, loaded, ontology, actor_id, actor_name, members)

        if any(f.result is not None and not f.result.ok for f in loaded):
            # Nothing to write: report the problems without taking the writer.
            async with self.db.session() as session:
                return await work(session)
        return await self._decide(work, replacing and not replace)

    async def _import_small(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        hashes: dict[str, str],
        ontology: Ontology,
        actor: Actor | None,
        hidden: bool,
        replace: bool,
        members: ServerMembers | None,
    ) -> IngestReport:
        """Import a few tens of KB in one transaction: what the campaign remembers of the files is read, and the
        changed ones loaded (a few milliseconds, on the loop), in the import's own transaction."""
        actor_id = actor.id if actor is not None else None
        actor_name = actor.name if actor is not None else None

        async def work(session: AsyncSession) -> IngestReport:
            remembered = await known_hashes(session, campaign.id)
            unchanged = {name for name, digest in hashes.items() if remembered.get(name) == digest}
            calendar = await _calendar(session, campaign.id, ontology)
            loaded = load_files(
                files,
                skip=unchanged,
                max_bytes=self.max_bytes,
                hidden=hidden,
                hashes=hashes,
                calendar=calendar,
            )
            report = await _with_players(
                session, campaign.id, loaded, ontology, actor_id, actor_name, members
            )
            replacing = any(remembered.get(name) not in (None, digest) for name, digest in hashes.items())
            return _unless_it_retcons(report) if replacing and not replace else report

        try:
            report: IngestReport = await self.db.run(work, attempts=1)
        except _DryRun as done:
            return _to_confirm(done.report)
        return report

    async def _decide(self, work: Any, ask_first: bool) -> IngestReport:
        """Write the import; with `ask_first`, unless it would retcon: then roll it back and report what it
        would retcon (status `confirm`). One run either way: an import that only adds is written at once."""
        if not ask_first:
            report: IngestReport = await self.db.run(work, attempts=1)
            return report

        async def unless_it_retcons(session: AsyncSession) -> IngestReport:
            return _unless_it_retcons(await work(session))

        try:
            written: IngestReport = await self.db.run(unless_it_retcons, attempts=1)
        except _DryRun as done:
            return _to_confirm(done.report)
        return written


def _unless_it_retcons(report: IngestReport) -> IngestReport:
    """Return the report of an import that retcons nothing; raise it as `_DryRun` (its transaction then rolls
    back) when it would retcon."""
    if report.status == "ingested" and report.retcon_text():
        raise _DryRun(report)
    return report


def _to_confirm(report: IngestReport) -> IngestReport:
    """Return the report of an import rolled back because it would retcon: what it would do, to confirm."""
    return report.model_copy(update={"status": "confirm", "changeset_id": None})


@dataclass(frozen=True)
class _Apart:
    """What a large import's worker process loads: the files, those known unchanged, and the loader's options."""

    files: tuple[tuple[str, bytes], ...]
    unchanged: frozenset[str]
    max_bytes: int
    hidden: bool
    hashes: dict[str, str]
    calendar: CampaignCalendar | None = None


async def _calendar(session: AsyncSession, campaign_id: int, ontology: Ontology) -> CampaignCalendar:
    """Return the campaign's calendar as its GM sees it: a world file's dates may be written in its words."""
    reader = CanonReader(session, await lineage(session, campaign_id), ontology, viewer=Viewer.GM)
    return await reader.calendar()


async def _import_apart(
    session: AsyncSession,
    campaign_id: int,
    apart: _Apart,
    ontology: Ontology,
    actor_id: int | None,
    actor_name: str | None,
    members: ServerMembers | None,
    ask_first: bool,
) -> IngestReport:
    """Load and ingest a large import (in the worker process); `ask_first`: when it would retcon, raise its
    report as `_DryRun`, so that its transaction rolls back."""
    loaded = load_files(
        apart.files,
        skip=apart.unchanged,
        max_bytes=apart.max_bytes,
        hidden=apart.hidden,
        hashes=apart.hashes,
        calendar=apart.calendar,
    )
    report = await _with_players(session, campaign_id, loaded, ontology, actor_id, actor_name, members)
    return _unless_it_retcons(report) if ask_first else report


async def _with_players(
    session: AsyncSession,
    campaign_id: int,
    loaded: Sequence[LoadedFile],
    ontology: Ontology,
    actor_id: int | None,
    actor_name: str | None,
    members: ServerMembers | None,
) -> IngestReport:
    """Ingest the files and link the roster's players, in the caller's transaction; a `player:` naming no
    single member fails the import at its line, before anything is written."""
    problems = roster_problems(loaded, members)
    if problems:
        return failed_report(campaign_id, loaded, {}, problems, time.perf_counter())
    report = await ingest(session, campaign_id, loaded, ontology, actor_id=actor_id, actor_name=actor_name)
    if report.status == "ingested":
        await link_players(session, campaign_id, loaded, members, actor_name or "the roster")
    return report


class _DryRun(Exception):
    """Carry a dry run's report out of its transaction, so that the transaction rolls back."""

    def __init__(self, report: IngestReport) -> None:
        super().__init__(report)  # its one argument: it crosses from the worker process intact
        self.report = report


def campaign_path(path: Path) -> str:
    """Return the name a file given on the command line is known by: its path from the working directory (the
    campaign's folder: `world/npcs.yaml`); a file outside it, by its folder and name (`srd/bestiary.yaml`), never
    by a path of this machine, which evidence would show."""
    resolved = path.resolve()
    relative = os.path.relpath(resolved)
    if relative.startswith(".."):
        return "/".join(resolved.parts[-2:])
    return Path(relative).as_posix()


async def ingest_yaml(
    importer: StructuredImportService,
    campaign: Campaign,
    paths: Path | Sequence[Path],
    *,
    hidden: bool | None = None,
    tags: list[str] | None = None,
    replace: bool = False,
    extra: Sequence[tuple[str, bytes]] = (),
) -> IngestReport:
    """Import YAML files for `lorekeeper ingest` (tags do not apply to canon); return the report.

    All the YAML files of one command are imported together, so they may refer to each other. On errors the
    report has `error` (a sentence) and `errors` (each with file, line, column and message); when the import
    would replace files imported before, `error` says so and how to go ahead.
    """
    del tags  # knowledge-source tags have no meaning for canon facts
    path_list = [paths] if isinstance(paths, Path) else list(paths)
    report = await importer.import_paths(
        campaign, path_list, hidden=bool(hidden), replace=replace, extra=extra
    )
    if report.status == "confirm":
        error = (
            f"{', '.join(report.replaced_files)} would replace the file of that name imported before. "
            f"{report.retcon_text()} Nothing was written: import again with --replace to replace it."
        )
        return report.model_copy(update={"error": error})
    return report
