"""What operations need of the rest of the application, as ports: the services jobs and `/admin status` read,
and the scheduler a job asks to drop or rebuild reminders. The composition root's `Services` and
`bot.ops.scheduler.JobScheduler` are what production hands in; nothing here imports them."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from bot.ops.ledger import SqlTokenLedger
from bot.ops.metrics import CommandLatencies
from bot.ops.operations import OperationsService
from bot.services.campaigns import CampaignService
from bot.services.canon_queries import CanonQueries
from canon.storage import Database
from config.settings import Settings
from memory.knowledge.service import KnowledgeService


class SessionScheduler(Protocol):
    """The scheduler as a job sees it: drop a session's reminder, give every session the job it should have."""

    async def cancel_session(self, session_id: int) -> None:
        """Remove a session's reminder job (missing is fine)."""
        ...

    async def reconcile(self, ops: OperationsService, *, at_start: bool = False) -> object:
        """Give each scheduled session the reminder job it should have; remove the jobs of the others."""
        ...


class SchedulerView(Protocol):
    """The scheduler as `/admin status` reads it."""

    @property
    def running(self) -> bool:
        """Return whether the scheduler runs in this process."""
        ...

    async def pending(self) -> list[tuple[str, dt.datetime | None]]:
        """Return every job's id and next run time (UTC), soonest first."""
        ...


class OpsServices(Protocol):
    """The services the scheduled jobs and `/admin status` use (read only)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def db(self) -> Database: ...

    @property
    def ops(self) -> OperationsService: ...

    @property
    def campaigns(self) -> CampaignService: ...

    @property
    def queries(self) -> CanonQueries: ...

    @property
    def knowledge(self) -> KnowledgeService: ...

    @property
    def ledger(self) -> SqlTokenLedger: ...

    @property
    def metrics(self) -> CommandLatencies: ...

    @property
    def scheduler(self) -> SchedulerView | None: ...
