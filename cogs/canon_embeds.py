"""Pure renderers for canon: the review card, entity cards, timelines, conflicts, retcons. No Discord I/O.

Every embed stays inside Discord's limits (title 256, description 4096, 25 fields of 1024, 6000 in all):
lists are cut at whole lines with "… and N more". The review card shows one page of `PAGE_SIZE` proposals,
in id order, so a proposal always sits on the same page however the others are decided.

Hidden canon (`canon.visibility` decides what is): the service already leaves GM-only rows out for players;
these renderers drop them again when the viewer is a player (belt and braces) and mark them 🔒 for the GM. A
review card posted where players see it (`reveal=False`) leaves GM-only proposals (`Review.secret`) out without
a trace (no line, no count, no button), and shows the proposals whose warnings rest on GM-only canon
(`Review.secret_warnings`) without those warnings; the GM decides and reads them on a private card.

Numbers players see carry no gaps that hidden rows would explain: a review card numbers its proposals 1, 2, 3
(the ones players may read first, so both cards number them alike), and players' cards and timelines show no
entity or fact ids (the GM's do).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import discord

from bot.client.limits import fit_lines
from bot.services.canon_service import RetconResult, Review
from canon.continuity import Finding
from canon.domain import (
    AsOf,
    CanonLevel,
    EntityCard,
    Evidence,
    EvidenceKind,
    StatementKind,
    StatementView,
    Viewer,
    Visibility,
)
from canon.gate import CommitResult
from canon.proposals import EntityContent, Proposal, ProposalStatus, describe
from canon.visibility import view_hidden, visible_views
from cogs.embeds import COLOUR, clip

PAGE_SIZE = 8
EMBED_LIMIT = 6000
FIELD_LIMIT = 1024
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256
# Eight proposal fields of this size, their names, a title, a description and a footer fit in 6000.
PROPOSAL_FIELD_BUDGET = 600
LOCK = "🔒"
WARN = "⚠️"
STATUS = {
    ProposalStatus.PENDING: "⏳ pending",
    ProposalStatus.ACCEPTED: "✅ accepted",
    ProposalStatus.REJECTED: "❌ rejected",
    ProposalStatus.COMMITTED: "📜 committed",
}
WARNING_COLOUR = discord.Colour.orange()
DONE_COLOUR = discord.Colour.green()


# -- helpers --------------------------------------------------------------------------------------------


def shrink_to_limit(embed: discord.Embed) -> discord.Embed:
    """Cut the longest field values until the whole embed fits Discord's 6000 characters."""
    while len(embed) > EMBED_LIMIT and embed.fields:
        index, field = max(enumerate(embed.fields), key=lambda pair: len(pair[1].value or ""))
        value = field.value or ""
        excess = len(embed) - EMBED_LIMIT
        embed.set_field_at(
            index,
            name=field.name,
            value=clip(value, max(20, len(value) - excess - 1)),
            inline=field.inline,
        )
        if len(value) <= 20:
            embed.remove_field(index)
    return embed


def jump_url(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """Return the link that opens a Discord message."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def _escape(text: str) -> str:
    """Return user text that cannot break out of a markdown link or a strikethrough."""
    return discord.utils.escape_markdown(text)


def evidence_text(evidence: Evidence, review: Review | None = None) -> str:
    """Return evidence in words, with links to the turns when the review knows their messages."""
    scene = review.scene if review is not None else None
    if (
        evidence.kind == EvidenceKind.TURNS
        and scene is not None
        and review is not None
        and evidence.scene_id == scene.id
        and evidence.turn_from is not None
    ):
        first, last = evidence.turn_from, evidence.turn_to or evidence.turn_from

        def link(number: int, label: str) -> str:
            message_id = review.turn_messages.get(number)
            return (
                f"[{label}]({jump_url(scene.guild_id, scene.channel_id, message_id)})"
                if message_id
                else label
            )

        cited = (
            link(first, f"turn {first}")
            if first == last
            else f"turns {link(first, str(first))}–{link(last, str(last))}"
        )
        return cited + (f" ({_escape(evidence.note)})" if evidence.note else "")
    return _escape(evidence.describe())


# A decision's note as the gate writes it; the number may be another copy's after an archive is restored.
_DECISION_NOTE = re.compile(r"Proposal #[0-9]+ by (?P<rest>.*)", re.S)


def evidence_words(evidence: Evidence, viewer: Viewer) -> str:
    """Return evidence in words for a viewer (escaped): a player's words carry no ids and no GM rationale.

    A decision's note names its proposal by id and may quote the GM's reason to accept it despite warnings,
    which may rest on GM-only canon; a source chunk is named by ids. Players read neither.
    """
    if viewer == Viewer.GM:
        return _escape(evidence.describe())
    if evidence.kind == EvidenceKind.CHUNK:
        return "an imported source"
    decision = _DECISION_NOTE.match(evidence.note or "") if evidence.kind == EvidenceKind.COMMAND else None
    if decision is not None:
        decided = decision["rest"].split(" despite warnings:", 1)[0]
        return _escape(f"proposed by {decided}")
    return _escape(evidence.describe())


def _warning_messages(warnings: Iterable[dict[str, Any]]) -> list[str]:
    return [str(w.get("message") or w.get("kind") or "a continuity problem") for w in warnings]


def _warning_lines(warnings: Iterable[dict[str, Any]]) -> list[str]:
    """Return each warning (escaped) followed by its sides with their evidence, in a player's words."""
    lines: list[str] = []
    for warning in warnings:
        lines.append(_escape(_warning_messages([warning])[0]))
        for side in warning.get("sides") or []:
            said = [
                evidence_words(Evidence.model_validate(e), Viewer.PLAYER) for e in side.get("evidence") or []
            ]
            if said:
                lines.append(f"  ◦ {_escape(str(side.get('sentence', '')))}: {said[0]}")
    return lines


# -- the review card ------------------------------------------------------------------------------------


def page_count(review: Review) -> int:
    """Return how many pages the review card has (at least one)."""
    return max(1, -(-len(review.proposals) // PAGE_SIZE))


def clamp_page(review: Review, page: int) -> int:
    """Return a page number inside the card."""
    return min(max(0, page), page_count(review) - 1)


def page_of(review: Review, proposal_id: int) -> int:
    """Return the page a proposal is on (the first page when it is not in the review)."""
    for index, proposal in enumerate(review.proposals):
        if proposal.id == proposal_id:
            return index // PAGE_SIZE
    return 0


def first_pending_page(review: Review) -> int:
    """Return the first page with a proposal still waiting for a decision (or the first page)."""
    for index, proposal in enumerate(review.proposals):
        if proposal.status == ProposalStatus.PENDING:
            return index // PAGE_SIZE
    return 0


def page_proposals(review: Review, page: int) -> list[Proposal]:
    """Return the proposals shown on a page."""
    start = clamp_page(review, page) * PAGE_SIZE
    return review.proposals[start : start + PAGE_SIZE]


def card_numbers(review: Review) -> dict[int, int]:
    """Return each proposal's number on the card (1, 2, 3 in the card's order), by proposal id."""
    return {p.id: index for index, p in enumerate(review.proposals, start=1)}


def proposal_field(proposal: Proposal, review: Review, *, reveal: bool, number: int) -> tuple[str, str]:
    """Return the name and value of one proposal's field on the review card (`number`: its card number)."""
    name = f"#{number} · {STATUS[proposal.status]}"
    hidden = proposal.id in review.secret
    if hidden and not reveal:  # pragma: no cover - `as_seen` left it out already (belt and braces)
        raise ValueError("a GM-only proposal on a card players see")
    if proposal.warnings and proposal.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}:
        name += f" · {WARN} {len(proposal.warnings)}"
    lines = [(f"{LOCK} " if hidden else "") + _escape(clip(describe(proposal.content), 300))]
    who = f"by {_escape(proposal.proposer_name or proposal.origin)} · {proposal.authority.value}"
    if proposal.decided_by_name and proposal.status != ProposalStatus.PENDING:
        who += f" · decided by {_escape(proposal.decided_by_name)}"
    lines.append(who)
    if proposal.evidence:
        links = [evidence_text(e, review) for e in proposal.evidence[:3]]
        extra = f" (+{len(proposal.evidence) - 3})" if len(proposal.evidence) > 3 else ""
        lines.append("Evidence: " + ", ".join(links) + extra)
    # A GM's reason for a rejection is private unless the GM chose to show it.
    if (
        proposal.status == ProposalStatus.REJECTED
        and proposal.rationale
        and (reveal or proposal.rationale_public)
    ):
        lines.append(f"Why: {_escape(clip(proposal.rationale, 200))}")
    if proposal.override_rationale:
        lines.append(f"Accepted despite the warnings: {_escape(clip(proposal.override_rationale, 200))}")
    warnings = _warning_messages(proposal.warnings)
    lines += [f"{WARN} {_escape(clip(w, 220))}" for w in warnings[:3]]
    if len(warnings) > 3:
        lines.append(f"{WARN} … and {len(warnings) - 3} more")
    return name, fit_lines(lines, PROPOSAL_FIELD_BUDGET)


def as_seen(review: Review, *, reveal: bool) -> Review:
    """Return the review as a card shows it: unless the card `reveal`s them, without its GM-only proposals,
    and without the warnings that rest on GM-only canon (the proposals themselves stay)."""
    if reveal or not (review.secret or review.secret_warnings):
        return review
    shown = [
        p.model_copy(update={"warnings": ()}) if p.id in review.secret_warnings else p
        for p in review.proposals
        if p.id not in review.secret
    ]
    return dataclasses.replace(review, proposals=shown, secret=frozenset(), secret_warnings=frozenset())


def review_counts(review: Review) -> Counter[ProposalStatus]:
    """Return how many proposals are in each status."""
    return Counter(p.status for p in review.proposals)


def review_embed(review: Review, page: int, *, reveal: bool) -> discord.Embed:
    """Render one page of a scene's review card (the buttons come from `cogs.canon_views.review_view`)."""
    review = as_seen(review, reveal=reveal)
    page = clamp_page(review, page)
    counts = review_counts(review)
    embed = discord.Embed(title=clip(_review_title(review, "Canon review"), TITLE_LIMIT), colour=COLOUR)
    summary = (
        f"{len(review.proposals)} proposals: {counts[ProposalStatus.PENDING]} pending · "
        f"{counts[ProposalStatus.ACCEPTED]} accepted · {counts[ProposalStatus.REJECTED]} rejected"
    )
    if counts[ProposalStatus.COMMITTED]:
        summary += f" · {counts[ProposalStatus.COMMITTED]} committed"
    lines = [
        summary,
        "Pick a proposal in the list, then **Accept**, **Reject** or **Edit** it; press **Commit** to write "
        "the accepted ones with their evidence. Undecided ones follow the campaign's authority policy (by "
        "default the GM's are accepted, players' and the system's rejected). A proposal with ⚠️ needs a "
        "rationale to accept.",
    ]
    embed.description = "\n".join(lines)
    if any(p.warnings for p in review.proposals if p.status == ProposalStatus.PENDING):
        embed.colour = WARNING_COLOUR
    numbers = card_numbers(review)
    for proposal in page_proposals(review, page):
        name, value = proposal_field(proposal, review, reveal=reveal, number=numbers[proposal.id])
        embed.add_field(name=name, value=value, inline=False)
    if not review.proposals:
        embed.add_field(name="Nothing proposed", value="Commit completes the scene.", inline=False)
    embed.set_footer(text=f"Page {page + 1}/{page_count(review)} · only the GM can press these buttons")
    return shrink_to_limit(embed)


def _review_title(review: Review, heading: str) -> str:
    if review.scene is not None:
        return f"{heading} — Scene {review.scene.story_order}: {review.scene.title}"
    return f"{heading} — {review.batch or 'proposals'}"


def committed_embed(
    review: Review, findings: Sequence[Finding], *, reveal: bool, committed_by: str | None = None
) -> discord.Embed:
    """Render the final state of a review card after its commit: what was written, what was not, conflicts."""
    review = as_seen(review, reveal=reveal)
    embed = discord.Embed(
        title=clip(_review_title(review, "Canon committed"), TITLE_LIMIT), colour=DONE_COLOUR
    )
    written = [p for p in review.proposals if p.status == ProposalStatus.COMMITTED]
    refused = [p for p in review.proposals if p.status == ProposalStatus.REJECTED]
    by = f" by {_escape(committed_by)}" if committed_by else ""
    lines = [f"Committed{by}: {len(written)} written to canon, {len(refused)} rejected."]
    if findings:
        kinds = Counter(f.kind.value for f in findings)
        listed = ", ".join(f"{kind} ×{n}" if n > 1 else kind for kind, n in sorted(kinds.items()))
        lines.append(
            f"{WARN} {len(findings)} continuity conflict(s) recorded ({listed}); see `/canon conflicts`."
        )
    else:
        lines.append("No continuity conflicts.")
    embed.description = "\n".join(lines)

    numbers = card_numbers(review)

    def line(p: Proposal, *, why: bool) -> str:
        number = numbers[p.id]
        text = f"#{number} {LOCK} " if p.id in review.secret else f"#{number} "
        text += _escape(clip(describe(p.content), 150))
        if why and p.rationale:
            text += f" — {_escape(clip(p.rationale, 120))}"
        return text

    if written:
        embed.add_field(
            name="Written to canon",
            value=fit_lines([line(p, why=False) for p in written], FIELD_LIMIT),
            inline=False,
        )
    if refused:
        embed.add_field(
            name="Rejected",
            value=fit_lines([line(p, why=reveal or p.rationale_public) for p in refused], FIELD_LIMIT),
            inline=False,
        )
    embed.set_footer(text="This review is closed.")
    return shrink_to_limit(embed)


# -- answers to /propose and /canon add ----------------------------------------------------------------


def proposed_embed(proposals: Sequence[Proposal], *, secret: frozenset[int] = frozenset()) -> discord.Embed:
    """Render what a /propose stored: the proposal, the entity proposals made for unknown names, warnings.

    The warnings of `secret` proposals may rest on GM-only canon: they are left out without a trace (no count,
    no colour), so that the reply reads as one without warnings and a player learns nothing of hidden canon.
    The GM, who reviews every proposal anyway, reads them on the review card.
    """
    embed = discord.Embed(title="Proposed for canon", colour=COLOUR)
    *created, requested = proposals
    lines = [f"{_escape(clip(describe(requested.content), 400))} — waits for the GM's review"]
    for extra in created:
        if isinstance(extra.content, EntityContent):
            lines.append(
                f"“{_escape(extra.content.name)}” is not in canon yet, so it is proposed too, as a new "
                f"{extra.content.entity_type}."
            )
    embed.description = fit_lines(lines, DESCRIPTION_LIMIT)
    warnings = [w for p in proposals if p.id not in secret for w in _warning_lines(p.warnings)]
    if warnings:
        embed.colour = WARNING_COLOUR
        embed.add_field(
            name=f"{WARN} Continuity warnings",
            value=fit_lines(warnings, FIELD_LIMIT),
            inline=False,
        )
    embed.set_footer(text="The GM accepts or rejects it when the scene ends (/endscene).")
    return shrink_to_limit(embed)


def added_embed(result: CommitResult) -> discord.Embed:
    """Render what a /canon add wrote: the rows, the entities made for unknown names, conflicts found."""
    embed = discord.Embed(title="Written to canon", colour=DONE_COLOUR)
    lines: list[str] = []
    created: list[Proposal] = []
    if result.accepted:
        *created, requested = result.accepted
        ids = [f"fact #{i}" for i in result.statement_ids]
        if requested.id in result.entity_ids:
            ids.insert(0, f"entity #{result.entity_ids[requested.id]}")
        lines.append(
            _escape(clip(describe(requested.content), 400)) + (f" ({', '.join(ids)})" if ids else "")
        )
    for extra in created:
        if isinstance(extra.content, EntityContent):
            lines.append(
                f"“{_escape(extra.content.name)}” was not in canon, so it was added as a new "
                f"{extra.content.entity_type} (entity #{result.entity_ids.get(extra.id, '?')})."
            )
    embed.description = fit_lines(lines or ["Nothing was written."], DESCRIPTION_LIMIT)
    if result.findings:
        embed.colour = WARNING_COLOUR
        embed.add_field(
            name=f"{WARN} Recorded as conflicts",
            value=fit_lines([_escape(f.message) for f in result.findings], FIELD_LIMIT),
            inline=False,
        )
    return shrink_to_limit(embed)


# -- entity cards and timelines -------------------------------------------------------------------------


def statement_line(
    view: StatementView, *, evidence: bool = True, relative_to: int | None = None, viewer: Viewer = Viewer.GM
) -> str:
    """Return one statement as a line: lock, sentence, when, its id (the GM's cards only) and evidence."""
    s = view.statement
    if s.kind == StatementKind.RELATION and view.object is not None and relative_to is not None:
        if view.subject.id == relative_to:
            text = f"{s.predicate} → {_escape(view.object.name)}"
        else:
            text = f"{_escape(view.subject.name)} {s.predicate} → this"
    elif s.kind == StatementKind.ATTRIBUTE and relative_to == s.subject_id:
        text = f"{_escape(s.predicate)} = {_escape(s.value or '')}"
    else:
        text = _escape(view.sentence())
    when = s.validity.describe()
    line = (f"{LOCK} " if view_hidden(view) else "") + text + (f" ({when})" if when else "")
    if viewer == Viewer.GM:
        line += f" `#{s.id}`"
    if evidence and s.evidence:
        line += " — " + "; ".join(evidence_words(e, viewer) for e in s.evidence[:2])
    return line


def entity_card_embed(card: EntityCard, *, viewer: Viewer, as_of: AsOf) -> discord.Embed:
    """Render an entity's card: state, aliases, relations, key facts and their evidence."""
    entity = card.entity
    if viewer == Viewer.PLAYER and entity.visibility == Visibility.GM_ONLY:
        return discord.Embed(title="Not found", description="No such entity in this campaign's canon.")
    lock = f" {LOCK}" if entity.visibility == Visibility.GM_ONLY else ""
    embed = discord.Embed(title=clip(f"{entity.name} ({entity.type}){lock}", TITLE_LIMIT), colour=COLOUR)
    lines = []
    if entity.description:
        lines.append(_escape(clip(entity.description, 1500)))
    if entity.aliases:
        lines.append("Also known as: " + _escape(", ".join(entity.aliases)))
    if entity.provenance.level == CanonLevel.RETCONNED:
        lines.append("This entity was retconned.")
    if entity.kind != "concrete":
        lines.append(f"Kind: {entity.kind}")
    embed.description = fit_lines(lines, 2000) or None
    state = card.state
    if state is not None and viewer == Viewer.PLAYER and view_hidden(state):
        state = None
    embed.add_field(
        name="State",
        value=statement_line(state, relative_to=entity.id, viewer=viewer) if state is not None else "unknown",
        inline=False,
    )
    relations = visible_views(card.relations, viewer)
    if relations:
        embed.add_field(
            name="Relations",
            value=fit_lines(
                [statement_line(v, evidence=False, relative_to=entity.id, viewer=viewer) for v in relations],
                FIELD_LIMIT,
            ),
            inline=False,
        )
    facts = visible_views(card.facts, viewer)
    if facts:
        embed.add_field(
            name="Facts",
            value=fit_lines(
                [
                    statement_line(v, relative_to=entity.id, viewer=viewer)
                    + (
                        f" — changed on {card.changed_at[v.statement.id]}"
                        if v.statement.id in card.changed_at
                        else ""
                    )
                    for v in facts
                ],
                FIELD_LIMIT,
            ),
            inline=False,
        )
    if card.evidence:
        embed.add_field(
            name="Evidence",
            value=fit_lines([evidence_words(e, viewer) for e in card.evidence], FIELD_LIMIT),
            inline=False,
        )
    footer = f"As of {as_of.describe()}"
    if viewer == Viewer.GM:
        footer += f" · entity #{entity.id} · {LOCK} = GM only"
    embed.set_footer(text=footer)
    return shrink_to_limit(embed)


def timeline_embed(name: str, views: Sequence[StatementView], *, viewer: Viewer) -> discord.Embed:
    """Render an entity's timeline in story order; retconned rows are struck through."""
    embed = discord.Embed(title=clip(f"Timeline: {name}", TITLE_LIMIT), colour=COLOUR)
    lines = []
    for view in visible_views(views, viewer):
        line = statement_line(view, evidence=False, viewer=viewer)
        if view.statement.provenance.level == CanonLevel.RETCONNED:
            replaced = view.statement.provenance.replaced_by
            line = f"~~{line}~~ retconned" + (f" → `#{replaced}`" if replaced and viewer == Viewer.GM else "")
        lines.append(line)
    embed.description = fit_lines(lines, DESCRIPTION_LIMIT - 96) if lines else "Nothing recorded yet."
    footer = "Struck through: retconned (what was believed before)."
    if viewer == Viewer.GM:
        footer += f" {LOCK} = GM only."
    embed.set_footer(text=footer)
    return shrink_to_limit(embed)


# -- conflicts, checks, retcons, policy -----------------------------------------------------------------


def _sides_lines(sides: Iterable[dict[str, Any]]) -> list[str]:
    lines = []
    for side in sides:
        evidence = [Evidence.model_validate(e).describe() for e in side.get("evidence") or []]
        target = f"`#{side['statement_id']}` " if side.get("statement_id") else ""
        line = f"• {target}{_escape(str(side.get('sentence', '')))}"
        if evidence:
            line += " — " + _escape("; ".join(evidence[:2]))
        lines.append(line)
    return lines


def check_embed(findings: Sequence[Finding], new: Sequence[Finding]) -> discord.Embed:
    """Render a whole-graph continuity check: how many problems, and the new ones with both sides."""
    embed = discord.Embed(title="Continuity check", colour=WARNING_COLOUR if findings else DONE_COLOUR)
    embed.description = (
        f"{len(findings)} problem(s) in the whole graph; {len(new)} new since the last check."
        if findings
        else "No continuity problems found."
    )
    for finding in new[:10]:
        sides = [s.model_dump(mode="json") for s in finding.sides]
        embed.add_field(
            name=clip(f"{finding.kind.value}", TITLE_LIMIT),
            value=fit_lines([_escape(clip(finding.message, 300)), *_sides_lines(sides)], 520),
            inline=False,
        )
    if len(new) > 10:
        embed.set_footer(text=f"… and {len(new) - 10} more new ones: see /canon conflicts.")
    return shrink_to_limit(embed)


def retcon_embed(result: RetconResult, rationale: str) -> discord.Embed:
    """Render a retcon: the old fact struck through, its replacement, and the facts to review."""
    embed = discord.Embed(title=f"Retcon of fact #{result.retconned_id}", colour=WARNING_COLOUR)
    old = (
        statement_line(result.retconned, evidence=False)
        if result.retconned
        else f"fact #{result.retconned_id}"
    )
    lines = [f"~~{old}~~ is retconned.", f"Why: {_escape(clip(rationale, 500))}"]
    if result.replacement is not None:
        lines.append(f"Replaced by: {statement_line(result.replacement, evidence=False)}")
    elif result.replacement_id is not None:
        lines.append(f"Replaced by fact #{result.replacement_id}.")
    else:
        lines.append("Nothing replaces it.")
    if result.closed:
        lines.append(
            f"Resolves {len(result.closed)} open conflict(s): " + "; ".join(f"#{c.id}" for c in result.closed)
        )
    embed.description = fit_lines(lines, DESCRIPTION_LIMIT)
    embed.add_field(
        name=f"Facts to review ({len(result.dependents)})",
        value=fit_lines([statement_line(v, evidence=False) for v in result.dependents], FIELD_LIMIT)
        if result.dependents
        else "Nothing relied on it.",
        inline=False,
    )
    embed.set_footer(text="As-of queries before this retcon still show what was believed then.")
    return shrink_to_limit(embed)


def policy_embed(policy: dict[str, str]) -> discord.Embed:
    """Render the campaign's authority policy."""
    embed = discord.Embed(title="Authority policy", colour=COLOUR)
    embed.description = "\n".join(
        f"**{who}**: {'accepted automatically' if how == 'auto' else 'reviewed by the GM'}"
        for who, how in sorted(policy.items())
    )
    return embed
