"""Where review cards were posted: a commit brings every card of its scene to the final state, and
`/canon review` finds an import batch's card again in the channel it was shown in.

Channel and message ids are Discord's bookkeeping, not story: they live with the bot's own tables, outside
the canon graph (the table is the one the first migrations made).
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict
from sqlalchemy import BigInteger, ForeignKey, String, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class ReviewCardRow(Base):
    """Where a review card was posted, so it can be edited as decisions come in."""

    __tablename__ = "review_cards"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    scene_id: Mapped[int | None] = mapped_column(BigInteger)
    batch: Mapped[str | None] = mapped_column(String(60))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class ReviewCard(BaseModel):
    """A posted review card: its channel and message."""

    model_config = ConfigDict(frozen=True)

    scene_id: int | None
    batch: str | None
    channel_id: int
    message_id: int
    campaign_id: int | None = None


async def record_card(
    session: AsyncSession,
    *,
    campaign_id: int,
    scene_id: int | None,
    batch: str | None,
    channel_id: int,
    message_id: int,
) -> None:
    """Remember a posted card (once per message)."""
    known = await session.scalar(select(ReviewCardRow.id).where(ReviewCardRow.message_id == message_id))
    if known is None:
        session.add(
            ReviewCardRow(
                campaign_id=campaign_id,
                scene_id=scene_id,
                batch=batch,
                channel_id=channel_id,
                message_id=message_id,
            )
        )
        await session.flush()


async def cards_of_scene(session: AsyncSession, scene_id: int) -> list[ReviewCard]:
    """Return the cards posted for a scene, oldest first."""
    query = select(ReviewCardRow).where(ReviewCardRow.scene_id == scene_id).order_by(ReviewCardRow.id)
    return [
        ReviewCard(scene_id=r.scene_id, batch=r.batch, channel_id=r.channel_id, message_id=r.message_id)
        for r in (await session.execute(query)).scalars()
    ]


async def batch_cards_in_channel(session: AsyncSession, channel_id: int, limit: int = 50) -> list[ReviewCard]:
    """Return the cards of import batches (no scene) shown in a channel, newest first (at most `limit`)."""
    query = (
        select(ReviewCardRow)
        .where(
            ReviewCardRow.channel_id == channel_id,
            ReviewCardRow.scene_id.is_(None),
            ReviewCardRow.batch.is_not(None),
        )
        .order_by(ReviewCardRow.id.desc())
        .limit(limit)
    )
    return [
        ReviewCard(
            scene_id=None,
            batch=r.batch,
            channel_id=r.channel_id,
            message_id=r.message_id,
            campaign_id=r.campaign_id,
        )
        for r in (await session.execute(query)).scalars()
    ]
