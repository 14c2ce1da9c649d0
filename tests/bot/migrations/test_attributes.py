"""Migration 0013: attribute facts take their declared names; undeclared ones stay, with a note to the GM."""

from __future__ import annotations

from alembic import command
from sqlalchemy import select, update

from bot.schema import database
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import Database
from canon.tables import ConflictRow, StatementRow
from tests.helpers.canon_desk import Desk


async def test_upgrade_renames_aliases_and_notes_undeclared_attributes(db: Database) -> None:
    desk = await Desk.create(db)
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(EntityContent(name="Greyhaven", entity_type="Location"))
    await desk.add(FactContent(subject=Ref(name="Mara"), attribute="title", value="Harbourmaster"))
    await desk.add(FactContent(subject=Ref(name="Mara"), attribute="favourite song", value="The Gull"))
    await desk.add(FactContent(subject=Ref(name="Greyhaven"), attribute="kind", value="port"))
    async with db.engine.begin() as conn:
        await conn.run_sync(lambda sync: command.downgrade(database.alembic_config(sync), "0011"))
        # As an older version stored them: the spellings people typed.
        table = StatementRow.__table__
        await conn.execute(update(table).where(table.c.predicate == "title").values(predicate="titles"))
        await conn.execute(update(table).where(table.c.predicate == "type").values(predicate="kind"))
    assert "0013" not in await database.current_revisions(db)

    await database.upgrade(db)

    async with db.session() as session:
        predicates = set((await session.execute(select(StatementRow.predicate))).scalars())
        (note,) = (await session.execute(select(ConflictRow))).scalars()
    assert predicates == {"title", "type", "favourite_song"}
    assert note.kind == "unknown_attribute" and note.status == "open"
    assert note.campaign_id == desk.campaign.id
    assert note.message.startswith(
        "Attributes the ontology does not declare, kept as they were: favourite song (1 fact)."
    )
    assert await database.current_revisions(db) == database.head_revisions()
