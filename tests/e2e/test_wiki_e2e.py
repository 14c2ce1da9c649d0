"""The campaign wiki end to end: `/wiki` in the emulator gives a private link, the bot's own process serves it,
and the page is fetched over HTTP, as a player and as the GM; the journal after two scenes; revoking links."""

from __future__ import annotations

import re
from pathlib import Path

import aiohttp
import pytest

from config.settings import Settings
from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/wiki/test_wiki_pages.py")

LINK = re.compile(r"<(http://[^>]+)>")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The bot's settings with the wiki on, on a port the system picks."""
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", wiki={"enabled": True, "port": 0}
    )


async def link_of(world: World, member: object) -> str:
    reply = await world.emu.invoke(world.channel, member, "wiki")
    assert reply.ephemeral, "a wiki link is private"
    found = LINK.search(reply.content or "")
    assert found, reply.content
    return found.group(1)


async def fetch(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def test_wiki_links_show_each_person_their_own_view(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(
        chan, gm, "canon add entity", name="Mara", type="Person", description="the harbour captain"
    )
    await emu.invoke(chan, gm, "canon add entity", name="The Hidden King", type="Person", gm_only=True)
    await emu.invoke(
        chan, gm, "canon add fact", subject="Mara", attribute="title", value="Captain of the Guard"
    )
    await emu.invoke(
        chan, gm, "canon add fact", subject="Mara", attribute="secret", value="serves the king", gm_only=True
    )
    for title, line in (
        ("Rain at the Eel", "I shake the rain off my cloak."),
        ("The docks", "Mara walks in."),
    ):
        await emu.invoke(chan, gm, "scene start", title=title, date="year 300")
        await emu.send_message(chan, pat, line)
        await emu.invoke(chan, gm, "endscene")

    player_home = await link_of(world, pat)
    gm_home = await link_of(world, gm)
    status, journal = await fetch(player_home)
    assert status == 200
    assert journal.index("Scene 2: The docks") < journal.index("Scene 1: Rain at the Eel")
    assert journal.count("year 300") == 2  # each scene's date in the calendar's words

    status, as_player = await fetch(player_home + "e/Mara")
    assert status == 200 and "Captain of the Guard" in as_player and "the harbour captain" in as_player
    assert "serves the king" not in as_player and "🔒" not in as_player
    status, as_gm = await fetch(gm_home + "e/Mara")
    assert status == 200 and "serves the king" in as_gm and "🔒" in as_gm

    hidden = await fetch(player_home + "e/The_Hidden_King")
    unknown = await fetch(player_home + "e/Nobody_At_All")
    assert hidden[0] == unknown[0] == 404 and hidden[1] == unknown[1]
    assert (await fetch(gm_home + "e/The_Hidden_King"))[0] == 200

    refused = await emu.invoke(chan, pat, "wiki", revoke="everyone's links")
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    assert (await fetch(gm_home))[0] == 200  # the player's refused revoke changed nothing

    mine = await emu.invoke(chan, pat, "wiki", revoke="my links")
    assert mine.ephemeral and "stop working" in (mine.content or "")
    status, body = await fetch(player_home)
    assert status == 403 and "revoked" in body and "Mara" not in body
    assert (await fetch(gm_home))[0] == 200
    await emu.invoke(chan, gm, "wiki", revoke="everyone's links")
    assert (await fetch(gm_home))[0] == 403
    assert (await fetch(await link_of(world, pat)))[0] == 200  # a new link works
