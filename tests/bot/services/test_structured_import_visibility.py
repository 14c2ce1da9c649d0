"""Structured lore (YAML) in branches and before players on a real database: a branch ingests into itself only, pictures and hidden entries stay the GM's.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import func, select

from bot.app import CanonServices
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign, ChangesetRow
from canon.models import Viewer, Visibility
from canon.storage import Database
from tests.helpers.picture_checks import (
    EraSpan,
    assert_timeline_shows,
    assert_tree_shows,
    decode,
    era_bands,
    inside,
    standing,
    year_of,
)
from tests.helpers.structured_import import FIXTURES, by_key, reader_of
from tests.helpers.valdorn import GM, fixture_files, ingest_all


async def test_a_branch_ingests_into_itself_only(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    async with db.session() as session:
        last = await session.scalar(select(func.max(ChangesetRow.id)))
    branch = await db.run(lambda s: _fork(s, campaign, int(last or 0)))
    tree = (FIXTURES / "family_tree.yaml").read_text().replace("name: Maric Vyr", "name: Maric the Bold", 1)
    report = await importer.import_files(branch, [("family_tree.yaml", tree.encode())], GM)
    assert report.status == "ingested" and report.entities.changed == 1, report.summary()
    async with db.session() as session:
        root = await reader_of(db, session, campaign)
        assert (await root.find_exact("maric_vyr"))[0].name == "Maric Vyr"
        forked = await reader_of(db, session, branch)
        assert (await forked.find_exact("maric_vyr"))[0].name == "Maric the Bold"


async def _fork(session: Any, parent: Campaign, changeset: int) -> Campaign:
    row = campaigns.CampaignRow(
        name="Valdorn what-if", parent_id=parent.id, fork_changeset_id=changeset, settings={}
    )
    session.add(row)
    await session.flush()
    return await campaigns.get_campaign(session, row.id)


# --- pictures of what was ingested -------------------------------------------------------------------------


async def test_pictures_of_the_ingested_tree_and_timeline_leave_hidden_entries_out_for_players(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    from bot.services.pictures import PictureService
    from canon.render import TimelineLayout, TreeLayout

    await ingest_all(importer, canon, campaign)
    pictures = PictureService(db, canon.access)
    people = {viewer: await standing(db, campaign.id, "Person", viewer) for viewer in Viewer}
    (heir,) = [i for i, row in people[Viewer.GM].items() if row.key == "the_nameless_heir"]
    assert len(people[Viewer.GM]) == 17 and set(people[Viewer.PLAYER]) == set(people[Viewer.GM]) - {heir}
    for viewer in Viewer:
        picture = await pictures.family_tree(campaign, "The Bloodline of House Vyr", viewer=viewer)
        layout = picture.layout
        assert isinstance(layout, TreeLayout)
        # The decoded PNG: one drawn box per person the viewer may see, each where the layout says.
        drawn = assert_tree_shows(decode(picture.png), len(people[viewer]))
        assert drawn == sorted(inside(box.rect, 2) for box in layout.boxes.values())
        assert {i: box.lines[0] for i, box in layout.boxes.items()} == {
            i: row.name for i, row in people[viewer].items()
        }
        assert (heir in layout.boxes) is (viewer == Viewer.GM)
        # Theron and Mara founded the line: the top row; their grandchildren two rows below.
        names_by_row = [{layout.boxes[i].lines[0] for i in row} for row in layout.rows]
        assert {"Theron Ashveil", "Mara Ashveil"} <= names_by_row[0]
        assert "Cael Vyr" in names_by_row[2]
    aldric = await pictures.family_tree(campaign, "Aldric Raventhorne", viewer=Viewer.PLAYER, up=1, down=1)
    assert isinstance(aldric.layout, TreeLayout)
    names = {box.lines[0] for box in aldric.layout.boxes.values()}
    assert names == {
        "Aldric Raventhorne",
        "Elara Raventhorne",
        "Cael Vyr",
        "Yssa Raventhorne",
        "Corvin Raventhorne",
        "Wren Raventhorne",
    }
    assert_tree_shows(decode(aldric.png), len(names))
    for viewer in Viewer:
        eras = await standing(db, campaign.id, "Era", viewer)
        events = await standing(db, campaign.id, "Event", viewer)
        timeline = await pictures.timeline(campaign, viewer=viewer)
        layout = timeline.layout
        assert isinstance(layout, TimelineLayout)
        image = decode(timeline.png)
        spans = {row.key: era_span(row) for row in eras.values()}
        undated = [row for row in events.values() if row.world_from_key is None]
        assert [row.key for row in undated] == ["raising_of_the_black_spire"]  # only "in the Third Age"
        hidden = [
            row
            for row in (await standing(db, campaign.id, "Event", Viewer.GM)).values()
            if row.id not in events
        ]
        assert_timeline_shows(
            image,
            list(spans.values()),
            [year_of(row.world_from_key) for row in events.values() if row.world_from_key is not None],
            [spans["3rd_age"]],
            x_of=layout.x_of,
            absent=[year_of(row.world_from_key) for row in hidden if row.key == "drowning_of_the_library"],
        )
        assert sorted(era_bands(image)) == sorted(inside(band.rect, 1) for band in layout.bands.values())
        texts = [label.text for label in layout.events.values()]
        assert any(t.startswith("Battle of Black Spire (340)") for t in texts)
        assert any(t.startswith("Drowning of the Library") for t in texts) is (viewer == Viewer.GM)
        assert len(hidden) == (0 if viewer == Viewer.GM else 2)
    era = await pictures.timeline(campaign, "The Age of Iron", viewer=Viewer.PLAYER)
    assert isinstance(era.layout, TimelineLayout)
    assert {b.text for b in era.layout.bands.values()} == {"The Age of Iron"}
    assert all("Founding of Thornwall" not in label.text for label in era.layout.events.values())
    # One era drawn large: a year is several pixels wide here, so a marker a year off would show.
    iron = next(
        row
        for row in (await standing(db, campaign.id, "Era", Viewer.PLAYER)).values()
        if row.key == "age_of_iron"
    )
    span = dataclasses.replace(era_span(iron), sub=False)
    within = [
        year_of(row.world_from_key)
        for row in (await standing(db, campaign.id, "Event", Viewer.PLAYER)).values()
        if row.world_from_key is not None and span.start <= row.world_from_key // 10000 <= span.end
    ]
    assert len(within) == 3  # the battle, the slaying and the treaty; the nameless birth is GM-only
    assert_timeline_shows(decode(era.png), [span], within, x_of=era.layout.x_of)
    assert era_bands(decode(era.png)) == [inside(band.rect, 1) for band in era.layout.bands.values()]


def era_span(row: Any) -> EraSpan:
    """Return an Era entity's years (its validity) and whether it lies inside another era."""
    return EraSpan(
        start=row.world_from_key // 10000, end=row.world_until_key // 10000, sub=row.key == "age_of_iron"
    )


async def test_hidden_makes_every_entry_and_fact_gm_only(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, fixture_files("bestiary"), GM, hidden=True)
    assert report.status == "failed"  # the bestiary fixture names places of the gazetteer
    data = b"creatures:\n  - id: marsh_troll\n    name: Marsh Troll\n    alignment: NO\n"
    report = await importer.import_files(campaign, [("secret.yaml", data)], GM, hidden=True)
    assert report.status == "ingested"
    troll, statements, _ = await by_key(db, campaign, "marsh_troll")
    assert troll.visibility == Visibility.GM_ONLY and statements
    assert all(s.visibility == Visibility.GM_ONLY for s in statements)
    assert [s.value for s in statements if s.predicate == "alignment"] == ["NO"]  # the Norway rule
    async with db.session() as session:
        player = await reader_of(db, session, campaign, Viewer.PLAYER)
        assert await player.find_exact("Marsh Troll") == []
