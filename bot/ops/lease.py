"""A named lease in the database: one process at a time holds it, renewing it before it expires.

The scheduler is elected through it (`bot.ops.scheduler`): every process with the scheduler switched on is a
candidate, and only the holder of the `scheduler` lease runs the jobs, whatever the shards and however many
processes run the same settings. A holder renews every third of the lease; a process that stopped (or lost the
database) lets it expire, and another takes it within `ops.scheduler_lease_seconds`. A holder that cannot
confirm its lease before it would expire stops its jobs first, so two never run together for long (and a
reminder run twice still posts once: it records which occurrence it announced).

Times are each process's UTC clock: hosts running processes of one installation keep their clocks in step (NTP),
as they must for reminders anyway; a lease of 30 seconds tolerates a few seconds of drift.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import socket
from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema.ops_tables import LeaseRow
from canon.storage import Database, utc_now

__all__ = ["Holder", "Lease", "process_name"]

SCHEDULER_LEASE = "scheduler"


def process_name(shard_ids: list[int] | None = None) -> str:
    """Return how a process names itself as a lease's holder: host, process id, its shards and a random tag.

    The tag tells apart two holders the rest would confuse (every container's process is number 1).
    """
    shards = f", shards {', '.join(map(str, shard_ids))}" if shard_ids else ""
    return f"{socket.gethostname()} (process {os.getpid()}{shards}, run {secrets.token_hex(3)})"


@dataclass(frozen=True)
class Holder:
    """Who holds a lease and until when (UTC)."""

    owner: str
    acquired_at: dt.datetime
    expires_at: dt.datetime


class Lease:
    """One named lease, as one process (`owner`) takes, renews and releases it."""

    def __init__(self, db: Database, name: str, owner: str, seconds: float) -> None:
        self.db = db
        self.name = name
        self.owner = owner
        self.seconds = seconds

    async def acquire(self) -> bool:
        """Take the lease when it is free or expired, or renew it when held; return whether this process holds it."""
        now = utc_now()
        until = now + dt.timedelta(seconds=self.seconds)

        async def take(session: AsyncSession) -> bool:
            mine = (LeaseRow.name == self.name) & (LeaseRow.owner == self.owner)
            if (await session.execute(update(LeaseRow).where(mine).values(expires_at=until))).rowcount:  # type: ignore[attr-defined]
                return True  # renewed
            expired = (LeaseRow.name == self.name) & (LeaseRow.expires_at < now)
            taken = (
                update(LeaseRow).where(expired).values(owner=self.owner, acquired_at=now, expires_at=until)
            )
            if (await session.execute(taken)).rowcount:  # type: ignore[attr-defined]
                return True  # taken over from a holder whose time ran out
            if await session.scalar(select(LeaseRow.owner).where(LeaseRow.name == self.name)) is not None:
                return False  # another process holds it
            await session.execute(
                insert(LeaseRow).values(name=self.name, owner=self.owner, acquired_at=now, expires_at=until)
            )
            return True

        try:
            return await self.db.run(take, attempts=1)
        except IntegrityError:  # another process inserted it first: theirs
            return False

    async def release(self) -> None:
        """Give the lease up (if held), so another process takes it at once instead of after it expires."""

        async def drop(session: AsyncSession) -> None:
            await session.execute(
                delete(LeaseRow).where(LeaseRow.name == self.name, LeaseRow.owner == self.owner)
            )

        await self.db.run(drop)

    async def holder(self) -> Holder | None:
        """Return who holds the lease now (None: nobody, or it expired)."""
        return await holder_of(self.db, self.name)


async def holder_of(db: Database, name: str = SCHEDULER_LEASE) -> Holder | None:
    """Return who holds a lease now (None: nobody holds it, or the holder's time ran out)."""
    async with db.session() as session:
        row = (await session.execute(select(LeaseRow).where(LeaseRow.name == name))).scalar_one_or_none()
    if row is None or row.expires_at < utc_now():
        return None
    return Holder(row.owner, row.acquired_at, row.expires_at)
