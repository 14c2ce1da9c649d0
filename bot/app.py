"""The application's services, built once from settings and handed to the Discord client, the CLI and tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.llm.client import LLMClient
from bot.llm.openai_compatible import OpenAICompatibleLLM, build_llm
from bot.ops.installation import Installation
from bot.ops.ledger import SqlTokenLedger
from bot.ops.metrics import CommandLatencies
from bot.ops.operations import OperationsService
from bot.ops.scheduler import JobScheduler
from bot.services.branches import BranchService
from bot.services.calendars import CalendarService
from bot.services.campaigns import CampaignService
from bot.services.canon_access import CanonAccess
from bot.services.canon_admin import CanonAdmin
from bot.services.canon_queries import CanonQueries
from bot.services.canon_service import CanonService
from bot.services.characters import CharacterDesk
from bot.services.dialogue_import import DialogueImportService
from bot.services.directory import Directory
from bot.services.fact_picking import FactPicker
from bot.services.gm_notes import GmNoteDesk
from bot.services.knowledge import KnowledgeDesk
from bot.services.lore_answer import LoreAnswers
from bot.services.lore_service import LoreImportService
from bot.services.npc_memories import NpcMemoryDesk
from bot.services.pictures import PictureService
from bot.services.proposal_service import ProposalService
from bot.services.recaps import RecapService
from bot.services.review import ReviewService
from bot.services.structured_import import StructuredImportService
from bot.voice.service import VoiceService
from canon.storage import Database
from config.settings import Settings
from memory.chroma_client import Owner
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


@dataclass
class Services:
    """Every service of the application, built once by `build_services` (the composition root) and closed by
    `close`. Cogs reach them through `cogs.services.services_of`, CLI commands through `with_services`."""

    settings: Settings
    db: Database
    campaigns: CampaignService
    scenes: SceneService
    turns: TurnLog
    #: A campaign's ontology, canonization gate and canon readers (lineages cached): shared by every service.
    access: CanonAccess
    proposals: ProposalService
    reviews: ReviewService
    #: Commits: end and checkpoint scenes, commit a scene or a batch, add directly.
    canon: CanonService
    queries: CanonQueries
    admin: CanonAdmin
    knowledge: KnowledgeService
    #: None when no language model is configured (everything but narration works without one).
    llm: LLMClient | None
    ledger: SqlTokenLedger
    voice: VoiceService
    ops: OperationsService
    #: None in a process that does not run the scheduled jobs (`Settings.runs_scheduler`).
    scheduler: JobScheduler | None
    structured: StructuredImportService
    branches: BranchService
    recaps: RecapService
    directory: Directory
    notes: GmNoteDesk
    characters: CharacterDesk
    reveals: KnowledgeDesk
    npc_memories: NpcMemoryDesk
    dialogue: DialogueImportService
    answers: LoreAnswers
    imports: LoreImportService
    pictures: PictureService
    calendars: CalendarService
    facts: FactPicker
    #: This database's installation id (Chroma collections carry it).
    installation: Installation
    metrics: CommandLatencies = field(default_factory=CommandLatencies)
    _closing: asyncio.Future[None] | None = field(default=None, init=False, repr=False)

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
    # rebase forgets) for every canon service. The voice proposes; the commits call the voice when a scene ends
    # and once it is complete, so the voice comes first.
    access = CanonAccess()
    proposals = ProposalService(db, scenes, access=access)
    installation = Installation(db)
    knowledge = build_knowledge(settings, db, access, owner=installation.owner)
    ledger = SqlTokenLedger(db)
    llm = build_llm(settings.llm, ledger, token_counter=count_tokens)
    voice = build_voice(
        settings,
        db,
        proposals=proposals,
        scenes=scenes,
        turns=turns,
        llm=llm,
        knowledge=knowledge,
        owner=installation.owner,
    )
    canon_services = build_canon(
        db,
        scenes,
        access=access,
        proposals=proposals,
        before_review=voice.before_review,
        after_complete=voice.after_complete,
    )
    reviews, canon = canon_services.reviews, canon_services.canon
    structured = StructuredImportService(db, access.ontology_for)
    return Services(
        settings=settings,
        db=db,
        campaigns=CampaignService(db),
        scenes=scenes,
        turns=turns,
        access=access,
        proposals=proposals,
        reviews=reviews,
        canon=canon,
        queries=canon_services.queries,
        admin=canon_services.admin,
        knowledge=knowledge,
        llm=llm,
        ledger=ledger,
        voice=voice,
        ops=OperationsService(db, settings.ops),
        # Started by the bot (`Lorekeeper.setup_hook`), not here.
        scheduler=JobScheduler(settings, db) if settings.runs_scheduler else None,
        structured=structured,
        branches=BranchService(db, access, proposals, reviews, knowledge=knowledge, voice=voice),
        recaps=RecapService(db, reviews, voice),
        directory=Directory(db, access),
        notes=GmNoteDesk(GmNoteService(db), access, scenes),
        characters=CharacterDesk(db, access),
        reveals=KnowledgeDesk(db, access, canon_services.queries, scenes),
        npc_memories=NpcMemoryDesk(voice.memories, access),
        dialogue=DialogueImportService(scenes, turns, canon, access),
        answers=LoreAnswers(knowledge, llm),
        imports=LoreImportService(knowledge, structured, reviews, voice),
        pictures=PictureService(db, access),
        calendars=CalendarService(db, access),
        facts=FactPicker(db, access),
        installation=installation,
    )


@dataclass(frozen=True)
class CanonServices:
    """The canon use cases over one database, sharing one `CanonAccess`."""

    access: CanonAccess
    proposals: ProposalService
    reviews: ReviewService
    canon: CanonService
    queries: CanonQueries
    admin: CanonAdmin


def build_canon(
    db: Database,
    scenes: SceneService,
    *,
    access: CanonAccess | None = None,
    proposals: ProposalService | None = None,
    before_review: Callable[..., Awaitable[object]] | None = None,
    after_complete: Callable[[int], Awaitable[object]] | None = None,
) -> CanonServices:
    """Build the canon use cases (`build_services` does, and tests and benchmarks that need canon alone).

    `before_review` and `after_complete` are the voice's hooks on a scene's end and completion.
    """
    access = access or CanonAccess()
    reviews = ReviewService(db, scenes, access=access)
    canon = CanonService(
        db, scenes, reviews, access=access, before_review=before_review, after_complete=after_complete
    )
    return CanonServices(
        access=access,
        proposals=proposals or ProposalService(db, scenes, access=access),
        reviews=reviews,
        canon=canon,
        queries=CanonQueries(db, access=access),
        admin=CanonAdmin(db, access=access),
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
    owner: Callable[[], Awaitable[Owner]] | None = None,
) -> VoiceService:
    """Build the game-master's voice (its hooks go to `CanonService`: the scene's end and commit).

    NPC memories and scene summaries get Chroma collections of their own per campaign (`lk_<installation>_mem{id}`,
    `lk_<installation>_scn{id}`) beside the knowledge index, rebuilt from SQL on demand.
    """
    embedder = (
        MiniLMEmbedder(batch_size=settings.embedding.batch_size) if settings.embedding.enabled else None
    )
    memory_index = moment_index = None
    if embedder is not None:
        path, host, port = settings.data_dir / "chroma", settings.chroma.host, settings.chroma.port
        memory_index = ChromaDocIndex(prefix="lk_mem", path=path, host=host, port=port, owner=owner)
        moment_index = ChromaDocIndex(prefix="lk_scn", path=path, host=host, port=port, owner=owner)
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


def build_knowledge(
    settings: Settings,
    db: Database,
    canon: CanonAccess | None = None,
    *,
    owner: Callable[[], Awaitable[Owner]] | None = None,
) -> KnowledgeService:
    """Build the imported-knowledge service: Chroma and the offline embedder unless embedding is switched off.

    Neither loads anything here: the model loads on the first embedding, chromadb on the first vector call.
    """
    vectors: ChromaVectorIndex | None = None
    embedder: MiniLMEmbedder | None = None
    if settings.embedding.enabled:
        embedder = MiniLMEmbedder(batch_size=settings.embedding.batch_size)
        vectors = ChromaVectorIndex.from_settings(
            settings.data_dir,
            settings.chroma.host,
            settings.chroma.port,
            settings.embedding.batch_size,
            owner,
        )
    return KnowledgeService(
        db,
        data_dir=settings.data_dir,
        settings=settings.lore,
        vectors=vectors,
        embedder=embedder,
        ontology_for=canon.ontology_for if canon is not None else None,
    )
