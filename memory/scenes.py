"""Scenes and their turns as the rest of the program sees them, and the service that starts and ends scenes."""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
from collections.abc import Collection, Mapping

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar import parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import CampaignRow
from canon.errors import Conflict, InvalidInput, NotFound
from canon.storage import Database, utc_now
from canon.story_clock import date_and_key, scene_time
from memory.scene_tables import SceneRow, TurnRevisionRow, TurnRow

MAX_TITLE = 200


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


def clean_title(title: str | None, default: str) -> str:
    """Return a scene title or location trimmed to one line, or raise `InvalidInput` when too long."""
    value = " ".join((title or "").split()) or default
    if len(value) > MAX_TITLE:
        raise InvalidInput(
            f"That is {len(value)} characters; a scene title or location is at most {MAX_TITLE}."
        )
    return value


class SceneService:
    """Start, inspect and end scenes; keeps the set of channels with an open scene for the message hot path."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._open_channels: set[int] | None = None
        self._loading = asyncio.Lock()

    async def open_channels(self) -> set[int]:
        """Return the ids of channels that have an active scene (loaded once, then kept current)."""
        if self._open_channels is None:
            # One load, however many messages arrive at once (each would otherwise wait for a connection).
            async with self._loading:
                if self._open_channels is None:
                    async with self.db.session() as session:
                        query = select(SceneRow.channel_id).where(SceneRow.status == SceneStatus.ACTIVE)
                        self._open_channels = set((await session.execute(query)).scalars())
        return self._open_channels

    def forget_channel(self, channel_id: int) -> None:
        """Stop treating a channel as having an active scene (after /endscene or a retired scene)."""
        if self._open_channels is not None:
            self._open_channels.discard(channel_id)

    async def start_scene(
        self,
        *,
        campaign_id: int,
        guild_id: int | None,
        channel_id: int,
        title: str | None,
        location: str | None,
        actor: Actor,
        world_date: str | None = None,
        world_key: int | None = None,
        location_id: int | None = None,
    ) -> Scene:
        """Start a scene in a channel; refuse when the channel already has one that is not completed.

        Without a date, the scene starts on the date of the campaign's latest scene (the story goes on).
        """
        clean = clean_title(title, "Untitled scene")
        place = clean_title(location, "") or None

        async def work(session: AsyncSession) -> Scene:
            # Scenes of one campaign take story orders one after another: on PostgreSQL, where writers
            # run side by side, the campaign row is locked first (SQLite has one writer anyway).
            # A branch's story goes on from its fork point: its first scene follows the last one it inherits.
            forked_at = await session.scalar(
                select(func.coalesce(CampaignRow.fork_scene_order, 0))
                .where(CampaignRow.id == campaign_id)
                .with_for_update()
            )
            existing = await open_scene_in_channel(session, channel_id)
            if existing is not None:
                raise Conflict(_already_open_message(scene_from_row(existing)))
            last = await session.scalar(
                select(func.coalesce(func.max(SceneRow.story_order), 0)).where(
                    SceneRow.campaign_id == campaign_id
                )
            )
            order = max(last or 0, forked_at or 0) + 1
            date, key = world_date, world_key
            if date is None:
                previous = await session.execute(
                    select(SceneRow.world_date, SceneRow.world_key)
                    .where(SceneRow.campaign_id == campaign_id)
                    .order_by(SceneRow.story_order.desc())
                    .limit(1)
                )
                date, key = previous.one_or_none() or (None, None)
            row = SceneRow(
                campaign_id=campaign_id,
                guild_id=guild_id,
                channel_id=channel_id,
                title=clean,
                location=place,
                world_date=date,
                world_key=key,
                location_id=location_id,
                status=SceneStatus.ACTIVE.value,
                story_order=order,
                started_by_id=actor.id,
                started_by_name=actor.name,
            )
            session.add(row)
            await session.flush()
            return scene_from_row(row)

        for attempt in range(5):
            try:
                scene = await self.db.run(work)
                break
            except IntegrityError:
                # Either a racing /scene start in the same channel won, or (PostgreSQL, where writers run
                # side by side) another channel of the campaign took the same story order: then try again.
                async with self.db.session() as session:
                    taken = await open_scene_in_channel(session, channel_id)
                if taken is not None or attempt == 4:
                    raise Conflict("A scene was just started in this channel.") from None
        (await self.open_channels()).add(channel_id)
        return scene

    async def set_time(
        self,
        channel_id: int,
        when: str,
        eras: Mapping[str, str] | None = None,
        *,
        calendar: CampaignCalendar | None = None,
    ) -> Scene:
        """Move the in-world date of the channel's running scene to a date (on the campaign's `eras`, names by
        key) or by a shift (`+3 days`); facts proposed from now on take it."""

        async def work(session: AsyncSession) -> Scene:
            row = await open_scene_in_channel(session, channel_id)
            if row is None or row.status != SceneStatus.ACTIVE.value:
                raise NotFound(
                    "There is no running scene in this channel. A GM can start one with `/scene start`."
                )
            current = parse_date(row.world_date) if row.world_date else None
            moved = scene_time(when, current, eras=eras, calendar=calendar)
            row.world_date, row.world_key = date_and_key(moved)
            await session.flush()
            return scene_from_row(row)

        return await self.db.run(work)

    async def current_scene(self, channel_id: int) -> Scene:
        """Return the channel's scene that is not completed, or raise `NotFound` saying how to start one."""
        async with self.db.session() as session:
            row = await open_scene_in_channel(session, channel_id)
            if row is None:
                raise NotFound("There is no scene in this channel. A GM can start one with `/scene start`.")
            return scene_from_row(row)

    async def latest_scene(self, channel_id: int) -> Scene:
        """Return the channel's scene that is not completed, else its latest ended one; raise `NotFound` saying
        how to start one when the channel has had none."""
        async with self.db.session() as session:
            row = await open_scene_in_channel(session, channel_id)
            if row is None:
                query = select(SceneRow).where(SceneRow.channel_id == channel_id).order_by(SceneRow.id.desc())
                row = (await session.execute(query.limit(1))).scalar_one_or_none()
            if row is None:
                raise NotFound("There is no scene in this channel. A GM can start one with `/scene start`.")
            return scene_from_row(row)

    async def endable_scene(self, channel_id: int) -> Scene:
        """Return the channel's active scene, or raise what `end_scene` would (no scene, under review)."""
        async with self.db.session() as session:
            return scene_from_row(_endable(await open_scene_in_channel(session, channel_id)))

    async def report(self, scene_id: int) -> SceneReport:
        """Return the counts and participants of a scene."""
        async with self.db.session() as session:
            scene = await load_scene(session, scene_id)
            count = await session.scalar(
                select(func.count()).where(TurnRow.scene_id == scene_id, TurnRow.deleted_at.is_(None))
            )
            return SceneReport(
                scene=scene, turn_count=count or 0, participants=await scene_participants(session, scene_id)
            )

    async def transcript(self, scene_id: int) -> tuple[Scene, list[Turn]]:
        """Return a scene and all its turns, tombstones included."""
        async with self.db.session() as session:
            return await load_scene(session, scene_id), await scene_turns(session, scene_id)

    async def end_scene(self, channel_id: int, *, complete: bool = True) -> SceneReport:
        """Stop logging the channel's active scene: complete it, or put it under review when canon waits."""
        new_status = SceneStatus.COMPLETED if complete else SceneStatus.REVIEW

        async def work(session: AsyncSession) -> int:
            row = _endable(await open_scene_in_channel(session, channel_id))
            result = await session.execute(
                update(SceneRow)
                .where(SceneRow.id == row.id, SceneRow.status == SceneStatus.ACTIVE)
                .values(status=new_status.value, ended_at=utc_now())
            )
            if getattr(result, "rowcount", 1) != 1:  # another /endscene won the race
                raise Conflict("This scene has just been ended.")
            return row.id

        scene_id = await self.db.run(work)
        self.forget_channel(channel_id)
        return await self.report(scene_id)

    async def complete_scene(self, session: AsyncSession, scene_id: int) -> None:
        """Mark a scene under review as completed, inside the caller's transaction (the canon commit).

        One conditional UPDATE: it row-locks the scene, so of two concurrent commits the second waits here
        and then finds the scene no longer under review, and is refused before it writes anything.
        """
        result = await session.execute(
            update(SceneRow)
            .where(SceneRow.id == scene_id, SceneRow.status == SceneStatus.REVIEW)
            .values(status=SceneStatus.COMPLETED.value)
        )
        if getattr(result, "rowcount", 1) != 1:
            raise Conflict("This scene is no longer under review: it is already committed; nothing changed.")


def _endable(row: SceneRow | None) -> SceneRow:
    """Return an open scene row that may be ended, or raise `NotFound` / `Conflict` for the user."""
    if row is None:
        raise NotFound("There is no scene in this channel to end. A GM can start one with `/scene start`.")
    if row.status != SceneStatus.ACTIVE:
        raise Conflict(
            f"The scene “{row.title}” has already ended; its canon review is waiting. "
            "Use the review card (or `/canon review`) to commit it."
        )
    return row


def _already_open_message(scene: Scene) -> str:
    if scene.status == SceneStatus.REVIEW:
        return (
            f"The scene “{scene.title}” in this channel is waiting for its canon review. "
            "Commit it before starting another."
        )
    return f"The scene “{scene.title}” is already running in this channel. End it with `/endscene` first."
