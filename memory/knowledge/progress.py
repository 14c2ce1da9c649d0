"""Progress of an import or a reindex, reported to whoever watches it (a Discord message, a terminal)."""

from __future__ import annotations

import inspect
import logging

from memory.knowledge.source_models import ImportProgress, ProgressCallback

log = logging.getLogger(__name__)


async def report_progress(progress: ProgressCallback | None, update: ImportProgress) -> None:
    """Send a progress report to the callback, if any; a failing callback is logged, never raised."""
    if progress is None:
        return
    try:
        result = progress(update)
        if inspect.isawaitable(result):
            await result
    except Exception:  # a broken progress display must not fail an import
        log.exception("the import progress callback failed")
