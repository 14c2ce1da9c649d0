"""A file Discord's server refuses or cuts off: the GM reads which file and why, and nothing is written.

The real discord.py client downloads the attachment from the emulator's file server, which refuses it (an HTTP
error) or closes the connection halfway (`DiscordEmulator.fail_download`).
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_hidden_canon_e2e import written_here
from tests.e2e.test_world_prep_e2e import FACTIONS, ROSTER, everything

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/voice/test_extraction.py")

MAP = "# The map\n\nThe river Sel runs past Thornwall to the sea.\n" * 40


@pytest.mark.parametrize(
    ("how", "status", "why"),
    [
        ("refuse", 403, "refused to send it"),
        ("refuse", 404, "no longer there"),
        ("refuse", 503, "answered with an error (503)"),
        ("cut", 200, "cut off before the whole file arrived"),
    ],
)
async def test_a_failed_download_is_said_in_words_and_nothing_is_imported(
    world: World, how: str, status: int, why: str
) -> None:
    emu, chan = world.emu, world.channel
    before = written_here(await emu.invoke(chan, world.gm, "campaign info"))
    attachment = emu.make_attachment("map.md", MAP)
    emu.fail_download(attachment, how, status=status)
    reply = await emu.invoke(chan, world.gm, "lore import", file=attachment)
    text = everything(reply.message)
    assert "I could not fetch map.md from Discord" in text and why in text, text
    assert "try once more" in text and "Something went wrong" not in text, text
    assert emu.errors.messages() == []  # an expected failure, not an unexpected error in the log
    assert written_here(await emu.invoke(chan, world.gm, "campaign info")) == before

    emu.fail_download(attachment, None)  # the same file, fetched again, imports
    again = await emu.invoke(chan, world.gm, "lore import", file=attachment)
    assert "Imported" in everything(again.message), everything(again.message)
    assert written_here(await emu.invoke(chan, world.gm, "campaign info")) != before


async def test_a_second_file_that_fails_stops_the_whole_import(world: World) -> None:
    emu, chan = world.emu, world.channel
    before = written_here(await emu.invoke(chan, world.gm, "campaign info"))
    people = emu.make_attachment("characters.yaml", ROSTER)
    factions = emu.make_attachment("factions.yaml", FACTIONS)
    emu.fail_download(factions, "cut")
    reply = await emu.invoke(chan, world.gm, "lore import", file=people, file2=factions)
    text = everything(reply.message)
    assert "I could not fetch factions.yaml from Discord" in text, text
    assert written_here(await emu.invoke(chan, world.gm, "campaign info")) == before
