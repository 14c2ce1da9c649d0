"""Retiring a branch: abandon it (it stops answering; nothing of it is promoted or forked again) or delete it
(its own rows, vector collections, stored files and bindings; never an ancestor's)."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps, require_retirable
from bot.services.branches.models import DeleteReport
from canon import campaigns
from canon.campaigns import Campaign, CampaignStatus
from canon.errors import Conflict
from memory.scenes import Actor

log = logging.getLogger(__name__)


async def abandon(deps: BranchDeps, branch: Campaign, actor: Actor) -> Campaign:
    """Stop a branch: its channels go quiet, its waiting proposals and promotions are rejected, no fork."""

    async def work(session: AsyncSession) -> Campaign:
        current = await campaigns.get_campaign(session, branch.id)
        if current.status == CampaignStatus.ABANDONED:
            raise Conflict(f"“{current.name}” was already abandoned.")
        await require_retirable(session, current, "abandoned")
        live = [k for k in await campaigns.children(session, current.id) if k.status == CampaignStatus.ACTIVE]
        if live:
            raise Conflict(
                f"“{current.name}” has branches still in play ({', '.join(k.name for k in live)}); abandon "
                "them first."
            )
        # Its promotions waiting in the parent, and its own waiting proposals (a review card of the
        # branch must not write to it once abandoned).
        await repo.reject_waiting(
            session,
            current.id,
            rationale=f"The branch “{current.name}” was abandoned.",
            actor_id=actor.id,
            actor_name=actor.name,
        )
        return await campaigns.set_status(session, current.id, CampaignStatus.ABANDONED)

    done: Campaign = await deps.db.run(work, attempts=1)
    return done


async def delete(deps: BranchDeps, branch: Campaign) -> DeleteReport:
    """Delete a branch and everything it wrote (rows, vector collections, bindings); never an ancestor's."""

    async def work(session: AsyncSession) -> tuple[dict[str, int], list[str]]:
        current = await campaigns.get_campaign(session, branch.id)
        await require_retirable(session, current, "deleted")
        kids = await campaigns.children(session, current.id)
        if kids:
            raise Conflict(
                f"“{current.name}” has branches of its own ({', '.join(k.name for k in kids)}); delete them first."
            )
        hashes = await repo.source_files(session, current.id)
        counts = await repo.delete_campaign_rows(session, current.id)
        return counts, hashes

    counts, hashes = await deps.db.run(work, attempts=1)
    dropped = await _drop_collections(deps, branch.id)
    removed = 0
    if deps.knowledge is not None:
        for file_hash in dict.fromkeys(hashes):
            removed += bool(await deps.knowledge.remove_file_if_unused(file_hash))
    deps.forget(branch.id)
    return DeleteReport(name=branch.name, rows=counts, files_removed=removed, collections_dropped=dropped)


async def _drop_collections(deps: BranchDeps, campaign_id: int) -> int:
    indexes = [getattr(deps.knowledge, "vectors", None)]
    if deps.voice is not None:
        indexes += [deps.voice.memories.index, deps.voice.moments.index]
    dropped = 0
    for index in indexes:
        if index is None:
            continue
        try:
            await index.reset(campaign_id)
            dropped += 1
        except Exception as error:  # a collection left behind is unreachable: no campaign has its id
            log.warning("could not drop a vector collection of deleted branch %s: %s", campaign_id, error)
    return dropped
