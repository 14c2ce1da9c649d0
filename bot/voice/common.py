"""What the voice's use cases share: their dependencies, the material of a reply, and the lookups they all make.

Extraction, narration, NPCs and digests each get one `VoiceDeps` (built once by `VoiceService`) and use the
functions here to read cards, lore and NPCs the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from bot.llm.client import LLMClient
from bot.voice.material import is_npc_type
from bot.voice.ports import CanonProposals, Listeners
from canon.campaigns import Campaign, get_campaign
from canon.errors import InvalidInput, NotFound
from canon.graph import CanonReader
from canon.models import EntityCard, Viewer
from config.settings import VoiceSettings
from memory.context import AssembledContext
from memory.digests import SceneMomentStore
from memory.leaks import Secret
from memory.npc_memory import NpcMemoryStore
from memory.scene_service import SceneService
from memory.turn_log import TurnLog

log = logging.getLogger(__name__)

DISCORD_TEXT_LIMIT = 1900
LORE_RESULTS = 12


@dataclass
class VoiceDeps:
    """The services and ports every use case of the voice works with, and the background work they start."""

    db: Any
    settings: VoiceSettings
    canon: CanonProposals
    scenes: SceneService
    turns: TurnLog
    llm: LLMClient | None
    memories: NpcMemoryStore
    moments: SceneMomentStore
    #: `memory.knowledge.retrieval.Retriever` (or anything with its `search`), when imported knowledge is wired.
    retriever: Any = None
    #: `memory.knowledge.KnowledgeService`, for `extract_source`.
    knowledge: Any = None
    #: What the characters hearing an NPC know (`bot.services.knowledge.KnowledgeDesk`), when wired.
    listeners: Listeners | None = None
    background: set[asyncio.Task[Any]] = field(default_factory=set)

    def run_in_background(self, coro: Awaitable[Any], name: str) -> None:
        """Run work after the caller returns (kept until done; `drain` waits for it)."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def drain(self) -> None:
        """Wait for the background work started so far."""
        while self.background:
            await asyncio.gather(*list(self.background), return_exceptions=True)

    async def campaign(self, campaign_id: int) -> Campaign:
        """Return a campaign, read in a session of its own."""
        async with self.db.session() as session:
            return await get_campaign(session, campaign_id)


@dataclass
class Material:
    """The context of one narration or NPC reply, and what the leak check needs.

    `public` is what players may legitimately know (player-visible canon, public sources, the GM's own words
    at the table), never a player's text: a player who types a guess must not unlock the secret it names.
    """

    context: AssembledContext
    secrets: list[Secret]
    public: list[str]


def clip_for_discord(text: str, limit: int = DISCORD_TEXT_LIMIT) -> str:
    """Return text cut at a paragraph or sentence end to fit one Discord message."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for marker in ("\n\n", ". ", "! ", "? ", "\n"):
        at = cut.rfind(marker)
        if at > limit // 2:
            return cut[: at + 1].rstrip()
    return cut.rstrip() + "…"


def strip_reply(text: str) -> str:
    """Return a model's reply without wrapping quotes or a leading speaker label."""
    text = text.strip()
    text = re.sub(r"^(narrator|narration)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    return text


async def resolve_npc(
    deps: VoiceDeps, campaign: Campaign, name: str, *, viewer: Viewer
) -> tuple[int, str, list[str]]:
    """Resolve an NPC by name for a viewer: its id, name and aliases; refuse what is not an NPC."""
    async with deps.db.session() as session:
        reader = await deps.canon.reader(session, campaign, viewer)
        entity = await reader.resolve(name)
        if not is_npc_type(reader.ontology, entity.type):
            raise InvalidInput(f"{entity.name} is a {entity.type}, not a character who can talk or remember.")
        return entity.id, entity.name, list(entity.aliases)


async def cards(
    gm_reader: CanonReader, player_reader: CanonReader, ids: set[int]
) -> tuple[dict[int, EntityCard], dict[int, EntityCard]]:
    """Return the GM's and the players' cards of the entities (an entity a viewer may not see has none)."""
    gm_cards: dict[int, EntityCard] = {}
    player_cards: dict[int, EntityCard] = {}
    for entity_id in sorted(ids):
        with contextlib.suppress(NotFound):
            gm_cards[entity_id] = await gm_reader.card(entity_id)
        with contextlib.suppress(NotFound):
            player_cards[entity_id] = await player_reader.card(entity_id)
    return gm_cards, player_cards


async def lore(deps: VoiceDeps, campaign_id: int, query: str, *, viewer: Viewer) -> list[Any]:
    """Return imported passages about `query` for a viewer; none when retrieval is not wired or fails."""
    if deps.retriever is None or not query.strip():
        return []
    try:
        from memory.knowledge.retrieval import preset

        answer = await deps.retriever.search(
            campaign_id, query[:1000], viewer=viewer, limit=LORE_RESULTS, config=preset("context")
        )
    except Exception:  # lore is an aid: narration goes on without it
        log.warning("lore retrieval for the narrator failed", exc_info=True)
        return []
    return list(answer.results)
