"""Pure renderers of the game-master's voice: narration contexts, NPC memories, similar moments, replies."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client import limits
from bot.voice.extraction import ExtractionReport
from bot.voice.narration import NarrationOutcome
from bot.voice.npcs import NpcReply
from cogs.embeds import COLOUR, clip, counted
from memory.digests import Moment
from memory.narrations import NarrationRecord
from memory.npc_memory import DocType, MemoryRecord
from memory.scenes import Scene

DESCRIPTION_LIMIT = 4000


def _fit(lines: Sequence[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """Join lines until `limit`, saying how many were left out."""
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        if used + len(line) + 1 > limit - 40:
            kept.append(f"… and {len(lines) - index} more")
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)


def narration_context_text(record: NarrationRecord) -> str:
    """Render everything behind a narration as Markdown: the exact prompt, the context chosen and dropped."""
    lines = [
        f"# Narration #{record.id}",
        "",
        f"- in a scene (scene {record.scene_id}), {record.trigger} ({record.requested_by_name or 'narrator mode'}), "
        f"{record.created_at:%Y-%m-%d %H:%M} UTC",
        f"- status: {record.status.value}" + (f" — {record.blocked_reason}" if record.blocked_reason else ""),
        f"- model: {record.model or '?'}; tokens: {record.prompt_tokens} prompt, {record.completion_tokens} completion",
        "",
        "## The exact prompt sent to the model",
    ]
    for message in record.prompt:
        lines += ["", f"### {message.role}", "", "```text", message.content, "```"]
    context = record.context
    lines += ["", f"## Context chosen (budget {context.budget} tokens, used {context.used})"]
    for section in context.sections:
        kept, dropped = section.items, section.dropped
        if not kept and not dropped:
            continue
        cut = " (first item cut to fit)" if section.truncated else ""
        lines += ["", f"### {section.title}: {len(kept)} kept, {len(dropped)} dropped{cut}"]
        lines += [f"- [{item.tokens} t] {item.ref or ''} {item.text}" for item in kept]
        if dropped:
            lines.append("")
            lines.append("Dropped for want of room:")
            lines += [f"- [{item.tokens} t] {item.ref or ''} {item.text}" for item in dropped]
    lines += ["", "## Output", "", record.output or "(none)"]
    return "\n".join(lines) + "\n"


def narration_result_text(outcome: NarrationOutcome, *, is_gm: bool) -> str:
    """Render what happened to a /narrate request, for the person who asked (ephemeral)."""
    if outcome.status == "posted":
        return "The narrator has spoken."
    if outcome.status == "blocked":
        if is_gm:
            head = "The narration was held back: it repeated hidden canon ("
            tail = f"). Its context is narration #{outcome.narration_id}; try again or give a direction."
            labels = list(dict.fromkeys(leak.label for leak in outcome.leaks))
            return head + limits.fit_inline(labels, limits.MESSAGE - len(head) - len(tail)) + tail
        return "The narrator has nothing to add right now."
    if outcome.status == "skipped":
        return "The narrator is off in this scene."
    return "The narrator had nothing to say. Try again in a moment."


def narrator_mode_text(scene: Scene) -> str:
    """Render the narrator's new mode."""
    if scene.narrator_mode:
        return (
            f"The narrator is on in “{scene.title}”: it writes what happens after the players' turns "
            "(and on /narrate)."
        )
    return f"The narrator is off in “{scene.title}”; /narrate still calls it for the GM."


def npc_exchange_text(speaker: str, npc: str, message: str) -> str:
    """Render who asked the NPC what, posted under the NPC's answer once that is sent."""
    who, whom = discord.utils.escape_markdown(speaker), discord.utils.escape_markdown(npc)
    return clip(f"↑ **{whom}** answering **{who}**: {message}", limits.MESSAGE)


def npc_result_text(reply: NpcReply) -> str:
    """Render, for the speaker only, whether the NPC answered (a refusal: every draft quoted GM-only canon)."""
    if reply.status == "posted":
        if reply.revealed:
            learned = "; ".join(f"{item.who} now knows {item.what}" for item in reply.revealed)
            return f"{reply.npc_name} answered and told the secret: {learned}."
        return f"{reply.npc_name} answered."
    return f"{reply.npc_name} hesitates and says nothing. (Try asking another way.)"


def memory_line(memory: MemoryRecord) -> str:
    """Render one memory or relationship for the GM's list."""
    if memory.doc_type == DocType.RELATIONSHIP:
        linked = ", ".join(f"memory {i}" for i in memory.memory_ids)
        strength = f"{memory.strength:.2f}" if memory.strength is not None else "?"
        return (
            f"{memory.content} ({memory.relationship_type} between {linked}, strength {strength}) "
            f"(memory {memory.id})"
        )
    where = "from a scene" if memory.scene_id is not None else memory.scope_kind.value
    return f"{memory.content} · {where} · importance {memory.importance:.2f} · {memory.method} (memory {memory.id})"


def memories_embed(npc: str, memories: Sequence[MemoryRecord]) -> discord.Embed:
    """Render what an NPC remembers (GM only)."""
    embed = discord.Embed(title=clip(f"What {npc} remembers", 256), colour=COLOUR)
    own = [m for m in memories if m.doc_type == DocType.MEMORY]
    links = [m for m in memories if m.doc_type == DocType.RELATIONSHIP]
    lines = [clip(memory_line(m), 400) for m in own] + [clip(memory_line(m), 400) for m in links]
    embed.description = _fit(lines) or f"{npc} remembers nothing yet."
    embed.set_footer(text=f"{len(own)} memories, {len(links)} links · /npc forget to remove one")
    return embed


def forgot_text(npc: str, count: int, memory_id: int | None) -> str:
    """Render what /npc forget did."""
    if memory_id is not None:
        return f"{npc} forgot memory #{memory_id}" + (
            f" and {counted(count - 1, 'link')} to it." if count > 1 else "."
        )
    return (
        f"{npc} forgot everything: {count} memories and links." if count else f"{npc} had nothing to forget."
    )


def cast_text(npc: str, changed: bool, *, remove: bool) -> str:
    """Render what /scene cast did."""
    if remove:
        return (
            f"{npc} is no longer in the scene's cast." if changed else f"{npc} was not in the scene's cast."
        )
    return (
        f"{npc} is in the scene: they will remember it when it is committed."
        if changed
        else f"{npc} is already in the scene's cast."
    )


def _closeness(similarity: float) -> str:
    """Say how alike a moment is in words: a very close one is said so, the others by their order alone."""
    return " (very like it)" if similarity >= 0.6 else ""


def moments_embed(text: str, moments: Sequence[Moment]) -> discord.Embed:
    """Render the scenes most like a described moment, the closest first (in words: no raw score)."""
    embed = discord.Embed(title=clip(f"Moments like “{text}”", 256), colour=COLOUR)
    if not moments:
        embed.description = "No committed scene is like that yet."
        return embed
    for moment in moments:
        embed.add_field(
            name=clip(f"Scene {moment.story_order}: {moment.title}{_closeness(moment.similarity)}", 256),
            value=clip(moment.summary, limits.FIELD_VALUE),
            inline=False,
        )
    return embed


def extraction_text(report: ExtractionReport) -> str:
    """Render what a prose extraction did (for the GM)."""
    if report.skipped:
        return report.skipped
    parts = [
        f"{counted(report.stored, 'proposal')} {'waits' if report.stored == 1 else 'wait'} for review in batch `{report.batch}`"
    ]
    if report.dropped:
        parts.append(f"{len(report.dropped)} items dropped (did not fit the ontology or the material)")
    if report.merged:
        parts.append(f"{len(report.merged)} merged with canon or each other")
    if report.failed_pieces:
        parts.append(f"{len(report.failed_pieces)} passages could not be read")
    return "; ".join(parts) + "."
