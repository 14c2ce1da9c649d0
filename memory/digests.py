"""Scene digests (a committed scene's summary and the NPCs it gave memories) and scene casts.

At commit every scene gets a summary: the LLM's, or an extractive one (`extractive_summary`) without one. The
summary is stored on the scene (`scenes.summary`) and in `scene_digests`, and embedded in the campaign's
moments collection, so "find similar moments" works (`SceneMomentStore.similar`). The digest row also marks
the scene as done, so a scene committed while the bot was going down is picked up at the next start.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import utc_now
from memory.doc_index import DocIndexError, IndexedStore
from memory.fulltext import STOPWORDS
from memory.lineage import narrative_lineage
from memory.scene_tables import SceneRow
from memory.scenes import SceneStatus, SpeakerKind, Turn
from memory.voice_tables import SceneCastRow, SceneDigestRow

__all__ = [
    "Moment",
    "SceneDigest",
    "SceneMomentStore",
    "add_cast",
    "cast_of",
    "extractive_summary",
    "remove_cast",
    "undigested_scenes",
]

log = logging.getLogger(__name__)

SUMMARY_SENTENCES = 4
SUMMARY_CHARS = 900
_SENTENCE = re.compile(r"(?<=[.!?…])\s+")
_WORD = re.compile(r"[^\W_]+")


class SceneDigest(BaseModel):
    """A scene's summary and what the voice did with it at commit."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    campaign_id: int
    summary: str
    summary_method: str
    npc_ids: tuple[int, ...] = ()
    memories_written: int = 0
    created_at: dt.datetime | None = None


class Moment(BaseModel):
    """A scene similar to a text: its order, title, summary and similarity."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    story_order: int
    title: str
    summary: str
    similarity: float


def _speaker(turn: Turn) -> str:
    return "Narrator" if turn.speaker == SpeakerKind.NARRATOR else turn.author_name


def extractive_summary(title: str, location: str | None, turns: Sequence[Turn]) -> str:
    """Return a summary made of the scene's most central sentences, in story order, with who said them.

    A sentence scores by how many other sentences share its content words (a crude centrality), normalised by
    its length; the best few are kept in the order they were played.
    """
    sentences: list[tuple[int, str, str]] = []  # (position, speaker, sentence)
    for turn in turns:
        if turn.is_deleted or not turn.text.strip():
            continue
        for piece in _SENTENCE.split(" ".join(turn.text.split())):
            if len(piece) > 3:
                sentences.append((len(sentences), _speaker(turn), piece))
    heading = f"“{title}”" + (f" at {location}" if location else "")
    if not sentences:
        return f"{heading}: nothing was said."
    frequency: Counter[str] = Counter()
    for _, _, sentence in sentences:
        frequency.update({w for w in _words(sentence)})

    def score(item: tuple[int, str, str]) -> float:
        content = _words(item[2])
        if not content:
            return 0.0
        # Words no other sentence shares say nothing about what the scene was about.
        return sum(frequency[w] - 1 for w in set(content)) / math.sqrt(len(content) + 1)

    scored = [item for item in sentences if score(item) > 0] or sentences
    best = sorted(scored, key=lambda item: (-score(item), item[0]))[:SUMMARY_SENTENCES]
    parts = [f"{speaker}: {sentence}" for _, speaker, sentence in sorted(best)]
    summary = f"{heading}. " + " … ".join(parts)
    return summary if len(summary) <= SUMMARY_CHARS else summary[: SUMMARY_CHARS - 1] + "…"


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS and len(w) > 2]


# --- repository -------------------------------------------------------------------------------------------


def _digest(row: SceneDigestRow) -> SceneDigest:
    return SceneDigest(
        scene_id=row.scene_id,
        campaign_id=row.campaign_id,
        summary=row.summary,
        summary_method=row.summary_method,
        npc_ids=tuple(row.npc_ids or ()),
        memories_written=row.memories_written,
        created_at=row.created_at,
    )


async def save_digest(session: AsyncSession, digest: SceneDigest) -> SceneDigest:
    """Store (or replace) a scene's digest and put its summary on the scene."""
    await session.execute(delete(SceneDigestRow).where(SceneDigestRow.scene_id == digest.scene_id))
    row = SceneDigestRow(
        scene_id=digest.scene_id,
        campaign_id=digest.campaign_id,
        summary=digest.summary,
        summary_method=digest.summary_method,
        npc_ids=list(digest.npc_ids),
        memories_written=digest.memories_written,
        created_at=digest.created_at or utc_now(),
    )
    session.add(row)
    await session.execute(
        update(SceneRow).where(SceneRow.id == digest.scene_id).values(summary=digest.summary)
    )
    await session.flush()
    return _digest(row)


async def digest_of(session: AsyncSession, scene_id: int) -> SceneDigest | None:
    """Return a scene's digest, if it has one."""
    row = await session.get(SceneDigestRow, scene_id)
    return _digest(row) if row is not None else None


async def undigested_scenes(session: AsyncSession, *, limit: int = 50) -> list[int]:
    """Return completed scenes that have no digest yet (committed while the bot was going down)."""
    query = (
        select(SceneRow.id)
        .outerjoin(SceneDigestRow, SceneDigestRow.scene_id == SceneRow.id)
        .where(SceneRow.status == SceneStatus.COMPLETED, SceneDigestRow.scene_id.is_(None))
        .order_by(SceneRow.id)
        .limit(limit)
    )
    return list((await session.execute(query)).scalars())


async def add_cast(session: AsyncSession, scene_id: int, entity_id: int, added_by: str | None) -> bool:
    """Declare an NPC present in a scene; False when it already was."""
    existing = await session.scalar(
        select(SceneCastRow.id).where(SceneCastRow.scene_id == scene_id, SceneCastRow.entity_id == entity_id)
    )
    if existing is not None:
        return False
    session.add(SceneCastRow(scene_id=scene_id, entity_id=entity_id, added_by_name=added_by))
    await session.flush()
    return True


async def remove_cast(session: AsyncSession, scene_id: int, entity_id: int) -> bool:
    """Remove an NPC from a scene's cast; False when it was not in it."""
    result = await session.execute(
        delete(SceneCastRow).where(SceneCastRow.scene_id == scene_id, SceneCastRow.entity_id == entity_id)
    )
    return bool(getattr(result, "rowcount", 0))


async def cast_of(session: AsyncSession, scene_id: int) -> list[int]:
    """Return the entity ids the GM declared present in a scene."""
    query = select(SceneCastRow.entity_id).where(SceneCastRow.scene_id == scene_id).order_by(SceneCastRow.id)
    return list((await session.execute(query)).scalars())


# --- similar moments --------------------------------------------------------------------------------------


class SceneMomentStore(IndexedStore):
    """Scene summaries in SQL, found by meaning through the campaign's moments collection."""

    async def save(self, digest: SceneDigest, *, story_order: int) -> SceneDigest:
        """Store a digest, then embed its summary (a failure to embed is logged; `rebuild` repairs it)."""
        stored = await self.db.run(lambda session: save_digest(session, digest))
        await self._index(digest.campaign_id, [(digest.scene_id, story_order, digest.summary)])
        return stored

    async def _index(self, campaign_id: int, items: Sequence[tuple[int, int, str]]) -> bool:
        if not self.semantic or not items:
            return False
        try:
            await self._put(
                campaign_id,
                [scene for scene, _, _ in items],
                [text for _, _, text in items],
                [{"scene_id": scene, "story_order": order} for scene, order, _ in items],
            )
        except Exception as error:  # the summary is in SQL; the index is rebuilt from it
            log.warning("could not index scene summaries of campaign %s: %s", campaign_id, error)
            return False
        return True

    async def similar(self, campaign_id: int, text: str, *, limit: int = 3) -> list[Moment]:
        """Return the completed scenes whose summaries are closest to `text`, best first.

        A branch also finds its ancestors' scenes up to its fork point (`memory.lineage`), never later ones.
        """
        if not self.semantic or not text.strip():
            return []
        assert self.index is not None and self.embedder is not None
        async with self.db.session() as session:
            reaches = await narrative_lineage(session, campaign_id)
        try:
            vector = (await self._embed([text]))[0]
            hits = []
            for reach in reaches:
                if reach.inherited and reach.scene_ids is not None:
                    if not reach.scene_ids:
                        continue
                    where = {"scene_id": {"$in": sorted(reach.scene_ids)}}
                    hits += await self.index.query(reach.campaign_id, vector, limit=limit, where=where)
                else:
                    hits += await self.index.query(reach.campaign_id, vector, limit=limit)
        except DocIndexError as error:
            log.warning("similar moments are unavailable: %s", error)
            return []
        similarity = {hit.id: hit.similarity for hit in hits}
        by_campaign = {r.campaign_id: r for r in reaches}
        async with self.db.session() as session:
            rows = (
                await session.execute(
                    select(
                        SceneRow.id,
                        SceneRow.campaign_id,
                        SceneRow.story_order,
                        SceneRow.title,
                        SceneDigestRow.summary,
                    )
                    .join(SceneDigestRow, SceneDigestRow.scene_id == SceneRow.id)
                    .where(SceneRow.campaign_id.in_(list(by_campaign)), SceneRow.id.in_(list(similarity)))
                )
            ).all()
        moments = [
            Moment(scene_id=i, story_order=o, title=t, summary=s, similarity=similarity[i])
            for i, c, o, t, s in rows
            if by_campaign[c].sees_scene(i)
        ]
        return sorted(moments, key=lambda m: -m.similarity)[:limit]

    async def rebuild(self, campaign_id: int) -> int:
        """Drop the campaign's moments collection and embed every stored summary again; return how many."""
        if not self.semantic:
            return 0
        assert self.index is not None
        async with self.db.session() as session:
            rows = (
                await session.execute(
                    select(SceneRow.id, SceneRow.story_order, SceneDigestRow.summary)
                    .join(SceneDigestRow, SceneDigestRow.scene_id == SceneRow.id)
                    .where(SceneRow.campaign_id == campaign_id)
                )
            ).all()
        await self.index.reset(campaign_id)
        items = [(int(i), int(o), str(s)) for i, o, s in rows]
        for start in range(0, len(items), 256):
            await self._index(campaign_id, items[start : start + 256])
        return len(items)
