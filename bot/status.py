"""What `/admin status` shows, gathered from the services (no Discord here)."""

from __future__ import annotations

from typing import Any

from bot.services import Services


async def collect(services: Services, campaign_id: int | None) -> dict[str, Any]:
    """Return database size and counts, pending jobs, command latencies and LLM token use."""
    counts = await services.ops.counts(campaign_id)
    jobs = (
        services.scheduler.pending()
        if services.scheduler is not None and services.scheduler.running
        else None
    )
    usage = await services.ledger.usage(campaign_id) if campaign_id is not None else []
    llm = services.settings.llm
    return {
        "database": "SQLite" if services.db.is_sqlite else "PostgreSQL",
        "database_bytes": await services.ops.database_size(),
        "counts": counts,
        "jobs": jobs,
        "latencies": services.metrics.summary(),
        "tokens": [line.model_dump() for line in usage],
        "llm": f"{llm.model} at {llm.base_url}: no calls yet" if llm.configured else "no LLM configured",
    }
