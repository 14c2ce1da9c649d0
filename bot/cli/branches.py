"""`lorekeeper campaign fork|info|rebase|promote|accept-promotion|abandon|delete`: what-if branches without Discord.

Registered on `lorekeeper campaign` by `bot.cli.main` (whose `campaign list` prints the tree with `tree_lines`). The
command line acts as the GM. Rebase and delete show what they would do and change nothing unless `--yes` is
given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import JsonOption, cli_actor, emit, fail, run_async, settings_or_exit, with_services

if TYPE_CHECKING:
    from bot.services.branches import BranchInfo, BranchNode, RebasePlan
    from canon.forks import ForkPoint

YesOption = Annotated[bool, typer.Option("--yes", help="Do it (without it, only show what would happen)")]


def fork_words(point: ForkPoint | None, parent: str | None, date: Callable[[str], str] = str) -> str:
    """Return a fork point in words ("" for a root campaign); `date` writes its world date in the calendar's words."""
    if point is None:
        return ""
    parts = [f"changeset #{point.changeset_id}"]
    if point.scene_order is not None:
        parts.append(f"after scene {point.scene_order}")
    if point.world_date:
        parts.append(f"world up to {date(point.world_date)}")
    return f"forked from {parent} at " + ", ".join(parts)


async def gm_dates(services: Any, campaign: Any) -> Callable[[str], str]:
    """Return how the GM reads a campaign's dates: its calendar's words (a GM-only era's too), never a key."""
    from canon.models import Viewer

    calendar = await services.calendars.calendar(campaign, Viewer.GM)
    date: Callable[[str], str] = calendar.words().date
    return date


def tree_lines(
    nodes: Sequence[BranchNode], dates: dict[int, Callable[[str], str]] | None = None
) -> list[str]:
    """Return the tree of campaigns, one line each, branches indented under their parent (`dates`: each
    campaign's date writer, by id)."""
    from canon.campaigns import CampaignStatus

    lines = []
    for node in nodes:
        c = node.campaign
        status = " [abandoned]" if c.status == CampaignStatus.ABANDONED else ""
        fork = fork_words(node.fork, node.parent_name, (dates or {}).get(c.id, str))
        lines.append("  " * node.depth + f"#{c.id}  {c.name}{status}" + (f"  ({fork})" if fork else ""))
    return lines


def node_payload(node: BranchNode, date: Callable[[str], str] = str) -> dict[str, Any]:
    """Return a tree node as JSON: the campaign, its depth, parent and fork point (`date` writes its world date in
    the calendar's words, as the text does)."""
    return _fork_dated(
        {
            **node.campaign.model_dump(mode="json"),
            "depth": node.depth,
            "parent": node.parent_name,
            "fork": node.fork.model_dump(mode="json") if node.fork else None,
            "bindings": [b.channel_id for b in node.bindings],
        },
        date,
    )


def _fork_dated(payload: dict[str, Any], date: Callable[[str], str]) -> dict[str, Any]:
    """Return a campaign's JSON with its fork's world date in words, never the stored key."""
    if payload.get("fork_world_date"):
        payload["fork_world_date"] = date(payload["fork_world_date"])
    if payload.get("fork") and payload["fork"].get("world_date"):
        payload["fork"] = {**payload["fork"], "world_date": date(payload["fork"]["world_date"])}
    return payload


def _plan_payload(plan: RebasePlan) -> dict[str, Any]:
    return {
        "branch": plan.branch.name,
        "parent": plan.parent.name,
        "current": plan.current.model_dump(mode="json"),
        "target": plan.target.model_dump(mode="json"),
        "changesets": plan.changesets,
        "scenes": plan.scenes,
        "sources": plan.sources,
        "renumbered": _renumbered(plan),
        "token": plan.token,
        "conflicts": [f.model_dump(mode="json") for f in plan.conflicts],
        "applied": plan.applied,
        "up_to_date": plan.up_to_date,
    }


def _renumbered(plan: RebasePlan) -> dict[str, list[int]] | None:
    moved = plan.renumbered
    return None if moved is None else {"from": [moved[0], moved[1]], "to": [moved[2], moved[3]]}


def _plan_text(plan: RebasePlan) -> str:
    from canon.wording.counts import counted

    head = "Rebased" if plan.applied else "Rebase would move"
    lines = [
        f"{head} “{plan.branch.name}” from changeset #{plan.current.changeset_id} to #{plan.target.changeset_id} "
        f"of “{plan.parent.name}”: {counted(plan.changesets, 'changeset')}, {counted(plan.scenes, 'scene')}, "
        f"{counted(plan.sources, 'source')}.",
    ]
    moved = plan.scene_move
    if moved is not None:
        lines.append(
            f"The branch's own {moved[0]} "
            + ("now come" if plan.applied else "will come")
            + f" after the parent's, as {moved[1]}."
        )
    if plan.conflicts:
        lines.append(f"{counted(len(plan.conflicts), 'continuity conflict')}:")
        lines += [f"  - {f.message}" for f in plan.conflicts]
    else:
        lines.append("No new continuity conflict.")
    if not plan.applied:
        lines.append("Nothing changed. Run again with --yes to rebase.")
    return "\n".join(lines)


def _info_payload(info: BranchInfo, date: Callable[[str], str] = str) -> dict[str, Any]:
    return _fork_dated(_info_fields(info), date)


def _info_fields(info: BranchInfo) -> dict[str, Any]:
    return {
        **info.campaign.model_dump(mode="json"),
        "parent": info.parent.name if info.parent else None,
        "fork": info.fork.model_dump(mode="json") if info.fork else None,
        "children": [c.name for c in info.children],
        "bindings": [{"channel_id": b.channel_id, "kind": b.kind} for b in info.bindings],
        "own": info.own,
        "behind": info.behind,
    }


def register(campaign_app: typer.Typer) -> None:
    """Add the branch commands to `lorekeeper campaign`."""
    campaign_app.command("fork")(fork)
    campaign_app.command("info")(info)
    campaign_app.command("rebase")(rebase)
    campaign_app.command("promote")(promote)
    campaign_app.command("accept-promotion")(accept_promotion)
    campaign_app.command("abandon")(abandon)
    campaign_app.command("delete")(delete)


def fork(
    parent: Annotated[str, typer.Argument(help="The campaign to fork")],
    name: Annotated[str, typer.Argument(help="The new branch's name")],
    at_scene: Annotated[int | None, typer.Option("--at-scene", help="Fork right after this scene")] = None,
    at_date: Annotated[
        str | None,
        typer.Option("--at-date", help="Fork at this in-world date (later-dated canon stays out)"),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Fork a what-if branch: one row, the parent read up to the fork point (nothing is copied)."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        found = await services.campaigns.by_name(parent)
        made = await services.branches.fork(
            found, name, at_scene=at_scene, at_date=at_date, actor=cli_actor()
        )
        return made, await gm_dates(services, made)

    branch, date = run_async(lambda: with_services(settings, work))
    from canon.forks import fork_point_of

    emit(
        _fork_dated(branch.model_dump(mode="json"), date),
        as_json=as_json,
        text=lambda: (
            f"Created branch #{branch.id} “{branch.name}”, {fork_words(fork_point_of(branch), parent, date)}."
        ),
    )


def info(
    name: Annotated[str, typer.Argument(help="The campaign or branch")], as_json: JsonOption = False
) -> None:
    """Show a campaign's parent, fork point, branches, bound channels and what it wrote itself."""
    from canon.wording.counts import counted

    settings = settings_or_exit()

    async def work(services: Any) -> tuple[BranchInfo, Callable[[str], str]]:
        found = await services.campaigns.by_name(name, allow_abandoned=True)
        result: BranchInfo = await services.branches.info(found)
        return result, await gm_dates(services, found)

    found, date = run_async(lambda: with_services(settings, work))

    def text() -> str:
        c = found.campaign
        lines = [f"#{c.id} {c.name} ({c.status.value})"]
        if found.parent is not None:
            lines.append(fork_words(found.fork, found.parent.name, date))
            if found.behind:
                lines.append(
                    f"{found.parent.name} has {counted(found.behind, 'newer changeset')}: rebase to get them."
                )
        lines.append("Written here: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in found.own.items()))
        if found.children:
            lines.append("Branches: " + ", ".join(k.name for k in found.children))
        return "\n".join(lines)

    emit(_info_payload(found, date), as_json=as_json, text=text)


def rebase(
    branch: Annotated[str, typer.Argument(help="The branch")],
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Show the conflicts a rebase onto the parent's latest canon would make; with --yes, rebase."""
    settings = settings_or_exit()

    async def work(services: Any) -> RebasePlan:
        found = await services.campaigns.by_name(branch)
        if yes:
            done: RebasePlan = await services.branches.rebase(found, cli_actor())
            return done
        plan: RebasePlan = await services.branches.plan_rebase(found)
        return plan

    plan = run_async(lambda: with_services(settings, work))
    if plan.up_to_date and not plan.applied:
        emit(_plan_payload(plan), as_json=as_json, text=lambda: f"“{plan.branch.name}” is up to date.")
        return
    emit(_plan_payload(plan), as_json=as_json, text=lambda: _plan_text(plan))


def promote(
    branch: Annotated[str, typer.Argument(help="The branch")],
    fact: Annotated[int, typer.Argument(help="The id of one of the branch's own facts")],
    as_json: JsonOption = False,
) -> None:
    """Propose a branch fact to the parent, for review there (`accept-promotion` decides and commits)."""
    settings = settings_or_exit()

    from canon.models import Viewer
    from canon.wording import describe

    async def work(services: Any) -> Any:
        found = await services.campaigns.by_name(branch)
        promoted = await services.branches.promote(found, fact, cli_actor())
        return promoted, await services.queries.words(promoted.parent, viewer=Viewer.GM)

    promotion, words = run_async(lambda: with_services(settings, work))
    emit(
        {
            "parent": promotion.parent.name,
            "batch": promotion.batch,
            "proposals": [p.model_dump(mode="json") for p in promotion.proposals],
        },
        as_json=as_json,
        text=lambda: "\n".join(
            [f"Proposed to “{promotion.parent.name}” (batch {promotion.batch}):"]
            + [f"  #{p.id} [{p.status}] {describe(p.content, words)}" for p in promotion.proposals]
        ),
    )


def accept_promotion(
    proposal: Annotated[int, typer.Argument(help="Any proposal of the promotion")],
    reject: Annotated[list[int] | None, typer.Option("--reject", help="A proposal to reject; repeat")] = None,
    rationale: Annotated[
        str | None, typer.Option("--rationale", help="Why a proposal with warnings is accepted anyway")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """As the GM: accept the promotion's proposals (but those named by --reject) and commit them."""
    from canon.wording.counts import counted

    settings = settings_or_exit()
    rejected = set(reject or [])

    async def work(services: Any) -> Any:
        first = await services.reviews.proposal(proposal)
        review = await services.reviews.review(None, campaign_id=first.campaign_id, batch=first.batch)
        for p in review.proposals:
            if p.status != "pending":
                continue
            await services.reviews.decide(
                p.id,
                accept=p.id not in rejected,
                actor=cli_actor(),
                rationale=rationale if p.id not in rejected else "rejected at the command line",
            )
        return await services.branches.commit_promotion(proposal, cli_actor())

    result = run_async(lambda: with_services(settings, work))
    emit(
        {
            "changeset_id": result.changeset_id,
            "accepted": [p.id for p in result.accepted],
            "rejected": [p.id for p in result.rejected],
            "statement_ids": result.statement_ids,
        },
        as_json=as_json,
        text=lambda: (
            f"Committed {counted(len(result.accepted), 'promoted proposal')} in changeset #{result.changeset_id}."
        ),
    )


def abandon(branch: Annotated[str, typer.Argument(help="The branch")], as_json: JsonOption = False) -> None:
    """Abandon a branch: its channels stop answering and nothing of it reaches another campaign."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        found = await services.campaigns.by_name(branch, allow_abandoned=True)
        return await services.branches.abandon(found, cli_actor())

    done = run_async(lambda: with_services(settings, work))
    emit(done.model_dump(mode="json"), as_json=as_json, text=lambda: f"Abandoned “{done.name}”.")


def delete(
    branch: Annotated[str, typer.Argument(help="The branch")],
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Delete a branch and everything it wrote (never its parent's); without --yes, show what would go."""
    from canon.wording.counts import counted

    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        found = await services.campaigns.by_name(branch, allow_abandoned=True)
        if not yes:
            return await services.branches.info(found)
        return await services.branches.delete(found)

    result = run_async(lambda: with_services(settings, work))
    if not yes:
        if result.parent is None:
            fail(
                f"“{result.campaign.name}” is a campaign, not a branch; only branches can be deleted.",
                code=1,
            )
        emit(
            {"would_delete": _info_payload(result), "deleted": False},
            as_json=as_json,
            text=lambda: (
                f"Would delete “{result.campaign.name}” and what it wrote: "
                + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in result.own.items())
                + ". Nothing changed; run again with --yes."
            ),
        )
        return
    emit(
        {
            "deleted": True,
            "name": result.name,
            "rows": result.rows,
            "files_removed": result.files_removed,
        },
        as_json=as_json,
        text=lambda: (
            f"Deleted “{result.name}”: {counted(sum(result.rows.values()), 'row')}. Its parent is untouched."
        ),
    )
