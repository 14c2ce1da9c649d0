"""The names view end to end: a campaign indexed before it shows its progress in `/lore sources`, answers
throughout, and gains the view in the background once the bot restarts (the real client, emulator, Chroma, model).
"""

from __future__ import annotations

from canon.models import Viewer
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_lore_e2e import everything, import_file
from tests.helpers.names_view import BESTIARY, indexed_before

pytestmark = sql_run_below("tests/memory/test_chroma_server.py", "tests/bot/cli/test_lore.py")


async def test_an_older_campaign_shows_its_search_index_growing_and_answers_meanwhile(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_file(world, "bestiary.md", BESTIARY)
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    (source,) = await services.knowledge.list_sources(campaign.id, viewer=Viewer.GM)
    await indexed_before(services.knowledge, services.db, campaign.id)

    listed = await emu.invoke(chan, gm, "lore sources")
    chunks = source.chunk_count
    assert f"Search index: adding the passages' names, 0 of {chunks} done (0%). Lookups work meanwhile." in (
        everything(listed.message)
    )
    refused = await emu.invoke(chan, pat, "lore sources")
    assert refused.ephemeral and "Search index" not in everything(refused.message)
    # Meanwhile a player's question is answered from the views the vectors have.
    asked = await emu.invoke(chan, pat, "lore ask", question="what is the owlbear's armor class?")
    assert "13" in everything(asked.message)

    # Restarted, the bot adds the names views in the background; the line goes once they are all there.
    await world.restart()
    task = world.bot.services.knowledge.view_builder._task
    assert task is not None
    await task
    listed = await emu.invoke(chan, gm, "lore sources")
    assert "Search index" not in everything(listed.message) and "**bestiary** (source" in everything(
        listed.message
    )
    state = await world.bot.services.knowledge.view_build(campaign.id)
    assert state is not None and (state.state, state.done) == ("done", chunks)
