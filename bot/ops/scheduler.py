"""The job scheduler: APScheduler 3 (asyncio) with its jobs in the database.

The jobs themselves, and the registry through which they find the running bot's services, are `bot.ops.jobs`.

Restarts neither lose nor double jobs: the job store is the database (table `apscheduler_jobs`, created by
migration 0006), system jobs have fixed ids and are added only when missing, and a session's reminder job is
`session:{id}`. A job that fell due while the bot was down runs once at start (`coalesce`) when it is at most
`misfire_grace_seconds` late; the reminder itself records which occurrence it announced, so even a job run
twice posts once.

Only one process runs the jobs: every process with the scheduler switched on is a candidate, and the one holding
the `scheduler` lease in the database runs them (`bot.ops.lease`), whatever the shards and however many processes
run the same settings; when it stops, another takes over within `ops.scheduler_lease_seconds`. Any process may
schedule or cancel a session: one not running the jobs only writes the session's row. So the
scheduler reconciles the sessions with their jobs when it starts and every `RECONCILE_SECONDS` after (the
`system:session-jobs` job): a scheduled session without its job gets one, a session whose start, zone,
repeat or lead time changed gets a new one (each job's name records what it was made from), and a job whose
session was cancelled, is over or is gone is removed.

The job store is synchronous (SQLAlchemy with the stdlib `sqlite3`, or `psycopg` for PostgreSQL): it is
touched a few times per job, never on the message path.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from bot.ops.apscheduler_adapter import build_scheduler, reminder_trigger
from bot.ops.jobs import JobRuntime, Poster, install, uninstall
from bot.ops.lease import SCHEDULER_LEASE, Lease, process_name
from canon.storage import Database, utc_now
from canon.storage_faults import storage_fault
from config.settings import Settings

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from bot.ops.operations import OperationsService, ScheduledSession
    from bot.ops.ports import OpsServices

log = logging.getLogger(__name__)

#: The bot's own jobs (not one server's) have ids starting with this.
SYSTEM_JOB_PREFIX = "system:"
IDLE_JOB = f"{SYSTEM_JOB_PREFIX}idle-scenes"
CONTINUITY_JOB = f"{SYSTEM_JOB_PREFIX}continuity"
BACKUP_JOB = f"{SYSTEM_JOB_PREFIX}backup"
REINDEX_JOB = f"{SYSTEM_JOB_PREFIX}resume-indexing"
RECONCILE_JOB = f"{SYSTEM_JOB_PREFIX}session-jobs"
#: How often the scheduler gives sessions scheduled (or cancelled) by another process their jobs (seconds).
RECONCILE_SECONDS = 60
SESSION_JOB_PREFIX = "session:"


@dataclass
class Reconciled:
    """The session ids whose reminder job a reconciliation added, replaced or removed."""

    added: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    removed: list[int] = field(default_factory=list)


class JobScheduler:
    """APScheduler with the database as its job store; started by the bot, stopped before the database closes.

    The job store's SQL is synchronous and may wait up to 30 s on a locked SQLite file: it never runs on the
    event loop. The methods below run it in a worker thread; so does the scheduler's own wake-up.
    """

    def __init__(self, settings: Settings, db: Database, *, name: str | None = None) -> None:
        self.settings = settings
        self.db = db
        self.scheduler: AsyncIOScheduler | None = None
        self.runtime: JobRuntime | None = None
        self._engine: Any = None
        self.error: str | None = None
        #: The scheduler's lease, held while this process runs the jobs.
        self.lease = Lease(
            db,
            SCHEDULER_LEASE,
            name or process_name(settings.shard_ids),
            settings.ops.scheduler_lease_seconds,
        )
        self._keeper: asyncio.Task[None] | None = None
        self._started_with: tuple[OpsServices, Poster] | None = None
        # One start of the jobs at a time: the keeper renews the lease while `start` starts them.
        self._starting = asyncio.Lock()

    @property
    def running(self) -> bool:
        """Return whether the scheduler runs."""
        return self.scheduler is not None and self.scheduler.running

    async def _schema(self) -> str | None:
        if self.db.is_sqlite:
            return None
        async with self.db.session() as session:
            schema = await session.scalar(text("SELECT current_schema()"))
        return None if schema in (None, "public") else str(schema)

    async def start(self, services: OpsServices, poster: Poster) -> bool:
        """Stand for the scheduler's lease: run the jobs now if this process takes it, else whenever it does.

        False (logged) when the jobs cannot run here at all.
        """
        if self._keeper is not None:
            return True
        self._started_with = (services, poster)
        try:
            held = await self.lease.acquire()
        except Exception as error:  # a read-only or unreachable database: the keeper tries again
            log.warning(
                "the scheduler's lease cannot be taken now (%s); trying again", storage_fault(error) or error
            )
            held = False
        # The keeper renews the lease from now on, while the jobs start: starting them (imports, the job store's
        # table, the reconciliation) can outlast a lease on a loaded machine, and another process would take it.
        self._keeper = asyncio.create_task(self._keep(held), name="scheduler-lease")
        if held and not await self._run_jobs(services, poster):
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None
            await self.lease.release()
            return False
        return True

    async def _keep(self, held: bool) -> None:
        """Renew the lease every third of it; take it over when free; stop the jobs when it is lost."""
        interval = self.lease.seconds / 3
        confirmed = time.monotonic() if held else 0.0
        while True:
            await asyncio.sleep(interval)
            try:
                held = await self.lease.acquire()
            except Exception:  # the database is away: keep the jobs only while the lease surely holds
                held = self.running and time.monotonic() - confirmed < self.lease.seconds - interval
                log.warning("could not renew the scheduler's lease", exc_info=True)
            else:
                if held:
                    confirmed = time.monotonic()
            try:
                if (
                    held
                    and not self.running
                    and self._started_with is not None
                    and not self._starting.locked()
                ):
                    log.info("this process holds the scheduler's lease: it runs the scheduled jobs")
                    if not await self._run_jobs(*self._started_with):
                        await self.lease.release()
                        return
                elif not held and self.running and not self._starting.locked():
                    log.warning("the scheduler's lease passed to another process: this one stops its jobs")
                    await self._stop_jobs()
            except Exception:
                log.exception("the scheduler did not start or stop as its lease asked; trying again")

    async def _run_jobs(self, services: OpsServices, poster: Poster) -> bool:
        """Start the scheduler, adding the system jobs and session reminders that are missing.

        False (logged) when it cannot run.
        """
        async with self._starting:
            return await self._start_jobs(services, poster)

    async def _start_jobs(self, services: OpsServices, poster: Poster) -> bool:
        if self.running:
            return True
        try:
            self._engine, scheduler = await asyncio.to_thread(
                build_scheduler, self.db, self.settings, await self._schema(), asyncio.get_running_loop()
            )
        except ImportError as error:
            self.error = (
                f"scheduled jobs are off: the synchronous PostgreSQL driver is missing ({error}); "
                "install psycopg[binary]"
            )
            log.error(self.error)
            return False
        self.runtime = JobRuntime(services, poster, self)
        install(self.runtime)
        self.scheduler = scheduler
        # Paused until every job is in place, so a due job cannot run against a half-set-up store.
        await asyncio.to_thread(scheduler.start, paused=True)
        await asyncio.to_thread(_ensure_system_jobs, scheduler, self.settings, self.db.is_sqlite)
        await self.reconcile(services.ops, at_start=True)
        scheduler.resume()
        log.info("scheduler started with %d jobs", len(await self.pending()))
        return True

    async def reconcile(self, ops: OperationsService, *, at_start: bool = False) -> Reconciled:
        """Give each scheduled session the reminder job it should have; remove the jobs of the others.

        A session row without its job (a crash in between, or it was scheduled by a process whose scheduler
        is off, such as one running other shards) gets one; a job made from an older version of its session
        is made again (unless it is due: it reads the session when it runs); a job whose session was
        cancelled, is over or is gone is removed. Logged as a warning at start (something was lost), else as
        information (another process scheduled or cancelled a session).
        """
        if self.scheduler is None:
            return Reconciled()
        # Jobs first, sessions second: this process commits a session before it adds the job, so a job read
        # here always has its session in the read below, and is never taken for a cancelled one's.
        found = await asyncio.to_thread(_session_jobs, self.scheduler)
        sessions = await ops.sessions()
        done = await asyncio.to_thread(self._reconcile, found, sessions, utc_now())
        level = logging.WARNING if at_start else logging.INFO
        for ids, what in (
            (done.added, "re-added the reminder jobs of %d scheduled sessions that had none: %s"),
            (done.replaced, "remade the reminder jobs of %d scheduled sessions that changed: %s"),
            (done.removed, "removed the reminder jobs of %d sessions no longer scheduled: %s"),
        ):
            if ids:
                named = ", ".join(f"#{i}" for i in ids[:20]) + (
                    f" and {len(ids) - 20} more" if len(ids) > 20 else ""
                )
                log.log(level, what, len(ids), named)
        return done

    def _reconcile(
        self, found: dict[int, Any], sessions: list[ScheduledSession], now: dt.datetime
    ) -> Reconciled:
        from apscheduler.jobstores.base import JobLookupError

        assert self.scheduler is not None
        done = Reconciled()
        for scheduled in sessions:
            job = found.get(scheduled.id)
            if job is None:
                self._add_session_job(scheduled, now)
                done.added.append(scheduled.id)
            elif job.name != self.session_job_name(scheduled) and not (
                job.next_run_time is not None and job.next_run_time <= now
            ):
                self._add_session_job(scheduled, now)
                done.replaced.append(scheduled.id)
        wanted = {s.id for s in sessions}
        for session_id, job in sorted(found.items()):
            if session_id not in wanted:
                with contextlib.suppress(JobLookupError):
                    self.scheduler.remove_job(job.id)
                done.removed.append(session_id)
        return done

    async def shutdown(self) -> None:
        """Stop the scheduler (running jobs are not waited for), give up its lease and close its connections."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.cancel()
            await asyncio.gather(keeper, return_exceptions=True)
        held = self.running
        await self._stop_jobs()
        if held:
            try:
                await self.lease.release()
            except Exception:  # it expires on its own
                log.warning(
                    "could not give up the scheduler's lease; another process takes it when it expires"
                )

    async def _stop_jobs(self) -> None:
        """Stop the scheduler (running jobs are not waited for) and close its connections."""
        scheduler, self.scheduler = self.scheduler, None
        if scheduler is not None and scheduler.running:
            # Paused first, and a wake-up still in the store waited for: stopping takes the store's lock, on
            # the loop, which a wake-up blocked on the database would hold.
            scheduler.pause()
            if scheduler.inflight is not None:
                with contextlib.suppress(Exception):
                    await scheduler.inflight
            scheduler.shutdown(wait=False)  # asyncio's scheduler stops in a loop callback: let it run
            for _ in range(100):
                if not scheduler.running:
                    break
                await asyncio.sleep(0)
            log.info("scheduler stopped")
        uninstall(self.runtime)
        self.runtime = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    async def pending(self) -> list[tuple[str, dt.datetime | None]]:
        """Return every job's id and next run time (UTC), soonest first."""
        scheduler = self.scheduler
        if scheduler is None:
            return []
        jobs = [(job.id, job.next_run_time) for job in await asyncio.to_thread(scheduler.get_jobs)]
        far = dt.datetime.max.replace(tzinfo=dt.UTC)
        return sorted(jobs, key=lambda j: j[1] or far)

    # -- session reminders --------------------------------------------------------------------------

    async def schedule_session(self, scheduled: ScheduledSession) -> None:
        """Add (or replace) the reminder job of a scheduled session."""
        if self.scheduler is not None:
            await asyncio.to_thread(self._add_session_job, scheduled, utc_now())

    def session_job_name(self, scheduled: ScheduledSession) -> str:
        """Return the name of a session's reminder job: what it is made from, which tells when it is stale."""
        starts = scheduled.starts_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            f"session #{scheduled.id} reminder: {scheduled.repeat} from {starts} in {scheduled.timezone}, "
            f"{self.settings.ops.session_reminder_minutes} min before"
        )

    def _add_session_job(self, scheduled: ScheduledSession, now: dt.datetime) -> None:
        assert self.scheduler is not None
        options: dict[str, Any] = {}
        lead = dt.timedelta(minutes=self.settings.ops.session_reminder_minutes)
        upcoming = scheduled.next_start(now)
        if (
            scheduled.repeat != "none"
            and upcoming is not None
            and upcoming - lead <= now
            and scheduled.reminded_for != upcoming
        ):
            # Its next start is nearer than the lead time (scheduled late, or the job is made late): the
            # trigger's first fire would be the start after it, so this one is reminded of now.
            options["next_run_time"] = now + dt.timedelta(seconds=1)
        self.scheduler.add_job(
            "bot.ops.jobs:session_reminder_job",
            self.reminder_trigger(scheduled.starts_at, scheduled.timezone, scheduled.repeat, now),
            args=[scheduled.id],
            id=session_job_id(scheduled.id),
            name=self.session_job_name(scheduled),
            replace_existing=True,
            **options,
        )

    def reminder_trigger(
        self, starts_at: dt.datetime, tz_name: str, repeat: str, now: dt.datetime | None = None
    ) -> Any:
        """Return when a session's reminder fires: the lead time before its start (each start, if it repeats)."""
        return reminder_trigger(starts_at, tz_name, repeat, self.settings.ops.session_reminder_minutes, now)

    async def cancel_session(self, session_id: int) -> None:
        """Remove a session's reminder job (missing is fine)."""
        from apscheduler.jobstores.base import JobLookupError

        scheduler = self.scheduler
        if scheduler is None:
            return

        def remove() -> None:
            with contextlib.suppress(JobLookupError):
                scheduler.remove_job(session_job_id(session_id))

        await asyncio.to_thread(remove)


def session_job_id(session_id: int) -> str:
    """Return the job id of a scheduled session's reminder."""
    return f"{SESSION_JOB_PREFIX}{session_id}"


def _session_jobs(scheduler: AsyncIOScheduler) -> dict[int, Any]:
    found: dict[int, Any] = {}
    for job in scheduler.get_jobs():
        number = job.id.removeprefix(SESSION_JOB_PREFIX)
        if job.id.startswith(SESSION_JOB_PREFIX) and number.isdigit():
            found[int(number)] = job
    return found


def _ensure_system_jobs(scheduler: AsyncIOScheduler, settings: Settings, is_sqlite: bool) -> None:
    from apscheduler.triggers.cron import CronTrigger
    from apscheduler.triggers.interval import IntervalTrigger

    ops = settings.ops
    wanted: dict[str, tuple[str, Any] | None] = {
        # Always on: a server may turn idle reminders on for itself when the default is off.
        IDLE_JOB: ("bot.ops.jobs:idle_scene_job", IntervalTrigger(seconds=ops.idle_check_seconds)),
        CONTINUITY_JOB: (
            ("bot.ops.jobs:continuity_job", CronTrigger(hour=ops.continuity_hour_utc, minute=0))
            if ops.continuity_hour_utc >= 0
            else None
        ),
        BACKUP_JOB: (
            ("bot.ops.jobs:backup_job", IntervalTrigger(hours=ops.backup_interval_hours))
            if ops.backup_interval_hours > 0 and is_sqlite
            else None
        ),
        REINDEX_JOB: ("bot.ops.jobs:resume_indexing_job", IntervalTrigger(minutes=15)),
        RECONCILE_JOB: (
            "bot.ops.jobs:reconcile_sessions_job",
            IntervalTrigger(seconds=RECONCILE_SECONDS),
        ),
    }
    for job_id, spec in wanted.items():
        existing = scheduler.get_job(job_id)
        if spec is None:
            if existing is not None:
                existing.remove()
            continue
        func, trigger = spec
        if existing is None:
            scheduler.add_job(func, trigger, id=job_id, name=job_id)
        elif str(existing.trigger) != str(trigger):
            existing.reschedule(trigger)  # the setting changed: the new interval counts from now
