"""The application's services, built once from settings and handed to the Discord client, the CLI and tests."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from bot.branches import BranchService, bound_campaign_id
from bot.llm.client import LLMClient
from bot.llm.openai_compatible import OpenAICompatibleLLM, build_llm
from bot.ops.ledger import SqlTokenLedger
from bot.ops.metrics import CommandLatencies
from bot.ops.operations import OperationsService
from bot.ops.scheduler import JobScheduler
from bot.services.canon_access import CanonAccess
from bot.services.canon_service import CanonService
from bot.services.directory import Directory
from bot.services.fact_picking import FactPicker
from bot.services.gm_notes import GmNoteDesk
from bot.services.npc_memories import NpcMemoryDesk
from bot.services.proposal_service import ProposalService
from bot.services.recaps import RecapService
from bot.services.structured_import import StructuredImportService
from bot.voice.dialogue_import import DialogueImportService
from bot.voice.service import VoiceService
from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import NotAllowed, NotFound
from canon.storage import Database
from config.settings import Settings
from memory.digests import SceneMomentStore
from memory.doc_index import ChromaDocIndex
from memory.embedding import MiniLMEmbedder
from memory.knowledge.service import KnowledgeService
from memory.notes import GmNoteService
from memory.npc_memory import NpcMemoryStore
from memory.scenes import SceneService
from memory.tokens import count_tokens
from memory.turn_log import TurnLog
from memory.vector_index import ChromaVectorIndex

log = logging.getLogger(__name__)


class CampaignService:
    """Find and create campaigns; a Discord server gets its campaign on first use.

    The lookups that lead to play (`for_channel`, `by_name`) refuse an abandoned branch, so that nothing answers
    from it or writes to it; inspection, export and delete ask for it with `allow_abandoned`.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._guild_default: dict[int, int] = {}

    async def for_guild(self, guild_id: int, guild_name: str) -> Campaign:
        """Return the campaign a server plays in, creating it on first use."""
        async with self.db.session() as session:
            cached = self._guild_default.get(guild_id)
            if cached is not None:
                return await campaigns.get_campaign(session, cached)
        campaign = await self.db.run(lambda s: campaigns.guild_default_campaign(s, guild_id, guild_name))
        self._guild_default[guild_id] = campaign.id
        return campaign

    async def for_channel(
        self,
        guild_id: int,
        guild_name: str,
        channel_id: int | None,
        category_id: int | None,
        *,
        parent_channel_id: int | None = None,
        allow_abandoned: bool = False,
    ) -> Campaign:
        """Return the campaign a channel plays in: its own binding, its parent channel's (a thread), its
        category's, else the server's root campaign (see `bot.branches`).

        A channel bound to an abandoned branch stops answering: `NotAllowed` says so (unless `allow_abandoned`,
        for the commands that rebind it or show it).
        """
        async with self.db.session() as session:
            bound = await bound_campaign_id(session, [channel_id, parent_channel_id, category_id])
            if bound is None:
                # The server's own campaign, read in this session when already known (one session a command).
                cached = self._guild_default.get(guild_id)
                campaign = await campaigns.get_campaign(session, cached) if cached is not None else None
            else:
                campaign = await campaigns.get_campaign(session, bound)
                if not allow_abandoned:
                    await _refuse_abandoned(
                        session,
                        campaign,
                        f"This channel plays in “{campaign.name}”, a branch that was abandoned: it no longer "
                        "answers.",
                        "A GM can bind the channel to “{parent}”, where its story goes on, with "
                        "`/campaign use`.",
                    )
        if campaign is None:
            return await self.for_guild(guild_id, guild_name)
        return campaign

    async def of_guild(self, campaign_id: int, guild_id: int, guild_name: str) -> Campaign:
        """Return a campaign of this server (its root or any of its branches), else raise `NotAllowed`."""
        root_id = self._guild_default.get(guild_id)
        if root_id is None:
            root_id = (await self.for_guild(guild_id, guild_name)).id
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, campaign_id)
        if campaign.id != root_id and campaign.guild_id != guild_id:
            raise NotAllowed("That belongs to another server's campaign.")
        return campaign

    def cached_campaign_id(self, guild_id: int) -> int | None:
        """Return the id of a server's campaign when it is already known (no database access)."""
        return self._guild_default.get(guild_id)

    async def by_name(self, name: str, *, allow_abandoned: bool = False) -> Campaign:
        """Return a campaign by name or raise `NotFound`.

        An abandoned branch raises `NotAllowed` (unless `allow_abandoned`: inspecting, exporting, deleting it).
        """
        async with self.db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, name)
            if not allow_abandoned:
                await _refuse_abandoned(
                    session,
                    campaign,
                    f"“{campaign.name}” is a branch that was abandoned: it no longer answers or changes.",
                    "Its story goes on in “{parent}”: name that campaign instead. `lorekeeper campaign info` "
                    "and `lorekeeper export` still read the branch.",
                )
            return campaign

    async def create(self, name: str, *, guild_id: int | None = None) -> Campaign:
        """Create a root campaign."""
        return await self.db.run(lambda s: campaigns.create_campaign(s, name, guild_id=guild_id))

    async def all(self) -> list[Campaign]:
        """Return every campaign."""
        async with self.db.session() as session:
            return await campaigns.list_campaigns(session)

    async def in_play(self) -> list[Campaign]:
        """Return every campaign but the abandoned branches."""
        return [c for c in await self.all() if c.status != campaigns.CampaignStatus.ABANDONED]

    async def of_guild_by_name(self, guild_id: int, name: str) -> Campaign:
        """Return a campaign or branch of a server by name, else raise `NotFound`."""
        async with self.db.session() as session:
            found = [c for c in await campaigns.list_campaigns(session, guild_id=guild_id) if c.name == name]
        if not found:
            raise NotFound(f"This server has no campaign or branch named “{name}”. See `/campaign list`.")
        return found[0]


async def _refuse_abandoned(session: AsyncSession, campaign: Campaign, what: str, instead: str) -> None:
    """Raise `NotAllowed` for an abandoned branch: `what` happened, `instead` names where its story goes on.

    `instead` is formatted with `parent`, the nearest ancestor still in play (a root campaign is never abandoned).
    """
    if campaign.status != campaigns.CampaignStatus.ABANDONED:
        return
    ancestors = (await campaigns.chain(session, campaign.id))[1:]
    parent = next((row for row in ancestors if row.status != campaigns.CampaignStatus.ABANDONED), None)
    raise NotAllowed(what + (" " + instead.format(parent=parent.name) if parent is not None else ""))


@dataclass
class Services:
    """Everything a command needs; built by `build_services` and closed by `close`."""

    settings: Settings
    db: Database
    campaigns: CampaignService
    scenes: SceneService
    turns: TurnLog
    canon: CanonService
    knowledge: KnowledgeService
    llm: LLMClient | None
    ledger: SqlTokenLedger
    voice: VoiceService
    # Operations (bot.ops.operations, bot.ops.scheduler, bot.ops.metrics): made from the above unless passed in.
    ops: OperationsService = field(default=None)  # type: ignore[assignment]
    scheduler: JobScheduler | None = None
    metrics: CommandLatencies = field(default_factory=CommandLatencies)
    _closing: asyncio.Future[None] | None = field(default=None, init=False, repr=False)
    # Structured lore (YAML) import (bot.services.structured_import): made from db and canon unless passed in.
    structured: StructuredImportService = field(default=None)  # type: ignore[assignment]
    # What-if branches (bot.branches): made from db, canon, knowledge and voice unless passed in.
    branches: BranchService = field(default=None)  # type: ignore[assignment]
    # Scene recaps and the campaign journal (bot.services.recaps): made from db, canon and voice unless passed in.
    recaps: RecapService = field(default=None)  # type: ignore[assignment]
    # The directory of what canon knows (bot.services.directory): made from canon unless passed in.
    directory: Directory = field(default=None)  # type: ignore[assignment]
    # The GM's notes (memory.notes, bot.services.gm_notes): made from db, canon and scenes unless passed in.
    notes: GmNoteDesk = field(default=None)  # type: ignore[assignment]
    # The GM's operations on NPC memories (bot.services.npc_memories): made from the voice's store and canon.
    npc_memories: NpcMemoryDesk = field(default=None)  # type: ignore[assignment]
    # Dialogue files into scenes (bot.voice.dialogue_import): made from scenes, turns and canon.
    dialogue: DialogueImportService = field(default=None)  # type: ignore[assignment]
    # Facts picked by what they say (bot.services.fact_picking): made from db and canon's access.
    facts: FactPicker = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.ops is None:
            self.ops = OperationsService(self.db, self.settings.ops)
        if self.structured is None:
            self.structured = StructuredImportService(self.db, self.canon.ontology_for)
        if self.notes is None:
            self.notes = GmNoteDesk(GmNoteService(self.db), self.canon, self.scenes)
        if self.dialogue is None:
            self.dialogue = DialogueImportService(self.scenes, self.turns, self.canon)
        if self.npc_memories is None:
            self.npc_memories = NpcMemoryDesk(self.voice.memories, self.canon)
        if self.branches is None:
            self.branches = BranchService(self.db, self.canon, knowledge=self.knowledge, voice=self.voice)
        if self.directory is None:
            self.directory = Directory(self.canon)
        if self.facts is None:
            self.facts = FactPicker(self.db, self.canon.access)
        if self.recaps is None:
            self.recaps = RecapService(self.db, self.canon, self.voice)
        if self.scheduler is None and self.settings.runs_scheduler:
            self.scheduler = JobScheduler(self.settings, self.db)  # started by the bot, not here

    async def close(self) -> None:
        """Stop the scheduled jobs, write what is queued and close every connection (once, however often called)."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close())
        # Shielded: a caller cancelled at shutdown must not cut the flush and the disposal short.
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.shutdown()
        await self.voice.close()
        await self.turns.close()
        if isinstance(self.llm, OpenAICompatibleLLM):
            await self.llm.aclose()
        await self.db.dispose()


async def build_services(settings: Settings, *, db: Database | None = None, migrate: bool = True) -> Services:
    """Open the database (creating the data directory and applying migrations) and build the services."""
    from bot.schema import database

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = db or Database.from_url(settings.resolved_database_url)
    if migrate:
        await database.upgrade(db)
    turns = TurnLog(db)
    turns.start()
    scenes = SceneService(db)
    # One SceneService (it keeps the channels with an open scene) and one CanonAccess (the cached lineages a
    # rebase forgets) for every canon service. The voice uses proposals; the canon service calls the voice when
    # a scene ends and once it is complete, so the voice comes first.
    access = CanonAccess()
    proposals = ProposalService(db, scenes, access=access)
    knowledge = build_knowledge(settings, db, access)
    ledger = SqlTokenLedger(db)
    llm = build_llm(settings.llm, ledger, token_counter=count_tokens)
    voice = build_voice(
        settings, db, proposals=proposals, scenes=scenes, turns=turns, llm=llm, knowledge=knowledge
    )
    canon = CanonService(
        db, scenes, access=access, before_review=voice.before_review, after_complete=voice.after_complete
    )
    return Services(
        settings=settings,
        db=db,
        campaigns=CampaignService(db),
        scenes=scenes,
        turns=turns,
        canon=canon,
        knowledge=knowledge,
        llm=llm,
        ledger=ledger,
        voice=voice,
    )


def build_voice(
    settings: Settings,
    db: Database,
    *,
    proposals: ProposalService,
    scenes: SceneService,
    turns: TurnLog,
    llm: LLMClient | None,
    knowledge: KnowledgeService | None,
) -> VoiceService:
    """Build the game-master's voice (its hooks go to `CanonService`: the scene's end and commit).

    NPC memories and scene summaries get Chroma collections of their own per campaign (`lk_mem{id}`,
    `lk_scn{id}`) beside the knowledge index, rebuilt from SQL on demand.
    """
    embedder = (
        MiniLMEmbedder(batch_size=settings.embedding.batch_size) if settings.embedding.enabled else None
    )
    memory_index = moment_index = None
    if embedder is not None:
        path, host, port = settings.data_dir / "chroma", settings.chroma.host, settings.chroma.port
        memory_index = ChromaDocIndex(prefix="lk_mem", path=path, host=host, port=port)
        moment_index = ChromaDocIndex(prefix="lk_scn", path=path, host=host, port=port)
    voice = VoiceService(
        db=db,
        settings=settings.voice,
        canon=proposals,
        scenes=scenes,
        turns=turns,
        llm=llm,
        memories=NpcMemoryStore(db, index=memory_index, embedder=embedder),
        moments=SceneMomentStore(db, index=moment_index, embedder=embedder),
        retriever=knowledge.retriever if knowledge is not None else None,
        knowledge=knowledge,
    )
    return voice


def build_knowledge(settings: Settings, db: Database, canon: CanonAccess | None = None) -> KnowledgeService:
    """Build the imported-knowledge service: Chroma and the offline embedder unless embedding is switched off.

    Neither loads anything here: the model loads on the first embedding, chromadb on the first vector call.
    """
    vectors: ChromaVectorIndex | None = None
    embedder: MiniLMEmbedder | None = None
    if settings.embedding.enabled:
        embedder = MiniLMEmbedder(batch_size=settings.embedding.batch_size)
        vectors = ChromaVectorIndex.from_settings(
            settings.data_dir, settings.chroma.host, settings.chroma.port, settings.embedding.batch_size
        )
    return KnowledgeService(
        db,
        data_dir=settings.data_dir,
        settings=settings.lore,
        vectors=vectors,
        embedder=embedder,
        ontology_for=canon.ontology_for if canon is not None else None,
    )
