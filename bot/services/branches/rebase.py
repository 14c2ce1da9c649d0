"""Rebase: move a branch's fork point to its parent's latest changeset, once the GM saw what it brings.

The plan shows the changesets, scenes and sources the move brings in and the continuity conflicts it would
make; a rebase confirmed with the plan's token applies it (the branch's own scenes then follow the parent's
new ones) and records those conflicts for the branch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps, require_retirable
from bot.services.branches.fork import date_scene_order, latest_point, with_kept_restrictions
from bot.services.branches.models import RebasePlan
from canon import campaigns, forks
from canon.campaigns import Campaign, CampaignStatus, ChangesetKind, chain, lineage
from canon.checks import record_findings, whole_graph_findings, whole_snapshot, with_evidence
from canon.continuity import Finding, Snapshot, check
from canon.errors import Conflict, InvalidInput
from canon.forks import ForkPoint, LineageStep, fork_point_of, steps_of
from canon.graph import CanonReader
from canon.models import Validity, Viewer
from canon.ontology import Ontology
from memory.knowledge.source_rows import delete_source_rows
from memory.lineage import shift_own_story
from memory.scenes import Actor


async def _rebasable(session: AsyncSession, branch_id: int) -> tuple[Campaign, Campaign]:
    """Return a branch and its parent, refusing what cannot be rebased."""
    branch = await campaigns.get_campaign(session, branch_id)
    if branch.parent_id is None:
        raise InvalidInput(f"“{branch.name}” is not a branch; only a branch can be rebased.")
    if branch.status != CampaignStatus.ACTIVE:
        raise Conflict(f"“{branch.name}” was abandoned; it cannot be rebased.")
    parent = await campaigns.get_campaign(session, branch.parent_id)
    if parent.status != CampaignStatus.ACTIVE:
        raise Conflict(f"“{parent.name}” was abandoned; nothing of it can reach another branch.")
    kids = await campaigns.children(session, branch.id)
    if kids:
        # A child's lineage runs through this fork point: moving it would change what the child inherits.
        raise Conflict(
            f"“{branch.name}” has branches of its own ({', '.join(k.name for k in kids)}); a rebase would "
            "change what they inherit. Delete them first."
        )
    return branch, parent


async def _target(session: AsyncSession, parent: Campaign, current: ForkPoint) -> ForkPoint:
    """Return the fork point a rebase moves to: the parent's latest, keeping an at-date cut."""
    forked_after = current.scene_order or 0
    latest = await latest_point(session, parent)
    scene_order = latest.scene_order or 0
    if current.world_until_key is not None:  # an at_date cut is kept, and never moves back
        scene_order = max(
            forked_after, await date_scene_order(session, parent, current.world_until_key, scene_order)
        )
    return latest.model_copy(
        update={
            "world_date": current.world_date,
            "world_until_key": current.world_until_key,
            "scene_order": scene_order,
        }
    )


async def _sources_between(
    session: AsyncSession, old: Sequence[LineageStep], new: Sequence[LineageStep]
) -> tuple[int, ...]:
    found: list[int] = []
    for before, after in zip(old[1:], new[1:], strict=True):
        if before.up_to_time is None or after.up_to_time is None:
            continue
        found += await repo.sources_imported_between(
            session, before.campaign_id, before.up_to_time, after.up_to_time
        )
    return tuple(sorted(found))


async def _refreshed(session: AsyncSession, branch: Campaign) -> tuple[int, ...]:
    """Return the branch's copies of sources still as copied (one it re-imported itself is its own now)."""
    pins = forks.pinned_sources(branch)
    if not pins:
        return ()
    hashes = await repo.source_hashes(session, branch.id, pins)
    return tuple(
        sorted(source_id for source_id, content_hash in hashes if pins.get(source_id) == content_hash)
    )


def _merged_ontology(
    deps: BranchDeps, branch: Campaign, parent: Campaign
) -> tuple[dict[str, Any] | None, list[str], list[str], Ontology]:
    """Return the branch's ontology extension with its parent's added, what was added and kept, and the result."""
    extension, added, kept = forks.merge_ontology_extensions(
        branch.settings.get(forks.ONTOLOGY_SETTINGS), parent.settings.get(forks.ONTOLOGY_SETTINGS)
    )
    try:
        ontology = deps.access.ontology_for(
            branch.model_copy(update={"settings": {**branch.settings, forks.ONTOLOGY_SETTINGS: extension}})
        )
    except InvalidInput as error:
        raise Conflict(
            f"“{parent.name}”'s ontology extension cannot be added to “{branch.name}”'s: {error} "
            "Make the two agree (`lorekeeper canon ontology --set`) and rebase again. Nothing changed."
        ) from None
    return extension, list(added), list(kept), ontology


async def _new_conflicts(
    session: AsyncSession,
    branch: Campaign,
    steps: tuple[Sequence[LineageStep], Sequence[LineageStep]],
    ontology: Ontology,
    forked_after: int,
    shift: int,
) -> list[Finding]:
    """Return the continuity findings of the rebased graph that the branch does not have now."""
    old_steps, new_steps = steps
    before = await whole_graph_findings(CanonReader(session, old_steps, ontology, viewer=Viewer.GM))
    rebased = CanonReader(session, new_steps, ontology, viewer=Viewer.GM)
    snapshot = _moved_story(await whole_snapshot(rebased), branch.id, forked_after, shift)
    known = {f.fingerprint for f in before}
    return [f for f in await with_evidence(rebased, check(snapshot)) if f.fingerprint not in known]


async def rebase_plan(deps: BranchDeps, session: AsyncSession, branch_id: int) -> RebasePlan:
    """Return what moving a branch's fork point to its parent's latest would bring in, in this session."""
    branch, parent = await _rebasable(session, branch_id)
    current = fork_point_of(branch)
    assert current is not None
    forked_after = current.scene_order or 0
    target = await _target(session, parent, current)
    scene_order = target.scene_order or 0
    changesets = await repo.changesets_between(session, parent.id, current.changeset_id, target.changeset_id)
    scenes = await repo.scenes_between(session, parent.id, forked_after, scene_order)
    own_scenes = await repo.own_scene_orders(session, branch.id)
    # The branch's own scenes come after everything it inherits: they move past the parent's new ones.
    shift = scene_order - forked_after if own_scenes and scene_order > forked_after else 0
    rows = await chain(session, branch.id)
    target = await with_kept_restrictions(session, parent, target)
    new_steps = steps_of([(branch.id, target)] + [(r.id, fork_point_of(r)) for r in rows[1:]])
    old_steps = await lineage(session, branch.id)
    source_ids = await _sources_between(session, old_steps, new_steps)
    refreshed = await _refreshed(session, branch)
    extension, added, kept, ontology = _merged_ontology(deps, branch, parent)
    conflicts: list[Finding] = []
    if changesets or scenes:
        conflicts = await _new_conflicts(
            session, branch, (old_steps, new_steps), ontology, forked_after, shift
        )
    return RebasePlan(
        branch=branch,
        parent=parent,
        current=current,
        target=target,
        changesets=changesets,
        scenes=scenes,
        source_ids=source_ids,
        conflicts=conflicts,
        own_scenes=own_scenes,
        shift=shift,
        ontology_added=tuple(added),
        ontology_kept=tuple(kept),
        ontology=extension,
        refreshed_ids=refreshed,
    )


async def plan_rebase(deps: BranchDeps, branch: Campaign) -> RebasePlan:
    """Return what a rebase would bring in and the conflicts it would make; change nothing."""
    async with deps.db.session() as session:
        return await rebase_plan(deps, session, branch.id)


async def rebase(
    deps: BranchDeps, branch: Campaign, actor: Actor, *, expect: str | None = None
) -> RebasePlan:
    """Move the fork point to the parent's latest changeset, recording the new conflicts for the branch.

    The branch's own scenes (and the story clock of the canon they wrote) move after the parent's scenes
    the rebase brings in. `expect` is the plan's `token` the GM was shown: when the parent moved on
    meanwhile (canon, scenes or sources), nothing changes and `Conflict` asks to look again.
    """

    dropped: list[tuple[int, list[int], str | None]] = []

    async def work(session: AsyncSession) -> RebasePlan:
        dropped.clear()
        plan = await rebase_plan(deps, session, branch.id)
        if expect is not None and plan.token != expect:
            raise Conflict(
                f"“{plan.parent.name}” changed since the conflicts were shown; run the rebase again to see "
                "what it would bring in now. Nothing changed."
            )
        if plan.up_to_date:
            raise Conflict(f"“{branch.name}” already has everything of “{plan.parent.name}”.")
        moved = plan.scene_move
        if moved is not None:
            await require_retirable(session, plan.branch, "rebased")
            await shift_own_story(session, branch.id, after=plan.current.scene_order or 0, by=plan.shift)
        if plan.ontology_added:  # add-only: the branch's canon keeps every type it was written with
            await campaigns.update_campaign_settings(
                session, branch.id, {forks.ONTOLOGY_SETTINGS: plan.ontology}
            )
        for source_id in plan.refreshed_ids:  # the parent's current version comes in instead
            chunk_ids, file_hash = await delete_source_rows(session, source_id)
            dropped.append((source_id, chunk_ids, file_hash))
        await campaigns.move_fork_point(session, branch.id, plan.target)  # clears the pins too
        await campaigns.open_changeset(
            session,
            branch.id,
            ChangesetKind.REBASE,
            actor_id=actor.id,
            actor_name=actor.name,
            rationale=(
                f"Rebased on “{plan.parent.name}”: fork point moved from changeset "
                f"#{plan.current.changeset_id} to #{plan.target.changeset_id}"
                + (f"; its own scenes {moved[0]} became {moved[1]}" if moved else "")
                + (f"; ontology: added {', '.join(plan.ontology_added)}" if plan.ontology_added else "")
            ),
        )
        await record_findings(session, branch.id, plan.conflicts)
        return dataclasses.replace(
            plan, applied=True, own_scenes=tuple(order + plan.shift for order in plan.own_scenes)
        )

    done: RebasePlan = await deps.db.run(work, attempts=1)
    if deps.knowledge is not None:
        for source_id, chunk_ids, file_hash in dropped:
            await deps.knowledge.drop_vectors(branch.id, source_id, chunk_ids)
            if file_hash:
                await deps.knowledge.remove_file_if_unused(file_hash)
    deps.forget(branch.id)
    return done


def _moved_story(snapshot: Snapshot, campaign_id: int, after: int, by: int) -> Snapshot:
    """Return a snapshot whose rows of `campaign_id` after story order `after` sit `by` scenes later.

    What the rebased graph will look like once `shift_own_story` has moved the branch's own scenes.
    """
    if by <= 0:
        return snapshot

    def moved(validity: Validity) -> Validity:
        return dataclasses.replace(
            validity,
            story_from=validity.story_from + by
            if validity.story_from is not None and validity.story_from > after
            else validity.story_from,
            story_until=validity.story_until + by
            if validity.story_until is not None and validity.story_until > after
            else validity.story_until,
        )

    def own(row: Any) -> bool:
        return bool(row.provenance.campaign_id == campaign_id)

    return dataclasses.replace(
        snapshot,
        entities={
            i: dataclasses.replace(e, validity=moved(e.validity)) if own(e) else e
            for i, e in snapshot.entities.items()
        },
        statements=[
            dataclasses.replace(s, validity=moved(s.validity)) if own(s) else s for s in snapshot.statements
        ],
    )
