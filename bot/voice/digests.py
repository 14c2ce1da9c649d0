"""After a scene is complete: its summary and each present NPC's memories of it, written once.

The language model writes them where one is configured; an extractive summary and extractive memories stand in
when it is absent or fails. New memories are linked to the NPC's older ones (relationship memories).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.llm.client import LLMOutputInvalid, LLMUnavailable
from bot.voice.common import VoiceDeps, cards
from bot.voice.extraction import names_in, transcript_lines
from bot.voice.material import (
    STAGING_SPEAKERS,
    card_line,
    extractive_memories,
    first_mention,
    gm_words,
    is_npc_type,
    scene_heading,
)
from bot.voice.prompts import NpcMemoriesReply, npc_memory_messages, summary_messages
from canon.campaigns import Campaign, get_campaign
from canon.errors import Conflict, GameError
from canon.models import EntityCard, Viewer
from memory import digests as digest_repo
from memory.digests import SceneDigest, extractive_summary
from memory.leaks import Secret, card_secrets, find_leaks
from memory.npc_memory import DocType, MemoryRecord, NewMemory, ScopeKind
from memory.npc_memory_records import memories_of
from memory.scenes import Scene, SceneStatus, SpeakerKind, load_scene, scene_turns
from memory.tokens import truncate_to_tokens

log = logging.getLogger(__name__)

NPC_LINKS_THRESHOLD = 0.72

#: A link the model drew between two memories: (source, target, kind, observation, strength), each end
#: "new:N" (the Nth memory it wrote) or "old:ID" (an older memory of the NPC).
MemoryLink = tuple[str, str, str, str, float]


@dataclass
class DigestReport:
    """What finishing a scene wrote: its summary and each NPC's memories."""

    scene_id: int
    summary: str
    summary_method: str
    memories: dict[str, int] = field(default_factory=dict)
    skipped: bool = False


class Digests:
    """Write each completed scene's summary and its NPCs' memories, one scene at a time."""

    def __init__(self, deps: VoiceDeps) -> None:
        self.deps = deps
        self._lock = asyncio.Lock()

    async def after_complete(self, scene_id: int) -> None:
        """CanonService hook once a scene is complete: digest it in the background."""
        self.deps.run_in_background(self._digest_logged(scene_id), name=f"lorekeeper-digest-{scene_id}")

    async def _digest_logged(self, scene_id: int) -> None:
        try:
            await self.digest_scene(scene_id)
        except Exception:
            log.exception(
                "could not write the summary and NPC memories of scene %s (it is redone at start)", scene_id
            )

    async def catch_up(self) -> int:
        """Digest completed scenes that have none (committed while the bot was going down); return how many."""
        async with self.deps.db.session() as session:
            pending = await digest_repo.undigested_scenes(session)
        for scene_id in pending:
            await self._digest_logged(scene_id)
        return len(pending)

    async def digest_scene(self, scene_id: int) -> DigestReport:
        """Write a completed scene's summary and each present NPC's memories of it (once)."""
        async with self._lock:
            return await self._digest(scene_id)

    async def _digest(self, scene_id: int) -> DigestReport:
        deps = self.deps
        async with deps.db.session() as session:
            existing = await digest_repo.digest_of(session, scene_id)
            scene = await load_scene(session, scene_id)
            if existing is not None:
                return DigestReport(scene_id, existing.summary, existing.summary_method, skipped=True)
            if scene.status != SceneStatus.COMPLETED:
                raise Conflict("Only a completed scene gets its summary and memories.")
            campaign = await get_campaign(session, scene.campaign_id)
            turns = await scene_turns(session, scene.id, include_deleted=False)
            cast = await digest_repo.cast_of(session, scene.id)
            reader = await deps.canon.reader(session, campaign, Viewer.GM)
            # Present: the cast, the NPCs who spoke, and whoever the GM or the narrator named. A player naming
            # someone ("I wonder where Aldric is") is talk about them, not a sign that they are there.
            staged = "\n".join(t.text for t in turns if t.speaker in STAGING_SPEAKERS)
            present_ids = names_in(staged, await reader.names()) | set(cast)
            npc_speakers = {t.author_name for t in turns if t.speaker == SpeakerKind.NPC}
            for name in npc_speakers:
                with contextlib.suppress(GameError):
                    present_ids.add((await reader.resolve(name)).id)
            entities = await reader.entities(present_ids)
            already = {m.npc_id for m in await _scene_memories(session, campaign.id, scene.id)}
            players = await deps.canon.reader(session, campaign, Viewer.PLAYER)
            guard = _guard(turns, *await cards(reader, players, set(entities)))
        ontology = deps.canon.ontology_for(campaign)
        npcs = [e for e in entities.values() if is_npc_type(ontology, e.type)]
        summary, method = await self._summary(campaign, scene, turns, guard)
        report = DigestReport(scene_id=scene.id, summary=summary, summary_method=method)
        for npc in sorted(npcs, key=lambda e: e.id):
            if npc.id in already:
                continue
            names = [npc.name, *npc.aliases]
            # Present from the first turn naming it (a player's too: "I ask the Innkeeper" was said to her).
            since = first_mention(turns, names, speaker_name=npc.name)
            if since is None:
                since = turns[0].number if turns else None
            if since is None:
                continue
            written = await self._npc_memories(campaign, scene, turns, npc.id, npc.name, names, since)
            report.memories[npc.name] = written
        digest = SceneDigest(
            scene_id=scene.id,
            campaign_id=campaign.id,
            summary=summary,
            summary_method=method,
            npc_ids=tuple(sorted(n.id for n in npcs)),
            memories_written=sum(report.memories.values()),
        )
        await deps.moments.save(digest, story_order=scene.story_order)
        return report

    async def _summary(
        self, campaign: Campaign, scene: Scene, turns: Sequence[Any], guard: tuple[list[Secret], list[str]]
    ) -> tuple[str, str]:
        """Return the scene's summary and how it was made: the model's, unless it tells GM-only canon (a recap
        posts it where players read it), else an extractive one from the table's own turns."""
        llm = self.deps.llm
        if llm is not None and turns:
            transcript = "\n".join(f"[{n}] {line}" for n, line in transcript_lines(turns))
            transcript = truncate_to_tokens(transcript, self.deps.settings.extraction_piece_tokens * 2)
            try:
                completion = await llm.complete(
                    summary_messages(heading=scene_heading(scene), transcript=transcript),
                    campaign_id=campaign.id,
                    purpose="scene_summary",
                    max_tokens=300,
                    temperature=0.2,
                )
                text = " ".join(completion.text.split())[:2000]
                leaks = find_leaks(text, *guard) if text else []
                if leaks:
                    log.warning(
                        "the summary of scene %s told GM-only canon (%s); not kept", scene.id, leaks[0].label
                    )
                elif text:
                    return text, "llm"
            except LLMUnavailable as error:
                log.warning("the scene summary falls back to an extractive one: %s", error)
        return extractive_summary(scene.title, scene.location, turns), "extractive"

    async def _npc_memories(
        self,
        campaign: Campaign,
        scene: Scene,
        turns: Sequence[Any],
        npc_id: int,
        npc: str,
        names: Sequence[str],
        since: int,
    ) -> int:
        witnessed = [t for t in turns if t.number >= since]
        new: list[NewMemory] = []
        links: list[MemoryLink] = []
        if self.deps.llm is not None:
            try:
                new, links = await self._llm_memories(campaign, scene, witnessed, npc_id, npc)
            except (LLMUnavailable, LLMOutputInvalid) as error:
                log.warning(
                    "%s's memories of scene %s fall back to extractive ones: %s", npc, scene.id, error
                )
        if not new:
            new = extractive_memories(
                npc_id=npc_id, npc_name=npc, names=names, scene=scene, turns=turns, since=since
            )
            links = []
        memories = self.deps.memories
        stored = await memories.add(campaign.id, new)
        relationships = _link_memories(npc_id, npc, scene, stored, links)
        relationships += await self._echoes(
            campaign.id, npc_id, npc, stored, exclude={r.memory_ids for r in relationships}
        )
        if relationships:
            stored += await memories.add(campaign.id, relationships)
        return len(stored)

    async def _llm_memories(
        self, campaign: Campaign, scene: Scene, witnessed: Sequence[Any], npc_id: int, npc: str
    ) -> tuple[list[NewMemory], list[MemoryLink]]:
        llm = self.deps.llm
        assert llm is not None
        older = await self.deps.memories.memories(campaign.id, npc_id, doc_type=DocType.MEMORY)
        older = sorted(older, key=lambda m: (-m.importance, -m.id))[:8]
        lines = transcript_lines(witnessed)
        transcript = truncate_to_tokens(
            "\n".join(f"[{n}] {line}" for n, line in lines), self.deps.settings.extraction_piece_tokens
        )
        heading = scene_heading(scene)
        reply = await llm.complete_structured(
            npc_memory_messages(
                npc=npc, heading=heading, transcript=transcript, older=[(m.id, m.content) for m in older]
            ),
            NpcMemoriesReply,
            campaign_id=campaign.id,
            purpose="npc_memory",
            max_tokens=self.deps.settings.extraction_max_tokens,
            temperature=0.3,
        )
        numbers = {n for n, _ in lines}
        new: list[NewMemory] = []
        for written in reply.value.memories:
            cited = sorted(n for n in written.turns if n in numbers)
            new.append(
                NewMemory(
                    npc_id=npc_id,
                    npc_name=npc,
                    scope_kind=ScopeKind.SCENE,
                    scene_id=scene.id,
                    content=" ".join(written.text.split())[:1000],
                    importance=written.importance,
                    turn_from=cited[0] if cited else None,
                    turn_to=cited[-1] if cited else None,
                    method="llm",
                )
            )
        older_ids = {m.id for m in older}
        links = []
        for link in reply.value.links:
            ends = (link.source.strip().lower(), link.target.strip().lower())
            valid = all(
                (e.startswith("new:") and e[4:].isdigit() and 1 <= int(e[4:]) <= len(new))
                or (e.startswith("old:") and e[4:].isdigit() and int(e[4:]) in older_ids)
                for e in ends
            )
            if valid and ends[0] != ends[1]:
                links.append((ends[0], ends[1], link.relationship_type, link.observation, link.strength))
            else:
                log.info("dropped a memory link naming unknown memories: %s -> %s", link.source, link.target)
        return new, links

    async def _echoes(
        self,
        campaign_id: int,
        npc_id: int,
        npc: str,
        stored: Sequence[MemoryRecord],
        *,
        exclude: set[tuple[int, ...]],
    ) -> list[NewMemory]:
        """Link each new memory to the NPC's older memory most like it (a relationship memory of its own)."""
        memories = self.deps.memories
        if not memories.semantic:
            return []
        new_ids = {m.id for m in stored}
        echoes: list[NewMemory] = []
        for memory in stored:
            found = await memories.recall(
                campaign_id, npc_id, memory.content, limit=3, doc_types=(DocType.MEMORY,), record_access=False
            )
            older = [r for r in found if r.memory.id not in new_ids and r.similarity >= NPC_LINKS_THRESHOLD]
            if not older:
                continue
            best = older[0]
            pair = (best.memory.id, memory.id)
            if pair in exclude or pair[::-1] in exclude:
                continue
            echoes.append(
                NewMemory(
                    npc_id=npc_id,
                    npc_name=npc,
                    doc_type=DocType.RELATIONSHIP,
                    scope_kind=ScopeKind.NPC,
                    scene_id=memory.scene_id,
                    content=f"This brought back an older memory: {best.memory.content[:200]}",
                    importance=round(min(1.0, (memory.importance + best.memory.importance) / 2), 2),
                    relationship_type="echoes",
                    memory_ids=pair,
                    strength=round(best.similarity, 3),
                    method="similarity",
                )
            )
        return echoes

    async def rebuild_indexes(self, campaign_id: int) -> tuple[int, int]:
        """Rebuild a campaign's NPC memory and moments collections from SQL; return (memories, summaries)."""
        return await self.deps.memories.rebuild(campaign_id), await self.deps.moments.rebuild(campaign_id)


def _link_memories(
    npc_id: int, npc: str, scene: Scene, stored: Sequence[MemoryRecord], links: Sequence[MemoryLink]
) -> list[NewMemory]:
    """Turn the model's links into relationship memories between the stored ("new:N") and older memories."""

    def memory_id(end: str) -> int:
        kind, number = end.split(":", 1)
        return stored[int(number) - 1].id if kind == "new" else int(number)

    relationships = []
    for source, target, kind, observation, strength in links:
        first, second = memory_id(source), memory_id(target)
        relationships.append(
            NewMemory(
                npc_id=npc_id,
                npc_name=npc,
                doc_type=DocType.RELATIONSHIP,
                scope_kind=ScopeKind.NPC,
                scene_id=scene.id,
                content=" ".join(observation.split())[:500],
                importance=strength,
                relationship_type="_".join(kind.lower().split())[:40],
                memory_ids=(first, second),
                strength=strength,
                method="llm",
            )
        )
    return relationships


async def _scene_memories(session: AsyncSession, campaign_id: int, scene_id: int) -> list[MemoryRecord]:
    return await memories_of(session, campaign_id, scene_id=scene_id, include_forgotten=True)


def _guard(
    turns: Sequence[Any], gm_cards: dict[int, EntityCard], player_cards: dict[int, EntityCard]
) -> tuple[list[Secret], list[str]]:
    """Return what a summary must not tell (the present entities' GM-only canon, from their GM cards) and what
    players already know (their cards, what the GM and the narrator said at the table; never a player's guess)."""
    secrets = [secret for card in gm_cards.values() for secret in card_secrets(card)]
    narrated = [t.text for t in turns if t.speaker == SpeakerKind.NARRATOR and not t.is_deleted]
    return secrets, gm_words(turns) + narrated + [card_line(card) for card in player_cards.values()]
