"""Pure renderers of `/lore` imports: a prose file's import and its progress, a structured (YAML) import, the
line before an extraction's review card. No Discord I/O; imported text is data, shown escaped.
"""

from __future__ import annotations

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, FIELD_VALUE, fit_lines
from bot.ops.search_index import search_state
from canon.structured.ingest import IngestReport
from canon.structured.reports import kinds_in_words
from canon.wording.counts import listed
from canon.wording.findings import kind_words
from cogs.canon_embeds import shrink_to_limit
from cogs.embeds import COLOUR, DONE_COLOUR, ERROR_COLOUR, WARNING_COLOUR, clip, counted, escape_with_mentions
from cogs.lore_embeds import source_flags
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import ImportOutcome, ImportProgress, ImportReport, ImportStage


def progress_bar(done: int, total: int, width: int = 20) -> str:
    """Return a text progress bar."""
    filled = round(width * done / total) if total else 0
    return "█" * filled + "░" * (width - filled)


def progress_text(event: ImportProgress) -> str:
    """Return the progress message of an import as it stands."""
    name = f"`{clip(event.filename, 150)}`"
    if event.stage == ImportStage.CHUNKING:
        return f"Importing {name}: reading it and cutting it into passages…"
    if event.stage == ImportStage.STORING:
        return f"Importing {name}: storing {counted(event.total, 'passage')}…"
    if event.stage == ImportStage.EMBEDDING:
        return (
            f"Importing {name}: indexing its passages for search by meaning {progress_bar(event.done, event.total)} "
            f"{event.done}/{event.total}"
        )
    return f"Imported {name}."


def import_embed(report: ImportReport) -> discord.Embed:
    """Render what importing one prose file did."""
    source = report.source
    if report.outcome == ImportOutcome.DUPLICATE:
        embed = discord.Embed(title=clip(f"Already imported: {report.filename}", EMBED_TITLE), colour=COLOUR)
        embed.description = (
            f"The same text is already imported as {escape_with_mentions(source.title)} (source {report.duplicate_of}); "
            "nothing was indexed again."
        )
        if report.changed:
            embed.description += f"\nChanged as you asked: {escape_with_mentions(', '.join(report.changed))}."
        return embed
    verb = f"Updated to version {source.version}" if report.outcome == ImportOutcome.UPDATED else "Imported"
    embed = discord.Embed(
        title=clip(f"{verb}: {report.filename}", EMBED_TITLE),
        colour=WARNING_COLOUR if report.warnings else DONE_COLOUR,
    )
    found = search_state(report.vector_status.value) + (
        f" ({clip(report.vector_error, 200)})" if report.vector_error else ""
    )
    passages = f"{report.chunk_count} passage{'s' if report.chunk_count != 1 else ''}"
    title = (
        f"**{escape_with_mentions(clip(source.title, 150))}** ({source.knowledge_class.label}, {passages})"
    )
    next_step = (
        "It is hidden: only the GM reads it (/lore set shows it to players)."
        if source.hidden
        else "Players can now ask about it with /lore ask."
    )
    lines = [
        f"{verb} {title}. {next_step}",
        # The passages are counted once, in words, above ("1 chunks" was a program's word, and wrong).
        f"{source_flags(source)} · {report.token_count:,} tokens · {escape_with_mentions(found)} · "
        f"{report.seconds:.1f} s (source {source.id})",
    ]
    if source.tags:
        lines.append("Tags: " + escape_with_mentions(", ".join(source.tags)))
    if report.outcome == ImportOutcome.CREATED and source.knowledge_class == KnowledgeClass.REFERENCE:
        lines.append(
            "It counts as Reference, below Canon: your world bible? Import it again with `class:canon` "
            "(or change it with /lore set)."
        )
    lines += [f"⚠️ {escape_with_mentions(clip(w, 300))}" for w in report.warnings]
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    return embed


def structured_embed(report: IngestReport, filename: str) -> discord.Embed:
    """Render a structured (YAML) import: counts by type and warnings, or every error with its line."""
    failed = report.status == "failed"
    embed = discord.Embed(
        title=clip(f"{'Not imported' if failed else 'Structured lore'}: {filename}", EMBED_TITLE),
        colour=ERROR_COLOUR if failed else (WARNING_COLOUR if report.warnings else DONE_COLOUR),
    )
    if failed:
        lines = [report.error or f"Nothing was written: {counted(len(report.errors), 'problem')}."]
        lines += [f"• {escape_with_mentions(clip(str(e), 450))}" for e in report.errors]
        embed.description = fit_lines(lines, EMBED_DESCRIPTION)
        again = "the files again, together" if len(report.files) > 1 else "the file again"
        embed.set_footer(text=f"Fix these lines and import {again}: nothing was written.")
        return embed
    if report.status == "confirm":
        embed.title = clip(f"Replace {', '.join(report.replaced_files)}?", EMBED_TITLE)
        embed.colour = WARNING_COLOUR
        embed.description = fit_lines(
            [
                escape_with_mentions(
                    f"This import replaces the file of that name imported before: {report.written()}."
                ),
                escape_with_mentions(report.retcon_text()),
                "Press **Replace and retcon** to import it; nothing was written yet, and without it nothing is.",
            ],
            EMBED_DESCRIPTION,
        )
        return shrink_to_limit(embed)
    embed.title = clip(f"Imported: {filename}", EMBED_TITLE)
    embed.description = escape_with_mentions(imported_sentence(report, filename))
    if report.status == "ingested":
        detail = " ".join([*report.changes, report.changes_text()])
        embed.add_field(name="In detail", value=escape_with_mentions(clip(detail, FIELD_VALUE)), inline=False)
    if report.warnings:
        warnings = [
            f"⚠️ {kind_words(w.kind)}: {escape_with_mentions(clip(w.message, 250))}" for w in report.warnings
        ]
        embed.add_field(name=f"Warnings ({len(report.warnings)})", value=fit_lines(warnings, FIELD_VALUE))
    else:  # the checks ran, and found nothing to say
        embed.add_field(name="Warnings", value="No warnings.", inline=False)
    return shrink_to_limit(embed)


def imported_sentence(report: IngestReport, filename: str) -> str:
    """Return what a structured import wrote, in words, with what to do next."""
    if report.status == "unchanged":
        return f"{filename} is unchanged since it was imported: nothing new was written."
    if any(f.status != "created" for f in report.files):  # imported again: what changed, what did not
        said = report.headline()
        return f"{said[:1].upper()}{said[1:]}."
    facts = report.statements.created + report.statements.changed
    parts = kinds_in_words(report.counts) + ([counted(facts, "fact")] if facts else [])
    if not parts:
        return f"Imported {filename}: it holds nothing new."
    return f"Imported {listed(parts)} from {filename}. Players can now ask about them with /lore ask."


def extraction_text(stored: int, pieces: int, *, error: str | None = None) -> str:
    """Return the line that introduces the review card of an extraction (or says why there is none)."""
    if error is not None:
        return f"The source is imported, but its prose was not read into proposals: {error}"
    if not stored:
        return f"Read {counted(pieces, 'piece')} of prose: no new canon to propose."
    return (
        f"Read {counted(pieces, 'piece')} of prose into {counted(stored, 'proposal')}. Nothing becomes canon until you accept "
        "them and press **Commit** on the card below."
    )
