"""The wiki's full-size pictures from a real campaign: the same visibility as every picture (GM-only people and
events absent for a player, not counted; a character's knowledge lets what they learned in), and the as-of view.

Runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator

import pytest

from bot.app import CanonServices, build_canon
from bot.services.pictures import PictureService
from canon.campaigns import Campaign
from canon.errors import NotFound
from canon.knowing import Learned
from canon.models import AsOf, Viewer
from canon.render import TimelineLayout, TreeLayout
from canon.storage import Database
from canon.visibility import Knowing
from memory.scene_service import SceneService
from tests.conftest import DatabaseTarget
from tests.helpers.picture_checks import standing
from tests.helpers.valdorn import VALDORN, campaign_in

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
async def db(db_target: DatabaseTarget) -> AsyncIterator[Database]:
    """The test's database holding the imported Valdorn world: a copy of one built once per process."""
    async with VALDORN.opened(db_target) as opened:
        yield opened


@pytest.fixture
async def world(db: Database) -> tuple[Campaign, CanonServices]:
    return await campaign_in(db), build_canon(db, SceneService(db))


def drawn_text(svg: str) -> set[str]:
    return {t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")}  # noqa: S314 (our own SVG)


async def key_id(db: Database, campaign: Campaign, kind: str, key: str) -> int:
    rows = await standing(db, campaign.id, kind, Viewer.GM)
    return next(i for i, row in rows.items() if row.key == key)


async def test_a_player_s_full_tree_leaves_the_gm_only_heir_out_and_his_page_is_unknown(
    db: Database, world: tuple[Campaign, CanonServices]
) -> None:
    campaign, canon = world
    pictures = PictureService(db, canon.access)
    aldric = await key_id(db, campaign, "Person", "aldric_raventhorne")
    heir = await key_id(db, campaign, "Person", "the_nameless_heir")
    gm = await pictures.full_family_tree(campaign, aldric, viewer=Viewer.GM, link=lambda i, _n: f"/e/{i}")
    player = await pictures.full_family_tree(
        campaign, aldric, viewer=Viewer.PLAYER, link=lambda i, _n: f"/e/{i}"
    )
    assert isinstance(gm.layout, TreeLayout) and isinstance(player.layout, TreeLayout)
    assert heir in gm.layout.boxes and heir in gm.layout.marks
    assert {"The Nameless Heir", "GM only"} <= drawn_text(gm.svg)
    assert set(player.layout.boxes) == set(gm.layout.boxes) - {heir}
    assert "Nameless" not in player.svg and "GM only" not in player.svg and f"/e/{heir}" not in player.svg
    assert "not shown" not in player.svg  # absent, not counted
    # The heir's own tree, asked for by id: refused for the player exactly as an id nobody has.
    with pytest.raises(NotFound) as hidden:
        await pictures.full_family_tree(campaign, heir, viewer=Viewer.PLAYER)
    with pytest.raises(NotFound) as unknown:
        await pictures.full_family_tree(campaign, 987654, viewer=Viewer.PLAYER)
    assert str(hidden.value).replace(str(heir), "N") == str(unknown.value).replace("987654", "N")
    # A character who learned of the heir (and whose child he is) sees him on the player's tree.
    async with db.session() as session:
        reader = await canon.access.reader(session, campaign, Viewer.GM)
        found = await reader.statements(subject_ids=[aldric], predicates=["PARENT_OF"], with_evidence=False)
    (parent,) = [s for s in found if s.object_id == heir]
    learned = (Learned("entity", heir), Learned("statement", parent.id, ends=(aldric, heir)))
    knowing = Knowing(characters=(aldric,), learned=learned)
    lens = await pictures.full_family_tree(campaign, aldric, viewer=Viewer.PLAYER, knowing=knowing)
    assert isinstance(lens.layout, TreeLayout) and heir in lens.layout.boxes


async def test_the_full_timeline_as_each_viewer_may_see_it_and_as_of_a_date(
    db: Database, world: tuple[Campaign, CanonServices]
) -> None:
    campaign, canon = world
    pictures = PictureService(db, canon.access)
    for viewer in Viewer:
        picture = await pictures.full_timeline(campaign, viewer=viewer)
        assert isinstance(picture.layout, TimelineLayout)
        events = await standing(db, campaign.id, "Event", viewer)
        assert len(picture.layout.events) == len(events)
        text = drawn_text(picture.svg)
        assert "Battle of Black Spire (340)" in text
        assert ("Drowning of the Library (-300)" in text) is (viewer == Viewer.GM)
    # As of the year 345 of the Third Age: the battle (340) happened, the treaty (355) not yet.
    earlier = await pictures.full_timeline(campaign, viewer=Viewer.PLAYER, as_of=AsOf(world_key=345_0000))
    text = drawn_text(earlier.svg)
    assert "Battle of Black Spire (340)" in text and not any(
        t.startswith("Treaty of Emberport") for t in text
    )
    assert "The Age of Iron" in text  # an era begun stays, though it has not ended
