"""Pure renderers for the operations commands: scheduled sessions and `/admin status`."""

from __future__ import annotations

import datetime as dt

import discord

from bot.client import limits
from bot.ops.metrics import Latency
from bot.ops.operations import GuildOps, ScheduledSession
from bot.ops.status import ServerStatus
from bot.ops.timeparse import discord_time
from cogs.embeds import escape_with_mentions

REPEAT_TEXT = {"none": "once", "daily": "every day", "weekly": "every week"}


def _size(count: int | None) -> str:
    if count is None:
        return "unknown"
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} TB"  # pragma: no cover


def title_text(title: str) -> str:
    """Return a session's title as typed, to show in bold: its markdown, backslashes and mentions inert."""
    return escape_with_mentions(title)


def session_line(session: ScheduledSession, now: dt.datetime, number: int) -> str:
    """Return one line about a scheduled session: its place in the list, title, next start (Discord
    timestamps), repeat, channel (a GM cancels one by picking it from `/session cancel`'s suggestions)."""
    start = session.next_start(now) or session.starts_at
    return (
        f"{number}. **{title_text(session.title)}**: {discord_time(start, 'F')} "
        f"({discord_time(start, 'R')}), {REPEAT_TEXT.get(session.repeat, session.repeat)}, in <#{session.channel_id}>"
        + (f", pings <@&{session.ping_role_id}>" if session.ping_role_id else "")
    )


def scheduled_text(
    session: ScheduledSession, reminder_minutes: int, now: dt.datetime, *, role_pingable: bool = True
) -> str:
    """Return the confirmation of `/session schedule`.

    Discord notifies a role only when it is mentionable or the bot has Mention Everyone: when neither holds
    (`role_pingable` false), the GM is told how to fix it.
    """
    start = session.next_start(now) or session.starts_at
    reminder = (
        f" I will post a reminder here {reminder_minutes} minutes before"
        if reminder_minutes
        else " I will post a reminder here when it starts"
    )
    reminder += f", pinging <@&{session.ping_role_id}>." if session.ping_role_id else "."
    text = (
        f"📅 **{title_text(session.title)}** is scheduled for "
        f"{discord_time(start, 'F')} ({discord_time(start, 'R')}), {REPEAT_TEXT[session.repeat]} "
        f"(read in {session.timezone}; everyone sees it in their own time).{reminder}"
    )
    if session.ping_role_id and not role_pingable:
        text += (
            f"\n⚠️ Discord will not notify <@&{session.ping_role_id}> yet: the role is not mentionable and I lack "
            "the *Mention Everyone* permission. Turn on *Allow anyone to @mention this role* in Server Settings → "
            "Roles, or give me *Mention Everyone* (I still never ping @everyone)."
        )
    return text


#: The line under a page of `/session list` that is not the last.
MORE_SESSIONS = "Page {page} of {pages}: `/session list page:{next}` shows more."


def sessions_pages(sessions: list[ScheduledSession], now: dt.datetime) -> list[str]:
    """Return `/session list` as pages that each fit one message (whole lines, the page line included)."""
    if not sessions:
        return ["No sessions are scheduled. A GM can add one with `/session schedule`."]
    room = limits.MESSAGE - len(MORE_SESSIONS.format(page=999, pages=999, next=999)) - 1
    return limits.pages((session_line(s, now, n) for n, s in enumerate(sessions, start=1)), room)


def sessions_text(sessions: list[ScheduledSession], now: dt.datetime, page: int = 1) -> str:
    """Return one page of a server's scheduled sessions (the last page when `page` is past it)."""
    found = sessions_pages(sessions, now)
    index = min(max(page, 1), len(found)) - 1
    if index == len(found) - 1:
        return found[index]
    return found[index] + "\n" + MORE_SESSIONS.format(page=index + 1, pages=len(found), next=index + 2)


def guild_settings_text(settings: GuildOps) -> str:
    """Return a server's operational settings in one message."""
    channel = (
        f"<#{settings.gm_channel_id}>" if settings.gm_channel_id else "not set (reminders go to the scene)"
    )
    idle = f"{settings.idle_minutes} minutes" if settings.idle_minutes else "off"
    return f"Server time zone: **{settings.timezone}**. GM channel: {channel}. Idle-scene reminder: {idle}."


def status_embed(status: ServerStatus) -> discord.Embed:
    """Return the `/admin status` embed of what `bot.ops.status.collect` gathered."""
    embed = discord.Embed(title="Lorekeeper status", colour=discord.Colour.dark_teal())
    counts = status.counts
    embed.add_field(
        name="Database",
        value=(
            f"{status.database} · {_size(status.database_bytes)}\n"
            f"{counts.campaigns:,} campaigns · {counts.scenes:,} scenes · {counts.turns:,} turns\n"
            f"{counts.canon_rows:,} canon rows ({counts.entities:,} entities, "
            f"{counts.statements:,} facts) · {counts.sources:,} sources · {counts.chunks:,} chunks"
        ),
        inline=False,
    )
    jobs = status.jobs
    if jobs is None:
        jobs_text = "scheduler off"
    elif not jobs:
        jobs_text = "none"
    else:
        jobs_text = "\n".join(
            f"`{job_id}` {discord_time(when, 'R') if when else '(paused)'}" for job_id, when in jobs[:8]
        )
        if len(jobs) > 8:
            jobs_text += f"\n…and {len(jobs) - 8} more"
    embed.add_field(
        name=f"Pending jobs ({len(jobs or [])})", value=jobs_text[: limits.FIELD_VALUE], inline=False
    )
    latencies = status.latencies
    if latencies:
        overall = latencies.get("*", Latency(count=0, p50_ms=0, p95_ms=0))
        rows = [
            f"`{name}` p50 {v.p50_ms:.0f} ms · p95 {v.p95_ms:.0f} ms ({v.count})"
            for name, v in sorted(latencies.items(), key=lambda kv: -kv[1].count)
            if name != "*"
        ][:8]
        head = f"all: p50 {overall.p50_ms:.0f} ms · p95 {overall.p95_ms:.0f} ms\n"
        embed.add_field(
            name="Command latency (recent)",
            value=(head + "\n".join(rows))[: limits.FIELD_VALUE],
            inline=False,
        )
    else:
        embed.add_field(name="Command latency (recent)", value="no commands yet", inline=False)
    tokens = status.tokens
    if tokens:
        lines = [
            f"{t.purpose} ({t.model}): {t.calls:,} calls, {t.prompt_tokens:,} + {t.completion_tokens:,} tokens"
            for t in tokens[:6]
        ]
        embed.add_field(
            name="LLM tokens (this server)", value="\n".join(lines)[: limits.FIELD_VALUE], inline=False
        )
    else:
        embed.add_field(name="LLM tokens (this server)", value=status.llm, inline=False)
    return embed


def session_choice_label(session: ScheduledSession, now: dt.datetime) -> str:
    """Return how `/session cancel` suggests a session: its title and next start, in UTC."""
    start = session.next_start(now) or session.starts_at
    return f"{session.title} — {start:%a %d %b %Y, %H:%M} UTC"
