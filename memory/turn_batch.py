"""One batch of the turn log's operations applied in one transaction: appends, edits and deletes of turns.

`memory.turn_log.TurnLog` queues the operations and commits them in batches; this module is what a batch does
to the tables: it reads each channel's active scene and next turn number once, numbers the new turns, inserts
them together, keeps an edit's old text as a revision and a deleted message as a tombstone. A message id logged
before is answered with its stored turn (`duplicate`), so that a message read twice is stored once.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from memory.scene_tables import SceneRow, TurnRevisionRow, TurnRow
from memory.scenes import AttachmentInfo, EmbedInfo, SceneStatus, SpeakerKind

#: New turns are inserted through the table, not the ORM's bulk path: a quarter less CPU per turn.
TURNS = TurnRow.metadata.tables[TurnRow.__tablename__]


class IncomingMessage(BaseModel):
    """A chat message to log, already stripped of anything Discord-specific."""

    model_config = ConfigDict(frozen=True)

    message_id: int | None
    channel_id: int
    author_id: int | None
    author_name: str
    speaker: SpeakerKind
    text: str
    attachments: list[AttachmentInfo] = Field(default_factory=list)
    embeds: list[EmbedInfo] = Field(default_factory=list)
    created_at: dt.datetime


class LoggedTurn(BaseModel):
    """Where a message was stored; `duplicate` when the message id was logged before."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    campaign_id: int
    number: int
    duplicate: bool = False


@dataclass(eq=False)
class Append:
    """Store a message as the next turn of its channel's active scene."""

    message: IncomingMessage
    future: asyncio.Future[LoggedTurn | None]


@dataclass(eq=False)
class Edit:
    """Replace a logged message's text, keeping the old one as a revision."""

    message_id: int
    text: str
    edited_at: dt.datetime
    future: asyncio.Future[bool]


@dataclass(eq=False)
class Delete:
    """Mark a logged message deleted (a tombstone: the turn stays)."""

    message_id: int
    deleted_at: dt.datetime
    future: asyncio.Future[bool]


#: An operation waiting for the writer; its future is resolved once its batch is committed.
Op = Append | Edit | Delete


@dataclass
class _Batch:
    """The state one transaction needs: the open scenes and the next turn number of each."""

    scenes: dict[int, tuple[int, int]] = field(default_factory=dict)  # channel -> (scene id, campaign id)
    next_number: dict[int, int] = field(default_factory=dict)  # scene id -> next turn number
    seen_ids: dict[int, LoggedTurn] = field(default_factory=dict)  # message id -> stored turn


async def apply_batch(session: AsyncSession, ops: list[Op]) -> list[LoggedTurn | bool | None]:
    """Apply the operations in order within one transaction; return each one's result (the turn, or whether
    the edit or delete found its turn)."""
    batch = await _prepare(session, ops)
    results: list[LoggedTurn | bool | None] = []
    new_rows: list[dict[str, Any]] = []
    for op in ops:
        if isinstance(op, Append):
            results.append(_plan_append(batch, op.message, new_rows))
        else:
            if new_rows:  # an edit or delete may target a message appended earlier in this batch
                await session.execute(insert(TURNS), new_rows)
                new_rows = []
            if isinstance(op, Edit):
                results.append(await _apply_edit(session, op))
            else:
                results.append(await _apply_delete(session, op))
    if new_rows:
        await session.execute(insert(TURNS), new_rows)
    return results


async def _prepare(session: AsyncSession, ops: list[Op]) -> _Batch:
    batch = _Batch()
    appends = [op.message for op in ops if isinstance(op, Append)]
    if not appends:
        return batch
    channels = {m.channel_id for m in appends}
    scene_rows = await session.execute(
        select(SceneRow.channel_id, SceneRow.id, SceneRow.campaign_id).where(
            SceneRow.channel_id.in_(channels), SceneRow.status == SceneStatus.ACTIVE
        )
    )
    batch.scenes = {channel: (scene, campaign) for channel, scene, campaign in scene_rows.all()}
    scene_ids = [scene for scene, _ in batch.scenes.values()]
    if scene_ids:
        maxima = await session.execute(
            select(TurnRow.scene_id, func.max(TurnRow.number))
            .where(TurnRow.scene_id.in_(scene_ids))
            .group_by(TurnRow.scene_id)
        )
        batch.next_number = {scene: 1 for scene in scene_ids}
        batch.next_number.update({scene: (top or 0) + 1 for scene, top in maxima.all()})
    message_ids = [m.message_id for m in appends if m.message_id is not None]
    if message_ids:
        known = await session.execute(
            select(TurnRow.discord_message_id, TurnRow.scene_id, TurnRow.campaign_id, TurnRow.number).where(
                TurnRow.discord_message_id.in_(message_ids)
            )
        )
        for message_id, scene, campaign, number in known.all():
            if message_id is None:  # never: the query matched message ids; this narrows the type
                continue
            batch.seen_ids[message_id] = LoggedTurn(
                scene_id=scene, campaign_id=campaign, number=number, duplicate=True
            )
    return batch


def _plan_append(batch: _Batch, message: IncomingMessage, rows: list[dict[str, Any]]) -> LoggedTurn | None:
    if message.message_id is not None and message.message_id in batch.seen_ids:
        return batch.seen_ids[message.message_id].model_copy(update={"duplicate": True})
    target = batch.scenes.get(message.channel_id)
    if target is None:
        return None
    scene_id, campaign_id = target
    number = batch.next_number[scene_id]
    batch.next_number[scene_id] = number + 1
    rows.append(
        {
            "scene_id": scene_id,
            "campaign_id": campaign_id,
            "number": number,
            "discord_message_id": message.message_id,
            "author_id": message.author_id,
            "author_name": message.author_name[:100],
            "speaker": message.speaker.value,
            "text": message.text,
            # Stored as JSON: an attachment with each of its keys, an embed with the ones it has.
            "attachments": [a.model_dump() for a in message.attachments],
            "embeds": [e.model_dump(exclude_none=True) for e in message.embeds],
            "created_at": message.created_at,
        }
    )
    # Our own ints, for every message of a burst: not worth validating.
    logged = LoggedTurn.model_construct(scene_id=scene_id, campaign_id=campaign_id, number=number)
    if message.message_id is not None:
        batch.seen_ids[message.message_id] = logged
    return logged


async def _apply_edit(session: AsyncSession, op: Edit) -> bool:
    row = (
        await session.execute(select(TurnRow).where(TurnRow.discord_message_id == op.message_id))
    ).scalar_one_or_none()
    if row is None or row.text == op.text:
        return row is not None
    session.add(TurnRevisionRow(turn_id=row.id, text=row.text, replaced_at=op.edited_at))
    row.text = op.text
    row.edited_at = op.edited_at
    await session.flush()
    return True


async def _apply_delete(session: AsyncSession, op: Delete) -> bool:
    row = (
        await session.execute(select(TurnRow).where(TurnRow.discord_message_id == op.message_id))
    ).scalar_one_or_none()
    if row is None:
        return False
    if row.deleted_at is None:
        row.deleted_at = op.deleted_at
        await session.flush()
    return True
