"""The two campaigns `bench.wiki` browses: the SRD world as a GM imports it, and a generated 100,000-fact one.

The SRD campaign is `../shared/corpora/srd`: the world bible's markdown files (prose, searched as `/lore`
searches) and its bestiary YAML (334 creatures, canon with entity pages), imported through the same
service `/lore import` calls, with the offline embedding model and the data directory's Chroma. The large one
is `bench.canon_data`'s generated graph written straight into the same SQLite file (seconds, not an import):
eras, people, events, relations, retcons and aliases, sized by its fact count.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.canon_data import generate
from bot.app import Services
from bot.schema import database
from canon import campaigns
from canon.campaigns import Campaign
from canon.storage import Database
from memory.scenes import Actor

SRD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "srd"
GM = Actor(id=1, name="GM", is_gm=True)
SRD_NAME, BIG_NAME = "SRD world", "Big world"
#: Facts per entity in the generated campaign (as `bench.canon`'s sizes: ten statements an entity).
FACTS_PER_ENTITY = 10


@dataclass(frozen=True)
class World:
    """A campaign to browse, and what to ask of it: an entity's name and a search."""

    campaign: Campaign
    entity: str
    search: str
    facts: int


def srd_files(srd: Path = SRD) -> list[Path]:
    """Return the SRD files a GM would import: the world bible's prose and its bestiary (YAML)."""
    prose = sorted((srd / "world").glob("*.md"))
    return [*prose, srd / "world" / "bestiary.yaml"]


async def generate_big(database_path: Path, facts: int) -> None:
    """Write the generated campaign of `facts` statements into a migrated SQLite file (before the bot opens it)."""
    db = Database.from_url(f"sqlite+aiosqlite:///{database_path}")
    await database.upgrade(db)
    await db.dispose()
    generate(database_path, entities=max(100, facts // FACTS_PER_ENTITY), statements=facts, campaign=BIG_NAME)


async def import_srd(services: Services, guild_id: int, srd: Path = SRD) -> Campaign:
    """Create the SRD campaign on a server and import its files as a GM does with `/lore import`."""
    campaign = await services.db.run(lambda s: campaigns.create_campaign(s, SRD_NAME, guild_id=guild_id))
    for path in srd_files(srd):
        done = await services.imports.import_file(campaign, path.name, path.read_bytes(), actor=GM)
        if done.structured is not None and done.structured.status != "ingested":
            raise RuntimeError(f"{path.name} was not imported: {done.structured.summary()}")
    return campaign


async def big_campaign(services: Services, guild_id: int) -> Campaign:
    """Return the generated campaign, bound to a server (the wiki's links are for a server's campaign)."""
    async with services.db.session() as session:
        found = await campaigns.find_campaign_by_name(session, BIG_NAME)

    async def bind(session: object) -> None:
        row = await session.get(campaigns.CampaignRow, found.id)  # type: ignore[attr-defined]
        row.guild_id = guild_id

    await services.db.run(bind)
    async with services.db.session() as session:
        return await campaigns.get_campaign(session, found.id)


async def busiest_entity(services: Services, campaign: Campaign) -> str:
    """Return the name of the entity with the most facts (the heaviest page a person would open)."""
    from sqlalchemy import func, select

    from canon.tables import EntityRow, StatementRow

    async with services.db.session() as session:
        query = (
            select(EntityRow.name, func.count(StatementRow.id).label("facts"))
            .join(StatementRow, StatementRow.subject_id == EntityRow.id)
            .where(EntityRow.campaign_id == campaign.id)
            .group_by(EntityRow.id, EntityRow.name)
            .order_by(func.count(StatementRow.id).desc(), EntityRow.id)
            .limit(1)
        )
        row = (await session.execute(query)).first()
    if row is None:
        raise RuntimeError(f"the campaign {campaign.name} has no facts to browse")
    return str(row[0])


async def fact_count(services: Services, campaign: Campaign) -> int:
    """Return how many statements the campaign holds."""
    from sqlalchemy import func, select

    from canon.tables import StatementRow

    async with services.db.session() as session:
        query = select(func.count()).select_from(StatementRow).where(StatementRow.campaign_id == campaign.id)
        return int(await session.scalar(query) or 0)
