"""The canon graph read on a real database: as of a scene or a date, and what a player may see."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.calendar import parse_date
from canon.campaigns import ChangesetKind
from canon.continuity import world_key
from canon.errors import NotFound
from canon.graph import CanonWriter
from canon.models import NOW, AsOf, Authority, StatementKind, Validity, Viewer, Visibility
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent, StateChangeContent
from canon.storage import Database
from tests.helpers.canon_desk import Desk


@pytest.fixture
async def desk(db: Database) -> Desk:
    return await Desk.create(db)


def at_date(text: str | None) -> AsOf:
    """Return the as-of point of an in-world date (the present without one)."""
    if text is None:
        return NOW
    date = parse_date(text)
    return AsOf(world=str(date), world_key=world_key(date))


async def test_asof_before_and_after_a_scene(desk: Desk) -> None:
    await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    await desk.add(StateChangeContent(subject=Ref(name="Aldric"), state="alive"))
    await desk.propose(StateChangeContent(subject=Ref(name="Aldric"), state="dead"), scene=1, gm=True)
    result = await desk.commit(scene=1)  # GM proposals are accepted by the default policy
    assert len(result.accepted) == 1
    before = await desk.card("Aldric", viewer=Viewer.PLAYER, as_of=AsOf(scene=0))
    after = await desk.card("Aldric", viewer=Viewer.PLAYER, as_of=AsOf(scene=1))
    assert before.state is not None and before.state.statement.value == "alive"
    assert after.state is not None and after.state.statement.value == "dead"


async def test_players_never_see_gm_only_canon(db: Database, desk: Desk) -> None:
    await desk.add(EntityContent(name="The Hidden King", entity_type="NPC", visibility=Visibility.GM_ONLY))
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(
        FactContent(subject=Ref(name="Mara"), attribute="secret", value="spy", visibility=Visibility.GM_ONLY)
    )
    with pytest.raises(NotFound):
        await desk.card("The Hidden King", viewer=Viewer.PLAYER)
    assert (await desk.card("The Hidden King", viewer=Viewer.GM)).entity.visibility == Visibility.GM_ONLY
    assert (await desk.card("Mara", viewer=Viewer.PLAYER)).facts == ()
    assert [v.statement.value for v in (await desk.card("Mara", viewer=Viewer.GM)).facts] == ["spy"]
    async with db.session() as session:
        assert not await (await desk.reader(session, Viewer.PLAYER)).autocomplete("Hidden")


async def test_asof_leaves_out_what_has_ended(db: Database, desk: Desk) -> None:
    for name in ("Aldric", "Mara"):
        await desk.add(EntityContent(name=name, entity_type="NPC"))
    await desk.add(
        RelationshipContent(
            subject=Ref(name="Aldric"),
            relation="ALLY_OF",
            object=Ref(name="Mara"),
            since="3rd_age.year_300",
            until="3rd_age.year_305",
        )
    )

    async def allies(date: str | None = None) -> list[str]:
        card = await desk.card("Aldric", viewer=Viewer.GM, as_of=at_date(date))
        return [v.sentence() for v in card.relations]

    assert await allies("3rd_age.year_299") == []
    assert await allies("3rd_age.year_302") == ["Aldric ally of Mara"]
    assert await allies("3rd_age.year_304.12.30") == ["Aldric ally of Mara"]
    assert await allies("3rd_age.year_305") == []
    assert await allies("3rd_age.year_340") == []
    assert await allies() == ["Aldric ally of Mara"]  # the present keeps the whole history

    # The story clock ends too: a fact that holds from scene 1 until scene 3 (a branch's shifted fact).
    async def write(session: AsyncSession) -> int:
        reader = await desk.reader(session)
        changeset = await campaigns.open_changeset(session, desk.campaign.id, ChangesetKind.GM_DIRECT)
        (aldric,) = await reader.find_exact("Aldric")
        return await CanonWriter(session, changeset, reader.ontology).add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=aldric.id,
            predicate="disguise",
            value="a friar",
            validity=Validity(story_from=1, story_until=3),
            authority=Authority.GM,
        )

    await db.run(write)

    async def disguises(scene: int) -> list[str | None]:
        card = await desk.card("Aldric", viewer=Viewer.GM, as_of=AsOf(scene=scene))
        return [v.statement.value for v in card.facts]

    assert [await disguises(n) for n in (0, 1, 2, 3, 4)] == [[], ["a friar"], ["a friar"], [], []]
