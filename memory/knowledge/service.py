"""The facade of imported knowledge for the cogs and the command line: import, inspect, manage, reindex, ask."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canon.campaigns import Campaign
from canon.models import Viewer
from canon.ontology import Ontology
from canon.storage import Database
from config.settings import LoreSettings
from memory.chunking import ChunkingOptions
from memory.embedding import Embedder
from memory.knowledge.ask import Answerer
from memory.knowledge.disagreement_admin import SourceDisagreements
from memory.knowledge.files import FileStore
from memory.knowledge.importer import Importer, chunking_options
from memory.knowledge.library import SharedLibrary
from memory.knowledge.models import KnowledgeClass, LoreResult
from memory.knowledge.reindex import Reindexer
from memory.knowledge.retrieval import Retriever
from memory.knowledge.retrieval.answer_meaning import MeaningReader
from memory.knowledge.retrieval.config import always_include_warning
from memory.knowledge.source_models import (
    DeleteReport,
    ImportOutcome,
    ImportReport,
    OriginalFile,
    ProgressCallback,
    ReindexReport,
    SectionChange,
    SourceInfo,
)
from memory.knowledge.sources import SourceAdmin
from memory.knowledge.vectors import ChunkVectors
from memory.knowledge.view_builder import ViewBuilder
from memory.vault import FolderVault, Vault
from memory.vector_index import VectorIndex

__all__ = ["KnowledgeService"]

log = logging.getLogger(__name__)


def _setting(key: str, value: Any) -> Any:
    return sorted(value) if key == "tags" else value


def _words(value: Any) -> str:
    if isinstance(value, KnowledgeClass):
        return value.label
    if isinstance(value, list):
        return ", ".join(value) or "no tags"
    return "yes" if value else "no"


#: The settings an import asks for that a file imported again takes, each said as "now … (was …)".
_SETTINGS: dict[str, Callable[[Any, Any], str]] = {
    "knowledge_class": lambda was, now: f"now {_words(now)} (was {_words(was)})",
    "hidden": lambda was, now: "now hidden from players" if now else "now visible to players",
    "tags": lambda was, now: f"tags now {_words(now)} (were {_words(was)})",
    "always_include": lambda was, now: f"always included: {_words(now)} (was {_words(was)})",
}


class KnowledgeService:
    """Imported knowledge for the cogs and the command line: import, inspect, manage, reindex, ask.

    A thin facade: each method is its use case's own, bound here under the name callers know (`importer`,
    `sources`, `reindexer`, `answers`; see `memory.knowledge`). `vectors` and `embedder` are the semantic half;
    either may be None (embedding switched off), and then everything still works by words alone.
    """

    def __init__(
        self,
        db: Database,
        *,
        data_dir: Path,
        settings: LoreSettings | None = None,
        vectors: VectorIndex | None = None,
        embedder: Embedder | None = None,
        ontology_for: Callable[[Campaign], Ontology] | None = None,
        vault: Vault | None = None,
    ) -> None:
        self.db = db
        self.data_dir = data_dir
        self.settings = settings or LoreSettings()
        self.vectors = vectors
        self.embedder = embedder
        self.retriever = Retriever(db, vectors=vectors, embedder=embedder, ontology_for=ontology_for)
        #: Where the originals are kept: the composition root chooses (a folder of the data directory by default).
        self.vault: Vault = vault if vault is not None else FolderVault(data_dir / "sources")
        self.files = FileStore(db, self.vault)
        self.chunk_vectors = ChunkVectors(db, vectors=vectors, embedder=embedder, retriever=self.retriever)
        self.importer = Importer(db, settings=self.settings, files=self.files, vectors=self.chunk_vectors)
        #: Adds the names view to vectors made before it, in the background (`start`, `stop`), or now (`build`).
        self.view_builder = ViewBuilder(db, self.chunk_vectors)
        self.reindexer = Reindexer(
            db,
            settings=self.settings,
            files=self.files,
            vectors=self.chunk_vectors,
            view_status=self.view_builder.status,
        )
        self.sources = SourceAdmin(db, files=self.files, vectors=self.chunk_vectors)
        #: Shared library sources, imported once and attached read-only to many campaigns.
        self.library = SharedLibrary(
            db, importer=self.importer, sources=self.sources, reindexer=self.reindexer
        )
        self.answers = Answerer(
            db,
            self.retriever,
            MeaningReader(embedder) if embedder is not None and vectors is not None else None,
        )
        #: Canon sources that disagree: found, one side picked by the GM, the campaign's source order.
        self.disagreements = SourceDisagreements(db, self.retriever)

        self.list_sources = self.sources.list_sources
        self.get_source = self.sources.get_source
        self.chunks = self.sources.chunks
        self.set_source = self.sources.set_source
        self.sections = self.sources.sections
        self.set_enabled = self.sources.set_enabled
        self.enable_source = self.sources.enable_source
        self.disable_source = self.sources.disable_source
        self.index_status = self.reindexer.index_status
        #: How far a campaign's names views are (`ViewBuild`), or None when it has no vectors.
        self.view_build = self.view_builder.status
        self.ask = self.answers.ask
        self.get_retrieval = self.answers.get_retrieval
        #: Remove the vectors of a source's chunks from a campaign's collection (a rebase's dropped copies).
        self.drop_vectors = self.chunk_vectors.drop
        #: Delete a stored copy no source of any campaign refers to any more (after a branch is deleted).
        self.remove_file_if_unused = self.files.remove_if_unused

    async def import_path(self, campaign_id: int, path: Path, **options: Any) -> ImportReport:
        """Import one file from disk (see `Importer.import_path`), with what the GM should know of it."""
        report = await self.importer.import_path(campaign_id, path, **options)
        return await self._checked(campaign_id, await self._settled(campaign_id, report, options))

    async def import_bytes(
        self, campaign_id: int, filename: str, data: bytes, **options: Any
    ) -> ImportReport:
        """Import one file's bytes (see `Importer.import_bytes`), with what the GM should know of it."""
        report = await self.importer.import_bytes(campaign_id, filename, data, **options)
        return await self._checked(campaign_id, await self._settled(campaign_id, report, options))

    async def delete_source(self, campaign_id: int, source_id: int) -> DeleteReport:
        """Delete a source (see `SourceAdmin.delete_source`); the book glossaries are made again without it."""
        report = await self.sources.delete_source(campaign_id, source_id)
        await self.settle_book_terms(campaign_id)
        return report

    async def reindex(
        self, campaign_id: int, *, rechunk: bool = False, progress: ProgressCallback | None = None
    ) -> ReindexReport:
        """Rebuild a campaign's derived indexes (see `Reindexer.reindex`), its book glossaries with them."""
        report = await self.reindexer.reindex(campaign_id, rechunk=rechunk, progress=progress)
        await self.settle_book_terms(campaign_id, rechunked=report.rechunked_sources > 0)
        return report

    async def settle_book_terms(self, campaign_id: int, *, rechunked: bool = False) -> None:
        """Make the campaign's book glossaries now, so that questions only read them (`retrieval.book_terms`):
        after a removal, a reindex or a section hidden here, and by whoever imports once its files are in (an
        import of many files would otherwise read the growing campaign once a file). A failure leaves them to
        the first question, which keeps them too."""
        try:
            await self.retriever.settle_book_terms(campaign_id, rechunked=rechunked)
        except Exception as error:  # an extra: never fail the change it follows
            log.warning("book glossaries of campaign %s not made: %s", campaign_id, error)

    async def _settled(self, campaign_id: int, report: ImportReport, options: dict[str, Any]) -> ImportReport:
        """Return the report of a file imported again with the same text, with the settings asked for this time
        (class, visibility, tags, always-include) given to the source it already is: importing a world bible
        again `--class canon` makes it Canon, where it would otherwise stay as it was, silently."""
        if report.outcome != ImportOutcome.DUPLICATE or report.duplicate_of is None:
            return report
        source = report.source
        asked = {key: options.get(key) for key in _SETTINGS if options.get(key) is not None}
        if asked.get("always_include") and "knowledge_class" not in asked:
            asked["knowledge_class"] = KnowledgeClass.CANON  # as a new import reads it
        changed = {key: value for key, value in asked.items() if getattr(source, key) != _setting(key, value)}
        if not changed:
            return report
        updated = await self.sources.set_source(campaign_id, report.duplicate_of, **changed)
        said = [_SETTINGS[key](getattr(source, key), getattr(updated, key)) for key in changed]
        return report.model_copy(update={"source": updated, "changed": said})

    async def _checked(self, campaign_id: int, report: ImportReport) -> ImportReport:
        """Add the GM's warnings to an import: always-include crowding answers, sections the story has changed."""
        warnings: list[str] = []
        if report.source.always_include:
            crowded = await self.always_include_warning(campaign_id)
            warnings += [crowded] if crowded else []
        if report.source.knowledge_class == KnowledgeClass.CANON and report.source.chunk_count:
            stale = await self.out_of_date(campaign_id, report.duplicate_of or report.source.id)
            warnings += [
                f"“{where}” says what the story has changed since: now {now}." for where, now in stale
            ]
        if (
            report.source.knowledge_class == KnowledgeClass.CANON
            and report.outcome != ImportOutcome.DUPLICATE
        ):
            found = await self.disagreements.find(campaign_id, source_id=report.source.id)
            warnings += [
                f"Another Canon source disagrees: {j.disagreement.sentence()} "
                + (
                    "`/canon conflicts` lets you choose which prevails."
                    if j.prevailing is None
                    else f"{j.prevailing.title} prevails, as you chose."
                )
                for j in found
            ]
        if not warnings:
            return report
        return report.model_copy(update={"warnings": [*report.warnings, *warnings]})

    async def set_section(
        self, campaign_id: int, source_id: int, section: str, hidden: bool
    ) -> SectionChange:
        """Hide a section of a source from players, or show it; when it shares a passage with other sections, chunk
        the source again (and replace its vectors) so that the section alone changes."""
        change = await self.sources.set_section(campaign_id, source_id, section, hidden)
        if not change.also:
            await self.settle_book_terms(campaign_id)
            return change
        source = await self.reindexer.rechunk_source(change.source)
        await self.settle_book_terms(campaign_id, rechunked=True)
        found = [
            s for s in await self.sources.sections(campaign_id, source_id) if list(s.path) == change.path
        ]
        chunks = found[0].chunks if found else change.chunks
        return change.model_copy(update={"source": source, "also": [], "chunks": chunks, "rechunked": True})

    async def always_include_warning(self, campaign_id: int) -> str | None:
        """Return the GM's warning when always-included Canon takes over half of an answer's Canon budget."""
        return always_include_warning(await self.list_sources(campaign_id, viewer=Viewer.GM))

    async def out_of_date(self, campaign_id: int, source_id: int) -> list[tuple[str, str]]:
        """Return the sections of a Canon source the story has changed: (where, what holds now), for the GM."""
        detail = await self.get_source(campaign_id, source_id, viewer=Viewer.GM, chunk_limit=500)
        source = detail.source
        if source.knowledge_class != KnowledgeClass.CANON:
            return []
        passages = [
            LoreResult(
                chunk_id=c.id,
                source_id=source.id,
                source_title=source.title,
                filename=source.filename,
                knowledge_class=source.knowledge_class,
                heading_path=c.heading_path,
                text=c.text,
                token_count=c.token_count,
                score=0.0,
                reasons=[],
                place=c.place,
            )
            for c in detail.chunks
        ]
        marked = await self.retriever.out_of_date(campaign_id, passages, viewer=Viewer.GM)
        return [
            (
                (f"{p.place} ({' › '.join(p.heading_path)})" if p.heading_path else p.place)
                if p.place
                else " › ".join(p.heading_path) or source.title,
                p.out_of_date,
            )
            for p in marked
            if p.out_of_date
        ]

    @property
    def semantic_enabled(self) -> bool:
        """Return whether semantic indexing is configured (an embedder and a vector index)."""
        return self.chunk_vectors.enabled

    def chunking_options(self) -> ChunkingOptions:
        """Return the chunk sizes from the settings."""
        return chunking_options(self.settings)

    async def original(self, campaign_id: int, source_id: int, *, max_bytes: int) -> OriginalFile:
        """Return a source's original for the GM: its bytes when they fit `max_bytes`, else where it is kept."""
        source = (await self.get_source(campaign_id, source_id, viewer=Viewer.GM, chunk_limit=0)).source
        found = OriginalFile(
            title=source.title,
            filename=source.filename,
            size_bytes=source.size_bytes,
            where=self.vault.describe(),
        )
        if source.size_bytes > max_bytes:
            return found
        data = await asyncio.to_thread(self.files.read_if_kept, source.file_hash)
        return found.model_copy(update={"data": data, "missing": data is None})

    def read_original(self, source: SourceInfo) -> bytes:
        """Return the raw bytes of a source's current version, as imported (blocking: the vault may be remote)."""
        return self.files.read(source.file_hash)
