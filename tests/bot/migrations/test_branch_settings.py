"""Migration 0009: branches forked before a branch copied its parent's settings receive them on upgrade."""

from __future__ import annotations

from alembic import command
from sqlalchemy import insert, select

from bot.schema import database
from canon.campaigns import CampaignRow
from canon.storage import Database

SPACE = {"entity_types": {"Starship": {"kind": "concrete"}}}
FORK = {"world_until_key": None, "up_to_time": None}


async def test_upgrade_gives_old_branches_their_parents_settings_and_keeps_their_own(db: Database) -> None:
    async with db.engine.begin() as conn:
        await conn.run_sync(lambda sync: command.downgrade(database.alembic_config(sync), "0008"))
    assert "0009" not in await database.current_revisions(db)
    rows = [
        {
            "id": 1,
            "name": "Main",
            "parent_id": None,
            "settings": {"ontology": SPACE, "authority_policy": {"player": "auto"}},
        },
        # Forked before the fix: only its cut-offs.
        {"id": 2, "name": "Old branch", "parent_id": 1, "settings": {"fork": FORK}},
        # A branch of that branch: receives what its parent receives.
        {"id": 3, "name": "Deeper", "parent_id": 2, "settings": {"fork": FORK}},
        # A branch whose GM set a policy of its own: that one is kept.
        {
            "id": 4,
            "name": "Own policy",
            "parent_id": 1,
            "settings": {"fork": FORK, "authority_policy": {"gm": "review"}},
        },
        {"id": 5, "name": "Other root", "parent_id": None, "settings": {}},
    ]
    async with db.engine.begin() as conn:
        for row in rows:
            await conn.execute(insert(CampaignRow.__table__).values(**row))
    await database.upgrade(db)
    async with db.engine.connect() as conn:
        found = {
            r.id: r.settings
            for r in await conn.execute(select(CampaignRow.__table__.c.id, CampaignRow.__table__.c.settings))
        }
    main = rows[0]["settings"]
    assert found[1] == main
    assert found[2] == {**main, "fork": FORK}
    assert found[3] == {**main, "fork": FORK}
    assert found[4] == {"ontology": SPACE, "authority_policy": {"gm": "review"}, "fork": FORK}
    assert found[5] == {}
    assert await database.current_revisions(db) == database.head_revisions()
