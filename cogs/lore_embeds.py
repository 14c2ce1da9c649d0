"""Pure renderers for `/lore`: the "Why these?" inspector and the source inspector. No Discord I/O.

The answers are rendered by `cogs.lore_answer_embeds`, the imports by `cogs.lore_import_embeds`.

Every embed stays inside Discord's limits (title 256, description 4096, 25 fields of 1024 with names of 256,
6000 in all). Imported text is data: snippets are markdown-escaped, so a link or an image in a source is shown
as its text and never becomes a clickable or fetched thing.

Secrecy: the service already leaves hidden sources and GM-only canon out for a player; these renderers drop
them again when the viewer is a player (belt and braces) and mark them 🔒 for the GM. Inspiration is always
labelled as inspiration, never as fact.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_NAME, FIELD_VALUE, fit_lines
from bot.ops.search_index import search_state
from canon.models import Viewer
from canon.visibility import Knowing, entity_facts_seen, may_see, passages_seen
from cogs.canon_embeds import shrink_to_limit
from cogs.embeds import COLOUR, DONE_COLOUR, clip, counted, escape_with_mentions
from memory.knowledge.models import CanonFact, KnowledgeClass, LoreResult, Reason, RetrievalRecord
from memory.knowledge.source_models import DeleteReport, SourceDetail, SourceInfo, ViewBuild

LOCK = "🔒"
INSPIRATION = "💭"
CANON_MARK = "📜"
SNIPPET_CHARS = 420
SOURCES_PER_PAGE = 15
INSPIRATION_NOTE = "Inspiration: mood and ideas, not established fact."
CLASS_BADGE = {
    KnowledgeClass.CANON: "Canon",
    KnowledgeClass.REFERENCE: "Reference",
    KnowledgeClass.INSPIRATION: f"{INSPIRATION} Inspiration — not established fact",
}


_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*$")


#: Markdown read as plain words: a list item's marker, emphasis and code marks (a snippet is one line of text).
_LIST_ITEM = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3}|`+)(?=\S)(.+?)(?<=\S)\1")
#: A line all in bold reads as a heading ("**The Cliff**").
_BOLD_LINE = re.compile(r"^(?:[-*+•]\s+)?(?:\*\*|__)([^*_]+?)(?:\*\*|__):?$")


def _plain(line: str) -> str:
    """Return a line of markdown as its words: no list marker, no emphasis or code marks."""
    return _EMPHASIS.sub(r"\2", _LIST_ITEM.sub("", line))


def snippet(text: str, limit: int = SNIPPET_CHARS, *, skip: Sequence[str] = ()) -> str:
    """Return a passage as one escaped line of at most `limit` characters, its headings as `Heading —`.

    Headings at the very start that are in `skip` (the title and heading path, shown already) are left out.
    """
    parts: list[str] = []
    leading = True
    for line in text.splitlines():
        stripped = _plain(line.strip())
        if not stripped:
            continue
        heading = _HEADING.match(stripped) or _BOLD_LINE.match(line.strip())
        if heading is None:
            leading = False
            parts.append(stripped)
        elif not (leading and _plain(heading.group(1)) in skip):
            parts.append(f"{_plain(heading.group(1))} —")
    return escape_with_mentions(clip(" ".join(" ".join(parts).split()), limit))


def where(result: LoreResult) -> str:
    """Return a passage's place: the source title and its heading path."""
    return result.where


def class_badge(knowledge_class: KnowledgeClass, *, hidden: bool = False) -> str:
    """Return the label of a class, Inspiration marked as not fact, hidden marked 🔒."""
    badge = CLASS_BADGE[knowledge_class]
    return f"{badge} · {LOCK} hidden (GM only)" if hidden else badge


def _visible_results(
    results: Sequence[LoreResult], viewer: Viewer, knowing: Knowing | None = None
) -> list[LoreResult]:
    return passages_seen(viewer, results, knowing)


def _visible_facts(
    facts: Sequence[CanonFact], viewer: Viewer, knowing: Knowing | None = None
) -> list[CanonFact]:
    return entity_facts_seen(viewer, facts, knowing)


# -- /lore ask ------------------------------------------------------------------------------------------


def warning_lines(warnings: Sequence[str], limit: int = 3) -> list[str]:
    """Return the first warnings of a retrieval as escaped ⚠️ lines."""
    return [f"⚠️ {escape_with_mentions(clip(w, 300))}" for w in warnings[:limit]]


# -- the retrieval inspector ----------------------------------------------------------------------------


def reasons_text(reasons: Sequence[Reason]) -> str:
    """Return why a passage was chosen, each retriever with its rank and score."""
    parts = []
    for reason in reasons:
        text = reason.describe()
        if reason.score is not None:
            text += f" = {reason.score:.3g}"
        parts.append(escape_with_mentions(text))
    return "; ".join(parts) or "no reason recorded"


def why_embed(record: RetrievalRecord, *, viewer: Viewer) -> discord.Embed:
    """Render the retrieval inspector of a stored answer: each result's score and reasons, and what was not kept.

    The text each result showed is the stored one: an answer keeps it even after its source changes or goes.
    """
    trace = record.trace
    results = _visible_results(record.results, viewer)
    embed = discord.Embed(title=clip(f"Why these? {record.question}", EMBED_TITLE), colour=COLOUR)
    semantic = f"{trace.semantic_candidates} by meaning ({trace.semantic_status})"
    lines = [
        f"Answer #{record.id}, {record.created_at:%Y-%m-%d %H:%M} UTC · preset {trace.preset} · mode {trace.mode}",
        f"Candidates: {trace.lexical_candidates} by words, {semantic}.",
    ]
    if trace.lexical_query:
        lines.append(f"Words searched: `{clip(trace.lexical_query.replace('`', ''), 300)}`")
    if trace.entity_matches:
        lines.append(
            "Canon entities named: " + escape_with_mentions(clip(", ".join(trace.entity_matches), 400))
        )
    if viewer == Viewer.GM:  # how many sources were filtered out would tell a player that hidden ones exist
        lines.append(
            f"Sources searched: {trace.allowed_sources} (filtered out before ranking: {trace.blocked_sources})."
        )
    used = " · ".join(
        f"{name} {trace.used_tokens.get(name, 0)}/{budget}" for name, budget in sorted(trace.budgets.items())
    )
    if used:
        lines.append(f"Tokens used of each class's budget: {used}.")
    lines += warning_lines(trace.warnings)
    embed.description = fit_lines(lines, 1500)
    for rank, result in enumerate(results[:10], 1):
        name = clip(f"{rank}. {where(result)}", FIELD_NAME)
        value = [
            f"score **{result.score:.3f}** · {class_badge(result.knowledge_class, hidden=result.hidden)}"
            + (" · always included" if result.always_include else ""),
            f"from `{clip(result.filename, 80)}`, passage {result.chunk_id} (source {result.source_id})"
            if viewer == Viewer.GM
            else f"from `{clip(result.filename, 80)}`",
            f"Why: {reasons_text(result.reasons)}",
            f"Showed: {snippet(result.text, 220, skip=[result.source_title, *result.heading_path])}",
        ]
        embed.add_field(name=name, value=fit_lines(value, 700), inline=False)
    chosen = {r.chunk_id for r in record.results}
    dropped = [c for c in trace.candidates if c.chunk_id not in chosen and may_see(viewer, c.hidden)]
    if dropped:
        rows = [
            f"{LOCK if c.hidden else '·'} {escape_with_mentions(clip(c.heading, 80))} — {c.final:.3f}"
            + (f" ({escape_with_mentions(c.dropped_because)})" if c.dropped_because else "")
            for c in dropped
        ]
        embed.add_field(name="Considered, not shown", value=fit_lines(rows, 900), inline=False)
    facts = _visible_facts(record.canon_facts, viewer)
    if facts:
        rows = [
            f"{LOCK + ' ' if f.hidden else ''}{escape_with_mentions(f.entity_name)} ({f.entity_type}): named as "
            f"“{escape_with_mentions(clip(f.matched, 60))}”, match {f.match_score:.0f}"
            for f in facts
        ]
        embed.add_field(name="Canon facts", value=fit_lines(rows, 600), inline=False)
    if trace.timings_ms:
        total = sum(trace.timings_ms.values())
        embed.set_footer(text=f"Retrieval took {total:.0f} ms")
    return shrink_to_limit(embed)


# -- the source inspector -------------------------------------------------------------------------------


def _when(value: dt.datetime | None) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if value is not None else "never"


def source_flags(source: SourceInfo) -> str:
    """Return a source's class and states in words."""
    flags = [class_badge(source.knowledge_class)]
    flags.append("enabled" if source.enabled else "**disabled**")
    if source.hidden:
        flags.append(f"{LOCK} hidden")
    elif source.hidden_chunks:
        flags.append(
            f"{LOCK} GM-only sections ({source.hidden_chunks} of {counted(source.chunk_count, 'passage')})"
        )
    if source.always_include:
        flags.append("always included")
    return " · ".join(flags)


def source_line(source: SourceInfo) -> str:
    """Return one line of the source list."""
    return (
        f"**{escape_with_mentions(clip(source.title, 60))}** (source {source.id}) — {source_flags(source)} · "
        f"version {source.version} · {counted(source.chunk_count, 'passage')} · imported {_when(source.imported_at)} · "
        f"used in {counted(source.times_used, 'answer')}"
    )


def page_total(count: int) -> int:
    """Return how many pages a list of `count` sources has (at least one)."""
    return max(1, -(-count // SOURCES_PER_PAGE))


def view_build_line(build: ViewBuild | None) -> str | None:
    """Return the sources list's line on a search index being built in the background, or None."""
    if build is None or build.state != "building":
        return None
    return (
        f"Search index: adding the passages' names, {build.done:,} of {build.total:,} done "
        f"({build.percent}%). Lookups work meanwhile."
    )


def sources_embed(
    sources: Sequence[SourceInfo],
    page: int = 1,
    *,
    warning: str | None = None,
    building: ViewBuild | None = None,
) -> discord.Embed:
    """Render one page of the source inspector: class, states, version, passages, imported at, answers it was used in.

    `warning` (always-included Canon crowding the answers' budget) heads every page, and the search index's
    progress while names are added to it (`building`).
    """
    pages = page_total(len(sources))
    page = min(max(1, page), pages)
    embed = discord.Embed(title=f"Knowledge sources ({len(sources)})", colour=COLOUR)
    if not sources:
        embed.description = "No sources yet. Import a world bible or a book with `/lore import` (.md, .txt, .yaml, .pdf, .docx, .epub or .html)."
        return embed
    shown = sources[(page - 1) * SOURCES_PER_PAGE : page * SOURCES_PER_PAGE]
    head = [f"⚠️ {escape_with_mentions(warning)}", ""] if warning else []
    if (line := view_build_line(building)) is not None:
        head += [f"⏳ {line}", ""]
    embed.description = fit_lines(head + [source_line(s) for s in shown], EMBED_DESCRIPTION)
    embed.set_footer(text=f"Page {page}/{pages} · /lore source <id> for one source · {LOCK} = GM only")
    return shrink_to_limit(embed)


def _add_versions_and_passages(embed: discord.Embed, detail: SourceDetail) -> None:
    """Add a source's versions, its passages and the first one's text to its inspector."""
    source = detail.source
    versions = [
        f"version {v.version} · {_when(v.imported_at)} · {counted(v.chunk_count, 'passage')}"
        + (f" · replaced {_when(v.replaced_at)}" if v.replaced_at else " · current")
        for v in detail.versions
    ]
    embed.add_field(
        name=f"Versions ({len(detail.versions)})",
        value=fit_lines(versions or ["version 1"], 600),
        inline=False,
    )
    chunks = [
        f"{c.index}. {LOCK + ' ' if c.section_hidden else ''}"
        f"{escape_with_mentions(clip(' › '.join(c.heading_path) or '(top)', 90))} · {c.token_count} tokens"
        for c in detail.chunks
    ]
    embed.add_field(
        name=f"Passages ({source.chunk_count}, {source.token_count:,} tokens; read by {source.parser_version}, "
        f"cut by {source.chunking_version})"[:FIELD_NAME],
        value=fit_lines(chunks or ["none"], FIELD_VALUE),
        inline=False,
    )
    if detail.chunks:
        first = detail.chunks[0]
        embed.add_field(
            name="Text (first passage)",
            value=snippet(first.display_text or first.text, 700),
            inline=False,
        )


def source_embed(
    detail: SourceDetail, *, out_of_date: Sequence[tuple[str, str]] = (), hidden_sections: Sequence[str] = ()
) -> discord.Embed:
    """Render one source: file, class, states, tags, hashes, versions, passages, how search finds it, use.

    `out_of_date`: the sections the story has changed since (where, what holds now), for the GM to update;
    `hidden_sections`: the lines of its GM-only sections (`cogs.lore_sections.hidden_lines`).
    """
    source = detail.source
    embed = discord.Embed(title=clip(f"{source.title} (source {source.id})", EMBED_TITLE), colour=COLOUR)
    if out_of_date:
        rows = [
            f"• {escape_with_mentions(clip(where, 120))}: now {escape_with_mentions(clip(now, 200))}"
            for where, now in out_of_date
        ]
        embed.add_field(
            name="⚠️ Out of date: the story has changed these sections",
            value=fit_lines(rows, FIELD_VALUE),
            inline=False,
        )
    embed.description = fit_lines(
        [
            source_flags(source),
            f"File `{clip(source.filename, 200)}` · {source.size_bytes:,} bytes · {source.mime_type}",
        ],
        1000,
    )
    if hidden_sections:
        embed.add_field(
            name=f"{LOCK} GM-only sections: players never read these ({len(hidden_sections)})",
            value=fit_lines([*hidden_sections, "`/lore section` hides or shows one."], FIELD_VALUE),
            inline=False,
        )
    embed.add_field(name="Tags", value=escape_with_mentions(", ".join(source.tags)) or "none", inline=True)
    embed.add_field(
        name="Use",
        value=f"in {counted(source.times_used, 'answer')} · last {_when(source.last_used_at)}",
        inline=True,
    )
    found = search_state(source.vector_status.value) + (
        f": {clip(source.vector_error, 200)}" if source.vector_error else ""
    )
    embed.add_field(name="Search", value=escape_with_mentions(found), inline=True)
    embed.add_field(
        name="Content hash (SHA-256)",
        value=f"text `{source.content_hash}`\nfile `{source.file_hash}`",
        inline=False,
    )
    _add_versions_and_passages(embed, detail)
    if source.notes:
        embed.add_field(name="Notes", value=escape_with_mentions(clip(source.notes, 500)), inline=False)
    footer = f"Imported {_when(source.imported_at)} · updated {_when(source.updated_at)}"
    if source.inherited_from is not None:
        footer += " · inherited from the story this one branched from"
    embed.set_footer(text=footer)
    return shrink_to_limit(embed)


def source_changed_embed(source: SourceInfo, what: str, *, warning: str | None = None) -> discord.Embed:
    """Render the answer to `/lore set`, `/lore enable` and `/lore disable` (and what the GM should know)."""
    embed = discord.Embed(
        title=clip(f"{source.title} (source {source.id}): {what}", EMBED_TITLE), colour=DONE_COLOUR
    )
    lines = [source_flags(source)]
    if warning:
        lines.append(f"⚠️ {escape_with_mentions(warning)}")
    if source.tags:
        lines.append("Tags: " + escape_with_mentions(", ".join(source.tags)))
    if not source.enabled:
        lines.append("A disabled source stays stored but is never retrieved; `/lore enable` brings it back.")
    embed.description = "\n".join(lines)
    return embed


def deleted_embed(report: DeleteReport) -> discord.Embed:
    """Render what deleting a source removed."""
    embed = discord.Embed(
        title=clip(f"Deleted {report.title} (source {report.source_id})", EMBED_TITLE), colour=COLOUR
    )
    embed.description = (
        f"Removed the source, its versions and its {counted(report.chunks_removed, 'passage')}"
        f"{', with their place in search by meaning' if report.vectors_removed else ''}. "
        "Answers already given keep the text they showed."
    )
    return embed
