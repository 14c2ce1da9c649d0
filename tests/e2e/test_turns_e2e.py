"""No message is lost: a shutdown under load, the bot down or disconnected, the disk full.

The real discord.py client against the emulator, on SQLite and PostgreSQL. Messages posted while the bot
could not receive them are read back from the channel's history at start and on reconnect (RESUMED),
once each and in order.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from bot.offline.emulator.messages import StoredMessage
from canon.storage_faults import DISK_FULL
from memory.scene_tables import TurnRow
from tests.e2e.conftest import World

#: PostgreSQL's own error for a full disk (SQLSTATE 53100), raised where the server would raise it.
PG_DISK_FULL = """
CREATE FUNCTION lk_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$;
CREATE TRIGGER lk_disk_full BEFORE INSERT ON turns FOR EACH ROW EXECUTE FUNCTION lk_disk_full();
"""


async def fill_the_disk(world: World) -> None:
    """Make every new turn fail as on a full disk: SQLite's own SQLITE_FULL, PostgreSQL's disk_full."""
    db = world.bot.services.db
    if db.is_sqlite:  # the writer connection may not grow the file any more, and its free pages are taken
        await db.run(lambda s: s.execute(text("CREATE TABLE lk_filler (x BLOB)")))
        await db.run(lambda s: s.execute(text("PRAGMA max_page_count = 1")))
        for size in (4000, 1000, 200, 20):
            fill = text(f"INSERT INTO lk_filler VALUES (zeroblob({size}))")
            while True:
                try:
                    await db.run(lambda s, fill=fill: s.execute(fill))
                except OperationalError as error:
                    assert "full" in str(error)
                    break
    else:
        async with db.engine.begin() as conn:
            for statement in PG_DISK_FULL.split(";\nCREATE TRIGGER"):
                if not statement.strip().startswith("CREATE FUNCTION"):
                    statement = "CREATE TRIGGER" + statement
                await conn.exec_driver_sql(statement.strip().rstrip(";"))


async def free_the_disk(world: World) -> None:
    db = world.bot.services.db
    if db.is_sqlite:
        await db.run(lambda s: s.execute(text("PRAGMA max_page_count = 1073741823")))
        await db.run(lambda s: s.execute(text("DROP TABLE lk_filler")))
    else:
        async with db.engine.begin() as conn:
            await conn.exec_driver_sql("DROP TRIGGER lk_disk_full ON turns")


async def stored_turns(world: World, scene_channel: int | None = None) -> list[tuple[int, int | None, str]]:
    """Return (number, message id, text) of every stored turn, in turn order."""
    db = world.target.open()
    try:
        async with db.session() as session:
            query = select(TurnRow.number, TurnRow.discord_message_id, TurnRow.text).order_by(
                TurnRow.scene_id, TurnRow.number
            )
            return [tuple(row) for row in (await session.execute(query)).all()]  # type: ignore[misc]
    finally:
        await db.dispose()


def post_unseen(world: World, author: Any, content: str) -> dict[str, Any]:
    """Post a message in the scene channel that no gateway delivers (the bot was away when it came)."""
    emu = world.emu
    user = author.user if hasattr(author, "user") else author
    data = emu.message_payload(world.channel, author=user.payload(), member=author, content=content)
    stored = StoredMessage(data, world.channel, emu.blobs, from_bot=False)
    emu.messages[stored.id] = stored
    return stored.view()


async def test_a_shutdown_stops_receiving_before_it_unloads_the_turn_logger(world: World) -> None:
    emu, chan, bot = world.emu, world.channel, world.bot
    await emu.invoke(chan, world.gm, "scene start", title="Last orders")
    await emu.send_message(chan, world.pat, "One more round.")
    received: list[int] = []

    async def count(message: Any) -> None:
        if not message.author.bot:
            received.append(message.id)

    bot.add_listener(count, "on_message")
    unload = bot.unload_extension
    late: list[dict[str, Any]] = []

    async def unload_and_post(name: str, *, package: str | None = None) -> None:
        await unload(name, package=package)
        if name == "cogs.turns":  # the turn logger is gone: a message received now would be lost
            late.append(await emu.send_message(chan, world.pat, "Closing time?", settle=False))
            if not bot.is_closed():
                await emu.wait_for(lambda: int(late[0]["id"]) in received, timeout=10, what="late message")

    bot.unload_extension = unload_and_post  # type: ignore[method-assign]
    await world.stop()
    assert late, "the turn logger was unloaded"
    stored = {message_id for _, message_id, _ in await stored_turns(world)}
    assert set(received) <= stored, "a message the bot received during its shutdown was not stored"


async def test_messages_posted_while_the_bot_was_down_are_read_back_at_start_once_and_in_order(
    world: World,
) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Night watch")
    first = await emu.send_message(chan, world.pat, "I keep watch.")
    await world.stop()
    missed = [
        post_unseen(world, world.gm if i % 3 == 0 else world.pat, f"while away {i}") for i in range(130)
    ]  # more than one page of history
    await world.start()
    turns = await stored_turns(world)
    assert [message_id for _, message_id, _ in turns] == [int(m["id"]) for m in (first, *missed)]
    assert [number for number, _, _ in turns] == list(range(1, 132))
    async with world.bot.services.db.session() as session:
        speakers = (await session.execute(select(TurnRow.speaker).order_by(TurnRow.number))).scalars().all()
    assert speakers[1] == "gm" and speakers[2] == "player"  # read back as the GM's, the player's
    # A new message comes after them; a second start reads nothing twice.
    later = await emu.send_message(chan, world.pat, "Dawn.")
    await world.restart()
    turns = await stored_turns(world)
    assert len(turns) == 132 and turns[-1][1] == int(later["id"])


async def test_messages_missed_while_disconnected_are_read_back_on_resume_before_new_ones(
    world: World,
) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Storm")
    acked: list[int] = []
    world.bot.services.turns.observers.append(acked.extend)
    missed = [post_unseen(world, world.pat, f"lost in the storm {i}") for i in range(5)]
    await emu.drop_connections()  # Discord does not replay what was posted meanwhile: RESUMED
    after = await emu.send_message(chan, world.pat, "The storm passes.", settle=False)
    # The new message may race the read-back (both see it): it is stored once, whoever acknowledges it.
    await emu.wait_for(lambda: len(set(acked)) == 6, timeout=30, what="the missed messages and the new one")
    turns = await stored_turns(world)
    assert [message_id for _, message_id, _ in turns] == [int(m["id"]) for m in (*missed, after)]


async def test_messages_in_a_channel_without_a_scene_are_not_read_back(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Short")
    await emu.send_message(chan, world.pat, "Hello.")
    await emu.invoke(chan, world.gm, "endscene")
    await world.stop()
    post_unseen(world, world.pat, "Chat after the scene.")
    await world.start()
    assert [text for _, _, text in await stored_turns(world)] == ["Hello."]


async def test_turns_posted_while_the_disk_is_full_are_stored_once_space_is_freed(world: World) -> None:
    emu, chan, turns = world.emu, world.channel, world.bot.services.turns
    await emu.invoke(chan, world.gm, "scene start", title="Full")
    before = await emu.send_message(chan, world.pat, "Before.")
    acked: list[int] = []
    turns.observers.append(acked.extend)
    turns.max_waiting = 3  # memory stays bounded: past this, messages are read back from history later
    await fill_the_disk(world)
    # A message as long as Discord allows, with an embed: it needs new pages, wherever the file has room.
    long = {"description": "word " * 800}
    sent = [await emu.send_message(chan, world.pat, "0 " + "word " * 390, embeds=[long], settle=False)]
    await emu.wait_for(lambda: turns.outage == DISK_FULL, timeout=30, what="the outage noticed")

    def warnings() -> list[dict[str, Any]]:
        return [m for m in emu.channel_messages(chan) if "cannot save" in (m.get("content") or "")]

    await emu.wait_for(lambda: bool(warnings()), timeout=30, what="the GM told")
    (warning,) = warnings()
    assert "the disk is full" in warning["content"] and "free space" in warning["content"]
    # During the outage: three more wait in memory, the rest are left in Discord, to be read back.
    sent += [await emu.send_message(chan, world.pat, f"{i} ...", settle=False) for i in range(1, 8)]
    await emu.wait_for(lambda: bool(turns.missed_channels), timeout=30, what="messages left to read back")
    assert turns.missed_channels == {chan.id} and turns.waiting == 1 + 3 and acked == []
    await free_the_disk(world)
    await emu.wait_for(lambda: turns.outage is None, timeout=30, what="the outage over")
    await emu.wait_for(lambda: len(set(acked)) == 8, timeout=30, what="every turn stored")
    await emu.wait_for(
        lambda: any("saved again" in (m.get("content") or "") for m in emu.channel_messages(chan)),
        timeout=30,
        what="the GM told it is over",
    )
    stored = await stored_turns(world)
    assert [message_id for _, message_id, _ in stored] == [int(m["id"]) for m in (before, *sent)]
    assert [number for number, _, _ in stored] == list(range(1, 10))
    assert not turns.missed_channels and len(warnings()) == 1
