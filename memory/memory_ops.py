"""Operations on NPC memories beyond recall: filter, search, edit, delete by criteria, page, scope info.

The seed's scoped-memory backend, on the one store (`memory.npc_memory.NpcMemoryStore` inherits these): a
record has categories, metadata (`meta`, key -> value) and a private flag (GM-only: an NPC never speaks from a
private memory); its scope is a path whose ancestors are scopes too (`/campaign/3/npc/12/scene/7` lies in
`/campaign/3/npc/12` and `/campaign/3`).

`MemoryQuery` combines criteria (all must hold): an NPC, a scope prefix (whole path segments), categories (a
record with any of them), metadata (every key equal), created before a time, a kind, private ones or not.
These operations read and write the campaign's own memories (a branch's own, not those it inherits); a
deletion forgets (the rows stay, marked, and leave the vector index), like `/npc forget`.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import InvalidInput, NotFound
from canon.storage import utc_now
from memory.doc_index import DocIndexError, IndexedStore
from memory.voice_tables import NpcMemoryRow

log = logging.getLogger(__name__)

MAX_CATEGORIES = 10
MAX_CATEGORY = 40
PAGE = 10
MetaValue = str | int | float | bool


def scope_ancestors(scope: str) -> list[str]:
    """Return a scope path and every ancestor, outermost first (`/campaign/3`, `/campaign/3/npc/12`, ...)."""
    parts = [p for p in scope.split("/") if p]
    found: list[str] = []
    for end in range(2, len(parts) + 1, 2):
        found.append("/" + "/".join(parts[:end]))
    return found or [scope]


def clean_categories(values: Sequence[str] | str | None) -> tuple[str, ...]:
    """Return categories lowercase, blanks and repeats dropped; `InvalidInput` when too many or too long."""
    items = values.split(",") if isinstance(values, str) else list(values or ())
    found: dict[str, None] = {}
    for item in items:
        category = " ".join(item.split()).casefold()
        if not category:
            continue
        if len(category) > MAX_CATEGORY:
            raise InvalidInput(
                f"A category is at most {MAX_CATEGORY} characters: “{category[:MAX_CATEGORY]}…”."
            )
        found[category] = None
    if len(found) > MAX_CATEGORIES:
        raise InvalidInput(f"A memory has at most {MAX_CATEGORIES} categories; {len(found)} were given.")
    return tuple(found)


def categories_text(categories: Sequence[str]) -> str:
    """Return categories as stored: one a line, with a line break first and last (LIKE '%\\ncat\\n%')."""
    return "\n" + "".join(f"{c}\n" for c in categories) if categories else ""


def categories_of(text: str | None) -> tuple[str, ...]:
    """Return the categories stored as `categories_text` wrote them."""
    return tuple(c for c in (text or "").split("\n") if c)


class MemoryQuery(BaseModel):
    """Criteria a memory must all meet; an empty query matches every memory of the campaign."""

    model_config = ConfigDict(frozen=True)

    npc_id: int | None = None
    scope_prefix: str | None = None
    categories: tuple[str, ...] = ()
    meta: dict[str, MetaValue] = Field(default_factory=dict)
    created_before: dt.datetime | None = None
    doc_type: str | None = None
    include_private: bool = True
    scene_id: int | None = None

    @property
    def narrows(self) -> bool:
        """Tell whether any criterion is given (a deletion needs one)."""
        return bool(
            self.npc_id is not None
            or self.scope_prefix
            or self.categories
            or self.meta
            or self.created_before is not None
            or self.doc_type
            or self.scene_id is not None
        )


class FoundMemory(BaseModel):
    """A memory a search found, with its score (None when listed without a question)."""

    model_config = ConfigDict(frozen=True)

    memory: Any  # a MemoryRecord (memory.npc_memory imports this module)
    score: float | None = None


class MemoryPage(BaseModel):
    """One page of found memories, how many match in all, and which page this is."""

    model_config = ConfigDict(frozen=True)

    found: tuple[FoundMemory, ...]
    total: int
    page: int
    pages: int


class ScopeInfo(BaseModel):
    """What a scope (and every scope inside it) holds: counts, oldest and newest, per category and kind."""

    model_config = ConfigDict(frozen=True)

    scope: str
    count: int
    oldest: dt.datetime | None
    newest: dt.datetime | None
    per_category: dict[str, int]
    per_kind: dict[str, int]
    private: int


def _sql(campaign_id: int, query: MemoryQuery) -> Any:
    statement = select(NpcMemoryRow).where(
        NpcMemoryRow.campaign_id == campaign_id, NpcMemoryRow.forgotten_at.is_(None)
    )
    if query.npc_id is not None:
        statement = statement.where(NpcMemoryRow.npc_entity_id == query.npc_id)
    if query.scope_prefix:
        prefix = query.scope_prefix.rstrip("/")
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        statement = statement.where(
            or_(NpcMemoryRow.scope == prefix, NpcMemoryRow.scope.like(f"{escaped}/%", escape="\\"))
        )
    if query.categories:
        statement = statement.where(
            or_(*(NpcMemoryRow.categories.like(f"%\n{c}\n%") for c in clean_categories(query.categories)))
        )
    if query.created_before is not None:
        statement = statement.where(NpcMemoryRow.created_at < query.created_before)
    if query.doc_type:
        statement = statement.where(NpcMemoryRow.doc_type == query.doc_type)
    if not query.include_private:
        statement = statement.where(NpcMemoryRow.private.is_(False))
    if query.scene_id is not None:
        statement = statement.where(NpcMemoryRow.scene_id == query.scene_id)
    return statement.order_by(NpcMemoryRow.created_at.desc(), NpcMemoryRow.id.desc())


def _meta_matches(row: NpcMemoryRow, wanted: Mapping[str, MetaValue]) -> bool:
    # Metadata is JSON; compared here, the same way on every database.
    have = row.meta or {}
    return all(key in have and have[key] == value for key, value in wanted.items())


async def select_rows(session: AsyncSession, campaign_id: int, query: MemoryQuery) -> list[NpcMemoryRow]:
    """Return the campaign's standing memory rows meeting every criterion, newest first."""
    rows = list((await session.execute(_sql(campaign_id, query))).scalars())
    return [r for r in rows if _meta_matches(r, query.meta)] if query.meta else rows


def _words_score(question: str, text: str) -> float:
    """Return how many of the question's words the text holds (0-1): the score when there is no index."""
    words = {w for w in question.casefold().split() if len(w) > 2} or set(question.casefold().split())
    if not words:
        return 0.0
    lowered = text.casefold()
    return sum(1 for w in words if w in lowered) / len(words)


class MemoryOperations(IndexedStore):
    """The scoped-memory operations of `NpcMemoryStore` (see the module docstring)."""

    def _record(self, row: NpcMemoryRow) -> Any:
        """Return a row as its record (`NpcMemoryStore` gives its `MemoryRecord`)."""
        raise NotImplementedError

    async def find(
        self,
        campaign_id: int,
        query: MemoryQuery,
        *,
        text: str | None = None,
        min_score: float | None = None,
        page: int = 1,
        per_page: int = PAGE,
    ) -> MemoryPage:
        """Return a page of memories meeting `query`: with `text`, the most similar first (at least
        `min_score`, 0-1); without it, the newest first."""
        if page < 1:
            raise InvalidInput("Pages start at 1.")
        if min_score is not None and not 0 <= min_score <= 1:
            raise InvalidInput(f"A minimum score runs from 0 to 1; got {min_score}.")
        async with self.db.session() as session:
            rows = await select_rows(session, campaign_id, query)
        found = [FoundMemory(memory=self._record(r)) for r in rows]
        if text and text.strip():
            scores = await self._scores(campaign_id, text, rows)
            found = [
                FoundMemory(memory=f.memory, score=round(scores.get(f.memory.id, 0.0), 4)) for f in found
            ]
            found = [f for f in found if min_score is None or (f.score or 0.0) >= min_score]
            found.sort(key=lambda f: (-(f.score or 0.0), -f.memory.id))
        total = len(found)
        pages = max(1, math.ceil(total / per_page))
        chosen = found[(page - 1) * per_page : page * per_page]
        return MemoryPage(found=tuple(chosen), total=total, page=page, pages=pages)

    async def _scores(self, campaign_id: int, text: str, rows: Sequence[NpcMemoryRow]) -> dict[int, float]:
        """Return each row's similarity to `text`: by meaning through the index, else by words."""
        if self.semantic and rows:
            try:
                assert self.index is not None
                vector = (await self._embed([text]))[0]
                hits = await self.index.query(campaign_id, vector, limit=max(len(rows), 1))
                wanted = {r.id for r in rows}
                return {hit.id: max(0.0, hit.similarity) for hit in hits if hit.id in wanted}
            except DocIndexError as error:
                log.warning("NPC memory search by meaning is unavailable, matching words: %s", error)
        return {r.id: _words_score(text, r.content) for r in rows}

    async def update(
        self,
        campaign_id: int,
        memory_id: int,
        *,
        content: str | None = None,
        importance: float | None = None,
        categories: Sequence[str] | str | None = None,
        private: bool | None = None,
        meta: Mapping[str, MetaValue] | None = None,
    ) -> Any:
        """Change a memory's text, importance, categories, privacy or metadata; re-embed a changed text."""
        if content is not None and not 1 <= len(content.strip()) <= 4000:
            raise InvalidInput("A memory's text runs from 1 to 4,000 characters.")
        if importance is not None and not 0 <= importance <= 1:
            raise InvalidInput(f"Importance runs from 0 to 1; got {importance}.")
        cleaned = clean_categories(categories) if categories is not None else None

        async def work(session: AsyncSession) -> Any:
            row = await session.get(NpcMemoryRow, memory_id)
            if row is None or row.campaign_id != campaign_id or row.forgotten_at is not None:
                raise NotFound(
                    f"There is no memory #{memory_id} in this campaign; `/npc memories` lists them."
                )
            if content is not None:
                row.content = content.strip()
            if importance is not None:
                row.importance = importance
            if cleaned is not None:
                row.categories = categories_text(cleaned)
            if private is not None:
                row.private = private
            if meta is not None:
                row.meta = dict(meta)
            row.updated_at = utc_now()
            await session.flush()
            return self._record(row)

        record = await self.db.run(work)
        await self.index_records(campaign_id, [record])  # type: ignore[attr-defined]
        return record

    async def delete(self, campaign_id: int, query: MemoryQuery) -> list[int]:
        """Forget every memory meeting `query` (at least one criterion), with the relationships linking them."""
        if not query.narrows:
            raise InvalidInput(
                "Say which memories to delete: an NPC, a scope, a category, an age or metadata."
            )

        async def work(session: AsyncSession) -> list[int]:
            chosen = await select_rows(session, campaign_id, query)
            gone = {r.id for r in chosen}
            if not gone:
                return []
            others = await select_rows(session, campaign_id, MemoryQuery(doc_type="relationship"))
            linked = [r for r in others if r.id not in gone and gone.intersection(r.memory_ids or ())]
            now = utc_now()
            for row in [*chosen, *linked]:
                row.forgotten_at = now
            await session.flush()
            return sorted(gone | {r.id for r in linked})

        ids = await self.db.run(work)
        if self.index is not None and ids:
            try:
                await self.index.delete(campaign_id, ids)
            except DocIndexError as error:
                log.warning("deleted memories stay in the index until it is rebuilt: %s", error)
        return ids

    async def scope_info(self, campaign_id: int, scope: str) -> ScopeInfo:
        """Return what a scope and the scopes inside it hold."""
        async with self.db.session() as session:
            rows = await select_rows(session, campaign_id, MemoryQuery(scope_prefix=scope))
        per_category: Counter[str] = Counter()
        for row in rows:
            per_category.update(categories_of(row.categories) or ("(none)",))
        times = [r.created_at for r in rows]
        return ScopeInfo(
            scope=scope.rstrip("/") or scope,
            count=len(rows),
            oldest=min(times) if times else None,
            newest=max(times) if times else None,
            per_category=dict(sorted(per_category.items())),
            per_kind=dict(sorted(Counter(r.doc_type for r in rows).items())),
            private=sum(1 for r in rows if r.private),
        )

    async def scopes(self, campaign_id: int) -> dict[str, int]:
        """Return every scope holding memories, with its ancestors, and how many each holds (inside it too)."""
        async with self.db.session() as session:
            rows = await select_rows(session, campaign_id, MemoryQuery())
        counts: Counter[str] = Counter()
        for row in rows:
            counts.update(scope_ancestors(row.scope))
        return dict(sorted(counts.items()))
