"""The scheduler's lease: one holder at a time, renewed by its holder, taken over when it runs out or is given up;
and two schedulers on one database, of which exactly one runs the jobs until it stops."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from bot.app import build_services
from bot.ops import scheduler as scheduler_module
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


async def test_jobs_slower_to_start_than_the_lease_keep_it_and_no_second_scheduler_starts(
    db_target: DatabaseTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine, starting the jobs (imports, the job store's table) can outlast the lease: the lease
    is renewed meanwhile, so another process standing for it then does not start a second scheduler."""

    def settings(name: str) -> Settings:
        return Settings(_env_file=None, data_dir=tmp_path / name)  # type: ignore[call-arg]

    ensure = scheduler_module._ensure_system_jobs

    def slow_ensure(*args: Any) -> None:
        time.sleep(2.5)  # in a worker thread, as the start runs it: longer than the whole lease
        ensure(*args)

    monkeypatch.setattr(scheduler_module, "_ensure_system_jobs", slow_ensure)
    first = await build_services(settings("a"), db=db_target.open())
    second = await build_services(settings("b"), db=db_target.open())
    try:
        assert first.scheduler is not None and second.scheduler is not None
        first.scheduler.lease.seconds = second.scheduler.lease.seconds = 1.5  # shorter than settings allow
        starting = asyncio.ensure_future(first.scheduler.start(first, Posts()))
        await asyncio.sleep(2.0)  # the first holds the lease and is still starting its jobs
        assert not starting.done()
        assert await second.scheduler.start(second, Posts())
        assert await starting
        assert first.scheduler.running and not second.scheduler.running
        assert (await holder_of(first.db)).owner == first.scheduler.lease.owner  # type: ignore[union-attr]
    finally:
        await first.close()
        await second.close()
