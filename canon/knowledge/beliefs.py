"""What characters believe: the SQL of beliefs, kept apart from canon (continuity never reads this table).

A belief is held, confirmed (the GM made it canon) or exposed (the character learned it is false). Its text is
"attribute: value" about one entity, as the GM gave it; the words shown to a player are the service's.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.knowledge.tables import BeliefRow
from canon.storage import utc_now


class BeliefStatus(enum.StrEnum):
    """Where a belief stands."""

    HELD = "held"
    CONFIRMED = "confirmed"
    EXPOSED = "exposed"


class Belief(BaseModel):
    """One belief as the services read it."""

    model_config = ConfigDict(frozen=True)

    id: int
    character_id: int
    about_id: int | None
    text: str
    source: str
    scene_id: int | None
    status: BeliefStatus
    recorded_by: str
    recorded_at: dt.datetime

    @property
    def attribute(self) -> str:
        """Return the attribute the belief is about (its text before the first colon)."""
        return self.text.partition(": ")[0]

    @property
    def value(self) -> str:
        """Return the value the character believes (its text after the first colon)."""
        return self.text.partition(": ")[2]


def belief_of(row: BeliefRow) -> Belief:
    """Return the domain view of a belief row."""
    return Belief.model_validate(row, from_attributes=True)


async def add_belief(
    session: AsyncSession,
    campaign_id: int,
    character_id: int,
    about_id: int,
    text: str,
    *,
    source: str,
    scene_id: int | None,
    recorded_by: str,
) -> Belief:
    """Write a held belief; return it."""
    row = BeliefRow(
        campaign_id=campaign_id,
        character_id=character_id,
        about_id=about_id,
        text=text,
        source=source,
        scene_id=scene_id,
        status=BeliefStatus.HELD.value,
        recorded_by=recorded_by[:100],
        recorded_at=utc_now(),
    )
    session.add(row)
    await session.flush()
    return belief_of(row)


async def beliefs(
    session: AsyncSession, campaign_id: int, *, character_ids: Sequence[int] | None = None
) -> list[Belief]:
    """Return a campaign's beliefs (of these characters, if given), oldest first."""
    query = select(BeliefRow).where(BeliefRow.campaign_id == campaign_id)
    if character_ids is not None:
        query = query.where(BeliefRow.character_id.in_(list(character_ids)))
    return [belief_of(r) for r in (await session.execute(query.order_by(BeliefRow.id))).scalars()]


async def belief(session: AsyncSession, campaign_id: int, belief_id: int) -> Belief | None:
    """Return one belief of a campaign, or None."""
    row = await session.get(BeliefRow, belief_id, populate_existing=True)
    return belief_of(row) if row is not None and row.campaign_id == campaign_id else None


async def decide(session: AsyncSession, campaign_id: int, belief_id: int, status: BeliefStatus) -> bool:
    """Move a held belief to `status` (or a confirmed one back to held); return False when it was not in the
    state it must leave. One UPDATE: of two GMs deciding at once, exactly one succeeds."""
    leaving = BeliefStatus.CONFIRMED if status == BeliefStatus.HELD else BeliefStatus.HELD
    result = await session.execute(
        update(BeliefRow)
        .where(
            BeliefRow.id == belief_id, BeliefRow.campaign_id == campaign_id, BeliefRow.status == leaving.value
        )
        .values(status=status.value, decided_at=utc_now() if status != BeliefStatus.HELD else None)
    )
    return bool(getattr(result, "rowcount", 0))
