"""Pure renderers for canon: the answers to /propose and /canon add, statements, continuity checks, the policy,
and the pieces every canon embed shares (Discord's limits, escaping, evidence and warnings in words). No Discord I/O.

Every embed stays inside Discord's limits (title 256, description 4096, 25 fields of 1024, 6000 in all):
lists are cut at whole lines with "… and N more". The review card is `cogs.review_embeds`'.

Hidden canon (`canon.visibility` decides what is): the service already leaves GM-only rows out for players;
these renderers drop them again when the viewer is a player (belt and braces) and mark them 🔒 for the GM.
Players' cards and timelines show no entity or fact ids (the GM's do).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import discord

from bot.client.limits import EMBED_DESCRIPTION, EMBED_TITLE, EMBED_TOTAL, FIELD_VALUE, fit_lines
from canon.continuity import Finding, Side
from canon.gate import CommitResult
from canon.knowing import Known
from canon.models import Evidence, StatementView, Viewer
from canon.proposals import (
    EntityContent,
    Proposal,
    ProposalContent,
    ProposalWarning,
    RelationshipContent,
    StateChangeContent,
)
from canon.wording import PLAIN, Wording, proposal_sentence, type_words, warning_sentence
from canon.wording.findings import kind_words
from canon.wording.statements import state_words
from cogs.embeds import COLOUR, DONE_COLOUR, WARNING_COLOUR, clip, counted, escape
from cogs.secret_marks import statement_mark

WARN = "⚠️"
NOTE = "ℹ️"


# -- helpers --------------------------------------------------------------------------------------------


def shrink_to_limit(embed: discord.Embed) -> discord.Embed:
    """Cut the longest field values until the whole embed fits Discord's 6000 characters."""
    while len(embed) > EMBED_TOTAL and embed.fields:
        index, field = max(enumerate(embed.fields), key=lambda pair: len(pair[1].value or ""))
        value = field.value or ""
        excess = len(embed) - EMBED_TOTAL
        embed.set_field_at(
            index,
            name=field.name,
            value=clip(value, max(20, len(value) - excess - 1)),
            inline=field.inline,
        )
        if len(value) <= 20:
            embed.remove_field(index)
    return embed


def evidence_words(evidence: Evidence, viewer: Viewer, words: Wording = PLAIN) -> str:
    """Return evidence in words for a viewer (escaped): a player's words carry no ids and no GM rationale."""
    return words.rich(escape).evidence(evidence, viewer)


def warning_messages(warnings: Iterable[ProposalWarning], words: Wording = PLAIN) -> list[str]:
    """Return continuity warnings as plain sentences (escaped), dates in the calendar's words."""
    return [warning_sentence(w.message or "a continuity problem", words.rich(escape)) for w in warnings]


def _warning_lines(warnings: Iterable[ProposalWarning], words: Wording) -> list[str]:
    """Return each warning (escaped) followed by its sides with their evidence, in a player's words."""
    lines: list[str] = []
    for warning in warnings:
        lines.append(warning_messages([warning], words)[0])
        for side in warning.sides:
            said = [evidence_words(e, Viewer.PLAYER, words) for e in side.evidence]
            if said:
                sentence = warning_sentence(side.sentence, words.rich(escape))
                lines.append(f"  ◦ {sentence}: {said[0]}")
    return lines


# -- answers to /propose and /canon add ----------------------------------------------------------------


def date_of(content: ProposalContent) -> str | None:
    """Return the date a proposal is dated by: a relation's start, anything else's `when`."""
    if isinstance(content, RelationshipContent):
        return content.since
    return getattr(content, "when", None)


def proposed_embed(
    proposals: Sequence[Proposal],
    *,
    secret: frozenset[int] = frozenset(),
    words: Wording = PLAIN,
    scene_dated: bool = False,
    renamed: Sequence[tuple[str, str]] = (),
) -> discord.Embed:
    """Render what a /propose stored: the proposal, the names taken to mean an entity of canon ("Mirela →
    Mirela Harrow"), the entity proposals made for unknown names, warnings.

    A date the proposer never gave (`scene_dated`: the scene's) is said as the scene's, in the calendar's words.

    The warnings of `secret` proposals may rest on GM-only canon: they are left out without a trace (no count,
    no colour), so that the reply reads as one without warnings and a player learns nothing of hidden canon.
    The GM, who reviews every proposal anyway, reads them on the review card.
    """
    embed = discord.Embed(title="Proposed for canon", colour=COLOUR)
    *created, requested = proposals
    content, dated = requested.content, date_of(requested.content)
    # A change of state keeps its date in the sentence: a dated "alive" is a birth, and the reply must say
    # what the review card will ("is born in …"), not "becomes alive".
    keeps_date = isinstance(content, StateChangeContent)
    if scene_dated and dated and not keeps_date:
        content = content.model_copy(
            update={"since" if isinstance(content, RelationshipContent) else "when": None}
        )
    sentence = proposal_sentence(content, words.rich(escape))
    if scene_dated and dated:
        sentence += " (dated by the scene)" if keeps_date else f" (dated by the scene: {words.date(dated)})"
    lines = [f"{clip(sentence, 400)} — waits for the GM's review"]
    lines += [f"{escape(typed)} → {escape(name)}" for typed, name in renamed]
    for extra in created:
        if isinstance(extra.content, EntityContent):
            lines.append(
                f"“{escape(extra.content.name)}” is not in canon yet, so it is proposed too, as a new "
                f"{type_words(extra.content.entity_type)}."
            )
    embed.description = fit_lines(lines, EMBED_DESCRIPTION)
    shown = [w for p in proposals if p.id not in secret for w in p.warnings or ()]
    # A continuity finding is a warning; a detail new to the campaign is only a note.
    warnings = _warning_lines((w for w in shown if not w.new_attribute), words)
    notes = warning_messages((w for w in shown if w.new_attribute), words)
    if warnings:
        embed.colour = WARNING_COLOUR
        embed.add_field(
            name=f"{WARN} Continuity warnings", value=fit_lines(warnings, FIELD_VALUE), inline=False
        )
    if notes:
        embed.add_field(name=f"{NOTE} Good to know", value=fit_lines(notes, FIELD_VALUE), inline=False)
    embed.set_footer(text="The GM accepts or rejects it when the scene ends (/endscene).")
    return shrink_to_limit(embed)


def added_embed(result: CommitResult, words: Wording) -> discord.Embed:
    """Render what a /canon add wrote: the rows, the entities made for unknown names, conflicts found, dates
    in the campaign calendar's `words`."""
    embed = discord.Embed(title="Written to canon", colour=DONE_COLOUR)
    lines: list[str] = []
    created: list[Proposal] = []
    if result.accepted:
        *created, requested = result.accepted
        lines.append(clip(proposal_sentence(requested.content, words.rich(escape), Viewer.GM), 400))
    for extra in created:
        if isinstance(extra.content, EntityContent):
            lines.append(
                f"“{escape(extra.content.name)}” was not in canon, so it was added as a new "
                f"{extra.content.entity_type}."
            )
    embed.description = fit_lines(lines or ["Nothing was written."], EMBED_DESCRIPTION)
    if result.findings:
        embed.colour = WARNING_COLOUR
        embed.add_field(
            name=f"{WARN} Recorded as conflicts",
            value=fit_lines(
                [warning_sentence(f.message, words.rich(escape)) for f in result.findings], FIELD_VALUE
            ),
            inline=False,
        )
    return shrink_to_limit(embed)


# -- entity cards and timelines -------------------------------------------------------------------------


def statement_line(
    view: StatementView,
    *,
    evidence: bool = True,
    viewer: Viewer = Viewer.GM,
    words: Wording = PLAIN,
    known: Known | None = None,
    status: str | None = None,
    status_fact: StatementView | None = None,
) -> str:
    """Return one statement as a line: mark (`cogs.secret_marks`: the GM's lock, or what the player's
    character learned, `known`), sentence, when and evidence: its words, which typed back pick it
    (`bot.services.fact_picking`), never a number. `status`: a card's state said as a living person's status
    ("is missing (born in …)", `status_over_life`), from `status_fact`, whose mark the line takes when it has none."""
    words = words.rich(escape)
    sign = statement_mark(view, viewer, known) or (
        statement_mark(status_fact, viewer, known) if status_fact is not None else ""
    )
    line = (f"{sign} " if sign else "") + state_words(view, words, status)
    if evidence and view.statement.evidence:
        line += " — " + "; ".join(words.evidence(e, viewer) for e in view.statement.evidence[:2])
    return line


# -- conflicts, checks, retcons, policy -----------------------------------------------------------------


def _sides_lines(sides: Iterable[Side], words: Wording) -> list[str]:
    lines = []
    for side in sides:
        evidence = [evidence_words(e, Viewer.GM, words) for e in side.evidence]
        line = f"• {warning_sentence(side.sentence, words.rich(escape))}"
        if evidence:
            line += " — " + "; ".join(evidence[:2])
        lines.append(line)
    return lines


def check_embed(findings: Sequence[Finding], new: Sequence[Finding], words: Wording) -> discord.Embed:
    """Render a whole-graph continuity check: how many problems, and the new ones with both sides, dates in
    the campaign calendar's `words`."""
    embed = discord.Embed(title="Continuity check", colour=WARNING_COLOUR if findings else DONE_COLOUR)
    embed.description = (
        f"{counted(len(findings), 'problem')} in the whole canon; {len(new)} new since the last check."
        if findings
        else "No continuity problems found."
    )
    for finding in new[:10]:
        sides = finding.sides
        embed.add_field(
            name=clip(kind_words(finding.kind.value), EMBED_TITLE),
            value=fit_lines(
                [
                    clip(warning_sentence(finding.message, words.rich(escape)), 300),
                    *_sides_lines(sides, words),
                ],
                520,
            ),
            inline=False,
        )
    if len(new) > 10:
        embed.set_footer(text=f"… and {len(new) - 10} more new ones: see /canon conflicts.")
    return shrink_to_limit(embed)


def policy_embed(policy: dict[str, str]) -> discord.Embed:
    """Render the campaign's authority policy."""
    embed = discord.Embed(title="Authority policy", colour=COLOUR)
    embed.description = "\n".join(
        f"**{who}**: {'accepted automatically' if how == 'auto' else 'reviewed by the GM'}"
        for who, how in sorted(policy.items())
    )
    return embed
