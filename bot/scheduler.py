"""The job functions under the name jobs saved by earlier versions use (`bot.scheduler:...`).

APScheduler keeps each job's function as a `module:name` reference in the database; jobs saved before the
jobs moved to `bot.ops.jobs` still name this module, and must load. New jobs name `bot.ops.jobs`.
"""

from __future__ import annotations

from bot.ops.jobs import (
    backup_job,
    continuity_job,
    idle_scene_job,
    reconcile_sessions_job,
    resume_indexing_job,
    session_reminder_job,
)

__all__ = [
    "backup_job",
    "continuity_job",
    "idle_scene_job",
    "reconcile_sessions_job",
    "resume_indexing_job",
    "session_reminder_job",
]
