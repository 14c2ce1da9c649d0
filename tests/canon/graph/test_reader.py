"""The canon reader's suggestions as a name is typed, on a real database (SQLite, then PostgreSQL)."""

from __future__ import annotations

import pytest

from canon.models import Viewer, Visibility
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import Database
from tests.helpers.canon_desk import Desk


@pytest.fixture
async def desk(db: Database) -> Desk:
    desk = await Desk.create(db)
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(EntityContent(name="Oswin", entity_type="NPC"))
    await desk.add(EntityContent(name="The Hidden King", entity_type="NPC", visibility=Visibility.GM_ONLY))
    for subject, attribute, visibility in (
        ("Mara", "title", Visibility.PUBLIC),
        ("Oswin", "title", Visibility.PUBLIC),
        ("Mara", "motto", Visibility.PUBLIC),
        ("Mara", "true heir", Visibility.GM_ONLY),  # a GM-only fact about a public entity
        ("The Hidden King", "tribute", Visibility.PUBLIC),  # a public fact about a GM-only entity
    ):
        fact = FactContent(subject=Ref(name=subject), attribute=attribute, value="x", visibility=visibility)
        await desk.add(fact)
    return desk


async def attribute_names(db: Database, desk: Desk, viewer: Viewer, prefix: str = "") -> list[str]:
    async with db.session() as session:
        return await (await desk.reader(session, viewer)).attribute_names(prefix)


async def test_attribute_names_come_most_used_first_then_by_name(db: Database, desk: Desk) -> None:
    assert await attribute_names(db, desk, Viewer.GM) == ["title", "motto", "tribute", "true_heir"]
    assert await attribute_names(db, desk, Viewer.GM, "TR") == ["tribute", "true_heir"]
    assert await attribute_names(db, desk, Viewer.GM, "true h") == ["true_heir"]  # typed as it is stored


async def test_a_player_hears_only_of_names_public_canon_uses(db: Database, desk: Desk) -> None:
    assert await attribute_names(db, desk, Viewer.PLAYER) == ["title", "motto"]
    assert await attribute_names(db, desk, Viewer.PLAYER, "t") == ["title"]


@pytest.mark.parametrize("typed", ["tru_", "%", "t%e", "\\"])
async def test_a_wildcard_typed_is_a_letter_like_any_other(db: Database, desk: Desk, typed: str) -> None:
    assert await attribute_names(db, desk, Viewer.GM, typed) == []
