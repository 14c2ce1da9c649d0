"""The token ledger in SQL: every LLM call's tokens, per campaign and purpose (`bot.llm.client.TokenLedger`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import Database
from memory.voice_tables import LLMUsageRow


class UsageLine(BaseModel):
    """Tokens a campaign spent on one purpose with one model."""

    model_config = ConfigDict(frozen=True)

    purpose: str
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Return prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


class SqlTokenLedger:
    """A `TokenLedger` writing one row per call; each record is its own short transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(
        self,
        campaign_id: int | None,
        purpose: str,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Record one call's usage."""

        async def work(session: AsyncSession) -> None:
            session.add(
                LLMUsageRow(
                    campaign_id=campaign_id,
                    purpose=purpose[:60],
                    model=model[:200],
                    prompt_tokens=max(0, prompt_tokens),
                    completion_tokens=max(0, completion_tokens),
                )
            )

        await self.db.run(work)

    async def usage(self, campaign_id: int | None) -> list[UsageLine]:
        """Return a campaign's usage per purpose and model, largest first."""
        condition = (
            LLMUsageRow.campaign_id.is_(None)
            if campaign_id is None
            else LLMUsageRow.campaign_id == campaign_id
        )
        query = (
            select(
                LLMUsageRow.purpose,
                LLMUsageRow.model,
                func.count(),
                func.coalesce(func.sum(LLMUsageRow.prompt_tokens), 0),
                func.coalesce(func.sum(LLMUsageRow.completion_tokens), 0),
            )
            .where(condition)
            .group_by(LLMUsageRow.purpose, LLMUsageRow.model)
        )
        async with self.db.session() as session:
            rows = (await session.execute(query)).all()
        lines = [
            UsageLine(purpose=p, model=m, calls=int(c), prompt_tokens=int(pt), completion_tokens=int(ct))
            for p, m, c, pt, ct in rows
        ]
        return sorted(lines, key=lambda line: (-line.total_tokens, line.purpose))
