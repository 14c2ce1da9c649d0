"""Campaigns: find and create them; a Discord server gets its campaign on first use."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import NotAllowed, NotFound
from canon.storage import Database


class CampaignService:
    """Find and create campaigns; a Discord server gets its campaign on first use.

    The lookups that lead to play (`for_channel`, `by_name`) refuse an abandoned branch, so that nothing answers
    from it or writes to it; inspection, export and delete ask for it with `allow_abandoned`.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._guild_default: dict[int, int] = {}

    async def for_guild(self, guild_id: int, guild_name: str) -> Campaign:
        """Return the campaign a server plays in, creating it on first use."""
        async with self.db.session() as session:
            cached = self._guild_default.get(guild_id)
            if cached is not None:
                return await campaigns.get_campaign(session, cached)
        campaign = await self.db.run(lambda s: campaigns.guild_default_campaign(s, guild_id, guild_name))
        self._guild_default[guild_id] = campaign.id
        return campaign

    async def for_channel(
        self,
        guild_id: int,
        guild_name: str,
        channel_id: int | None,
        category_id: int | None,
        *,
        parent_channel_id: int | None = None,
        allow_abandoned: bool = False,
    ) -> Campaign:
        """Return the campaign a channel plays in: its own binding, its parent channel's (a thread), its
        category's, else the server's root campaign (see `bot.services.branches`).

        A channel bound to an abandoned branch stops answering: `NotAllowed` says so (unless `allow_abandoned`,
        for the commands that rebind it or show it).
        """
        # Imported here: the branches' package is large, and `lorekeeper lore` finds its campaign by name only.
        from bot.services.branches.repository import bound_campaign_id

        async with self.db.session() as session:
            bound = await bound_campaign_id(session, [channel_id, parent_channel_id, category_id])
            if bound is None:
                # The server's own campaign, read in this session when already known (one session a command).
                cached = self._guild_default.get(guild_id)
                campaign = await campaigns.get_campaign(session, cached) if cached is not None else None
            else:
                campaign = await campaigns.get_campaign(session, bound)
                if not allow_abandoned:
                    await _refuse_abandoned(
                        session,
                        campaign,
                        f"This channel plays in “{campaign.name}”, a branch that was abandoned: it no longer "
                        "answers.",
                        "A GM can bind the channel to “{parent}”, where its story goes on, with "
                        "`/campaign use`.",
                    )
        if campaign is None:
            return await self.for_guild(guild_id, guild_name)
        return campaign

    async def of_guild(self, campaign_id: int, guild_id: int, guild_name: str) -> Campaign:
        """Return a campaign of this server (its root or any of its branches), else raise `NotAllowed`."""
        root_id = self._guild_default.get(guild_id)
        if root_id is None:
            root_id = (await self.for_guild(guild_id, guild_name)).id
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, campaign_id)
        if campaign.id != root_id and campaign.guild_id != guild_id:
            raise NotAllowed("That belongs to another server's campaign.")
        return campaign

    def cached_campaign_id(self, guild_id: int) -> int | None:
        """Return the id of a server's campaign when it is already known (no database access)."""
        return self._guild_default.get(guild_id)

    async def by_name(self, name: str, *, allow_abandoned: bool = False) -> Campaign:
        """Return a campaign by name or raise `NotFound`.

        An abandoned branch raises `NotAllowed` (unless `allow_abandoned`: inspecting, exporting, deleting it).
        """
        async with self.db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, name)
            if not allow_abandoned:
                await _refuse_abandoned(
                    session,
                    campaign,
                    f"“{campaign.name}” is a branch that was abandoned: it no longer answers or changes.",
                    "Its story goes on in “{parent}”: name that campaign instead. `lorekeeper campaign info` "
                    "and `lorekeeper export` still read the branch.",
                )
            return campaign

    async def create(self, name: str, *, guild_id: int | None = None) -> Campaign:
        """Create a root campaign."""
        return await self.db.run(lambda s: campaigns.create_campaign(s, name, guild_id=guild_id))

    async def all(self) -> list[Campaign]:
        """Return every campaign."""
        async with self.db.session() as session:
            return await campaigns.list_campaigns(session)

    async def in_play(self) -> list[Campaign]:
        """Return every campaign but the abandoned branches."""
        return [c for c in await self.all() if c.status != campaigns.CampaignStatus.ABANDONED]

    async def of_guild_by_name(self, guild_id: int, name: str) -> Campaign:
        """Return a campaign or branch of a server by name, else raise `NotFound`."""
        async with self.db.session() as session:
            found = [c for c in await campaigns.list_campaigns(session, guild_id=guild_id) if c.name == name]
        if not found:
            raise NotFound(f"This server has no campaign or branch named “{name}”. See `/campaign list`.")
        return found[0]


async def _refuse_abandoned(session: AsyncSession, campaign: Campaign, what: str, instead: str) -> None:
    """Raise `NotAllowed` for an abandoned branch: `what` happened, `instead` names where its story goes on.

    `instead` is formatted with `parent`, the nearest ancestor still in play (a root campaign is never abandoned).
    """
    if campaign.status != campaigns.CampaignStatus.ABANDONED:
        return
    ancestors = (await campaigns.chain(session, campaign.id))[1:]
    parent = next((row for row in ancestors if row.status != campaigns.CampaignStatus.ABANDONED), None)
    raise NotAllowed(what + (" " + instead.format(parent=parent.name) if parent is not None else ""))
