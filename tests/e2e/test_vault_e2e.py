"""`/lore source original:true` end to end: the GM gets the original back as it was imported (or is told it is lost);
a player gets neither. The sentence for an original larger than Discord's attachments is in tests/cogs."""

from __future__ import annotations

from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything, import_file

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/cli/test_lore.py")

WORLD = "# Westhaven\n\n## The Crown\n\nKing Aldric rules Westhaven from the Gull Throne.\n"


async def test_the_gm_gets_the_original_back_and_a_player_does_not(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    data = ("\ufeff" + WORLD).encode("utf-8")  # a byte-order mark: the original, not the text indexed
    imported = await import_file(world, "westhaven.md", data.decode("utf-8"))
    assert "Imported" in everything(imported.message), everything(imported.message)
    (source,) = await world.bot.services.knowledge.list_sources(
        (await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)).id
    )

    shown = await emu.invoke(chan, gm, "lore source", source=source.id, original=True)
    assert shown.ephemeral and shown.files == {"westhaven.md": data}
    assert "The original of **Westhaven** (westhaven.md), as it was imported" in everything(shown.message)

    refused = await emu.invoke(chan, pat, "lore source", source=source.id, original=True)
    assert refused.ephemeral and "Only the GM" in (refused.content or "") and not refused.files


async def test_an_original_lost_from_the_vault_is_said_plainly(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    services = world.bot.services
    await import_file(world, "westhaven.md", WORLD)
    (source,) = await services.knowledge.list_sources(
        (await services.campaigns.for_guild(world.guild.id, world.guild.name)).id
    )
    services.knowledge.vault.delete(source.file_hash)
    shown = await emu.invoke(chan, gm, "lore source", source=source.id, original=True)
    text = everything(shown.message)
    assert shown.ephemeral and not shown.files
    assert "is no longer in the vault" in text and "Import the file again" in text
    assert "Versions (1)" in text  # the inspector is shown all the same
