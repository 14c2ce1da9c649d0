"""What `/admin status` shows, gathered from the services (no Discord here).

A server's admin sees their own server: its campaign's counts and LLM use, its commands' latencies and its
sessions' reminder jobs (with the bot's own system jobs); the database size and the scheduler are the bot's.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict

from bot.ops.ledger import UsageLine
from bot.ops.metrics import Latency
from bot.ops.operations import TableCounts
from bot.ops.scheduler import SYSTEM_JOB_PREFIX, session_job_id
from config.settings import _shown

if TYPE_CHECKING:
    from bot.ops.ports import OpsServices


class ServerStatus(BaseModel):
    """What `/admin status` shows a server's admin."""

    model_config = ConfigDict(frozen=True)

    database: str
    """The database's kind: SQLite or PostgreSQL."""
    database_bytes: int | None
    counts: TableCounts
    jobs: list[tuple[str, dt.datetime | None]] | None
    """The server's pending jobs and the bot's own, each with its next run (None: paused); None: no scheduler."""
    latencies: dict[str, Latency]
    """Per command, and `*` for all of them together."""
    tokens: list[UsageLine]
    llm: str
    """The language model and its endpoint as an admin may see them, or that none is configured."""


async def collect(services: OpsServices, guild_id: int, campaign_id: int | None) -> ServerStatus:
    """Return database size and counts, pending jobs, command latencies and LLM token use of a server."""
    counts = await services.ops.counts(campaign_id)
    jobs = None
    scheduler = services.scheduler
    settings = services.settings
    pending = None
    if scheduler is not None and scheduler.running:
        pending = await scheduler.pending()
    elif settings.ops.scheduler_enabled:
        # Another process (the holder of the scheduler's lease) runs the jobs; their store is the shared database.
        pending = await services.ops.stored_jobs()
    if pending is not None:
        own = {session_job_id(s.id) for s in await services.ops.sessions(guild_id)}
        jobs = [
            (job_id, when)
            for job_id, when in pending
            if job_id.startswith(SYSTEM_JOB_PREFIX) or job_id in own
        ]
    usage = await services.ledger.usage(campaign_id) if campaign_id is not None else []
    llm = settings.llm
    return ServerStatus(
        database="SQLite" if services.db.is_sqlite else "PostgreSQL",
        database_bytes=await services.ops.database_size(),
        counts=counts,
        jobs=jobs,
        latencies=services.metrics.summary(guild_id),
        tokens=usage,
        llm=f"{llm.model} at {shown_url(llm.base_url)}: no calls yet"
        if llm.configured
        else "no LLM configured",
    )


def shown_url(url: str | None) -> str:
    """Return an endpoint URL as an admin may see it: its password masked (as the settings screen masks
    database passwords), its query and fragment (where API keys are passed too) left off."""
    if not url:
        return "(none)"
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:  # quoted, so that a password holding "@" is masked whole
            user, host = parts.username or "", netloc.rpartition("@")[2]
            netloc = f"{user}:{quote(parts.password, safe='')}@{host}"
        url = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    except ValueError:
        url = url.split("?", 1)[0].split("#", 1)[0]
    return _shown(url)
