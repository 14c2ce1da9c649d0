"""The tree of branches of a server, and one campaign's place in it (parent, fork point, what it wrote)."""

from __future__ import annotations

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps
from bot.services.branches.models import Binding, BranchInfo, BranchNode
from canon import campaigns
from canon.campaigns import Campaign
from canon.forks import fork_point_of
from canon.models import Viewer


async def tree(deps: BranchDeps, *, guild_id: int | None = None) -> list[BranchNode]:
    """Return every campaign (of one server) as a tree: each root, then its branches, depth first."""
    async with deps.db.session() as session:
        everything = await campaigns.list_campaigns(session, guild_id=guild_id)
        binds = await repo.bindings_of(session, guild_id=guild_id)
    by_id = {c.id: c for c in everything}
    kids: dict[int | None, list[Campaign]] = {}
    for c in everything:
        parent = c.parent_id if c.parent_id in by_id else None
        kids.setdefault(parent, []).append(c)
    by_campaign: dict[int, list[Binding]] = {}
    for b in binds:
        by_campaign.setdefault(b.campaign_id, []).append(b)
    nodes: list[BranchNode] = []

    def walk(campaign: Campaign, depth: int) -> None:
        parent = by_id.get(campaign.parent_id) if campaign.parent_id is not None else None
        nodes.append(
            BranchNode(
                campaign=campaign,
                depth=depth,
                parent_name=parent.name if parent else None,
                fork=fork_point_of(campaign),
                bindings=by_campaign.get(campaign.id, []),
            )
        )
        for child in kids.get(campaign.id, []):
            walk(child, depth + 1)

    for root in kids.get(None, []):
        walk(root, 0)
    return nodes


async def info(deps: BranchDeps, campaign: Campaign, *, viewer: Viewer = Viewer.GM) -> BranchInfo:
    """Return a campaign's parent, fork point, branches, bindings and the rows it wrote itself.

    The counts are of what `viewer` may see: a player's leave hidden canon out.
    """
    async with deps.db.session() as session:
        current = await campaigns.get_campaign(session, campaign.id)
        parent = (
            await campaigns.get_campaign(session, current.parent_id)
            if current.parent_id is not None
            else None
        )
        children = await campaigns.children(session, current.id)
        binds = await repo.bindings_of(session, campaign_id=current.id)
        own = await repo.own_counts(session, current.id, viewer)
        behind = 0
        point = fork_point_of(current)
        if parent is not None and point is not None:
            behind = await repo.changesets_between(session, parent.id, point.changeset_id, None)
    return BranchInfo(
        campaign=current,
        parent=parent,
        fork=point,
        children=children,
        bindings=binds,
        own=own,
        behind=behind,
    )
