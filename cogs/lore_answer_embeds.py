"""Pure renderers of a `/lore ask` answer: the short answer first, the numbered sources behind **Sources**.

The answer cites its sources inline as `[n]`; the same numbers name them under the answer (the cited ones) and
in the Sources view (all of them: canon facts first, then the passages). A passage a committed fact supersedes
is marked out of date in both. Players get the sources and their classes; scores and reasons are the GM's
("Why these?", `cogs.lore_embeds.why_embed`).

Secrecy: the service already leaves hidden sources and GM-only canon out for a player; these renderers drop
them again when the viewer is a player (belt and braces) and mark them 🔒 for the GM. A player whose character
knows a hidden thing reads it as plain knowledge, never locked (`cogs.secret_marks`).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_NAME, FIELD_VALUE, fit_lines
from canon.models import Viewer
from canon.visibility import Knowing
from cogs.canon_embeds import shrink_to_limit
from cogs.embeds import COLOUR, clip, counted, escape_with_mentions
from cogs.lore_embeds import (
    CANON_MARK,
    INSPIRATION,
    INSPIRATION_NOTE,
    LOCK,
    _visible_facts,
    _visible_results,
    class_badge,
    snippet,
    warning_lines,
    where,
)
from cogs.secret_marks import gm_lock
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.models import Answer, CanonFact, LoreResult, RetrievalRecord
from memory.knowledge.retrieval.answer import compose

OUT_OF_DATE = "⚠️ Out of date"
NOTHING = "Nothing in this campaign's knowledge answers that. Try other words, or ask the GM."


def result_field(number: int, result: LoreResult, viewer: Viewer = Viewer.GM) -> tuple[str, str]:
    """Return the name and value of one passage's field (a hidden one marked for the GM only)."""
    name = clip(f"[{number}] {where(result)}", FIELD_NAME)
    hidden = bool(gm_lock(viewer, result.hidden))
    lines = [f"*{class_badge(result.knowledge_class, hidden=hidden)}*"]
    if result.out_of_date:
        lines.append(f"{OUT_OF_DATE}: now {escape_with_mentions(clip(result.out_of_date, 200))}.")
    if result.disagrees:
        lines.append(f"⚖️ {escape_with_mentions(clip(result.disagrees, 300))}")
    body = snippet(result.text, skip=[result.source_title, *result.heading_path])
    if not result.is_fact:
        body = f"{INSPIRATION} _Inspiration, not fact:_ {body}"
    lines.append(body)
    lines.append(f"— `{clip(result.filename, 120)}`")
    return name, fit_lines(lines, FIELD_VALUE)


def fact_field(number: int, fact: CanonFact, viewer: Viewer = Viewer.GM) -> tuple[str, str]:
    """Return the name and value of one entity's canon facts (a hidden one marked for the GM only)."""
    lock = f" {LOCK} GM only" if gm_lock(viewer, fact.hidden) else ""
    name = f"[{number}] {CANON_MARK} Canon: {fact.entity_name} ({fact.entity_type}){lock}"
    lines = []
    if fact.description:
        lines.append(escape_with_mentions(clip(fact.description, 300)))
    lines += [f"• {escape_with_mentions(clip(f, 200))}" for f in fact.facts]
    return clip(name, FIELD_NAME), fit_lines(lines or ["(no facts recorded yet)"], 600)


def _reply(answer: Answer, results: Sequence[LoreResult], facts: Sequence[CanonFact]) -> ShortAnswer:
    """Return the answer's short answer, written again from what this viewer sees when it saw more."""
    if (
        answer.reply is not None
        and len(results) == len(answer.results)
        and len(facts) == len(answer.canon_facts)
    ):
        return answer.reply
    return compose(answer.question, facts, results)


def sources_shown(answer: Answer, *, viewer: Viewer, knowing: Knowing | None = None) -> int:
    """Return how many sources behind an answer the asker may open (none: no **Sources** to press)."""
    return len(_visible_results(answer.results, viewer, knowing)) + len(
        _visible_facts(answer.canon_facts, viewer, knowing)
    )


#: The footer of an answer nothing in the campaign supports: what the asker can do next.
NOTHING_MATCHED = "Nothing in this campaign's canon or sources matched: try other words, or ask the GM."


def answer_embed(answer: Answer, *, viewer: Viewer, knowing: Knowing | None = None) -> discord.Embed:
    """Render a `/lore ask` answer: the short answer citing its sources, the cited ones named under it."""
    results = _visible_results(answer.results, viewer, knowing)
    facts = _visible_facts(answer.canon_facts, viewer, knowing)
    reply = _reply(answer, results, facts)
    embed = discord.Embed(title=clip(f"Lore: {answer.question}", EMBED_TITLE), colour=COLOUR)
    lines = [escape_with_mentions(reply.text)]
    cited = [c for c in reply.citations if c.cited]
    if cited:
        lines.append("")
        for c in cited:
            stale = f" · {OUT_OF_DATE}" if c.out_of_date else ""
            lines.append(f"[{c.number}] {escape_with_mentions(clip(c.label, 200))}{stale}")
    if any(not r.is_fact for r in results):
        lines.append(f"{INSPIRATION} {INSPIRATION_NOTE}")
    if viewer == Viewer.GM and (any(r.hidden for r in results) or any(f.hidden for f in facts)):
        lines.append(f"{LOCK} The sources hold GM-only material: players never see it.")
    if viewer == Viewer.GM and any(r.out_of_date for r in results):
        lines.append("⚠️ A Canon passage here is out of date: the story has changed it. Update the source.")
    # A degraded search (words only while the vector index is down, a typo searched as a heading word) is
    # said in the answer itself: the asker should know why it may be worse than usual.
    lines += warning_lines(answer.trace.warnings)
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    shown = len(results) + len(facts)
    if shown:
        more = " “Why these?” shows the scores and reasons." if viewer == Viewer.GM else ""
        embed.set_footer(text=f"See the {counted(shown, 'source')}.{more}")
    else:
        embed.set_footer(text=NOTHING_MATCHED)
    if answer.unsaved:  # no stored record: the buttons that would open it are not there
        embed.set_footer(
            text=f"This answer could not be saved ({answer.unsaved}), so its sources cannot be opened"
        )
    return shrink_to_limit(embed)


def passages_embed(
    answer: Answer | RetrievalRecord, *, viewer: Viewer, knowing: Knowing | None = None
) -> discord.Embed:
    """Render the Sources of an answer: numbered canon facts, then the numbered passages, best first."""
    results = _visible_results(answer.results, viewer, knowing)
    facts = _visible_facts(answer.canon_facts, viewer, knowing)
    embed = discord.Embed(title=clip(f"Sources: {answer.question}", EMBED_TITLE), colour=COLOUR)
    lines: list[str] = []
    if not results and not facts:
        lines.append(NOTHING)
    else:
        lines.append("From the campaign's canon and sources, best first.")
        if any(not r.is_fact for r in results):
            lines.append(f"{INSPIRATION} {INSPIRATION_NOTE}")
        if viewer == Viewer.GM and (any(r.hidden for r in results) or any(f.hidden for f in facts)):
            lines.append(f"{LOCK} marks GM-only material: players never see it.")
    lines += warning_lines(answer.trace.warnings)
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    for number, fact in enumerate(facts[:5], 1):
        name, value = fact_field(number, fact, viewer)
        embed.add_field(name=name, value=value, inline=False)
    first = len(facts) + 1
    for number, result in enumerate(results[: 25 - len(embed.fields)], first):
        name, value = result_field(number, result, viewer)
        embed.add_field(name=name, value=value, inline=False)
    return shrink_to_limit(embed)
