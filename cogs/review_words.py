"""The review card's words: what its marks mean, what happens to undecided proposals, and counts in English.

One place for each: the marks follow `canon.proposals.needs_rationale` (a continuity finding needs the GM's
reason to accept; a note that an attribute is new to the campaign needs none), and the words on undecided
proposals follow the campaign's authority policy (`canon.gate.authority_policy`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from canon.gate import DEFAULT_POLICY
from canon.models import Authority
from canon.proposals import Proposal, ProposalStatus
from cogs.embeds import counted

#: The mark of a proposal whose acceptance needs the GM's reason (a continuity finding).
CONFLICT_MARK = "⚠️ conflicts with canon — give a reason to accept"
#: The mark of a proposal that only brings a kind of detail the campaign has not used yet.
NEW_KIND_MARK = "ℹ️ new kind of detail"

_WHOSE = {
    Authority.GM: "yours (the GM's)",
    Authority.PLAYER: "the players'",
    Authority.SYSTEM: "the bot's own suggestions",
    Authority.SOURCE: "imported sources'",
}


def mark(proposal: Proposal) -> str | None:
    """Return what a proposal's warnings mean, in words (None without warnings)."""
    if proposal.needs_rationale:
        return CONFLICT_MARK
    return NEW_KIND_MARK if proposal.warnings else None


def left_undecided(proposal: Proposal) -> bool:
    """Return whether a proposal was dropped by a commit because nobody decided it (no one rejected it)."""
    return proposal.status == ProposalStatus.REJECTED and proposal.decided_by_name is None


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def undecided_rule(policy: Mapping[str, str]) -> str:
    """Return, in words, what a commit does with proposals nobody decided, under a campaign's policy.

    The GM's and the players' are always named; the bot's and imported sources' only when the campaign changed
    how they are treated (by default the bot's are dropped, as a player's are, and imported ones kept).
    """
    named = [a for a in _WHOSE if a in (Authority.GM, Authority.PLAYER) or policy.get(a) != DEFAULT_POLICY[a]]
    kept = [_WHOSE[a] for a in named if policy.get(a) == "auto"]
    dropped = [_WHOSE[a] for a in named if policy.get(a) != "auto"]
    parts = [
        f"{_listed(k)} {'is' if len(k) == 1 else 'are'} {verb}"
        for k, verb in ((kept, "kept"), (dropped, "dropped"))
        if k
    ]
    text = f"Anything left undecided: {', '.join(parts)}."
    if any(policy.get(a) != DEFAULT_POLICY[a] for a in DEFAULT_POLICY):
        text += " (This campaign set its own rule.)"
    return text


def undecided_note(undecided: Sequence[tuple[int, str, bool]], policy: Mapping[str, str]) -> str:
    """Return what Commit asks the GM, privately, while proposals are still undecided: each by its number and
    its words, and whether the commit drops it or writes it. `undecided`: each one's card number, sentence and
    whether the policy keeps it."""

    def few(items: list[str]) -> str:
        shown = items[:5] + ([f"{len(items) - 5} more"] if len(items) > 5 else [])
        return _listed(shown)

    dropped = [f"#{n} {about}" for n, about, kept in undecided if not kept]
    written = [f"#{n} {about}" for n, about, kept in undecided if kept]
    fate = [f"drops {few(dropped)}"] if dropped else []
    fate += [f"writes {few(written)}"] if written else []
    verb = "is" if len(undecided) == 1 else "are"
    return (
        f"{counted(len(undecided), 'proposal')} {verb} still undecided. Commit now {', and '.join(fate)}. "
        f"{undecided_rule(policy)} Press Commit again to go ahead, or decide them on the card first."
    )


def not_accepted_note(skipped: Sequence[tuple[int, str, str]]) -> str:
    """Return what Accept all tells the GM, privately, of the proposals it left undecided because they conflict
    with canon: one sentence with the next step. `skipped`: each one's card number, sentence and first warning."""
    if len(skipped) == 1:
        ((number, about, warning),) = skipped
        return (
            f"Accept all did not accept #{number} ({about}) because it conflicts with canon: "
            f"{warning.rstrip('.')}; decide it on its own: pick it, then Accept with your reason, or Reject."
        )
    numbers = _listed([f"#{number}" for number, _, _ in skipped])
    return (
        f"Accept all did not accept {numbers} because each conflicts with canon (the card says how); "
        "decide each on its own: pick it, then Accept with your reason, or Reject."
    )
