"""Narration records: the exact context and prompt behind each narration, kept for the GM's Context view."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from memory.context import AssembledContext
from memory.voice_tables import NarrationRow

__all__ = [
    "NarrationRecord",
    "NarrationStatus",
    "PromptMessage",
    "create_narration",
    "get_narration",
    "update_narration",
]


class PromptMessage(BaseModel):
    """One message of the prompt a narration was written from, as it was sent: who speaks, and what."""

    model_config = ConfigDict(frozen=True)

    role: str
    content: str


class NarrationStatus(enum.StrEnum):
    """Where a narration stands."""

    DRAFTED = "drafted"
    POSTED = "posted"
    BLOCKED = "blocked"
    FAILED = "failed"


class NarrationRecord(BaseModel):
    """A stored narration."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    scene_id: int
    channel_id: int
    trigger: str
    requested_by_name: str | None
    status: NarrationStatus
    #: The context chosen for it (kept and dropped items per section), stored as JSON and read back typed.
    context: AssembledContext
    prompt: tuple[PromptMessage, ...]
    output: str | None
    blocked_reason: str | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    message_id: int | None
    turn_number: int | None
    created_at: dt.datetime


def _record(row: NarrationRow) -> NarrationRecord:
    return NarrationRecord(
        id=row.id,
        campaign_id=row.campaign_id,
        scene_id=row.scene_id,
        channel_id=row.channel_id,
        trigger=row.trigger,
        requested_by_name=row.requested_by_name,
        status=NarrationStatus(row.status),
        context=AssembledContext.model_validate(row.context),
        prompt=tuple(PromptMessage.model_validate(m) for m in row.prompt or ()),
        output=row.output,
        blocked_reason=row.blocked_reason,
        model=row.model,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        message_id=row.message_id,
        turn_number=row.turn_number,
        created_at=row.created_at,
    )


async def create_narration(
    session: AsyncSession,
    *,
    campaign_id: int,
    scene_id: int,
    channel_id: int,
    trigger: str,
    requested_by_id: int | None,
    requested_by_name: str | None,
    status: NarrationStatus,
    context: AssembledContext,
    prompt: Sequence[PromptMessage],
    output: str | None,
    blocked_reason: str | None,
    model: str | None,
    prompt_tokens: int,
    completion_tokens: int,
) -> NarrationRecord:
    """Store a narration (before it is posted, so the Context button can name it)."""
    row = NarrationRow(
        campaign_id=campaign_id,
        scene_id=scene_id,
        channel_id=channel_id,
        trigger=trigger,
        requested_by_id=requested_by_id,
        requested_by_name=requested_by_name,
        status=status.value,
        context=context.model_dump(mode="json"),
        prompt=[m.model_dump(mode="json") for m in prompt],
        output=output,
        blocked_reason=blocked_reason,
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )
    session.add(row)
    await session.flush()
    return _record(row)


async def update_narration(
    session: AsyncSession,
    narration_id: int,
    *,
    status: NarrationStatus,
    message_id: int | None = None,
    turn_number: int | None = None,
    blocked_reason: str | None = None,
) -> None:
    """Record where a narration was posted (or why it was not)."""
    values: dict[str, Any] = {"status": status.value}
    if message_id is not None:
        values["message_id"] = message_id
    if turn_number is not None:
        values["turn_number"] = turn_number
    if blocked_reason is not None:
        values["blocked_reason"] = blocked_reason
    await session.execute(update(NarrationRow).where(NarrationRow.id == narration_id).values(**values))


async def get_narration(session: AsyncSession, narration_id: int) -> NarrationRecord:
    """Return a narration or raise `NotFound`."""
    row = await session.get(NarrationRow, narration_id)
    if row is None:
        raise NotFound(f"There is no narration #{narration_id}.")
    return _record(row)
