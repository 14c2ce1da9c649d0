"""Pure renderers for `/canon conflicts`: a page of recorded conflicts with both sides, and how each was closed.

GM only (they may name GM-only canon). A conflict is named by what it says, on its buttons too, and so are the
sides' facts: by their words, never a number.
"""

from __future__ import annotations

from collections.abc import Iterable

import discord

from bot.client import limits
from bot.client.limits import fit_lines
from canon.checks import RecordedConflict
from canon.conflicts import ACCEPTED, DISMISSED, OPEN, ConflictPage, Resolution, Show
from canon.models import Side, Viewer
from canon.wording import Wording, warning_sentence
from canon.wording.findings import kind_words
from cogs.canon_embeds import shrink_to_limit
from cogs.embeds import DONE_COLOUR, WARNING_COLOUR, clip, escape

_SHOWN = {Show.OPEN: "open", Show.CLOSED: "closed", Show.ALL: "recorded"}
_RESOLVED_BY = {
    Resolution.RETCON.value: "by a retcon",
    Resolution.CHANGE.value: "by a change of canon",
    Resolution.RATIONALE.value: "with a rationale",
}


def _sides(sides: Iterable[Side], words: Wording) -> list[str]:
    lines = []
    for side in sides:
        evidence = [words.rich(escape).evidence(e, Viewer.GM) for e in side.evidence]  # user text escaped
        line = f"• {warning_sentence(side.sentence, words.rich(escape))}"
        if evidence:
            line += " — " + "; ".join(evidence[:2])
        lines.append(line)
    return lines


def closure_line(conflict: RecordedConflict) -> str | None:
    """Return how a closed conflict was closed, by whom and why (None for an open one)."""
    if conflict.status == OPEN:
        return None
    who = f" by {conflict.closed_by}" if conflict.closed_by else ""
    why = f": {escape(clip(conflict.rationale, 300))}" if conflict.rationale else ""
    if conflict.status == DISMISSED:
        return f"🚫 Dismissed{who}{why}"
    if conflict.status == ACCEPTED:
        return f"✅ Accepted at a commit{why}"
    how = _RESOLVED_BY.get(conflict.resolution or "", "")
    return f"✅ Resolved {how}{who}{why}".replace("  ", " ")


def conflict_page_embed(page: ConflictPage) -> discord.Embed:
    """Render one page of conflicts, newest first, with both sides, their evidence, and each one's closure."""
    shown = _SHOWN[page.show]
    embed = discord.Embed(
        title=f"Continuity conflicts: {shown}",
        colour=WARNING_COLOUR if page.conflicts and page.show != Show.CLOSED else DONE_COLOUR,
    )
    if not page.conflicts:
        embed.description = f"No {shown} conflicts." + (
            " `/canon conflicts show:all` lists the closed ones too." if page.show == Show.OPEN else ""
        )
        return embed
    embed.description = f"{page.total} {shown}, newest first; page {page.page + 1} of {page.pages}."
    for conflict in page.conflicts:
        message = warning_sentence(conflict.message, page.words.rich(escape))
        lines = [clip(message, 400), *_sides(conflict.details.sides, page.words)]
        closed = closure_line(conflict)
        if closed:
            lines.append(closed)
        embed.add_field(
            name=clip(kind_words(conflict.kind), limits.FIELD_NAME),
            value=fit_lines(lines, limits.FIELD_VALUE),
            inline=False,
        )
    footer = "🔒 This list may name GM-only canon."
    if any(c.status == OPEN for c in page.conflicts):
        footer += " Resolve a conflict (a retcon resolves those it answers), or dismiss it for good."
    embed.set_footer(text=footer)
    return shrink_to_limit(embed)
