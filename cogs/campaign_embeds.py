"""Pure renderers of what-if branches: the tree, a branch's card, a rebase plan. No Discord connection needed."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.client.limits import FIELD_VALUE
from bot.services.branches import Binding, BranchInfo, BranchNode, DeleteReport, RebasePlan
from canon.campaigns import Campaign, CampaignStatus
from canon.forks import ForkPoint, fork_point_of
from canon.wording import PLAIN, CalendarWords
from canon.wording.counts import counted
from cogs.embeds import COLOUR, clip

TREE_LIMIT = 3900
CONFLICTS_SHOWN = 10


def fork_text(point: ForkPoint | None, parent: str | None, words: CalendarWords = PLAIN.calendar) -> str:
    """Return where a branch leaves its parent, in words, its date in the calendar's `words` ("" for a root)."""
    if point is None:
        return ""
    if point.scene_order is None:
        where = "as its canon stood then"
    else:
        where = f"after scene {point.scene_order}" if point.scene_order else "before any scene"
    text = f"forked from {parent or 'its parent'} {where}"
    if point.world_date:
        text += f", its world up to {words.date(point.world_date)}"
    return text


def _upper_first(text: str) -> str:
    """Return a sentence with its first letter upper-case and every name as it was ("The Tavern", "the Third Age")."""
    return text[:1].upper() + text[1:]


def _place(binding: Binding) -> str:
    return f"<#{binding.channel_id}>" + (" (category)" if binding.kind == "category" else "")


def tree_text(nodes: Sequence[BranchNode], *, here: int | None = None) -> str:
    """Return the tree of campaigns and branches, one line each, indented by depth."""
    lines: list[str] = []
    for node in nodes:
        c = node.campaign
        mark = " ← this channel" if c.id == here else ""
        status = " [abandoned]" if c.status == CampaignStatus.ABANDONED else ""
        fork = fork_text(node.fork, node.parent_name)
        places = ", ".join(_place(b) for b in node.bindings[:5])
        line = "  " * node.depth + ("└ " if node.depth else "") + f"**{c.name}**{status}{mark}"
        if fork:
            line += f" — {fork}"
        if places:
            line += f" · plays in {places}"
        lines.append(line)
    text = "\n".join(lines) or "No campaign yet."
    return clip(text, TREE_LIMIT)


def tree_embed(nodes: Sequence[BranchNode], *, here: int | None = None) -> discord.Embed:
    """Render `/campaign list`."""
    embed = discord.Embed(title="Campaigns and their branches", colour=COLOUR)
    embed.description = tree_text(nodes, here=here)
    embed.set_footer(text="Channels not bound to a branch play in the server's campaign.")
    return embed


def info_embed(info: BranchInfo) -> discord.Embed:
    """Render `/campaign info`."""
    c = info.campaign
    kind = "Branch" if c.is_branch else "Campaign"
    embed = discord.Embed(title=f"{kind}: {c.name}", colour=COLOUR)
    if info.parent is not None:
        embed.description = _upper_first(fork_text(info.fork, info.parent.name)) + "."
        if info.behind:
            embed.description += (
                f" {info.parent.name} has {counted(info.behind, 'newer canon update')}: `/campaign rebase`."
            )
    embed.add_field(name="Status", value=c.status.value)
    own = info.own
    embed.add_field(
        name="Written here",
        value=(
            f"{own.get('entities', 0)} entities, {own.get('facts', 0)} facts, {own.get('scenes', 0)} scenes, "
            f"{own.get('sources', 0)} sources, {own.get('npc_memories', 0)} NPC memories"
        ),
        inline=False,
    )
    if info.children:
        names = ", ".join(
            k.name + (" [abandoned]" if k.status == CampaignStatus.ABANDONED else "") for k in info.children
        )
        embed.add_field(name="Branches", value=clip(names, FIELD_VALUE), inline=False)
    if info.bindings:
        embed.add_field(
            name="Plays in",
            value=clip(", ".join(_place(b) for b in info.bindings), FIELD_VALUE),
            inline=False,
        )
    return embed


def forked_embed(branch: Campaign, parent: Campaign, words: CalendarWords = PLAIN.calendar) -> discord.Embed:
    """Render the answer to `/campaign fork` (a fork's date in the calendar's `words`)."""
    embed = discord.Embed(title=f"New branch: {branch.name}", colour=COLOUR)
    embed.description = (
        _upper_first(fork_text(fork_point_of(branch), parent.name, words))
        + ". Nothing was copied: the branch reads its parent up to that point, and nothing it writes reaches "
        + f"{parent.name}. Bind a channel to it with `/campaign use`."
    )
    return embed


def plan_embed(plan: RebasePlan) -> discord.Embed:
    """Render a rebase plan (before confirming) or its result."""
    b = plan.branch
    title = f"Rebased {b.name}" if plan.applied else f"Rebase {b.name} on {plan.parent.name}?"
    embed = discord.Embed(title=title, colour=COLOUR)
    embed.description = (
        f"The branch leaves {plan.parent.name} after scene {plan.target.scene_order or 0} instead of after "
        f"scene {plan.current.scene_order or 0}. It brings in {counted(plan.changesets, 'canon update')}, "
        f"{counted(plan.scenes, 'scene')} and {counted(plan.sources, 'source')} of {plan.parent.name}."
    )
    moved = plan.scene_move
    if moved is not None:
        embed.add_field(
            name="The branch's own scenes",
            value=(
                f"{moved[0][0].upper()}{moved[0][1:]} of {b.name} "
                + ("now come" if plan.applied else "will come")
                + f" after the parent's, as {moved[1]}: `/canon asof scene:N` reads one story."
            ),
            inline=False,
        )
    if plan.ontology_added or plan.ontology_kept:
        lines = []
        if plan.ontology_added:
            verb = "Added" if plan.applied else "Adds"
            lines.append(f"{verb} the parent's {', '.join(plan.ontology_added)}.")
        if plan.ontology_kept:
            lines.append(
                f"Keeps the branch's own definition of {', '.join(plan.ontology_kept)} "
                "(the parent defines it differently)."
            )
        embed.add_field(
            name="Ontology",
            value=clip(discord.utils.escape_markdown("\n".join(lines)), FIELD_VALUE),
            inline=False,
        )
    if plan.conflicts:
        lines = [f"• {f.message}" for f in plan.conflicts[:CONFLICTS_SHOWN]]
        if len(plan.conflicts) > CONFLICTS_SHOWN:
            lines.append(f"… and {len(plan.conflicts) - CONFLICTS_SHOWN} more")
        embed.add_field(
            name=f"{counted(len(plan.conflicts), 'continuity conflict')} it would make",
            value=clip("\n".join(lines), FIELD_VALUE),
            inline=False,
        )
    else:
        embed.add_field(name="Continuity", value="No new conflict.", inline=False)
    if not plan.applied:
        embed.set_footer(text="Nothing has changed yet. Confirm to move the fork point.")
    elif plan.conflicts:
        embed.set_footer(text="The conflicts are recorded: /canon conflicts in the branch lists them.")
    return embed


def deleted_text(report: DeleteReport) -> str:
    """Return the answer to a confirmed `/campaign delete`."""
    rows = sum(report.rows.values())
    return (
        f"Deleted the branch “{report.name}”: {counted(rows, 'row')} it wrote, "
        f"{counted(report.collections_dropped, 'vector collection')}, {counted(report.files_removed, 'stored file')}. "
        "Its parent is untouched."
    )
