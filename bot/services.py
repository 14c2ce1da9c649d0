"""The application's services, built once from settings and handed to the Discord client, the CLI and tests."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from canon import campaigns
from canon.campaigns import Campaign
from canon.storage import Database
from config.settings import Settings
from memory.scenes import SceneService
from memory.turn_log import TurnLog

log = logging.getLogger(__name__)


class CampaignService:
    """Find and create campaigns; a Discord server gets its campaign on first use."""

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

    async def by_name(self, name: str) -> Campaign:
        """Return a campaign by name or raise `NotFound`."""
        async with self.db.session() as session:
            return await campaigns.find_campaign_by_name(session, name)

    async def create(self, name: str, *, guild_id: int | None = None) -> Campaign:
        """Create a root campaign."""
        return await self.db.run(lambda s: campaigns.create_campaign(s, name, guild_id=guild_id))

    async def all(self) -> list[Campaign]:
        """Return every campaign."""
        async with self.db.session() as session:
            return await campaigns.list_campaigns(session)


@dataclass
class Services:
    """Everything a command needs; built by `build_services` and closed by `close`."""

    settings: Settings
    db: Database
    campaigns: CampaignService
    scenes: SceneService
    turns: TurnLog

    async def close(self) -> None:
        """Write what is queued and close every connection."""
        await self.turns.close()
        await self.db.dispose()


async def build_services(settings: Settings, *, db: Database | None = None, migrate: bool = True) -> Services:
    """Open the database (creating the data directory and applying migrations) and build the services."""
    from bot import database

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = db or Database.from_url(settings.resolved_database_url)
    if migrate:
        await database.upgrade(db)
    turns = TurnLog(db)
    turns.start()
    return Services(
        settings=settings,
        db=db,
        campaigns=CampaignService(db),
        scenes=SceneService(db),
        turns=turns,
    )
