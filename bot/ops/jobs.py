"""The scheduled jobs, and the registry through which they find the running bot's services.

APScheduler pickles a job as a reference to a module-level function plus its arguments (`bot.ops.jobs:name`),
so the jobs are plain functions of ids. They find the running bot's services through a small registry
(`install` / `current`): exactly one runtime per process, installed when the scheduler starts and removed when
it stops. A job that fires with no runtime (the bot is stopping) does nothing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.ops.logs import log_context
from bot.ops.timeparse import discord_time
from canon.storage import utc_now
from canon.wording import warning_sentence
from canon.wording.counts import counted

if TYPE_CHECKING:
    from bot.ops.ports import OpsServices, SessionScheduler

log = logging.getLogger(__name__)


class ChannelGone(Exception):
    """The channel a job posts to no longer exists (or the bot may no longer post there)."""


class Poster(Protocol):
    """Where jobs post: a channel by id. Raises `ChannelGone` when the channel is deleted or closed to us."""

    async def post(self, channel_id: int, content: str, *, ping_role_id: int | None = None) -> None:
        """Post `content`; it may mention the role `ping_role_id`, and nobody else."""
        ...


@dataclass
class JobRuntime:
    """What a running job needs: the services, a way to post, and the scheduler (to drop its own job)."""

    services: OpsServices
    poster: Poster
    scheduler: SessionScheduler


_runtime: JobRuntime | None = None


def install(runtime: JobRuntime) -> None:
    """Make a runtime the one jobs of this process use."""
    global _runtime
    if _runtime is not None and _runtime is not runtime:
        log.warning("a job runtime was already installed; replacing it")
    _runtime = runtime


def uninstall(runtime: JobRuntime | None = None) -> None:
    """Remove the runtime (only `runtime`, when given)."""
    global _runtime
    if runtime is None or _runtime is runtime:
        _runtime = None


def current() -> JobRuntime | None:
    """Return the installed runtime, if any."""
    return _runtime


async def session_reminder_job(session_id: int) -> None:
    """Remind a scheduled session's players in its channel; drop the job when the channel is gone."""
    runtime = current()
    if runtime is None:
        log.info("session #%s reminder skipped: the bot is not running", session_id)
        return
    ops = runtime.services.ops
    with log_context(job="session-reminder", session=session_id):
        scheduled = await ops.get_session(session_id)
        if scheduled is None or scheduled.status != "scheduled":
            await runtime.scheduler.cancel_session(session_id)
            return
        now = utc_now()
        lead = dt.timedelta(minutes=runtime.services.settings.ops.session_reminder_minutes)
        occurrence = scheduled.next_start(now - dt.timedelta(minutes=1))
        if occurrence is None or occurrence - now > lead + dt.timedelta(minutes=5):
            # Fired so late that the session it was for has begun: nothing useful to say.
            log.info("session #%s reminder skipped: its occurrence has already started", session_id)
            if scheduled.repeat == "none":
                await ops.set_session_status(session_id, "done")
            return
        if not await ops.claim_reminder(session_id, occurrence):
            log.info("session #%s reminder for %s already sent", session_id, occurrence.isoformat())
            return
        text = (
            (f"<@&{scheduled.ping_role_id}> " if scheduled.ping_role_id else "")
            + f"⏰ **{scheduled.title}** starts {discord_time(occurrence, 'F')} ({discord_time(occurrence, 'R')})."
            + (f" It repeats {scheduled.repeat}." if scheduled.repeat != "none" else "")
        )
        try:
            await runtime.poster.post(scheduled.channel_id, text, ping_role_id=scheduled.ping_role_id)
        except ChannelGone:
            await ops.set_session_status(session_id, "dropped")
            await runtime.scheduler.cancel_session(session_id)
            log.warning(
                "session #%s reminder dropped: channel %s was deleted; the session is cancelled",
                session_id,
                scheduled.channel_id,
            )


async def reconcile_sessions_job() -> None:
    """Give sessions scheduled by another process their reminder jobs, and drop those of cancelled ones."""
    runtime = current()
    if runtime is None:
        return
    with log_context(job="session-jobs"):
        await runtime.scheduler.reconcile(runtime.services.ops)


async def idle_scene_job() -> None:
    """Tell the GM about active scenes that have gone quiet (once per quiet stretch)."""
    runtime = current()
    if runtime is None:
        return
    ops = runtime.services.ops
    for scene in await ops.quiet_scenes():
        with log_context(job="idle-scene", scene=scene.scene_id):
            hours = (utc_now() - scene.last_activity).total_seconds() / 3600
            text = (
                f"💤 The scene “{scene.title}” in <#{scene.channel_id}> has had no turn for "
                f"{hours:.1f} h (since {discord_time(scene.last_activity, 'f')}). "
                "Nudge the players, or end it with `/endscene`."
            )
            target = scene.gm_channel_id or scene.channel_id
            try:
                await runtime.poster.post(target, text)
            except ChannelGone:
                log.warning(
                    "idle reminder for scene %s dropped: channel %s was deleted", scene.scene_id, target
                )
            await ops.mark_reminded(scene.scene_id, scene.last_activity)


async def continuity_job() -> None:
    """Check every server's campaign graph and post only the conflicts never reported before to its GMs."""
    runtime = current()
    if runtime is None:
        return
    services = runtime.services
    for campaign in await services.campaigns.in_play():
        if campaign.guild_id is None:
            continue
        with log_context(job="continuity", campaign=campaign.id):
            settings = await services.ops.guild(campaign.guild_id)
            if settings.gm_channel_id is None:
                log.info("nightly check skipped: no GM channel set (/server gm-channel)")
                continue
            _, new = await services.queries.check(campaign)
            if not new:
                continue
            lines = [
                f"🧭 Nightly continuity check of “{campaign.name}”: {counted(len(new), 'new conflict')}."
            ]
            lines += [f"• {warning_sentence(finding.message)}" for finding in new[:10]]
            if len(new) > 10:
                lines.append(f"…and {len(new) - 10} more: `/canon conflicts`.")
            try:
                await runtime.poster.post(settings.gm_channel_id, "\n".join(lines)[:1990])
            except ChannelGone:
                log.warning("nightly check report dropped: GM channel %s was deleted", settings.gm_channel_id)


async def backup_job() -> None:
    """Take an online backup of the SQLite database and keep the newest `backup_keep`."""
    runtime = current()
    if runtime is None:
        return
    from bot.ops.backup import backup_dir, backup_to, prune

    settings = runtime.services.settings
    db = runtime.services.db
    if not db.is_sqlite or not db.engine.url.database:
        return
    with log_context(job="backup"):
        folder = backup_dir(settings)
        target = await asyncio.to_thread(backup_to, Path(db.engine.url.database), folder)
        removed = await asyncio.to_thread(prune, folder, settings.ops.backup_keep)
        log.info("backup written to %s (%d old backups removed)", target, len(removed))


async def resume_indexing_job() -> None:
    """Re-embed sources whose vectors failed (a Chroma server that was down): indexing resumes by itself."""
    runtime = current()
    if runtime is None:
        return
    from bot.ops.recovery import resume_indexing

    await resume_indexing(runtime.services.knowledge)
