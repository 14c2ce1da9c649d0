"""The source inspector and its changes: list, look into, classify, hide, tag, enable, disable and delete sources,
and hide or reveal one section of a source (`memory.knowledge.sections`).

A player sees only the sources that are not hidden, and a hidden one they ask for by id does not exist for them.
A branch sees its parent's sources too, but changes only its own: an inherited source is changed where it
belongs.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.files import FileStore, clean_tags
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.pinning import PinnedCopy, pin_for_branches
from memory.knowledge.repository import campaign_sources, may_see, source_chunks, source_versions
from memory.knowledge.section_rows import set_section_hidden, source_sections
from memory.knowledge.sections import Section, find_section
from memory.knowledge.source_models import ChunkInfo, DeleteReport, SectionChange, SourceDetail, SourceInfo
from memory.knowledge.source_rows import change_source, delete_own_source, own_row, set_source_enabled
from memory.knowledge.vectors import ChunkVectors


async def _visible_source(
    session: AsyncSession, campaign_id: int, source_id: int, viewer: Viewer
) -> SourceInfo:
    """Return a source the campaign sees and the viewer may see, or raise `NotFound`."""
    for source in await campaign_sources(session, campaign_id):
        if source.id == source_id and may_see(source, viewer):
            return source
    raise NotFound(f"There is no knowledge source #{source_id} in this campaign.")


class SourceAdmin:
    """Inspects and manages a campaign's sources."""

    def __init__(self, db: Database, *, files: FileStore, vectors: ChunkVectors) -> None:
        self.db = db
        self.files = files
        self.vectors = vectors

    async def list_sources(self, campaign_id: int, *, viewer: Viewer = Viewer.GM) -> list[SourceInfo]:
        """Return the sources a campaign sees (a player: only the ones that are not hidden), oldest first."""
        async with self.db.session() as session:
            sources = await campaign_sources(session, campaign_id)
        return [s for s in sources if may_see(s, viewer)]

    async def get_source(
        self, campaign_id: int, source_id: int, *, viewer: Viewer = Viewer.GM, chunk_limit: int = 50
    ) -> SourceDetail:
        """Return a source, its versions and its first chunks; `NotFound` if the viewer may not see it."""
        async with self.db.session() as session:
            source = await _visible_source(session, campaign_id, source_id, viewer)
            versions = await source_versions(session, source_id)
            chunks = await source_chunks(session, source_id, limit=chunk_limit)
        return SourceDetail(source=source, versions=versions, chunks=chunks)

    async def chunks(
        self, campaign_id: int, source_id: int, *, viewer: Viewer = Viewer.GM
    ) -> list[ChunkInfo]:
        """Return every chunk of a source, in order."""
        async with self.db.session() as session:
            await _visible_source(session, campaign_id, source_id, viewer)
            return await source_chunks(session, source_id)

    async def set_source(
        self,
        campaign_id: int,
        source_id: int,
        *,
        knowledge_class: KnowledgeClass | None = None,
        hidden: bool | None = None,
        tags: Sequence[str] | None = None,
        always_include: bool | None = None,
        title: str | None = None,
        notes: str | None = None,
    ) -> SourceInfo:
        """Change a source's class, visibility, tags, always-include flag, title or notes (None: unchanged)."""
        clean = clean_tags(tags)
        return await self.db.run(
            lambda session: change_source(
                session,
                campaign_id,
                source_id,
                knowledge_class=knowledge_class,
                hidden=hidden,
                tags=clean,
                always_include=always_include,
                title=title,
                notes=notes,
            )
        )

    async def sections(self, campaign_id: int, source_id: int) -> list[Section]:
        """Return a source's sections in document order, with which are hidden (the GM's inspector)."""
        async with self.db.session() as session:
            await _visible_source(session, campaign_id, source_id, Viewer.GM)
            return await source_sections(session, source_id)

    async def set_section(
        self, campaign_id: int, source_id: int, section: str, hidden: bool
    ) -> SectionChange:
        """Hide a section of one of the campaign's own sources from players, or show it (and all under it).

        Showing one first gives each branch that inherits the source its own copy: only a stricter change of an
        ancestor reaches a branch (as for a hidden source)."""
        pinned: list[PinnedCopy] = []

        async def work(session: AsyncSession) -> SectionChange:
            row = await own_row(session, campaign_id, source_id)
            before = await source_sections(session, source_id)
            found = find_section(before, section)
            pinned[:] = [] if hidden else await pin_for_branches(session, row)
            covered, changed = await set_section_hidden(session, source_id, found.path, hidden)
            source = await _visible_source(session, campaign_id, source_id, Viewer.GM)
            was = {s.path: s.hidden for s in before}
            # A small section shares its passage with its siblings: they follow the choice, and the GM is told.
            also = [
                s.words
                for s in await source_sections(session, source_id)
                if s.path[: len(found.path)] != found.path
                and len(s.path) >= len(found.path)
                and was.get(s.path) != s.hidden
            ]
            return SectionChange(
                source=source,
                path=list(found.path),
                hidden=hidden,
                chunks=covered,
                changed=len(changed),
                also=also,
            )

        change = await self.db.run(work)
        await self.vectors.embed_pinned(pinned, change.source.filename)
        return change

    async def set_enabled(self, campaign_id: int, source_id: int, enabled: bool) -> SourceInfo:
        """Enable or disable a source: a disabled source stays stored but is never retrieved."""
        return await self.db.run(lambda session: set_source_enabled(session, campaign_id, source_id, enabled))

    async def enable_source(self, campaign_id: int, source_id: int) -> SourceInfo:
        """Make a disabled source retrievable again."""
        return await self.set_enabled(campaign_id, source_id, True)

    async def disable_source(self, campaign_id: int, source_id: int) -> SourceInfo:
        """Keep a source but stop retrieving it."""
        return await self.set_enabled(campaign_id, source_id, False)

    async def delete_source(self, campaign_id: int, source_id: int) -> DeleteReport:
        """Delete a source, its versions, chunks, full-text rows and vectors (and its stored copy if unused).

        Answers already given keep the text they showed: retrieval records store it.
        """
        deleted = await self.db.run(lambda session: delete_own_source(session, campaign_id, source_id))
        await self.vectors.embed_pinned(deleted.pinned, deleted.title)
        dropped = await self.vectors.drop(campaign_id, source_id, deleted.chunk_ids)
        removed = await self.files.remove_if_unused(deleted.file_hash)
        return DeleteReport(
            source_id=source_id,
            title=deleted.title,
            chunks_removed=len(deleted.chunk_ids),
            vectors_removed=dropped,
            file_removed=removed,
        )
