"""`/canon tree` and `/canon timeline` pictures end to end: the real client against the emulator, PNG decoded.

The campaign's lore comes from the fixtures' YAML files (through the bot's own structured-import service).
Only the attached PNG is read here (no layout): what it shows is found by its colours and compared with the
ingested graph, read from the database.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from canon.campaigns import Campaign
from canon.models import Viewer
from canon.proposals import EntityContent
from canon.render import TimelineLayout
from canon.render.family_tree import LEGEND_H
from memory.scenes import Actor
from tests.e2e.canon_flow import latest_scene, review_cards
from tests.e2e.conftest import World, sql_run_below
from tests.helpers.picture_checks import (
    EraSpan,
    assert_timeline_shows,
    assert_tree_shows,
    decode,
    hidden_boxes,
    standing,
    year_of,
)

pytestmark = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/archive/test_export_import.py")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "yaml"
KINDS = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]
GM = Actor(id=1, name="Gina", is_gm=True)


async def import_lore(world: World) -> Campaign:
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    for name in ("Sisterhood of Silver", "The Crimson Pact"):
        await services.canon.add_direct(
            campaign, EntityContent(name=name, entity_type="Faction"), GM, command="test"
        )
    files = [(f"{k}.yaml", (FIXTURES / f"{k}.yaml").read_bytes()) for k in KINDS]
    report = await services.structured.import_files(campaign, files, GM)
    assert report.status == "ingested", report.summary()
    return campaign


def png_of(result: object) -> Image.Image:
    files = result.files  # type: ignore[attr-defined]
    assert len(files) == 1, files
    (data,) = files.values()
    return decode(data)


async def test_canon_tree_attaches_a_png_that_hides_gm_only_people_from_players(world: World) -> None:
    campaign = await import_lore(world)
    db = world.bot.services.db
    emu, chan = world.emu, world.channel
    synced = {c["name"]: c for c in emu.global_commands}
    assert "tree" in {o["name"] for o in synced["canon"]["options"]}
    player = await emu.invoke(chan, world.pat, "canon tree", name="The Bloodline of House Vyr")
    gm = await emu.invoke(chan, world.gm, "canon tree", name="The Bloodline of House Vyr")
    assert player.ephemeral and gm.ephemeral
    player_png, gm_png = png_of(player), png_of(gm)
    assert player.embeds[0]["title"] == "Family tree: The Bloodline of House Vyr"
    assert player.embeds[0]["image"]["url"].endswith("family-tree.png")
    # One drawn box per person each may see: the GM's tree has the hidden heir, the player's does not.
    players = await standing(db, campaign.id, "Person", Viewer.PLAYER)
    gms = await standing(db, campaign.id, "Person", Viewer.GM)
    hidden = {row.key for i, row in gms.items() if i not in players}
    assert hidden == {"the_nameless_heir"} and len(gms) == 17
    assert_tree_shows(player_png, len(players))
    assert_tree_shows(gm_png, len(gms))
    # The GM's tree marks the hidden heir (a screenshot shared with players says so); the players' has no mark.
    assert len(hidden_boxes(gm_png)) == 1 and not hidden_boxes(player_png)
    # Both at the width Discord shows; the GM's as tall or taller (one box more may wrap onto a line), with a legend.
    assert gm_png.size[0] == player_png.size[0] == 550
    assert gm_png.size[1] >= player_png.size[1] + LEGEND_H
    one = await emu.invoke(chan, world.pat, "canon tree", name="Aldric Raventhorne", generations=1)
    assert png_of(one).size[1] < player_png.size[1]  # three generations, not six
    # Aldric, his parents and wife, his children (Corvin, Wren): one generation each way.
    assert_tree_shows(png_of(one), 6)
    wrong = await emu.invoke(chan, world.pat, "canon tree", name="Thornwall Keep")
    assert "a family tree is drawn for a person or a lineage" in (wrong.content or "")
    assert not world.bot.extension_failures


async def test_canon_timeline_without_a_name_or_with_an_era_is_a_picture(world: World) -> None:
    campaign = await import_lore(world)
    db = world.bot.services.db
    emu, chan = world.emu, world.channel
    eras = await standing(db, campaign.id, "Era", Viewer.PLAYER)
    events = await standing(db, campaign.id, "Event", Viewer.PLAYER)
    everything = await standing(db, campaign.id, "Event", Viewer.GM)
    spans = {
        row.key: EraSpan(
            row.world_from_key // 10000, row.world_until_key // 10000, sub=row.key == "age_of_iron"
        )
        for row in eras.values()
    }
    dated = {
        row.key: year_of(row.world_from_key) for row in events.values() if row.world_from_key is not None
    }
    hidden = {row.key: year_of(row.world_from_key) for i, row in everything.items() if i not in events}
    assert len(spans) == 4 and set(hidden) == {"drowning_of_the_library", "the_nameless_birth"}
    whole = await emu.invoke(chan, world.pat, "canon timeline")
    assert whole.ephemeral and whole.embeds[0]["title"] == "Timeline"
    whole_png = png_of(whole)
    # Eras as bands over their years, events at their dates (the scale read off the bands), the
    # undated Raising of the Black Spire inside the Third Age, nothing where the hidden drowning would be.
    assert_timeline_shows(
        whole_png,
        list(spans.values()),
        list(dated.values()),
        [spans["3rd_age"]],
        absent=[hidden["drowning_of_the_library"]],
    )
    era = await emu.invoke(chan, world.pat, "canon timeline", name="The Age of Iron")
    assert era.embeds[0]["title"] == "Timeline: The Age of Iron"
    assert png_of(era).size[1] <= whole_png.size[1]
    iron = EraSpan(spans["age_of_iron"].start, spans["age_of_iron"].end)
    within = [year for year in dated.values() if iron.start <= year < iron.end + 1]
    assert len(within) == 3
    assert_timeline_shows(png_of(era), [iron], within, absent=[hidden["the_nameless_birth"]])
    # An entity that is not an era still gets its story as text.
    story = await emu.invoke(chan, world.pat, "canon timeline", name="Aldric Raventhorne")
    assert story.files == {} and "Aldric Raventhorne" in story.embeds[0]["title"]


async def play_a_scene(world: World, title: str, events: dict[str, str | None]) -> None:
    """Play a scene in which the GM proposes these events (name: date or None), and commit it."""
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title=title)
    await emu.send_message(chan, world.gm, f"{title} begins.")
    for name, when in events.items():
        await emu.invoke(chan, world.gm, "propose event", name=name, **({"when": when} if when else {}))
    await emu.invoke(chan, world.gm, "endscene")
    scene = await latest_scene(world)
    await emu.click(review_cards(world)[-1], f"lk:review:{scene.id}:commit", world.gm)


async def test_the_timeline_shows_what_happened_in_play(world: World) -> None:
    campaign = await import_lore(world)
    await play_a_scene(
        world, "The ford", {"The ambush at the ford": "3rd_age.year_361", "The march north": None}
    )
    await play_a_scene(world, "The hall", {"The parley in the hall": None})
    services = world.bot.services
    picture = await services.pictures.timeline(campaign, viewer=Viewer.PLAYER)
    layout = picture.layout
    assert isinstance(layout, TimelineLayout)
    labels = {label.text: label for label in layout.events.values()}
    ambush = labels["The ambush at the ford (361)"]
    march, parley = labels["The march north (scene 1)"], labels["The parley in the hall (scene 2)"]
    # The dated event at its date; the undated ones after it, in story order.
    assert ambush.marker is not None and march.marker is not None and parley.marker is not None
    assert ambush.marker[0] == layout.x_of(361) and ambush.marker[0] < march.marker[0] < parley.marker[0]
    shown = await world.emu.invoke(world.channel, world.pat, "canon timeline")
    assert shown.ephemeral and png_of(shown).size == (layout.width, layout.height)


async def test_a_picture_points_to_its_full_size_on_the_wiki_through_the_person_s_own_link(
    world: World,
) -> None:
    import aiohttp

    from bot.wiki.server import WikiServer

    await import_lore(world)
    emu, chan = world.emu, world.channel
    off = await emu.invoke(chan, world.pat, "canon timeline")
    assert not off.embeds[0].get("description")  # the wiki is off: no line to it
    wiki = world.bot.services.wiki
    server = WikiServer(wiki)
    await server.start("127.0.0.1", 0)
    wiki.settings.enabled, wiki.settings.base_url = True, f"http://127.0.0.1:{server.port}"
    try:
        timeline = await emu.invoke(chan, world.pat, "canon timeline")
        tree = await emu.invoke(chan, world.gm, "canon tree", name="Aldric Raventhorne")
        links = {}
        for name, reply in (("timeline", timeline), ("tree", tree)):
            line = reply.embeds[0]["description"]
            assert line.startswith("[Open it at full size on the wiki](http://127.0.0.1:"), line
            links[name] = line.split("](", 1)[1].split(")", 1)[0]
        assert links["timeline"].endswith("/timeline") and links["tree"].endswith("/tree/Aldric_Raventhorne")
        async with aiohttp.ClientSession() as http:
            async with http.get(links["timeline"]) as response:
                page = await response.text()
                assert response.status == 200 and "Battle of Black Spire (340)" in page
                assert "Drowning of the Library" not in page  # Pat's own link: a player's view
            async with http.get(links["tree"]) as response:
                page = await response.text()
                assert response.status == 200 and "The Nameless Heir" in page  # the GM's link: all of it
    finally:
        wiki.settings.enabled, wiki.settings.base_url = False, None
        await server.stop()
