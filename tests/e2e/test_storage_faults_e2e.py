"""Storage faults named plainly: a full disk or a read-only database, on SQLite and PostgreSQL.

The real client against the emulator. A write the storage refuses (/canon add, /scene start) tells the GM
what is wrong and what the host can do, never "Something went wrong"; a read (/lore ask) still answers when
the record it keeps cannot be written, and says so. Once the storage is back, everything works again.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.offline.emulator.messages import custom_ids
from tests.conftest import DatabaseTarget
from tests.e2e.canon_flow import embed_text, gm_adds
from tests.e2e.conftest import World
from tests.helpers.storage_faults import (
    fill_disk,
    free_disk,
    make_read_only,
    make_writable,
    read_only_url,
    small_disk,
)

SOURCE = "# The Mill\n\nThe old mill of Dunmore grinds barley for the whole valley.\n"
TABLES = ("entities", "knowledge_retrievals", "scenes")


@pytest.fixture
async def db_target(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[DatabaseTarget]:
    """The test database; a SQLite file on a small disk of its own, which the test can fill."""
    if not db_target.is_sqlite:
        yield db_target
        return
    source = Path(str(make_url(db_target.url).database))
    with small_disk(tmp_path / "disk") as disk:
        await asyncio.to_thread(shutil.copyfile, source, disk / source.name)
        yield DatabaseTarget(f"sqlite+aiosqlite:///{disk / source.name}")


async def import_source(world: World) -> None:
    attachment = world.emu.make_attachment("mill.md", SOURCE)
    imported = await world.emu.invoke(world.channel, world.gm, "lore import", file=attachment)
    assert imported.ephemeral and "Imported" in embed_text(imported.embeds[0]), imported.content


async def ask_about_the_mill(world: World) -> tuple[str, list[str]]:
    """Ask /lore as a player; return the answer's text and its buttons."""
    reply = await world.emu.invoke(world.channel, world.pat, "lore ask", question="What does the mill grind?")
    assert reply.embeds, reply.content
    return embed_text(reply.embeds[0]), custom_ids(reply.components or [])


async def test_a_full_disk_is_named_and_lore_questions_still_answer(world: World) -> None:
    emu, chan = world.emu, world.channel
    await import_source(world)
    db = world.bot.services.db
    await fill_disk(db, TABLES)
    try:
        refused = await emu.invoke(chan, world.gm, "canon add entity", name="Brann", type="Person")
        assert refused.ephemeral and "Something went wrong" not in (refused.content or "")
        assert refused.content == (
            "That was not saved: the disk is full. Nothing else was lost; ask the bot's host to free space on "
            "the disk of its data folder, then try again."
        )
        answer, buttons = await ask_about_the_mill(world)
        assert "barley" in answer and "could not be saved (the disk is full)" in answer, answer
        assert not any(b.startswith("lk:why:") for b in buttons), buttons
    finally:
        await free_disk(db, TABLES)
    await gm_adds(world, "entity", name="Brann", type="Person")
    answer, buttons = await ask_about_the_mill(world)
    assert "barley" in answer and "could not be saved" not in answer and buttons, buttons


async def test_a_read_only_database_is_named_and_lore_questions_still_answer(world: World) -> None:
    emu, chan = world.emu, world.channel
    await import_source(world)
    db = world.bot.services.db
    await make_read_only(db)
    try:
        refused = await emu.invoke(chan, world.gm, "scene start", title="The mill at dawn")
        assert refused.ephemeral and refused.content == (
            "That was not saved: the database is read-only. Nothing else was lost; ask the bot's host to let "
            "the bot write to its database again (`lorekeeper doctor` checks it), then try again."
        ), refused.content
        answer, _ = await ask_about_the_mill(world)
        assert "barley" in answer and "could not be saved (the database is read-only)" in answer, answer
    finally:
        await make_writable(db)
    started = await emu.invoke(chan, world.gm, "scene start", title="The mill at dawn")
    assert "The mill at dawn" in (started.content or "") + "".join(
        embed_text(e) for e in started.embeds or []
    ), started.content


async def test_a_start_on_a_read_only_database_says_so(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    await world.stop()
    writable = world.target
    async with read_only_url(writable) as url:
        world.target = DatabaseTarget(url)
        try:
            with caplog.at_level(logging.WARNING, logger="bot.client"):
                await world.start()
            assert any(
                "the database takes no writes: the database is read-only" in r.getMessage()
                for r in caplog.records
            ), [r.getMessage() for r in caplog.records]
            await world.stop()
        finally:
            world.target = writable
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="bot.client"):
        await world.start()
    assert not any("takes no writes" in r.getMessage() for r in caplog.records)
