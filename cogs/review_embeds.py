"""Pure renderers of the review card: one page of a scene's (or an import batch's) proposals, and its final state
after the commit. No Discord I/O.

The card shows one page of `PAGE_SIZE` proposals, in id order, so a proposal always sits on the same page however
the others are decided. Every embed stays inside Discord's limits (`cogs.canon_embeds.shrink_to_limit`).

Hidden canon (`canon.visibility` decides what is): a card posted where players see it (`reveal=False`) leaves
GM-only proposals (`Review.secret`) out without a trace (no line, no count, no button), and shows the proposals
whose warnings rest on GM-only canon (`Review.secret_warnings`) without those warnings; the GM decides and reads
them on a private card, where GM-only proposals are marked 🔒.

Numbers players see carry no gaps that hidden rows would explain: a card numbers its proposals 1, 2, 3 (the ones
players may read first, so both cards number them alike).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Sequence

import discord

from bot.client.limits import EMBED_TITLE, FIELD_VALUE, fit_lines
from bot.services.review import Review
from bot.services.wording import jump_url
from canon.continuity import Finding
from canon.models import Authority, Evidence, Viewer
from canon.proposals import Proposal, ProposalStatus
from canon.wording import PLAIN, SceneWords, TurnWords, Wording, proposal_sentence, warning_sentence
from canon.wording.evidence import by_scene
from cogs.canon_embeds import NOTE, WARN, shrink_to_limit, warning_messages
from cogs.embeds import COLOUR, DONE_COLOUR, WARNING_COLOUR, clip, counted, escape
from cogs.review_words import left_undecided, mark, undecided_rule
from cogs.secret_marks import LOCK
from memory.scenes import SceneStatus

PAGE_SIZE = 8
# Eight proposal fields of this size, their names, a title, a description and a footer fit in 6000.
PROPOSAL_FIELD_BUDGET = 600
STATUS = {
    ProposalStatus.PENDING: "⏳ pending",
    ProposalStatus.ACCEPTED: "✅ accepted",
    ProposalStatus.REJECTED: "❌ rejected",
    ProposalStatus.COMMITTED: "📜 committed",
}
# How a proposal's line names who proposed it, after the name.
AUTHORITY = {
    Authority.GM: " (GM)",
    Authority.PLAYER: "",
    Authority.SYSTEM: " (read from the story)",
    Authority.SOURCE: " (from an imported source)",
}


# -- the card's words -----------------------------------------------------------------------------------


def review_words(review: Review) -> Wording:
    """Return the words a review card speaks in, its own scene's turns linked to their messages."""
    words, scene = review.words, review.scene
    if scene is not None and scene.id not in words.scenes:
        turns = {
            number: TurnWords(url=jump_url(scene.guild_id, scene.channel_id, message_id))
            for number, message_id in review.turn_messages.items()
        }
        scenes = {
            **words.scenes,
            scene.id: SceneWords(
                order=scene.story_order,
                title=scene.title,
                turns=turns,
                place=scene.location,
                when=words.calendar.when(scene.world_date) or None,
            ),
        }
        words = dataclasses.replace(words, scenes=scenes)
    return words.rich(escape)


def evidence_text(evidence: Evidence, review: Review | None = None) -> str:
    """Return evidence in words, with links to the turns when the review knows their messages."""
    words = review_words(review) if review is not None else PLAIN.rich(escape)
    return words.evidence(evidence, Viewer.PLAYER)


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
    """Return each proposal's number on the card (1, 2, 3 in the card's order, counted over the whole scene so
    that a checkpoint renumbers nothing), by proposal id."""
    if review.numbers and all(p.id in review.numbers for p in review.proposals):
        return {p.id: review.numbers[p.id] for p in review.proposals}
    return {p.id: index for index, p in enumerate(review.proposals, start=1)}


def proposal_field(proposal: Proposal, review: Review, *, reveal: bool, number: int) -> tuple[str, str]:
    """Return the name and value of one proposal's field on the review card (`number`: its card number)."""
    name = f"#{number} · {STATUS[proposal.status]}"
    hidden = proposal.id in review.secret
    if hidden and not reveal:  # pragma: no cover - `as_seen` left it out already (belt and braces)
        raise ValueError("a GM-only proposal on a card players see")
    marked = mark(proposal)
    if marked and proposal.status in {ProposalStatus.PENDING, ProposalStatus.ACCEPTED}:
        name += f" · {marked}"
    words = review_words(review)
    viewer = Viewer.GM if reveal else Viewer.PLAYER
    lines = [(f"{LOCK} " if hidden else "") + clip(proposal_sentence(proposal.content, words, viewer), 300)]
    who = f"proposed by {escape(proposal.proposer_name or proposal.origin)}{AUTHORITY[proposal.authority]}"
    if proposal.decided_by_name and proposal.status != ProposalStatus.PENDING:
        who += f" · decided by {escape(proposal.decided_by_name)}"
    lines.append(who)
    if proposal.id in review.present and (reveal or proposal.id in review.read_present):
        lines.append("👥 Known only to those present: their characters learn it when it is committed")
    if proposal.evidence:
        said = by_scene(proposal.evidence)  # a scene's turns said once
        links = [evidence_text(e, review) for e in said[:3]]
        extra = f" (+{len(said) - 3})" if len(said) > 3 else ""
        lines.append("Evidence: " + ", ".join(links) + extra)
    # A GM's reason for a rejection is private unless the GM chose to show it.
    if (
        proposal.status == ProposalStatus.REJECTED
        and proposal.rationale
        and (reveal or proposal.rationale_public)
    ):
        lines.append(f"Why: {escape(clip(proposal.rationale, 200))}")
    if proposal.override_rationale:
        lines.append(f"Accepted despite the warnings: {escape(clip(proposal.override_rationale, 200))}")
    warnings = warning_messages(proposal.warnings, words)
    marks = [NOTE if w.new_attribute else WARN for w in proposal.warnings]
    lines += [f"{m} {clip(w, 220)}" for m, w in zip(marks, warnings[:3], strict=False)]
    if len(warnings) > 3:
        lines.append(f"{WARN} … and {len(warnings) - 3} more")
    return name, fit_lines(lines, PROPOSAL_FIELD_BUDGET)


def as_seen(review: Review, *, reveal: bool) -> Review:
    """Return the review as a card shows it: unless the card `reveal`s them, without its GM-only proposals,
    and without the warnings that rest on GM-only canon (the proposals themselves stay). The GM's card (`reveal`)
    says dates in the GM's calendar, a GM-only era's too; the others in the players' (such a date is none)."""
    if reveal and review.gm_calendar is not None:
        return dataclasses.replace(
            review, words=dataclasses.replace(review.words, calendar=review.gm_calendar)
        )
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
    embed = discord.Embed(title=clip(_review_title(review, "Canon review"), EMBED_TITLE), colour=COLOUR)
    summary = (
        f"{counted(len(review.proposals), 'proposal')}: {counts[ProposalStatus.PENDING]} pending · "
        f"{counts[ProposalStatus.ACCEPTED]} accepted · {counts[ProposalStatus.REJECTED]} rejected"
    )
    if counts[ProposalStatus.COMMITTED]:
        summary += f" · {counts[ProposalStatus.COMMITTED]} committed"
    if _checkpoint(review):  # the scene goes on: nothing undecided is dropped
        rule = "The scene goes on: the rest stay on the card for /endscene."
    else:
        rule = undecided_rule(review.policy)
    lines = [
        summary,
        f"Pick a proposal, then **Accept**, **Reject** or **Edit** it. Press **Commit** to write the accepted "
        f"ones. {rule}",
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


def read_review_embed(review: Review) -> discord.Embed:
    """Render a review card as a player reads it, privately and without controls (`ReviewService.as_read_by`):
    the page of the first proposal kept to those present they read, else of the first one pending."""
    shown = as_seen(review, reveal=False)
    first = min(shown.read_present, key=lambda i: card_numbers(shown)[i], default=None)
    page = page_of(shown, first) if first is not None else first_pending_page(shown)
    embed = review_embed(shown, page, reveal=False)
    summary = (embed.description or "").split("\n", 1)[0]
    embed.description = f"{summary}\nFor you alone, as you may read it: the GM decides each proposal."
    embed.set_footer(text=f"Page {page + 1}/{page_count(shown)} · for you alone")
    return embed


def _checkpoint(review: Review) -> bool:
    """Return whether a card is a checkpoint's: its scene still running."""
    return review.scene is not None and review.scene.status == SceneStatus.ACTIVE


def _review_title(review: Review, heading: str) -> str:
    if review.scene is not None:
        return f"{heading} — Scene {review.scene.story_order}: {review.scene.title}"
    batch = review.batch or ""
    if batch.startswith("extract:"):
        return f"{heading} — what was read from an imported document"
    return f"{heading} — proposals waiting for the GM"


def _conflict_lines(
    findings: Sequence[Finding], words: Wording, *, reveal: bool, accepted: Collection[str]
) -> list[str]:
    """Say what a commit's continuity conflicts came to: accepted with the GM's reason, or open for the GM."""
    if not findings:
        return ["No continuity conflicts."]
    settled = [f for f in findings if f.fingerprint in accepted]
    open_ = len(findings) - len(settled)
    if settled and not open_:
        outcome = "accepted with the GM's reason; nothing open"
    elif settled:
        outcome = f"{len(settled)} accepted with the GM's reason, {open_} open for the GM (/canon conflicts)"
    else:
        outcome = "open for the GM (/canon conflicts)"
    lines = [f"{WARN} {counted(len(findings), 'continuity conflict')}: {outcome}."]
    if reveal:  # what they are may rest on GM-only canon: the GM's cards say them
        for finding in findings[:5]:
            mark = " (accepted with your reason)" if finding.fingerprint in accepted else ""
            lines.append(f"• {clip(warning_sentence(finding.message, words), 300)}{mark}")
        if len(findings) > 5:
            lines.append(f"• … and {len(findings) - 5} more")
    return lines


def committed_embed(
    review: Review,
    findings: Sequence[Finding],
    *,
    reveal: bool,
    committed_by: str | None = None,
    accepted: Collection[str] = (),
) -> discord.Embed:
    """Render the final state of a review card after its commit: what was written, what was not, conflicts
    (`accepted`: the fingerprints of those the GM accepted with a reason, which leave nothing open)."""
    review = as_seen(review, reveal=reveal)
    embed = discord.Embed(
        title=clip(_review_title(review, "Canon committed"), EMBED_TITLE), colour=DONE_COLOUR
    )
    written = [p for p in review.proposals if p.status == ProposalStatus.COMMITTED]
    # Nobody decided what the commit dropped: it was left undecided, not rejected.
    dropped = [p for p in review.proposals if left_undecided(p)]
    refused = [p for p in review.proposals if p.status == ProposalStatus.REJECTED and not left_undecided(p)]
    by = f" by {escape(committed_by)}" if committed_by else ""
    words = review_words(review)
    left = f", {len(dropped)} left undecided (not written)" if dropped else ""
    lines = [f"Committed{by}: {len(written)} written to canon, {len(refused)} rejected{left}."]
    if _checkpoint(review):
        lines.append("The scene goes on: proposals still undecided, and new ones, wait for /endscene.")
    lines += _conflict_lines(findings, words, reveal=reveal, accepted=accepted)
    embed.description = "\n".join(lines)

    numbers = card_numbers(review)

    def line(p: Proposal, *, why: bool) -> str:
        number = numbers[p.id]
        text = f"#{number} {LOCK} " if p.id in review.secret else f"#{number} "
        text += clip(proposal_sentence(p.content, words, Viewer.GM if reveal else Viewer.PLAYER), 150)
        if why and p.rationale:
            text += f" — {escape(clip(p.rationale, 120))}"
        return text

    if written:
        embed.add_field(
            name="Written to canon",
            value=fit_lines([line(p, why=False) for p in written], FIELD_VALUE),
            inline=False,
        )
    if refused:
        embed.add_field(
            name="Rejected",
            value=fit_lines([line(p, why=reveal or p.rationale_public) for p in refused], FIELD_VALUE),
            inline=False,
        )
    if dropped:
        embed.add_field(
            name="Left undecided, so not written",
            value=fit_lines([line(p, why=False) for p in dropped], FIELD_VALUE),
            inline=False,
        )
    embed.set_footer(text="This review is closed.")
    return shrink_to_limit(embed)
