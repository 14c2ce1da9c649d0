"""SQL tables of the operations side: time zones, the GM channel, scheduled sessions, idle reminders, the
command tree last synced to Discord, and the table APScheduler keeps its jobs in (declared here so that
migrations, not the scheduler, create it).

Rows never leave `bot.ops.operations`; the rest of the program sees its pydantic models.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Float, ForeignKey, Integer, LargeBinary, String, Unicode
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now

#: APScheduler's `SQLAlchemyJobStore` table, column for column (it checks for it and creates nothing).
JOBS_TABLE = "apscheduler_jobs"


class SchedulerJobRow(Base):
    """One pickled APScheduler job (its id, next run as a UTC timestamp, and state)."""

    __tablename__ = JOBS_TABLE

    id: Mapped[str] = mapped_column(Unicode(191), primary_key=True)
    next_run_time: Mapped[float | None] = mapped_column(Float(25), index=True)
    job_state: Mapped[bytes] = mapped_column(LargeBinary)


class GuildOpsRow(Base):
    """A server's operational settings, set by its GMs: default time zone, GM channel, idle reminder."""

    __tablename__ = "ops_guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str | None] = mapped_column(String(64))
    gm_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    idle_minutes: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class UserTimezoneRow(Base):
    """The IANA time zone a person set with `/timezone set` (one per person, whatever the server)."""

    __tablename__ = "ops_user_timezones"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str] = mapped_column(String(64))
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class ScheduledSessionRow(Base):
    """A game session on the calendar; its reminder job is `session:{id}` in the scheduler."""

    __tablename__ = "ops_scheduled_sessions"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(200))
    starts_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    timezone: Mapped[str] = mapped_column(String(64))
    repeat: Mapped[str] = mapped_column(String(20), default="none")
    status: Mapped[str] = mapped_column(String(20), default="scheduled")
    created_by_id: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    #: The start of the occurrence last reminded about: a reminder job run twice posts once.
    reminded_for: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    #: The players' role the reminder mentions (None: it pings nobody).
    ping_role_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class IdleReminderRow(Base):
    """The last activity of a scene the GM was reminded about (one reminder per quiet stretch)."""

    __tablename__ = "ops_idle_reminders"

    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"), primary_key=True, autoincrement=False)
    activity_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    reminded_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class CommandSyncRow(Base):
    """The hash of the slash-command tree last synced to Discord, per application and scope (global, a guild).

    A start whose tree hashes the same makes no sync call (Discord allows 200 command creations a day).
    """

    __tablename__ = "command_syncs"

    scope: Mapped[str] = mapped_column(String(80), primary_key=True)
    tree_hash: Mapped[str] = mapped_column(String(64))
    synced_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class LeaseRow(Base):
    """A named lease held by one process until `expires_at` (`bot.ops.lease`): the scheduler's owner."""

    __tablename__ = "ops_leases"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    acquired_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
