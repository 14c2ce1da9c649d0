"""Canon sources that disagree, as the GM handles them: found, listed with both places, one side picked, an order set.

What counts as a disagreement, and who prevails, is `memory.knowledge.disagreements`. This reads the Canon sources
a campaign sees (enabled ones; a branch's inherited ones too) and keeps the GM's choices in the campaign's
settings, so they go with an exported campaign and a branch starts with its parent's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import get_campaign, update_campaign_settings
from canon.errors import InvalidInput, NotFound
from canon.storage import Database
from memory.knowledge.disagreements import (
    SETTINGS_DECISIONS,
    SETTINGS_ORDER,
    Disagreement,
    Policy,
    Statement,
    disagreements_of,
    statements_of,
)
from memory.knowledge.models import KnowledgeClass, LoreResult
from memory.knowledge.repository import campaign_sources, source_chunks
from memory.knowledge.retrieval import Retriever
from memory.knowledge.source_models import SourceInfo

__all__ = ["Judged", "SourceDisagreements"]


class Judged(BaseModel):
    """A disagreement and the side that prevails (None: open, the GM has not chosen)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    disagreement: Disagreement
    prevailing: Statement | None

    @property
    def open(self) -> bool:
        """Return whether the GM has still to choose."""
        return self.prevailing is None


async def _passages(session: AsyncSession, source: SourceInfo) -> list[LoreResult]:
    return [
        LoreResult(
            chunk_id=c.id,
            source_id=source.id,
            source_title=source.title,
            filename=source.filename,
            knowledge_class=source.knowledge_class,
            heading_path=c.heading_path,
            text=c.text,
            token_count=c.token_count,
            score=0.0,
            reasons=[],
            place=c.place,
        )
        for c in await source_chunks(session, source.id)
    ]


class SourceDisagreements:
    """Finds where a campaign's Canon sources disagree and keeps the GM's choices of which prevails."""

    def __init__(self, db: Database, retriever: Retriever) -> None:
        self.db = db
        self.retriever = retriever

    async def find(self, campaign_id: int, *, source_id: int | None = None) -> list[Judged]:
        """Return the disagreements among the campaign's enabled Canon sources (those of one source, if given)."""
        async with self.db.session() as session:
            campaign = await get_campaign(session, campaign_id)
            sources = [
                s
                for s in await campaign_sources(session, campaign_id)
                if s.enabled and s.knowledge_class == KnowledgeClass.CANON
            ]
            passages = [p for s in sources for p in await _passages(session, s)]
        policy = Policy.of(campaign.settings)
        found = disagreements_of(statements_of(passages))
        if source_id is not None:
            found = [d for d in found if any(s.source_id == source_id for s in d.sides)]
        return [Judged(disagreement=d, prevailing=policy.prevailing(d)) for d in found]

    async def decide(self, campaign_id: int, key: str, filename: str, gm: str) -> Judged:
        """Keep the GM's pick of the source that prevails in one disagreement."""
        found = next((j for j in await self.find(campaign_id) if j.disagreement.key == key), None)
        if found is None:
            raise NotFound(
                "Those sources no longer disagree there (a file changed or went): nothing to choose."
            )
        side = next((s for s in found.disagreement.sides if s.filename == filename), None)
        if side is None:
            raise InvalidInput("That file is not one of the two that disagree here.")

        async def work(session: AsyncSession) -> None:
            campaign = await get_campaign(session, campaign_id)
            decisions = dict(campaign.settings.get(SETTINGS_DECISIONS) or {})
            decisions[key] = {"prevails": filename, "by": gm}
            await update_campaign_settings(session, campaign_id, {SETTINGS_DECISIONS: decisions})

        await self.db.run(work)
        self.retriever.forget_campaign(campaign_id)
        return Judged(disagreement=found.disagreement, prevailing=side)

    async def set_order(self, campaign_id: int, named: Sequence[str]) -> list[SourceInfo]:
        """Set the campaign's source order (Canon sources by title or file name, highest first; none clears it)."""
        async with self.db.session() as session:
            sources = [
                s
                for s in await campaign_sources(session, campaign_id)
                if s.knowledge_class == KnowledgeClass.CANON
            ]
        chosen: list[SourceInfo] = []
        for name in named:
            wanted = " ".join(name.split()).casefold()
            match = [s for s in sources if wanted in (s.title.casefold(), s.filename.casefold())]
            if not match:
                raise InvalidInput(
                    f"No Canon source is called “{name.strip()[:80]}”: `/lore sources` lists them by title and file."
                )
            if match[0] in chosen:
                raise InvalidInput(
                    f"“{match[0].title}” is named twice: name each source once, highest first."
                )
            chosen.append(match[0])

        async def work(session: AsyncSession) -> None:
            await update_campaign_settings(
                session, campaign_id, {SETTINGS_ORDER: [s.filename for s in chosen]}
            )

        await self.db.run(work)
        self.retriever.forget_campaign(campaign_id)
        return chosen

    async def order(self, campaign_id: int) -> list[str]:
        """Return the campaign's source order (file names, highest first)."""
        async with self.db.session() as session:
            campaign = await get_campaign(session, campaign_id)
        return list(Policy.of(campaign.settings).order)
