"""Scenes and their turns as the rest of the program sees them, and the reads of them.

The service that starts and ends scenes is `memory.scene_service`.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Collection, Mapping

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from canon.storage import utc_now
from memory.scene_tables import SceneRow, TurnRevisionRow, TurnRow


class SceneStatus(enum.StrEnum):
    """A scene logs turns while active; ending puts it under review; commit completes it."""

    ACTIVE = "active"
    REVIEW = "review"
    COMPLETED = "completed"


class SpeakerKind(enum.StrEnum):
    """Who spoke a turn."""

    PLAYER = "player"
    GM = "gm"
    NPC = "npc"
    NARRATOR = "narrator"
    ROLL = "roll"  # another bot's message in the scene's channel: a dice roll (Avrae and the like)


class Actor(BaseModel):
    """The person (or the bot) doing something, as the services record it."""

    model_config = ConfigDict(frozen=True)

    id: int | None
    name: str
    is_gm: bool = False


class Scene(BaseModel):
    """A scene of a campaign."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    guild_id: int | None
    channel_id: int
    title: str
    location: str | None
    status: SceneStatus
    story_order: int
    started_by_id: int | None
    started_by_name: str | None
    started_at: dt.datetime
    ended_at: dt.datetime | None
    narrator_mode: bool
    summary: str | None
    world_date: str | None = None
    world_key: int | None = None
    location_id: int | None = None


class AttachmentInfo(BaseModel):
    """A file attached to a logged message, kept as inert metadata: never fetched, never read."""

    model_config = ConfigDict(frozen=True)

    filename: str
    size: int
    content_type: str | None = None
    url: str


class EmbedInfo(BaseModel):
    """An embed of a logged message (another bot's card), kept as inert data: its visible text."""

    model_config = ConfigDict(frozen=True)

    type: str | None = None
    title: str | None = None
    description: str | None = None
    url: str | None = None


class Turn(BaseModel):
    """One logged message of a scene."""

    model_config = ConfigDict(frozen=True)

    id: int
    scene_id: int
    campaign_id: int
    number: int
    discord_message_id: int | None
    author_id: int | None
    author_name: str
    speaker: SpeakerKind
    text: str
    attachments: list[AttachmentInfo] = Field(default_factory=list)
    embeds: list[EmbedInfo] = Field(default_factory=list)
    created_at: dt.datetime
    edited_at: dt.datetime | None
    deleted_at: dt.datetime | None

    @property
    def is_deleted(self) -> bool:
        """Return whether the message was deleted (the turn stays as a tombstone)."""
        return self.deleted_at is not None


class Participant(BaseModel):
    """Someone who spoke in a scene, with how many turns."""

    model_config = ConfigDict(frozen=True)

    author_id: int | None
    name: str
    speaker: SpeakerKind
    turns: int


class SceneReport(BaseModel):
    """What the summary embed of a scene shows."""

    model_config = ConfigDict(frozen=True)

    scene: Scene
    turn_count: int
    participants: list[Participant]

    @property
    def duration(self) -> dt.timedelta:
        """Return how long the scene ran (until now when it is still going)."""
        return (self.scene.ended_at or utc_now()) - self.scene.started_at


def scene_from_row(row: SceneRow) -> Scene:
    """Return the domain view of a scene row."""
    return Scene(
        id=row.id,
        campaign_id=row.campaign_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        title=row.title,
        location=row.location,
        status=SceneStatus(row.status),
        story_order=row.story_order,
        started_by_id=row.started_by_id,
        started_by_name=row.started_by_name,
        started_at=row.started_at,
        ended_at=row.ended_at,
        narrator_mode=row.narrator_mode,
        summary=row.summary,
        world_date=row.world_date,
        world_key=row.world_key,
        location_id=row.location_id,
    )


def turn_from_row(row: TurnRow) -> Turn:
    """Return the domain view of a turn row."""
    return Turn(
        id=row.id,
        scene_id=row.scene_id,
        campaign_id=row.campaign_id,
        number=row.number,
        discord_message_id=row.discord_message_id,
        author_id=row.author_id,
        author_name=row.author_name,
        speaker=SpeakerKind(row.speaker),
        text=row.text,
        attachments=list(row.attachments or []),
        embeds=list(row.embeds or []),
        created_at=row.created_at,
        edited_at=row.edited_at,
        deleted_at=row.deleted_at,
    )


async def open_scene_in_channel(session: AsyncSession, channel_id: int) -> SceneRow | None:
    """Return the channel's scene that is not completed yet (active or under review), if any."""
    query = select(SceneRow).where(
        SceneRow.channel_id == channel_id, SceneRow.status != SceneStatus.COMPLETED
    )
    return (await session.execute(query)).scalar_one_or_none()


async def load_scene(session: AsyncSession, scene_id: int) -> Scene:
    """Return a scene by id or raise `NotFound`."""
    row = await session.get(SceneRow, scene_id)
    if row is None:
        raise NotFound(f"There is no scene #{scene_id}.")
    return scene_from_row(row)


async def scene_turns(
    session: AsyncSession,
    scene_id: int,
    *,
    include_deleted: bool = True,
    numbers: Collection[int] | None = None,
) -> list[Turn]:
    """Return a scene's turns in order (only those `numbers`, when given)."""
    query = select(TurnRow).where(TurnRow.scene_id == scene_id).order_by(TurnRow.number)
    if numbers is not None:
        query = query.where(TurnRow.number.in_(sorted(set(numbers))))
    if not include_deleted:
        query = query.where(TurnRow.deleted_at.is_(None))
    return [turn_from_row(row) for row in (await session.execute(query)).scalars()]


async def scenes_by_id(session: AsyncSession, scene_ids: Collection[int]) -> dict[int, Scene]:
    """Return the scenes of these ids that exist, by id (one query)."""
    if not scene_ids:
        return {}
    rows = await session.execute(select(SceneRow).where(SceneRow.id.in_(sorted(set(scene_ids)))))
    return {row.id: scene_from_row(row) for row in rows.scalars()}


async def turns_numbered_in(
    session: AsyncSession, wanted: Mapping[int, Collection[int]]
) -> dict[int, list[Turn]]:
    """Return the turns of several scenes that are not deleted, only those numbers of each, in order, by scene
    (one query)."""
    chosen = [
        and_(TurnRow.scene_id == scene_id, TurnRow.number.in_(sorted(set(numbers))))
        for scene_id, numbers in wanted.items()
        if numbers
    ]
    found: dict[int, list[Turn]] = {}
    if not chosen:
        return found
    query = (
        select(TurnRow)
        .where(or_(*chosen), TurnRow.deleted_at.is_(None))
        .order_by(TurnRow.scene_id, TurnRow.number)
    )
    for row in (await session.execute(query)).scalars():
        found.setdefault(row.scene_id, []).append(turn_from_row(row))
    return found


async def scene_participants(session: AsyncSession, scene_id: int) -> list[Participant]:
    """Return who spoke in a scene (deleted turns excluded), most turns first."""
    query = (
        select(TurnRow.author_id, TurnRow.author_name, TurnRow.speaker, func.count())
        .where(TurnRow.scene_id == scene_id, TurnRow.deleted_at.is_(None))
        .group_by(TurnRow.author_id, TurnRow.author_name, TurnRow.speaker)
        .order_by(func.count().desc(), TurnRow.author_name)
    )
    merged: dict[tuple[int | None, str], Participant] = {}
    for author_id, name, speaker, count in (await session.execute(query)).all():
        key = (author_id, speaker) if author_id is not None else (None, f"{speaker}:{name}")
        if key in merged:  # the same person under an older display name
            merged[key] = merged[key].model_copy(update={"turns": merged[key].turns + count})
        else:
            merged[key] = Participant(
                author_id=author_id, name=name, speaker=SpeakerKind(speaker), turns=count
            )
    return sorted(merged.values(), key=lambda p: (-p.turns, p.name))


async def turn_history(session: AsyncSession, turn_id: int) -> list[str]:
    """Return the earlier texts of an edited turn, oldest first."""
    query = (
        select(TurnRevisionRow.text).where(TurnRevisionRow.turn_id == turn_id).order_by(TurnRevisionRow.id)
    )
    return list((await session.execute(query)).scalars())
