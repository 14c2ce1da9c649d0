"""The service that starts and ends scenes, and keeps the channels with an open scene for the message path.

What a scene and its turns are, and the reads of them, are `memory.scenes`.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar import parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import CampaignRow
from canon.errors import Conflict, InvalidInput, NotFound
from canon.storage import Database, utc_now
from canon.story_clock import date_and_key, scene_time
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import (
    Actor,
    Scene,
    SceneReport,
    SceneStatus,
    Turn,
    load_scene,
    open_scene_in_channel,
    scene_from_row,
    scene_participants,
    scene_turns,
)

MAX_TITLE = 200


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
        calendar: CampaignCalendar,
    ) -> Scene:
        """Move the in-world date of the channel's running scene to a date on the campaign's `calendar`, as the
        table types it, or by a shift (`+3 days`); facts proposed from now on take it."""

        async def work(session: AsyncSession) -> Scene:
            row = await open_scene_in_channel(session, channel_id)
            if row is None or row.status != SceneStatus.ACTIVE.value:
                raise NotFound(
                    "There is no running scene in this channel. A GM can start one with `/scene start`."
                )
            current = parse_date(row.world_date) if row.world_date else None
            moved = scene_time(when, current, calendar)
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
