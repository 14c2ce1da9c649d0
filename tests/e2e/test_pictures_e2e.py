"""`/canon tree` and `/canon timeline` pictures end to end: the real client against the emulator, PNG decoded.

The campaign's lore comes from the fixtures' YAML files (through the bot's own structured-import service).
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from canon.proposals import EntityContent
from memory.scenes import Actor
from tests.e2e.conftest import World

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "yaml"
KINDS = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]
GM = Actor(id=1, name="Gina", is_gm=True)


async def import_lore(world: World) -> None:
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    for name in ("Sisterhood of Silver", "The Crimson Pact"):
        await services.canon.add_direct(
            campaign, EntityContent(name=name, entity_type="Faction"), GM, command="test"
        )
    files = [(f"{k}.yaml", (FIXTURES / f"{k}.yaml").read_bytes()) for k in KINDS]
    report = await services.structured.import_files(campaign, files, GM)
    assert report.status == "ingested", report.summary()


def png_of(result: object) -> Image.Image:
    files = result.files  # type: ignore[attr-defined]
    assert len(files) == 1, files
    (data,) = files.values()
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image


async def test_canon_tree_attaches_a_png_that_hides_gm_only_people_from_players(world: World) -> None:
    await import_lore(world)
    emu, chan = world.emu, world.channel
    synced = {c["name"]: c for c in emu.global_commands}
    assert "tree" in {o["name"] for o in synced["canon"]["options"]}
    player = await emu.invoke(chan, world.pat, "canon tree", name="The Bloodline of House Vyr")
    gm = await emu.invoke(chan, world.gm, "canon tree", name="The Bloodline of House Vyr")
    assert player.ephemeral and gm.ephemeral
    player_png, gm_png = png_of(player), png_of(gm)
    assert player.embeds[0]["title"] == "Family tree: The Bloodline of House Vyr"
    assert player.embeds[0]["image"]["url"].endswith("family-tree.png")
    # The GM's tree has one more person (the hidden heir) in the same rows: wider or equal, never smaller.
    assert gm_png.size[1] == player_png.size[1] and gm_png.size[0] >= player_png.size[0]
    assert gm_png.tobytes() != player_png.tobytes()
    one = await emu.invoke(chan, world.pat, "canon tree", name="Aldric Raventhorne", generations=1)
    assert png_of(one).size[1] < player_png.size[1]  # three generations, not six
    wrong = await emu.invoke(chan, world.pat, "canon tree", name="Thornwall Keep")
    assert "a family tree is drawn for a person or a lineage" in (wrong.content or "")
    assert not world.bot.extension_failures


async def test_canon_timeline_without_a_name_or_with_an_era_is_a_picture(world: World) -> None:
    await import_lore(world)
    emu, chan = world.emu, world.channel
    whole = await emu.invoke(chan, world.pat, "canon timeline")
    assert whole.ephemeral and whole.embeds[0]["title"] == "Timeline"
    whole_png = png_of(whole)
    era = await emu.invoke(chan, world.pat, "canon timeline", name="The Age of Iron")
    assert era.embeds[0]["title"] == "Timeline: The Age of Iron"
    assert png_of(era).size[1] <= whole_png.size[1]
    # An entity that is not an era still gets its story as text.
    story = await emu.invoke(chan, world.pat, "canon timeline", name="Aldric Raventhorne")
    assert story.files == {} and "Aldric Raventhorne" in story.embeds[0]["title"]
