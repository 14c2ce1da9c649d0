"""The answer to `/retcon`: the old fact struck through, what replaces it and the facts to review, in words.

The GM reads each fact by its sentence, never by a number: what the answer says may be typed back to `/retcon`
and is understood (`bot.services.fact_picking`).
"""

from __future__ import annotations

import discord

from bot.client.limits import EMBED_DESCRIPTION, FIELD_VALUE, fit_lines
from bot.services.canon_admin import RetconResult
from canon.models import StatementView
from canon.wording import warning_sentence
from cogs.canon_embeds import shrink_to_limit, statement_line
from cogs.embeds import WARNING_COLOUR, clip, counted, escape


def retcon_embed(result: RetconResult, rationale: str) -> discord.Embed:
    """Render a retcon: the old fact struck through, its replacement, and the facts to review."""
    embed = discord.Embed(title="Retcon", colour=WARNING_COLOUR)
    words = result.words

    def said(view: StatementView) -> str:
        return statement_line(view, evidence=False, words=words)

    old = said(result.retconned) if result.retconned else "The fact"
    lines = [f"~~{old}~~ is retconned.", f"Why: {escape(clip(rationale, 500))}"]
    if result.replacement is not None:
        lines.append(f"Replaced by: {said(result.replacement)}")
    elif result.replacement_id is not None:
        lines.append("A new fact replaces it.")
    else:
        lines.append("Nothing replaces it.")
    if result.closed:
        lines.append(
            f"Resolves {counted(len(result.closed), 'open conflict')}: "
            + "; ".join(warning_sentence(c.message, words.rich(escape)) for c in result.closed)
        )
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    embed.add_field(
        name=f"Facts to review ({len(result.dependents)})",
        value=fit_lines([said(v) for v in result.dependents], FIELD_VALUE)
        if result.dependents
        else "Nothing relied on it.",
        inline=False,
    )
    embed.set_footer(text="As-of queries before this retcon still show what was believed then.")
    return shrink_to_limit(embed)
