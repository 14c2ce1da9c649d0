"""Structured lore (YAML) import: the use case that owns its transaction, and the hook `lorekeeper ingest` calls.

`StructuredImportService.import_files` reads what the campaign remembers of the files (a read session),
validates the changed ones in a worker thread (CPU-bound; the loader is strict and reports every problem),
then writes them into the canon graph in ONE transaction through `db.run` (`canon.structured.ingest`). When
any problem exists nothing is written and the report lists the errors (file, line, column, message).

Entry points:
- `lorekeeper ingest FILE.yaml... --campaign C [--json]` (`bot.cli.lore` calls `ingest_yaml` below);
- Discord: `/lore import` routes `.yaml`/`.yml` attachments to `StructuredImportService.import_bytes`
  (GM only), and answers with `IngestReport.summary()` (counts by type, warnings) or the error list.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.ontology import Ontology, base_ontology
from canon.storage import Database
from canon.structured.ingest import IngestReport, file_hashes, ingest, known_hashes, load_files
from canon.structured.loader import DEFAULT_MAX_BYTES
from memory.scenes import Actor

YAML_SUFFIXES = (".yaml", ".yml")


class StructuredImportService:
    """Import structured-lore YAML files into a campaign's canon graph, exactly and all or nothing."""

    def __init__(self, db: Database, ontology_for: Any = None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.db = db
        # `ontology_for(campaign)` gives the campaign's ontology (CanonService.ontology_for); default: the base.
        self.ontology_for = ontology_for
        self.max_bytes = max_bytes

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
        self, campaign: Campaign, paths: Sequence[Path], actor: Actor | None = None, *, hidden: bool = False
    ) -> IngestReport:
        """Import YAML files from disk together (they may refer to each other); see `import_files`."""
        files: list[tuple[str, bytes]] = []
        for path in paths:
            try:
                size = path.stat().st_size
                if size > self.max_bytes:
                    raise InvalidInput(
                        f"{path.name} is {size:,} bytes; a lore file may be at most {self.max_bytes:,} bytes "
                        "(split it into several files)."
                    )
                files.append((path.name, path.read_bytes()))
            except OSError as error:
                raise InvalidInput(f"{path} cannot be read: {error.strerror or error}.") from None
        return await self.import_files(campaign, files, actor, hidden=hidden)

    async def import_files(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        actor: Actor | None = None,
        *,
        hidden: bool = False,
    ) -> IngestReport:
        """Import (file name, bytes) pairs together into a campaign's canon, in one transaction.

        A file is remembered by its name: importing the same content again writes nothing ("unchanged"),
        changed content writes only the difference. `hidden` makes every entry GM-only.
        """
        if not files:
            raise InvalidInput("Give at least one YAML file to import.")
        bad = [name for name, _ in files if not name.lower().endswith(YAML_SUFFIXES)]
        if bad:
            raise InvalidInput(f"Structured lore files end in .yaml or .yml: {', '.join(bad)}.")
        # The loaded files are hundreds of thousands of small objects without cycles, alive from the load to
        # the end of the ingest: the cyclic collector (paused by the loader and the ingest while they run)
        # would scan them all between the two. It waits until they are freed, then has little to scan.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return await self._import(campaign, files, actor, hidden)
        finally:
            if collecting:
                gc.enable()

    async def _import(
        self, campaign: Campaign, files: Sequence[tuple[str, bytes]], actor: Actor | None, hidden: bool
    ) -> IngestReport:
        hashes = file_hashes(files)
        async with self.db.session() as session:
            remembered = await known_hashes(session, campaign.id)
        unchanged = {name for name, digest in hashes.items() if remembered.get(name) == digest}
        ontology = self._ontology(campaign)
        loaded = await asyncio.to_thread(
            load_files, files, skip=unchanged, max_bytes=self.max_bytes, hidden=hidden, hashes=hashes
        )
        actor_id = actor.id if actor is not None else None
        actor_name = actor.name if actor is not None else None

        async def work(session: AsyncSession) -> IngestReport:
            return await ingest(
                session, campaign.id, loaded, ontology, actor_id=actor_id, actor_name=actor_name
            )

        if any(f.result is not None and not f.result.ok for f in loaded):
            # Nothing to write: report the problems without taking the writer.
            async with self.db.session() as session:
                return await work(session)
        return await self.db.run(work, attempts=1)


def service_of(services: Any) -> StructuredImportService:
    """Return the structured-import service of the application's services (made on first use)."""
    found = getattr(services, "structured", None)
    if isinstance(found, StructuredImportService):
        return found
    canon = getattr(services, "canon", None)
    return StructuredImportService(services.db, canon.ontology_for if canon is not None else None)


async def ingest_yaml(
    services: Any,
    campaign: Campaign,
    paths: Path | Sequence[Path],
    *,
    hidden: bool | None = None,
    tags: list[str] | None = None,
) -> dict[str, Any]:
    """Import YAML files for `lorekeeper ingest` (tags do not apply to canon); return the report as JSON.

    All the YAML files of one command are imported together, so they may refer to each other. On errors the
    result has `error` (a sentence) and `errors` (each with file, line, column and message).
    """
    del tags  # knowledge-source tags have no meaning for canon facts
    path_list = [paths] if isinstance(paths, Path) else list(paths)
    report = await service_of(services).import_paths(campaign, path_list, hidden=bool(hidden))
    payload = report.model_dump(mode="json")
    payload["summary"] = report.summary()
    return payload
