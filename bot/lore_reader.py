"""What a one-question process builds (`lorekeeper lore QUESTION`): the campaigns and the lore answers, nothing else.

Building every service (`bot.app.build_services`) imports the whole application before the first answer: the
scheduler, the voice, Alembic, the importers of imported knowledge. A question reads through the database, the
campaigns, the knowledge's answerer (its vector index and model load on first use) and the language model when
one is configured. This module is the composition root's part for that process, and it imports only what it
builds; `bot.app` builds the semantic half of knowledge and the model client with the same two functions
(`semantic_search`, `configured_llm`), so the two roots never differ in how.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.ops.installation import Installation
from bot.schema.current import schema_current
from bot.services.campaigns import CampaignService
from bot.services.canon_access import CanonAccess
from bot.services.lore_answer import LoreAnswers
from canon.storage import Database
from config.settings import Settings
from memory.embedding import MiniLMEmbedder
from memory.knowledge.ask import Answerer
from memory.knowledge.retrieval import Retriever
from memory.vector_index import ChromaVectorIndex

if TYPE_CHECKING:
    from bot.llm.client import LLMClient, TokenLedger
    from memory.chroma_client import Owner

#: The note in the data folder keeping the embedding model's version for one-question processes
#: (`MiniLMEmbedder`'s `version_note`).
MODEL_VERSION_NOTE = "embedding-model.json"


def semantic_search(
    settings: Settings,
    owner: Callable[[], Awaitable[Owner]] | None = None,
    *,
    one_shot: bool = False,
) -> tuple[ChromaVectorIndex | None, MiniLMEmbedder | None]:
    """Return the vector index and the offline embedder of imported knowledge, or neither when embedding is
    switched off.

    Neither loads anything here: the model loads on the first embedding, the index on the first vector call.
    `one_shot`: the process answers a question and ends (the model's session starts quick, unoptimised, and its
    version is read from a note in the data folder rather than hashed; an embedded vector index is read without
    importing chromadb).
    """
    if not settings.embedding.enabled:
        return None, None
    embedder = MiniLMEmbedder(
        batch_size=settings.embedding.batch_size,
        quick_start=one_shot,
        version_note=settings.data_dir / MODEL_VERSION_NOTE if one_shot else None,
    )
    vectors = ChromaVectorIndex.from_settings(
        settings.data_dir,
        settings.chroma.host,
        settings.chroma.port,
        settings.embedding.batch_size,
        owner,
        direct=one_shot,
    )
    return vectors, embedder


def configured_llm(settings: Settings, ledger: TokenLedger) -> LLMClient | None:
    """Return the configured language model's client, or None: its library, a while to import, only then."""
    if not settings.llm.configured:
        return None
    from bot.llm.openai_compatible import build_llm
    from memory.tokens import count_tokens

    return build_llm(settings.llm, ledger, token_counter=count_tokens)


@dataclass
class LoreReader:
    """The services a lore question uses, under the names `Services` gives them (`open_lore_reader`)."""

    db: Database
    campaigns: CampaignService
    llm: LLMClient | None
    answers: LoreAnswers

    async def close(self) -> None:
        """Close the model client and the database."""
        close = getattr(self.llm, "aclose", None)
        if close is not None:
            await close()
        await self.db.dispose()


async def open_lore_reader(settings: Settings, *, one_shot: bool = False) -> LoreReader | None:
    """Return only what `lorekeeper lore QUESTION` uses, or None when the database needs migrating first.

    Whether the database is at the newest migration is read without Alembic (`bot.schema.current`); when it is
    not, the caller builds every service instead, which migrates it. `one_shot`: one question is asked (see
    `semantic_search`).
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database.from_url(settings.resolved_database_url)
    if not await schema_current(db):
        await db.dispose()
        return None
    vectors, embedder = semantic_search(settings, Installation(db).owner, one_shot=one_shot)
    retriever = Retriever(db, vectors=vectors, embedder=embedder, ontology_for=CanonAccess().ontology_for)
    llm: LLMClient | None = None
    if settings.llm.configured:
        from bot.ops.ledger import SqlTokenLedger

        llm = configured_llm(settings, SqlTokenLedger(db))
    return LoreReader(db, CampaignService(db), llm, LoreAnswers(Answerer(db, retriever), llm))
