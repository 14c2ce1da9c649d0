"""The campaign journal: each completed scene's recap, kept for "previously on…" and exported with the campaign.

A recap is narrative, written once a scene is complete, from what players may read: the scene's summary, the
facts it committed that are not GM-only, who was there, and the turns those facts cite. Rows never leave this
module; the rest of the program sees `Recap`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import JSON, ForeignKey, Integer, String, Text, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, UTCDateTime, utc_now


class JournalEntryRow(Base):
    """A completed scene's recap in the campaign journal (one per scene)."""

    __tablename__ = "journal_entries"

    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    story_order: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    summary: Mapped[str | None] = mapped_column(Text)
    method: Mapped[str] = mapped_column(String(20))
    facts: Mapped[list[str]] = mapped_column(JSON, default=list)
    present: Mapped[list[str]] = mapped_column(JSON, default=list)
    cited: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class CitedTurn(BaseModel):
    """A turn a committed fact cites: its number, who said it, and its words (cut)."""

    model_config = ConfigDict(frozen=True)

    number: int
    author: str
    text: str


class RetconnedFact(BaseModel):
    """A fact a recap tells that a retcon has since taken out of canon, with what canon says now (if anything
    the reader may see replaced it). Read at display time, never stored: the journal keeps what was committed."""

    model_config = ConfigDict(frozen=True)

    fact: str
    now: str | None = None


class Recap(BaseModel):
    """A scene's recap: `summary` is the language model's when `method` is "llm", else empty (extractive).

    `retconned` is filled when the recap is read (`bot.services.recap_canon`): the facts among `facts` that no
    longer hold."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    campaign_id: int
    story_order: int
    title: str
    summary: str | None
    method: str
    facts: tuple[str, ...] = ()
    present: tuple[str, ...] = ()
    cited: tuple[CitedTurn, ...] = ()
    retconned: tuple[RetconnedFact, ...] = ()

    def standing(self) -> tuple[str, ...]:
        """Return the facts the scene committed that canon still holds."""
        gone = {r.fact for r in self.retconned}
        return tuple(f for f in self.facts if f not in gone)


def _recap(row: JournalEntryRow) -> Recap:
    return Recap(
        scene_id=row.scene_id,
        campaign_id=row.campaign_id,
        story_order=row.story_order,
        title=row.title,
        summary=row.summary,
        method=row.method,
        facts=tuple(row.facts or ()),
        present=tuple(row.present or ()),
        cited=tuple(CitedTurn.model_validate(c) for c in row.cited or ()),
    )


async def recap_of(session: AsyncSession, scene_id: int) -> Recap | None:
    """Return a scene's recap, or None when it has none yet."""
    row = await session.get(JournalEntryRow, scene_id)
    return _recap(row) if row is not None else None


async def save_recap(session: AsyncSession, recap: Recap) -> Recap:
    """Keep a scene's recap (a recap already kept wins: a scene is recapped once)."""
    existing = await session.get(JournalEntryRow, recap.scene_id)
    if existing is not None:
        return _recap(existing)
    session.add(
        JournalEntryRow(
            scene_id=recap.scene_id,
            campaign_id=recap.campaign_id,
            story_order=recap.story_order,
            title=recap.title,
            summary=recap.summary,
            method=recap.method,
            facts=list(recap.facts),
            present=list(recap.present),
            cited=[c.model_dump() for c in recap.cited],
        )
    )
    await session.flush()
    return recap


async def latest_recaps(session: AsyncSession, campaign_id: int, count: int) -> list[Recap]:
    """Return the campaign's last `count` recaps in story order (oldest of them first)."""
    query = (
        select(JournalEntryRow)
        .where(JournalEntryRow.campaign_id == campaign_id)
        .order_by(JournalEntryRow.story_order.desc(), JournalEntryRow.scene_id.desc())
        .limit(count)
    )
    rows = list((await session.execute(query)).scalars())
    return [_recap(r) for r in reversed(rows)]
