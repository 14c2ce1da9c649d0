"""The application's services, built once from settings and handed to the Discord client, the CLI and tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.llm.client import LLMClient
from bot.lore_reader import configured_llm, semantic_search
from bot.ops.installation import Installation
from bot.ops.metrics import CommandLatencies
from bot.services.campaigns import CampaignService
from bot.services.canon_access import CanonAccess
from bot.services.lore_answer import LoreAnswers
from canon.storage import Database
from config.settings import Settings
from memory.embedding import MiniLMEmbedder
from memory.knowledge.service import KnowledgeService
from memory.vault import Vault
from memory.vault_setup import vault_from_settings

if TYPE_CHECKING:
    from bot.ops.ledger import SqlTokenLedger
    from bot.ops.operations import OperationsService
    from bot.ops.scheduler import JobScheduler
    from bot.services.beliefs import BeliefDesk
    from bot.services.branches import BranchService
    from bot.services.calendars import CalendarService
    from bot.services.canon_admin import CanonAdmin
    from bot.services.canon_queries import CanonQueries
    from bot.services.canon_service import CanonService
    from bot.services.characters import CharacterDesk
    from bot.services.dialogue_import import DialogueImportService
    from bot.services.directory import Directory
    from bot.services.fact_picking import FactPicker
    from bot.services.glossary import GlossaryDesk
    from bot.services.gm_notes import GmNoteDesk
    from bot.services.knowledge import KnowledgeDesk
    from bot.services.lore_service import LoreImportService
    from bot.services.npc_memories import NpcMemoryDesk
    from bot.services.pictures import PictureService
    from bot.services.present_marks import PresentMarks
    from bot.services.proposal_service import ProposalService
    from bot.services.recaps import RecapService
    from bot.services.review import ReviewService
    from bot.services.structured_import import StructuredImportService
    from bot.voice.service import VoiceService
    from bot.wiki.deps import WikiDeps
    from memory.chroma_client import Owner
    from memory.scene_service import SceneService
    from memory.turn_log import TurnLog

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
    marks: PresentMarks
    beliefs: BeliefDesk
    #: The campaign's glossary of the table's words, which `/lore` reads questions through.
    glossary: GlossaryDesk
    npc_memories: NpcMemoryDesk
    dialogue: DialogueImportService
    answers: LoreAnswers
    imports: LoreImportService
    pictures: PictureService
    calendars: CalendarService
    facts: FactPicker
    #: This database's installation id (Chroma collections carry it).
    installation: Installation
    #: The campaign wiki's links and what its pages read through (`bot.wiki`).
    wiki: WikiDeps
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
        await self.knowledge.view_builder.stop()  # resumed from its last batch at the next start
        await self.voice.close()
        await self.turns.close()
        close = getattr(self.llm, "aclose", None)
        if close is not None:
            await close()
        await self.db.dispose()


async def build_services(settings: Settings, *, db: Database | None = None, migrate: bool = True) -> Services:
    """Open the database (creating the data directory and applying migrations) and build the services."""
    # Imported here, not at the top: `lorekeeper lore` builds only what a question needs (`bot.lore_reader`).
    from bot.ops.ledger import SqlTokenLedger
    from bot.ops.operations import OperationsService
    from bot.ops.scheduler import JobScheduler
    from bot.schema import database
    from bot.services.lore_service import LoreImportService
    from bot.services.proposal_service import ProposalService
    from bot.services.structured_import import StructuredImportService
    from memory.scene_service import SceneService
    from memory.turn_log import TurnLog

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
    llm = configured_llm(settings, ledger)
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
    built = build_canon(
        db,
        scenes,
        access=access,
        proposals=proposals,
        before_review=voice.before_review,
        after_complete=voice.after_complete,
    )
    structured = StructuredImportService(db, access.ontology_for)
    desks = _desks(db, built, scenes, turns, voice, knowledge)
    answers = LoreAnswers(knowledge.answers, llm)
    return Services(
        settings=settings,
        db=db,
        campaigns=CampaignService(db),
        scenes=scenes,
        turns=turns,
        access=access,
        proposals=proposals,
        reviews=built.reviews,
        canon=built.canon,
        queries=built.queries,
        admin=built.admin,
        knowledge=knowledge,
        llm=llm,
        ledger=ledger,
        voice=voice,
        ops=OperationsService(db, settings.ops),
        # Started by the bot (`Lorekeeper.setup_hook`), not here.
        scheduler=JobScheduler(settings, db) if settings.runs_scheduler else None,
        structured=structured,
        answers=answers,
        imports=LoreImportService(knowledge, structured, built.reviews, voice, calendars=desks["calendars"]),
        installation=installation,
        wiki=build_wiki(settings, db, built, desks, answers, knowledge),
        **desks,
    )


def build_wiki(
    settings: Settings,
    db: Database,
    canon: CanonServices,
    desks: dict[str, Any],
    answers: LoreAnswers,
    knowledge: KnowledgeService,
) -> WikiDeps:
    """Build what the campaign wiki reads through, and its links (for `build_services`)."""
    from bot.wiki.deps import WikiDeps
    from bot.wiki.tokens import WikiLinks

    return WikiDeps(
        settings=settings.wiki,
        db=db,
        access=canon.access,
        links=WikiLinks(db, settings.wiki),
        answers=answers,
        queries=canon.queries,
        notes=desks["notes"],
        knowledge=knowledge,
        pictures=desks["pictures"],
    )


def _desks(
    db: Database,
    canon: CanonServices,
    scenes: SceneService,
    turns: TurnLog,
    voice: VoiceService,
    knowledge: KnowledgeService,
) -> dict[str, Any]:
    """Build the services over canon (for `build_services`)."""
    from bot.services.beliefs import BeliefDesk
    from bot.services.branches import BranchService
    from bot.services.calendars import CalendarService
    from bot.services.characters import CharacterDesk
    from bot.services.dialogue_import import DialogueImportService
    from bot.services.directory import Directory
    from bot.services.fact_picking import FactPicker
    from bot.services.glossary import GlossaryDesk
    from bot.services.gm_notes import GmNoteDesk
    from bot.services.knowledge import KnowledgeDesk
    from bot.services.npc_memories import NpcMemoryDesk
    from bot.services.pictures import PictureService
    from bot.services.present_marks import PresentMarks
    from bot.services.recaps import RecapService
    from memory.notes import GmNoteService

    access = canon.access
    characters = CharacterDesk(db, access)
    reveals = KnowledgeDesk(db, access, canon.queries, scenes)
    voice.hear_through(reveals)
    beliefs = BeliefDesk(db, access, canon.canon, scenes)
    return {
        "branches": BranchService(
            db, access, canon.proposals, canon.reviews, knowledge=knowledge, voice=voice
        ),
        "recaps": RecapService(
            db, canon.reviews, voice, characters=characters, knowledge=reveals, beliefs=beliefs
        ),
        "directory": Directory(db, access),
        "notes": GmNoteDesk(GmNoteService(db), access, scenes),
        "characters": characters,
        "reveals": reveals,
        "marks": PresentMarks(db, access),
        "beliefs": beliefs,
        "glossary": GlossaryDesk(db, access),
        "npc_memories": NpcMemoryDesk(voice.memories, access),
        "dialogue": DialogueImportService(scenes, turns, canon.canon, access),
        "pictures": PictureService(db, access),
        "calendars": CalendarService(db, access),
        "facts": FactPicker(db, access),
    }


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
    from bot.services.canon_admin import CanonAdmin
    from bot.services.canon_queries import CanonQueries
    from bot.services.canon_service import CanonService
    from bot.services.proposal_service import ProposalService
    from bot.services.review import ReviewService

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
    from bot.voice.service import VoiceService
    from memory.digests import SceneMomentStore
    from memory.doc_index import ChromaDocIndex
    from memory.npc_memory import NpcMemoryStore

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
    """Build the imported-knowledge service: Chroma and the offline embedder unless embedding is switched off
    (`bot.lore_reader.semantic_search`, which loads neither here)."""
    vectors, embedder = semantic_search(settings, owner)
    return KnowledgeService(
        db,
        data_dir=settings.data_dir,
        settings=settings.lore,
        vectors=vectors,
        embedder=embedder,
        ontology_for=canon.ontology_for if canon is not None else None,
        vault=build_vault(settings),
    )


def build_vault(settings: Settings) -> Vault:
    """Return where the originals of imported files are kept: an S3-compatible store when one is configured,
    else a folder of the data directory (`vault.folder`, default `data_dir/sources`)."""
    return vault_from_settings(settings.vault, settings.data_dir)
