"""APScheduler adapted to the bot: a scheduler whose synchronous job store stays off the event loop.

`bot.ops.scheduler.JobScheduler` builds its scheduler here (`build_scheduler`), on the synchronous twin of the
database URL (`sync_url`), and asks here when a session's reminder fires (`reminder_trigger`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import functools
import logging
from typing import TYPE_CHECKING, Any

from bot.ops.timeparse import zone
from bot.schema.ops_tables import JOBS_TABLE
from canon.storage import Database, utc_now
from config.settings import Settings

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

# The scheduler's own log, whichever of its modules writes: operators read its wake-up failures under this name.
log = logging.getLogger("bot.ops.scheduler")


def sync_url(db: Database) -> Any:
    """Return the synchronous twin of the database URL (stdlib sqlite3, or psycopg for PostgreSQL)."""
    url = db.engine.url
    if db.is_sqlite:
        return url.set(drivername="sqlite")
    return url.set(drivername="postgresql+psycopg")


class _StoppedIsNotFailed(logging.Filter):
    """APScheduler logs a job its shutdown cancelled as an exception the job raised: log that it stopped."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, (asyncio.CancelledError, concurrent.futures.CancelledError)):
            record.levelno, record.levelname = logging.INFO, logging.getLevelName(logging.INFO)
            record.msg = "job %s stopped by shutdown before it finished"
            record.exc_info, record.exc_text = None, None
        return True


@functools.cache
def _cancel_running_jobs(executor: Any, wait: bool = True) -> None:
    """The loop executor's shutdown: cancel the jobs still running.

    A thread-safe future runs its done callback as it is cancelled, which takes it out of the set of running
    jobs: this goes over a copy (APScheduler's own went over the set itself, and raised when a job still ran).
    """
    for future in list(executor._pending_futures):
        future.cancel()
    executor._pending_futures.clear()


def thread_safe_scheduler_class() -> type[Any]:
    """Return APScheduler's asyncio scheduler, changed to keep its job store off the event loop.

    The job store is synchronous SQL (up to a 30 s busy wait on a locked SQLite file), and APScheduler
    calls it from the loop each time it wakes up. Worse, on SQLite the write it waits for belongs to a
    transaction that can only finish when the loop runs. So the wake-up's work runs in a worker thread, and
    the jobs it finds due are handed back to the loop.
    """
    from apscheduler.executors.asyncio import AsyncIOExecutor
    from apscheduler.executors.base import run_coroutine_job
    from apscheduler.schedulers.asyncio import AsyncIOScheduler
    from apscheduler.schedulers.base import STATE_STOPPED

    logging.getLogger("apscheduler.executors.default").addFilter(_StoppedIsNotFailed())

    class LoopExecutor(AsyncIOExecutor):  # type: ignore[misc]
        """Run coroutine jobs on the loop, whichever thread submits them."""

        def _do_submit_job(self, job: Any, run_times: list[dt.datetime]) -> None:
            coro = run_coroutine_job(job, job._jobstore_alias, run_times, self._logger.name)
            future = asyncio.run_coroutine_threadsafe(coro, self._eventloop)

            def done(finished: Any) -> None:
                self._pending_futures.discard(finished)
                try:
                    events = finished.result()
                except (asyncio.CancelledError, concurrent.futures.CancelledError):  # cut short by shutdown
                    self._logger.info("job %s stopped by shutdown before it finished", job)
                except BaseException as error:  # APScheduler logs what the job raised
                    self._run_job_error(job.id, error, error.__traceback__)
                else:
                    self._run_job_success(job.id, events)

            self._pending_futures.add(future)
            future.add_done_callback(done)

        shutdown = _cancel_running_jobs

    class Scheduler(AsyncIOScheduler):  # type: ignore[misc]
        _busy = False
        _again = False
        inflight: asyncio.Future[Any] | None = None

        def _create_default_executor(self) -> LoopExecutor:
            return LoopExecutor()

        def _process_jobs(self) -> float | None:
            # A wakeup queued just before shutdown may run after it: a stopped scheduler does nothing.
            if self.state == STATE_STOPPED:
                return None
            return super()._process_jobs()  # type: ignore[no-any-return]

        def wakeup(self) -> None:
            loop = self._eventloop
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self._wake)

        def _wake(self) -> None:
            self._stop_timer()
            if self.state == STATE_STOPPED or self._eventloop is None:
                return
            if self._busy:  # one pass at a time, and one more right after it
                self._again = True
                return
            self._busy = True
            self.inflight = self._eventloop.run_in_executor(None, self._process_jobs)
            self.inflight.add_done_callback(self._woken)

        def _woken(self, future: asyncio.Future[float | None]) -> None:
            self._busy = False
            if self.state == STATE_STOPPED or self._eventloop is None or future.cancelled():
                return
            error = future.exception()
            if error is not None:  # APScheduler catches the store's errors itself: this is a bug
                log.error("the scheduler's wake-up failed", exc_info=error)
            wait = 0 if self._again else (1.0 if error is not None else future.result())
            self._again = False
            self._start_timer(wait)

    return Scheduler


def build_scheduler(
    db: Database, settings: Settings, schema: str | None, loop: asyncio.AbstractEventLoop
) -> tuple[Any, AsyncIOScheduler]:
    """Return the job store's engine and a scheduler on it (run in a worker thread: it imports and connects)."""
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
    from sqlalchemy import create_engine

    options: dict[str, Any] = {"pool_pre_ping": True}
    if db.is_sqlite:
        options["connect_args"] = {"timeout": 30}
    engine = create_engine(sync_url(db), **options)
    store = SQLAlchemyJobStore(engine=engine, tablename=JOBS_TABLE, tableschema=schema)
    scheduler: AsyncIOScheduler = thread_safe_scheduler_class()(
        jobstores={"default": store},
        job_defaults={
            "coalesce": True,
            "max_instances": 1,
            "misfire_grace_time": settings.ops.misfire_grace_seconds,
        },
        timezone=dt.UTC,
        event_loop=loop,
    )
    return engine, scheduler


def reminder_trigger(
    starts_at: dt.datetime, tz_name: str, repeat: str, lead_minutes: int, now: dt.datetime | None = None
) -> Any:
    """Return when a session's reminder fires: the lead time before its start (each start, if it repeats)."""
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.date import DateTrigger

    lead = dt.timedelta(minutes=lead_minutes)
    if repeat == "none":
        now = now or utc_now()
        return DateTrigger(run_date=max(starts_at - lead, now + dt.timedelta(seconds=1)))
    tz = zone(tz_name)
    local = (starts_at.astimezone(tz).replace(tzinfo=None)) - lead
    fields: dict[str, Any] = {"hour": local.hour, "minute": local.minute}
    if repeat == "weekly":
        fields["day_of_week"] = local.weekday()
    # From the first session's reminder on: an earlier start would fire before the first session, for
    # no session at all. To the minute, as the trigger fires: a start at 19:30:45 (scheduled "in 3 days")
    # would otherwise skip its first reminder, at 19:00:00, for the next one.
    first = (starts_at - lead).replace(second=0, microsecond=0)
    return CronTrigger(timezone=tz, start_date=first, **fields)
