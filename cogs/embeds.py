"""Pure renderers: domain objects in, embeds and files out. Testable without a Discord connection."""

from __future__ import annotations

import datetime as dt

import discord

from memory.scenes import Scene, SceneReport, SpeakerKind, Turn

COLOUR = discord.Colour.dark_gold()
FIELD_LIMIT = 1024


def human_duration(delta: dt.timedelta) -> str:
    """Return a duration like `2 h 05 min` or `40 s`."""
    seconds = max(0, int(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def clip(text: str, limit: int) -> str:
    """Return text cut to `limit` characters with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scene_started_embed(scene: Scene) -> discord.Embed:
    """Render the announcement of a new scene."""
    embed = discord.Embed(title=f"Scene {scene.story_order}: {scene.title}", colour=COLOUR)
    embed.description = "Every message in this channel is now logged as a turn of the scene."
    if scene.location:
        embed.add_field(name="Location", value=clip(scene.location, FIELD_LIMIT))
    embed.set_footer(text=f"Started by {scene.started_by_name or 'the GM'}")
    return embed


def scene_report_embed(report: SceneReport, *, heading: str) -> discord.Embed:
    """Render a scene's counts: turns, participants and duration."""
    scene = report.scene
    embed = discord.Embed(title=f"{heading}: {scene.title}", colour=COLOUR)
    embed.add_field(name="Turns", value=str(report.turn_count))
    embed.add_field(name="Duration", value=human_duration(report.duration))
    embed.add_field(name="Status", value=scene.status.value)
    if scene.location:
        embed.add_field(name="Location", value=clip(scene.location, FIELD_LIMIT), inline=False)
    people = ", ".join(f"{p.name} ({p.turns})" for p in report.participants) or "nobody spoke"
    embed.add_field(name="Participants", value=clip(people, FIELD_LIMIT), inline=False)
    embed.set_footer(text=f"Scene {scene.story_order} · started {scene.started_at:%Y-%m-%d %H:%M} UTC")
    return embed


def transcript_text(scene: Scene, turns: list[Turn]) -> str:
    """Render a scene's transcript as Markdown: every turn verbatim, edits marked, deleted turns as tombstones.

    Anyone in the channel may download it, so a deleted message shows only that it was there: its text,
    attachments and embeds stay in the database (the turn's history) but not in the file.
    """
    lines = [f"# Scene {scene.story_order}: {scene.title}", ""]
    if scene.location:
        lines += [f"Location: {scene.location}", ""]
    lines += [f"Started {scene.started_at:%Y-%m-%d %H:%M} UTC by {scene.started_by_name or 'the GM'}.", ""]
    for turn in turns:
        speaker = "" if turn.speaker == SpeakerKind.PLAYER else f" ({turn.speaker.value})"
        marks = []
        if turn.edited_at:
            marks.append("edited")
        if turn.deleted_at:
            marks.append("deleted")
        suffix = f" [{', '.join(marks)}]" if marks else ""
        lines.append(f"**{turn.number}. {turn.author_name}{speaker}** {turn.created_at:%H:%M:%S}{suffix}")
        if turn.is_deleted:
            lines += ["*(message deleted)*", ""]
            continue
        if turn.text:
            lines.append(turn.text)
        for attachment in turn.attachments:
            lines.append(
                f"[attachment: {attachment.get('filename', '?')}, {attachment.get('size', '?')} bytes]"
            )
        for embed in turn.embeds:
            lines.append(
                f"[embed: {embed.get('title') or embed.get('description') or embed.get('type', '')}]"
            )
        lines.append("")
    return "\n".join(lines)
