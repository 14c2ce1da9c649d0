"""Bindings: which campaign a channel plays in.

A Discord channel, or a category (then every channel inside it that has no binding of its own), is bound to
a campaign or branch of its server; a channel bound to nothing plays in the server's root campaign. A binding
changes only while no scene of another campaign is open in the channels it moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps
from bot.services.branches.models import Binding
from canon.campaigns import Campaign, CampaignStatus
from canon.errors import Conflict, InvalidInput, NotAllowed
from memory.scenes import Actor


async def bind(
    deps: BranchDeps,
    guild_id: int,
    place_id: int,
    kind: str,
    campaign: Campaign,
    actor: Actor,
    *,
    channels: Sequence[int] = (),
) -> Binding:
    """Bind a channel (or category) to a campaign of the server; refuse while a scene there is open.

    `channels` are the channels the binding would move (the channel, or the category's channels).
    """
    if kind not in {"channel", "category"}:
        raise InvalidInput("Bind a channel or a category.")
    if campaign.guild_id != guild_id:
        raise NotAllowed(f"“{campaign.name}” is not a campaign of this server.")
    if campaign.status != CampaignStatus.ACTIVE:
        raise Conflict(f"“{campaign.name}” was abandoned; bind the channel to a campaign still in play.")

    async def work(session: AsyncSession) -> Binding:
        moved = list(dict.fromkeys([place_id, *channels]))
        if kind == "category":  # channels with a binding of their own do not follow their category
            own = await repo.channels_bound_alone(session, moved)
            moved = [c for c in moved if c not in own]
        busy = [b for b in await repo.open_scenes_in(session, moved) if b[2] != campaign.id]
        if busy:
            channel_id, title, _ = busy[0]
            raise Conflict(
                f"The scene “{title}” is still open in <#{channel_id}>; end and commit it "
                "before the channel changes campaign."
            )
        return await repo.save_binding(
            session,
            guild_id=guild_id,
            place_id=place_id,
            kind=kind,
            campaign_id=campaign.id,
            actor_id=actor.id,
            actor_name=actor.name,
        )

    result: Binding = await deps.db.run(work)
    return result


async def unbind(
    deps: BranchDeps, guild_id: int, place_id: int, *, channels: Sequence[int] = ()
) -> Binding | None:
    """Remove a channel's (or category's) binding; it then plays in what it would inherit."""

    async def work(session: AsyncSession) -> Binding | None:
        found = await repo.binding_at(session, guild_id, place_id)
        if found is None:
            return None
        if await repo.open_scene_count(session, found.campaign_id, [place_id, *channels]):
            raise Conflict("A scene of this campaign is still open here; end and commit it first.")
        await repo.remove_binding(session, guild_id, place_id)
        return found

    result: Binding | None = await deps.db.run(work)
    return result


async def bindings(deps: BranchDeps, campaign_id: int) -> list[Binding]:
    """Return the channels and categories bound to a campaign."""
    async with deps.db.session() as session:
        return await repo.bindings_of(session, campaign_id=campaign_id)
