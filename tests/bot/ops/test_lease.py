"""The scheduler's lease: one holder at a time, renewed by its holder, taken over when it runs out or is given up;
and two schedulers on one database, of which exactly one runs the jobs until it stops."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from sqlalchemy import update

from bot.app import build_services
from bot.ops.doctor import check_scheduler_owner
from bot.ops.lease import Lease, holder_of
from bot.schema.ops_tables import LeaseRow
from canon.storage import Database, utc_now
from config.settings import Settings
from tests.conftest import DatabaseTarget


async def expire(db: Database, name: str) -> None:
    """Make a lease's time run out, as when its holder stopped without giving it up."""
    past = utc_now() - dt.timedelta(seconds=1)
    await db.run(lambda s: s.execute(update(LeaseRow).where(LeaseRow.name == name).values(expires_at=past)))


async def test_one_holder_at_a_time_until_its_time_runs_out_or_it_gives_up(db: Database) -> None:
    first, second = Lease(db, "jobs", "first", 30), Lease(db, "jobs", "second", 30)
    assert await first.acquire() and not await second.acquire()
    assert await first.acquire()  # renewed
    holder = await holder_of(db, "jobs")
    assert holder is not None and holder.owner == "first" and holder.expires_at > utc_now()
    await expire(db, "jobs")
    assert await holder_of(db, "jobs") is None
    assert await second.acquire() and not await first.acquire()
    await first.release()  # not the holder: nothing changes
    assert (await holder_of(db, "jobs")).owner == "second"  # type: ignore[union-attr]
    await second.release()
    assert await holder_of(db, "jobs") is None
    assert await first.acquire()


async def test_many_processes_asking_at_once_elect_exactly_one(db: Database) -> None:
    leases = [Lease(db, "jobs", f"process {n}", 30) for n in range(6)]
    won = await asyncio.gather(*(lease.acquire() for lease in leases))
    assert sum(won) == 1
    assert (await holder_of(db, "jobs")).owner == leases[won.index(True)].owner  # type: ignore[union-attr]


class Posts:
    """Where the jobs would post (nothing is due in this test: the scheduler only starts and stops)."""

    async def post(self, channel_id: int, content: str, *, ping_role_id: int | None = None) -> None:
        raise AssertionError(f"nothing is due, yet a job posted {content!r}")


async def test_two_schedulers_on_one_database_run_the_jobs_one_at_a_time(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    def settings(name: str) -> Settings:
        return Settings(  # type: ignore[call-arg]
            _env_file=None, data_dir=tmp_path / name, ops={"scheduler_lease_seconds": 3}
        )

    first = await build_services(settings("a"), db=db_target.open())
    second = await build_services(settings("b"), db=db_target.open())
    try:
        assert first.scheduler is not None and second.scheduler is not None
        assert await first.scheduler.start(first, Posts()) and await second.scheduler.start(second, Posts())
        assert first.scheduler.running and not second.scheduler.running
        doctor = await check_scheduler_owner(
            first.settings.model_copy(update={"database_url": db_target.url})
        )
        if (
            db_target.search_path is None
        ):  # the doctor opens the configured URL (PostgreSQL: not the test schema)
            assert doctor.ok and first.scheduler.lease.owner in doctor.detail
        await asyncio.sleep(2.5)  # renewals: the second does not take it over
        assert first.scheduler.running and not second.scheduler.running
        await first.scheduler.shutdown()  # a clean stop gives the lease up: the second takes over
        for _ in range(100):
            if second.scheduler.running:
                break
            await asyncio.sleep(0.1)
        assert second.scheduler.running
        assert (await holder_of(second.db)).owner == second.scheduler.lease.owner  # type: ignore[union-attr]
    finally:
        await first.close()
        await second.close()
