"""`/wiki` on a bot whose wiki is off (the default): a private sentence saying how the host turns it on, no link."""

from __future__ import annotations

from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)


async def test_wiki_when_the_wiki_is_off_says_how_to_turn_it_on(world: World) -> None:
    reply = await world.emu.invoke(world.channel, world.pat, "wiki")
    assert reply.ephemeral
    assert "not switched on" in (reply.content or "") and "http" not in (reply.content or "")
    mine = await world.emu.invoke(world.channel, world.pat, "wiki", revoke="my links")
    assert mine.ephemeral and "stop working" in (mine.content or "")
