"""The wiki's pages over HTTP, as a player and as the GM, on a shared campaign (read-only tests)."""

from __future__ import annotations

import pytest

from tests.bot.wiki.conftest import World

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_the_journal_lists_both_scenes_newest_first_with_their_recaps(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.player_token}/")
    assert status == 200
    assert body.index("Scene 2: The Return") < body.index("Scene 1: The Ride")
    assert "Greyhaven" in body


async def test_a_player_sees_aldric_without_the_gm_only_secret(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.player_token}/e/Aldric")
    assert status == 200
    assert "a knight of the Watch" in body and "knight-commander" in body
    assert "gate codes" not in body and "🔒" not in body
    assert "The Watch" in body  # the relation, linked
    assert f'href="/t/{world.player_token}/e/The_Watch"' in body


async def test_the_gm_sees_the_secret_marked(world: World) -> None:
    status, body, _ = await world.get(f"/t/{world.gm_token}/e/Aldric")
    assert status == 200
    assert "sold the gate codes" in body and "🔒" in body
