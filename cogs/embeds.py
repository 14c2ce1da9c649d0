"""Pure renderers: domain objects in, embeds and files out. Testable without a Discord connection."""

from __future__ import annotations

import datetime as dt
from typing import NotRequired, TypedDict

import discord

from bot.client.limits import FIELD_VALUE
from bot.client.limits import clip as clip
from canon.wording import PLAIN, CalendarWords
from canon.wording.counts import counted as counted
from memory.scenes import Scene, SceneReport, SceneStatus, SpeakerKind, Turn


class MessageContent(TypedDict):
    """What a card or a page shows, passed whole to `send_message`, `edit_message`, a webhook's edit or
    `replies.answer`: its embed and, when it has any, its controls. Whom it may ping (never anyone) and any
    text above it are the sender's arguments."""

    embed: discord.Embed
    view: NotRequired[discord.ui.View]


#: The embeds' colours: the usual, a warning or a question to answer, done, failed.
COLOUR = discord.Colour.dark_gold()
WARNING_COLOUR = discord.Colour.orange()
DONE_COLOUR = discord.Colour.green()
ERROR_COLOUR = discord.Colour.red()
STATUS_WORDS = {
    SceneStatus.ACTIVE: "Running",
    SceneStatus.REVIEW: "Waiting for the GM's canon review",
    SceneStatus.COMPLETED: "Done",
}


def escape(text: str) -> str:
    """Return user text that cannot break out of a markdown link or a strikethrough."""
    return discord.utils.escape_markdown(text)


def escape_with_mentions(text: str) -> str:
    """Return user or imported text shown as itself: its markdown escaped and its mentions pinging nobody."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def human_duration(delta: dt.timedelta) -> str:
    """Return a duration like `2 h 05 min`, `3 min 20 s` or `under a minute`."""
    seconds = max(0, int(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return "under a minute"


def scene_started_embed(scene: Scene, words: CalendarWords = PLAIN.calendar) -> discord.Embed:
    """Render the announcement of a new scene (its date in the campaign calendar's `words`)."""
    embed = discord.Embed(title=f"Scene {scene.story_order}: {scene.title}", colour=COLOUR)
    embed.description = "Every message in this channel is now logged as a turn of the scene."
    if scene.location:
        embed.add_field(name="Location", value=clip(scene.location, FIELD_VALUE))
    if words.dated(scene.world_date):  # a date hidden from its readers is none
        embed.add_field(name="In-world date", value=clip(words.date(scene.world_date), FIELD_VALUE))
    embed.set_footer(text=f"Started by {scene.started_by_name or 'the GM'}")
    return embed


def scene_time_text(scene: Scene, words: CalendarWords = PLAIN.calendar) -> str:
    """Return the announcement of a scene's new in-world date, in the campaign calendar's `words`."""
    return (
        f"🕰️ The in-world date of “{discord.utils.escape_markdown(scene.title)}” is now "
        f"{words.date(scene.world_date)}. "
        "Facts proposed from now on are dated by it, unless they say otherwise."
    )


#: The status of the report `/endscene` leaves in the channel: no one edits it at the commit, so it says what
#: stays true ("waiting" would still be read long after the GM committed).
POSTED_REVIEW_STATUS = "Ended; its canon review is below"


def scene_report_embed(
    report: SceneReport, *, heading: str, posted: bool = False, words: CalendarWords = PLAIN.calendar
) -> discord.Embed:
    """Render a scene's counts: turns, participants and duration (`posted`: the report left in the channel),
    and its in-world date in the campaign calendar's `words`."""
    scene = report.scene
    embed = discord.Embed(title=f"{heading}: {scene.title}", colour=COLOUR)
    embed.add_field(name="Turns", value=str(report.turn_count))
    embed.add_field(name="Duration", value=human_duration(report.duration))
    status = STATUS_WORDS[scene.status]
    if posted and scene.status == SceneStatus.REVIEW:
        status = POSTED_REVIEW_STATUS
    embed.add_field(name="Status", value=status)
    if scene.location:
        embed.add_field(name="Location", value=clip(scene.location, FIELD_VALUE), inline=False)
    if words.dated(scene.world_date):  # a date hidden from its readers is none
        embed.add_field(
            name="In-world date", value=clip(words.date(scene.world_date), FIELD_VALUE), inline=False
        )
    people = ", ".join(f"{p.name} ({p.turns})" for p in report.participants) or "nobody spoke"
    embed.add_field(name="Participants", value=clip(people, FIELD_VALUE), inline=False)
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
            lines.append(f"[attachment: {attachment.filename}, {attachment.size} bytes]")
        for embed in turn.embeds:
            lines.append(f"[embed: {embed.title or embed.description or embed.type or ''}]")
        lines.append("")
    return "\n".join(lines)


def scene_ending_text(scene: Scene) -> str:
    """Render the channel message shown while a scene ends (its transcript read into proposals)."""
    return f"🎬 Ending scene {scene.story_order}, “{clip(scene.title, 200)}”: reading the transcript…"


def scene_ending_answer(scene: Scene, link: str) -> str:
    """Render the GM's private answer while a scene ends: a sentence, its link labelled."""
    title = discord.utils.escape_markdown(clip(scene.title, 200))
    return f"Ending “{title}”: [follow the reading of its transcript]({link})."


def scene_ended_answer(scene: Scene, link: str, proposals: int) -> str:
    """Render the GM's private answer once a scene has ended: what to review, with the card's link labelled
    (`link`: the review card, or the scene's report when nothing was proposed)."""
    title = discord.utils.escape_markdown(clip(scene.title, 200))
    if not proposals:
        return f"“{title}” has ended with nothing proposed: [see its report]({link})."
    these = "the proposal" if proposals == 1 else f"the {proposals} proposals"
    return f"Review {these} of “{title}”: [open the review]({link})."


def scene_reading_text(read: int, total: int) -> str:
    """Render the progress of reading a scene's transcript into canon proposals."""
    return (
        f"🎬 Ending the scene: reading the transcript for canon proposals, {read} of {total} passages read…"
    )


def transcript_file_names(scene: Scene, parts: int) -> list[str]:
    """Return the file names of a transcript in `parts` parts."""
    if parts == 1:
        return [f"scene-{scene.story_order}.md"]
    return [f"scene-{scene.story_order}-part-{n}-of-{parts}.md" for n in range(1, parts + 1)]


def transcript_note(scene: Scene, turns: int, parts: int) -> str:
    """Render the message that carries a transcript's files."""
    where = "" if parts == 1 else f", in {parts} files (Discord takes files of limited size)"
    ended = " (ended)" if scene.status == SceneStatus.COMPLETED else ""
    title = clip(scene.title, 200)
    return f"Transcript of Scene {scene.story_order}: “{title}”{ended}: {counted(turns, 'turn')}{where}."
