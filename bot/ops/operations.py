"""The operations use cases: time zones, a server's GM channel and idle setting, scheduled sessions, quiet
scenes, and the numbers `/admin status` shows. Each owns its transaction; rows stay inside this module.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from sqlalchemy import delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from bot.ops.timeparse import REPEATS, next_occurrence, parse_when, zone
from bot.schema.ops_tables import (
    GuildOpsRow,
    IdleReminderRow,
    ScheduledSessionRow,
    SchedulerJobRow,
    UserTimezoneRow,
)
from canon.errors import InvalidInput, NotFound
from canon.storage import Database, utc_now
from config.settings import OpsSettings
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import SceneStatus

log = logging.getLogger(__name__)

MAX_SESSIONS_PER_GUILD = 50


class GuildOps(BaseModel):
    """A server's operational settings, defaults filled in."""

    model_config = ConfigDict(frozen=True)

    guild_id: int
    timezone: str
    gm_channel_id: int | None
    idle_minutes: int


class ScheduledSession(BaseModel):
    """A game session on the calendar."""

    model_config = ConfigDict(frozen=True)

    id: int
    guild_id: int
    channel_id: int
    title: str
    starts_at: dt.datetime
    timezone: str
    repeat: str
    status: str
    created_by_id: int | None
    reminded_for: dt.datetime | None
    #: The players' role its reminder mentions (None: it pings nobody).
    ping_role_id: int | None = None

    def next_start(self, now: dt.datetime) -> dt.datetime | None:
        """Return the next start at or after `now` (None for a one-off session that is over)."""
        return next_occurrence(self.starts_at, zone(self.timezone), self.repeat, now)


class TableCounts(BaseModel):
    """Rows of the main tables, of one campaign or of all."""

    model_config = ConfigDict(frozen=True)

    campaigns: int
    scenes: int
    turns: int
    entities: int
    statements: int
    sources: int
    chunks: int

    @property
    def canon_rows(self) -> int:
        """Return the canon's rows: its entities and its facts."""
        return self.entities + self.statements


class QuietScene(BaseModel):
    """An active scene with no turn for longer than its server allows."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    guild_id: int | None
    channel_id: int
    title: str
    last_activity: dt.datetime
    gm_channel_id: int | None
    idle_minutes: int


def _session(row: ScheduledSessionRow) -> ScheduledSession:
    return ScheduledSession(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        title=row.title,
        starts_at=row.starts_at,
        timezone=row.timezone,
        repeat=row.repeat,
        status=row.status,
        created_by_id=row.created_by_id,
        reminded_for=row.reminded_for,
        ping_role_id=row.ping_role_id,
    )


class OperationsService:
    """Time zones, GM channels, scheduled sessions and quiet scenes, for the cogs, the jobs and the CLI."""

    def __init__(self, db: Database, settings: OpsSettings) -> None:
        self.db = db
        self.settings = settings

    # -- time zones and server settings -------------------------------------------------------------

    async def guild(self, guild_id: int) -> GuildOps:
        """Return a server's settings (defaults where a GM set nothing)."""
        async with self.db.session() as session:
            row = await session.get(GuildOpsRow, guild_id)
        return GuildOps(
            guild_id=guild_id,
            timezone=(row.timezone if row and row.timezone else self.settings.default_timezone),
            gm_channel_id=row.gm_channel_id if row else None,
            idle_minutes=(
                row.idle_minutes if row and row.idle_minutes is not None else self.settings.idle_scene_minutes
            ),
        )

    async def configure_guild(
        self,
        guild_id: int,
        *,
        timezone: str | None = None,
        gm_channel_id: int | None = None,
        idle_minutes: int | None = None,
    ) -> GuildOps:
        """Set a server's default time zone, GM channel or idle reminder (only the values given)."""
        tz_name = zone(timezone).key if timezone is not None else None
        if idle_minutes is not None and not 0 <= idle_minutes <= 60 * 24 * 30:
            raise InvalidInput("The idle reminder is 0 (off) to 43,200 minutes (30 days).")

        async def work(session: AsyncSession) -> None:
            row = await session.get(GuildOpsRow, guild_id)
            if row is None:
                row = GuildOpsRow(guild_id=guild_id)
                session.add(row)
            if tz_name is not None:
                row.timezone = tz_name
            if gm_channel_id is not None:
                row.gm_channel_id = gm_channel_id
            if idle_minutes is not None:
                row.idle_minutes = idle_minutes
            row.updated_at = utc_now()

        await self.db.run(work)
        return await self.guild(guild_id)

    async def set_user_timezone(self, user_id: int, name: str) -> str:
        """Set a person's time zone; return its canonical name."""
        tz_name = zone(name).key

        async def work(session: AsyncSession) -> None:
            row = await session.get(UserTimezoneRow, user_id)
            if row is None:
                session.add(UserTimezoneRow(user_id=user_id, timezone=tz_name))
            else:
                row.timezone, row.updated_at = tz_name, utc_now()

        await self.db.run(work)
        return tz_name

    async def timezone_for(self, user_id: int, guild_id: int | None) -> str:
        """Return the zone a person's times are read in: theirs, else the server's, else the default."""
        async with self.db.session() as session:
            row = await session.get(UserTimezoneRow, user_id)
        if row is not None:
            return row.timezone
        if guild_id is not None:
            return (await self.guild(guild_id)).timezone
        return self.settings.default_timezone

    # -- scheduled sessions -------------------------------------------------------------------------

    async def schedule_session(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int,
        when: str,
        repeat: str = "none",
        title: str | None = None,
        ping_role_id: int | None = None,
        now: dt.datetime | None = None,
    ) -> ScheduledSession:
        """Put a session on the calendar, `when` read in the user's time zone; its reminder mentions the role
        `ping_role_id` (the players'), if given."""
        if ping_role_id == guild_id:
            raise InvalidInput(
                "The reminder does not ping @everyone; give the players' role (or none), e.g. players:@Party."
            )
        if repeat not in REPEATS:
            raise InvalidInput(f"“{repeat}” is not a repeat; use one of {', '.join(REPEATS)}.")
        now = now or utc_now()
        tz_name = await self.timezone_for(user_id, guild_id)
        starts = parse_when(when, zone(tz_name), now)
        if starts <= now:
            raise InvalidInput("That time has already passed; give a time in the future.")
        if starts > now + dt.timedelta(days=366):
            raise InvalidInput("Sessions can be scheduled up to a year ahead.")
        clean_title = " ".join((title or "").split())[:200] or "Game session"

        async def work(session: AsyncSession) -> ScheduledSession:
            count = await session.scalar(
                select(func.count()).where(
                    ScheduledSessionRow.guild_id == guild_id, ScheduledSessionRow.status == "scheduled"
                )
            )
            if (count or 0) >= MAX_SESSIONS_PER_GUILD:
                raise InvalidInput(
                    f"This server already has {MAX_SESSIONS_PER_GUILD} scheduled sessions; cancel one first."
                )
            row = ScheduledSessionRow(
                guild_id=guild_id,
                channel_id=channel_id,
                title=clean_title,
                starts_at=starts,
                timezone=tz_name,
                repeat=repeat,
                status="scheduled",
                created_by_id=user_id,
                ping_role_id=ping_role_id,
            )
            session.add(row)
            await session.flush()
            return _session(row)

        return await self.db.run(work)

    async def sessions(self, guild_id: int | None = None) -> list[ScheduledSession]:
        """Return the scheduled (not cancelled, not over) sessions, of one server or all, soonest first."""
        query = select(ScheduledSessionRow).where(ScheduledSessionRow.status == "scheduled")
        if guild_id is not None:
            query = query.where(ScheduledSessionRow.guild_id == guild_id)
        async with self.db.session() as session:
            rows = (await session.execute(query.order_by(ScheduledSessionRow.starts_at))).scalars()
            return [_session(r) for r in rows]

    async def get_session(self, session_id: int) -> ScheduledSession | None:
        """Return a scheduled session by id, whatever its status."""
        async with self.db.session() as session:
            row = await session.get(ScheduledSessionRow, session_id)
            return _session(row) if row is not None else None

    async def cancel_session(self, guild_id: int, session_id: int) -> ScheduledSession:
        """Cancel a server's scheduled session."""

        async def work(session: AsyncSession) -> ScheduledSession:
            row = await session.get(ScheduledSessionRow, session_id)
            if row is None or row.guild_id != guild_id or row.status != "scheduled":
                raise NotFound(f"There is no scheduled session #{session_id} on this server.")
            row.status = "cancelled"
            return _session(row)

        return await self.db.run(work)

    async def set_session_status(self, session_id: int, status: str) -> None:
        """Mark a session done or dropped (by its reminder job)."""

        async def work(session: AsyncSession) -> None:
            row = await session.get(ScheduledSessionRow, session_id)
            if row is not None:
                row.status = status

        await self.db.run(work)

    async def claim_reminder(self, session_id: int, occurrence: dt.datetime) -> bool:
        """Record that the reminder for one occurrence goes out; False when it already went (run twice).

        The row is locked (PostgreSQL; SQLite has one writer): two runs at once, such as a job re-added by the
        scheduler's reconciliation while the one it replaced still runs, claim it once between them.
        """

        async def work(session: AsyncSession) -> bool:
            row = await session.get(ScheduledSessionRow, session_id, with_for_update=True)
            if row is None or row.status != "scheduled" or row.reminded_for == occurrence:
                return False
            row.reminded_for = occurrence
            if row.repeat == "none":
                row.status = "done"
            return True

        return await self.db.run(work)

    # -- quiet scenes -------------------------------------------------------------------------------

    async def quiet_scenes(self, now: dt.datetime | None = None) -> list[QuietScene]:
        """Return active scenes quiet for longer than their server's idle setting, not yet reminded about."""
        now = now or utc_now()
        last_turn = (
            select(TurnRow.scene_id, func.max(TurnRow.created_at).label("last"))
            .group_by(TurnRow.scene_id)
            .subquery()
        )
        query = (
            select(
                SceneRow.id,
                SceneRow.guild_id,
                SceneRow.channel_id,
                SceneRow.title,
                SceneRow.started_at,
                last_turn.c.last,
                IdleReminderRow.activity_at,
                GuildOpsRow.gm_channel_id,
                GuildOpsRow.idle_minutes,
            )
            .outerjoin(last_turn, last_turn.c.scene_id == SceneRow.id)
            .outerjoin(IdleReminderRow, IdleReminderRow.scene_id == SceneRow.id)
            .outerjoin(GuildOpsRow, GuildOpsRow.guild_id == SceneRow.guild_id)
            .where(SceneRow.status == SceneStatus.ACTIVE.value)
        )
        async with self.db.session() as session:
            rows = (await session.execute(query)).all()
        found = []
        for scene_id, guild_id, channel_id, title, started, last, reminded, gm_channel, idle in rows:
            minutes = idle if idle is not None else self.settings.idle_scene_minutes
            if minutes <= 0:
                continue
            activity = _aware(last) if last is not None else started
            if activity > now - dt.timedelta(minutes=minutes):
                continue
            if reminded is not None and reminded >= activity:
                continue
            found.append(
                QuietScene(
                    scene_id=scene_id,
                    guild_id=guild_id,
                    channel_id=channel_id,
                    title=title,
                    last_activity=activity,
                    gm_channel_id=gm_channel,
                    idle_minutes=minutes,
                )
            )
        return found

    async def mark_reminded(self, scene_id: int, activity: dt.datetime) -> None:
        """Remember that the GM heard about a scene's quiet stretch ending at `activity`."""

        async def work(session: AsyncSession) -> None:
            await session.execute(delete(IdleReminderRow).where(IdleReminderRow.scene_id == scene_id))
            session.add(IdleReminderRow(scene_id=scene_id, activity_at=activity, reminded_at=utc_now()))

        await self.db.run(work)

    # -- status -------------------------------------------------------------------------------------

    async def stored_jobs(self) -> list[tuple[str, dt.datetime | None]]:
        """Return the job store's job ids and next run times (UTC), soonest first, read from the database.

        For a process that runs no scheduler while another one does (shards split between processes).
        """
        query = select(SchedulerJobRow.id, SchedulerJobRow.next_run_time)
        async with self.db.session() as session:
            rows = (await session.execute(query)).all()
        jobs = [
            (job_id, dt.datetime.fromtimestamp(when, dt.UTC) if when is not None else None)
            for job_id, when in rows
        ]
        far = dt.datetime.max.replace(tzinfo=dt.UTC)
        return sorted(jobs, key=lambda j: j[1] or far)

    async def counts(self, campaign_id: int | None = None) -> TableCounts:
        """Return row counts of the main tables (of one campaign, or all)."""
        tables = {
            "campaigns": "campaigns",
            "scenes": "scenes",
            "turns": "turns",
            "entities": "entities",
            "statements": "statements",
            "sources": "knowledge_sources",
            "chunks": "knowledge_chunks",
        }
        found: dict[str, int] = {}
        async with self.db.session() as session:
            for label, table in tables.items():
                where = ""
                if campaign_id is not None:
                    where = " WHERE id = :c" if table == "campaigns" else " WHERE campaign_id = :c"
                value = await session.scalar(text(f"SELECT count(*) FROM {table}{where}"), {"c": campaign_id})
                found[label] = int(value or 0)
        return TableCounts(**found)

    async def database_size(self) -> int | None:
        """Return the database's size in bytes (the SQLite file with its WAL, or PostgreSQL's database)."""
        if self.db.is_sqlite:
            path = self.db.engine.url.database
            if not path:
                return None
            return await asyncio.to_thread(_file_sizes, path)
        async with self.db.session() as session:
            value = await session.scalar(text("SELECT pg_database_size(current_database())"))
        return int(value) if value is not None else None


def _aware(value: dt.datetime) -> dt.datetime:
    # Aggregates bypass the column type: SQLite hands back a naive (UTC) datetime or a string.
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def _file_sizes(path: str) -> int:
    return sum(p.stat().st_size for p in (Path(path + s) for s in ("", "-wal", "-shm")) if p.exists())
