"""What `/admin status` shows, gathered from the services (no Discord here).

A server's admin sees their own server: its campaign's counts and LLM use, its commands' latencies and its
sessions' reminder jobs (with the bot's own system jobs); the database size and the scheduler are the bot's.
"""

from __future__ import annotations

from typing import Any

from bot.scheduler import SYSTEM_JOB_PREFIX, session_job_id
from bot.services import Services


async def collect(services: Services, guild_id: int, campaign_id: int | None) -> dict[str, Any]:
    """Return database size and counts, pending jobs, command latencies and LLM token use of a server."""
    counts = await services.ops.counts(campaign_id)
    jobs = None
    scheduler = services.scheduler
    if scheduler is not None and scheduler.running:
        own = {session_job_id(s.id) for s in await services.ops.sessions(guild_id)}
        jobs = [
            (job_id, when)
            for job_id, when in await scheduler.pending()
            if job_id.startswith(SYSTEM_JOB_PREFIX) or job_id in own
        ]
    usage = await services.ledger.usage(campaign_id) if campaign_id is not None else []
    llm = services.settings.llm
    return {
        "database": "SQLite" if services.db.is_sqlite else "PostgreSQL",
        "database_bytes": await services.ops.database_size(),
        "counts": counts,
        "jobs": jobs,
        "latencies": services.metrics.summary(guild_id),
        "tokens": [line.model_dump() for line in usage],
        "llm": f"{llm.model} at {llm.base_url}: no calls yet" if llm.configured else "no LLM configured",
    }
