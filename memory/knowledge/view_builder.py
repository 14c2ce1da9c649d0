"""Adding the names view to the vectors of campaigns indexed before it existed: in the background, resumable.

A campaign whose vectors were made with the prose and title views alone (`memory.embed_text.BASE_VIEWS_VERSION`)
keeps being searched by them; its chunks gain their names vectors a batch at a time, in chunk id order, and the
index state records the last chunk done after each batch (`knowledge_index_state.building_through`). A process
that stops (a crash, a restart) resumes after that chunk: a batch is embedded again only when the process died
between writing its vectors and recording them, and then its vectors replace themselves (same ids). Chunks
imported meanwhile get every view at import: the build covers the chunks up to `building_until` only. When the
last batch is done the campaign's views are today's (`VIEWS_VERSION`). A chunk is found by its best view, so one
with names vectors and one without are ranked side by side, each once. The chunks of a campaign this old were
imported before their fields were kept (`knowledge_chunks.fields`): each batch keeps them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from canon import offload
from canon.storage import Database
from memory.embed_text import BASE_VIEWS_VERSION, VIEWS_VERSION
from memory.knowledge.index_state import (
    EmbedItem,
    adds_views,
    building_campaigns,
    chunks_after,
    chunks_up_to,
    finish_building,
    index_state_row,
    keep_fields,
    set_building,
)
from memory.knowledge.source_models import ViewBuild
from memory.knowledge.vectors import EMBED_BATCH, ChunkVectors, embed_views

log = logging.getLogger(__name__)

#: The view the builder adds.
NAMES = ("n",)

Progress = Callable[[ViewBuild], Awaitable[None] | None]


class ViewBuilder:
    """Builds the names views campaigns lack; reports how far each is."""

    def __init__(self, db: Database, vectors: ChunkVectors, *, batch: int = EMBED_BATCH) -> None:
        self.db = db
        self.vectors = vectors
        self.batch = batch
        self._task: asyncio.Task[None] | None = None

    async def status(self, campaign_id: int) -> ViewBuild | None:
        """Return how far a campaign's names views are, or None when it has no vectors."""
        async with self.db.session() as session:
            row = await index_state_row(session, campaign_id)
            if row is None:
                return None
            if row.embedding_views == VIEWS_VERSION:
                chunks, _ = await chunks_up_to(session, campaign_id, None)
                return ViewBuild(campaign_id=campaign_id, state="done", done=chunks, total=chunks)
            if row.embedding_views != BASE_VIEWS_VERSION:
                return ViewBuild(campaign_id=campaign_id, state="stale")
            total, _ = await chunks_up_to(session, campaign_id, row.building_until)
            done = 0
            if row.building_through is not None:
                until = row.building_through
                if row.building_until is not None:
                    until = min(until, row.building_until)
                done, _ = await chunks_up_to(session, campaign_id, until)
        return ViewBuild(campaign_id=campaign_id, state="building", done=done, total=total)

    async def pending(self) -> list[int]:
        """Return the campaigns whose vectors lack the names view."""
        async with self.db.session() as session:
            return await building_campaigns(session)

    async def build(self, campaign_id: int, *, progress: Progress | None = None) -> ViewBuild | None:
        """Add the names view to a campaign's vectors from where it was left; return the state at the end."""
        embedder = self.vectors.embedder
        if self.vectors.vectors is None or embedder is None:
            return await self.status(campaign_id)
        metadata = await asyncio.to_thread(self.vectors.index_metadata)
        while True:
            async with self.db.session() as session:
                row = await index_state_row(session, campaign_id)
                if row is None or not adds_views(row, metadata):
                    # Done, or made with another model: only a full reindex helps then.
                    break
                until, through = row.building_until, row.building_through or 0
                if until is None:
                    _, until = await chunks_up_to(session, campaign_id, None)
                items = await chunks_after(session, campaign_id, after=through, until=until, limit=self.batch)
            if row.building_until is None:
                await self._record(campaign_id, until=until)
            if not items:
                finished = await self.db.run(lambda session: finish_building(session, campaign_id))
                if finished:
                    self.vectors.retriever.forget_index_state(campaign_id)
                    log.info("campaign %s: names views built", campaign_id)
                break
            array = await offload.in_background(embed_views, embedder, items, NAMES)
            await self.vectors.write(campaign_id, items, array, NAMES, metadata)
            await self._record(campaign_id, through=items[-1].chunk_id, fields=items)
            if progress is not None:
                state = await self.status(campaign_id)
                if state is not None:
                    shown = progress(state)
                    if asyncio.iscoroutine(shown):
                        await shown
        return await self.status(campaign_id)

    async def _record(
        self,
        campaign_id: int,
        *,
        until: int | None = None,
        through: int | None = None,
        fields: Sequence[EmbedItem] = (),
    ) -> None:
        async def work(session: AsyncSession) -> None:
            # The chunks of a campaign this old were imported before their fields were kept: kept now too.
            await keep_fields(session, fields)
            await set_building(session, campaign_id, until=until, through=through)

        await self.db.run(work)

    async def build_all(self, campaigns: Sequence[int] | None = None) -> None:
        """Build the names views of every campaign that lacks them (or of `campaigns`), one after another."""
        for campaign_id in campaigns if campaigns is not None else await self.pending():
            try:
                await self.build(campaign_id)
            except asyncio.CancelledError:
                raise
            except Exception:  # the views already there serve; the next start resumes
                log.warning("campaign %s: building the names views failed", campaign_id, exc_info=True)

    def start(self) -> asyncio.Task[None] | None:
        """Start building, in the background, every campaign's missing names views; return the task."""
        if not self.vectors.enabled:
            return None
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self.build_all(), name="names-views")
        return self._task

    async def stop(self) -> None:
        """Stop a background build (it resumes from its last batch at the next start)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
