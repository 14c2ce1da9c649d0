"""The game-master's voice, as use cases for the cogs and the command line: one facade over four rooms.

- extraction (`bot.voice.extracting`): at /endscene, the scene's transcript becomes proposals on the review card
  (CanonService calls `before_review`, so every way of ending a scene does it); `extract_source` reads imported
  prose through the same extraction into a batch waiting for the GM.
- narration (`bot.voice.narration`, its context in `bot.voice.narration_context`): the narrator writes what
  happens next, checks it for GM-only text, posts it through a callback (Discord stays in the cog) and stores
  it as a narrator turn with its context.
- NPCs (`bot.voice.npcs`): an NPC answers in character from its memories and public canon only.
- digests (`bot.voice.digests`): once a scene is complete, its summary and its NPCs' memories (CanonService's
  `after_complete` hook, in the background; `catch_up` redoes scenes a crash interrupted).

No method holds a database transaction while it waits for the LLM or the embedder: reads happen first in a
read session, the model is called, and the results are written in a short `db.run` afterwards.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Literal

from bot.llm.client import LLMClient
from bot.voice.common import Material, VoiceDeps
from bot.voice.digests import DigestReport, Digests
from bot.voice.extracting import ExtractionCases
from bot.voice.extraction import ExtractionReport, PiecesRead
from bot.voice.narration import NarrationOutcome, Narrator, PostNarration
from bot.voice.narration_context import narration_material
from bot.voice.npcs import NpcCases, NpcReply, PostAsNpc
from bot.voice.ports import CanonProposals, Listeners
from canon.campaigns import Campaign
from config.settings import VoiceSettings
from memory.digests import Moment, SceneMomentStore
from memory.narrations import NarrationRecord
from memory.npc_memory import MemoryRecord, NpcMemoryStore
from memory.scene_service import SceneService
from memory.scenes import Actor, Scene
from memory.turn_log import TurnLog


class VoiceService:
    """Narration, extraction, NPC memory and speech; see the module docstring."""

    def __init__(
        self,
        *,
        db: Any,
        settings: VoiceSettings,
        canon: CanonProposals,
        scenes: SceneService,
        turns: TurnLog,
        llm: LLMClient | None,
        memories: NpcMemoryStore,
        moments: SceneMomentStore,
        retriever: Any = None,
        knowledge: Any = None,
    ) -> None:
        self.deps = VoiceDeps(
            db=db,
            settings=settings,
            canon=canon,
            scenes=scenes,
            turns=turns,
            llm=llm,
            memories=memories,
            moments=moments,
            retriever=retriever,
            knowledge=knowledge,
        )
        self.extraction = ExtractionCases(self.deps)
        self.narrator = Narrator(self.deps)
        self.npcs = NpcCases(self.deps)
        self.digests = Digests(self.deps)

    def hear_through(self, listeners: Listeners) -> None:
        """Let NPCs say what the characters who hear them know (the composition root wires the desk)."""
        self.deps.listeners = listeners

    @property
    def settings(self) -> VoiceSettings:
        """The voice's settings."""
        return self.deps.settings

    @property
    def llm(self) -> LLMClient | None:
        """The language model, or None where none is configured."""
        return self.deps.llm

    @property
    def memories(self) -> NpcMemoryStore:
        """The NPCs' memories."""
        return self.deps.memories

    @property
    def moments(self) -> SceneMomentStore:
        """The completed scenes' summaries."""
        return self.deps.moments

    # -- background work ------------------------------------------------------------------------------

    def run_in_background(self, coro: Awaitable[Any], name: str) -> None:
        """Run work after the caller returns (kept until done; `drain` waits for it)."""
        self.deps.run_in_background(coro, name)

    async def drain(self) -> None:
        """Wait for the background work started so far (scene digests); for shutdown and tests."""
        await self.deps.drain()

    async def close(self) -> None:
        """Let running background work finish."""
        await self.drain()

    # -- extraction -----------------------------------------------------------------------------------

    async def before_review(self, scene: Scene, *, progress: PiecesRead | None = None) -> None:
        """CanonService hook at /endscene: drop the narrator, extract proposals; never fail the scene's end."""
        self.narrator.forget_narrator_channel(scene.channel_id)
        await self.extraction.extract_for_review(scene, progress=progress)

    async def extract_scene(
        self, scene: Scene | int, *, progress: PiecesRead | None = None
    ) -> ExtractionReport:
        """Extract the proposals a scene's transcript establishes and submit them for the GM's review."""
        return await self.extraction.extract_scene(scene, progress=progress)

    async def extract_source(
        self, campaign: Campaign, source_id: int, *, progress: PiecesRead | None = None
    ) -> ExtractionReport:
        """Extract proposals from an imported document into a batch that waits for the GM (authority source)."""
        return await self.extraction.extract_source(campaign, source_id, progress=progress)

    # -- narration ------------------------------------------------------------------------------------

    async def narrator_channels(self) -> set[int]:
        """Return the channels whose running scene has narrator mode on."""
        return await self.narrator.narrator_channels()

    def forget_narrator_channel(self, channel_id: int) -> None:
        """Stop narrating in a channel (its scene ended)."""
        self.narrator.forget_narrator_channel(channel_id)

    async def set_narrator(self, channel_id: int, on: bool, actor: Actor) -> Scene:
        """Turn the narrator of the channel's running scene on or off (GM)."""
        return await self.narrator.set_narrator(channel_id, on, actor)

    async def narrate(
        self,
        channel_id: int,
        actor: Actor,
        *,
        post: PostNarration,
        trigger: Literal["command", "auto"] = "command",
        direction: str | None = None,
    ) -> NarrationOutcome:
        """Write, check, post and store what happens next in the channel's scene."""
        return await self.narrator.narrate(channel_id, actor, post=post, trigger=trigger, direction=direction)

    async def narration(self, campaign: Campaign, narration_id: int) -> NarrationRecord:
        """Return a narration of the campaign with its exact context (for the GM's Context button)."""
        return await self.narrator.narration(campaign, narration_id)

    async def narration_material(self, campaign: Campaign, scene: Scene) -> Material:
        """Assemble the narrator's context for a scene: state, turns, lore, memories, hidden canon."""
        return await narration_material(self.deps, campaign, scene)

    # -- NPCs -----------------------------------------------------------------------------------------

    async def npc_talk(
        self,
        campaign: Campaign,
        channel_id: int,
        npc_name: str,
        message: str,
        actor: Actor,
        *,
        post: PostAsNpc,
        allow: str | None = None,
        tell: int | None = None,
    ) -> NpcReply:
        """Let an NPC answer in character from what all who hear could know (a GM may `allow` one out of the
        story, or let it `tell` a hidden fact to those present)."""
        return await self.npcs.npc_talk(
            campaign, channel_id, npc_name, message, actor, post=post, allow=allow, tell=tell
        )

    async def npc_material(
        self, campaign: Campaign, npc_id: int, npc: str, message: str, scene: Scene | None
    ) -> tuple[Material, list[Any]]:
        """Assemble what an NPC knows for a reply: public canon, its own memories, the scene it is in."""
        return await self.npcs.npc_material(campaign, npc_id, npc, message, scene)

    async def npc_memories(self, campaign: Campaign, npc_name: str) -> tuple[str, list[MemoryRecord]]:
        """Return an NPC's name and standing memories (GM)."""
        return await self.npcs.npc_memories(campaign, npc_name)

    async def npc_forget(
        self, campaign: Campaign, npc_name: str, actor: Actor, memory_id: int | None = None
    ) -> tuple[str, int]:
        """Forget one memory of an NPC, or all of them (GM); return the NPC's name and how many went."""
        return await self.npcs.npc_forget(campaign, npc_name, actor, memory_id)

    async def cast(
        self, campaign: Campaign, channel_id: int, npc_name: str, actor: Actor, *, remove: bool = False
    ) -> tuple[str, bool]:
        """Declare an NPC present in (or absent from) the channel's scene, so it remembers it (GM)."""
        return await self.npcs.cast(campaign, channel_id, npc_name, actor, remove=remove)

    async def similar_scenes(self, campaign: Campaign, text: str, *, limit: int = 3) -> list[Moment]:
        """Return the committed scenes most like `text`, by their summaries."""
        return await self.npcs.similar_scenes(campaign, text, limit=limit)

    # -- after a scene is complete --------------------------------------------------------------------

    async def after_complete(self, scene_id: int) -> None:
        """CanonService hook once a scene is complete: digest it in the background."""
        await self.digests.after_complete(scene_id)

    async def catch_up(self) -> int:
        """Digest completed scenes that have none (committed while the bot was going down); return how many."""
        return await self.digests.catch_up()

    async def digest_scene(self, scene_id: int) -> DigestReport:
        """Write a completed scene's summary and each present NPC's memories of it (once)."""
        return await self.digests.digest_scene(scene_id)

    async def rebuild_indexes(self, campaign_id: int) -> tuple[int, int]:
        """Rebuild a campaign's NPC memory and moments collections from SQL; return (memories, summaries)."""
        return await self.digests.rebuild_indexes(campaign_id)
