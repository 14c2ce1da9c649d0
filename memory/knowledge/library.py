"""Shared libraries: Reference sources imported once and attached read-only to many campaigns.

The rules every campaign of a server (or of the whole installation) reads are imported once into a library; a
GM attaches the ones their campaign uses. A library's sources belong to a holder campaign of its own (status
`library`: never listed, never played), so they are imported, chunked, indexed and embedded once, in the
holder's rows and its one Chroma collection (`lk_<installation>_c<holder>`); an attachment is one row, so
attaching and detaching take effect at once and copy nothing. Retrieval reads the attached sources beside the
campaign's own (`memory.knowledge.repository.split_lineage_sources`), and cites them as any source.

A shared source is public and carries no campaign's story: it is never hidden, never Canon (Reference or
Inspiration only) and never marks GM-only sections. A campaign reads the installation's library and its own
server's, never another server's: a source of another server's library does not exist for it.

Who may import: the bot's operator, from the command line, for the whole installation or for one server; a
server's administrator (Manage Server), from Discord, for that server. A GM attaches and detaches.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import chain
from canon.errors import InvalidInput, NotFound
from canon.storage import Database
from memory.knowledge import library_rows as rows
from memory.knowledge.importer import Importer
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.reindex import Reindexer
from memory.knowledge.repository import own_sources
from memory.knowledge.source_models import (
    DeleteReport,
    ImportReport,
    ProgressCallback,
    ReindexReport,
    SourceInfo,
)
from memory.knowledge.sources import SourceAdmin

__all__ = ["LibrarySource", "SharedLibrary"]

_NOT_CANON = (
    "A shared library holds Reference or Inspiration sources: Canon is a campaign's own story, so import "
    "Canon files into the campaign."
)


class LibrarySource(BaseModel):
    """A shared library's source as a campaign (or the operator) sees it."""

    model_config = ConfigDict(frozen=True)

    source: SourceInfo
    #: The server whose campaigns may read it; None: every campaign of the installation.
    guild_id: int | None
    #: Whether the campaign asked about reads it (False in the operator's list).
    attached: bool = False
    #: How many campaigns attach it.
    campaigns: int = 0


async def _guild_of(session: AsyncSession, campaign_id: int) -> int | None:
    """Return the server of a campaign (a branch: its story's), or None for one bound to none."""
    for row in await chain(session, campaign_id):
        if row.guild_id is not None:
            return row.guild_id
    return None


def _named(found: Sequence[LibrarySource], name: str) -> LibrarySource:
    """Return the library source a person named by file name or title (any case), or raise `NotFound`."""
    wanted = " ".join(name.split()).casefold()
    for matches in (
        [s for s in found if s.source.filename.casefold() == wanted],
        [s for s in found if s.source.title.casefold() == wanted],
    ):
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise InvalidInput(f"Several library sources are called “{name}”: name one by its file name.")
    known = ", ".join(s.source.filename for s in found[:10]) or "none yet"
    raise NotFound(f"There is no library source called “{name}” for this campaign. Library sources: {known}.")


class SharedLibrary:
    """Imports shared library sources and attaches them to campaigns; see the module docstring."""

    def __init__(
        self, db: Database, *, importer: Importer, sources: SourceAdmin, reindexer: Reindexer
    ) -> None:
        self.db = db
        self.importer = importer
        self.sources = sources
        self.reindexer = reindexer

    async def import_bytes(
        self,
        filename: str,
        data: bytes,
        *,
        guild_id: int | None,
        knowledge_class: KnowledgeClass | None = None,
        tags: Sequence[str] | None = None,
        title: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Import a file into the library of a server (None: the installation's): public, never Canon.

        The same file name again is a new version of that library source, for every campaign that attaches it.
        """
        if knowledge_class == KnowledgeClass.CANON:
            raise InvalidInput(_NOT_CANON)
        library = await self.db.run(lambda session: rows.open_library(session, guild_id))
        return await self.importer.import_bytes(
            library.campaign_id,
            filename,
            data,
            knowledge_class=knowledge_class,
            hidden=False,
            tags=tags,
            title=title,
            progress=progress,
            public_only=True,
        )

    async def available(self, campaign_id: int) -> list[LibrarySource]:
        """Return the library sources a campaign may read (its server's and the installation's), attached or not."""
        async with self.db.session() as session:
            guild_id = await _guild_of(session, campaign_id)
            attached = set(await rows.attachments_of(session, campaign_id))
            found: list[LibrarySource] = []
            for library in await rows.libraries_for(session, guild_id):
                counts = await rows.attachment_counts(session, library.campaign_id)
                found += [
                    LibrarySource(
                        source=source,
                        guild_id=library.guild_id,
                        attached=source.id in attached,
                        campaigns=counts.get(source.id, 0),
                    )
                    for source in await own_sources(session, library.campaign_id)
                ]
        return found

    async def everything(self) -> list[LibrarySource]:
        """Return every library source of the installation, for its operator (the command line)."""
        async with self.db.session() as session:
            found: list[LibrarySource] = []
            for library in await rows.all_libraries(session):
                counts = await rows.attachment_counts(session, library.campaign_id)
                found += [
                    LibrarySource(
                        source=source, guild_id=library.guild_id, campaigns=counts.get(source.id, 0)
                    )
                    for source in await own_sources(session, library.campaign_id)
                ]
        return found

    async def attached(self, campaign_id: int) -> list[LibrarySource]:
        """Return the library sources a campaign attached itself (what its export names)."""
        return [s for s in await self.available(campaign_id) if s.attached]

    async def attach(self, campaign_id: int, name: str, *, by: str | None = None) -> LibrarySource:
        """Attach a library source, named by file name or title, to a campaign: its answers cite it at once."""
        chosen = _named(await self.available(campaign_id), name)

        async def work(session: AsyncSession) -> None:
            await rows.attach(session, campaign_id, chosen.source.id, by)

        await self.db.run(work)
        return chosen.model_copy(update={"attached": True, "campaigns": chosen.campaigns + 1})

    async def delete(self, name: str, *, guild_id: int | None) -> DeleteReport:
        """Delete a library source for every campaign that attaches it (the operator's): rows, vectors, and its
        original unless another source of any campaign names it."""
        async with self.db.session() as session:
            library = await rows.library_of(session, guild_id)
            found = [] if library is None else await own_sources(session, library.campaign_id)
        chosen = _named([LibrarySource(source=s, guild_id=guild_id) for s in found], name)
        # The attachments go with the source's row (ON DELETE CASCADE), in the same transaction.
        return await self.sources.delete_source(chosen.source.campaign_id, chosen.source.id)

    async def reindex(self, *, progress: ProgressCallback | None = None) -> list[ReindexReport]:
        """Rebuild every library's derived indexes (after the embedding model changed, for example)."""
        async with self.db.session() as session:
            libraries = await rows.all_libraries(session)
        return [await self.reindexer.reindex(lib.campaign_id, progress=progress) for lib in libraries]

    async def detach(self, campaign_id: int, name: str) -> LibrarySource:
        """Detach a library source from a campaign: its answers stop citing it at once (nothing is deleted)."""
        chosen = _named([s for s in await self.available(campaign_id) if s.attached], name)
        await self.db.run(lambda session: rows.detach(session, campaign_id, chosen.source.id))
        return chosen.model_copy(update={"attached": False, "campaigns": max(chosen.campaigns - 1, 0)})
